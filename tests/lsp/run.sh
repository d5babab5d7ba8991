#!/bin/sh
# The LSP test tier: end-to-end tests of `mcpidx lsp` with the protocol client
# library VS Code uses (vscode-languageserver-protocol; test.mjs), with
# Neovim headless as the editor (nvim.sh), and of the
# compile tools through MCP with the official SDK (mcp_compile.mjs); both
# installed with `npm ci` into tests/lsp/node_modules when missing.  Prints one
# `PASS name` / `FAIL name: why` line per case and exits non-zero on any
# failure.
#   MCPIDX=/path/to/mcpidx sh tests/lsp/run.sh [name-filter]
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
MCPIDX=${MCPIDX:-$top/mcpidx}
mkdir -p "$top/build"

if [ ! -x "$MCPIDX" ]; then
	echo "FAIL lsp/setup: $MCPIDX is missing; build it with make"
	exit 1
fi
if ! command -v node >/dev/null 2>&1; then
	echo "FAIL lsp/setup: node is missing (Debian: apt-get install nodejs npm; make deps does it)"
	exit 1
fi
if [ ! -d "$here/node_modules/vscode-languageserver-protocol" ] ||
   [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ] ||
   [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
	if ! (cd "$here" && npm ci --no-audit --no-fund) > "$top/build/lsp-npm.log" 2>&1; then
		echo "FAIL lsp/setup: npm ci failed in tests/lsp; see build/lsp-npm.log"
		exit 1
	fi
fi

# Test a private copy: a concurrent `make` may relink the binary mid-run.
bindir=$(mktemp -d "${TMPDIR:-/tmp}/mcpidx-lspbin.XXXXXX")
trap 'rm -rf "$bindir"' EXIT
cp "$MCPIDX" "$bindir/mcpidx" && MCPIDX=$bindir/mcpidx
export MCPIDX
cd "$here" || exit 1
rc=0
node test.mjs "$1" || rc=1
node mcp_compile.mjs "$1" || rc=1
if [ -z "$1" ] || echo nvim | grep -q -- "$1"; then
	sh "$here/nvim.sh" || rc=1
fi
exit $rc
