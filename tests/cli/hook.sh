#!/bin/sh
# `mcpidx hook install|uninstall`: outside a repository; a fresh repository
# where a real `git commit` updates the index; an existing hook that is
# chained (and whose failure still blocks), then restored byte for byte;
# core.hooksPath; a failing index update that does not block the commit.
set -u
: "${MCPIDX:=./mcpidx}"
case $MCPIDX in /*) ;; *) MCPIDX=$(pwd)/$MCPIDX ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "hook: $*"; exit 1; }
export HOME="$tmp" GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

mkrepo() { # $1 = dir
	mkdir -p "$1/src"
	printf '.mcpidx/\n' > "$1/.gitignore"
	echo "int first_fn(void) { return 1; }" > "$1/src/a.c"
	git -C "$1" init -q && git -C "$1" add -A && git -C "$1" commit -qm init || fail "git setup in $1"
}

# Outside a repository: a clear message, exit 1.
mkdir "$tmp/plain"
"$MCPIDX" hook install --repo "$tmp/plain" > "$tmp/out" 2>&1 && fail "install outside a repository succeeded"
grep -q "not inside a git work tree" "$tmp/out" || fail "outside message: $(cat "$tmp/out")"

# A repository without a hook.
r="$tmp/r1"
mkrepo "$r"
"$MCPIDX" hook status --repo "$r" > /dev/null && fail "status says installed before install"
"$MCPIDX" hook install --repo "$r" > "$tmp/out" || fail "install exited $?: $(cat "$tmp/out")"
[ -x "$r/.git/hooks/pre-commit" ] || fail "no executable pre-commit hook"
"$MCPIDX" hook status --repo "$r" | grep -q "installed" || fail "hook status"
"$MCPIDX" build --quiet "$r" || fail "first build"
echo "int second_fn(int x) { return x; }" >> "$r/src/a.c"
git -C "$r" add -A && git -C "$r" commit -qm second || fail "commit with the hook failed"
"$MCPIDX" query "$r" def second_fn > "$tmp/q" || fail "the commit did not update the index: $(cat "$tmp/q")"
grep -q "second_fn" "$tmp/q" || fail "def second_fn: $(cat "$tmp/q")"
git -C "$r" status --porcelain | grep -q mcpidx && fail "the index folder shows up in git status"
"$MCPIDX" hook uninstall --repo "$r" > /dev/null || fail "uninstall exited $?"
[ -e "$r/.git/hooks/pre-commit" ] && fail "uninstall left a pre-commit hook"
ls "$r/.git/hooks" | grep -q mcpidx && fail "uninstall left files: $(ls "$r/.git/hooks")"

# A repository with a hook of its own: chained, and restored exactly.
r="$tmp/r2"
mkrepo "$r"
cat > "$r/.git/hooks/pre-commit" <<'SH'
#!/bin/sh
# the project's own check
echo ran >> "$(git rev-parse --show-toplevel)/../old-hook.log"
if grep -q BLOCKME src/*.c; then echo "old hook: BLOCKME found" >&2; exit 1; fi
exit 0
SH
chmod 750 "$r/.git/hooks/pre-commit"
cp -p "$r/.git/hooks/pre-commit" "$tmp/orig-hook"
"$MCPIDX" hook install --repo "$r" > "$tmp/out" || fail "install over an existing hook: $(cat "$tmp/out")"
cmp -s "$tmp/orig-hook" "$r/.git/hooks/pre-commit.mcpidx-chained" || fail "the old hook was not kept as pre-commit.mcpidx-chained"
"$MCPIDX" hook install --repo "$r" > "$tmp/out" || fail "second install exited $?"
cmp -s "$tmp/orig-hook" "$r/.git/hooks/pre-commit.mcpidx-chained" || fail "a second install lost the old hook"
"$MCPIDX" build --quiet "$r" || fail "build r2"
echo "int chained_fn(void) { return 3; }" >> "$r/src/a.c"
git -C "$r" add -A && git -C "$r" commit -qm chained || fail "commit with the chained hook failed"
[ "$(cat "$tmp/old-hook.log")" = ran ] || fail "the old hook did not run once"
"$MCPIDX" query "$r" def chained_fn > /dev/null || fail "the chained commit did not update the index"
echo "/* BLOCKME */ int blocked_fn(void) { return 4; }" >> "$r/src/a.c"
git -C "$r" add -A
git -C "$r" commit -qm blocked 2> "$tmp/err" && fail "the old hook's failure did not block the commit"
grep -q "BLOCKME found" "$tmp/err" || fail "old hook message lost: $(cat "$tmp/err")"
git -C "$r" reset -q --hard HEAD
"$MCPIDX" hook uninstall --repo "$r" > /dev/null || fail "uninstall r2"
cmp -s "$tmp/orig-hook" "$r/.git/hooks/pre-commit" || fail "uninstall did not restore the old hook byte for byte"
[ "$(stat -c %a "$r/.git/hooks/pre-commit")" = 750 ] || fail "uninstall changed the old hook's mode"
[ -e "$r/.git/hooks/pre-commit.mcpidx-chained" ] && fail "uninstall left the chained copy"
"$MCPIDX" hook uninstall --repo "$r" | grep -q "nothing to do" || fail "second uninstall"
cmp -s "$tmp/orig-hook" "$r/.git/hooks/pre-commit" || fail "a second uninstall touched the old hook"

# core.hooksPath, and an index update that fails without blocking.
r="$tmp/r3"
mkrepo "$r"
git -C "$r" config core.hooksPath .githooks
"$MCPIDX" hook install --repo "$r" > "$tmp/out" || fail "install with core.hooksPath"
[ -x "$r/.githooks/pre-commit" ] || fail "core.hooksPath not honoured: $(cat "$tmp/out")"
[ -e "$r/.git/hooks/pre-commit" ] && fail "wrote .git/hooks/pre-commit despite core.hooksPath"
echo "not an index" > "$r/.mcpidx"
printf '.mcpidx\n' > "$r/.gitignore"
echo "int third_fn(void) { return 5; }" >> "$r/src/a.c"
git -C "$r" add -A
git -C "$r" commit -qm third 2> "$tmp/err" || fail "a failing index update blocked the commit: $(cat "$tmp/err")"
grep -q "mcpidx hook: index not updated (the commit goes on)" "$tmp/err" || fail "no message on a failed update: $(cat "$tmp/err")"
[ "$(git -C "$r" log --oneline | wc -l)" = 2 ] || fail "commit missing"
"$MCPIDX" hook uninstall --repo "$r" > /dev/null && [ ! -e "$r/.githooks/pre-commit" ] || fail "uninstall with core.hooksPath"
exit 0
