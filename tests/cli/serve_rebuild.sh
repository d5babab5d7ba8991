#!/bin/sh
# 1,000 MCP requests (goto_definition and read_file over stdio) against one
# `mcpidx serve` while the index is rebuilt 5 times with edits in between
# (incremental and --force): every answer must be complete and come from one
# snapshot, the version committed when it was asked or the one being built.
set -u
: "${MCPIDX:=./mcpidx}"
case $MCPIDX in /*) ;; *) MCPIDX=$(pwd)/$MCPIDX ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/drive.py" <<'PY'
import json, os, re, subprocess, sys, threading, time
mcpidx, tmp = sys.argv[1], sys.argv[2]
repo = tmp + "/repo"
os.makedirs(repo + "/src")
os.makedirs(repo + "/fill")

def fail(msg):
    print("serve_rebuild: " + msg)
    sys.exit(1)

def write_version(k):
    # Version k: k comment lines push the functions down; every name and
    # signature carries k, so an answer mixing snapshots shows.
    with open(repo + "/src/core.c", "w") as f:
        f.write("/* core, version %d */\n" % k)
        f.write("/* pad */\n" * k)
        f.write("int target_fn(int a, int v%d) { return a + %d; }\n" % (k, k))
        f.write("int other_v%d(void) { return target_fn(1, 2); }\n" % k)

# Filler so that a build takes long enough to overlap requests.
for i in range(200):
    with open(repo + "/fill/f%03d.c" % i, "w") as f:
        for j in range(20):
            f.write("int fill_%d_%d(int x) { return x * %d + %d; }\n" % (i, j, i, j))
write_version(0)

def build(force):
    args = [mcpidx, "build", "--quiet", repo] + (["--force"] if force else [])
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        fail("build failed: " + r.stderr)
t = time.time()
build(False)
full = time.time() - t
# Spread the requests over the five rebuilds (each at most a full build).
pause = full / 4
gap = (5 * (full + pause)) / 800

srv = subprocess.Popen([mcpidx, "serve", repo], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       stderr=open(tmp + "/serve.log", "w"), text=True, bufsize=1)
def call(rid, method, params):
    srv.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}) + "\n")
    srv.stdin.flush()
    while True:
        line = srv.stdout.readline()
        if not line:
            fail("the server closed stdout at request %d; log: %s" % (rid, open(tmp + "/serve.log").read()[-500:]))
        msg = json.loads(line)
        if msg.get("id") == rid:
            return msg
        if "id" in msg and "method" not in msg:
            fail("answer to an unknown id: %r" % line[:200])

init = call(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "serve_rebuild", "version": "1"}})
if "result" not in init:
    fail("initialize: %r" % init)
srv.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
srv.stdin.flush()

committed = 0          # last version whose build returned
started = 0            # last version whose edit began
def rebuilds():
    global committed, started
    for k in range(1, 6):
        started = k
        write_version(k)
        build(force=(k % 2 == 0))
        committed = k
        time.sleep(pause)

sig = re.compile(r"int target_fn\(int a, int v(\d+)\)")
def check_def(res, allowed, i):
    if res.get("isError"):
        fail("request %d: goto_definition error: %r" % (i, res))
    defs = res["structuredContent"]["definitions"]
    if len(defs) != 1:
        fail("request %d: %d definitions: %r" % (i, len(defs), defs))
    d = defs[0]
    m = sig.search(d.get("signature", ""))
    if not m:
        fail("request %d: signature %r" % (i, d.get("signature")))
    v = int(m.group(1))
    if v not in allowed:
        fail("request %d: version %d, expected one of %r" % (i, v, allowed))
    if d["path"] != "src/core.c" or d["line"] != 2 + v or d["end_line"] != 2 + v:
        fail("request %d: version %d at %s:%s-%s, expected line %d" % (i, v, d["path"], d["line"], d["end_line"], 2 + v))
    if "v%d" % v not in d.get("text", "") or "target_fn" not in res["content"][0]["text"]:
        fail("request %d: text does not match version %d: %r" % (i, v, d.get("text")))
    return v

def check_read(res, allowed, i):
    if res.get("isError"):
        fail("request %d: read_file error: %r" % (i, res))
    text = res["structuredContent"]["text"]
    vs = set(int(x) for x in re.findall(r"v(\d+)", text))
    if len(vs) != 1:
        fail("request %d: read_file mixes versions %r: %r" % (i, vs, text))
    v = vs.pop()
    if v not in allowed:
        fail("request %d: read_file version %d, expected one of %r" % (i, v, allowed))
    if ("int target_fn(int a, int v%d)" % v) not in text or ("other_v%d" % v) not in text:
        fail("request %d: incomplete outline: %r" % (i, text))
    if res["structuredContent"].get("line_count") != 3 + v:
        fail("request %d: line_count %r for version %d" % (i, res["structuredContent"].get("line_count"), v))
    return v

seen = set()
last = 0
t0 = time.time()
N = 1000
thread = threading.Thread(target=rebuilds)
for i in range(1, N + 1):
    if i == 50:
        thread.start()
    lo = committed
    if i % 2:
        msg = call(i, "tools/call", {"name": "goto_definition", "arguments": {"symbol": "target_fn"}})
        check = check_def
    else:
        msg = call(i, "tools/call", {"name": "read_file", "arguments": {"path": "src/core.c", "mode": "outline"}})
        check = check_read
    # The answer comes from a version committed while the request was out.
    allowed = set(range(lo, started + 1))
    if "result" not in msg:
        fail("request %d: %r" % (i, msg))
    v = check(msg["result"], allowed, i)
    if v < last:
        fail("request %d: went back from version %d to %d" % (i, last, v))
    last = v
    seen.add(v)
    time.sleep(gap)
thread.join()
if committed != 5:
    fail("only %d rebuilds finished" % committed)
# After the last rebuild, the server answers from it.
msg = call(N + 1, "tools/call", {"name": "goto_definition", "arguments": {"symbol": "target_fn"}})
if check_def(msg["result"], {5}, N + 1) != 5:
    fail("final answer is not version 5")
srv.stdin.close()
srv.wait(timeout=10)
if len(seen) < 4:
    fail("answers saw only versions %r: the rebuilds did not overlap the requests" % sorted(seen))
print("%d requests in %.2fs, versions seen %s" % (N, time.time() - t0, sorted(seen)))
PY
python3 "$tmp/drive.py" "$MCPIDX" "$tmp"
