# make bench-queries: compile time of each language's tags query (paid once
# per process, the first time a file of that language is parsed).
# make bench-kernel-langs: the whole kernel built with and without the data,
# config and prose languages (MCPIDX_SKIP_LANGS), files covered per language.
.PHONY: bench-queries bench-kernel-langs
bench: bench-queries
bench-queries: $(B)/bench-queries
	$(B)/bench-queries
$(B)/bench-queries: bench/queries.c $(LIB_OBJ) $(GRAMMAR_LIB)
	$(CC) $(OPT) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(LIB_OBJ) $(GRAMMAR_LIB) $(LIBS)
# The symbol dump bench/ctags-recall.sh and bench/refs-global.sh compare
# with ctags and GNU Global, linked the way the binary is.
$(B)/symdump: bench/symdump.c $(LIB_OBJ) $(GRAMMAR_LIB)
	$(CC) $(OPT) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(LIB_OBJ) $(GRAMMAR_LIB) $(LIBS)
bench-kernel-langs: $(BIN)
	sh bench/kernel-langs.sh
