/*
 * lang.c - the language table: one row per supported language, with its
 * file extensions, tree-sitter grammar, tags query and fix-up rules.
 * To add a language, see the comment on mi_lang_row in indexer_int.h.
 */
#include "indexer_int.h"

#include <string.h>

typedef struct TSLanguage TSLanguage;
const TSLanguage *tree_sitter_c(void);
const TSLanguage *tree_sitter_cpp(void);
const TSLanguage *tree_sitter_python(void);
const TSLanguage *tree_sitter_go(void);
const TSLanguage *tree_sitter_rust(void);
const TSLanguage *tree_sitter_javascript(void);
const TSLanguage *tree_sitter_typescript(void);
const TSLanguage *tree_sitter_tsx(void);
const TSLanguage *tree_sitter_java(void);
const TSLanguage *tree_sitter_c_sharp(void);
const TSLanguage *tree_sitter_swift(void);
const TSLanguage *tree_sitter_ruby(void);
const TSLanguage *tree_sitter_php(void);
const TSLanguage *tree_sitter_kotlin(void);
const TSLanguage *tree_sitter_bash(void);
const TSLanguage *tree_sitter_markdown(void);

/* Queries embedded from indexer/queries/NAME.scm by tools/embed.sh. */
extern const char mi_query_src_c[], mi_query_src_cpp[], mi_query_src_python[],
	mi_query_src_go[], mi_query_src_rust[], mi_query_src_javascript[],
	mi_query_src_typescript[], mi_query_src_tsx[], mi_query_src_java[],
	mi_query_src_csharp[], mi_query_src_swift[], mi_query_src_ruby[],
	mi_query_src_php[], mi_query_src_kotlin[], mi_query_src_bash[],
	mi_query_src_markdown[];

static const mi_lang_row rows[] = {
	{MI_LANG_C, "c", " .c .h ", NULL, tree_sitter_c, mi_query_src_c, NULL, mi_fix_c,
	 mi_c_prefilter, mi_c_walk},
	{MI_LANG_CPP, "cpp", " .cc .cpp .cxx .c++ .hpp .hh .hxx .h++ .ipp .tcc ", NULL,
	 tree_sitter_cpp, mi_query_src_cpp, NULL, mi_fix_cpp, mi_c_prefilter, NULL},
	{MI_LANG_PYTHON, "python", " .py .pyi .pyw ", NULL, tree_sitter_python,
	 mi_query_src_python, NULL, mi_fix_python, NULL, NULL},
	{MI_LANG_GO, "go", " .go ", NULL, tree_sitter_go, mi_query_src_go, NULL, mi_fix_go, NULL, NULL},
	{MI_LANG_RUST, "rust", " .rs ", NULL, tree_sitter_rust, mi_query_src_rust, NULL,
	 mi_fix_rust, NULL, NULL},
	{MI_LANG_JAVASCRIPT, "javascript", " .js .mjs .cjs .jsx ", NULL,
	 tree_sitter_javascript, mi_query_src_javascript, NULL, mi_fix_javascript, NULL, NULL},
	{MI_LANG_TYPESCRIPT, "typescript", " .ts .mts .cts ", NULL,
	 tree_sitter_typescript, mi_query_src_typescript, NULL, mi_fix_typescript, NULL, NULL},
	{MI_LANG_TSX, "tsx", " .tsx ", NULL, tree_sitter_tsx, mi_query_src_tsx, NULL,
	 mi_fix_typescript, NULL, NULL},
	{MI_LANG_JAVA, "java", " .java ", NULL, tree_sitter_java, mi_query_src_java, NULL,
	 mi_fix_java, NULL, NULL},
	{MI_LANG_CSHARP, "csharp", " .cs ", NULL, tree_sitter_c_sharp, mi_query_src_csharp,
	 NULL, mi_fix_csharp, NULL, NULL},
	{MI_LANG_SWIFT, "swift", " .swift ", NULL, tree_sitter_swift, mi_query_src_swift,
	 NULL, mi_fix_swift, NULL, NULL},
	{MI_LANG_RUBY, "ruby", " .rb .rake .gemspec ", " Rakefile Gemfile ", tree_sitter_ruby,
	 mi_query_src_ruby, NULL, mi_fix_ruby, NULL, NULL},
	{MI_LANG_PHP, "php", " .php .phtml ", NULL, tree_sitter_php, mi_query_src_php, NULL,
	 mi_fix_php, NULL, NULL},
	{MI_LANG_KOTLIN, "kotlin", " .kt .kts ", NULL, tree_sitter_kotlin,
	 mi_query_src_kotlin, NULL, mi_fix_kotlin, NULL, NULL},
	{MI_LANG_BASH, "bash", " .sh .bash ", " .bashrc .bash_profile ", tree_sitter_bash,
	 mi_query_src_bash, NULL, mi_fix_bash, NULL, NULL},
	{MI_LANG_MARKDOWN, "markdown", " .md .markdown ", NULL, tree_sitter_markdown,
	 mi_query_src_markdown, NULL, mi_fix_markdown, NULL, NULL},
	{MI_LANG_SIMPLE, "simple", " .spl ", NULL, NULL, NULL, mi_simple_scan, NULL, NULL, NULL},
};

const mi_lang_row *mi_lang_row_get(int id)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].id == id)
			return &rows[i];
	return NULL;
}

/* true if list (" a b ") holds word. */
static bool in_list(const char *list, const char *word, size_t n)
{
	if (!list || !n || n > 64)
		return false;
	char key[70];
	key[0] = ' ';
	memcpy(key + 1, word, n);
	key[n + 1] = ' ';
	key[n + 2] = 0;
	return strstr(list, key) != NULL;
}

int mi_lang_detect(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t bl = strlen(base);
	const char *dot = strrchr(base, '.');
	char ext[32];
	size_t el = 0;
	if (dot && dot != base && strlen(dot) < sizeof(ext)) {
		el = strlen(dot);
		for (size_t i = 0; i < el; i++)
			ext[i] = (char)(dot[i] >= 'A' && dot[i] <= 'Z' ? dot[i] + 32 : dot[i]);
	}
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (in_list(rows[i].filenames, base, bl))
			return rows[i].id;
		if (el && in_list(rows[i].exts, ext, el))
			return rows[i].id;
	}
	return MI_LANG_NONE;
}

int mi_lang_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!strcmp(rows[i].name, name))
			return rows[i].id;
	return MI_LANG_NONE;
}
