#!/bin/sh
# search_code and search_docs with offsets near 2^63: an empty page past
# the end, the server alive (the offset was added to the top-k's size,
# which wrapped: a 320-byte heap written as a huge one, then abort).
. "$(dirname "$0")/../cli/lib.sh"
mcp_py <<'PY'
import json, sys
from mcptest import Stdio, fail, build, text, served

repo, s = served("2025-11-25")
for tool in ("search_code", "search_docs"):
    for off in (1 << 60, 9223372036854775790, 9223372036854775807, 8e15, 1000000000):
        r = s.request("tools/call", {"name": tool, "arguments": {"query": "token", "offset": off}})
        res = r.get("result")
        if res is None:
            if r.get("error", {}).get("code") != -32602:
                fail("%s offset %r: %s" % (tool, off, json.dumps(r)[:300]))
            continue
        sc = res.get("structuredContent") or {}
        if res.get("isError") or sc.get("results"):
            fail("%s offset %r: want an empty page, got %s" % (tool, off, json.dumps(res)[:300]))
    r = s.request("ping", {})
    if "result" not in r:
        fail("ping after %s's offsets: %r" % (tool, r))
s.close()
print("ok")
PY
