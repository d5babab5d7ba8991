#!/bin/sh
# coverage.sh - `--show-coverage` reads the lcov file found near the source
# (testdata/coverage/lcov.info, real gcc + lcov data: regen.sh beside it):
# line and branch coverage for the module and for each block, with and
# without an index; `--format=json-meta` adds seed 000's meta object.
. "$(dirname "$0")/lib.sh"
want="V* coverage: 30% (lines), 25% (branches)
F> int area(int w, int h) { ... }
V* coverage: 75% (lines), 50% (branches)
F> int perimeter(int w, int h) { ... }
V* coverage: 0% (lines), 0% (branches)"
expect_eq "$("$MCPIDX" outline testdata/coverage/src/shapes.c --show-coverage)" "$want" "outline FILE"
"$MCPIDX" outline testdata/coverage/src/shapes.c --show-coverage --format=json-meta > "$T/j"
expect_eq "$(json "$T/j" "j['meta']")" "{'mode': 'mcp', 'show_coverage': True, 'show_block_guides': False}" "meta"
expect_eq "$(json "$T/j" "j['text'].splitlines()[0]")" "V* coverage: 30% (lines), 25% (branches)" "json text"
"$MCPIDX" outline testdata/coverage/src/shapes.c --format xml > "$T/e" 2>&1 && fail "unknown format accepted"
expect_contains "$(cat "$T/e")" "--format takes text, json or json-meta" "format message"
# through the index: the lcov file at the repository root
cp -r testdata/coverage "$T/repo"
"$MCPIDX" build "$T/repo" -q || fail "build"
expect_eq "$("$MCPIDX" query "$T/repo" outline src/shapes.c --show-coverage)" "$want" "query outline"
expect_eq "$("$MCPIDX" query "$T/repo" outline src/shapes.c)" "F> int area(int w, int h) { ... }
F> int perimeter(int w, int h) { ... }" "no coverage unless asked"
# no lcov file: no coverage lines, no error
rm "$T/repo/lcov.info"
expect_eq "$("$MCPIDX" query "$T/repo" outline src/shapes.c --show-coverage)" "F> int area(int w, int h) { ... }
F> int perimeter(int w, int h) { ... }" "no lcov file"
echo ok
