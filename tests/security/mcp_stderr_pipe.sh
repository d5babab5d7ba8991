#!/bin/sh
# Logging never blocks serving: a client that pipes stderr and never reads
# it gets every answer (3,000 calls at the default log level, then 8,000 at
# debug, a line per call); a full pipe drops lines and the log says how many once
# it is read again (the server waits at exit for a reader that reads,
# however slowly, but not for one that never does).  Per-call lines go to
# stderr only at debug level.
. "$(dirname "$0")/../cli/lib.sh"
mcp_py <<'PY'
import json, subprocess, sys, threading
from mcptest import Stdio, fail, build

repo = sys.argv[1]
build(repo)
N = 3000
# At debug level 8,000 lines of about 125 bytes (1 MB) are three times what
# the log's queue (256 KiB), a batch being written (64 KiB) and the pipe
# (64 KiB) hold together: lines must drop.
for level, n in (([], N), (["--log-level", "debug"], 8000)):
    s = Stdio([repo] + level, stderr=subprocess.PIPE)
    s.init()
    batch = "".join(json.dumps({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
                                "params": {"name": "goto_definition",
                                           "arguments": {"symbol": "login"}}}) + "\n"
                    for i in range(n))
    w = threading.Thread(target=lambda: (s.p.stdin.write(batch.encode()), s.p.stdin.flush()), daemon=True)
    w.start()
    for i in range(n):
        r = s.read(100 + i, timeout=30)
        if "result" not in r:
            fail("call %d: %r" % (i, r))
    w.join()
    s.p.stdin.close()
    err = s.p.stderr.read().decode("utf-8", "replace")
    if s.p.wait(timeout=30) != 0:
        fail("exit status %d" % s.p.returncode)
    calls = err.count("method=tools/call")
    if not level and calls:
        fail("%d per-call lines on stderr at the default level" % calls)
    if level and "log lines dropped" not in err:
        fail("a full stderr pipe should drop lines and say so; stderr ends: %s" % err[-300:])
# stdin closed with stderr full and never read: the server still exits.
s = Stdio([repo, "--log-level", "debug"], stderr=subprocess.PIPE)
s.init()
for i in range(N):
    s.send({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
            "params": {"name": "goto_definition", "arguments": {"symbol": "login"}}})
    if "result" not in s.read(100 + i, timeout=30):
        fail("call %d without a reader of stderr" % i)
s.p.stdin.close()
try:
    s.p.wait(timeout=20)
except subprocess.TimeoutExpired:
    s.p.kill()
    fail("the server did not exit while nobody read its stderr")
print("ok")
PY
