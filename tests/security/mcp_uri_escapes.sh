#!/bin/sh
# A resource URI's %XX escapes take two hex digits or nothing: "%0g" used
# to decode to 'c' (src/auth.%0g served src/auth.c) and a trailing "%4" to
# the byte 0xa3; both are bad URIs now.  "%63" is 'c'.
. "$(dirname "$0")/../cli/lib.sh"
mcp_py <<'PY'
import json, sys
from mcptest import Stdio, fail, build, served

repo, s = served("2025-11-25")
r = s.request("resources/read", {"uri": "mcpidx://file/src/auth.%63"})
if "result" not in r:
    fail("a good escape: %s" % json.dumps(r)[:300])
for uri in ("mcpidx://file/src/auth.%0g", "mcpidx://file/src/auth.c%4", "mcpidx://file/src/auth.%g0"):
    r = s.request("resources/read", {"uri": uri})
    if "result" in r or r.get("error", {}).get("code") != -32602:
        fail("%s: want -32602, got %s" % (uri, json.dumps(r)[:300]))
s.close()
print("ok")
PY
