#!/bin/sh
# diff_cap.sh - diff mode compares at most 5,000 files with changes and says
# when it stopped: with 5,003 new one-function files, changed (and
# changed_symbols) ends its text with a V* [cut: ...] line naming the 3 files
# not compared, and its JSON has truncated: true and files_not_compared: 3;
# pack --since (context_pack {since}) says the same in its summary line and
# JSON.  It used to stop at 5,000 without a word.
. tests/cli/lib.sh
R="$T/repo"
mkdir -p "$R" && cd "$R" || fail "no repo"
echo 'int base(void) { return 0; }' > a.c
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm one || fail "git commit"
"$MCPIDX" build . -q || fail "build"
mkdir -p gen
python3 -c '
for i in range(5003):
    open("gen/f%04d.c" % i, "w").write("int f%d(void) { return %d; }\n" % (i, i))
'
"$MCPIDX" query . changed > "$T/got" || fail "changed"
expect_eq "$(grep -c '^+F>' "$T/got")" 5000 "symbols of the first 5000 files"
expect_contains "$(tail -1 "$T/got")" "V* [cut: diff mode stops after 5000 files with changes; 3 more files were not compared" "the text says it stopped"
"$MCPIDX" query . changed --json > "$T/got.json" || fail "changed --json"
expect_eq "$(json "$T/got.json" '(j["truncated"], j["files_not_compared"], j["files"], j["total"])')" \
	"(True, 3, 5000, 5000)" "the JSON says it stopped"
"$MCPIDX" build . -q || fail "rebuild"
"$MCPIDX" query . pack --since HEAD --budget 600 --json > "$T/pack.json" || fail "pack --since HEAD"
expect_eq "$(json "$T/pack.json" '(j["truncated"], j["files_not_compared"])')" "(True, 3)" "pack JSON says it"
expect_contains "$(json "$T/pack.json" 'j["text"].splitlines()[-1]')" "3 more not compared" "pack summary says it"
echo ok
