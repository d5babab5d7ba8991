#!/bin/sh
# prompts/get checks its arguments as tools/call does: one of another type
# than the string MCP's prompt arguments are is refused as such (it was
# called missing), a missing one is named, a good one answers.  Huge
# arguments are quoted cut; a symbol with no definition is -32602.
. "$(dirname "$0")/../cli/lib.sh"
mcp_py <<'PY'
import json, sys
from mcptest import Stdio, fail, build, served

repo, s = served()
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
# Huge arguments are quoted cut, and a symbol with no definition is an
# error, not a prompt (a 1 MB symbol made a 2 MB prompt).
big = "x" * (1 << 20)
for name, args in [("outline", {"path": "/" + big}), ("outline", {"path": big}),
                   ("explain_symbol", {"symbol": big}),
                   ("explain_symbol", {"symbol": "no_such_name_anywhere"})]:
    r = s.request("prompts/get", {"name": name, "arguments": args})
    if "result" in r or r.get("error", {}).get("code") != -32602 or len(json.dumps(r)) > 4096:
        fail("prompts/get %s with %d bytes: want a short -32602, got %d bytes: %s"
             % (name, len(json.dumps(args)), len(json.dumps(r)), json.dumps(r)[:200]))
r = s.request("resources/read", {"uri": "mcpidx://file/" + big})
if len(json.dumps(r)) > 4096:
    fail("resources/read of a 1 MiB URI: the error is %d bytes" % len(json.dumps(r)))
r = s.request("prompts/get", {"name": "explain_symbol", "arguments": {"symbol": "check_hash"}})
if "check_hash" not in json.dumps(r.get("result", {})):
    fail("prompts/get explain_symbol check_hash: %s" % json.dumps(r)[:300])
s.close()
print("ok")
PY
