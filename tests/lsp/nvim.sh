#!/bin/sh
# Neovim as the editor: the headless Neovim Debian ships (0.7.2) starts
# `mcpidx lsp` as its language server (tests/lsp/nvim.lua), lists a file's
# symbols, jumps to a definition, and folds the file to its outline with the
# server's folding ranges.  The lines left visible must be exactly the lines
# of `mcpidx outline --filter all` plus the file's top (comments, includes)
# and the blank lines between symbols; no body line may stay visible.
#   MCPIDX=/path/to/mcpidx sh tests/lsp/nvim.sh
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/lsp
MCPIDX=${MCPIDX:-$top/mcpidx}
if ! command -v nvim >/dev/null 2>&1; then
	echo "SKIP nvim/fold-to-outline: nvim is missing (Debian: apt-get install neovim; make test installs it as root)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpidx-nvim.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -r "$top/testdata/lsp" "$tmp/repo"
if ! "$MCPIDX" build -q "$tmp/repo" > "$tmp/build.out" 2>&1; then
	echo "FAIL nvim/setup: mcpidx build: $(head -c 300 "$tmp/build.out")"
	exit 1
fi
# Line 13 column 10 of src/shapes.c is the call span(a.x, b.x) in area().
MCPIDX=$MCPIDX ROOT=$tmp/repo FILE=src/shapes.c OUT=$tmp/out DEF_LINE=13 DEF_COL=10 \
	timeout 60 nvim --headless --clean -n -i NONE -u NONE \
	-c "luafile $here/nvim.lua" > "$tmp/nvim.log" 2>&1
rc=0
if [ ! -s "$tmp/out" ] || grep -q '^error' "$tmp/out"; then
	echo "FAIL nvim/session: $(cat "$tmp/out" "$tmp/nvim.log" 2>/dev/null | tr '\n' ' ' | head -c 400)"
	exit 1
fi
check() { # name, expected, got
	if [ "$2" = "$3" ]; then echo "PASS nvim/$1"; else echo "FAIL nvim/$1: expected '$2', got '$3'"; rc=1; fi
}
check document-symbols "span:5 area:11 perimeter:18" "$(sed -n 's/^symbols //p' "$tmp/out")"
check definition "src/shapes.c:5" "$(sed -n 's/^definition //p' "$tmp/out")"
# Visible: every outline line, nothing inside a body.
outline=$("$MCPIDX" outline --filter all --line-numbers plain "$tmp/repo/src/shapes.c" |
	sed -n 's/^\([0-9][0-9]*\) .*/\1/p' | tr '\n' ' ')
visible=" $(sed -n 's/^visible //p' "$tmp/out") "
missing=""
for n in $outline; do
	case "$visible" in *" $n "*) ;; *) missing="$missing $n" ;; esac
done
check outline-lines-visible "" "$missing"
check fold-to-outline "1 2 3 4 5 9 10 11 16 17 18" "$(echo $visible)"
exit $rc
