# bench/search.mk - `make bench-search`: mcpidx search_code against SQLite
# FTS5 bm25 on seven corpora nobody here wrote (the Linux kernel subset, the
# Python and Go standard libraries, Java's java.base, ESLint's JavaScript,
# Rust's core/alloc/std, RxJS's and Effect's TypeScript),
# one run, side by side with ratios, per half of each query set (tuning,
# held out).  Not a test: it prints, it does not fail on a missed target.
# Corpora come from bench/corpus.sh.
#   make bench-search                  prepare (index the copies) and measure all five
#   make bench-search-tune PARAMS=w.name,b.body
#                                      fit ranking parameters on the tuning halves

BENCH_SEARCH_BIN := $(B)/bench/search_bench
BENCH_SEARCH_OUT := $(B)/bench/search
BENCH_SEARCH_SETS := linux python go java js rust ts

$(BENCH_SEARCH_BIN): bench/search/search_bench.c $(LIB_OBJ) $(GRAMMAR_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(LIB_OBJ) $(GRAMMAR_LIB) $(LIBS)

# prep: copy with doc comments blanked, make the queries, index the copy;
# then the same with the doc comments kept (NAME-docs: the question is the
# answer's own first doc sentence, the case a doc comment must win).
bench-search-prep: $(BENCH_SEARCH_BIN)
	@set -e; eval "$$(CORPUS_EXTRA=1 sh bench/corpus.sh)"; \
	for docs in "" 1; do \
	sfx=$${docs:+-docs}; export SEARCH_BENCH_KEEP_DOCS=$$docs; \
	[ -n "$$docs" ] || unset SEARCH_BENCH_KEEP_DOCS; \
	$(BENCH_SEARCH_BIN) prep "$$linux" $(BENCH_SEARCH_OUT)/linux$$sfx c,h; \
	$(BENCH_SEARCH_BIN) prep "$$python" $(BENCH_SEARCH_OUT)/python$$sfx py; \
	$(BENCH_SEARCH_BIN) prep "$$go" $(BENCH_SEARCH_OUT)/go$$sfx go "cmd/,vendor/,/testdata/"; \
	$(BENCH_SEARCH_BIN) prep "$$java" $(BENCH_SEARCH_OUT)/java$$sfx java; \
	$(BENCH_SEARCH_BIN) prep "$$js" $(BENCH_SEARCH_OUT)/js$$sfx js; \
	$(BENCH_SEARCH_BIN) prep "$$rust" $(BENCH_SEARCH_OUT)/rust$$sfx rs "/tests/,/benches/"; \
	$(BENCH_SEARCH_BIN) prep "$$ts" $(BENCH_SEARCH_OUT)/ts$$sfx ts; \
	done

.PHONY: bench-search bench-search-prep bench-search-tune
bench: bench-search
bench-search: bench-search-prep
	@set -e; \
	for s in $(BENCH_SEARCH_SETS); do $(BENCH_SEARCH_BIN) run $(BENCH_SEARCH_OUT)/$$s; done; \
	python3 bench/search/fts5.py $(BENCH_SEARCH_OUT)/linux "linux kernel subset (kernel mm fs/ext4 lib include/linux)"; \
	python3 bench/search/fts5.py $(BENCH_SEARCH_OUT)/python "python 3.11 stdlib"; \
	python3 bench/search/fts5.py $(BENCH_SEARCH_OUT)/go "go 1.19 stdlib (src without cmd/, vendor/, testdata/)"; \
	python3 bench/search/fts5.py $(BENCH_SEARCH_OUT)/java "java 17 java.base"; \
	python3 bench/search/fts5.py $(BENCH_SEARCH_OUT)/js "eslint 8.57.0 (npm)"; \
	python3 bench/search/fts5.py $(BENCH_SEARCH_OUT)/rust "rust 1.63 core, alloc, std (rust-src)"; \
	python3 bench/search/fts5.py $(BENCH_SEARCH_OUT)/ts "rxjs 7.8.1 and effect 3.10.0 src (npm)"; \
	echo; echo "== docs kept (the question is the answer's own first doc sentence), mcpidx"; \
	for s in $(BENCH_SEARCH_SETS); do \
	SEARCH_BENCH_QUICK=1 $(BENCH_SEARCH_BIN) run $(BENCH_SEARCH_OUT)/$$s-docs; done

bench-search-tune: $(BENCH_SEARCH_BIN)
	$(BENCH_SEARCH_BIN) tune "$(PARAMS)" $(addprefix $(BENCH_SEARCH_OUT)/,$(BENCH_SEARCH_SETS))
