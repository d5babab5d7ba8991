#!/bin/sh
# DNS rebinding: over HTTP only exact loopback names (localhost, a dotted
# quad in 127.0.0.0/8, [::1], each with an optional port) and names given
# with --allow-host pass the Host and Origin checks; every look-alike gets
# 403 and no session.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
cp -r "$here/../../testdata/mcp" "$T/repo"
cd "$T" && PYTHONPATH="$here" python3 - "$T/repo" <<'PY'
import json, sys
from mcptest import Http, INIT, fail, build

repo = sys.argv[1]
build(repo)

good_hosts = ["localhost", "LOCALHOST:8080", "127.0.0.1", "127.0.0.1:{port}",
              "127.1.2.3:1", "[::1]", "[::1]:{port}", "127.255.255.255"]
bad_hosts = ["127.0.0.1.evil.com", "127.evil.com", "[::1].evil.com",
             "127.0.0.1:{port}@evil.com", "localhost.evil.com", "evil.com",
             "evil.com:80", "localhost.", "127.0.0.1:", "127.0.0.1:99999",
             "127.0.0.1:80:80", "127.0.0.1 evil.com", "127.0.0", "128.0.0.1",
             "1270.0.0.1", "127.0.0.1/x", "127.0.0.256", "[::2]", "[::1]x",
             "[::1]:{port}.evil.com", "0x7f.0.0.1", "localhost:{port}@evil.com",
             "user@localhost", ""]
good_origins = ["http://localhost", "http://localhost:3000", "https://127.0.0.1:{port}",
                "http://[::1]:8080"]
bad_origins = ["http://127.0.0.1.evil.com", "http://127.evil.com", "http://[::1].evil.com",
               "http://127.0.0.1:{port}@evil.com", "http://localhost.evil.com",
               "null", "file://", "http://evil.com", "http://localhost/path",
               "ftp://localhost", "http://", "localhost", "http://user@localhost"]

h = Http([repo])
try:
    fmt = lambda v: v.replace("{port}", str(h.port))
    for v in good_hosts:
        st, body, hd = h.post(INIT, {"Host": fmt(v)})
        if st != 200 or "mcp-session-id" not in hd:
            fail("Host %r should pass: %d %s" % (fmt(v), st, body[:200]))
    for v in bad_hosts:
        st, body, hd = h.post(INIT, {"Host": fmt(v)})
        if st != 403 or "mcp-session-id" in hd:
            fail("Host %r should get 403, got %d %s" % (fmt(v), st, body[:200]))
        if json.loads(body)["error"]["code"] != -32600 or "rebinding" not in body:
            fail("Host %r: the 403 body should explain: %s" % (fmt(v), body[:200]))
    for v in good_origins:
        st, body, hd = h.post(INIT, {"Origin": fmt(v)})
        if st != 200:
            fail("Origin %r should pass: %d %s" % (fmt(v), st, body[:200]))
    for v in bad_origins:
        st, body, hd = h.post(INIT, {"Origin": fmt(v)})
        if st != 403:
            fail("Origin %r should get 403, got %d %s" % (fmt(v), st, body[:200]))
finally:
    h.stop()

# --allow-host names pass (with or without a port); look-alikes still fail.
h = Http([repo, "--allow-host", "box.internal", "--allow-host", "Dev.Example"])
try:
    for v in ["box.internal", "box.internal:8080", "dev.example:1"]:
        st, body, hd = h.post(INIT, {"Host": v, "Origin": "http://" + v})
        if st != 200:
            fail("allowed name %r should pass: %d %s" % (v, st, body[:200]))
    for v in ["box.internal.evil.com", "evil.box.internal", "box.internal:1@evil.com"]:
        st, body, hd = h.post(INIT, {"Host": v})
        if st != 403:
            fail("%r should get 403 with --allow-host box.internal, got %d" % (v, st))
finally:
    h.stop()
print("ok")
PY
