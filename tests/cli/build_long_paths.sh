#!/bin/sh
# Paths too long for the index's keys (LMDB ends keys at 511 bytes, and a
# key holds a path and a few bytes more) are skipped as too_long, listed,
# and the rest is indexed: one 507-byte path failed every build, --force
# too.  A path of 480 bytes is indexed; folders nested 300 deep are listed
# as too_long (files past 256 levels were dropped without a reason).
. tests/cli/lib.sh
R=$T/repo
mkdir -p $R
echo 'int ok_fn(void) { return 0; }' > $R/ok.c
# mkpath LEN: a relative path of LEN bytes ending in f.c, in 200-byte folders
mkpath() { python3 -c "
import sys; L=int(sys.argv[1]); rem=L-3; parts=[]
while rem > 0:
    n=min(200, rem-1); parts.append('d'*n); rem-=n+1
print('/'.join(parts + ['f.c']))" "$1"; }
for L in 480 481 507; do
	p=$(mkpath $L)
	expect_eq "${#p}" "$L" "path length"
	mkdir -p "$R/$(dirname "$p")" && echo "int f$L(void) { return 0; }" > "$R/$p"
done
d=$R; for i in $(seq 300); do d=$d/a; done
mkdir -p "$d" && echo 'int deep_fn(void) { return 0; }' > "$d/deep.c"
for force in "" --force; do
	"$MCPIDX" build $force "$R" --json > $T/b.json 2> $T/b.err || fail "build $force: $(cat $T/b.err)"
	expect_eq "$(json $T/b.json "j['files']")" "2" "files indexed ($force)"
	expect_eq "$(json $T/b.json "sorted(len(p) for p in j['skipped_paths']['too_long'])")" \
		"[481, 482, 504]" "too_long paths ($force)"
	expect_eq "$(json $T/b.json "j['skipped']['too_long']")" "3" "too_long count ($force)"
done
"$MCPIDX" query "$R" def f480 > $T/q.out || fail "def f480: $(cat $T/q.out)"
"$MCPIDX" query "$R" def ok_fn > $T/q.out || fail "def ok_fn: $(cat $T/q.out)"
"$MCPIDX" build "$R" --list-skipped > $T/l.out || fail "--list-skipped"
expect_eq "$(grep -c '^too_long    ' $T/l.out)" "3" "--list-skipped too_long lines"
echo ok
