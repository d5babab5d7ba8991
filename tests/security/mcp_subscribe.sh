#!/bin/sh
# resources/subscribe keeps each URI for the session's life, so it takes
# URIs of bounded length and number: one of 1 MiB gets -32602 saying so,
# and past 1024 subscriptions a session is told to unsubscribe first
# (before: every distinct URI was kept, and a client could grow the server
# without end).
. "$(dirname "$0")/../cli/lib.sh"
mcp_py <<'PY'
import json, sys
from mcptest import Stdio, fail, build, served

repo, s = served("2025-06-18")

def sub(uri, method="resources/subscribe"):
    return s.request(method, {"uri": uri})

r = sub("mcpidx://file/src/auth.c")
if "result" not in r:
    fail("a file's URI: %s" % json.dumps(r)[:300])
for uri in ["x" * (1 << 20), "mcpidx://file/" + "a" * 10000]:
    r = sub(uri)
    e = r.get("error", {})
    if e.get("code") != -32602 or "at most 8192" not in e.get("message", ""):
        fail("subscribe %r...: want -32602, got %s" % (uri[:40], json.dumps(r)[:300]))
if "result" not in sub("test://watched-resource"):
    fail("a URI of the client's own is refused")
for i in range(1022):
    r = sub("mcpidx://outline/src/f%d.c" % i)
    if "result" not in r:
        fail("subscription %d of 1024 refused: %s" % (i + 2, json.dumps(r)[:300]))
r = sub("mcpidx://outline/src/one-too-many.c")
if r.get("error", {}).get("code") != -32602 or "unsubscribe" not in r["error"]["message"]:
    fail("subscription 1025: want -32602 asking to unsubscribe, got %s" % json.dumps(r)[:300])
if "result" not in sub("mcpidx://file/src/auth.c"):
    fail("subscribing again to a URI already held")
if "result" not in sub("mcpidx://outline/src/f0.c", "resources/unsubscribe"):
    fail("unsubscribe")
if "result" not in sub("mcpidx://outline/src/one-too-many.c"):
    fail("a subscription after an unsubscribe")
s.close()
print("ok")
PY
