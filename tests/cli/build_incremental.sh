# Incremental builds: unchanged files are not re-parsed, edits, deletes and
# renames show up, touch without change is free, --force re-parses all.
. tests/cli/lib.sh
R=$T/repo
mkdir -p $R/src
cat > $R/src/a.c <<'C'
/* Adds two numbers. */
int add(int a, int b) { return a + b; }
static int helper(void) { return add(1, 2); }
C
cat > $R/src/b.py <<'P'
def greet(name):
    """Say hello."""
    return "hi " + name
P
cat > $R/src/c.py <<'G'
def serve():
    return 0
G
b() { "$MCPIDX" build "$R" --json > $T/out.json || fail "build failed"; }
b
expect_eq "$(json $T/out.json "j['indexed'], j['files']")" "3 3" "first build"
b
expect_eq "$(json $T/out.json "j['indexed'], j['unchanged']")" "0 3" "no-op build"
echo 'int sub(int a, int b) { return a - b; }' >> $R/src/a.c
b
expect_eq "$(json $T/out.json "j['indexed'], j['unchanged']")" "1 2" "one edit"
"$MCPIDX" query "$R" def sub --json > $T/def.json || fail "def sub not found after edit"
expect_eq "$(json $T/def.json "j['definitions'][0]['path'], j['definitions'][0]['line']")" "src/a.c 4" "def sub"
"$MCPIDX" query "$R" refs add --json > $T/refs.json || fail "refs add"
expect_eq "$(json $T/refs.json "j['references'][0]['caller']")" "helper" "caller of add"
rm $R/src/b.py
b
expect_eq "$(json $T/out.json "j['removed'], j['files']")" "1 2" "delete"
"$MCPIDX" query "$R" def greet > /dev/null 2>&1 && fail "greet still defined after delete"
mv $R/src/c.py $R/src/d.py
b
expect_eq "$(json $T/out.json "j['removed'], j['indexed']")" "1 1" "rename"
"$MCPIDX" query "$R" def serve --json > $T/def.json || fail "serve lost in rename"
expect_eq "$(json $T/def.json "j['definitions'][0]['path']")" "src/d.py" "renamed path"
touch -d '2001-01-01' $R/src/a.c
b
expect_eq "$(json $T/out.json "j['indexed'], j['unchanged']")" "0 2" "touch only"
# An update moves the index's totals by what it took out and put in: after
# the edit, delete and rename they are what a fresh build counts.
totals="j['symbols'], j['references'], j['diagnostics'], j['chunks']"
updated=$(json $T/out.json "$totals")
"$MCPIDX" build "$R" --force --json > $T/out.json || fail "force build"
expect_eq "$(json $T/out.json "j['indexed'], j['files']")" "2 2" "--force"
expect_eq "$(json $T/out.json "$totals")" "$updated" "totals after updates = a fresh build's"
# Same answers after --force as before it.
"$MCPIDX" query "$R" def sub --json > $T/def2.json
expect_eq "$(json $T/def2.json "j['definitions'][0]['line']")" "4" "def after force"
# Stats agree with the build.
"$MCPIDX" query "$R" stats --json > $T/stats.json
fmt=$("$MCPIDX" version | sed -n 's/.*index format \([0-9]*\).*/\1/p')
expect_eq "$(json $T/stats.json "j['files'], j['format_version']")" "2 $fmt" "stats"
# --force writes a fresh file renamed into place: the index never grows by
# being rebuilt, and nothing temporary is left beside it.
size=$(wc -c < $R/.mcpidx/data.mdb)
for i in 1 2 3; do
	"$MCPIDX" build "$R" --force --json > $T/out.json || fail "force build $i"
	expect_eq "$(json $T/out.json "j['fresh']")" "True" "force build $i is fresh"
done
expect_eq "$(wc -c < $R/.mcpidx/data.mdb)" "$size" "data.mdb size after three --force builds"
expect_eq "$(ls -A $R/.mcpidx | tr '\n' ' ')" "data.mdb lock.mdb " "index folder after --force"
b
expect_eq "$(json $T/out.json "j['fresh'], j['indexed']")" "False 0" "a plain build after --force updates in place"
echo ok
