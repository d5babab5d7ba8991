# `mcpidx query` one-shot commands over a small repo: definitions (ranked,
# qualified, narrowed), references with callers, research graphs, exit
# statuses and --json.
. tests/cli/lib.sh
"$MCPIDX" build testdata/nav -o $T/idx -q || fail "build testdata/nav"
q() { "$MCPIDX" query $T/idx "$@"; }
# Definitions: a class first, methods by Parent.name.
q def Shape --json > $T/j || fail "def Shape"
expect_eq "$(json $T/j "j['definitions'][0]['kind'], j['definitions'][0]['path'], j['definitions'][0]['line']")" "class shapes.py 4" "def Shape"
q def Circle.area --json > $T/j || fail "def Circle.area"
expect_eq "$(json $T/j "j['total'], j['definitions'][0]['line'], j['definitions'][0]['kind']")" "1 15 method" "Circle.area"
# A parent is matched whole or by its last parts, not by any suffix.
q def ircle.area > $T/o 2>&1
expect_eq "$?" "1" "ircle.area is not Circle's"
q def area --json > $T/j
expect_eq "$(json $T/j "j['total']")" "3" "three area methods"
q def read Reader.java --json > $T/j
expect_eq "$(json $T/j "j['total']")" "3" "read narrowed to Reader.java"
q def nosuchname > $T/o 2>&1
expect_eq "$?" "1" "unknown definition status"
expect_contains "$(cat $T/o)" "No definition of 'nosuchname'" "unknown definition message"
# References: callers named.
q refs total_area --json > $T/j || fail "refs total_area"
expect_eq "$(json $T/j "j['references'][0]['caller'], j['references'][0]['line']")" "report 33" "caller of total_area"
q refs area --json > $T/j
expect_eq "$(json $T/j "j['references'][0]['caller']")" "total_area" "caller of area"
q refs area --kind bogus > /dev/null 2>&1
expect_eq "$?" "1" "bad kind"
# Research: callers of callers, implementations.
q research "what calls total_area" --depth 2 --json > $T/j || fail "research calls"
expect_eq "$(json $T/j "sorted(n['name'] for n in j['nodes'])")" "['main', 'report', 'total_area']" "call chain"
q research "implementations of Reader" --json > $T/j || fail "research impl"
expect_eq "$(json $T/j "sorted(n['name'] for n in j['nodes'] if n['depth'] == 1)")" "['FileReader', 'NetReader']" "implementations"
q research "implementations of Shape" --json > $T/j || fail "research impl py"
expect_eq "$(json $T/j "sorted(e['from'] for e in j['edges'] if e['kind'] == 'implements')")" "['Circle', 'Square']" "subclasses"
q research "what calls" > $T/o 2>&1 && fail "research without a name accepted"
q research x --depth 9 > $T/o 2>&1
expect_eq "$?" "2" "depth 9 is a usage error"
expect_contains "$(cat $T/o)" "--depth needs a whole number from 1 to 5, not '9'" "depth message"
# Whole-number options: a bad value is a usage error (status 2, nothing on
# stdout), never read as 0 (the default) or -1 as 2^64-1 (every result).
for bad in "search area --limit -1" "search area --limit abc" "search area --limit 0" \
	   "refs area --limit 0x10" "refs area --limit ''" "docs area --limit 1e3" \
	   "outline shapes.py --max-tokens -5" "pack area --budget x" "pack area --depth -3" \
	   "research x --depth 2.5"; do
	eval q $bad > $T/o 2> $T/e
	expect_eq "$?" "2" "$bad: status"
	expect_eq "$(wc -c < $T/o)" "0" "$bad: nothing on stdout"
	expect_contains "$(cat $T/e)" "needs a whole number" "$bad: message"
done
q search area --limit 1 --json > $T/j || fail "search --limit 1"
expect_eq "$(json $T/j "len(j['results'])")" "1" "--limit 1 gives one"
"$MCPIDX" context -i $T/idx area --budget 12x > $T/o 2> $T/e
expect_eq "$?" "2" "context --budget 12x"
expect_contains "$(cat $T/e)" "mcpidx context: --budget needs a whole number" "context message"
"$MCPIDX" tools --limit -2 find x > $T/o 2> $T/e
expect_eq "$?" "2" "tools --limit -2"
expect_contains "$(cat $T/e)" "mcpidx tools: --limit needs a whole number" "tools message"
# Views and search through the index.
q outline shapes.py > $T/o || fail "outline"
expect_contains "$(cat $T/o)" "C> class Circle(Shape)" "outline class"
q expand shapes.py Square.area --json > $T/j || fail "expand"
expect_eq "$(json $T/j "j['name'], j['start_line'], j['end_line']")" "area 23 24" "expand Square.area"
q search area of shapes --json > $T/j || fail "search"
[ "$(json $T/j "len(j['results']) > 0")" = True ] || fail "search found nothing"
# Usage errors are status 2.
q def > /dev/null 2>&1
expect_eq "$?" "2" "missing argument status"
q stats --json > $T/j || fail "stats"
expect_eq "$(json $T/j "j['languages']['python'], j['languages']['java']")" "1 1" "stats languages"
echo ok
