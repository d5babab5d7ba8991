#!/bin/sh
# `make run`: index a repository (this one by default, or REPO=...) and show
# mcpidx answering: build stats, the folded outline of one file, one
# definition lookup, one search.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
repo=${REPO:-$top}
bin="$top/mcpidx"
idx="$top/build/demo-index"
echo "== mcpidx build $repo"
"$bin" build "$repo" -o "$idx"
echo
echo "== mcpidx query stats"
"$bin" query "$idx" stats
file=${FILE:-indexer/build.c}
[ -f "$repo/$file" ] || file=$("$bin" query "$idx" search main --limit 1 --json | sed -n 's/.*"path":"\([^"]*\)".*/\1/p' | head -1)
echo
echo "== mcpidx query outline $file"
"$bin" query "$idx" outline "$file"
sym=${SYMBOL:-mi_build}
echo
echo "== mcpidx query def $sym"
"$bin" query "$idx" def "$sym" || true
echo
echo "== mcpidx query search \"parse source file\" --limit 3"
"$bin" query "$idx" search parse source file --limit 3 || true
echo
echo "Next: 'mcpidx query $idx' for the interactive prompt, or 'mcpidx serve $idx' for MCP."
