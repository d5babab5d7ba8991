#!/usr/bin/env python3
# A hostile MCP upstream over streamable HTTP for test.mjs: initialize and
# tools/list answer as JSON; tools/call answers with one SSE event whose
# data lines go on for 100 MiB, then the stream stays open.  Prints its
# port on the first line of stdout.
import json, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *a):
        pass

    def reply(self, obj):
        b = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def do_POST(self):
        m = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        meth, mid = m.get("method"), m.get("id")
        if mid is None:
            self.send_response(202)
            self.end_headers()
        elif meth == "initialize":
            self.reply({"jsonrpc": "2.0", "id": mid, "result": {
                "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                "serverInfo": {"name": "endless", "version": "1"}}})
        elif meth == "tools/list":
            self.reply({"jsonrpc": "2.0", "id": mid, "result": {"tools": [
                {"name": "greet", "description": "Say hello.", "inputSchema": {"type": "object"}}]}})
        elif meth == "tools/call":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            line = b"data: " + b"x" * 65530 + b"\n"
            try:
                for _ in range(1600):
                    self.wfile.write(line)
                self.wfile.flush()
                time.sleep(30)
            except Exception:
                pass
        else:
            self.reply({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}})


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
print(srv.server_address[1], flush=True)
srv.serve_forever()
