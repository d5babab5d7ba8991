#!/bin/sh
# An index cut while `mcpidx serve` has it mapped: the server keeps running,
# every call says the index is truncated or damaged, and once the index is
# rebuilt (build --force: a new file renamed into place) or the artifact is
# copied again, the next call answers from it.  The same for a packed file.
. tests/cli/lib.sh
case $MCPIDX in /*) ;; *) MCPIDX=$(pwd)/$MCPIDX ;; esac
cat > "$T/drive.py" <<'PY'
import json, os, shutil, subprocess, sys
mcpidx, tmp = sys.argv[1], sys.argv[2]
repo = tmp + "/repo"
os.makedirs(repo + "/src")
with open(repo + "/src/a.c", "w") as f:
    for i in range(300):
        f.write("/* Adds %d. */\nint add_%d(int x) { return x + %d; }\n" % (i, i, i))
subprocess.run([mcpidx, "build", "-q", repo], check=True)
pack = tmp + "/a.pack"
subprocess.run([mcpidx, "pack", repo, "-o", pack], check=True, capture_output=True)
os.chmod(pack, 0o644)
shutil.copy(pack, tmp + "/good.pack")

def fail(msg):
    print("index_serve_cut: " + msg)
    sys.exit(1)

def session(index):
    srv = subprocess.Popen([mcpidx, "serve", index], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=open(tmp + "/serve.log", "w"), text=True, bufsize=1)
    n = [0]
    def call(name, args):
        n[0] += 1
        srv.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n[0], "method": "tools/call" if name else "initialize",
                                    "params": {"name": name, "arguments": args} if name else
                                    {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "cut", "version": "1"}}}) + "\n")
        srv.stdin.flush()
        while True:
            line = srv.stdout.readline()
            if not line:
                srv.wait()
                fail("the server ended (status %r) on call %d; log: %s" %
                     (srv.returncode, n[0], open(tmp + "/serve.log").read()[-400:]))
            m = json.loads(line)
            if m.get("id") == n[0]:
                return m["result"]
    call(None, None)
    return srv, call

def text(r):
    return "".join(c.get("text", "") for c in r["content"])

def expect_ok(r, what):
    if r.get("isError") or "add_7" not in text(r):
        fail("%s: %r" % (what, text(r)[:300]))

def expect_damaged(r, what):
    if not r.get("isError") or "truncated or damaged" not in text(r):
        fail("%s: %r" % (what, text(r)[:300]))

for index, data in ((repo, repo + "/.mcpidx/data.mdb"), (pack, pack)):
    srv, call = session(index)
    expect_ok(call("goto_definition", {"symbol": "add_7"}), "before the cut")
    size = os.path.getsize(data)
    for cut in (size // 2, 3 * 4096, size - 300):
        with open(data, "r+b") as f:
            f.truncate(cut)
        expect_damaged(call("goto_definition", {"symbol": "add_7"}), "cut at %d" % cut)
        expect_damaged(call("read_file", {"path": "src/a.c"}), "read_file, cut at %d" % cut)
        expect_damaged(call("search_code", {"query": "adds"}), "search, cut at %d" % cut)
    if index == repo:
        r = subprocess.run([mcpidx, "build", "--force", "-q", repo], capture_output=True, text=True)
        if r.returncode:
            fail("build --force: " + r.stderr)
    else:
        shutil.copy(tmp + "/good.pack", tmp + "/new.pack")
        os.rename(tmp + "/new.pack", pack)
    expect_ok(call("goto_definition", {"symbol": "add_7"}), "after recovery of " + index)
    srv.stdin.close()
    if srv.wait(timeout=30) != 0:
        fail("serve exited %r" % srv.returncode)
print("ok")
PY
python3 "$T/drive.py" "$MCPIDX" "$T" || fail "see above"
