# bench/tools.mk - `make bench-tools`: find_tools over the catalogs of 36
# real npm MCP servers (bench/tools/catalogs, 660 tools) and a 10,000-tool
# catalog (the same servers replicated under new names): recall@5 of the
# query set by slice and half beside SQLite FTS5 bm25 over the same tool
# texts, latency p50/p99, private memory, tokens per task.  Prints; does not
# fail on a missed target.

BENCH_TOOLS_BIN := $(B)/bench/tools_bench
BENCH_TOOLS_OUT := $(B)/bench/tools

$(BENCH_TOOLS_BIN): bench/tools/tools_bench.c $(LIB_OBJ) $(GRAMMAR_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(LIB_OBJ) $(GRAMMAR_LIB) $(LIBS)

.PHONY: bench-tools
bench: bench-tools
bench-tools: $(BENCH_TOOLS_BIN)
	sh bench/tools/run.sh $(BENCH_TOOLS_BIN) $(BENCH_TOOLS_OUT)
