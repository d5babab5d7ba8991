// raw.mjs - a bare MCP client over stdio for bench.mjs: newline-delimited
// JSON-RPC written to the server's stdin, its stdout split at newlines and
// JSON.parse'd, nothing else (no SDK, no schema checks).  Beside the SDK
// client on the same calls it splits a round trip into the server and pipe
// (this client) and the SDK's own work (the difference).
import { spawn } from 'node:child_process';

export class RawClient {
  constructor(command, args) {
    this.proc = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    this.buf = null;
    this.waiting = null; // { id, resolve, reject, first }
    this.nextId = 0;
    this.proc.stdout.on('data', (chunk) => {
      if (this.waiting && this.waiting.first === undefined) this.waiting.first = performance.now();
      this.buf = this.buf ? Buffer.concat([this.buf, chunk]) : chunk;
      let i;
      while ((i = this.buf.indexOf(10)) >= 0) {
        const line = this.buf.toString('utf8', 0, i);
        this.buf = this.buf.subarray(i + 1);
        const msg = JSON.parse(line);
        const w = this.waiting;
        if (w && msg.id === w.id) {
          this.waiting = null;
          if (msg.error) w.reject(new Error(`${msg.error.code}: ${msg.error.message}`));
          else w.resolve({ result: msg.result, first: w.first, bytes: i + 1 });
        }
      }
    });
    this.exited = new Promise((res) => this.proc.on('exit', res));
  }

  get pid() { return this.proc.pid; }

  // One request at a time; resolves { result, first (ms, first byte of the
  // answer), bytes }.
  request(method, params) {
    return new Promise((resolve, reject) => {
      const id = ++this.nextId;
      this.waiting = { id, resolve, reject, first: undefined };
      this.proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  async connect() {
    await this.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcpidx-bench-raw', version: '1.0.0' } });
    this.proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }

  callTool(name, args) { return this.request('tools/call', { name, arguments: args }); }

  close() { this.proc.stdin.end(); return this.exited; }
}
