#!/bin/sh
# JSON-RPC never answers a notification or a response, even a malformed
# one: a notification with array params used to get an error with id null,
# and a malformed response ({"id": 12, "error": 5}) an error carrying id 12,
# which a client could take for the answer to its own request 12.  Over
# HTTP a header value in base64 that decodes to a NUL is malformed
# ("index_status\0anything" used to pass for Mcp-Name: index_status).
. "$(dirname "$0")/../cli/lib.sh"
mcp_py <<'PY'
import base64, json, sys
from mcptest import Stdio, Http, fail, build, served

repo, s = served("2025-11-25")
s.send({"jsonrpc": "2.0", "method": "notifications/initialized", "params": [1]})
s.send({"jsonrpc": "2.0", "id": 12, "error": 5})
s.send({"jsonrpc": "2.0", "id": 13, "result": 1, "error": "x"})
r = s.request("ping", {})
if "result" not in r:
    fail("ping after the malformed messages: %s" % json.dumps(r)[:300])
if s.pending or any("error" in n or "id" in n for n in s.notes):
    fail("a notification or response was answered: %s %s"
         % (json.dumps(s.pending)[:300], json.dumps(s.notes)[:300]))
s.close()

h = Http([repo])
try:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "index_status", "arguments": {}, "_meta": meta}}
    def call(name_header):
        return h.post(body, {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
                             "Mcp-Name": name_header})
    st, out, _ = call("index_status")
    if st != 200 or '"result"' not in out:
        fail("the plain header: %d %s" % (st, out[:300]))
    enc = lambda b: "=?base64?" + base64.b64encode(b).decode() + "?="
    st, out, _ = call(enc(b"index_status"))
    if st != 200 or '"result"' not in out:
        fail("the header in base64: %d %s" % (st, out[:300]))
    st, out, _ = call(enc(b"index_status\0anything"))
    if st != 400 or '"error"' not in out:
        fail("a base64 header with a NUL: want 400, got %d %s" % (st, out[:300]))
    st, out, _ = h.post({"jsonrpc": "2.0", "method": "notifications/initialized", "params": [1]},
                        {"MCP-Protocol-Version": "2025-06-18"})
    if st != 202 or out:
        fail("a notification with array params over HTTP: want 202 and no body, got %d %r"
             % (st, out[:200]))
finally:
    h.stop()
print("ok")
PY
