"""Stateless replicas of `mcpidx serve --http` behind HAProxy, on loopback.

Three replicas, each serving its own copy of one packed index (as three
machines that pulled the same CI artifact), behind HAProxy (round robin,
TCP health checks, retries of failed connections on another replica,
sessions sticky by their Mcp-Session-Id).  One client sends a few hundred
requests through the balancer, alternating stateless 2026-07-28 requests and
the requests of a 2025-11-25 session, while a rolling update swaps every
replica to a new index (a new packed file renamed over the old one: the
replica reopens it on the next request) and one replica is restarted.
Every request must get its answer: a session whose replica went away gets
404, re-initializes as the protocol asks, and repeats its request.

Prints PASS/FAIL lines; run by tests/lb/run.sh.
"""
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

MCPIDX = os.environ["MCPIDX"]
HAPROXY = os.environ["HAPROXY"]
TOP = os.environ["TOP"]
MODERN = "2026-07-28"
N_REPLICAS = 3
failures = 0
children = []


def say(ok, name, why=""):
    global failures
    if ok:
        print("PASS lb/%s" % name)
    else:
        failures += 1
        print("FAIL lb/%s: %s" % (name, why))
    sys.stdout.flush()


def die(why):
    print("FAIL lb/setup: %s" % why)
    for p in children:
        if p.poll() is None:
            p.kill()
    sys.exit(1)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, proc, what, secs=30):
    end = time.time() + secs
    while time.time() < end:
        if proc.poll() is not None:
            die("%s exited with %s" % (what, proc.returncode))
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    die("%s did not listen on %d within %d s" % (what, port, secs))


def run(*args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        die("%s: %s" % (" ".join(args), r.stderr[-500:]))
    return r.stdout


class Replica:
    def __init__(self, i, index, tmp):
        self.i, self.index, self.port = i, index, free_port()
        self.log = os.path.join(tmp, "r%d.log" % i)
        self.p = None

    def start(self):
        self.p = subprocess.Popen([MCPIDX, "serve", self.index, "--http",
                                   "127.0.0.1:%d" % self.port, "--log", self.log],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        children.append(self.p)
        wait_port(self.port, self.p, "replica %d" % self.i)

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()

    def calls(self):
        with open(self.log, errors="replace") as f:
            return sum(1 for l in f if "method=tools/call" in l)


class Client:
    """Raw HTTP through the balancer: stateless requests and one session."""

    def __init__(self, port):
        self.port = port
        self.conn = None
        self.sid = None
        self.n = 0
        self.reinit = 0
        self.retried = 0

    def post(self, body, headers):
        h = {"Content-Type": "application/json",
             "Accept": "application/json, text/event-stream",
             "Host": "127.0.0.1:%d" % self.port}
        h.update(headers)
        for attempt in range(2):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                self.conn.request("POST", "/mcp", json.dumps(body), h)
                r = self.conn.getresponse()
                data = r.read()
                hd = {k.lower(): v for k, v in r.getheaders()}
                if hd.get("connection", "").lower() == "close":
                    self.conn.close()
                    self.conn = None
                return r.status, data, hd
            except (ConnectionError, http.client.HTTPException, OSError):
                # The balancer closed our idle keep-alive connection: a new
                # one (nothing reached a replica).
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
                self.retried += 1

    def modern(self, tool, args):
        self.n += 1
        body = {"jsonrpc": "2.0", "id": self.n, "method": "tools/call",
                "params": {"name": tool, "arguments": args, "_meta": {
                    "io.modelcontextprotocol/protocolVersion": MODERN,
                    "io.modelcontextprotocol/clientCapabilities": {}}}}
        st, data, _ = self.post(body, {"Mcp-Method": "tools/call", "Mcp-Name": tool,
                                       "MCP-Protocol-Version": MODERN})
        return st, data

    def initialize(self):
        self.n += 1
        st, data, hd = self.post({"jsonrpc": "2.0", "id": self.n, "method": "initialize",
                                  "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                             "clientInfo": {"name": "lb-test", "version": "1"}}},
                                 {"MCP-Protocol-Version": "2025-11-25"})
        if st != 200 or "mcp-session-id" not in hd:
            return False
        self.sid = hd["mcp-session-id"]
        st, _, _ = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"},
                             {"Mcp-Session-Id": self.sid, "MCP-Protocol-Version": "2025-11-25"})
        return st == 202

    def session(self, tool, args):
        for attempt in range(3):
            if self.sid is None and not self.initialize():
                continue
            self.n += 1
            st, data, _ = self.post({"jsonrpc": "2.0", "id": self.n, "method": "tools/call",
                                     "params": {"name": tool, "arguments": args}},
                                    {"Mcp-Session-Id": self.sid,
                                     "MCP-Protocol-Version": "2025-11-25"})
            if st == 404:
                # Its replica went away: a new session, as the protocol asks.
                self.sid = None
                self.reinit += 1
                continue
            return st, data
        return 404, b"session lost three times"


def answer_ok(st, data, want):
    if st != 200:
        return "HTTP %d %s" % (st, data[:200])
    try:
        r = json.loads(data)["result"]
    except (ValueError, KeyError):
        return "no result: %s" % data[:300]
    if r.get("isError"):
        return "tool error: %s" % r["content"][0]["text"][:200]
    t = r["content"][0]["text"]
    return None if want in t else "%r not in %s" % (want, t[:200])


def main():
    tmp = tempfile.mkdtemp(prefix="mcpidx-lb-")
    try:
        return body(tmp)
    finally:
        for p in children:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def body(tmp):
    repo = os.path.join(tmp, "repo")
    shutil.copytree(os.path.join(TOP, "testdata/mcp"), repo)
    run(MCPIDX, "build", "-q", repo)
    v1 = os.path.join(tmp, "v1.mcpidx")
    run(MCPIDX, "pack", repo, "-o", v1)
    # v2 adds a function, as a new commit would.
    with open(os.path.join(repo, "src", "audit.c"), "w") as f:
        f.write("/* audit.c - who logged in when. */\n"
                "int audit_login(int uid)\n{\n\treturn uid;\n}\n")
    run(MCPIDX, "build", "-q", repo)
    v2 = os.path.join(tmp, "v2.mcpidx")
    run(MCPIDX, "pack", repo, "-o", v2)
    run(MCPIDX, "verify", "--quiet", v2)

    reps = []
    for i in range(N_REPLICAS):
        idx = os.path.join(tmp, "r%d.mcpidx" % i)
        shutil.copyfile(v1, idx)
        reps.append(Replica(i, idx, tmp))
        reps[-1].start()
    lb_port = free_port()
    cfg = os.path.join(tmp, "haproxy.cfg")
    with open(os.path.join(TOP, "docs", "haproxy.cfg")) as f:
        sample = f.read()
    # The documented sample, on this test's ports.
    servers = "".join("    server r%d 127.0.0.1:%d check inter 100ms fall 1 rise 1\n"
                      % (r.i, r.port) for r in reps)
    text = sample.replace("127.0.0.1:8080", "127.0.0.1:%d" % lb_port)
    head, sep, _ = text.partition("    # replicas\n")
    if not sep:
        die("docs/haproxy.cfg has no '    # replicas' line to put the servers after")
    with open(cfg, "w") as f:
        f.write(head + sep + servers)
    lb = subprocess.Popen([HAPROXY, "-f", cfg, "-db"], stdout=subprocess.DEVNULL,
                          stderr=open(os.path.join(tmp, "haproxy.err"), "w"))
    children.append(lb)
    wait_port(lb_port, lb, "haproxy")

    c = Client(lb_port)
    lost = []
    seen = {"v1": 0, "v2": 0}
    total = [0]

    def one(k):
        """Request k: stateless or in the session, a lookup every index has
        and, every fourth, the one only v2 answers."""
        total[0] += 1
        if k % 4 == 3:
            st, data = (c.modern if k % 2 else c.session)("goto_definition", {"symbol": "audit_login"})
            if st == 200 and b'"isError":false' in data and b"src/audit.c" in data:
                seen["v2"] += 1
                return
            if st == 200 and b'"isError":false' in data:
                seen["v1"] += 1     # no definition in the old index: an answer too
                return
            lost.append("request %d (audit_login): HTTP %d %s" % (k, st, data[:200]))
            return
        if k % 2:
            st, data = c.modern("goto_definition", {"symbol": "login"})
        else:
            st, data = c.session("search_code", {"query": "password hash", "limit": 3})
        why = answer_ok(st, data, "src/auth.c")
        if why:
            lost.append("request %d: %s" % (k, why))

    # Round robin before any change.
    t0 = time.time()
    for k in range(120):
        one(k)
    counts = [r.calls() for r in reps]
    say(not lost and all(n > 0 for n in counts), "round-robin-every-answer",
        "lost %s; calls per replica %s" % (lost[:3], counts))
    print("    120 requests in %.2f s; tools/call per replica %s" % (time.time() - t0, counts))

    # A rolling update while the client keeps going: each replica's index
    # replaced by v2 (copy beside, then rename over: what a pull does),
    # and the replica holding the session restarted on the way.
    done = threading.Event()
    errors = []

    # The replica holding the session is the one restarted.
    held = [r for r in reps if c.sid and ("session=" + c.sid) in open(r.log, errors="replace").read()]
    victim = held[0].i if held else 1

    def update():
        try:
            for r in reps:
                tmpf = r.index + ".new"
                shutil.copyfile(v2, tmpf)
                os.rename(tmpf, r.index)
                time.sleep(0.3)
                if r.i == victim:
                    r.stop()
                    time.sleep(0.3)
                    r.start()
                    time.sleep(0.3)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))
        finally:
            done.set()

    lost_before = len(lost)
    th = threading.Thread(target=update)
    th.start()
    k = 1000
    while not done.is_set() or k < 1200:
        one(k)
        k += 1
        time.sleep(0.003)
    th.join()
    during = k - 1000
    say(not errors and len(lost) == lost_before, "rolling-swap-and-restart-no-answer-lost",
        "update: %s; lost %s" % (errors, lost[lost_before:lost_before + 3]))
    print("    %d requests during the update (replica %d restarted); session "
          "re-initialized %d times, client reconnected %d times; audit_login "
          "answered from v1 %d, from v2 %d times"
          % (during, victim, c.reinit, c.retried, seen["v1"], seen["v2"]))
    if not c.reinit:
        say(False, "session-moves-when-its-replica-restarts",
            "the session never saw its replica go away")
    if not (seen["v1"] and seen["v2"]):
        say(False, "both-indexes-answered-during-the-update", str(seen))

    # Every replica now answers from v2, through the balancer and directly.
    ok = True
    for k in range(2 * N_REPLICAS):
        st, data = c.modern("goto_definition", {"symbol": "audit_login"})
        ok = ok and st == 200 and b'"isError":false' in data and b"src/audit.c" in data
    for r in reps:
        d = Client(r.port)
        st, data = d.modern("goto_definition", {"symbol": "audit_login"})
        ok = ok and st == 200 and b"src/audit.c" in data
    say(ok, "every-replica-serves-the-new-index", "an answer still from v1")
    print("    %d requests in all, %d lost" % (total[0] + 3 * N_REPLICAS, len(lost)))
    return 1 if failures else 0


sys.exit(main())
