#!/bin/sh
# A legacy HTTP+SSE upstream that asks the client something (a ping on its
# stream) and then holds the POST that carries the answer.  The client's
# stream reader made that POST itself and waited on it for the server's
# whole timeout, reading nothing else meanwhile: the call's own answer,
# already on the stream, was not seen and the call timed out.  Now a reply
# gets 1 s, is dropped when the server does not take it, and the call is
# answered.  A call cancelled while the server holds its own POST ends
# then (it ended at the server's timeout, 8 s here).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
cat > "$T/sse.py" <<'PY'
import json, queue, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

current = {"q": None}


def push(obj):
    current["q"].put(obj)


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        if not self.path.startswith("/sse"):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        q = queue.Queue()
        current["q"] = q
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        try:
            self.wfile.write(b"event: endpoint\ndata: /messages\n\n")
            self.wfile.flush()
            while True:
                ev = q.get()
                self.wfile.write(b"event: message\ndata: " + json.dumps(ev).encode() + b"\n\n")
                self.wfile.flush()
        except Exception:
            pass

    def do_POST(self):
        m = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        if "method" not in m:
            time.sleep(30)  # the client's answer to our ping: held
        if m.get("method") == "tools/call" and m["params"].get("name") == "hold":
            time.sleep(30)  # this call's own POST: held
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()
        meth, mid = m.get("method"), m.get("id")
        if meth == "initialize":
            push({"jsonrpc": "2.0", "id": mid, "result": {
                "protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                "serverInfo": {"name": "holder", "version": "1"}}})
        elif meth == "tools/list":
            push({"jsonrpc": "2.0", "id": mid, "result": {"tools": [
                {"name": "greet", "description": "Say hello to someone.",
                 "inputSchema": {"type": "object", "properties": {}}},
                {"name": "hold", "description": "Wait for a long time.",
                 "inputSchema": {"type": "object", "properties": {}}}]}})
        elif meth == "tools/call":
            push({"jsonrpc": "2.0", "id": "ask-1", "method": "ping"})
            time.sleep(0.3)  # the client is posting its answer by now
            push({"jsonrpc": "2.0", "id": mid, "result": {
                "content": [{"type": "text", "text": "hello back"}]}})


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
print(srv.server_address[1], flush=True)
srv.serve_forever()
PY
python3 "$T/sse.py" > "$T/port" &
srv=$!
trap 'kill $srv 2> /dev/null; rm -rf "$T"' EXIT
for i in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
port=$(head -1 "$T/port")
[ -n "$port" ] || fail "the SSE fixture did not start"
cat > "$T/servers.json" <<JSON
{"mcpServers": {"holder": {"type": "sse", "url": "http://127.0.0.1:$port/sse", "timeout": 8000}}}
JSON
"$MCPIDX" build --servers "$T/servers.json" -o "$T/idx" --json > "$T/b.json" 2> "$T/b.err" ||
	fail "catalog build: $(cat "$T/b.err")"
s=$(date +%s)
timeout 30 "$MCPIDX" tools -i "$T/idx" exec holder/greet '{}' > "$T/e.out" 2>&1
rc=$? took=$(($(date +%s) - s))
expect_eq "$rc" "0" "exec while the server holds the reply's POST: $(cat "$T/e.out")"
expect_contains "$(cat "$T/e.out")" "hello back" "the call's answer"
[ $took -le 5 ] || fail "exec took ${took}s (the reply's POST held the reader)"

# Cancelled over MCP while its POST is held: the call ends at once.
MCPIDX="$MCPIDX" IDX="$T/idx" LOG="$T/serve.log" python3 - <<'PY' || fail "cancel over MCP"
import json, os, subprocess, sys, time
p = subprocess.Popen([os.environ["MCPIDX"], "serve", os.environ["IDX"], "--log", os.environ["LOG"]],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def send(o):
    p.stdin.write((json.dumps(o) + "\n").encode()); p.stdin.flush()
def read(want):
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == want:
            return m
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
      "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
read(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "execute",
      "arguments": {"tool_name": "holder/hold", "arguments": {}}}})
time.sleep(1)
send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
time.sleep(2)
send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
read(3)
p.stdin.close()
p.wait(timeout=20)
PY
ms=$(sed -n 's/.* id=2 method=tools\/call tool=execute ms=\([0-9.]*\).*/\1/p' "$T/serve.log")
[ -n "$ms" ] || fail "no log line for the cancelled call: $(cat "$T/serve.log")"
awk -v ms="$ms" 'BEGIN { exit !(ms < 3000) }' ||
	fail "the cancelled call ran ${ms} ms (its POST was waited for)"
echo ok
