#!/bin/sh
# Event streams whose client has gone are released: 20 subscriptions/listen
# streams opened and dropped with --max-connections 8 leave the server
# answering, its threads back where they were (each abandoned stream used to
# keep its thread, its connection slot and its session for the server's
# life: 5 such streams locked out every new client).  A listen's resource
# URIs are bounded like resources/subscribe's, and all sessions' and
# listens' URIs together within 16 MiB (8 sessions of 1,024 URIs of 8 KiB
# used to take 64 MiB, 4,096 sessions 32 GiB).
. "$(dirname "$0")/../cli/lib.sh"
mcp_py <<'PY'
import json, socket, sys, time
from mcptest import Http, fail, build

repo = sys.argv[1]
build(repo)

def threads(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("Threads:"):
            return int(line.split()[1])

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}
HD = {"MCP-Protocol-Version": "2026-07-28"}

def listen(port, uris=None):
    n = {"toolsListChanged": True}
    if uris is not None:
        n["resourceSubscriptions"] = uris
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
                       "params": {"notifications": n, "_meta": META}}).encode()
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    head = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            "Mcp-Method: subscriptions/listen\r\nContent-Length: %d\r\n\r\n" % (port, len(body)))
    s.sendall(head.encode() + body)
    got = b""
    while b"acknowledged" not in got and b"error" not in got:
        c = s.recv(4096)
        if not c:
            break
        got += c
    return s, got.decode("utf-8", "replace")

h = Http([repo, "--max-connections", "8", "--idle-timeout", "2"])
try:
    time.sleep(0.5)
    t0 = threads(h.p.pid)
    for i in range(20):
        s, got = listen(h.port)
        if "acknowledged" not in got:
            fail("listen %d: %r" % (i, got[:300]))
        s.close()
        time.sleep(0.05)
        if i % 4 == 3:
            time.sleep(2.5)   # past two pings: the dropped streams are noticed
    time.sleep(3)
    st, body, _ = h.post({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                          "params": {"_meta": META}}, dict(HD, **{"Mcp-Method": "server/discover"}))
    if st != 200:
        fail("a request after 20 dropped streams: %d %s" % (st, body[:200]))
    t1 = threads(h.p.pid)
    if t1 > t0 + 2:
        fail("threads %d -> %d after 20 dropped streams" % (t0, t1))
    # A listen's URIs: one too long, or too many, is refused with a reason.
    s, got = listen(h.port, ["mcpidx://file/" + "a" * 9000])
    s.close()
    if "-32602" not in got or "too long" not in got:
        fail("a listen with a 9000-byte URI: %r" % got[:300])
    s, got = listen(h.port, ["mcpidx://file/f%d" % i for i in range(1025)])
    s.close()
    if "-32602" not in got or "too many" not in got:
        fail("a listen with 1,025 URIs: %r" % got[:300])
finally:
    h.stop()

# The server-wide budget: sessions subscribing 8 KiB URIs are refused past
# 16 MiB in all, with a message; an unsubscribe makes room again.
h = Http([repo])
try:
    def post(body, sid=None):
        hd = {"MCP-Protocol-Version": "2025-06-18"}
        if sid:
            hd["Mcp-Session-Id"] = sid
        return h.post(body, hd)
    uri = lambda k, i: "mcpidx://file/s%d-%d-" % (k, i) + "a" * 8000
    refused = None
    for k in range(3):
        st, body, hd = post({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "t", "version": "1"}}})
        sid = hd.get("mcp-session-id")
        post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
        for i in range(1024):
            st, body, _ = post({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
                                "params": {"uri": uri(k, i)}}, sid)
            if "error" in body:
                refused = (k, i, body, sid)
                break
        if refused:
            break
    if not refused:
        fail("3 sessions of 1,024 URIs of 8 KiB (24 MiB) were all kept")
    k, i, body, sid = refused
    if "unsubscribe" not in body or k * 1024 + i < 2000:
        fail("refused at session %d, URI %d: %s" % (k, i, body[:300]))
    st, body, _ = post({"jsonrpc": "2.0", "id": 3, "method": "resources/unsubscribe",
                        "params": {"uri": uri(k, i - 1)}}, sid)
    st, body, _ = post({"jsonrpc": "2.0", "id": 4, "method": "resources/subscribe",
                        "params": {"uri": uri(k, i)}}, sid)
    if "error" in body:
        fail("a subscription after an unsubscribe made room: %s" % body[:300])
finally:
    h.stop()
print("ok")
PY
