#!/bin/sh
# Every tool that takes a token budget (max_tokens, or context_pack's
# budget_tokens) holds both forms of its answer to it: for each such tool
# in tools/list, at the smallest budget and at 500, on a repository far
# bigger than either, the text and structuredContent each stay within the
# budget (at most 6 bytes a token, plus a 200-byte allowance for the cut
# note).  A tool the test has no arguments for is called with arguments
# made from its schema, so a new tool is checked too.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
mkdir -p "$T/repo/src" "$T/repo/docs"
cd "$T" && PYTHONPATH="$here" python3 - "$T/repo" <<'PY'
import json, subprocess, sys
from mcptest import Stdio, fail, text, build

repo = sys.argv[1]
long_doc = " ".join("word%d" % i for i in range(80))
with open(repo + "/src/lib.c", "w") as f:
    f.write("int target(int x) { return x; }\n")
    for i in range(200):
        f.write("/* helper %d: %s */\nint helper_%d(int x)\n{\n\treturn target(x) + target(x + %d);\n}\n"
                % (i, long_doc, i, i))
with open(repo + "/docs/guide.md", "w") as f:
    f.write("".join("# Helper %d\n\nThe helper target %s\n\n" % (i, long_doc) for i in range(100)))
git = lambda *a: subprocess.run(["git", "-C", repo, *a], capture_output=True, check=True)
git("init", "-q")
git("-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
with open(repo + "/src/lib.c", "a") as f:
    for i in range(200):
        f.write("int added_%d(int y) { return helper_%d(y) + %d; }\n" % (i, i, i))
build(repo)

RECIPES = {
    "read_file": {"path": "src/lib.c", "mode": "full"},
    "expand_at": {"path": "src/lib.c", "selector": "helper_1"},
    "goto_definition": {"symbol": "target"},
    "find_references": {"symbol": "target", "limit": 1000},
    "code_research": {"query": "what calls target", "depth": 3},
    "search_code": {"query": "helper target", "limit": 100},
    "search_docs": {"query": "helper target", "limit": 100},
    "changed_symbols": {"since": "HEAD"},
    "context_pack": {"target": "target", "depth": 2},
}

# Over their budget in structuredContent only, and why: none today (a tool
# named here prints a KNOWN line and has only its text checked).
KNOWN = {}

def made_up(schema):
    args = {}
    props = schema.get("properties", {})
    for k in schema.get("required", []):
        p = props.get(k, {})
        t = p.get("type")
        if "enum" in p:
            args[k] = p["enum"][0]
        elif t == "integer" or t == "number":
            args[k] = p.get("minimum", 1)
        elif t == "boolean":
            args[k] = False
        elif t == "array":
            args[k] = []
        elif t == "object":
            args[k] = {}
        else:
            args[k] = "target"
    return args

s = Stdio([repo])
s.init()
tools = s.request("tools/list")["result"]["tools"]
checked = []
for t in tools:
    props = t["inputSchema"].get("properties", {})
    key = "max_tokens" if "max_tokens" in props else "budget_tokens" if "budget_tokens" in props else None
    if not key:
        continue
    low = props[key].get("minimum", 100)
    args = RECIPES.get(t["name"]) or made_up(t["inputSchema"])
    for budget in (low, 500):
        r = s.call(t["name"], dict(args, **{key: budget}))
        tb = len(text(r).encode())
        sb = len(json.dumps(r.get("structuredContent", {}), separators=(",", ":")).encode())
        limit = 6 * budget + 200
        if t["name"] in KNOWN and sb > limit:
            print("KNOWN: %s %s=%d: structuredContent %d bytes over %d: %s"
                  % (t["name"], key, budget, sb, limit, KNOWN[t["name"]]))
            sb = 0
        if tb > limit or sb > limit:
            fail("%s %s %s=%d: text %d bytes, structuredContent %d bytes (limit %d)"
                 % (t["name"], json.dumps(args), key, budget, tb, sb, limit))
        if t["name"] in RECIPES and r.get("isError"):
            fail("%s %s: %s" % (t["name"], json.dumps(args), text(r)[:300]))
    checked.append(t["name"])
missing = [n for n in ["read_file", "search_code", "find_references"] if n not in checked]
if missing:
    fail("tools with a budget not found in tools/list: %s" % missing)
s.close()
print("ok: " + " ".join(checked))
PY
