/*
 * fuzz_simple.c - libFuzzer target for the Simple (.spl) scanner: any bytes
 * must scan without a crash, leak or sanitizer report, and every result
 * must describe the input it came from.
 *
 *	clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I. \
 *	    tests/fuzz/fuzz_simple.c indexer/lang/simple.c format/record.c \
 *	    format/util.c format/store.c format/tokenize.c \
 *	    $(pkg-config --cflags --libs lmdb libxxhash msgpack jansson) \
 *	    -lstemmer -lm -o build/fuzz_simple
 *	build/fuzz_simple -max_len=4096 testdata/simple/
 */
#include "../../indexer/indexer_int.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mi_parsed p;
	/* An exact-size copy, so reading past the end is caught. */
	char *src = malloc(size ? size : 1);

	if (size)
		memcpy(src, data, size);
	mi_parsed_init(&p);
	if (mi_simple_scan(src, size, &p) != 0)
		abort();
	for (size_t i = 0; i < p.nsyms; i++) {
		const mi_symbol *s = &p.syms[i];
		if (s->start_byte > s->end_byte || s->end_byte > size ||
		    s->start_line > s->end_line || s->parent_idx >= (int32_t)i ||
		    !s->name || !s->parent || !s->sig || !s->doc)
			abort();
		if (s->body_byte && (s->body_byte >= size || src[s->body_byte] != ':'))
			abort();
	}
	for (size_t i = 0; i < p.nrefs; i++)
		if (p.refs[i].caller_idx >= (int32_t)p.nsyms || !p.refs[i].callee[0])
			abort();
	for (size_t i = 0; i < p.ndiags; i++)
		if (!p.diags[i].msg[0] || !p.diags[i].line)
			abort();
	mi_parsed_release(&p);
	free(src);
	return 0;
}
