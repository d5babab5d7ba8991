# bench/artifacts.mk - `make bench-artifacts`: what stored summaries do to
# search relevance on the Python standard library, measured with a proxy
# (no model runs here): each documented function's real doc comment is
# stored as its summary artifact over the search bench's doc-stripped copy,
# and every natural-language query is answered with and without them
# (bench/artifacts/summary_bench.c says how).  Not a test: it prints.

SUMMARY_BENCH_BIN := $(B)/bench/summary_bench
SUMMARY_BENCH_OUT := $(B)/bench/artifacts

$(SUMMARY_BENCH_BIN): bench/artifacts/summary_bench.c $(LIB_OBJ) $(GRAMMAR_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(LIB_OBJ) $(GRAMMAR_LIB) $(LIBS)

.PHONY: bench-artifacts
bench: bench-artifacts
# (search.mk is read after this file: name its binary here.)
bench-artifacts: $(B)/bench/search_bench $(SUMMARY_BENCH_BIN) $(BIN)
	@set -e; eval "$$(sh bench/corpus.sh)"; out=$(SUMMARY_BENCH_OUT)/python; \
	if [ ! -f $$out/queries.jsonl ]; then $(BENCH_SEARCH_BIN) prep "$$python" $$out py; fi; \
	if [ ! -f $$out/orig/data.mdb ]; then ./$(BIN) build --quiet "$$python" -o $$out/orig; fi; \
	$(SUMMARY_BENCH_BIN) $$out $$out/orig rest; \
	$(SUMMARY_BENCH_BIN) $$out $$out/orig full
