"""Helpers for the security tests of `mcpidx serve` (imported, not a test).

Stdio sessions write JSON-RPC lines and read answers by id; HTTP helpers
start `mcpidx serve --http 127.0.0.1:0` and send raw requests, so a test can
put any bytes in Host, Origin or Authorization.
"""
import http.client
import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time

MCPIDX = os.environ.get("MCPIDX", "./mcpidx")
_children = []   # servers started here, killed when a test fails


def fail(msg):
    print("FAIL: " + msg)
    sys.stdout.flush()
    for p in _children:
        if p.poll() is None:
            p.kill()
    os._exit(1)


def build(repo, *extra):
    r = subprocess.run([MCPIDX, "build", "-q", repo, *extra], capture_output=True, text=True)
    if r.returncode != 0:
        fail("mcpidx build %s failed: %s" % (repo, r.stderr))


def served(version="2025-11-25"):
    """The test's repository (its first argument) built, and a Stdio session
    on it initialized with version: (repo, session)."""
    repo = sys.argv[1]
    build(repo)
    s = Stdio([repo])
    s.init(version)
    return repo, s


class Stdio:
    """One `mcpidx serve` on pipes; stderr goes where the caller says."""

    def __init__(self, args, stderr=subprocess.DEVNULL, cwd=None):
        self.p = subprocess.Popen([MCPIDX, "serve", *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=stderr, cwd=cwd)
        _children.append(self.p)
        self.next_id = 1
        self.pending = {}
        self.lines = queue.Queue()
        self.notes = []
        t = threading.Thread(target=self._reader, daemon=True)
        t.start()

    def _reader(self):
        for line in self.p.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, obj):
        self.p.stdin.write((json.dumps(obj) + "\n").encode())
        self.p.stdin.flush()

    def read(self, want_id, timeout=30):
        deadline = time.time() + timeout
        while want_id not in self.pending:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.time()))
            except queue.Empty:
                fail("no answer to id %r within %ss" % (want_id, timeout))
            if line is None:
                fail("the server closed stdout waiting for id %r" % (want_id,))
            m = json.loads(line)
            if "id" in m and "method" not in m:
                self.pending[m["id"]] = m
            else:
                self.notes.append(m)
        return self.pending.pop(want_id)

    def request(self, method, params=None, timeout=30):
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.read(rid, timeout)

    def init(self, version="2025-11-25"):
        r = self.request("initialize", {"protocolVersion": version, "capabilities": {},
                                        "clientInfo": {"name": "security-tests", "version": "1"}})
        if "result" not in r:
            fail("initialize: %r" % r)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def call(self, name, args, timeout=60):
        r = self.request("tools/call", {"name": name, "arguments": args}, timeout)
        if "result" not in r:
            fail("%s: protocol error %r" % (name, r))
        return r["result"]

    def close(self):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            rc = self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail("the server did not exit within 20 s of stdin closing")
        if rc != 0:
            fail("the server exited with status %d (86: a sanitizer report)" % rc)
        return rc


def text(result):
    return "".join(c.get("text", "") for c in result.get("content", []))


class Http:
    """`mcpidx serve --http 127.0.0.1:0` with extra arguments."""

    def __init__(self, args, env=None):
        e = dict(os.environ)
        if env:
            e.update(env)
        self.p = subprocess.Popen([MCPIDX, "serve", *args, "--http", "127.0.0.1:0"],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, env=e)
        _children.append(self.p)
        self.port = None
        deadline = time.time() + 20
        buf = b""
        while time.time() < deadline:
            line = self.p.stderr.readline()
            if not line:
                break
            buf += line
            m = re.search(rb"serving MCP on http://127\.0\.0\.1:(\d+)/mcp", line)
            if m:
                self.port = int(m.group(1))
                break
        if not self.port:
            self.stop()
            fail("mcpidx serve --http did not start: %r" % buf[-400:])

    def post(self, body, headers=None, timeout=10):
        """Raw POST /mcp; returns (status, body text, headers dict)."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        skip_host = False
        if headers:
            for k, v in headers.items():
                if k.lower() == "host":
                    skip_host = True
            h.update(headers)
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        c.putrequest("POST", "/mcp", skip_host=skip_host, skip_accept_encoding=True)
        for k, v in h.items():
            c.putheader(k, v)
        if isinstance(data, str):
            data = data.encode()
        c.putheader("Content-Length", str(len(data)))
        c.endheaders(data)
        r = c.getresponse()
        out = r.read().decode("utf-8", "replace")
        hd = {k.lower(): v for k, v in r.getheaders()}
        c.close()
        return r.status, out, hd

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                fail("the HTTP server did not stop within 20 s of SIGTERM")
        tail = b""
        if self.p.returncode != 0:
            try:
                tail = self.p.stderr.read()[-2000:]
            except (OSError, ValueError):
                pass
        self.p.stderr.close()
        if self.p.returncode != 0:
            fail("the HTTP server exited with status %d (86: a sanitizer report): %s"
                 % (self.p.returncode, tail.decode("utf-8", "replace")))


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "security-tests", "version": "1"}}}
