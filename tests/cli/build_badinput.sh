# Bad input: each gives a clear message or a counted skip, never a crash,
# and never a damaged index.
. tests/cli/lib.sh
R=$T/repo
mkdir -p $R/deep $R/out
printf 'int ok(void) { return 1; }\n' > $R/ok.c
printf 'int bad\xff\xfe(void) { return "\xc3\x28"; }\nint after_bad(void) { return 2; }\n' > $R/invalid_utf8.c
printf 'int crlf(void)\r\n{\r\n  return 1;\r\n}\r\n' > $R/crlf.c
printf '\xef\xbb\xbfint with_bom(void) { return 1; }\n' > $R/bom.c
: > $R/empty.c
printf 'int x;\0\0\0binary' > $R/binary.c
python3 -c "print('int big = ' + '1+' * 5500000 + '1;')" > $R/huge_line.c
python3 -c "print('void deep(void) ' + '{' * 5000 + '}' * 5000)" > $R/deep/nested.c
printf 'int broken( {\n  return ;\nint later(void) { return 3; }\n' > $R/syntax.c
printf 'def py_ok():\n    return 1\n' > $R/ok.py
ln -s /etc/passwd $R/outside.c
ln -s ../ok.c $R/deep/inside_link.c
mkfifo $R/fifo.c
"$MCPIDX" build "$R" --json > $T/out.json 2> $T/err.txt || { cat $T/err.txt; fail "build crashed or failed"; }
expect_eq "$(json $T/out.json "j['skipped']['binary']")" "1" "binary skipped"
expect_eq "$(json $T/out.json "j['skipped']['too_big']")" "1" "huge file skipped"
expect_eq "$(json $T/out.json "j['skipped']['symlink']")" "1" "symlink out of root skipped"
for name in ok after_bad crlf with_bom later py_ok deep; do
	"$MCPIDX" query "$R" def $name > /dev/null || fail "def $name missing"
done
"$MCPIDX" query "$R" def crlf --json > $T/d.json
expect_eq "$(json $T/d.json "j['definitions'][0]['line'], j['definitions'][0]['end_line']")" "1 4" "crlf lines"
# Syntax errors become diagnostics, the file is still indexed.
"$MCPIDX" query "$R" stats --json > $T/s.json
[ "$(json $T/s.json "j['diagnostics'] > 0")" = True ] || fail "no diagnostics for syntax.c"
# A larger cap parses the 11 MB line without trouble.
"$MCPIDX" build "$R" --max-size 20000000 -q -o $T/big || fail "huge line with --max-size"
# Not a directory; missing repo; unwritable index dir.
"$MCPIDX" build $R/ok.c > $T/o 2>&1 && fail "file accepted as repo"
expect_contains "$(cat $T/o)" "not a directory" "non-directory message"
"$MCPIDX" build $T/nope > $T/o 2>&1 && fail "missing repo accepted"
expect_contains "$(cat $T/o)" "cannot read repository" "missing repo message"
"$MCPIDX" build "$R" -o /proc/mcpidx-no > $T/o 2>&1 && fail "unwritable index accepted"
expect_contains "$(cat $T/o)" "cannot open index" "unwritable message"
# Query errors: no index, path outside the repo, a directory.
"$MCPIDX" query $T/nothing stats > $T/o 2>&1 && fail "missing index accepted"
expect_contains "$(cat $T/o)" "Run: mcpidx build" "missing index hint"
"$MCPIDX" query "$R" outline ../etc/passwd > $T/o 2>&1 && fail "path outside accepted"
expect_contains "$(cat $T/o)" "outside the repository" "outside path message"
"$MCPIDX" query "$R" outline /etc/passwd > $T/o 2>&1 && fail "absolute path accepted"
"$MCPIDX" query "$R" outline deep > $T/o 2>&1 && fail "directory accepted"
expect_contains "$(cat $T/o)" "directory" "directory message"
"$MCPIDX" query "$R" nosuchcmd > $T/o 2>&1
expect_eq "$?" "2" "unknown command status"

# Markdown nested past the grammar's state buffer (255 open blocks): one
# line of '>' or a deep list aborted every build of its repository
M=$T/md
mkdir -p $M
printf 'int beside_md(void) { return 1; }\n' > $M/ok.c
python3 -c "
print('# Title')
print('>' * 300 + ' quoted')
print(''.join('  ' * i + '- item\\n' for i in range(400)))
print('## After the deep part')" > $M/README.md
"$MCPIDX" build -q $M > $T/o 2>&1 || fail "build with a deeply nested Markdown file: $(tail -3 $T/o)"
"$MCPIDX" query $M outline README.md > $T/o 2>&1 || fail "outline of the deep Markdown file"
expect_contains "$(cat $T/o)" "After the deep part" "headings after the deep part"
"$MCPIDX" outline $M/README.md > $T/o 2>&1 || fail "mcpidx outline of the deep Markdown file: $(tail -3 $T/o)"
# YAML nested 254 deep (by indentation, or "- " on one line) did the same
python3 -c "
print('top: 1')
print(''.join(' ' * i + 'k%d:\\n' % i for i in range(300)))
print('- ' * 300 + 'x')" > $M/deep.yaml
printf 'after: 2\n' >> $M/deep.yaml
"$MCPIDX" build -q $M > $T/o 2>&1 || fail "build with a deeply nested YAML file: $(tail -3 $T/o)"
"$MCPIDX" outline $M/deep.yaml > $T/o 2>&1 || fail "mcpidx outline of the deep YAML file: $(tail -3 $T/o)"
expect_contains "$(cat $T/o)" "top" "the deep YAML file's first key"
# Deep nesting cost time per symbol and depth: a 6 KB JSON file of 1,000
# nested objects took a minute, 1,000 nested JS functions 36 s (each
# symbol walked up to the root by ts_node_parent, itself a walk down)
N=$T/nest
mkdir -p $N
python3 -c "
n = 1000
open('$N/deep.json', 'w').write('{\"a\":' * n + '1' + '}' * n)
open('$N/deep.js', 'w').write(''.join('function f%d() { ' % i for i in range(n)) + '} ' * n + '\\n')"
timeout 60 "$MCPIDX" build -q $N > $T/o 2>&1
rc=$?
[ $rc -eq 124 ] && fail "a build of deeply nested JSON and JS took over a minute"
[ $rc -eq 0 ] || fail "build of deeply nested JSON and JS: $(tail -3 $T/o)"
# Deeper still the symbols cost more than the parse may take: they are cut
# at its deadline with a warning, not read for minutes (8,000 nested JS
# functions took 40 s).  The deadline is set low so that 3,000 levels reach it.
D=$T/deeper
mkdir -p $D
python3 -c "
n = 3000
open('$D/deep.js', 'w').write(''.join('function f%d() {\\n' % i for i in range(n)) + '}\\n' * n)"
MCPIDX_PARSE_TIMEOUT_MS=1500 timeout 120 "$MCPIDX" build -q $D > $T/o 2>&1 ||
	fail "build of 3,000 nested JS functions: $(tail -3 $T/o)"
"$MCPIDX" query $D/.mcpidx outline deep.js > $T/o 2>&1 || fail "outline of deep.js: $(tail -3 $T/o)"
expect_contains "$(cat $T/o)" "symbols cut" "the cut symbols' warning"
expect_contains "$(cat $T/o)" "function f0()" "the symbols read before the cut"
echo ok
