# bench/mcp.mk - `make bench-mcp`: `mcpidx serve` through the protocol from
# the official Node SDK client (stdio), on the kernel subset of Debian's
# linux-source-6.1, side by side with @modelcontextprotocol/server-filesystem
# reading the same files: p50/p99 per tool, answer size in o200k tokens,
# start-to-initialized time, peak private (RssAnon) and file-backed (RssFile)
# memory; GNU Global and ripgrep as extra peers.  Prints one table with the
# targets; does not fail on a missed target.  See bench/mcp/bench.mjs.
# Nothing is written into the corpus: the index and the GNU Global database
# live under $(B)/bench.  BENCH_MCP_N sets the calls per tool; KERNEL=full
# measures on the whole linux-source-6.1 tree instead of the subset;
# BENCH_MCP_OURS_ONLY=1 leaves the peers out (before/after runs of a change).
# read_file's round trip is also split: in server, a bare client without the
# SDK (bench/mcp/raw.mjs), and the SDK client's own steps.

BENCH_MCP_N ?= 1000

.PHONY: bench-mcp
bench: bench-mcp
bench-mcp: mcpidx
	@set -e; eval "$$(KERNEL=$(KERNEL) sh bench/corpus.sh)"; \
	rm -rf "$$linux/.mcpidx" "$$linux/GTAGS" "$$linux/GRTAGS" "$$linux/GPATH"; \
	if [ ! -d bench/mcp/node_modules/@modelcontextprotocol/sdk ] || \
	   [ ! -d bench/mcp/node_modules/@modelcontextprotocol/server-filesystem ] || \
	   [ bench/mcp/package-lock.json -nt bench/mcp/node_modules/.package-lock.json ]; then \
		echo "bench-mcp: npm ci in bench/mcp" >&2; \
		(cd bench/mcp && npm ci --no-audit --no-fund --silent) || \
			{ echo "bench-mcp: npm ci failed in bench/mcp" >&2; exit 1; }; \
	fi; \
	mkdir -p $(B)/bench/mcp; \
	cp mcpidx $(B)/bench/mcp/mcpidx; \
	sfx=$(if $(KERNEL),-$(KERNEL)); \
	$(B)/bench/mcp/mcpidx build "$$linux" --no-ignore -o $(B)/bench/linux-index$$sfx -q; \
	if command -v gtags >/dev/null && [ ! -f $(B)/bench/linux-gtags$$sfx/GTAGS ]; then \
		rm -rf $(B)/bench/linux-gtags$$sfx; mkdir -p $(B)/bench/linux-gtags$$sfx; \
		db=$$(cd $(B)/bench/linux-gtags$$sfx && pwd); \
		(cd "$$linux" && gtags -q "$$db") || rm -rf "$$db"; \
	fi; \
	node bench/mcp/bench.mjs $(B)/bench/mcp/mcpidx $(B)/bench/linux-index$$sfx "$$linux" $(BENCH_MCP_N) \
		--gtags $(B)/bench/linux-gtags$$sfx --out $(B)/bench/mcp/result.json \
		$(if $(BENCH_MCP_OURS_ONLY),--ours-only) > $(B)/bench/mcp/summary.txt; \
	cat $(B)/bench/mcp/summary.txt
