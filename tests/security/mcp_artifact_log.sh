#!/bin/sh
# The artifact tools log every call in the side store on disk; a refused
# call's path, symbol or task may be a 16 MiB string, so the log keeps at
# most 512 bytes of each.  Before: each call with a 4 MiB path grew the
# side store by 4 MiB, and any MCP client of serve --artifacts could fill
# the disk with calls that all failed.
. "$(dirname "$0")/../cli/lib.sh"
mcp_py <<'PY'
import json, os, sys
from mcptest import Stdio, fail, build

repo = sys.argv[1]
build(repo)
side = repo + "/.mcpidx/side/data.mdb"
s = Stdio([repo, "--artifacts"])
s.init()
r = s.call("store_llm_result", {"path": "src/auth.c", "task": "summarize", "result": "x"})
if r.get("isError"):
    fail("a plain store: %s" % json.dumps(r)[:300])
before = os.path.getsize(side)
big = "x" * (4 << 20)
for name, args in [("store_llm_result", {"path": "src/" + big + ".c", "task": "summarize", "result": "x"}),
                   ("generate_prompt", {"path": "src/auth.c", "task": "summarize", "symbol": big}),
                   ("delete_artifact", {"path": "src/auth.c", "task": big}),
                   ("delete_artifact", {"path": big})]:
    for i in range(2):
        r = s.call(name, args)
        if not r.get("isError") and r.get("structuredContent", {}).get("status") != "error":
            fail("%s with a 4 MiB argument should be refused: %s" % (name, json.dumps(r)[:300]))
grown = os.path.getsize(side) - before
if grown > (1 << 20):
    fail("eight refused calls grew the side store by %d bytes" % grown)
s.close()
print("ok")
PY
