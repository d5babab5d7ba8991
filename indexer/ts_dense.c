/*
 * ts_dense.c - a grammar with its whole parse table laid out flat.
 *
 * A generated tree-sitter grammar stores its first "large" states as a
 * dense state x symbol table and all the others as lists of (value,
 * symbols) groups that the runtime searches one entry after another for
 * every token it shifts and every node it reduces: on a C file that search
 * is an eighth of the parse.  mi_ts_dense returns a copy of the grammar
 * whose large_state_count is its state_count, its parse_table the dense
 * table of every state, filled once from the grammar's own groups (the
 * first group naming a symbol wins, as in the runtime's search), so every
 * lookup is one load and gives the value the search gives: the same trees.
 *
 * Only the parser is given the copy.  Queries are compiled against the
 * grammar itself (the runtime's query analysis walks the small states'
 * groups in their own order); nodes of a tree from the copy share its
 * symbols, names and fields.
 */
#include "indexer_int.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "lexer.h"  /* the runtime's Lexer (lib/src, -iquote; before parser.h) */
#include "parser.h" /* the runtime's TSLanguage */
#include "lang/ts_lexer.h"

/* indexer/lang/grammar_lex.h reads and writes the runtime's Lexer through
 * mi_ts_lexer: the fields it names are where the runtime has them. */
#define MI_SAME_FIELD(f) \
	_Static_assert(offsetof(Lexer, f) == offsetof(mi_ts_lexer, f), "Lexer." #f)
MI_SAME_FIELD(data);
MI_SAME_FIELD(current_position);
MI_SAME_FIELD(token_start_position);
MI_SAME_FIELD(token_end_position);
MI_SAME_FIELD(included_ranges);
MI_SAME_FIELD(chunk);
MI_SAME_FIELD(input);
MI_SAME_FIELD(logger);
MI_SAME_FIELD(included_range_count);
MI_SAME_FIELD(current_included_range_index);
MI_SAME_FIELD(chunk_start);
MI_SAME_FIELD(chunk_size);
MI_SAME_FIELD(lookahead_size);
MI_SAME_FIELD(column_data);
_Static_assert(offsetof(Lexer, column_data.valid) == offsetof(mi_ts_lexer, column_data.valid),
	       "Lexer.column_data.valid");
_Static_assert(sizeof(Length) == sizeof(mi_ts_length) &&
	       offsetof(Length, extent) == offsetof(mi_ts_length, extent), "Length");
_Static_assert(sizeof(TSLexer) == MI_TS_LEXER_DATA_SIZE, "the runtime's TSLexer");

/* Tables up to this size are made dense (the C grammar's is 1.4 MiB). */
#define MI_DENSE_MAX (4u << 20)
/* First field the runtime reads only from grammars of ABI 15 on. */
#define MI_ABI15_FROM offsetof(TSLanguage, name)

/* Per language: the grammar and its dense copy (or the grammar itself),
 * made on first use and kept for the life of the process. */
static struct {
	const TSLanguage *orig;
	const TSLanguage *dense;
} cache[MI_LANG__COUNT];
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;

static const TSLanguage *make_dense(const TSLanguage *l)
{
	size_t nsym = l->symbol_count, nstate = l->state_count;
	if (l->large_state_count >= nstate || nstate * nsym * sizeof(uint16_t) > MI_DENSE_MAX ||
	    l->abi_version < 14 || l->abi_version > 15)
		return l;
	uint16_t *table = mi_xcalloc(nstate * nsym, sizeof(uint16_t));
	memcpy(table, l->parse_table, (size_t)l->large_state_count * nsym * sizeof(uint16_t));
	for (size_t s = l->large_state_count; s < nstate; s++) {
		const uint16_t *data = &l->small_parse_table[l->small_parse_table_map[s - l->large_state_count]];
		uint16_t *row = table + s * nsym;
		/* The groups in reverse: an earlier group overwrites a later
		 * one, so a symbol keeps the value the runtime's search finds
		 * first. */
		uint16_t ngroups = *data++;
		const uint16_t **groups = mi_xmalloc((ngroups + 1u) * sizeof(*groups));
		for (unsigned g = 0; g < ngroups; g++) {
			groups[g] = data;
			data += 2 + data[1];
		}
		for (unsigned g = ngroups; g-- > 0;) {
			const uint16_t *gp = groups[g];
			for (unsigned j = 0; j < gp[1]; j++)
				if (gp[2 + j] < nsym)
					row[gp[2 + j]] = gp[0];
		}
		free(groups);
	}
	TSLanguage *d = mi_xcalloc(1, sizeof(*d));
	memcpy(d, l, l->abi_version >= 15 ? sizeof(*d) : MI_ABI15_FROM);
	d->parse_table = table;
	d->large_state_count = (uint32_t)nstate;
	return d;
}

const TSLanguage *mi_ts_dense(int lang, const TSLanguage *l)
{
	if (lang < 0 || lang >= MI_LANG__COUNT || !l)
		return l;
	pthread_mutex_lock(&cache_mu);
	if (!cache[lang].orig) {
		cache[lang].orig = l;
		cache[lang].dense = make_dense(l);
	}
	const TSLanguage *d = cache[lang].orig == l ? cache[lang].dense : l;
	pthread_mutex_unlock(&cache_mu);
	return d;
}

uint32_t mi_ts_table_width(const TSLanguage *l)
{
	return l->symbol_count;
}
