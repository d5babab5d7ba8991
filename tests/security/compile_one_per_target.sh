#!/bin/sh
# One running compile per target in a server.  80 run_compile calls of one
# target through one `mcpidx serve` used to start 80 builds at once (each
# its processes, all writing the same outputs); now a second run_compile of
# a target still compiling answers at once, naming the running task's id
# for read_task_log, as a plain call and as an MCP task.  Another target
# runs beside it, and the target runs again once its compile has ended.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
cp -r "$here/../../testdata/mcp" "$T/repo"
cat > "$T/repo/.mcpidx.toml" <<'EOF2'
[compile.long]
argv = ["sleep", "3"]

[compile.other]
argv = ["sleep", "1"]
EOF2
cd "$T" && PYTHONPATH="$here" python3 - "$T/repo" <<'PY'
import glob, json, sys, time
from mcptest import Stdio, fail, build, text

repo = sys.argv[1]
build(repo)

def children(pid):
    kids = []
    for f in glob.glob("/proc/%d/task/*/children" % pid):
        try:
            kids += open(f).read().split()
        except OSError:
            pass
    return kids

s = Stdio([repo])
s.init("2025-11-25")
first = s.call("run_compile", {"target": "long"})
if first.get("isError"):
    fail("first compile refused: %s" % text(first)[:300])
tid = first["structuredContent"]["task_id"]
for i in range(20):
    res = s.call("run_compile", {"target": "long"})
    if not res.get("isError"):
        fail("compile %d of a target already compiling started: %s" % (i + 2, text(res)[:300]))
    if tid not in text(res) or "already compiling" not in text(res):
        fail("the refusal does not name the running task %s: %s" % (tid, text(res)[:300]))
n = len(children(s.p.pid))
if n != 1:
    fail("%d processes running for one target, want 1" % n)

# asked as an MCP task: the task's result says the same
r = s.request("tools/call", {"name": "run_compile", "arguments": {"target": "long"},
                             "task": {"ttl": 60000}})
if "result" not in r:
    fail("run_compile as a task: %r" % r)
r = s.request("tasks/result", {"taskId": r["result"]["task"]["taskId"]}, timeout=30)
res = r.get("result", {})
if not res.get("isError") or tid not in text(res):
    fail("run_compile as a task beside a running one: %s" % json.dumps(r)[:300])

# another target runs meanwhile
res = s.call("run_compile", {"target": "other"})
if res.get("isError"):
    fail("another target refused: %s" % text(res)[:300])

# read_task_log follows the first; then the target runs again
log = s.call("read_task_log", {"task_id": tid, "wait_seconds": 20})
if "succeeded" not in text(log):
    fail("read_task_log of the running compile: %s" % text(log)[:300])
for attempt in range(50):
    res = s.call("run_compile", {"target": "long"})
    if not res.get("isError"):
        break
    time.sleep(0.1)
else:
    fail("the target does not run again after its compile ended: %s" % text(res)[:300])
s.close()
print("ok")
PY
