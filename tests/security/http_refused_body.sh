#!/bin/sh
# A request refused for its Host, Origin or missing token is refused from
# its headers, before its body is read: twenty connections each sending 15
# MiB with a bad Host or no token get 403 or 401 and leave the server's
# memory where it was.  Before: each body was kept (up to 16 MiB) until it
# ended, so a thousand connections from anyone who could reach the port
# held 16 GB without ever passing a check.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
[ -r /proc/self/status ] || { echo "skipped: no /proc to read the server's memory from"; exit 0; }
cp -r "$here/../../testdata/mcp" "$T/repo"
echo "a-token-of-thirty-two-characters" > "$T/token"
cd "$T" && PYTHONPATH="$here" python3 - "$T/repo" "$T/token" <<'PY'
import socket, sys, time
from mcptest import Http, fail, build

repo, token = sys.argv[1], sys.argv[2]
build(repo)
h = Http([repo, "--token-file", token])

def rss_mb():
    for line in open("/proc/%d/status" % h.p.pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    fail("no VmRSS for the server")

try:
    before = rss_mb()
    socks = []
    for i in range(20):
        host = b"evil.com" if i % 2 else b"127.0.0.1"
        s = socket.create_connection(("127.0.0.1", h.port), timeout=10)
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: " + host + b"\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % ((15 << 20) + 1))
        try:
            for k in range(15):
                s.sendall(b"a" * (1 << 20))
        except OSError:
            pass   # the server may close a refused request's connection
        socks.append((s, 403 if i % 2 else 401))
    time.sleep(1)
    grown = rss_mb() - before
    if grown > 100:
        fail("20 refused requests of 15 MiB grew the server by %d MB" % grown)
    for s, want in socks:
        try:
            top = s.recv(200).split(b"\r\n")[0].decode()
        except OSError as e:
            fail("no answer to a refused request: %s" % e)
        if " %d " % want not in top + " ":
            fail("want %d, got %r" % (want, top))
        s.close()
finally:
    h.stop()
print("ok")
PY
