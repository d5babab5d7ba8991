"""Damaged index files against every command (driver for index_*.sh and
pack_*.sh): a small index is built (and packed), then copies of its data
file are cut at 20 offsets past the first page and changed by 50 flipped
bytes, and build, build --force, query, serve, status and verify (pack
instead of build on a packed file) run on each.  No command may end on a
signal; a cut file must be refused by name with what to do; build --force
must recover; verify must refuse every flipped pack.

usage: damage.py MCPIDX TMPDIR index|pack truncate|flip|branch
"""
import json, os, random, shutil, subprocess, sys

mcpidx, tmp, kind, mode = sys.argv[1:5]
# The sanitized pass of make test runs every third case: the plain pass runs
# them all, and the sanitizers look for memory errors, which any case shows.
STRIDE = 3 if "asan" in os.path.basename(mcpidx) else 1
repo = os.path.join(tmp, "repo")
TIMEOUT = 60
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


write(repo + "/src/net.c", "".join(
    "/* Opens connection %d. */\nint net_open_%d(const char *host, int port) { return port + %d; }\n"
    "static int helper_%d(void) { return net_open_%d(\"h\", %d); }\n" % (i, i, i, i, i, i)
    for i in range(60)))
write(repo + "/lib/util.py", "".join(
    "def retry_%d(fn, times=3):\n    \"\"\"Calls fn until it succeeds.\"\"\"\n"
    "    return any(fn() for _ in range(times))\n\n" % i for i in range(40)))
write(repo + "/README.md", "# Network\n\nHow to open a connection.\n\n## Retry\n\nRetries calls.\n")


def run(args, stdin=None):
    """Runs mcpidx; returns (code, stdout, stderr).  A signal is a failure."""
    try:
        r = subprocess.run([mcpidx] + args, input=stdin, capture_output=True, text=True,
                           timeout=TIMEOUT, errors="replace")
    except subprocess.TimeoutExpired:
        fail("%s hung for %ds" % (" ".join(args), TIMEOUT))
        return 124, "", ""
    if r.returncode < 0 or r.returncode >= 128:
        fail("%s ended on signal %d: %s" % (" ".join(args), -r.returncode, r.stderr[-300:]))
    return r.returncode, r.stdout, r.stderr


def serve(index):
    """Three tool calls over stdio; returns the tool results (None when an
    answer is missing)."""
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "damage", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "goto_definition", "arguments": {"symbol": "net_open_7"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "read_file", "arguments": {"path": "src/net.c"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
         "params": {"name": "search_code", "arguments": {"query": "open connection"}}},
    ]
    code, out, err = run(["serve", index], "".join(json.dumps(m) + "\n" for m in msgs))
    if code != 0:
        fail("serve %s exited %d: %s" % (index, code, err[-300:]))
    got = {}
    for line in out.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            fail("serve wrote a line that is not JSON: %r" % line[:200])
            continue
        if "id" in m:
            got[m["id"]] = m
    res = []
    for i in (2, 3, 4):
        m = got.get(i)
        if m is None or "result" not in m:
            fail("serve %s: no result for request %d: %r" % (index, i, m))
            res.append(None)
        else:
            res.append(m["result"])
    return res


def result_text(r):
    return "".join(c.get("text", "") for c in r.get("content", []))


subprocess.run([mcpidx, "build", "-q", repo], check=True)
idx = os.path.join(repo, ".mcpidx")
data = os.path.join(idx, "data.mdb")
pack = os.path.join(tmp, "idx.pack")
if kind == "pack":
    subprocess.run([mcpidx, "pack", repo, "-o", pack], check=True, capture_output=True)
    os.chmod(pack, 0o644)
    target, index_arg = pack, pack
else:
    target, index_arg = data, repo
good = open(target, "rb").read()
size = len(good)
PAGE = 4096
DAMAGED = "truncated or damaged"


def restore():
    with open(target, "wb") as f:
        f.write(good)


def check_truncated(off):
    with open(target, "r+b") as f:
        f.truncate(off)
    where = "%s cut at %d of %d" % (kind, off, size)
    code, out, err = run(["query", index_arg, "def", "net_open_7"])
    if code == 0 or DAMAGED not in err:
        fail("%s: query exited %d: %s" % (where, code, err[-300:]))
    for r in serve(index_arg):
        if r is not None and (not r.get("isError") or DAMAGED not in result_text(r)):
            fail("%s: serve answered %r" % (where, result_text(r)[:300]))
    code, out, err = run(["status", index_arg, repo])
    if code != 2 or DAMAGED not in err:
        fail("%s: status exited %d: %s" % (where, code, err[-300:]))
    code, out, err = run(["verify", target])
    if code != 1 or "damaged" not in err:
        fail("%s: verify exited %d: %s" % (where, code, err[-300:]))
    if kind == "pack":
        code, out, err = run(["pack", pack, "-o", os.path.join(tmp, "again.pack")])
        if code == 0 or DAMAGED not in err:
            fail("%s: pack exited %d: %s" % (where, code, err[-300:]))
        restore()
        return
    code, out, err = run(["build", repo])
    if code == 0 or DAMAGED not in err or "build --force" not in err:
        fail("%s: build exited %d: %s" % (where, code, err[-300:]))
    code, out, err = run(["build", "--force", "-q", repo])
    if code != 0:
        fail("%s: build --force exited %d: %s" % (where, code, err[-300:]))
    code, out, err = run(["query", repo, "def", "net_open_7"])
    if code != 0 or "net_open_7" not in out:
        fail("%s: query after build --force exited %d: %s" % (where, code, err[-300:]))
    if not os.path.exists(data + ".damaged"):
        fail("%s: build --force did not keep the damaged file aside" % where)
    os.unlink(data + ".damaged")
    if os.path.getsize(data) > size:
        fail("%s: build --force grew the index from %d to %d bytes" % (where, size, os.path.getsize(data)))
    restore()


def check_flipped(seed):
    rnd = random.Random(seed)
    off = rnd.randrange(0, size)
    flipped = bytearray(good)
    flipped[off] ^= 1 << rnd.randrange(8)
    with open(target, "wb") as f:
        f.write(flipped)
    where = "%s with byte %d flipped" % (kind, off)
    for args in (["query", index_arg, "def", "net_open_7"],
                 ["status", index_arg, repo]):
        code, out, err = run(args)
        # A flipped bit in a key can make a name a different name: then
        # the answer is "No definition of ..." (stdout, exit 1), which
        # says what happened as well as an error would.
        if code != 0 and not err.strip() and not out.strip():
            fail("%s: %s exited %d without a message" % (where, args[0], code))
    for r in serve(index_arg):
        if r is not None and r.get("isError") and not result_text(r).strip():
            fail("%s: serve answered an error without a message" % where)
    code, out, err = run(["verify", target])
    if kind == "pack" and (code != 1 or "damaged" not in err):
        fail("%s: verify exited %d: %s" % (where, code, err[-300:]))
    if kind == "index" and seed % 10 == 0:
        code, out, err = run(["build", "-q", repo])
        if code != 0 and not err.strip():
            fail("%s: build exited %d without a message" % (where, code))
        code, out, err = run(["build", "--force", "-q", repo])
        if code != 0:
            fail("%s: build --force exited %d: %s" % (where, code, err[-300:]))
        for extra in (".damaged",):
            if os.path.exists(data + extra):
                os.unlink(data + extra)
        good_now = open(target, "rb").read()
        if len(good_now) > size:
            fail("%s: build --force grew the index from %d to %d bytes" % (where, size, len(good_now)))
    restore()


def check_branches():
    """LMDB's own consistency checks: each branch page of a named database
    (page flags P_BRANCH) made to hold one key, which mdb_page_search_root
    asserts against (an abort unless the guard catches it)."""
    pages = []
    for pg in range(2, size // PAGE):
        h = good[pg * PAGE:pg * PAGE + 16]
        if int.from_bytes(h[0:8], "little") == pg and int.from_bytes(h[10:12], "little") == 1:
            pages.append(pg)
    if not pages:
        fail("no branch page in a %d-byte index" % size)
    said = 0
    for pg in pages[:12]:
        hit = bytearray(good)
        hit[pg * PAGE + 12:pg * PAGE + 14] = (16 + 2).to_bytes(2, "little")  # NUMKEYS 1
        with open(target, "wb") as f:
            f.write(hit)
        where = "branch page %d holding one key" % pg
        code, out, err = run(["query", index_arg, "search", "open connection"])
        said += DAMAGED in err
        if code != 0 and not err.strip():
            fail("%s: query exited %d without a message" % (where, code))
        for r in serve(index_arg):
            if r is not None and r.get("isError"):
                said += DAMAGED in result_text(r)
                if not result_text(r).strip():
                    fail("%s: serve answered an error without a message" % where)
        restore()
    if not said:
        fail("no damaged branch page was reached (%d tried)" % len(pages[:12]))
    return len(pages[:12])


if mode == "branch":
    n = check_branches()
    print("%d branch pages holding one key in a %d-byte %s" % (n, size, kind))
    sys.exit(1 if failures else 0)
if mode == "truncate":
    # 20 cuts past the first page: just past it, the meta pages' edges,
    # spread through the file, one byte short (and inside a pack's trailer).
    offs = sorted(set([PAGE + 1, 2 * PAGE - 1, 2 * PAGE, 2 * PAGE + 1, size - 1, size - 100,
                       size - PAGE, size - PAGE - 1] +
                      [PAGE + (size - PAGE) * k // 13 for k in range(1, 13)]))
    offs = [o for o in offs if PAGE < o < size][:20]
    assert len(offs) >= 18, offs
    for o in offs[::STRIDE]:
        check_truncated(o)
    print("%d cuts of a %d-byte %s" % (len(offs[::STRIDE]), size, kind))
else:
    for seed in range(0, 50, STRIDE):
        check_flipped(seed)
    print("%d flipped bytes in a %d-byte %s" % (len(range(0, 50, STRIDE)), size, kind))
sys.exit(1 if failures else 0)
