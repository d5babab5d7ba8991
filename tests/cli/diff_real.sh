#!/bin/sh
# diff_real.sh - diff mode on code nobody here wrote (the json package of
# Debian's Python 3.11, copied into a git repository): after editing two
# functions exactly those two show as changed, through the CLI and through
# MCP (changed_symbols, read_file {diff: true}); a new file git does not
# track yet shows its symbols as added; unicode marks write ± for changed;
# context_pack through MCP stays within its budget, and packs what changed
# since a revision.
. tests/cli/lib.sh
src=
for d in /usr/lib/python3.11/json /usr/lib/python3/json /usr/lib/python3.*/json; do
	[ -f "$d/decoder.py" ] && { src=$d; break; }
done
[ -n "$src" ] || { echo "SKIP: no Debian Python json package under /usr/lib"; exit 0; }
R="$T/repo"
mkdir -p "$R/json" && cp "$src"/*.py "$R/json/" || fail "copy $src"
cd "$R" || fail "no repo copy"
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm one || fail "git commit"
"$MCPIDX" build . -q || fail "build"

# edit two functions: a module function and a method
python3 - <<'P' || fail "edit"
p = 'json/decoder.py'
t = open(p).read()
for head, line in (('def JSONArray(', '    s_and_end = tuple(s_and_end)\n'),
                   ('    def raw_decode(self, s, idx=0):\n', '        idx = int(idx)\n')):
    i = t.index(head)
    j = t.index('\n', i) + 1
    if head.startswith('def JSONArray'):
        j = t.index(':\n', i) + 2
    t = t[:j] + line + t[j:]
open(p, 'w').write(t)
P
names='[(c["change"], c["parent"], c["name"]) for c in j["changed"]]'
"$MCPIDX" query . changed --json > "$T/idx.json" || fail "changed since the index"
expect_eq "$(json "$T/idx.json" "$names")" \
	"[('changed', '', 'JSONArray'), ('changed', 'JSONDecoder', 'raw_decode')]" \
	"exactly the two edited functions since the index"
"$MCPIDX" query . changed --since HEAD --json > "$T/head.json" || fail "changed since HEAD"
expect_eq "$(json "$T/head.json" "$names")" \
	"[('changed', '', 'JSONArray'), ('changed', 'JSONDecoder', 'raw_decode')]" \
	"exactly the two edited functions since HEAD"
"$MCPIDX" query . changed --marks unicode > "$T/uni" || fail "changed --marks unicode"
expect_eq "$(grep -c '^±F> ' "$T/uni")" 2 "unicode mark of a changed symbol"
expect_contains "$(tail -1 "$T/uni")" "V• 2 changed symbols" "unicode V line"
expect_contains "$(cat "$T/uni")" "def JSONArray(s_and_end, scan_once, _w=…" "unicode ellipsis"

# a new file git does not track yet
printf 'def added_helper(x):\n    return x\n' > json/extra.py
"$MCPIDX" query . changed --json > "$T/new.json" || fail "changed with a new file"
expect_eq "$(json "$T/new.json" "$names")" \
	"[('changed', '', 'JSONArray'), ('changed', 'JSONDecoder', 'raw_decode'), ('added', '', 'added_helper')]" \
	"untracked file since the index"
"$MCPIDX" query . changed --since HEAD > "$T/new" || fail "changed since HEAD with a new file"
expect_contains "$(cat "$T/new")" "+F> def added_helper(x) { ... }  json/extra.py:1" "untracked file since HEAD"

# the same through MCP
python3 - "$MCPIDX" . > "$T/mcp.out" 2>&1 <<'P' || { cat "$T/mcp.out" >&2; fail "MCP diff tools"; }
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "serve", sys.argv[2], "--log-level", "off"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
n = 0
def rpc(method, params):
    global n
    n += 1
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == n:
            return m["result"]
def call(name, args):
    r = rpc("tools/call", {"name": name, "arguments": args})
    assert not r.get("isError"), r["content"][0]["text"]
    return r
rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}})
r = call("changed_symbols", {})
got = [(c["change"], c["name"]) for c in r["structuredContent"]["changed"]]
assert got == [("changed", "JSONArray"), ("changed", "raw_decode"), ("added", "added_helper")], got
assert r["content"][0]["text"].startswith("~F> def JSONArray("), r["content"][0]["text"]
r = call("changed_symbols", {"since": "HEAD", "path": "json/decoder.py"})
assert [c["name"] for c in r["structuredContent"]["changed"]] == ["JSONArray", "raw_decode"], r
r = call("read_file", {"path": "json/decoder.py", "diff": True})
t = r["content"][0]["text"].splitlines()
assert len(t) == 3 and t[0].startswith("~F> def JSONArray(") and "raw_decode" in t[1], t
r = call("read_file", {"path": "json/encoder.py", "diff": True})
assert r["structuredContent"]["total"] == 0, r
r = call("context_pack", {"target": "JSONDecoder.raw_decode", "budget_tokens": 400})
s = r["structuredContent"]
assert s["tokens"] <= 400 and s["entries"][0]["name"] == "raw_decode", s
r = call("context_pack", {"since": "HEAD", "budget_tokens": 1500})
s = r["structuredContent"]
assert sorted(e["name"] for e in s["entries"] if e["role"] == "target") == ["JSONArray", "raw_decode"], s
assert s["tokens"] <= 1500, s
r = rpc("tools/call", {"name": "changed_symbols", "arguments": {"since": "nosuch"}})
assert r.get("isError") and "git does not know revision 'nosuch'" in r["content"][0]["text"], r
p.stdin.close()
p.wait(timeout=20)
P
exit 0
