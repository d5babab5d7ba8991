#!/bin/sh
# Paging by next_offset always ends and sees every item once: at the
# smallest max_tokens, with items each near the budget on their own, every
# cut page of find_references, search_code (each format) and search_docs
# holds at least one item, its text names the same next offset as its
# structuredContent, and following next_offset from 0 visits exactly the
# items of the unbudgeted answer, in order.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
mkdir -p "$T/repo/src" "$T/repo/docs"
cd "$T" && PYTHONPATH="$here" python3 - "$T/repo" <<'PY'
import json, re, sys
from mcptest import Stdio, fail, text, build

repo = sys.argv[1]
long_doc = " ".join("word%d \u00e9\u2028\"\\" % i for i in range(60))
with open(repo + "/src/lib.c", "w") as f:
    f.write("int target(int x) { return x; }\n")
    for i in range(30):
        f.write("/* helper %d: %s */\nint helper_%d_%s(int x)\n{\n\treturn target(x) + target(x + %d);\n}\n"
                % (i, long_doc, i, "long_name_part_" * 6, i))
for i in range(25):
    with open(repo + "/docs/guide%02d.md" % i, "w") as f:
        f.write("# Helper guide %d %s\n\n%s\n" % (i, "helper " * 30, ("helper target " + long_doc + " ") * 3))
build(repo)

s = Stdio([repo])
s.init()
BUDGET = 100
ident = {"references": lambda x: (x["path"], x["line"], x.get("column")),
         "results": lambda x: (x["path"], x["start_line"], x["end_line"])}
for name, args, key in [("find_references", {"symbol": "target", "limit": 1000}, "references"),
                        ("search_code", {"query": "helper target", "limit": 100}, "results"),
                        ("search_code", {"query": "helper target", "limit": 100, "format": "json"}, "results"),
                        ("search_code", {"query": "helper target", "limit": 100, "format": "toon"}, "results"),
                        ("search_docs", {"query": "helper guide", "limit": 100}, "results")]:
    what = "%s %s" % (name, json.dumps(args))
    full = s.call(name, dict(args, max_tokens=200000))["structuredContent"]
    want = [ident[key](x) for x in full[key]]
    if len(want) < 20 or full.get("truncated"):
        fail("%s: the unbudgeted answer should hold 20+ items whole: %d" % (what, len(want)))
    got, off, pages = [], 0, 0
    while True:
        pages += 1
        if pages > len(want) + 1:
            fail("%s: paging did not end after %d pages" % (what, pages))
        r = s.call(name, dict(args, max_tokens=BUDGET, offset=off))
        if r.get("isError"):
            fail("%s offset %d: %s" % (what, off, text(r)[:300]))
        sc, t = r["structuredContent"], text(r)
        for form, n in (("text", len(t.encode())), ("structuredContent",
                        len(json.dumps(sc, separators=(",", ":")).encode()))):
            if n > 6 * BUDGET + 200:
                fail("%s offset %d: %s is %d bytes over max_tokens %d" % (what, off, form, n, BUDGET))
        items = sc[key]
        if not sc.get("truncated"):
            got += [ident[key](x) for x in items]
            break
        if not items:
            fail("%s offset %d: a cut page with no items (next_offset %r) never ends"
                 % (what, off, sc.get("next_offset")))
        if sc.get("next_offset") != off + len(items) or sc.get("total") != len(want):
            fail("%s offset %d: %d items shown, next_offset %r, total %r (want %d, %d)"
                 % (what, off, len(items), sc.get("next_offset"), sc.get("total"),
                    off + len(items), len(want)))
        named = re.findall(r'offset (\d+)(?:, or raise)|"next_offset":(\d+)', t)
        if not named or int("".join(named[-1])) != sc["next_offset"]:
            fail("%s offset %d: the text names next offset %r, structuredContent %d: %s"
                 % (what, off, named, sc["next_offset"], t[-200:]))
        got += [ident[key](x) for x in items]
        off = sc["next_offset"]
    if got != want:
        fail("%s: paging by next_offset saw %d items, want the %d of the full answer in order"
             % (what, len(got), len(want)))
    # A page past the end says so.
    past = s.call(name, dict(args, offset=len(want) + 5))
    if past["structuredContent"][key] or \
       "offset %d is past the end: %d %s in all" % (len(want) + 5, len(want), key) not in text(past):
        fail("%s: a page past the end should say so: %s" % (what, text(past)[-200:]))
s.close()
print("ok")
PY
