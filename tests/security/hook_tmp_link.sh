#!/bin/sh
# `hook install` writes its new hook through a fresh temporary file: a link
# planted at .git/hooks/pre-commit.tmp (the fixed name it used to open with
# O_TRUNC) is not followed; the file it points at keeps its bytes and mode.
. tests/cli/lib.sh
export HOME="$T" GIT_CONFIG_NOSYSTEM=1
R=$T/repo
mkdir -p $R
echo 'int f(void) { return 1; }' > $R/a.c
git -C $R init -q || fail "git init"
mkdir -p $R/.git/hooks
echo 'keep me' > $T/victim.txt
chmod 644 $T/victim.txt
ln -s $T/victim.txt $R/.git/hooks/pre-commit.tmp
"$MCPIDX" hook install --repo "$R" > $T/out 2>&1 || fail "install: $(cat $T/out)"
expect_eq "$(cat $T/victim.txt)" "keep me" "the linked file's content"
[ -x $T/victim.txt ] && fail "the linked file was made executable"
[ -L $R/.git/hooks/pre-commit ] && fail "the hook is a link"
grep -q mcpidx $R/.git/hooks/pre-commit || fail "no hook written"
[ -x $R/.git/hooks/pre-commit ] || fail "the hook is not executable"
ls $R/.git/hooks | grep -x 'pre-commit\.......' | grep -qv '^pre-commit.sample$' && fail "left temporary files: $(ls $R/.git/hooks)"
echo ok
