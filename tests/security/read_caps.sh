#!/bin/sh
# Files read whole no more: a 400 MB (sparse) .gitignore, a 500 MB
# .git/HEAD and a 600 MB file in an indexed one's place kept a build's or
# status's memory at their size (420-624 MB).  An ignore file over 100 MiB
# is not read (as git), HEAD and refs take 4 KiB, status reads no more
# than the indexed size (a different size is a change).
. "$(dirname "$0")/../cli/lib.sh"
command -v /usr/bin/time > /dev/null || { echo "skip: no /usr/bin/time"; exit 0; }
rss() { # peak RSS in KiB of the command
	/usr/bin/time -f %M -o "$T/rss" "$@" > "$T/out" 2>&1
	echo "rc=$?" >> "$T/out"
	tail -1 "$T/rss"
}
mkdir -p "$T/r"
echo 'int a(void) { return 1; }' > "$T/r/a.c"
(cd "$T/r" && git init -q . 2>/dev/null)
"$MCPIDX" build "$T/r" -q || fail "build"
truncate -s 400M "$T/r/.gitignore"
k=$(rss "$MCPIDX" build "$T/r" --force -q)
[ "$k" -lt 204800 ] || fail "a 400 MB .gitignore: build peak RSS $k KiB: $(cat "$T/out")"
rm "$T/r/.gitignore"
truncate -s 500M "$T/r/.git/HEAD"
k=$(rss "$MCPIDX" build "$T/r" --force -q)
[ "$k" -lt 204800 ] || fail "a 500 MB .git/HEAD: build peak RSS $k KiB"
grep -q "rc=0" "$T/out" || fail "build with a 500 MB HEAD: $(cat "$T/out")"
rm "$T/r/.git/HEAD"
truncate -s 600M "$T/r/a.c"
k=$(rss "$MCPIDX" status "$T/r")
[ "$k" -lt 204800 ] || fail "status over a 600 MB file: peak RSS $k KiB"
grep -q "M a.c" "$T/out" || fail "status: want M a.c: $(cat "$T/out")"
echo ok
