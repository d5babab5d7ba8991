"""A lean MCP client: round trips of one call over stdio with nothing but
os.write and os.read (no SDK, no event loop), to tell the server's and the
pipe's share of a round trip from a client's.

    python3 bench/mcp/lean.py MCPIDX INDEX N [TOOL JSON-ARGS]

Starts `MCPIDX serve INDEX --log FILE`, sends N pings (or N calls of TOOL),
prints p50 / p99 / max of the round trip and, for a tool, of the server's
own time from its log.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def main():
    if len(sys.argv) not in (4, 6):
        sys.exit(__doc__)
    binary, index, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    tool = sys.argv[4] if len(sys.argv) == 6 else None
    args = json.loads(sys.argv[5]) if tool else None
    log = tempfile.NamedTemporaryFile(suffix=".log", delete=False).name
    p = subprocess.Popen([binary, "serve", index, "--log", log], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    fi, fo = p.stdin.fileno(), p.stdout.fileno()

    def rpc(i, method, params):
        os.write(fi, (json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                  "params": params}) + "\n").encode())
        buf = b""
        while not buf.endswith(b"\n"):
            got = os.read(fo, 1 << 20)
            if not got:
                sys.exit("the server closed its output")
            buf += got
        return buf

    rpc(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "lean", "version": "1"}})
    os.write(fi, b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    ts = []
    for i in range(n):
        t = time.perf_counter()
        if tool:
            rpc(i + 1, "tools/call", {"name": tool, "arguments": args})
        else:
            rpc(i + 1, "ping", {})
        ts.append((time.perf_counter() - t) * 1e3)
    p.stdin.close()
    p.wait()

    def pct(v):
        v = sorted(v)
        return "p50 %.3f p99 %.3f max %.3f ms" % (v[len(v) // 2], v[int(len(v) * 0.99)], v[-1])

    print("%s x%d round trip: %s" % (tool or "ping", n, pct(ts)))
    if tool:
        with open(log) as f:
            ms = [float(m) for m in re.findall(r" tool=%s ms=([0-9.]+)" % re.escape(tool), f.read())]
        if ms:
            print("%s x%d in server:  %s" % (tool, len(ms), pct(ms)))
    os.unlink(log)


main()
