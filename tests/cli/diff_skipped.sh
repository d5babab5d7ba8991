#!/bin/sh
# diff_skipped.sh - diff mode leaves out what the build leaves out: an
# untracked file in a folder .mcpidxignore names (at the top or below), in
# vendor/ or node_modules/, a minified file, or one over the 1 MiB size cap
# shows no symbols, with or without --path, and is never read; an untracked
# file a build would index still shows.
. tests/cli/lib.sh
R="$T/repo"
mkdir -p "$R/src" && cd "$R" || fail "no repo"
echo 'int base(void) { return 0; }' > src/base.c
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm one || fail "git commit"
"$MCPIDX" build . -q || fail "build"
mkdir -p secret vendor node_modules/x src/deep/hid
echo 'secret/' > .mcpidxignore
echo 'hid/' > src/deep/.mcpidxignore
echo 'int secret_fn(void) { return 1; }' > secret/s.c
echo 'int vendored_fn(void) { return 2; }' > vendor/v.c
echo 'function nm_fn() { return 3; }' > node_modules/x/index.js
echo 'function min_fn() { return 4; }' > src/app.min.js
echo 'int hidden_fn(void) { return 5; }' > src/deep/hid/h.c
python3 -c 'import sys; sys.stdout.write("int big_fn(void) { return 6; }\n" + "/* pad */\n" * 120000)' > src/big.c
echo 'int fresh_fn(void) { return 7; }' > src/fresh.c
"$MCPIDX" query . changed > "$T/got" || fail "changed"
cat > "$T/want" <<'W'
+F> int fresh_fn(void) { ... }  src/fresh.c:1
V* 1 changed symbol in 1 file since the index was built: 1 added, 0 removed, 0 changed
W
cmp -s "$T/want" "$T/got" || { cat "$T/got" >&2; fail "only the file a build would index"; }
for p in secret/s.c vendor/v.c node_modules/x/index.js src/app.min.js src/deep/hid/h.c src/big.c; do
	"$MCPIDX" query . changed --path "$p" > "$T/one" || fail "changed --path $p"
	expect_eq "$(cat "$T/one")" \
		"V* 0 changed symbols in 0 files since the index was built: 0 added, 0 removed, 0 changed" \
		"$p is left out"
done
# since a revision: the same rules
"$MCPIDX" query . changed --since HEAD --json > "$T/since.json" || fail "changed --since HEAD"
expect_eq "$(json "$T/since.json" '[c["name"] for c in j["changed"]]')" "['fresh_fn']" "since HEAD"
echo ok
