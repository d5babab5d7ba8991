#!/bin/sh
# A request before initialize is refused as such: under every protocol
# version that initializes (2024-11-05 to 2025-11-25) tools/call,
# tools/list, resources/list and prompts/list answer -32600 "not
# initialized" naming initialize (never -32601, which would say the method
# does not exist), on stdio and over HTTP; an unknown method stays -32601;
# after initialize the same call is answered.  A 2026-07-28 request, which
# has no initialize, is answered when its _meta names its version and
# capabilities.  A NUL in a string gets -32700 saying so.
. "$(dirname "$0")/../cli/lib.sh"
mcp_py <<'PY'
import json, sys
from mcptest import Stdio, Http, fail, build

repo = sys.argv[1]
build(repo)
CALL = {"name": "goto_definition", "arguments": {"symbol": "login"}}
EARLY = [("tools/call", CALL), ("tools/list", {}), ("resources/list", {}), ("prompts/list", {})]

def not_initialized(r, what):
    e = r.get("error")
    if "result" in r or not e or e.get("code") != -32600 or "initialize" not in e.get("message", ""):
        fail("%s before initialize: want -32600 naming initialize, got %s" % (what, json.dumps(r)[:300]))

for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]:
    s = Stdio([repo])
    for method, params in EARLY:
        not_initialized(s.request(method, params), "%s (%s)" % (method, version))
    r = s.request("no/such_method", {})
    if r.get("error", {}).get("code") != -32601:
        fail("an unknown method should stay -32601: %s" % json.dumps(r)[:200])
    s.init(version)
    r = s.request("tools/call", CALL)
    if "result" not in r or r["result"].get("isError"):
        fail("tools/call after initialize (%s): %s" % (version, json.dumps(r)[:300]))
    s.close()

# A NUL inside a string is a parse error that says what is wrong, answered
# with id null; the session goes on.
s = Stdio([repo])
s.init()
s.p.stdin.write(b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read_file",'
                b'"arguments":{"path":"src/a\\u0000b.c"}}}\n')
s.p.stdin.flush()
r = s.read(None)
msg = r.get("error", {}).get("message", "")
if r.get("error", {}).get("code") != -32700 or "(NUL)" not in msg or "JSON_" in msg:
    fail("a NUL in a string: want -32700 saying NUL in our words, got %s" % json.dumps(r)[:300])
if "result" not in s.request("ping"):
    fail("the session ended after a parse error")
s.close()

# 2026-07-28 has no initialize: each request carries its version.
s = Stdio([repo])
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
r = s.request("tools/call", dict(CALL, _meta=meta))
if "result" not in r or r["result"].get("isError"):
    fail("a 2026-07-28 tools/call with its _meta: %s" % json.dumps(r)[:300])
s.close()

# Over HTTP: a POST without a session is refused the same way.
h = Http([repo])
try:
    for method, params in EARLY:
        st, body, hd = h.post({"jsonrpc": "2.0", "id": 7, "method": method, "params": params},
                              {"MCP-Protocol-Version": "2025-06-18"})
        if "mcp-session-id" in hd:
            fail("HTTP %s before initialize made a session" % method)
        try:
            r = json.loads(body)
        except ValueError:
            fail("HTTP %s before initialize: %d %s" % (method, st, body[:200]))
        not_initialized(r, "HTTP " + method)
finally:
    h.stop()
print("ok")
PY
