#!/bin/sh
# A file the parser gives up on is indexed without symbols and named with
# the reason: in build --json's failures (a fresh build and an update), as
# a line on stderr otherwise, and counted as a parse error; the next build
# that can parse it gives it its symbols.  MCPIDX_PARSE_TIMEOUT_MS=0 makes
# the parser give up at once on a file big enough to check the clock.
. "$(dirname "$0")/lib.sh"
R=$T/repo
mkdir -p "$R/src"
python3 -c "
import sys
sys.stdout.write(''.join('int f%d(int x) { if (x > %d) { return f%d(x - 1) * 2; } return x; }\n' % (i, i, i) for i in range(4000)))" > "$R/src/big.c"
echo 'int tiny(void) { return 1; }' > "$R/src/tiny.c"

MCPIDX_PARSE_TIMEOUT_MS=0 "$MCPIDX" build "$R" --json > $T/fresh.json || fail "fresh build"
expect_eq "$(json $T/fresh.json "[f['path'] for f in j['failures'] if f['path'] == 'src/big.c']")" "['src/big.c']" "fresh build names the file"
expect_contains "$(json $T/fresh.json "j['failures'][0]['reason']")" "parser gave up" "fresh build gives the reason"
expect_eq "$(json $T/fresh.json "j['files']")" "2" "the failed file is still indexed"
[ "$(json $T/fresh.json "j['errors']")" -ge 1 ] || fail "parse errors not counted: $(cat $T/fresh.json)"
"$MCPIDX" query "$R" outline src/big.c > /dev/null || fail "the failed file is not in the index"

echo 'int g(void) { return 2; }' >> "$R/src/big.c"
MCPIDX_PARSE_TIMEOUT_MS=0 "$MCPIDX" build "$R" > $T/upd.out 2> $T/upd.err || fail "update"
expect_contains "$(cat $T/upd.err)" "could not parse src/big.c: the parser gave up" "update names the file on stderr"
expect_contains "$(cat $T/upd.out)" "parse errors 1" "update counts it"

# A name with a newline is quoted on stderr: it cannot forge a line.
nl='src/x
mcpidx build: all good.c'
cp "$R/src/big.c" "$R/$nl"
MCPIDX_PARSE_TIMEOUT_MS=0 "$MCPIDX" build "$R" > $T/nl.out 2> $T/nl.err || fail "build with a newline name"
expect_contains "$(cat $T/nl.err)" 'could not parse "src/x\nmcpidx build: all good.c": the parser gave up' "quoted name"
grep -q '^mcpidx build: all good' $T/nl.err && fail "a name forged a line: $(cat $T/nl.err)"
rm "$R/$nl"

"$MCPIDX" build "$R" --force --json > $T/ok.json || fail "build without the limit"
expect_eq "$(json $T/ok.json "j['failures']")" "[]" "no failures without the limit"
"$MCPIDX" query "$R" def f10 > /dev/null || fail "symbols of the file once it parses"
echo ok
