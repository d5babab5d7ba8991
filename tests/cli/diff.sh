#!/bin/sh
# diff.sh - diff mode (`mcpidx query IDX changed`): after editing two
# functions of a git copy of testdata/pack, exactly those two show as
# changed (~), since the index and since HEAD; after removing one function
# and adding another, they show as - and +, between two revisions too;
# `pack --since` packs the changed ones; a repository that is a folder of a
# larger checkout reads git's paths from the folder; a revision git does not
# know is a clear error.
. tests/cli/lib.sh
R="$T/repo"
cp -r testdata/pack "$R" && rm -rf "$R/expected" "$R/.mcpidxignore"
cd "$R" || fail "no repo copy"
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm one || fail "git commit"
"$MCPIDX" build . -q || fail "build"
"$MCPIDX" query . changed > "$T/none" || fail "changed on a clean tree"
expect_eq "$(cat "$T/none")" "V* 0 changed symbols in 0 files since the index was built: 0 added, 0 removed, 0 changed" "clean tree"

# edit two functions
sed -i 's/return with_tax(price)/return with_tax(round(price, 2))/' shop/cart.py
sed -i 's/    return -amount/    log("done")\n    return -amount/' shop/store.py
cat > "$T/want2" <<'W'
~F> def total() { ... }  shop/cart.py:25 in Cart
~F> def refund(amount) { ... }  shop/store.py:17
W
"$MCPIDX" query . changed > "$T/got" || fail "changed since the index"
head -2 "$T/got" | cmp -s "$T/want2" - || { cat "$T/got" >&2; fail "two edited functions since the index"; }
expect_eq "$(tail -1 "$T/got")" "V* 2 changed symbols in 2 files since the index was built: 0 added, 0 removed, 2 changed" "count line"
"$MCPIDX" query . changed --since HEAD > "$T/got" || fail "changed since HEAD"
head -2 "$T/got" | cmp -s "$T/want2" - || { cat "$T/got" >&2; fail "two edited functions since HEAD"; }
"$MCPIDX" query . changed --path shop/cart.py --json > "$T/one.json" || fail "changed --path"
expect_eq "$(json "$T/one.json" '[(c["change"], c["name"], c["parent"]) for c in j["changed"]]')" \
	"[('changed', 'total', 'Cart')]" "one file"

# the context pack of what changed: the two edited functions are its targets
"$MCPIDX" build . -q || fail "rebuild"
"$MCPIDX" query . pack --since HEAD --budget 600 --json > "$T/pack.json" || fail "pack --since HEAD"
expect_eq "$(json "$T/pack.json" 'sorted(e["name"] for e in j["entries"] if e["role"] == "target")')" \
	"['refund', 'total']" "pack since HEAD targets"
expect_eq "$(json "$T/pack.json" 'j["tokens"] <= 600')" True "pack since HEAD within budget"

# remove one function, add another, between two revisions
git -c user.name=t -c user.email=t@t commit -qam two || fail "commit two"
python3 - <<'P'
p = 'shop/store.py'
t = open(p).read().replace('def log(msg):\n    LOG.append(msg)\n\n\n', '')
open(p, 'w').write(t + '\n\ndef audit():\n    return list(LOG)\n')
P
git -c user.name=t -c user.email=t@t commit -qam three || fail "commit three"
"$MCPIDX" query . changed --since HEAD~2..HEAD > "$T/got" || fail "changed between revisions"
cat > "$T/want3" <<'W'
~F> def total() { ... }  shop/cart.py:25 in Cart
-F> def log(msg) { ... }  shop/store.py:6
~F> def refund(amount) { ... }  shop/store.py:13
+F> def audit() { ... }  shop/store.py:19
V* 4 changed symbols in 2 files since HEAD~2..HEAD: 1 added, 1 removed, 2 changed
W
cmp -s "$T/want3" "$T/got" || { diff "$T/want3" "$T/got" >&2; fail "added, removed, changed between revisions"; }

# a repository that is a folder of a larger checkout: git's paths start at
# the checkout's top, the index's at the folder
S="$T/outer"
mkdir -p "$S/sub" && cd "$S" || fail "no outer repo"
printf 'int f(void) { return 1; }\n' > sub/a.c
printf 'int elsewhere(void) { return 1; }\n' > top.c
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm one || fail "outer commit"
printf 'int f(void) { return 2; }\nint g(void) { return 3; }\n' > sub/a.c
printf 'int elsewhere(void) { return 2; }\n' > top.c
"$MCPIDX" build -q sub || fail "build of the folder"
cat > "$T/want4" <<'W'
~F> int f(void) { ... }  a.c:1
+F> int g(void) { ... }  a.c:2
V* 2 changed symbols in 1 file since HEAD: 1 added, 0 removed, 1 changed
W
"$MCPIDX" query sub changed --since HEAD > "$T/got" || fail "changed in a folder of a checkout"
cmp -s "$T/want4" "$T/got" || { diff "$T/want4" "$T/got" >&2; fail "a folder of a checkout since HEAD"; }
git -c user.name=t -c user.email=t@t commit -qam two || fail "outer commit two"
"$MCPIDX" query sub changed --since HEAD~1..HEAD > "$T/got" || fail "changed A..B in a folder"
sed 's/since HEAD:/since HEAD~1..HEAD:/' "$T/want4" | cmp -s - "$T/got" || { cat "$T/got" >&2; fail "a folder of a checkout A..B"; }
cd "$R" || fail "back to the repo"

# bad revisions
"$MCPIDX" query . changed --since nosuch > "$T/out" 2> "$T/err" && fail "unknown revision accepted"
expect_contains "$(cat "$T/err")" "git does not know revision 'nosuch'" "unknown revision message"
"$MCPIDX" query . changed --since "-p" > "$T/out" 2> "$T/err" && fail "option as revision accepted"
expect_contains "$(cat "$T/err")" "since must be a git revision" "option as revision"
exit 0
