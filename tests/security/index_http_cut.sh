#!/bin/sh
# An index cut while `mcpidx serve --http` has it mapped, with two sessions
# open: the server keeps running, every call of both sessions says the index
# is truncated or damaged, a new session can still start, and once the index
# is rebuilt (build --force) or the artifact is copied again every session
# answers from it.  The same for a packed file.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
case $MCPIDX in /*) ;; *) MCPIDX=$(pwd)/$MCPIDX ;; esac
cd "$T" && MCPIDX="$MCPIDX" PYTHONPATH="$here" python3 - "$T" <<'PY'
import json, os, shutil, subprocess, sys
from mcptest import Http, INIT, fail, build, text, MCPIDX

tmp = sys.argv[1]
repo = tmp + "/repo"
os.makedirs(repo + "/src")
with open(repo + "/src/a.c", "w") as f:
    for i in range(300):
        f.write("/* Adds %d. */\nint add_%d(int x) { return x + %d; }\n" % (i, i, i))
build(repo)
pack = tmp + "/a.pack"
subprocess.run([MCPIDX, "pack", repo, "-o", pack], check=True, capture_output=True)
os.chmod(pack, 0o644)
shutil.copy(pack, tmp + "/good.pack")


def answer(body):
    """The JSON-RPC message of a response body (plain JSON or SSE events)."""
    if body.lstrip().startswith("{"):
        return json.loads(body)
    for line in body.splitlines():
        if line.startswith("data:"):
            m = json.loads(line[5:])
            if "id" in m:
                return m
    fail("no JSON-RPC answer in %r" % body[:300])


class Session:
    def __init__(self, h):
        self.h, self.n = h, 1
        st, body, hd = h.post(INIT)
        if st != 200 or "mcp-session-id" not in hd:
            fail("initialize: %d %s" % (st, body[:300]))
        self.hd = {"Mcp-Session-Id": hd["mcp-session-id"],
                   "MCP-Protocol-Version": answer(body)["result"]["protocolVersion"]}
        h.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, self.hd)

    def call(self, name, args):
        self.n += 1
        st, body, hd = self.h.post({"jsonrpc": "2.0", "id": self.n, "method": "tools/call",
                                    "params": {"name": name, "arguments": args}}, self.hd,
                                   timeout=60)
        if st != 200:
            fail("%s: HTTP %d %s" % (name, st, body[:300]))
        m = answer(body)
        if "result" not in m:
            fail("%s: %r" % (name, m))
        return m["result"]


def expect_ok(r, what):
    if r.get("isError") or "add_7" not in text(r):
        fail("%s: %r" % (what, text(r)[:300]))


def expect_damaged(r, what):
    if not r.get("isError") or "truncated or damaged" not in text(r):
        fail("%s: %r" % (what, text(r)[:300]))


for index, data in ((repo, repo + "/.mcpidx/data.mdb"), (pack, pack)):
    h = Http([index])
    a, b = Session(h), Session(h)
    expect_ok(a.call("goto_definition", {"symbol": "add_7"}), "before the cut")
    expect_ok(b.call("read_file", {"path": "src/a.c"}), "before the cut, second session")
    size = os.path.getsize(data)
    for cut in (size // 2, 3 * 4096, size - 300):
        with open(data, "r+b") as f:
            f.truncate(cut)
        for s in (a, b):
            expect_damaged(s.call("goto_definition", {"symbol": "add_7"}), "cut at %d" % cut)
            expect_damaged(s.call("read_file", {"path": "src/a.c"}), "read_file, cut at %d" % cut)
            expect_damaged(s.call("search_code", {"query": "adds"}), "search, cut at %d" % cut)
        expect_damaged(Session(h).call("find_references", {"symbol": "add_7"}),
                       "a new session, cut at %d" % cut)
        if h.p.poll() is not None:
            fail("the HTTP server ended (status %r) on a cut at %d" % (h.p.returncode, cut))
    if index == repo:
        r = subprocess.run([MCPIDX, "build", "--force", "-q", repo], capture_output=True, text=True)
        if r.returncode:
            fail("build --force: " + r.stderr)
    else:
        shutil.copy(tmp + "/good.pack", tmp + "/new.pack")
        os.rename(tmp + "/new.pack", pack)
    expect_ok(a.call("goto_definition", {"symbol": "add_7"}), "after recovery of " + index)
    expect_ok(b.call("goto_definition", {"symbol": "add_7"}), "after recovery, second session")
    h.stop()
print("ok")
PY
