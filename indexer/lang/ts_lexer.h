/*
 * ts_lexer.h - the tree-sitter runtime's Lexer (lib/src/lexer.h), as far
 * as grammar_lex.h reads and writes it.  ts_dense.c, which sees the
 * runtime's own definition, checks at compile time that every field
 * named here sits where the runtime has it.
 */
#ifndef MI_TS_LEXER_H
#define MI_TS_LEXER_H

#include <stdbool.h>
#include <stdint.h>

/* TSLexer's size in the runtime: the lookahead, the result symbol and six
 * function pointers (checked against both the runtime's and the
 * grammar's TSLexer). */
#define MI_TS_LEXER_DATA_SIZE (8 + 6 * sizeof(void *))

typedef struct mi_ts_length {
	uint32_t bytes;
	TSPoint extent;
} mi_ts_length;

typedef struct mi_ts_lexer {
	TSLexer data;
	mi_ts_length current_position;
	mi_ts_length token_start_position;
	mi_ts_length token_end_position;
	TSRange *included_ranges;
	const char *chunk;
	TSInput input;
	TSLogger logger;
	uint32_t included_range_count;
	uint32_t current_included_range_index;
	uint32_t chunk_start;
	uint32_t chunk_size;
	uint32_t lookahead_size;
	bool did_get_column;
	struct {
		uint32_t value;
		bool valid;
	} column_data;
} mi_ts_lexer;

#endif
