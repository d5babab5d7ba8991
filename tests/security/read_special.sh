#!/bin/sh
# A file the user names, or one swapped into a repository, that is a FIFO
# or a device is refused at once with a clear reason: `outline` used to wait
# on a FIFO for a writer that never came and read /dev/zero until memory
# ran out; an LSP client opening such a file, the same.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"

mkfifo "$T/pipe.c"
ln -s /dev/zero "$T/zero.c"
for f in pipe.c zero.c; do
	timeout 10 "$MCPIDX" outline "$T/$f" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 124 ] && fail "outline $f did not return"
	[ $rc -eq 1 ] || fail "outline $f: exit $rc, want 1"
	expect_contains "$(cat "$T/err")" "not a regular file" "outline $f"
done

# A regular file beside them is still read.
printf 'int ok(void) { return 0; }\n' > "$T/ok.c"
timeout 10 "$MCPIDX" outline "$T/ok.c" > "$T/out" 2> "$T/err" || fail "outline ok.c: $(cat "$T/err")"
expect_contains "$(cat "$T/out")" "int ok(void)" "outline ok.c"

# In a repository: the walk reads regular files only, and a build or a
# status check that meets a FIFO in an indexed file's place goes on.
mkdir -p "$T/repo"
printf 'int a(void) { return 1; }\n' > "$T/repo/a.c"
printf 'int b(void) { return 2; }\n' > "$T/repo/b.c"
timeout 60 "$MCPIDX" build "$T/repo" > /dev/null 2> "$T/err" || fail "build: $(cat "$T/err")"
rm "$T/repo/b.c"
mkfifo "$T/repo/b.c"
timeout 60 "$MCPIDX" build --json "$T/repo" > "$T/build.json" 2> "$T/err"
[ $? -eq 124 ] && fail "build with a FIFO in b.c's place did not return"
expect_eq "$(json "$T/build.json" "j['skipped_paths']['unreadable']")" "['b.c']" \
	"the FIFO is counted as skipped, unreadable"
timeout 10 "$MCPIDX" query "$T/repo/.mcpidx" def a > "$T/out" 2> "$T/err" ||
	fail "def a after the build: $(cat "$T/err")"
expect_contains "$(cat "$T/out")" "a.c" "def a"
echo ok
