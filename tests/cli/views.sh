#!/bin/sh
# views.sh - `mcpidx outline` prints the folded views of testdata/units cases
# byte for byte as their golden files say (seed 000 §9 for Simple), and
# answers bad requests with a clear message.
set -u
MCPIDX=${MCPIDX:-./mcpidx}
fail=0
tmp=${TMPDIR:-/tmp}/mi-views.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

check() { # $1 = label, $2 = expected file, $3.. = command
	label=$1 want=$2
	shift 2
	"$@" > "$tmp/got" 2> "$tmp/err"
	if ! cmp -s "$want" "$tmp/got"; then
		echo "FAIL $label: output differs from $want"
		diff "$want" "$tmp/got" | head -20
		cat "$tmp/err"
		fail=1
	fi
}

u=testdata/units
check simple-outline $u/simple/user/expected.outline "$MCPIDX" outline $u/simple/user/input.spl
check simple-compact $u/simple/user/expected.compact \
	"$MCPIDX" outline --mode compact $u/simple/user/input.spl
check simple-expand "$u/simple/user/expected.expand-User" \
	"$MCPIDX" outline --expand User --what all $u/simple/user/input.spl
check c-outline $u/c/point/expected.outline "$MCPIDX" outline $u/c/point/input.c
check c-full $u/c/point/expected.full "$MCPIDX" outline --mode full $u/c/point/input.c
# one golden per view of other languages, through the CLI
check go-outline $u/go/types/expected.outline "$MCPIDX" outline $u/go/types/input.go
check go-all $u/go/types/expected.outline-all "$MCPIDX" outline --filter all $u/go/types/input.go
check rust-compact $u/rust/impls/expected.compact "$MCPIDX" outline --mode compact $u/rust/impls/input.rs
check csharp-all $u/csharp/classes/expected.outline-all \
	"$MCPIDX" outline --filter all $u/csharp/classes/input.cs
check markdown-outline $u/markdown/headings/expected.outline "$MCPIDX" outline $u/markdown/headings/input.md
check python-full-errors $u/python/errors/expected.full "$MCPIDX" outline --mode full $u/python/errors/input.py
check java-expand "$u/java/docs/expected.expand-Account.reset" \
	"$MCPIDX" outline --expand Account.reset --what all $u/java/docs/input.java

# unicode marks: seed 000's glyphs
"$MCPIDX" outline --marks unicode $u/simple/user/input.spl > "$tmp/u"
grep -q 'pub class User { … }' "$tmp/u" && grep -q '^V• auto traits: Send, Sync$' "$tmp/u" ||
	{ echo "FAIL unicode marks:"; cat "$tmp/u"; fail=1; }

# zpad line numbers: width of the line count, blanks on virtual lines
"$MCPIDX" outline --line-numbers zpad $u/c/point/input.c > "$tmp/z"
grep -q '^09 S> struct point { x, y, cell, raw }$' "$tmp/z" &&
	grep -q '^   V\* \[E\]:36 ' "$tmp/z" || { echo "FAIL zpad:"; cat "$tmp/z"; fail=1; }

# JSON carries the read_file fields
"$MCPIDX" outline --json $u/c/point/input.c > "$tmp/j"
for k in '"path":' '"mode":"outline"' '"text":"V* vars: grid_size\n' '"line_count":37' \
	'"tokens_saved_percent":'; do
	grep -qF "$k" "$tmp/j" || { echo "FAIL json lacks $k:"; cat "$tmp/j"; fail=1; }
done

# unknown symbol: an error that names close symbols
if "$MCPIDX" outline --expand pont $u/c/point/input.c > "$tmp/e" 2>&1; then
	echo "FAIL unknown symbol exited 0"; fail=1
fi
grep -q "did you mean: point (line 9)" "$tmp/e" || { echo "FAIL no suggestion:"; cat "$tmp/e"; fail=1; }

exit $fail
