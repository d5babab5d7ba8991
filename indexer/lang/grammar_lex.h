/*
 * grammar_lex.h - read before the C grammar's generated parser.c (the
 * Makefile passes -include for LEX_GRAMMARS), before grammar_fast.h: the
 * runtime's api.h must come before parser.h.
 *
 * The generated lexer moves to its next character through the runtime's
 * lexer->advance: two calls through pointers and a UTF-8 decode per
 * character of every token, comment and blank.  mi_lex_advance does the
 * common case in line, as the runtime's ts_lexer__do_advance does it: an
 * ASCII character followed by an ASCII byte of the same chunk, inside the
 * current included range, with no logger.  Everything else (a range's or
 * chunk's end, other characters, the end of input) goes to the runtime.
 * ACCEPT_TOKEN's mark_end likewise, when there is only one range.
 */
#include "tree_sitter/api.h"
#include "tree_sitter/parser.h"
#include "ts_lexer.h"

_Static_assert(sizeof(TSLexer) == MI_TS_LEXER_DATA_SIZE, "the grammar's TSLexer");

static inline void mi_lex_advance(TSLexer *lx, bool skip)
{
	mi_ts_lexer *self = (mi_ts_lexer *)lx;
	int32_t c = self->data.lookahead;

	if (self->chunk && self->lookahead_size == 1 && c >= 0 && c < 0x80 &&
	    self->current_included_range_index < self->included_range_count &&
	    !self->logger.log && self->input.encoding == TSInputEncodingUTF8) {
		uint32_t next = self->current_position.bytes + 1;
		const TSRange *r = &self->included_ranges[self->current_included_range_index];
		if (next < r->end_byte && r->end_byte != r->start_byte &&
		    next >= self->chunk_start && next - self->chunk_start < self->chunk_size) {
			uint8_t b = (uint8_t)self->chunk[next - self->chunk_start];
			if (b < 0x80) {
				if (c == '\n') {
					self->current_position.extent.row++;
					self->current_position.extent.column = 0;
					self->column_data.valid = true;
					self->column_data.value = 0;
				} else {
					if (self->column_data.valid)
						self->column_data.value++;
					self->current_position.extent.column++;
				}
				self->current_position.bytes = next;
				if (skip)
					self->token_start_position = self->current_position;
				self->data.lookahead = b;
				return;
			}
		}
	}
	lx->advance(lx, skip);
}

static inline void mi_lex_mark_end(TSLexer *lx)
{
	mi_ts_lexer *self = (mi_ts_lexer *)lx;

	if (self->current_included_range_index == 0 && self->included_range_count > 0)
		self->token_end_position = self->current_position;
	else
		lx->mark_end(lx);
}

#undef START_LEXER
#define START_LEXER()               \
	bool result = false;        \
	bool skip = false;          \
	UNUSED                      \
	bool eof = false;           \
	int32_t lookahead;          \
	goto start;                 \
	next_state:                 \
	mi_lex_advance(lexer, skip); \
	start:                      \
	skip = false;               \
	lookahead = lexer->lookahead;

#undef ACCEPT_TOKEN
#define ACCEPT_TOKEN(symbol_value)     \
	result = true;                 \
	lexer->result_symbol = symbol_value; \
	mi_lex_mark_end(lexer);
