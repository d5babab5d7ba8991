# bench/search.mk - `make bench-search`: mcpidx search_code against SQLite
# FTS5 bm25 on the Linux kernel subset and the Python standard library, one
# run, side by side with ratios.  Not a test: it prints, it does not fail on
# a missed target.  Corpora come from bench/corpus.sh.

BENCH_SEARCH_BIN := $(B)/bench/search_bench
BENCH_SEARCH_OUT := $(B)/bench/search

$(BENCH_SEARCH_BIN): bench/search/search_bench.c $(LIB_OBJ) $(GRAMMAR_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(LIB_OBJ) $(GRAMMAR_LIB) $(LIBS)

.PHONY: bench-search
bench: bench-search
bench-search: $(BENCH_SEARCH_BIN)
	@set -e; eval "$$(sh bench/corpus.sh)"; \
	$(BENCH_SEARCH_BIN) prep "$$linux" $(BENCH_SEARCH_OUT)/linux c,h; \
	$(BENCH_SEARCH_BIN) prep "$$python" $(BENCH_SEARCH_OUT)/python py; \
	$(BENCH_SEARCH_BIN) run $(BENCH_SEARCH_OUT)/linux; \
	$(BENCH_SEARCH_BIN) run $(BENCH_SEARCH_OUT)/python; \
	python3 bench/search/fts5.py $(BENCH_SEARCH_OUT)/linux "linux kernel subset (kernel mm fs/ext4 lib include/linux)"; \
	python3 bench/search/fts5.py $(BENCH_SEARCH_OUT)/python "python 3.11 stdlib"
