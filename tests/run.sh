#!/bin/sh
# Runs every test tier and prints the closing line "N passed, N failed".
#   unit:  $MI_OUT/tests/test_*         (PASS/FAIL lines)
#   cli:   tests/cli/*.sh               (one test each; exit 0 = pass)
#   security: tests/security/*.sh       (attacks and faults; same rules as cli)
#   mcp:   tests/mcp/run.sh             (PASS/FAIL lines, real SDK client)
#   meta:  tests/meta/run.sh            (PASS/FAIL lines, real upstream MCP servers)
#   lsp:   tests/lsp/run.sh             (PASS/FAIL lines, real LSP client)
#   artifacts: tests/artifacts/run.sh   (PASS/FAIL lines, SDK client as the host)
#   asan:  the unit, cli and lsp tiers again, sanitized (unless MI_SKIP_ASAN=1)
# Run from the repository root.  MI_OUT is the object tree (default build;
# build/clang for `make CC=clang test`), MI_BIN the release binary.
top=$(cd "$(dirname "$0")/.." && pwd)
out_dir=${MI_OUT:-build}
bin=${MI_BIN:-mcpidx}
cd "$top" || exit 2
log=build/test-log
mkdir -p "$log"
pass=0
fail=0
failed=""

count() { # $1 = output file, $2 = label
	p=$(grep -c '^PASS ' "$1")
	f=$(grep -c '^FAIL ' "$1")
	pass=$((pass + p))
	fail=$((fail + f))
	[ "$f" -gt 0 ] && failed="$failed $2"
	grep '^FAIL' "$1" | sed "s|^|[$2] |"
}

tier() { # $1 = label, $2 = mcpidx binary, $3 = unit test dir
	label=$1
	export MCPIDX="$top/$2"
	for t in "$3"/test_*; do
		[ -x "$t" ] || continue
		out="$log/$label-$(basename "$t").out"
		if [ -n "${MI_VALGRIND:-}" ]; then
			valgrind -q --error-exitcode=99 --leak-check=full "$t" > "$out" 2>&1
		else
			"$t" > "$out" 2>&1
		fi
		rc=$?
		count "$out" "$label/$(basename "$t")"
		if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
			echo "FAIL $(basename "$t") exited $rc without a FAIL line" >> "$out"
			count "$out" "$label/$(basename "$t")"
			tail -5 "$out"
		fi
	done
	for t in tests/cli/*.sh tests/security/*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		[ "$name" = lib ] && continue   # sourced by the others
		kind=$(basename "$(dirname "$t")")
		out="$log/$label-$kind-$name.out"
		if sh "$t" > "$out" 2>&1; then
			echo "PASS $kind/$name" >> "$out"
		else
			echo "FAIL $kind/$name (exit $?)" >> "$out"
			tail -15 "$out" | sed 's/^/    /'
		fi
		count "$out" "$label/$kind/$name"
	done
}

start=$(date +%s)
tier unit "$bin" "$out_dir/tests"
if [ -f tests/mcp/run.sh ]; then
	out="$log/mcp.out"
	MCPIDX="$top/$bin" sh tests/mcp/run.sh > "$out" 2>&1
	rc=$?
	count "$out" mcp
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		echo "FAIL mcp suite exited $rc" >> "$out"; count "$out" mcp; tail -20 "$out"
	fi
fi
if [ -f tests/meta/run.sh ]; then
	out="$log/meta.out"
	MCPIDX="$top/mcpidx" sh tests/meta/run.sh > "$out" 2>&1
	rc=$?
	count "$out" meta
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		echo "FAIL meta suite exited $rc" >> "$out"; count "$out" meta; tail -20 "$out"
	fi
fi
lsp_tier() { # $1 = label, $2 = mcpidx binary
	[ -f tests/lsp/run.sh ] || return 0
	out="$log/$1.out"
	MCPIDX="$top/$2" sh tests/lsp/run.sh > "$out" 2>&1
	rc=$?
	count "$out" "$1"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		echo "FAIL lsp suite exited $rc" >> "$out"; count "$out" "$1"; tail -20 "$out"
	fi
}
lsp_tier lsp "$bin"
art_tier() { # $1 = label, $2 = mcpidx binary
	[ -f tests/artifacts/run.sh ] || return 0
	out="$log/$1.out"
	MCPIDX="$top/$2" sh tests/artifacts/run.sh > "$out" 2>&1
	rc=$?
	count "$out" "$1"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		echo "FAIL artifacts suite exited $rc" >> "$out"; count "$out" "$1"; tail -20 "$out"
	fi
}
art_tier artifacts "$bin"
if [ -z "${MI_SKIP_ASAN:-}" ]; then
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	tier asan "$out_dir/mcpidx-asan" "$out_dir/tests-asan"
	lsp_tier asan-lsp "$out_dir/mcpidx-asan"
	art_tier asan-artifacts "$out_dir/mcpidx-asan"
fi
echo "tests took $(( $(date +%s) - start ))s; logs in $log/"
[ -n "$failed" ] && echo "failed in:$failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
