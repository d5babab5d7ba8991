# tokens.mk - `make bench-tokens`: folded views vs whole sources vs
# repomix --compress in o200k tokens on three corpora, ctags recall of the
# outline, outline/expand latency.  Not a test.  See bench/tokens/run.sh.
.PHONY: bench-tokens
bench: bench-tokens

$(B)/bench/views: bench/tokens/views.c $(LIB_OBJ) $(GRAMMAR_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(LIB_OBJ) $(GRAMMAR_LIB) $(LIBS)

bench-tokens: $(B)/bench/views
	sh bench/tokens/run.sh $(B)/bench/views
