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

# make bench-memlimit: the same lookups on the whole kernel's index in a
# memory cgroup smaller than the index (BENCH_MEMLIMIT MiB) beside a reader
# of the corpus, unlocked and with the map locked (serve --lock-memory):
# what page reclaim does to the tail, and what locking keeps.  Root only.
BENCH_MEMLIMIT ?= 640
.PHONY: bench-memlimit
bench-memlimit: mcpidx $(B)/bench/lookup
	@set -e; eval "$$(KERNEL=full sh bench/corpus.sh)"; \
	./mcpidx build "$$linux" --no-ignore -o $(B)/bench/linux-index-full -q; \
	sh bench/lookup/memlimit.sh $(B)/bench/lookup $(B)/bench/linux-index-full "$$linux" $(BENCH_MEMLIMIT)
