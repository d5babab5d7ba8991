#!/bin/sh
# Python virtual environments are known by what they hold, not by name: the
# standard library's own venv package (a folder named venv, no pyvenv.cfg)
# is indexed, while real virtualenvs made by `python3 -m venv` are skipped
# as vendored under any name and listed by --list-skipped; a negation in
# .mcpidxignore ("!myenv/") or --no-ignore brings one back.
. "$(dirname "$0")/lib.sh"
R=$T/repo
std=$(ls -d /usr/lib/python3*/venv 2>/dev/null | head -1)
[ -n "$std" ] && [ -f "$std/__init__.py" ] || { echo "SKIP: no Python standard library venv package under /usr/lib"; exit 0; }
mkdir -p "$R/lib/python3" "$R/src"
cp -r "$std" "$R/lib/python3/venv"
rm -rf "$R/lib/python3/venv/__pycache__"
echo 'def app_main(): return 0' > "$R/src/app.py"
for env in myenv .venv; do
	python3 -m venv --without-pip "$R/$env" || fail "python3 -m venv $env"
	sp=$(ls -d "$R/$env"/lib/python3*/site-packages | head -1)
	echo "def dep_in_${env#.}(): return 1" > "$sp/dep_${env#.}.py"
done

"$MCPIDX" build "$R" --json > $T/out.json || fail "build"
expect_eq "$(json $T/out.json "sorted(j['skipped_paths']['vendored'])")" "['.venv/', 'myenv/']" "virtualenvs skipped by what they hold"
"$MCPIDX" query "$R" def EnvBuilder --json > $T/def.json || fail "def EnvBuilder: the standard library venv package was not indexed"
expect_eq "$(json $T/def.json "j['definitions'][0]['path']")" "lib/python3/venv/__init__.py" "stdlib venv indexed"
"$MCPIDX" query "$R" def dep_in_myenv > /dev/null 2>&1 && fail "a virtualenv's site-packages were indexed"
"$MCPIDX" build "$R" --list-skipped > $T/list.txt || fail "build --list-skipped"
grep -q '^vendored    myenv/$' $T/list.txt || fail "--list-skipped: $(cat $T/list.txt)"

printf '!myenv/\n' > "$R/.mcpidxignore"
"$MCPIDX" build "$R" --json > $T/neg.json || fail "build with !myenv/"
expect_eq "$(json $T/neg.json "sorted(j['skipped_paths']['vendored'])")" "['.venv/']" "vendored after !myenv/"
"$MCPIDX" query "$R" def dep_in_myenv > /dev/null || fail "!myenv/ did not bring the virtualenv back"
rm "$R/.mcpidxignore"
"$MCPIDX" build "$R" --no-ignore --json > $T/noig.json || fail "build --no-ignore"
expect_eq "$(json $T/noig.json "j['skipped']['vendored']")" "0" "--no-ignore skips no virtualenv"
"$MCPIDX" query "$R" def dep_in_venv > /dev/null || fail "--no-ignore did not index .venv"
echo ok
