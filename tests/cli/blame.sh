#!/bin/sh
# blame.sh - `mcpidx build --blame` keeps each symbol's last commit (short
# hash, author, date) from git, and `outline --blame` / read_file
# {with_blame} show it, on a small git repository made here with two
# authors and fixed dates: the function the second commit touched names
# that commit, the others the first; a rebuild blames only changed files;
# an uncommitted edit says so; an index without blame, a blame older than
# the file, and a folder that is not a git checkout are clear errors.
. tests/cli/lib.sh
R="$T/repo"
mkdir -p "$R/pkg" && cd "$R" || fail "mkdir"
cat > pkg/shop.py <<'P'
class Cart:
    def add(self, item):
        self.items.append(item)

    def total(self):
        return sum(self.items)


def checkout(cart):
    return cart.total()
P
printf 'def helper():\n    return 1\n' > pkg/util.py
commit() { # AUTHOR DATE MESSAGE
	GIT_AUTHOR_DATE="$2" GIT_COMMITTER_DATE="$2" git -c user.name="$1" \
		-c user.email=x@example.org commit -qam "$3" || fail "commit $3"
}
git init -q && git add -A && commit "Ann Lee" 2026-01-02T10:00:00Z one
sed -i 's/return sum(self.items)/return sum(self.items) + 0/' pkg/shop.py
commit "Bo Chen" 2026-03-04T12:00:00Z two
a=$(git rev-parse --short=7 HEAD~1) b=$(git rev-parse --short=7 HEAD)

# an index built without --blame says how to get it
"$MCPIDX" build . -q || fail "build"
"$MCPIDX" query . outline pkg/shop.py --blame > "$T/out" 2> "$T/err" && fail "blame without --blame build"
expect_contains "$(cat "$T/err")" "keeps no blame: build it with \`mcpidx build --blame REPO\`" "no blame"

"$MCPIDX" build . --blame > "$T/build" || fail "build --blame"
expect_contains "$(cat "$T/build")" "blame: 2 files blamed (5 symbols), 0 unchanged, 0 removed" "blame stats"
"$MCPIDX" query . outline pkg/shop.py --blame > "$T/got" || fail "outline --blame"
cat > "$T/want" <<W
C> class Cart { ... }
V* last commit $b by Bo Chen, 2026-03-04
F>   def add(item) { ... }
V*   last commit $a by Ann Lee, 2026-01-02
F>   def total() { ... }
V*   last commit $b by Bo Chen, 2026-03-04
F> def checkout(cart) { ... }
V* last commit $a by Ann Lee, 2026-01-02
W
cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got" >&2; fail "last commit per symbol"; }
# with cross-references too, both under the symbol
"$MCPIDX" query . outline pkg/shop.py --blame --xrefs > "$T/got" || fail "--blame --xrefs"
expect_contains "$(cat "$T/got")" "F>   def total() { ... }
V*   called by: checkout
V*   last commit $b by Bo Chen, 2026-03-04" "xrefs and blame"

# a second --blame build blames nothing again
"$MCPIDX" build . --blame > "$T/build" || fail "build --blame again"
expect_contains "$(cat "$T/build")" "blame: 0 files blamed (0 symbols), 2 unchanged, 0 removed" "nothing to blame again"

# an edit: a build without --blame leaves the blame behind the file
printf 'def helper():\n    return 2\n' > pkg/util.py
"$MCPIDX" build . -q || fail "rebuild"
"$MCPIDX" query . outline pkg/util.py --blame > "$T/out" 2> "$T/err" && fail "stale blame served"
expect_contains "$(cat "$T/err")" "The blame of pkg/util.py is older than the index" "stale blame"
"$MCPIDX" query . outline pkg/shop.py --blame > /dev/null || fail "unchanged file keeps its blame"
# with --blame the uncommitted edit is named; a removed file's record goes
"$MCPIDX" build . --blame > "$T/build" || fail "build --blame after edit"
expect_contains "$(cat "$T/build")" "blame: 1 files blamed (1 symbols), 1 unchanged, 0 removed" "only the changed file"
expect_eq "$("$MCPIDX" query . outline pkg/util.py --blame)" "F> def helper() { ... }
V* last change not committed yet" "uncommitted"
git rm -qf pkg/util.py && commit "Ann Lee" 2026-03-05T09:00:00Z three
"$MCPIDX" build . --blame > "$T/build" || fail "build --blame after removal"
expect_contains "$(cat "$T/build")" "blame: 0 files blamed (0 symbols), 1 unchanged, 1 removed" "removed file"

# through MCP: read_file {with_blame}
python3 - "$MCPIDX" . "$a" "$b" > "$T/mcp.out" 2>&1 <<'P' || { cat "$T/mcp.out" >&2; fail "MCP with_blame"; }
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "serve", sys.argv[2], "--log-level", "off"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def rpc(i, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m["result"]
rpc(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                      "clientInfo": {"name": "t", "version": "1"}})
r = rpc(2, "tools/call", {"name": "read_file", "arguments": {"path": "pkg/shop.py", "with_blame": True}})
t = r["content"][0]["text"]
assert not r.get("isError"), t
assert "F> def checkout(cart) { ... }\nV* last commit %s by Ann Lee, 2026-01-02\n" % sys.argv[3] in t, t
assert "V*   last commit %s by Bo Chen, 2026-03-04" % sys.argv[4] in t, t
r = rpc(3, "tools/call", {"name": "read_file", "arguments": {"path": "pkg/shop.py", "with_blame": "yes"}})
assert r.get("isError") and "boolean" in r["content"][0]["text"], r
p.stdin.close()
p.wait(timeout=20)
P

# not a git checkout
mkdir "$T/plain" && cp "$R/pkg/shop.py" "$T/plain/" || fail "plain copy"
"$MCPIDX" build "$T/plain" --blame > "$T/out" 2> "$T/err" && fail "--blame outside git accepted"
expect_contains "$(cat "$T/err")" "is not a git checkout" "not a git checkout"
exit 0
