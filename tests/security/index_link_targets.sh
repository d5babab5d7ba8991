#!/bin/sh
# Links inside the repository to what the walk leaves out are not followed:
# a committed `notes.md -> .git/config` (credentials), `public.md` to a file
# .gitignore names, a link to the index's lock.mdb.  Each is skipped as a
# symlink; the files they point at are not indexed under the links' names.
# So is a link into a folder the walk leaves out as vendored
# (`vendored.md -> node_modules/pkg/README.md`: it was followed).
# A link to an ordinary file is still indexed.
. tests/cli/lib.sh
R=$T/repo
mkdir -p $R/src $R/private
git -C $R init -q || fail "git init"
git -C $R config remote.origin.url https://user:TOPSECRET1@example.com/r.git
echo 'int main(void) { return 0; }' > $R/src/main.c
printf 'password TOPSECRET2\n' > $R/secrets.md
printf 'key TOPSECRET3\n' > $R/private/keys.md
printf 'secrets.md\n.mcpidx/\nprivate/\n' > $R/.gitignore
printf '# Fine\n\nvisible words here\n' > $R/ok.md
ln -s .git/config $R/notes.md
ln -s secrets.md $R/public.md
ln -s private/keys.md $R/keys.md
ln -s ok.md $R/alias.md
mkdir -p $R/node_modules/pkg
printf '# Pkg\n\nvendorword TOPSECRET4\n' > $R/node_modules/pkg/README.md
ln -s node_modules/pkg/README.md $R/vendored.md
"$MCPIDX" build -q "$R" || fail "first build"
# (the links as the index first saw them: nothing secret taken)
for w in TOPSECRET1 TOPSECRET2 TOPSECRET3; do
	"$MCPIDX" query "$R" docs "$w" > $T/s.out 2>&1
	grep -q "$w" $T/s.out && fail "$w is indexed by the first build: $(cat $T/s.out)"
done
ln -s .mcpidx/lock.mdb $R/lock.md
"$MCPIDX" build "$R" --json > $T/b.json || fail "build: $(cat $T/b.json)"
expect_eq "$(json $T/b.json "sorted(j['skipped_paths'].get('symlink', []))")" \
	"['keys.md', 'lock.md', 'notes.md', 'public.md', 'vendored.md']" "links skipped"
"$MCPIDX" build "$R" --force --json > $T/f.json || fail "build --force"
expect_eq "$(json $T/f.json "sorted(j['skipped_paths'].get('symlink', []))")" \
	"['keys.md', 'lock.md', 'notes.md', 'public.md', 'vendored.md']" "links skipped by --force"
for w in TOPSECRET1 TOPSECRET2 TOPSECRET3 TOPSECRET4; do
	"$MCPIDX" query "$R" docs "$w" > $T/s.out 2>&1
	grep -q "$w" $T/s.out && fail "$w is indexed: $(cat $T/s.out)"
done
"$MCPIDX" query "$R" outline alias.md --mode full > $T/s.out 2>&1
grep -q visible $T/s.out || fail "a link to an ordinary file is not indexed: $(cat $T/s.out)"
echo ok
