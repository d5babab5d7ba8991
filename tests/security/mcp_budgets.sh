#!/bin/sh
# max_tokens holds for the whole answer on every tool that takes it: the
# text and structuredContent both stay within the budget (here: at most 6
# bytes a token), a cut answer says so in both forms (a V* [cut: ...] line;
# truncated, total, next_offset), and offset continues a paged answer
# exactly where the cut one stopped.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
mkdir -p "$T/repo/src" "$T/repo/docs"
cd "$T" && PYTHONPATH="$here" python3 - "$T/repo" <<'PY'
import json, sys
from mcptest import Stdio, fail, text, build

repo = sys.argv[1]
with open(repo + "/src/lib.c", "w") as f:
    f.write("int target(int x) { return x; }\n")
    f.write("int huge_body(int x)\n{\n" + "".join("\tx = x * 3 + %d; /* step %d of the long body */\n" % (i, i) for i in range(3000)) + "\treturn x;\n}\n")
for i in range(120):
    with open(repo + "/src/c%03d.c" % i, "w") as f:
        f.write("/* buffer helper number %d */\nstatic int dup(void) { return %d; }\n" % (i, i))
        f.write("int caller_%d(int y)\n{\n\treturn target(y) + target(y + %d) + dup();\n}\n" % (i, i))
for i in range(60):
    with open(repo + "/docs/guide%02d.md" % i, "w") as f:
        f.write("# Install guide %d\n\nTo install the buffer helper, run the install step %d.\n" % (i, i) + "More words about install. " * 40 + "\n")
with open(repo + "/src/blob.py", "w") as f:
    f.write('BLOB = "' + "ab" * (5 << 20) + '"\n')
build(repo, "--max-size", "20000000")

s = Stdio([repo])
s.init()

def check(name, args, budget, want_cut=True):
    r = s.call(name, dict(args, max_tokens=budget))
    if r.get("isError"):
        fail("%s: %s" % (name, text(r)[:300]))
    t = text(r)
    sc = json.dumps(r["structuredContent"], separators=(",", ":"))
    limit = 6 * budget + 200
    if len(t.encode()) > limit or len(sc.encode()) > limit:
        fail("%s %s max_tokens %d: text %d bytes, structuredContent %d bytes (limit %d)"
             % (name, args, budget, len(t.encode()), len(sc.encode()), limit))
    if want_cut:
        if "V* [cut" not in t and "V* [truncated" not in t and '"truncated":true' not in t:
            fail("%s: the text does not say it was cut: %s" % (name, t[-200:]))
        if r["structuredContent"].get("truncated") is not True:
            fail("%s: structuredContent lacks truncated: true" % name)
    return r

check("read_file", {"path": "src/blob.py", "mode": "full"}, 200)
check("read_file", {"path": "src/blob.py", "mode": "full"}, 2000)
check("read_file", {"path": "src/lib.c", "mode": "full"}, 300)
check("expand_at", {"path": "src/lib.c", "selector": "huge_body"}, 300)
check("goto_definition", {"symbol": "dup"}, 150)
check("code_research", {"query": "what calls target", "depth": 3}, 200)
for name, args, key in [("find_references", {"symbol": "target", "limit": 1000}, "references"),
                        ("search_code", {"query": "caller target", "limit": 100}, "results"),
                        ("search_code", {"query": "caller target", "limit": 100, "format": "json"}, "results"),
                        ("search_docs", {"query": "install", "limit": 100}, "results")]:
    r = check(name, args, 200)
    sc = r["structuredContent"]
    shown = len(sc[key])
    if not (1 <= shown < sc["total"]) or sc.get("next_offset") != shown:
        fail("%s: a cut page should say total and next_offset: %d shown, %r"
             % (name, shown, {k: v for k, v in sc.items() if k != key}))
    if "offset %d" % shown not in text(r) and '"next_offset":%d' % shown not in text(r):
        fail("%s: the text should name the next offset %d: %s" % (name, shown, text(r)[-200:]))
    full = s.call(name, dict(args, max_tokens=200000))["structuredContent"][key]
    page2 = s.call(name, dict(args, offset=shown, limit=3))["structuredContent"][key]
    strip = lambda xs: [{k: v for k, v in x.items() if k != "relevance_percent"} for x in xs]
    if strip(page2) != strip(full[shown:shown + 3]):
        fail("%s: offset %d does not continue the cut answer" % (name, shown))
if s.call("find_references", {"symbol": "target", "limit": 1000})["structuredContent"]["total"] != 240:
    fail("find_references total should count all 240 calls")
# A bound of one side is said as such (it read "from 100 to inf").
r = s.call("find_references", {"symbol": "target", "max_tokens": 5})
if not r.get("isError") or "must be at least 100" not in text(r):
    fail("max_tokens 5: want 'must be at least 100', got %s" % text(r)[:200])
s.close()
print("ok")
PY
