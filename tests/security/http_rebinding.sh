#!/bin/sh
# DNS rebinding: over HTTP only exact loopback names (localhost, a dotted
# quad in 127.0.0.0/8, [::1], each with an optional port) and names given
# with --allow-host pass the Host and Origin checks, on every method; every
# look-alike gets 403 and no session, and a request carrying two Host or two
# Origin headers, or HTTP/1.1 without Host, gets 400.
. "$(dirname "$0")/../cli/lib.sh"
mcp_py <<'PY'
import json, socket, sys
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

def raw(port, head, body=b""):
    """Sends head (CRLF lines, as given) and body; the status and whether a
    session was made."""
    c = socket.create_connection(("127.0.0.1", port), timeout=10)
    c.sendall(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
    out = b""
    while True:
        d = c.recv(65536)
        if not d:
            break
        out += d
    c.close()
    top = out.split(b"\r\n\r\n", 1)[0].decode("latin-1").lower()
    return int(top.split()[1]), "mcp-session-id:" in top

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
    # Every method is checked, not only POST.
    for m in ["GET", "DELETE", "OPTIONS", "PUT", "HEAD"]:
        st, _ = raw(h.port, "%s /mcp HTTP/1.1\nHost: 127.0.0.1.evil.com\nConnection: close\n" % m)
        if st != 403:
            fail("%s with Host 127.0.0.1.evil.com should get 403, got %d" % (m, st))
    # One value each: a second Host or Origin (one for us, one for a proxy
    # in front) and an HTTP/1.1 request without Host are malformed.
    body = json.dumps(INIT).encode()
    post = ("POST /mcp HTTP/1.1\nContent-Type: application/json\n"
            "Accept: application/json, text/event-stream\nConnection: close\n"
            "Content-Length: %d\n" % len(body))
    for extra, what in [("Host: localhost\nHost: evil.com\n", "Host twice (good first)"),
                        ("Host: evil.com\nHost: localhost\n", "Host twice (bad first)"),
                        ("Host: localhost\nHost: localhost\n", "the same Host twice"),
                        ("Host: localhost\nOrigin: http://localhost\nOrigin: http://evil.com\n",
                         "Origin twice (good first)"),
                        ("", "HTTP/1.1 without Host")]:
        st, sess = raw(h.port, post + extra, body)
        if st != 400 or sess:
            fail("%s: want 400 and no session, got %d%s" % (what, st, " and a session" if sess else ""))
    st, sess = raw(h.port, post.replace("HTTP/1.1", "HTTP/1.0") + "Connection: close\n", body)
    if st != 200 or not sess:
        fail("an HTTP/1.0 request without Host (no browser sends one) should pass: %d" % st)
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
