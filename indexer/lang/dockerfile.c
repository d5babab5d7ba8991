/*
 * dockerfile.c - Dockerfiles, read by a scanner of our own: each FROM
 * starts a build stage (a module named by its AS name, else its image)
 * that runs to the next FROM; ARG and ENV names are variables of their
 * stage (or of the file, before the first FROM); COPY --from=stage and
 * FROM stage are references to that stage.
 */
#include "lang_int.h"

#include <string.h>

static bool df_is(const char *src, uint32_t a, uint32_t e, const char *w)
{
	size_t n = strlen(w);
	if (e - a < n || strncasecmp(src + a, w, n))
		return false;
	return a + n == e || src[a + n] == ' ' || src[a + n] == '\t';
}

static uint32_t df_word_end(const char *src, uint32_t i, uint32_t e)
{
	while (i < e && src[i] != ' ' && src[i] != '\t' && src[i] != '\r' && src[i] != '=' &&
	       src[i] != '\\')
		i++;
	return i;
}

static uint32_t df_skip(const char *src, uint32_t i, uint32_t e)
{
	while (i < e && (src[i] == ' ' || src[i] == '\t'))
		i++;
	return i;
}

static int df_scan(const char *src, size_t len, mi_parsed *out)
{
	mi_scan s;
	mi_scan_init(&s, src, len, out);
	int stage = -1;
	for (size_t ln = 0; ln < s.nlines; ln++) {
		uint32_t a = s.lines[ln], e = mi_scan_eol(&s, a);
		uint32_t b = df_skip(src, a, e);
		if (b >= e || src[b] == '#')
			continue;
		/* the instruction goes on after a trailing backslash */
		size_t last = ln;
		uint32_t end = e;
		while (last + 1 < s.nlines && end > a && (src[end - 1] == '\\' ||
			(end > a + 1 && src[end - 1] == '\r' && src[end - 2] == '\\')))
			end = mi_scan_eol(&s, s.lines[++last]);
		if (df_is(src, b, e, "FROM")) {
			uint32_t i = b + 4, img, img_end, nm = 0, nm_end = 0;
			for (;;) { /* --platform=... */
				i = df_skip(src, i, e);
				if (i + 1 < e && src[i] == '-' && src[i + 1] == '-')
					i = df_word_end(src, i, e), i = i < e && src[i] == '=' ? df_word_end(src, i + 1, e) : i;
				else
					break;
			}
			img = i;
			img_end = df_word_end(src, i, e);
			i = df_skip(src, img_end, e);
			if (df_is(src, i, e, "AS")) {
				nm = df_skip(src, i + 2, e);
				nm_end = df_word_end(src, nm, e);
			}
			if (stage >= 0) {
				uint32_t z = a;
				while (z > out->syms[stage].start_byte && (src[z - 1] == '\n' || src[z - 1] == '\r'))
					z--;
				out->syms[stage].end_byte = z;
				out->syms[stage].end_line = mi_scan_line(&s, z ? z - 1 : 0);
			}
			if (nm_end > nm)
				stage = mi_scan_sym(&s, MI_KIND_MODULE, b, end, src + nm, nm_end - nm, b, end, -1);
			else
				stage = mi_scan_sym(&s, MI_KIND_MODULE, b, end, src + img, img_end - img, b, end, -1);
			out->syms[stage].body_byte = end < len ? end + 1 : end;
			out->syms[stage].body_line = (uint32_t)last + 2;
			mi_scan_ref(&s, MI_REF_IMPORT, img, src + img, img_end - img, stage);
		} else if (df_is(src, b, e, "ARG") || df_is(src, b, e, "ENV")) {
			uint32_t i = df_skip(src, b + 3, e);
			while (i < e) {
				uint32_t z = df_word_end(src, i, e);
				if (z > i && src[i] != '\\')
					mi_scan_sym(&s, MI_KIND_VARIABLE, b, end, src + i, z - i, b, end, stage);
				if (z < e && src[z] == '=') {
					/* NAME=value NAME2=value2: skip the value */
					i = z + 1;
					if (i < e && src[i] == '"') {
						for (i++; i < e && src[i] != '"'; i++)
							;
						i++;
					} else {
						i = df_word_end(src, i, e);
					}
					i = df_skip(src, i, e);
				} else {
					break; /* ENV NAME value */
				}
			}
		} else if (df_is(src, b, e, "COPY")) {
			const char *f = memmem(src + b, e - b, "--from=", 7);
			if (f) {
				uint32_t q = (uint32_t)(f - src) + 7, z = df_word_end(src, q, e);
				mi_scan_ref(&s, MI_REF_IMPORT, q, src + q, z - q, stage);
			}
		}
		if (stage >= 0 && end > out->syms[stage].end_byte) {
			out->syms[stage].end_byte = end;
			out->syms[stage].end_line = (uint32_t)last + 1;
		}
		ln = last;
	}
	mi_scan_release(&s);
	return 0;
}

const mi_lang_row mi_lang_dockerfile = {
	.id = MI_LANG_DOCKERFILE,
	.name = "dockerfile",
	.exts = " .dockerfile ",
	.filenames = " Dockerfile Dockerfile.* Containerfile Containerfile.* ",
	.scan = df_scan,
};
