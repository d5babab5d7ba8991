/*
 * ini.c - INI-style configuration (.ini, .cfg, .conf, .editorconfig,
 * .gitconfig, systemd units, desktop entries), read by a scanner of our
 * own: [sections] as modules holding their keys, keys as fields with their
 * value in the signature; comments (; or #) above a section or key are its
 * doc.
 */
#include "lang_int.h"

#include <string.h>

static int ini_scan(const char *src, size_t len, mi_parsed *out)
{
	mi_scan s;
	mi_scan_init(&s, src, len, out);
	int section = -1;
	uint32_t doc_from = 0, doc_lines = 0;
	for (size_t ln = 0; ln < s.nlines; ln++) {
		uint32_t a = s.lines[ln], e = mi_scan_eol(&s, a), b = a;
		while (b < e && (src[b] == ' ' || src[b] == '\t'))
			b++;
		uint32_t z = e;
		while (z > b && (src[z - 1] == '\r' || src[z - 1] == ' ' || src[z - 1] == '\t'))
			z--;
		if (b >= z) {
			doc_lines = 0;
			continue;
		}
		if (src[b] == ';' || src[b] == '#') {
			if (!doc_lines)
				doc_from = (uint32_t)ln;
			doc_lines++;
			continue;
		}
		int k = -1;
		if (src[b] == '[') {
			const char *close = memchr(src + b, ']', z - b);
			uint32_t nz = close ? (uint32_t)(close - src) : z;
			uint32_t na = b + 1;
			while (na < nz && src[na] == '[')
				na++;
			if (section >= 0) {
				uint32_t se = a;
				while (se > out->syms[section].start_byte && (src[se - 1] == '\n' || src[se - 1] == '\r' || src[se - 1] == ' '))
					se--;
				out->syms[section].end_byte = se;
				out->syms[section].end_line = mi_scan_line(&s, se ? se - 1 : 0);
			}
			k = section = mi_scan_sym(&s, MI_KIND_MODULE, b, z, src + na, nz - na, b,
						  close ? nz + 1 : z, -1);
			out->syms[k].body_byte = e < len ? e + 1 : e;
			out->syms[k].body_line = (uint32_t)ln + 2;
		} else {
			const char *eq = memchr(src + b, '=', z - b);
			const char *colon = memchr(src + b, ':', z - b);
			if (!eq || (colon && colon < eq))
				eq = colon;
			uint32_t nz = eq ? (uint32_t)(eq - src) : z;
			while (nz > b && (src[nz - 1] == ' ' || src[nz - 1] == '\t'))
				nz--;
			uint32_t sig_end = z - b > 120 ? b + 120 : z;
			if (nz > b)
				k = mi_scan_sym(&s, MI_KIND_FIELD, b, z, src + b, nz - b, b, sig_end, section);
			if (section >= 0) {
				out->syms[section].end_byte = z;
				out->syms[section].end_line = (uint32_t)ln + 1;
			}
		}
		if (k >= 0 && doc_lines) {
			mi_buf d = {0};
			for (uint32_t l = doc_from; l < doc_from + doc_lines; l++) {
				uint32_t la = s.lines[l], le = mi_scan_eol(&s, la), lb = la;
				while (lb < le && (src[lb] == ' ' || src[lb] == '\t' || src[lb] == ';' || src[lb] == '#'))
					lb++;
				if (d.len)
					mi_buf_addc(&d, '\n');
				mi_buf_add(&d, src + lb, le - lb);
			}
			mi_scan_doc(&s, k, d.buf ? d.buf : "", d.len);
			mi_buf_release(&d);
		}
		doc_lines = 0;
	}
	mi_scan_release(&s);
	return 0;
}

const mi_lang_row mi_lang_ini = {
	.id = MI_LANG_INI,
	.name = "ini",
	.exts = " .ini .cfg .conf .editorconfig .gitconfig .service .socket .timer .desktop .properties ",
	.filenames = " .gitmodules .gitconfig setup.cfg tox.ini .flake8 .pylintrc ",
	.scan = ini_scan,
};
