# make bench-lookup: in-process p50/p99 of read_file, expand_at,
# goto_definition, find_references and search_code on the kernel subset.
.PHONY: bench-lookup
bench: bench-lookup
$(B)/bench/lookup: bench/lookup/lookup.c $(LIB_OBJ) $(GRAMMAR_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(LIB_OBJ) $(GRAMMAR_LIB) $(LIBS)

bench-lookup: mcpidx $(B)/bench/lookup
	@corpus=$$(sh bench/corpus.sh | sed -n 's/^linux=//p'); \
	./mcpidx build "$$corpus" --no-ignore -o $(B)/bench/linux-index -q && \
	$(B)/bench/lookup $(B)/bench/linux-index 1000
