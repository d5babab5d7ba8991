#!/bin/sh
# A full disk (a 5 MiB tmpfs, skipped with the reason where one cannot be
# mounted): a first build, an update and a build --force each say "no space
# left on device", leave no grown or temporary file behind, and the previous
# index keeps answering; with space again, the build succeeds.
. tests/cli/lib.sh
D=$T/disk
mkdir -p $D
if ! mount -t tmpfs -o size=5m mcpidx-test $D 2> $T/mount.err; then
	echo "SKIP: cannot mount a 5 MiB tmpfs here ($(cat $T/mount.err)); the full-disk test needs root"
	exit 0
fi
trap 'umount $D 2>/dev/null; rm -rf "$T"' EXIT
R=$T/repo
mkdir -p $R/src
gen() { # $1 = first file, $2 = count
	python3 - "$R/src" "$1" "$2" <<'PY'
import sys
d, first, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(first, first + n):
    with open("%s/f%04d.c" % (d, i), "w") as f:
        for j in range(60):
            f.write("/* Computes value %d of table %d. */\nint fn_%d_%d(int x) { return x * %d + %d; }\n" % (j, i, i, j, j, i))
PY
}
leftovers() { find $D -name '.build-*' -o -name 'data.mdb.damaged' | head -3; }
gen 0 20

# Disk full from the start (64 KiB left: less than any index of this
# tree takes): a first build leaves nothing.
free_kb=$(df -k $D | awk 'NR==2 {print $4}')
head -c $(( (free_kb - 64) * 1024 )) /dev/zero > $D/filler 2>/dev/null
"$MCPIDX" build -q "$R" -o $D/idx > $T/b.out 2> $T/b.err && fail "a first build on a full disk succeeded"
grep -q 'no space left on device' $T/b.err || fail "first build: $(cat $T/b.err)"
[ -e $D/idx ] && fail "a failed first build left $(ls -A $D/idx)"

# Room for a small index, then an update that does not fit.
rm $D/filler
"$MCPIDX" build -q "$R" -o $D/idx || fail "build with room"
size=$(wc -c < $D/idx/data.mdb)
"$MCPIDX" query $D/idx def fn_3_7 > /dev/null || fail "query"
free_kb=$(df -k $D | awk 'NR==2 {print $4}')
head -c $(( (free_kb - 300) * 1024 )) /dev/zero > $D/filler 2>/dev/null
gen 20 40
"$MCPIDX" build -q "$R" -o $D/idx > $T/b.out 2> $T/b.err && fail "an update that does not fit succeeded"
grep -q 'no space left on device' $T/b.err || fail "update: $(cat $T/b.err)"
expect_eq "$(wc -c < $D/idx/data.mdb)" "$size" "data.mdb size after a failed update"
"$MCPIDX" query $D/idx def fn_3_7 > /dev/null || fail "the old index does not answer after a failed update"

# build --force does not fit either: the old index stays as it was.
"$MCPIDX" build -q --force "$R" -o $D/idx > $T/b.out 2> $T/b.err && fail "build --force on a full disk succeeded"
grep -q 'no space left on device' $T/b.err || fail "build --force: $(cat $T/b.err)"
expect_eq "$(wc -c < $D/idx/data.mdb)" "$size" "data.mdb size after a failed build --force"
[ -z "$(leftovers)" ] || fail "left behind: $(leftovers)"
"$MCPIDX" query $D/idx def fn_3_7 > /dev/null || fail "the old index does not answer after a failed build --force"

# Space again: the update goes through.
rm $D/filler
"$MCPIDX" build -q "$R" -o $D/idx || fail "build after freeing space"
"$MCPIDX" query $D/idx def fn_50_7 > /dev/null || fail "the new files are not indexed"
echo ok
