#!/bin/sh
# Tasks under abuse.  A task id carries 128 random bits (it was a hash of
# the clock and a counter: another client on the machine could compute it
# and read or cancel a stateless request's task).  A finished task's
# thread is gone at once (each used to keep its 8 MiB stack until the
# task's ttl, up to a day: 400 failing tasks grew the server by 4 GB).
# At most 32 tasks run at once; the next is refused with a message.  A
# tasks/result waiting on a task whose ttl ends meanwhile gets the result
# (the task used to be freed under it: a use after free, or a wait that
# never ended).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
cp -r "$here/../../testdata/mcp" "$T/repo"
# 33 targets: one compile of a target runs at a time (compile_one_per_target.sh)
for i in $(seq 0 32); do
	printf '[compile.nap%d]\nargv = ["sleep", "3"]\n' "$i"
done > "$T/repo/.mcpidx.toml"
cd "$T" && PYTHONPATH="$here" python3 - "$T/repo" <<'PY'
import json, re, sys, threading, time
from mcptest import Stdio, Http, fail, build, text

repo = sys.argv[1]
build(repo)

def vmsize(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0

s = Stdio([repo])
s.init("2025-11-25")
ids = []
before = vmsize(s.p.pid)
for i in range(400):
    for attempt in range(50):
        r = s.request("tools/call", {"name": "index_codebase",
                                     "arguments": {"path": "/nonexistent-dir-x"},
                                     "task": {"ttl": 86400000}})
        if "result" in r:
            break
        time.sleep(0.05)   # 32 still starting: wait for some to end
    else:
        fail("task %d: %s" % (i, json.dumps(r)[:300]))
    ids.append(r["result"]["task"]["taskId"])
time.sleep(1)
grown = vmsize(s.p.pid) - before
if grown > 1536 << 20:
    fail("400 finished tasks grew the server's address space by %d MiB" % (grown >> 20))
for tid in ids[:2]:
    if not re.fullmatch(r"build-\d+-[0-9a-f]{32}", tid):
        fail("task id %r: want kind-seq-32 hex digits" % tid)
if ids[0].rsplit("-", 1)[1][:8] == ids[1].rsplit("-", 1)[1][:8]:
    fail("two task ids share their random part: %s %s" % (ids[0], ids[1]))

# 32 compiles of 3 s run at once; the 33rd is refused with a reason.
running = []
for i in range(32):
    res = s.call("run_compile", {"target": "nap%d" % i})
    if res.get("isError"):
        fail("compile %d of 32 refused: %s" % (i + 1, text(res)[:300]))
    running.append(res)
res = s.call("run_compile", {"target": "nap32"})
if not res.get("isError") or "tasks are running" not in text(res):
    fail("compile 33 of 32: want a refusal, got %s" % json.dumps(res)[:300])
s.close()

# tasks/result on a task whose ttl (1 ms) ends while it waits, with other
# requests purging expired tasks meanwhile.
h = Http([repo])
try:
    st, body, hd = h.post({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                      "clientInfo": {"name": "t", "version": "1"}}})
    sid = hd.get("mcp-session-id")
    if st != 200 or not sid:
        fail("initialize over HTTP: %d %s" % (st, body[:200]))
    H = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
    h.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, H)
    for round_ in range(8):
        st, body, _ = h.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                              "params": {"name": "index_codebase", "arguments": {"force": True},
                                         "task": {"ttl": 1}}}, H)
        tid = json.loads(body)["result"]["task"]["taskId"]
        stop = []
        got = {}

        def wait():
            try:
                got["r"] = h.post({"jsonrpc": "2.0", "id": 3, "method": "tasks/result",
                                   "params": {"taskId": tid}}, H, timeout=30)
            except Exception as e:
                got["r"] = e

        def flood():
            while not stop:
                h.post({"jsonrpc": "2.0", "id": 4, "method": "tasks/get",
                        "params": {"taskId": "x"}}, H)

        w = threading.Thread(target=wait)
        fl = [threading.Thread(target=flood) for _ in range(4)]
        w.start()
        for f in fl:
            f.start()
        w.join()
        stop.append(1)
        for f in fl:
            f.join()
        r = got.get("r")
        if not isinstance(r, tuple) or r[0] != 200 or '"result"' not in r[1]:
            fail("round %d: tasks/result of a task whose ttl ended: %r" % (round_, r))
finally:
    h.stop()
print("ok")
PY
