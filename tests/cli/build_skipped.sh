#!/bin/sh
# Every skip is explained and can be undone: build --json lists the skipped
# paths by reason, --list-skipped prints them, a negation in .mcpidxignore
# ("!venv/") brings back a folder the vendored heuristic dropped, and
# --no-ignore indexes vendored and generated trees too; a folder whose path
# nearly fills PATH_MAX is not taken for a virtualenv.
. tests/cli/lib.sh
R=$T/repo
mkdir -p $R/src $R/venv $R/node_modules/lib $R/build $R/Lib/venv
echo 'int main(void) { return 0; }' > $R/src/main.c
echo 'def create(path): return path' > $R/venv/__init__.py
printf 'home = /usr/bin\nversion = 3.11.2\n' > $R/venv/pyvenv.cfg
echo 'def create(env_dir): return env_dir' > $R/Lib/venv/__init__.py
echo 'function vendored() {}' > $R/node_modules/lib/index.js
echo 'function tiny(){}' > $R/src/app.min.js
printf 'int f(void) { return 0; }\0\n' > $R/src/blob.c
echo 'plain text' > $R/notes.txt
echo 'int gen(void) { return 1; }' > $R/build/gen.c
printf 'build/\n.mcpidx/\n' > $R/.gitignore
head -c 3000 /dev/zero | tr '\0' 'x' | sed 's/^/int big(void) { return 1; } \/* /; s/$/ *\//' > $R/src/big.c

"$MCPIDX" build "$R" --json --max-size 2000 > $T/out.json || fail "build failed"
sk() { json $T/out.json "sorted(j['skipped_paths']['$1'])"; }
expect_eq "$(sk vendored)" "['node_modules/', 'src/app.min.js', 'venv/']" "vendored paths (a virtualenv holds pyvenv.cfg; Lib/venv is code)"
expect_eq "$(sk ignored)" "['build/']" "ignored paths"
expect_eq "$(sk binary)" "['src/blob.c']" "binary paths"
expect_eq "$(sk too_big)" "['src/big.c']" "too big paths"
expect_eq "$(sk unsupported)" "['.gitignore', 'notes.txt']" "unsupported paths"
expect_eq "$(json $T/out.json "j['skipped']['vendored']")" "3" "vendored count matches the list"
expect_eq "$(json $T/out.json "j['failures']")" "[]" "no parse failures"

"$MCPIDX" build "$R" --list-skipped --max-size 2000 > $T/list.txt || fail "build --list-skipped"
grep -q '^vendored    venv/$' $T/list.txt || fail "--list-skipped: $(cat $T/list.txt)"
grep -q '^binary      src/blob.c$' $T/list.txt || fail "--list-skipped binary: $(cat $T/list.txt)"
"$MCPIDX" build "$R" > $T/plain.txt || fail "plain build"
grep -q 'list-skipped lists them' $T/plain.txt || fail "the summary does not say how to list skips: $(cat $T/plain.txt)"

# A negation brings a vendored-looking folder back (the standard library's
# own venv package is code, not a virtualenv).
printf '!venv/\n' > $R/.mcpidxignore
"$MCPIDX" build "$R" --json > $T/neg.json || fail "build with !venv/"
expect_eq "$(json $T/neg.json "sorted(j['skipped_paths']['vendored'])")" "['node_modules/', 'src/app.min.js']" "vendored after !venv/"
"$MCPIDX" query "$R" def create --json > $T/def.json || fail "def create"
expect_eq "$(json $T/def.json "sorted(d['path'] for d in j['definitions'])")" "['Lib/venv/__init__.py', 'venv/__init__.py']" "venv packages indexed"

# --no-ignore: nothing is dropped by name.
"$MCPIDX" build "$R" --no-ignore --json > $T/noig.json || fail "build --no-ignore"
expect_eq "$(json $T/noig.json "j['skipped']['vendored'] + j['skipped']['ignored']")" "0" "--no-ignore skips nothing by name"
"$MCPIDX" query "$R" def vendored --json > $T/def.json || fail "def vendored"
expect_eq "$(json $T/def.json "j['definitions'][0]['path']")" "node_modules/lib/index.js" "node_modules indexed with --no-ignore"

# A folder whose path nearly fills PATH_MAX is not vendored: a probe for
# pyvenv.cfg or CACHEDIR.TAG cut at PATH_MAX named the folder itself.
D=$T/deep
mkdir -p $D && python3 - "$D" <<'PY' || fail "deep tree"
import os, sys
os.chdir(os.path.realpath(sys.argv[1]))
# folders of 200 bytes, then one whose absolute path is 4094 bytes long:
# "PATH/pyvenv.cfg" cut to 4095 bytes is "PATH/", which exists
i = 0
while len(os.getcwd()) + 1 + 200 < 4094 - 210:
    n = "d%02d" % i + "x" * 197
    os.mkdir(n)
    os.chdir(n)
    i += 1
n = "last" + "y" * (4094 - len(os.getcwd()) - 1 - 4)
os.mkdir(n)
os.chdir(n)
assert len(os.getcwd()) == 4094
open("deep.c", "w").write("int deepest(void) { return 1; }\n")
PY
"$MCPIDX" build "$D" --json > $T/deep.json || fail "build of a deep tree"
expect_eq "$(json $T/deep.json "j['skipped']['vendored']")" "0" "a tree at PATH_MAX is not vendored"
echo ok
