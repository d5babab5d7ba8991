#!/bin/sh
# prompts/get checks its arguments as tools/call does: one of another type
# than the string MCP's prompt arguments are is refused as such (it was
# called missing), a missing one is named, a good one answers.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
cp -r "$here/../../testdata/mcp" "$T/repo"
cd "$T" && PYTHONPATH="$here" python3 - "$T/repo" <<'PY'
import json, sys
from mcptest import Stdio, fail, build

repo = sys.argv[1]
build(repo)
s = Stdio([repo])
s.init()
for args, want in [({"path": 5}, "Argument path of prompt outline must be a string"),
                   ({"path": ["src/auth.c"]}, "must be a string"),
                   ({}, "Missing required argument: path")]:
    r = s.request("prompts/get", {"name": "outline", "arguments": args})
    e = r.get("error", {})
    if e.get("code") != -32602 or want not in e.get("message", ""):
        fail("prompts/get outline %s: want -32602 %r, got %s" % (args, want, json.dumps(r)[:300]))
r = s.request("prompts/get", {"name": "outline", "arguments": {"path": "src/auth.c"}})
if "src/auth.c" not in json.dumps(r.get("result", {})):
    fail("prompts/get outline src/auth.c: %s" % json.dumps(r)[:300])
s.close()
print("ok")
PY
