/*
 * powershell.c - PowerShell: functions (verb-noun names), classes with
 * their methods and properties, enums; commands are calls, Import-Module
 * an import.  Names starting with '_' are private; a comment-based help
 * block (<# ... #>) above a function is its doc.
 */
#include "lang_int.h"

#include <string.h>
#include <strings.h>

MI_FIX(powershell)
{
	TSNode n = *(TSNode *)def_node;
	if (!strcmp(ts_node_type(n), "class_statement") || !strcmp(ts_node_type(n), "enum_statement")) {
		uint32_t tl;
		const char *t = mi_ts_text(c, &n, &tl);
		const char *brace = memchr(t, '{', tl);
		if (brace)
			mi_ts_set_sig(c, s, ts_node_start_byte(n), ts_node_start_byte(n) + (uint32_t)(brace - t));
	}
	/* function global:prompt defines prompt in the global scope */
	static const char *const scopes[] = { "global:", "script:", "local:", "private:" };
	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++)
		if (!strncasecmp(s->name, scopes[i], strlen(scopes[i]))) {
			if (i == 3)
				s->vis = MI_VIS_PRIVATE;
			s->name += strlen(scopes[i]);
			break;
		}
	const char *nm = s->name[0] == '$' ? s->name + 1 : s->name;
	if (nm[0] == '_')
		s->vis = MI_VIS_PRIVATE;
	if (s->doc[0] == '<' && s->doc[1] == '#') {
		const char *d = s->doc + 2;
		while (*d == '\n' || *d == ' ')
			d++;
		/* the help's first keyword: the synopsis is the doc's start */
		if (!strncasecmp(d, ".SYNOPSIS", 9) && (d[9] == '\n' || d[9] == ' ' || !d[9])) {
			d += 9;
			while (*d == '\n' || *d == ' ')
				d++;
		}
		size_t n = strlen(d);
		/* the closing #> (on a line of its own it lost its '#' with the
		 * other lines' comment markers) */
		if (n >= 2 && !memcmp(d + n - 2, "#>", 2))
			n -= 2;
		else if (n >= 1 && d[n - 1] == '>' && (n == 1 || d[n - 2] == '\n'))
			n--;
		while (n && (d[n - 1] == '\n' || d[n - 1] == ' '))
			n--;
		s->doc = mi_parsed_strndup(mi_ts_parsed(c), d, n);
	}
}

const TSLanguage *tree_sitter_powershell(void);
extern const char mi_query_src_powershell[];

const mi_lang_row mi_lang_powershell = {
	.id = MI_LANG_POWERSHELL,
	.name = "powershell",
	.exts = " .ps1 .psm1 .psd1 ",
	.ts = tree_sitter_powershell,
	.query = mi_query_src_powershell,
	.fix = mi_fix_powershell,
};
