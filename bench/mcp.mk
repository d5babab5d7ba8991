# bench/mcp.mk - `make bench-mcp`: end-to-end latency of `mcpidx serve` over
# stdio (goto_definition, read_file outline, expand_at, find_references,
# search_code) on the Linux kernel subset, beside GNU Global and ripgrep run
# as a tool wrapper would run them, plus the server's private memory.  One
# run; prints, does not fail on a missed target.  Corpus from bench/corpus.sh.

BENCH_MCP_BIN := $(B)/bench/mcp_bench

$(BENCH_MCP_BIN): bench/mcp/mcp_bench.c
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -std=gnu11 $(WARN) -o $@ $<

.PHONY: bench-mcp
bench: bench-mcp
bench-mcp: mcpidx $(BENCH_MCP_BIN)
	@set -e; eval "$$(sh bench/corpus.sh)"; \
	./mcpidx build "$$linux" >/dev/null; \
	if [ ! -f "$$linux/GTAGS" ]; then (cd "$$linux" && gtags) || true; fi; \
	$(BENCH_MCP_BIN) ./mcpidx "$$linux" 1000
