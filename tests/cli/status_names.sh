#!/bin/sh
# status tells an unreadable file from a deleted one: `U path (why)`,
# counted as stale, "unreadable" in --json with its reason (it was listed as
# deleted).  Names with control bytes are quoted with C escapes as git does
# (core.quotePath), in status and in build --list-skipped: a newline in a
# name no longer forges a line, an escape sequence no longer reaches the
# terminal.
. tests/cli/lib.sh
R=$T/repo
mkdir -p $R
echo 'int a(void) { return 0; }' > $R/a.c
echo 'int b(void) { return 0; }' > $R/b.c
echo 'int c(void) { return 0; }' > $R/c.c
nl=$(printf 'x.c\nD forged.c')
esc=$(printf 'e\033[31mred.c')
echo 'int n(void) { return 0; }' > "$R/$nl"
echo 'int e(void) { return 0; }' > "$R/$esc"
printf 'x\n' > "$R/$(printf 'bin\nary.txt')"
"$MCPIDX" build -q "$R" || fail "build"
# b.c is there but not a file it can read; c.c is gone
rm $R/b.c && mkfifo $R/b.c && rm $R/c.c
echo 'int a(void) { return 1; }' > $R/a.c
echo 'int m(void) { return 1; }' > "$R/$nl"
"$MCPIDX" status "$R" > $T/s.out 2> $T/s.err; rc=$?
expect_eq "$rc" "1" "status exit"
expect_eq "$(cat $T/s.out)" 'M a.c
U b.c (not a regular file (a FIFO, socket or device))
D c.c
M "x.c\nD forged.c"' "status lines"
grep -q '1 deleted, 1 unreadable' $T/s.err || fail "summary: $(cat $T/s.err)"
"$MCPIDX" status --json "$R" > $T/s.json
expect_eq "$(json $T/s.json "[c for c in j['changes'] if c['status']=='unreadable']")" \
	"[{'status': 'unreadable', 'path': 'b.c', 'reason': 'not a regular file (a FIFO, socket or device)'}]" "json unreadable"
expect_eq "$(json $T/s.json "(j['unreadable'], j['deleted'], j['stale'])")" "(1, 1, True)" "json counts"
"$MCPIDX" build "$R" --list-skipped > $T/l.out || fail "build --list-skipped"
grep -q "$(printf '\033')" $T/l.out $T/s.out && fail "an escape byte reached the output"
grep -q '^unsupported "bin\\nary.txt"$' $T/l.out || fail "list-skipped quoting: $(cat $T/l.out)"
grep -q '^unreadable  b.c$' $T/l.out || fail "list-skipped b.c: $(cat $T/l.out)"

# Links are read as the build follows them: a link to a file inside the
# repository is that file (it was reported deleted, every time: 42 of the
# kernel's files), a link that now leads outside is gone.
L=$T/links
mkdir -p "$L/sub" "$T/outside"
echo 'int real(void) { return 1; }' > "$L/sub/real.c"
echo 'int other(void) { return 2; }' > "$T/outside/other.c"
ln -s sub/real.c "$L/alias.c"
ln -s "$L/sub/real.c" "$L/absalias.c" # absolute, inside: read beneath the root too
"$MCPIDX" build -q "$L" || fail "build links"
"$MCPIDX" query "$L" def real > $T/d.out || fail "the link's file is not indexed"
"$MCPIDX" query "$L" outline absalias.c > $T/d.out || fail "an absolute link inside is not indexed"
expect_contains "$(cat $T/d.out)" "int real(void)" "absolute link's outline"
"$MCPIDX" status "$L" > $T/s.out 2> $T/s.err
expect_eq "$?" "0" "status of a fresh index with a link: $(cat $T/s.out $T/s.err)"
echo '/* edit */' >> "$L/sub/real.c"
"$MCPIDX" status "$L" > $T/s.out 2> /dev/null
expect_eq "$(cat $T/s.out)" 'M absalias.c
M alias.c
M sub/real.c' "a changed target changes its links"
"$MCPIDX" build -q "$L" || fail "rebuild links"
ln -sf "$T/outside/other.c" "$L/alias.c"
"$MCPIDX" status "$L" > $T/s.out 2> /dev/null
expect_eq "$(cat $T/s.out)" 'D alias.c' "a link that leads outside is gone"
echo ok
