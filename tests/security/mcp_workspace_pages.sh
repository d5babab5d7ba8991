#!/bin/sh
# Pages across a workspace: each repository ranks the top offset + limit of
# its own, so a page deeper than a search's deepest (200) is refused with
# a reason (it came back empty, with a total of 200, and offset + limit
# could wrap); a page past the end says so alone (it used to carry every
# repository's whole answer in its text).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
cp -r "$here/../../testdata/mcp" "$T/one"
cp -r "$here/../../testdata/search" "$T/two"
cd "$T" && PYTHONPATH="$here" python3 - "$T/one" "$T/two" <<'PY'
import json, sys
from mcptest import Stdio, fail, build, text

build(sys.argv[1])
build(sys.argv[2])
s = Stdio([sys.argv[1], sys.argv[2]])
s.init("2025-11-25")
for args in ({"query": "config", "limit": 5, "offset": 300},
             {"query": "config", "limit": 5, "offset": 9223372036854775807}):
    res = s.call("search_code", args)
    if not res.get("isError") or "at most 200" not in text(res):
        fail("search_code %s: want a refusal naming the depth, got %s" % (args, json.dumps(res)[:300]))
res = s.call("search_code", {"query": "config", "limit": 5, "offset": 190})
t = text(res)
if res.get("isError") or "page past the end" not in t or "[repo" in t:
    fail("a page past the end: %s" % json.dumps(res)[:400])
res = s.call("search_code", {"query": "config", "limit": 5})
if res.get("isError") or not res["structuredContent"]["results"]:
    fail("the first page: %s" % json.dumps(res)[:300])
s.close()
print("ok")
PY
