#!/bin/sh
# The git head a build stores (index_status, stats, pack) is read from .git
# without running git, so a crafted .git (a tarball can carry one) must not
# copy a file into the index: "ref: ../../outside" and a HEAD that is not an
# object id store no head; a FIFO as .git/HEAD does not block the build (nor
# would a link to /dev/zero exhaust it: both are not regular files; that
# one is left out here, as a regression would eat the machine's memory).  A
# real checkout still gets its head.
. tests/cli/lib.sh
mkdir -p $T/outside $T/repo/.git
printf 'secret-outside-the-repo hunter2\n' > $T/outside/secret
echo 'int main(void) { return 0; }' > $T/repo/main.c
check() { # $1 = what
	timeout 60 "$MCPIDX" build -q --force $T/repo > $T/b.out 2> $T/b.err
	rc=$?
	[ $rc -eq 124 ] && fail "$1: the build blocked"
	[ $rc -eq 0 ] || fail "$1: build exited $rc: $(cat $T/b.err)"
	"$MCPIDX" query $T/repo stats --json > $T/s.json || fail "$1: stats"
	expect_eq "$(json $T/s.json 'j["git_head"]')" "" "$1: git_head"
	grep -q hunter2 $T/repo/.mcpidx/data.mdb && fail "$1: the outside file is in the index"
	return 0
}
echo "ref: ../../outside/secret" > $T/repo/.git/HEAD
check "a ref out of .git"
echo "ref: refs/heads/../../../outside/secret" > $T/repo/.git/HEAD
check "a ref with .."
cp $T/outside/secret $T/repo/.git/HEAD
check "a HEAD that is not an object id"
rm $T/repo/.git/HEAD && mkfifo $T/repo/.git/HEAD
check "a FIFO as HEAD"
rm -rf $T/repo/.git
cd $T/repo && git init -q && git add main.c && git -c user.name=t -c user.email=t@t commit -qm one || fail "git"
"$MCPIDX" build -q . || fail "build of a checkout"
"$MCPIDX" query . stats --json > $T/s.json || fail "stats of a checkout"
expect_eq "$(json $T/s.json 'j["git_head"]')" "$(git rev-parse HEAD)" "a real checkout's head"
echo ok
