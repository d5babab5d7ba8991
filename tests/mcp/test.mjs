// End-to-end tests of `mcpidx serve`, driven by the official MCP TypeScript
// SDK (stdio and streamable HTTP clients) plus raw stdio writes for what an
// SDK will not send (malformed JSON, batches, huge lines).
// Prints one `PASS name` or `FAIL name: why` line per case; exits 1 on any FAIL.
//   MCPIDX=/path/to/mcpidx node test.mjs [name-filter]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema,
  ListTasksResultSchema, CancelTaskResultSchema, McpError, TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assert, eq, finish, run, text } from './harness.mjs';
import { wireTap } from './wire.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const top = path.resolve(here, '../..');
const MCPIDX = process.env.MCPIDX || path.join(top, 'mcpidx');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpidx-mcp-'));
const repo = path.join(tmp, 'repo');          // fixture copy, indexed
const empty = path.join(tmp, 'empty');        // never indexed
const big = path.join(tmp, 'big');            // slow enough to cancel
const logFile = path.join(tmp, 'server.log');

const TOOLS = ['read_file', 'expand_at', 'goto_definition', 'find_references',
  'code_research', 'search_code', 'search_docs', 'index_status', 'index_codebase',
  'context_pack', 'changed_symbols'];

const results = [];

function build(dir, extra = []) {
  execFileSync(MCPIDX, ['build', dir, ...extra], { stdio: 'pipe' });
}

function writeBig(dir, n) {
  for (let d = 0; d < n / 100; d++) {
    fs.mkdirSync(path.join(dir, `m${d}`), { recursive: true });
    for (let f = 0; f < 100; f++) {
      fs.writeFileSync(path.join(dir, `m${d}`, `f${f}.c`),
        `/* module ${d} file ${f} */\nint f${d}_${f}(int x)\n{\n\treturn x + ${f};\n}\n` +
        `static int g${d}_${f}(int y) { return f${d}_${f}(y) * 2; }\n` +
        `struct s${d}_${f} { int a; int b; };\n`);
    }
  }
}

async function stdioClient(index, extraArgs = []) {
  const transport = new StdioClientTransport({
    command: MCPIDX, args: ['serve', index, '--log', logFile, ...extraArgs], stderr: 'pipe',
  });
  const client = new Client({ name: 'mcpidx-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

// A raw stdio session: write lines, wait for responses by id.
function rawServer(index, args = []) {
  const p = spawn(MCPIDX, ['serve', index, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = [];
  const waiters = [];
  let buf = '';
  let stderr = '';
  p.stdout.setEncoding('utf8');
  p.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(line);
      for (const w of [...waiters]) if (w.test(line)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(line); }
    }
  });
  p.stderr.on('data', (d) => { stderr += d; });
  p.on('error', (e) => { stderr += `spawn failed: ${e.message}`; });
  p.stdin.on('error', () => {});
  const exited = new Promise((res) => { p.on('exit', (code, sig) => res({ code, sig })); p.on('error', () => res({ code: -1, sig: null })); });
  return {
    proc: p, lines, exited, stderr: () => stderr,
    send(obj) { p.stdin.write((typeof obj === 'string' ? obj : JSON.stringify(obj)) + '\n'); },
    wait(test, ms = 5000) {
      const found = lines.find(test);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const w = { test, resolve };
        waiters.push(w);
        setTimeout(() => { const k = waiters.indexOf(w); if (k >= 0) { waiters.splice(k, 1); reject(new Error(`no matching line within ${ms} ms; got: ${lines.slice(-3).join(' | ').slice(0, 300)}`)); } }, ms);
      });
    },
    waitId(id, ms) { return this.wait((l) => l.includes(`"id":${JSON.stringify(id)}`), ms).then(JSON.parse); },
    async init(version = '2025-11-25') {
      this.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      const r = await this.waitId('init');
      this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return r;
    },
    close() { p.stdin.end(); return exited; },
  };
}

// ---- setup --------------------------------------------------------------------
fs.cpSync(path.join(top, 'testdata/mcp'), repo, { recursive: true });
fs.mkdirSync(empty);
fs.mkdirSync(big);
writeBig(big, 6000);
try { build(repo); } catch (e) {
  console.log(`FAIL setup: mcpidx build ${repo} failed: ${e.stderr || e.message}`);
  process.exit(1);
}

const client = await stdioClient(repo);
let tools = [];

// ---- lifecycle -------------------------------------------------------------------
await run('initialize/server-info', async () => {
  const v = client.getServerVersion();
  eq(v.name, 'mcpidx', 'serverInfo.name');
  assert(v.version && v.title && v.description, 'serverInfo needs version, title, description');
  const caps = client.getServerCapabilities();
  eq(caps.tools, { listChanged: true }, 'capabilities.tools (the meta tools come and go with a catalog)');
  assert(caps.logging, 'capabilities.logging');
  assert(caps.tasks && caps.tasks.requests && caps.tasks.requests.tools && caps.tasks.requests.tools.call, 'capabilities.tasks.requests.tools.call');
  assert(caps.tasks.list && caps.tasks.cancel, 'capabilities.tasks list/cancel');
  assert(/search_code/.test(client.getInstructions() || ''), 'instructions mention the tools');
});

for (const [asked, want] of [['2025-11-25', '2025-11-25'], ['2025-06-18', '2025-06-18'],
  ['2025-03-26', '2025-03-26'], ['2024-11-05', '2024-11-05'], ['1999-01-01', '2025-11-25']]) {
  await run(`initialize/version-${asked}`, async () => {
    const s = rawServer(repo);
    const r = await s.init(asked);
    eq(r.result.protocolVersion, want, 'negotiated version');
    if (want < '2025-11-25') assert(!r.result.capabilities.tasks, 'no tasks capability before 2025-11-25');
    await s.close();
  });
}

await run('lifecycle/request-before-initialize', async () => {
  const s = rawServer(repo);
  s.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const r = await s.waitId(1);
  assert(r.error && r.error.code === -32600 && /initialize/.test(r.error.message), `want -32600 naming initialize, got ${JSON.stringify(r)}`);
  s.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
  eq((await s.waitId(2)).result, {}, 'ping before initialize is allowed');
  await s.close();
});

await run('ping', async () => { eq(await client.ping(), {}, 'ping result'); });

// ---- tools/list -------------------------------------------------------------------
await run('tools/list/order-and-schemas', async () => {
  tools = (await client.listTools()).tools;
  eq(tools.map((t) => t.name), TOOLS, 'registration order');
  for (const t of tools) {
    assert(t.title && t.description && t.description.length > 60, `${t.name}: title and a real description`);
    eq(t.inputSchema.type, 'object', `${t.name}.inputSchema.type`);
    eq(t.outputSchema && t.outputSchema.type, 'object', `${t.name}.outputSchema.type`);
    assert(t.annotations && t.annotations.openWorldHint === false, `${t.name}: openWorldHint false`);
    const ro = t.name !== 'index_codebase';
    eq(t.annotations.readOnlyHint, ro, `${t.name}.readOnlyHint`);
    eq(t.execution && t.execution.taskSupport, ro ? undefined : 'optional', `${t.name}.execution.taskSupport (absent means forbidden)`);
    assert(!t.icons, `${t.name}: the icon is the server's (serverInfo), not repeated per tool`);
  }
  assert(client.getServerVersion().icons[0].src.startsWith('data:image/svg+xml;base64,'), 'serverInfo icons');
  const ic = tools.find((t) => t.name === 'index_codebase');
  eq(ic.annotations.destructiveHint, false, 'index_codebase destructiveHint');
  eq(tools.find((t) => t.name === 'search_code').inputSchema.required, ['query'], 'search_code required');
  eq(tools.find((t) => t.name === 'code_research').inputSchema.properties.depth.maximum, 5, 'depth max');
});

// What a client pays on every request for the tool list: the tools/list result
// as sent, in o200k tokens, under an initialized 2025-11-25 session and a
// stateless 2026-07-28 request.  The default server (a code index, no tool
// catalog, no compile config, artifacts not enabled) stays within 2,500.
const TOOLS_LIST_BUDGET = 2500;
await run('tools/list/token-budget', async () => {
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  const s = rawServer(repo);
  await s.init('2025-11-25');
  s.send({ jsonrpc: '2.0', id: 'tl', method: 'tools/list' });
  const a = (await s.wait((l) => l.includes('"id":"tl"'))).replace(/^.*?"result":/, '');
  s.send({ jsonrpc: '2.0', id: 'tm', method: 'tools/list', params: { _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {} } } });
  const b = (await s.wait((l) => l.includes('"id":"tm"'))).replace(/^.*?"result":/, '');
  await s.close();
  const ta = countTokens(a), tb = countTokens(b);
  console.log(`# tools/list: ${JSON.parse(a.slice(0, -1)).tools.length} tools, ` +
    `${ta} tokens (2025-11-25), ${tb} tokens (2026-07-28); budget ${TOOLS_LIST_BUDGET}`);
  assert(ta <= TOOLS_LIST_BUDGET, `2025-11-25 tools/list is ${ta} tokens, over ${TOOLS_LIST_BUDGET}`);
  assert(tb <= TOOLS_LIST_BUDGET, `2026-07-28 tools/list is ${tb} tokens, over ${TOOLS_LIST_BUDGET}`);
});

// ---- tools with good arguments ------------------------------------------------------
async function call(name, args, opts) {
  return client.callTool({ name, arguments: args }, CallToolResultSchema, opts);
}

await run('read_file/outline', async () => {
  const r = await call('read_file', { path: 'src/auth.c' });
  assert(!r.isError, text(r));
  assert(/login/.test(text(r)) && /\{ \.\.\. \}/.test(text(r)), `outline folds bodies: ${text(r)}`);
  assert(!/check_hash\(password/.test(text(r)), 'outline hides bodies');
  eq(r.structuredContent.path, 'src/auth.c', 'structured path');
  eq(r.structuredContent.mode, 'outline', 'structured mode');
  eq(r.structuredContent.text, text(r), 'text block equals structured text');
});
await run('read_file/full-and-meta', async () => {
  let r = await call('read_file', { path: 'src/auth.c', mode: 'full' });
  assert(/u->logged_in = 1;/.test(text(r)), 'full mode shows the source');
  r = await call('read_file', { path: 'src/auth.c', mode: 'mcp', with_meta: true, line_numbers: 'zpad', show_block_guides: true });
  assert(!r.isError, text(r));
  eq(r.structuredContent.meta, { mode: 'mcp', line_numbers: 'zpad', show_coverage: false, show_block_guides: true }, 'meta');
  r = await call('read_file', { path: 'app/models.py', filter: 'all' });
  assert(/_secret/.test(text(r)), `filter=all shows private members: ${text(r)}`);
});
await run('read_file/absolute-path-inside-repo', async () => {
  const r = await call('read_file', { path: path.join(fs.realpathSync(repo), 'src/auth.c') });
  assert(!r.isError, text(r));
  eq(r.structuredContent.path, 'src/auth.c', 'path made repo-relative');
});
await run('expand_at/body', async () => {
  const r = await call('expand_at', { path: 'src/auth.c', selector: 'login' });
  assert(!r.isError, text(r));
  assert(/u->logged_in = 1;/.test(text(r)), `body shown: ${text(r)}`);
  eq([r.structuredContent.name, r.structuredContent.start_line, r.structuredContent.end_line], ['login', 12, 18], 'name and span');
});
await run('goto_definition', async () => {
  const r = await call('goto_definition', { symbol: 'login' });
  assert(!r.isError, text(r));
  const d = r.structuredContent.definitions.find((x) => x.kind !== 'prototype');
  eq([d.path, d.line], ['src/auth.c', 12], 'definition location');
  const r2 = await call('goto_definition', { symbol: 'validate_token', path: 'app/models.py' });
  assert(r2.structuredContent.definitions.length >= 1 && r2.structuredContent.definitions.every((x) => x.path === 'app/models.py'), 'path narrows');
});
await run('find_references', async () => {
  const r = await call('find_references', { symbol: 'login', kind: 'calls', limit: 10 });
  assert(!r.isError, text(r));
  const refs = r.structuredContent.references;
  assert(refs.some((x) => x.path === 'src/session.c' && x.caller === 'start_session'), `call from start_session: ${JSON.stringify(refs)}`);
});
await run('code_research', async () => {
  const r = await call('code_research', { query: 'what calls login', depth: 2 });
  assert(!r.isError, text(r));
  assert(Array.isArray(r.structuredContent.nodes) && Array.isArray(r.structuredContent.edges), 'nodes and edges');
  assert(/start_session/.test(text(r)), `names the caller: ${text(r).slice(0, 300)}`);
});
await run('search_code', async () => {
  const r = await call('search_code', { query: 'password hash', limit: 3 });
  assert(!r.isError, text(r));
  const res = r.structuredContent.results;
  assert(res.length >= 1 && res.length <= 3, `1..3 results, got ${res.length}`);
  assert(res[0].path.startsWith('src/'), `best hit in src/: ${res[0].path}`);
  for (const k of ['path', 'start_line', 'end_line', 'relevance_percent', 'kind'])
    assert(k in res[0], `hit has ${k}`);
  const r2 = await call('search_code', { query: 'token', path_filter: 'app/**', extensions: ['py'], format: 'json' });
  assert(r2.structuredContent.results.every((x) => x.path.startsWith('app/')), 'path_filter applies');
});
await run('search_code/private-by-default', async () => {
  let r = await call('search_code', { query: 'secret' });
  assert(r.structuredContent.results.some((x) => /_secret/.test(x.breadcrumb || '')), `private hit by default: ${text(r)}`);
  r = await call('search_code', { query: 'secret', filter: 'public', semantic_weight: 0.3 });
  assert(!r.structuredContent.results.some((x) => /_secret/.test(x.breadcrumb || '')), `filter public restricts: ${text(r)}`);
});
await run('context_pack', async () => {
  const r = await call('context_pack', { target: 'login', budget_tokens: 600 });
  assert(!r.isError, text(r));
  const s = r.structuredContent;
  assert(s.tokens <= 600, `within budget: ${s.tokens}`);
  eq(s.entries.map((e) => [e.role, e.name]), [['target', 'login'], ['uses', 'check_hash'], ['caller', 'start_session']], 'target, callee, caller');
  assert(/V\* pack: \d+ tokens of 600/.test(text(r)), `states its tokens: ${text(r)}`);
});
await run('changed_symbols/clean-index', async () => {
  const r = await call('changed_symbols', {});
  assert(!r.isError, text(r));
  eq([r.structuredContent.total, r.structuredContent.changed], [0, []], 'nothing changed since the build');
});
await run('read_file/xrefs', async () => {
  const r = await call('read_file', { path: 'src/auth.c', xrefs: true });
  assert(/V\* called by: start_session/.test(text(r)), `callers under login: ${text(r)}`);
});
await run('search_docs', async () => {
  const r = await call('search_docs', { query: 'installation', limit: 5 });
  assert(!r.isError, text(r));
  assert(r.structuredContent.results.some((x) => x.path === 'docs/guide.md'), 'guide found');
});
await run('index_status', async () => {
  const r = await call('index_status', {});
  assert(!r.isError, text(r));
  assert(r.structuredContent.files >= 6, `files counted: ${JSON.stringify(r.structuredContent)}`);
});

// ---- tools with bad arguments ---------------------------------------------------------
const bad = [
  ['read_file', {}, /Missing required argument: path/],
  ['read_file', { path: 'src/auth.c', mode: 'tree' }, /mode.*one of outline, compact, full/],
  ['read_file', { path: '../../etc/passwd' }, /relative to the repository root/],
  ['read_file', { path: 'src/nope.c' }, /nope\.c/],
  ['read_file', { path: 'src/auth.c', max_tokens: 'many' }, /max_tokens.*integer/],
  ['expand_at', { path: 'src/auth.c' }, /Missing required argument: selector/],
  ['expand_at', { path: 'src/auth.c', selector: 'login', what: 'everything' }, /what.*one of body/],
  ['goto_definition', { symbol: 42 }, /symbol.*string/],
  ['goto_definition', { symbol: '' }, /cannot be empty/],
  ['find_references', { symbol: 'login', kind: 'some' }, /kind.*one of calls, all/],
  ['find_references', { symbol: 'login', limit: 0 }, /limit.*from 1/],
  ['code_research', { query: 'x', depth: 9 }, /depth.*from 1 to 5/],
  ['code_research', { query: 'x', focus: 'vibes' }, /focus.*architecture/],
  ['search_code', {}, /Missing required argument: query/],
  ['search_code', { query: 'x', limit: '5' }, /limit.*integer/],
  ['search_code', { query: 'x', format: 'xml' }, /format.*toon/],
  ['search_code', { query: 'x', semantic_weight: 1.5 }, /semantic_weight.*0 to 1/],
  ['search_code', { query: 'x', filter: 'mine' }, /filter.*one of public, all/],
  ['context_pack', { target: 'login', budget_tokens: 10 }, /budget_tokens.*at least 100/],
  ['context_pack', { target: 'login', depth: 3 }, /depth.*from 1 to 2/],
  ['context_pack', { target: 'no_such_symbol_here' }, /no_such_symbol_here/],
  ['context_pack', {}, /Give a target/],
  ['changed_symbols', { since: '--output=/tmp/x' }, /since must be a git revision/],
  ['changed_symbols', { since: 'HEAD' }, /git does not know revision 'HEAD'/],
  ['read_file', { path: 'src/auth.c', diff: 'yes' }, /diff.*boolean/],
  ['search_docs', { query: 'x', limit: 1000 }, /limit.*to 100/],
  ['index_status', { verbose: true }, /Unknown argument 'verbose'/],
  ['index_codebase', { path: path.join(tmp, 'does-not-exist') }, /Path does not exist or is not a directory/],
  ['index_codebase', { force: 'yes' }, /force.*boolean/],
];
for (const [name, args, want] of bad) {
  await run(`bad-args/${name}/${Object.keys(args).join('+') || 'none'}${want.source.slice(0, 12).replace(/\W/g, '')}`, async () => {
    const r = await call(name, args);
    assert(r.isError === true, `isError expected, got ${JSON.stringify(r).slice(0, 200)}`);
    assert(want.test(text(r)), `message ${JSON.stringify(text(r))} should match ${want}`);
  });
}
await run('bad-args/unknown-tool-is-protocol-error', async () => {
  try { await call('no_such_tool', {}); throw new Error('no error'); } catch (e) {
    assert(e instanceof McpError && e.code === -32602, `want -32602, got ${e.code} ${e.message}`);
  }
});

await run('no-index/tools-say-how-to-build', async () => {
  const c = await stdioClient(empty);
  const r = await c.callTool({ name: 'search_code', arguments: { query: 'x' } });
  assert(r.isError && /No index at .*Run: mcpidx build /.test(text(r)), `message: ${text(r)}`);
  const r2 = await c.callTool({ name: 'index_status', arguments: {} });
  assert(r2.isError && /No index at/.test(text(r2)), 'index_status too');
  await c.close();
});

await run('token-budget/cut-at-line-with-hint', async () => {
  const r = await call('read_file', { path: 'app/models.py', mode: 'full', max_tokens: 100 });
  assert(!r.isError, text(r));
  const full = await call('read_file', { path: 'app/models.py', mode: 'full' });
  assert(text(r).length < text(full).length, 'answer was cut');
  assert(/max_tokens|narrow|expand_at|outline/.test(text(r)), `says how to narrow: ${text(r).slice(-200)}`);
});

// ---- logging ---------------------------------------------------------------------------
await run('logging/setLevel-and-messages', async () => {
  const c = await stdioClient(repo);
  const msgs = [];
  const { LoggingMessageNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
  c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { msgs.push(n.params); });
  await c.setLoggingLevel('debug');
  await c.callTool({ name: 'index_status', arguments: {} });
  await new Promise((r) => setTimeout(r, 100));
  assert(msgs.some((m) => m.level === 'debug' && /index_status/.test(String(m.data))), `debug message seen: ${JSON.stringify(msgs)}`);
  try { await c.setLoggingLevel('loud'); throw new Error('accepted a bad level'); } catch (e) { assert(e.code === -32602, `want -32602, got ${e.code}`); }
  await c.close();
  const log = fs.readFileSync(logFile, 'utf8');
  assert(/cid=\d+ session=stdio id=\S+ method=tools\/call tool=index_status ms=[\d.]+ at=\d+ outcome=ok/.test(log), 'log line per call with correlation id, tool, duration, outcome');
});

// A call's log line is written after its answer and lines are gathered
// between writes; none may be lost or held back while the server keeps
// serving.
await run('log/lines-follow-answers-while-serving', async () => {
  const file = path.join(tmp, 'burst.log');
  const s = rawServer(repo, ['--log', file]);
  await s.init();
  const n = 201;
  for (let i = 0; i < n; i++) {
    // the last call comes after a pause: the log writer has gone idle
    if (i === n - 1) await new Promise((r) => setTimeout(r, 300));
    s.send({ jsonrpc: '2.0', id: `b${i}`, method: i % 2 ? 'ping' : 'tools/call', params: i % 2 ? {} : { name: 'index_status', arguments: {} } });
    await s.waitId(`b${i}`);
  }
  const perCall = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '').split('\n').filter((l) => / id="b\d+" method=/.test(l));
  let got = perCall();
  for (let t = 0; got.length < n && t < 100; t++) { // bounded: 5 s
    await new Promise((r) => setTimeout(r, 50));
    got = perCall();
  }
  assert(got.length === n, `${got.length} of ${n} per-call lines written while the server still serves`);
  assert(got.every((l, i) => l.includes(` id="b${i}" `)), 'per-call lines in answer order, each once');
  await s.close();
  assert(perCall().length === n, 'no line written twice at close');
});

// ---- raw protocol errors -----------------------------------------------------------------
await run('raw/malformed-json-batch-duplicates-ids', async () => {
  const s = rawServer(repo);
  await s.init();
  s.send('{"jsonrpc":"2.0","id":1,"method":');
  let r = JSON.parse(await s.wait((l) => l.includes('-32700')));
  eq([r.id, r.error.code], [null, -32700], 'parse error');
  s.send('[{"jsonrpc":"2.0","id":2,"method":"ping"}]');
  r = JSON.parse(await s.wait((l) => l.includes('batch')));
  eq([r.id, r.error.code], [null, -32600], 'batch refused');
  s.send('{"jsonrpc":"2.0","id":3,"id":4,"method":"ping"}');
  r = JSON.parse(await s.wait((l) => l.includes('duplicate')));
  eq(r.error.code, -32700, 'duplicate keys refused');
  s.send('{"jsonrpc":"1.0","id":5,"method":"ping"}');
  eq((await s.waitId(5)).error.code, -32600, 'jsonrpc 1.0 refused');
  s.send('{"jsonrpc":"2.0","id":6,"method":"no/such"}');
  eq((await s.waitId(6)).error.code, -32601, 'method not found');
  s.send('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}');
  await s.wait((l) => l.includes('"id":9007199254740993,'));
  s.send('{"jsonrpc":"2.0","id":"str-\\u00e9","method":"ping"}');
  await s.wait((l) => l.includes('"id":"str-é"') || l.includes('"id":"str-\\u00e9"'));
  s.send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":"src/auth.c"}}');
  eq((await s.waitId(7)).error.code, -32602, 'arguments must be an object');
  s.send('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"src/auth.c"},"task":{"ttl":1000}}}');
  eq((await s.waitId(8)).error.code, -32601, 'task on a taskSupport=forbidden tool');
  s.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
  eq((await s.waitId(9)).result, {}, 'still alive');
  const { code } = await s.close();
  eq(code, 0, 'exit code at stdin EOF');
});

await run('raw/huge-message-bounded', async () => {
  const s = rawServer(repo);
  await s.init();
  const huge = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + 'x'.repeat(17 << 20) + '"}}';
  s.send(huge);
  const r = JSON.parse(await s.wait((l) => l.includes('MiB limit'), 15000));
  eq(r.error.code, -32600, 'huge message refused');
  s.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
  eq((await s.waitId(2)).result, {}, 'alive after a huge message');
  const rss = Number((fs.readFileSync(`/proc/${s.proc.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/) || [0, 0])[1]);
  assert(rss < 120 * 1024, `peak RSS ${rss} kB stays bounded`);
  await s.close();
}, 30000);

await run('raw/burst-of-calls-all-answered', async () => {
  const s = rawServer(repo);
  await s.init();
  let batch = '';
  for (let i = 0; i < 2000; i++) batch += JSON.stringify({ jsonrpc: '2.0', id: 1000 + i, method: 'tools/call', params: { name: 'goto_definition', arguments: { symbol: 'login' } } }) + '\n';
  s.proc.stdin.write(batch);
  await s.waitId(2999, 20000);
  await new Promise((r) => setTimeout(r, 200));
  const ids = new Set(s.lines.map((l) => JSON.parse(l).id));
  for (let i = 0; i < 2000; i++) assert(ids.has(1000 + i), `no answer for id ${1000 + i}`);
  await s.close();
}, 30000);

await run('raw/client-disconnect-epipe', async () => {
  const s = rawServer(repo);
  await s.init();
  s.proc.stdout.destroy();
  for (let i = 0; i < 50; i++) s.send({ jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'read_file', arguments: { path: 'src/auth.c', mode: 'full' } } });
  const { code, sig } = await s.close();
  assert(sig === null && code === 0, `server exited cleanly (code ${code}, signal ${sig})`);
});

// ---- cancellation and progress ---------------------------------------------------------
await run('cancel/notifications-cancelled-suppresses-response', async () => {
  const s = rawServer(big, ['--log', logFile]);
  await s.init();
  s.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'index_codebase', arguments: { path: big, force: true } } });
  await new Promise((r) => setTimeout(r, 150));
  s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow', reason: 'test' } });
  s.send({ jsonrpc: '2.0', id: 'after', method: 'ping' });
  await s.waitId('after');
  await new Promise((r) => setTimeout(r, 1500));
  assert(!s.lines.some((l) => l.includes('"id":"slow"')), 'no response for the cancelled request');
  await s.close();
  assert(/id="slow" method=tools\/call tool=index_codebase ms=[\d.]+ at=\d+ outcome=cancelled/.test(fs.readFileSync(logFile, 'utf8')), 'log records the cancellation');
});

await run('progress/index_codebase-sync', async () => {
  const c = await stdioClient(big);
  const wire = wireTap(c);
  const r = await c.callTool({ name: 'index_codebase', arguments: { path: big, force: true } }, CallToolResultSchema,
    { onprogress: () => {}, timeout: 60000 });
  assert(!r.isError, text(r));
  const answer = wire.findIndex((m) => m.id !== undefined && m.result);
  const seen = wire.slice(0, answer).filter((m) => m.method === 'notifications/progress').map((m) => m.params);
  assert(!wire.slice(answer + 1).some((m) => m.method === 'notifications/progress'), 'progress after the answer');
  eq(r.structuredContent.status, 'completed', 'status');
  assert(r.structuredContent.stats && r.structuredContent.stats.files >= 6000, `stats: ${JSON.stringify(r.structuredContent.stats)}`);
  assert(seen.length >= 2, `progress notifications: ${seen.length}`);
  for (let i = 1; i < seen.length; i++) assert(seen[i].progress > seen[i - 1].progress, 'progress increases');
  for (const p of seen) assert(p.total === undefined || p.progress <= p.total, `progress past its total: ${JSON.stringify(p)}`);
  assert(seen.some((p) => p.total >= 6000), `a total is reported: ${JSON.stringify(seen.slice(0, 3))}`);
  eq(seen.at(-1).progress, seen.at(-1).total, 'last progress reaches the total');
  await c.close();
}, 60000);

// ---- tasks -------------------------------------------------------------------------------
await run('tasks/index_codebase-create-get-list-result', async () => {
  const c = await stdioClient(repo);
  const statuses = [];
  c.setNotificationHandler(TaskStatusNotificationSchema, (n) => { statuses.push(n.params); });
  const created = await c.request({ method: 'tools/call', params: { name: 'index_codebase', arguments: { path: repo }, task: { ttl: 60000 } } }, CreateTaskResultSchema);
  const id = created.task.taskId;
  assert(id && created.task.status === 'working' && created.task.createdAt, `CreateTaskResult: ${JSON.stringify(created)}`);
  eq(created.task.ttl, 60000, 'ttl honoured');
  const got = await c.request({ method: 'tasks/get', params: { taskId: id } }, GetTaskResultSchema);
  eq(got.taskId, id, 'tasks/get id');
  const list = await c.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
  assert(list.tasks.some((t) => t.taskId === id), 'tasks/list shows it');
  const res = await c.request({ method: 'tasks/result', params: { taskId: id } }, CallToolResultSchema, { timeout: 60000 });
  assert(!res.isError, text(res));
  eq(res._meta && res._meta['io.modelcontextprotocol/related-task'], { taskId: id }, 'related-task _meta');
  eq(res.structuredContent.status, 'completed', 'result status');
  const after = await c.request({ method: 'tasks/get', params: { taskId: id } }, GetTaskResultSchema);
  eq(after.status, 'completed', 'terminal status');
  // notifications/tasks/status: the terminal state, as tasks/get shows it
  eq(statuses.map((p) => [p.taskId, p.status]), [[id, 'completed']], 'notifications/tasks/status');
  eq(statuses[0].lastUpdatedAt, after.lastUpdatedAt, 'status notification carries the task');
  try { await c.request({ method: 'tasks/cancel', params: { taskId: id } }, CancelTaskResultSchema); throw new Error('cancelled a finished task'); } catch (e) { eq(e.code, -32602, 'cancel of a terminal task'); }
  try { await c.request({ method: 'tasks/get', params: { taskId: 'nope' } }, GetTaskResultSchema); throw new Error('found a missing task'); } catch (e) { eq(e.code, -32602, 'unknown task'); }
  await c.close();
}, 60000);

await run('tasks/cancel-keeps-old-index', async () => {
  if (!fs.existsSync(path.join(big, '.mcpidx', 'data.mdb'))) build(big);
  const c = await stdioClient(big);
  const statuses = [];
  c.setNotificationHandler(TaskStatusNotificationSchema, (n) => { statuses.push(n.params); });
  const before = await c.callTool({ name: 'goto_definition', arguments: { symbol: 'f3_7' } });
  assert(!before.isError, text(before));
  const created = await c.request({ method: 'tools/call', params: { name: 'index_codebase', arguments: { path: big, force: true }, task: {} } }, CreateTaskResultSchema);
  await new Promise((r) => setTimeout(r, 150));
  const cancelled = await c.request({ method: 'tasks/cancel', params: { taskId: created.task.taskId } }, CancelTaskResultSchema);
  eq(cancelled.status, 'cancelled', 'tasks/cancel answer');
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 40));
    const g = await c.request({ method: 'tasks/get', params: { taskId: created.task.taskId } }, GetTaskResultSchema);
    assert(g.status === 'cancelled' && /cancel/i.test(g.statusMessage || ''), `status message after cancel: ${g.status} ${g.statusMessage}`);
  }
  for (let i = 0; i < 50 && !statuses.length; i++) await new Promise((r) => setTimeout(r, 20));
  eq(statuses.map((p) => [p.taskId, p.status]), [[created.task.taskId, 'cancelled']], 'status notification on cancel');
  const res = await c.request({ method: 'tasks/result', params: { taskId: created.task.taskId } }, CallToolResultSchema, { timeout: 30000 });
  assert(res.isError && /cancel/i.test(text(res)), `result says cancelled: ${text(res)}`);
  const got = await c.request({ method: 'tasks/get', params: { taskId: created.task.taskId } }, GetTaskResultSchema);
  eq(got.status, 'cancelled', 'stays cancelled');
  assert(/cancel/i.test(got.statusMessage || ''), `the build's progress must not overwrite the cancelled message: ${got.statusMessage}`);
  const after = await c.callTool({ name: 'goto_definition', arguments: { symbol: 'f3_7' } });
  assert(!after.isError && after.structuredContent.definitions.length === 1, `old index still answers: ${text(after)}`);
  await c.close();
}, 60000);

await run('tasks/ignored-before-2025-11-25', async () => {
  const s = rawServer(repo);
  await s.init('2025-06-18');
  s.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'index_codebase', arguments: { path: repo }, task: { ttl: 1000 } } });
  const r = await s.waitId(1, 30000);
  assert(r.result && !r.result.task && r.result.structuredContent && r.result.structuredContent.status === 'completed', `plain result: ${JSON.stringify(r).slice(0, 300)}`);
  await s.close();
}, 40000);

await run('tasks/sdk-callToolStream', async () => {
  const c = await stdioClient(repo);
  const kinds = [];
  let result;
  for await (const m of c.experimental.tasks.callToolStream({ name: 'index_codebase', arguments: { path: repo } }, CallToolResultSchema, { task: { ttl: 30000 } })) {
    kinds.push(m.type);
    if (m.type === 'result') result = m.result;
    if (m.type === 'error') throw m.error;
  }
  assert(kinds[0] === 'taskCreated' && kinds.at(-1) === 'result', `stream: ${kinds.join(',')}`);
  assert(result && !result.isError, 'task result ok');
  await c.close();
}, 30000);

// ---- index lifecycle while serving ----------------------------------------------------------
await run('rebuild-while-serving', async () => {
  const fresh = path.join(tmp, 'fresh');
  fs.cpSync(path.join(top, 'testdata/mcp'), fresh, { recursive: true });
  const c = await stdioClient(fresh);
  let r = await c.callTool({ name: 'goto_definition', arguments: { symbol: 'zebra_unique' } });
  assert(r.isError && /No index at/.test(text(r)), 'no index yet');
  build(fresh);
  r = await c.callTool({ name: 'goto_definition', arguments: { symbol: 'login' } });
  assert(!r.isError, `index built after start is opened lazily: ${text(r)}`);
  fs.writeFileSync(path.join(fresh, 'src/zebra.c'), '/* zebra */\nint zebra_unique(void)\n{\n\treturn 7;\n}\n');
  build(fresh);
  r = await c.callTool({ name: 'goto_definition', arguments: { symbol: 'zebra_unique' } });
  assert(!r.isError && r.structuredContent.definitions[0].path === 'src/zebra.c', `rebuild seen by the next request: ${text(r)}`);
  build(fresh, ['--force']);
  r = await c.callTool({ name: 'search_code', arguments: { query: 'zebra' } });
  assert(!r.isError && r.structuredContent.results.length >= 1, `forced rebuild seen: ${text(r)}`);
  await c.close();
});

await client.close();

// ---- streamable HTTP -------------------------------------------------------------------------
async function httpServer(index, extra = []) {
  const p = spawn(MCPIDX, ['serve', index, '--http', '127.0.0.1:0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  const url = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no listen line: ${err}`)), 5000);
    p.stderr.on('data', (d) => { err += d; const m = err.match(/serving MCP on (http:\/\/\S+\/mcp)/); if (m) { clearTimeout(t); resolve(m[1]); } });
    p.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    p.on('error', (e) => reject(new Error(`cannot run ${MCPIDX}: ${e.message}`)));
  });
  return { p, url, stop: () => new Promise((r) => { p.on('exit', r); p.kill('SIGTERM'); }) };
}

await run('http/sdk-client-tools', async () => {
  const h = await httpServer(repo);
  try {
    const transport = new StreamableHTTPClientTransport(new URL(h.url));
    const c = new Client({ name: 'mcpidx-http-tests', version: '1.0.0' });
    await c.connect(transport);
    assert(transport.sessionId && /^[0-9a-f]{32}$/.test(transport.sessionId), `session id: ${transport.sessionId}`);
    eq(transport.protocolVersion, '2025-11-25', 'negotiated over HTTP');
    const list = await c.listTools();
    eq(list.tools.map((t) => t.name), TOOLS, 'tools over HTTP');
    const r = await c.callTool({ name: 'read_file', arguments: { path: 'src/auth.c' } });
    assert(!r.isError && /login/.test(text(r)), text(r));
    const bad = await c.callTool({ name: 'search_code', arguments: {} });
    assert(bad.isError && /Missing required argument: query/.test(text(bad)), 'bad args over HTTP');
    eq(await c.ping(), {}, 'ping over HTTP');
    await transport.terminateSession();
    const res = await fetch(h.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': transport.sessionId || 'x' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    eq(res.status, 404, 'session gone after DELETE');
    await c.close();
  } finally { await h.stop(); }
});

await run('http/sse-progress-and-logging', async () => {
  const h = await httpServer(big);
  try {
    const transport = new StreamableHTTPClientTransport(new URL(h.url));
    const c = new Client({ name: 'mcpidx-http-sse', version: '1.0.0' });
    await c.connect(transport);
    const { LoggingMessageNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const msgs = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { msgs.push(n.params); });
    const seen = [];
    const r = await c.callTool({ name: 'index_codebase', arguments: { path: big, force: true } }, CallToolResultSchema,
      { onprogress: (p) => seen.push(p), timeout: 60000 });
    assert(!r.isError, text(r));
    assert(seen.length >= 2 && seen.some((p) => p.total >= 6000), `progress over SSE: ${JSON.stringify(seen.slice(0, 3))}`);
    await c.setLoggingLevel('debug');
    const r2 = await c.callTool({ name: 'goto_definition', arguments: { symbol: 'f3_7' } });
    assert(!r2.isError && r2.structuredContent.definitions.length === 1, text(r2));
    assert(msgs.some((m) => m.level === 'debug' && /goto_definition/.test(String(m.data))), `log message over SSE: ${JSON.stringify(msgs)}`);
    await c.close();
  } finally { await h.stop(); }
}, 60000);

await run('http/headers-origin-host-version', async () => {
  const h = await httpServer(repo);
  try {
    const post = (headers, body) => fetch(h.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'f', version: '1' } } };
    eq((await post({ Origin: 'http://evil.example' }, init)).status, 403, 'foreign Origin');
    eq((await post({ Origin: 'http://localhost:3000' }, init)).status, 200, 'loopback Origin');
    const r = await post({}, init);
    const sid = r.headers.get('mcp-session-id');
    assert(sid, 'Mcp-Session-Id on initialize');
    eq((await post({}, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status, 400, 'missing session id');
    eq((await post({ 'Mcp-Session-Id': 'nope' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status, 404, 'unknown session id');
    eq((await post({ 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '1999-01-01' }, { jsonrpc: '2.0', id: 2, method: 'ping' })).status, 400, 'bad protocol version header');
    eq((await post({ 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' }, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202, 'notification accepted');
    const bad = await fetch(h.url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Mcp-Session-Id': sid }, body: '{"jsonrpc":' });
    eq((await bad.json()).error.code, -32700, 'parse error over HTTP');
    // GET opens the session's own stream: one per session, event-stream only.
    const ac = new AbortController();
    const g1 = await fetch(h.url, { method: 'GET', signal: ac.signal, headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': sid } });
    eq(g1.status, 200, 'GET with the session id opens its stream');
    assert(/text\/event-stream/.test(g1.headers.get('content-type')), `GET stream type: ${g1.headers.get('content-type')}`);
    const rd0 = g1.body.getReader();
    const first = Buffer.from((await rd0.read()).value).toString();
    rd0.releaseLock();
    assert(/^id: \d+\nretry: \d+/.test(first), `GET stream starts with an id and retry: ${JSON.stringify(first)}`);
    eq((await fetch(h.url, { method: 'GET', headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': sid } })).status, 409, 'a second GET stream of the session');
    // A reconnection (Last-Event-ID) replaces the stream the client lost.
    const g2 = await fetch(h.url, { method: 'GET', signal: ac.signal, headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': sid, 'Last-Event-ID': '1' } });
    eq(g2.status, 200, 'GET with Last-Event-ID reconnects');
    const rd1 = g1.body.getReader();
    let ended = false;
    for (let i = 0; i < 50 && !ended; i++) ended = (await Promise.race([rd1.read(), new Promise((r) => setTimeout(() => r({ done: false }), 100))])).done;
    assert(ended, 'the replaced GET stream ends');
    eq((await fetch(h.url, { method: 'GET', headers: { Accept: 'application/json', 'Mcp-Session-Id': sid } })).status, 406, 'GET without Accept: text/event-stream');
    eq((await fetch(h.url, { method: 'GET', headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': 'nope' } })).status, 404, 'GET with an unknown session id');
    eq((await fetch(h.url, { method: 'GET', headers: { Accept: 'text/event-stream' } })).status, 405, 'GET without a session id');
    ac.abort();
    const rebind = await new Promise((resolve) => {
      import('node:http').then(({ request }) => {
        const u = new URL(h.url);
        const rq = request({ host: u.hostname, port: u.port, path: '/mcp', method: 'POST', headers: { Host: 'attacker.example:80', 'Content-Type': 'application/json' } }, (res) => resolve(res.statusCode));
        rq.end(JSON.stringify(init));
      });
    });
    eq(rebind, 403, 'foreign Host header');
  } finally { await h.stop(); }
});

await run('http/refuses-non-loopback-bind', async () => {
  let out = '';
  try { execFileSync(MCPIDX, ['serve', repo, '--http', '0.0.0.0:0'], { stdio: 'pipe', timeout: 5000 }); } catch (e) { out = String(e.stderr); assert(e.status !== 0 && e.status !== null, `exit status ${e.status}`); }
  assert(/loopback/.test(out) && /--allow-remote/.test(out), `message: ${out}`);
});

fs.rmSync(tmp, { recursive: true, force: true });
finish();
