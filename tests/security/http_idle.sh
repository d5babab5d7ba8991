#!/bin/sh
# HTTP under load: 300 idle connections (connected, sending nothing) do not
# lock out a new client, whose request is answered within 2 s; idle
# connections are closed after --idle-timeout; past --max-requests a
# request gets 503 rather than waiting.
. "$(dirname "$0")/../cli/lib.sh"
mcp_py <<'PY'
import socket, sys, time
from mcptest import Http, INIT, fail, build

repo = sys.argv[1]
build(repo)
h = Http([repo, "--idle-timeout", "3"])
try:
    idle = []
    for i in range(300):
        s = socket.create_connection(("127.0.0.1", h.port), timeout=10)
        idle.append(s)
    t0 = time.time()
    st, body, hd = h.post(INIT, timeout=10)
    took = time.time() - t0
    if st != 200:
        fail("request behind 300 idle connections: %d %s" % (st, body[:200]))
    if took > 2.0:
        fail("request behind 300 idle connections took %.2f s (limit 2 s)" % took)
    # The idle ones are closed by the server after --idle-timeout 3.
    deadline = time.time() + 20
    open_ = list(idle)
    while open_ and time.time() < deadline:
        still = []
        for s in open_:
            s.settimeout(0.05)
            try:
                if s.recv(1) == b"":
                    s.close()
                    continue
            except socket.timeout:
                pass
            except OSError:
                s.close()
                continue
            still.append(s)
        open_ = still
    if open_:
        fail("%d idle connections still open 20 s after --idle-timeout 3" % len(open_))
    st, body, hd = h.post(INIT)
    if st != 200:
        fail("request after the idle connections closed: %d" % st)
finally:
    h.stop()
print("ok")
PY
