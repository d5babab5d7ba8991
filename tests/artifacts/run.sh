#!/bin/sh
# The artifact test tier: end-to-end tests of the artifact round trip of
# `mcpidx serve` with the official MCP TypeScript SDK client playing the host
# (installed with `npm ci` into tests/artifacts/node_modules when missing).
# Prints one `PASS name` / `FAIL name: why` line per case and exits non-zero
# on any failure.
#   MCPIDX=/path/to/mcpidx sh tests/artifacts/run.sh [name-filter]
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
MCPIDX=${MCPIDX:-$top/mcpidx}
mkdir -p "$top/build"

if [ ! -x "$MCPIDX" ]; then
	echo "FAIL artifacts/setup: $MCPIDX is missing; build it with make"
	exit 1
fi
if ! command -v node >/dev/null 2>&1; then
	echo "FAIL artifacts/setup: node is missing (Debian: apt-get install nodejs npm; make deps does it)"
	exit 1
fi
if [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ] ||
   [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
	if ! (cd "$here" && npm ci --no-audit --no-fund) > "$top/build/artifacts-npm.log" 2>&1; then
		echo "FAIL artifacts/setup: npm ci failed in tests/artifacts; see build/artifacts-npm.log"
		exit 1
	fi
fi

# Test a private copy: a concurrent `make` may relink the binary mid-run.
bindir=$(mktemp -d "${TMPDIR:-/tmp}/mcpidx-artbin.XXXXXX")
trap 'rm -rf "$bindir"' EXIT
cp "$MCPIDX" "$bindir/mcpidx" && MCPIDX=$bindir/mcpidx
export MCPIDX
cd "$here" && node test.mjs "$1"
