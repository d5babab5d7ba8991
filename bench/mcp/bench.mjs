// bench.mjs - `make bench-mcp`: mcpidx serve through the protocol, measured
// from an official TypeScript SDK client over stdio (Client +
// StdioClientTransport), side by side with @modelcontextprotocol/server-filesystem
// serving the same files.  Per tool: client-side round trip p50/p99 of warm
// calls on random files and symbols, answer size in o200k tokens (of the text
// content), server start-to-initialized time (median of starts), peak private
// (RssAnon) and file-backed (RssFile) memory.  GNU Global and ripgrep, run
// one process per call as a tool wrapper runs them, are extra peers.
// Prints one table with the targets and PASS/MISS; exits 0 on a missed
// target (exit 1 only when the bench itself cannot run).
//
//   node bench.mjs MCPIDX INDEX CORPUS [N] [--gtags DBPATH] [--out FILE.json] [--ours-only]
//                  [--calls FILE.jsonl]
//
// --calls writes the sampled calls, one JSON line each ({tool, arguments}),
// in the order they are measured: the server log's lines of the measured
// pass follow the same order, so a slow call can be named and replayed
// (bench/mcp/lean.py).
//
// --ours-only measures mcpidx alone (no peers), for before/after runs of one
// change; BENCH_MCP_OURS_ONLY=1 make bench-mcp passes it.
//
// Equivalents on server-filesystem (it has no symbols and no content search):
//   read_file (outline)  -> read_text_file of the same file
//   expand_at            -> read_text_file of the file holding the symbol
//   goto_definition      -> read_text_file of the file holding the definition
//                           (best case: the agent already knows the file), plus
//                           search_files '**/BASENAME' to locate it, on fewer calls
//                           (100, or as many as fit in 60 s: a call walks the tree)
//   search_code          -> none; ripgrep `rg -n -w NAME` is the peer
//   search_docs          -> none (the same words over the documentation)
//
// Sample (fixed seed): N random C files of the corpus; N functions, each a
// random `F>` line of a random file's outline whose name expand_at resolves
// to one symbol in that file.  goto_definition and find_references take the
// name, expand_at the file and name, search_code the name's words
// (`page_cache_alloc` -> "page cache alloc").  Every call is made once
// untimed (warm-up), then timed.  server-filesystem is started as
// node_modules/.bin/mcp-server-filesystem CORPUS (what `npx` runs, without
// npx's own start-up).  Start-to-initialized: spawn until the SDK's connect()
// resolves (initialize answered, initialized sent).  Memory: VmRSS, RssAnon,
// RssFile, VmHWM of /proc/PID/status after every call, peaks kept.  Each
// client lists the tools first, as a host does (the SDK client then checks
// every structuredContent against the tool's outputSchema).
//
// read_file's round trip is also split on the same files: the server's own
// time (its log), a bare client without the SDK (raw.mjs: write, newline,
// JSON.parse) on a second server, and the SDK client's time to the answer's
// first byte, to the parsed message (ReadBuffer, JSON.parse, the JSON-RPC
// schema) and to the resolved call (the result schema, outputSchema
// validation).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { RawClient } from './raw.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(name);
  if (i < 0) return null;
  const v = argv[i + 1];
  argv.splice(i, 2);
  return v;
};
const gtagsArg = opt('--gtags');
const gtagsDb = gtagsArg ? path.resolve(gtagsArg) : null;
const outFile = opt('--out');
const callsFile = opt('--calls');
// --serve-arg ARG (repeatable): passed to `mcpidx serve` (e.g. --lock-memory)
const serveArgs = [];
for (let a; (a = opt('--serve-arg')) !== null;) serveArgs.push(a);
const oursOnly = argv.includes('--ours-only');
if (oursOnly) argv.splice(argv.indexOf('--ours-only'), 1);
const [mcpidxArg, indexArg, corpusArg, nArg] = argv;
if (!corpusArg) {
  console.error('usage: node bench.mjs MCPIDX INDEX CORPUS [N] [--gtags DBPATH] [--out FILE.json] [--calls FILE] [--serve-arg ARG]... [--ours-only]');
  process.exit(2);
}
const MCPIDX = path.resolve(mcpidxArg);
const INDEX = path.resolve(indexArg);
const CORPUS = fs.realpathSync(corpusArg);
const N = Number(nArg || 1000);
const STARTS = 20;           // start-to-initialized samples per server
const PROC_N = Math.min(100, N); // calls for peers that cost a process or a tree walk each
const FS_BIN = path.join(here, 'node_modules/.bin/mcp-server-filesystem');
const pkgVersion = (p) => JSON.parse(fs.readFileSync(path.join(here, 'node_modules', p, 'package.json'), 'utf8')).version;

function die(msg) {
  console.error(`bench-mcp: ${msg}`);
  process.exit(1);
}
for (const [p, what] of [[MCPIDX, 'mcpidx binary'], [INDEX, 'index'], [CORPUS, 'corpus'], [FS_BIN, 'server-filesystem (run npm ci in bench/mcp)']])
  if (!fs.existsSync(p)) die(`no ${what} at ${p}`);

// ---- helpers -------------------------------------------------------------
let seed = 0x9e3779b9;
function rand(n) { // xorshift32, fixed seed: the same sample every run
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed % n;
}
// The client's own garbage collections: a call whose round trip overlaps one
// waited for the client, not for the server or the pipe.
const gcs = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push([e.startTime, e.startTime + e.duration]);
}).observe({ entryTypes: ['gc'] });
const overlapsGc = (a, b) => gcs.some(([s, e]) => s < b && e > a);
// CPU time (ms) of the client's threads other than its main one: V8's
// compiler and garbage-collector helpers, libuv's pool.  On a small machine
// they compete with the main thread and the server for the cores.
function helperCpuMs() {
  let ns = 0;
  for (const t of fs.readdirSync('/proc/self/task')) {
    if (Number(t) === process.pid) continue;
    try { ns += Number(fs.readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ')[0]); } catch { /* gone */ }
  }
  return ns / 1e6;
}

const monoUs = () => Number(process.hrtime.bigint() / 1000n);

function pct(sorted, p) { return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] : NaN; }
function dist(v) {
  const s = [...v].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { n: s.length, p50: pct(s, 0.5), p99: pct(s, 0.99), max: s[s.length - 1], mean };
}
const textOf = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
const tokCache = new Map();
function tokens(s) {
  let t = tokCache.get(s);
  if (t === undefined) { t = countTokens(s); if (s.length > 256) tokCache.set(s, t); }
  return t;
}

function readStatus(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => { const m = s.match(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm')); return m ? Number(m[1]) : 0; };
    return { VmRSS: kb('VmRSS'), RssAnon: kb('RssAnon'), RssFile: kb('RssFile'), VmHWM: kb('VmHWM') };
  } catch { return null; }
}
class Peaks {
  constructor() { this.v = { VmRSS: 0, RssAnon: 0, RssFile: 0, VmHWM: 0 }; this.samples = 0; }
  sample(pid) {
    const s = readStatus(pid);
    if (!s) return null;
    this.samples++;
    for (const k of Object.keys(this.v)) this.v[k] = Math.max(this.v[k], s[k]);
    return s;
  }
}

async function connect(command, args) {
  const transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
  const client = new Client({ name: 'mcpidx-bench', version: '1.0.0' });
  const t0 = performance.now();
  await client.connect(transport);
  const ms = performance.now() - t0;
  await client.listTools();
  // Where a call's time goes inside the SDK: the answer's first bytes reach
  // the transport's ReadBuffer, then the parsed message its onmessage.
  // firstMono: the same moment on CLOCK_MONOTONIC (us), the clock of the
  // server log's `at=` (when the server began the call).
  const marks = { first: NaN, message: NaN, firstMono: NaN };
  const rb = transport._readBuffer, onmessage = transport.onmessage;
  if (rb && typeof rb.append === 'function' && onmessage) {
    const append = rb.append.bind(rb);
    rb.append = (chunk) => {
      if (Number.isNaN(marks.first)) { marks.first = performance.now(); marks.firstMono = monoUs(); }
      return append(chunk);
    };
    transport.onmessage = (m) => { marks.message = performance.now(); return onmessage(m); };
  }
  client.marks = marks;
  return { client, transport, ms, pid: transport.pid };
}

// Spawn -> initialize response received (the SDK's connect), median of STARTS.
async function startTimes(command, args) {
  const v = [];
  for (let i = 0; i < STARTS; i++) {
    const s = await connect(command, args);
    v.push(s.ms);
    await s.client.close();
  }
  return dist(v);
}

// One measured pass: the round trip of each call, the o200k tokens of its text,
// the server's memory after each call.  Tokens are counted after the pass:
// tokenizing a 20k-token answer between two timed calls makes garbage whose
// collection would land in the next call's round trip.
// clock: also each call's start and first byte on CLOCK_MONOTONIC (mono),
// for the legs split by the server log's `at=`.
async function pass(client, pid, peaks, calls, { timed = true, budgetMs = Infinity, clock = false } = {}) {
  const lat = [], texts = [], spans = [], toFirst = [], toMessage = [], toResolve = [], mono = [];
  let errors = 0, firstError = '';
  const mk = client.marks;
  const helper0 = helperCpuMs();
  const start = performance.now();
  for (const [name, args] of calls) {
    // a call that walks the whole tree each time: as many as the budget has
    if (lat.length >= 5 && performance.now() - start > budgetMs) break;
    if (mk) mk.first = mk.message = mk.firstMono = NaN;
    const m0 = monoUs();
    const t0 = performance.now();
    const r = await client.callTool({ name, arguments: args });
    const t1 = performance.now();
    if (mk && timed) {
      toFirst.push(mk.first - t0); toMessage.push(mk.message - mk.first); toResolve.push(t1 - mk.message);
      if (clock) mono.push([m0, mk.firstMono]);
    }
    peaks.sample(pid);
    if (r.isError) { errors++; if (!firstError) firstError = `${name} ${JSON.stringify(args)}: ${textOf(r).slice(0, 200)}`; }
    if (!timed) continue;
    lat.push(t1 - t0);
    spans.push([t0, t1]);
    texts.push(textOf(r));
  }
  const helperMs = helperCpuMs() - helper0;
  await new Promise((r) => setImmediate(r)); // the last gc entries
  const gc = spans.map(([a, b]) => overlapsGc(a, b));
  const tok = texts.map(tokens);
  // the same calls less those that waited for a collection in the client
  const clean = lat.filter((_, i) => !gc[i]);
  const all = dist(lat);
  const split = toFirst.length && toFirst.every(Number.isFinite)
    ? { first_byte: dist(toFirst), to_message: dist(toMessage), to_resolve: dist(toResolve) } : undefined;
  return { ...all, tok: dist(tok), errors, firstError, split, ...(clock ? { mono } : {}), client_helper_threads_ms: helperMs,
    client_gc: { calls: gc.filter(Boolean).length, slowest_1pct: gc.filter((g, i) => g && lat[i] >= all.p99).length,
      without: dist(clean) } };
}

async function pings(client, n) {
  const v = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await client.ping();
    v.push(performance.now() - t0);
  }
  return dist(v);
}

// A process per call, as a tool wrapper runs it; returns latency and tokens of
// the first `keep` lines of its output.
function procPass(cmd, argsOf, items, { cwd, env, keep = 0 }) {
  const lat = [], tok = [];
  for (const it of items) {
    const t0 = performance.now();
    const r = spawnSync(cmd, argsOf(it), { cwd, env, encoding: 'utf8', maxBuffer: 1 << 28 });
    lat.push(performance.now() - t0);
    let out = r.stdout || '';
    if (keep) out = out.split('\n').slice(0, keep).join('\n');
    tok.push(tokens(out));
  }
  return { ...dist(lat), tok: dist(tok), errors: 0 };
}

// ---- sample: files of the corpus, functions from their outlines ------------
function walk(dir, rel, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) walk(path.join(dir, e.name), r, out);
    else if (e.isFile() && /\.[ch]$/.test(e.name)) out.push(r);
  }
  return out;
}
const allFiles = walk(CORPUS, '', []).sort();
if (allFiles.length < 10) die(`only ${allFiles.length} C files under ${CORPUS}`);

const log = (s) => process.stderr.write(`bench-mcp: ${s}\n`);
const results = { corpus: CORPUS, files_in_corpus: allFiles.length, n: N, tools: {}, peers: {} };

// ---- mcpidx --------------------------------------------------------------
const serverLog = outFile ? outFile.replace(/\.json$/, '') + '-server.log' : path.join(path.dirname(INDEX), 'mcp-server.log');
fs.rmSync(serverLog, { force: true });
const ourArgs = ['serve', INDEX, '--log', serverLog, ...serveArgs];
log(`mcpidx serve ${INDEX}: picking ${N} files and ${N} functions`);
const ours = await connect(MCPIDX, ourArgs);
const ourPeaks = new Peaks();
ourPeaks.sample(ours.pid);
const status = await ours.client.callTool({ name: 'index_status', arguments: {} });
results.index = status.structuredContent || {};

// Files: N distinct random ones.  Functions: one random `F>` line of the
// outline of a random file, until N (the same file may give several).
const order = allFiles.map((f, i) => [rand(1 << 30), i]).sort((a, b) => a[0] - b[0]).map(([, i]) => allFiles[i]);
const files = [];
const syms = [];
const outlineOf = new Map();
let notIndexed = 0, rejected = 0;
for (let i = 0; (files.length < N || syms.length < N) && i < order.length * 4; i++) {
  const f = order[i % order.length];
  let text = outlineOf.get(f);
  if (text === undefined) {
    const r = await ours.client.callTool({ name: 'read_file', arguments: { path: f } });
    ourPeaks.sample(ours.pid);
    text = r.isError ? null : textOf(r);
    outlineOf.set(f, text);
    if (text === null) { notIndexed++; continue; }
    if (files.length < N) files.push(f);
  }
  if (text === null || syms.length >= N) continue;
  const fns = [];
  for (const l of text.split('\n')) {
    const n = l.startsWith('F> ') ? fnName(l.slice(3)) : null;
    if (n && n.length > 2) fns.push(n);
  }
  // A name the index resolves to one symbol in that file (an outline line may
  // hold a macro; #ifdef'd twins in one file are ambiguous).
  while (fns.length) {
    const name = fns.splice(rand(fns.length), 1)[0];
    const r = await ours.client.callTool({ name: 'expand_at', arguments: { path: f, selector: name, what: 'signature' } });
    if (!r.isError && !/^V\* ambiguous/.test(textOf(r))) { syms.push({ path: f, name }); break; }
    rejected++;
  }
}
if (files.length < N || syms.length < N) die(`found only ${files.length} indexed files and ${syms.length} functions (N=${N})`);
results.not_indexed_in_sample = notIndexed;
results.rejected_names = rejected;

// The function's name in an outline line `F> SIGNATURE { ... }`: the
// identifier before the parameter list that closes the signature (so
// `__printf(1, 2) void f(const char *fmt, ...)` gives f).
function fnName(sig) {
  let e = sig.replace(/\s*\{ \.\.\. \}\s*$/, '').trimEnd();
  for (;;) { // trailing attributes: `) __acquires(rq->lock)`, `) __init`
    const m = /\)\s+\w+(\([^()]*\))?$/.exec(e);
    if (!m) break;
    e = e.slice(0, m.index + 1);
  }
  if (!e.endsWith(')')) return null;
  let depth = 0, i = e.length - 1;
  for (; i >= 0; i--) {
    if (e[i] === ')') depth++;
    else if (e[i] === '(' && --depth === 0) break;
  }
  const m = /(\w+)\s*$/.exec(e.slice(0, Math.max(i, 0)));
  return i > 0 && m ? m[1] : null;
}
const words = (name) => name.replace(/_+/g, ' ').trim() || name;
const ourCalls = {
  goto_definition: syms.map((s) => ['goto_definition', { symbol: s.name }]),
  'read_file (outline)': files.map((f) => ['read_file', { path: f }]),
  expand_at: syms.map((s) => ['expand_at', { path: s.path, selector: s.name }]),
  find_references: syms.map((s) => ['find_references', { symbol: s.name, limit: 50 }]),
  search_code: syms.map((s) => ['search_code', { query: words(s.name), limit: 20 }]),
  search_docs: syms.map((s) => ['search_docs', { query: words(s.name) }]),
};
if (callsFile) {
  fs.writeFileSync(callsFile, Object.values(ourCalls).flat()
    .map(([tool, args]) => JSON.stringify({ tool, arguments: args })).join('\n') + '\n');
}
log('mcpidx: warm-up pass');
for (const calls of Object.values(ourCalls)) await pass(ours.client, ours.pid, ourPeaks, calls, { timed: false });
log('mcpidx: measured pass');
// The server writes its log a little after the answers (it gathers lines
// between writes): wait until the file stops growing before cutting it.
async function logQuiet(file) {
  let size = -1;
  for (let i = 0; i < 60; i++) { // bounded: 3 s
    await new Promise((r) => setTimeout(r, 50));
    const now = fs.existsSync(file) ? fs.statSync(file).size : 0;
    if (now === size) return now;
    size = now;
  }
  return size;
}
function serverTimes(file, from) {
  const srv = {};
  for (const l of fs.readFileSync(file).subarray(from).toString('utf8').split('\n')) {
    const m = / tool=(\S+) ms=([\d.]+)(?: at=(\d+))?/.exec(l);
    if (m) {
      (srv[m[1]] ||= []).push(Number(m[2]));
      if (m[3]) ((srv.at ||= {})[m[1]] ||= []).push(Number(m[3]));
    }
  }
  return srv;
}
const logFrom = await logQuiet(serverLog);
// The server's major faults (field 12 of /proc/PID/stat: pages read from
// the disk) over the measured pass: a host that pages out memory not used
// for a while takes back index pages the warm-up read.
// And its minor faults (field 10: a page mapped again without a read) per
// tool: each is a stall of the call that meets it.
const statField = (pid, field) => {
  try { return Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[field - 3]); } catch { return NaN; }
};
const majflt = (pid) => statField(pid, 12), minflt = (pid) => statField(pid, 10);
const faultsFrom = majflt(ours.pid);
const loadFrom = os.loadavg()[0];
results.ping = await pings(ours.client, N);
for (const [tool, calls] of Object.entries(ourCalls)) {
  const min0 = minflt(ours.pid);
  results.tools[tool] = { ours: await pass(ours.client, ours.pid, ourPeaks, calls, { clock: true }) };
  results.tools[tool].server_minor_faults = minflt(ours.pid) - min0;
  ourPeaks.sample(ours.pid);
}
const ourFinal = readStatus(ours.pid);
results.machine = { cpus: os.cpus().length, load_start: loadFrom, load_end: os.loadavg()[0],
  server_major_faults: majflt(ours.pid) - faultsFrom, serve_args: serveArgs };
// Server-side time of the same calls, from its log (`tool=NAME ms=X`).
await logQuiet(serverLog);
const srv = serverTimes(serverLog, logFrom);
for (const [tool, calls] of Object.entries(ourCalls)) {
  const v = srv[calls[0][0]];
  if (v && v.length === calls.length) {
    results.tools[tool].server = dist(v);
    // Each call's time in legs, on one clock (CLOCK_MONOTONIC): the client
    // and the pipe to the server (call -> the server begins), the server,
    // and the way back (the server's answer made -> its first bytes in the
    // client's read buffer: the write, the pipe, the client's wake-up).
    const at = srv.at && srv.at[calls[0][0]], mono = results.tools[tool].ours.mono;
    if (at && mono && at.length === v.length && mono.length === v.length) {
      const legs = v.map((ms, i) => ({ rt: (mono[i][1] - mono[i][0]) / 1000, to: (at[i] - mono[i][0]) / 1000, srv: ms,
        back: (mono[i][1] - at[i]) / 1000 - ms }));
      const slow = [...legs].sort((a, b) => b.rt - a.rt).slice(0, Math.max(1, Math.ceil(legs.length / 100)));
      const mean = (xs, k) => xs.reduce((a, x) => a + x[k], 0) / xs.length;
      results.tools[tool].legs = { to_server: dist(legs.map((x) => x.to)), back: dist(legs.map((x) => x.back)),
        slowest_1pct_mean: { first_byte: mean(slow, 'rt'), to_server: mean(slow, 'to'), server: mean(slow, 'srv'), back: mean(slow, 'back') } };
      if (outFile) results.tools[tool].legs.calls = legs.map((x, i) => ({ ...x, t0: mono[i][0] }));
    }
    delete results.tools[tool].ours.mono;
    // where the server's tail comes from: its five slowest calls
    const each = v.map((ms, i) => ({ ms, args: calls[i][1] }));
    results.tools[tool].server_slowest = [...each].sort((a, b) => b.ms - a.ms).slice(0, 5);
    // every call's server time, in call order (--out only: to find a tail's queries)
    if (outFile) results.tools[tool].server_calls = each;
  }
}
await ours.client.close();
results.memory = { ours: { ...ourPeaks.v, final: ourFinal, samples: ourPeaks.samples } };

// ---- read_file from a bare client (no SDK), same files, its own server -----
{
  const rawLog = serverLog.replace(/(\.log)?$/, '-raw.log');
  fs.rmSync(rawLog, { force: true });
  const raw = new RawClient(MCPIDX, ['serve', INDEX, '--log', rawLog]);
  await raw.connect();
  await raw.request('tools/list', {});
  const once = async (timed) => {
    const lat = [], first = [], bytes = [], spans = [];
    const helper0 = helperCpuMs();
    for (const f of files) {
      const t0 = performance.now();
      const r = await raw.callTool('read_file', { path: f });
      const t1 = performance.now();
      if (!timed) continue;
      lat.push(t1 - t0); first.push(r.first - t0); bytes.push(r.bytes); spans.push([t0, t1]);
    }
    return { lat, first, bytes, spans, helperMs: helperCpuMs() - helper0 };
  };
  log('mcpidx: read_file from a bare client (no SDK)');
  await once(false);
  const from = await logQuiet(rawLog);
  const pings = [];
  for (let i = 0; i < N; i++) { const t0 = performance.now(); await raw.request('ping', {}); pings.push(performance.now() - t0); }
  const m = await once(true);
  await new Promise((r) => setImmediate(r));
  const gc = m.spans.filter(([a, b]) => overlapsGc(a, b)).length;
  await logQuiet(rawLog);
  const sv = serverTimes(rawLog, from).read_file;
  results.raw_client = { read_file: { ...dist(m.lat), first_byte: dist(m.first), bytes: dist(m.bytes), client_gc_calls: gc,
    client_helper_threads_ms: m.helperMs,
    server: sv && sv.length === files.length ? dist(sv) : undefined }, ping: dist(pings) };
  await raw.close();
}

// ---- server-filesystem ---------------------------------------------------
const fsArgs = [CORPUS];
let readTool = 'read_text_file';
if (!oursOnly) {
log(`server-filesystem ${pkgVersion('@modelcontextprotocol/server-filesystem')} on ${CORPUS}`);
const peer = await connect(FS_BIN, fsArgs);
const fsPeaks = new Peaks();
fsPeaks.sample(peer.pid);
const { tools: fsTools } = await peer.client.listTools();
if (!fsTools.some((t) => t.name === 'read_text_file')) readTool = 'read_file';
const abs = (p) => path.join(CORPUS, p);
const fsCalls = {
  goto_definition: syms.map((s) => [readTool, { path: abs(s.path) }]),
  'read_file (outline)': files.map((f) => [readTool, { path: abs(f) }]),
  expand_at: syms.map((s) => [readTool, { path: abs(s.path) }]),
};
const locate = syms.slice(0, PROC_N).map((s) => ['search_files', { path: CORPUS, pattern: `**/${path.basename(s.path)}` }]);
log(`server-filesystem: warm-up pass (${readTool})`);
for (const calls of Object.values(fsCalls)) await pass(peer.client, peer.pid, fsPeaks, calls, { timed: false });
log('server-filesystem: measured pass');
results.peers.fs_ping = await pings(peer.client, N);
for (const [tool, calls] of Object.entries(fsCalls)) results.tools[tool].fs = await pass(peer.client, peer.pid, fsPeaks, calls);
log(`server-filesystem: search_files to locate the file, ${locate.length} calls`);
await pass(peer.client, peer.pid, fsPeaks, locate.slice(0, 2), { timed: false });
// On the whole kernel one call walks 79,000 files (about 10 s): 60 s of them.
results.peers.search_files = await pass(peer.client, peer.pid, fsPeaks, locate, { budgetMs: 60000 });
const fsFinal = readStatus(peer.pid);
await peer.client.close();
results.memory.fs = { ...fsPeaks.v, final: fsFinal, samples: fsPeaks.samples };
results.fs_read_tool = readTool;

// ---- process peers ----------------------------------------------------------
const few = syms.slice(0, PROC_N);
if (gtagsDb && fs.existsSync(path.join(gtagsDb, 'GTAGS'))) {
  log(`global -x, ${few.length} calls`);
  const env = { ...process.env, GTAGSROOT: CORPUS, GTAGSDBPATH: gtagsDb };
  procPass('global', (s) => ['-x', s.name], few.slice(0, 5), { cwd: CORPUS, env });
  results.peers.global = procPass('global', (s) => ['-x', s.name], few, { cwd: CORPUS, env });
}
log(`rg -n -w, ${few.length} calls`);
procPass('rg', (s) => ['-n', '-w', '-m', '20', s.name, '.'], few.slice(0, 5), { cwd: CORPUS, keep: 20 });
results.peers.rg = procPass('rg', (s) => ['-n', '-w', '-m', '20', s.name, '.'], few, { cwd: CORPUS, keep: 20 });

}
// ---- start-to-initialized -------------------------------------------------
log(`start-to-initialized, ${STARTS} starts each`);
results.start = { ours: await startTimes(MCPIDX, ourArgs), fs: oursOnly ? dist([]) : await startTimes(FS_BIN, fsArgs) };
if (oursOnly) {
  results.peers.fs_ping = dist([]);
  results.memory.fs = { VmRSS: NaN, RssAnon: NaN, RssFile: NaN, VmHWM: NaN, samples: 0 };
}

// ---- report ----------------------------------------------------------------
const f2 = (x) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)) : '-');
const ti = (x) => (Number.isFinite(x) ? String(Math.round(x)) : '-');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `x${a / b >= 10 ? (a / b).toFixed(0) : (a / b).toFixed(1)}` : '-');
const mb = (kb) => kb / 1024;
const verdict = (ok) => (ok ? 'PASS' : 'MISS');
const rows = [];
const head = ['', 'mcpidx p50', 'p99', 'in server p50/p99', 'tok p50', 'tok mean', '| server-filesystem equivalent', 'p50', 'p99', 'tok p50', 'tok mean', '| p50 fs/ours', 'tok mean fs/ours', '| target', ''];
const line = (cells) => rows.push(cells);
const T = results.tools;
const targets = {
  goto_definition: ['p99 < 1 ms', (r) => r.p99 < 1],
  'read_file (outline)': ['p99 < 1 ms', (r) => r.p99 < 1],
  expand_at: ['p99 < 1 ms', (r) => r.p99 < 1],
  find_references: ['p99 < 1 ms', (r) => r.p99 < 1],
  search_code: ['p99 < 5 ms', (r) => r.p99 < 5],
  search_docs: ['p99 < 5 ms', (r) => r.p99 < 5],
};
const fsName = {
  goto_definition: `${readTool} (def's file)`,
  'read_file (outline)': `${readTool} (same file)`,
  expand_at: `${readTool} (symbol's file)`,
};
const verdicts = [];
for (const tool of Object.keys(ourCalls)) {
  const o = T[tool].ours, p = T[tool].fs;
  const tg = targets[tool];
  const v = tg ? verdict(tg[1](o)) : '';
  if (tg) verdicts.push([tool, v]);
  const sv = T[tool].server;
  line([tool, f2(o.p50), f2(o.p99), sv ? `${f2(sv.p50)} / ${f2(sv.p99)}` : '-', ti(o.tok.p50), ti(o.tok.mean),
    `| ${p ? fsName[tool] : tool.startsWith('search_') ? '(no content search)' : '(no equivalent)'}`,
    p ? f2(p.p50) : '-', p ? f2(p.p99) : '-', p ? ti(p.tok.p50) : '-', p ? ti(p.tok.mean) : '-',
    `| ${p ? ratio(p.p50, o.p50) : '-'}`, p ? ratio(p.tok.mean, o.tok.mean) : '-', `| ${tg ? tg[0] : ''}`, v]);
}
line(['ping (transport floor)', f2(results.ping.p50), f2(results.ping.p99), '', '', '', '| ping', f2(results.peers.fs_ping.p50), f2(results.peers.fs_ping.p99), '', '', `| ${ratio(results.peers.fs_ping.p50, results.ping.p50)}`, '', '|', '']);
const so = results.start.ours, sf = results.start.fs;
const startOk = so.p50 < 20;
verdicts.push(['start', verdict(startOk)]);
line([`start -> initialized (median of ${STARTS})`, f2(so.p50), f2(so.p99), '', '', '', '| start -> initialized', f2(sf.p50), f2(sf.p99), '', '', `| ${ratio(sf.p50, so.p50)}`, '', '| median < 20 ms', verdict(startOk)]);
const mo = results.memory.ours, mf = results.memory.fs;
const memOk = mb(mo.RssAnon) < 50;
verdicts.push(['private memory', verdict(memOk)]);
line(['peak RssAnon (private), MB', f2(mb(mo.RssAnon)), '', '', '', '', '| peak RssAnon', f2(mb(mf.RssAnon)), '', '', '', `| ${ratio(mf.RssAnon, mo.RssAnon)}`, '', '| < 50 MB', verdict(memOk)]);
line(['peak RssFile (mapped), MB', f2(mb(mo.RssFile)), '', '', '', '', '| peak RssFile', f2(mb(mf.RssFile)), '', '', '', '|', '', '| reported apart', '']);
line(['peak VmRSS / VmHWM, MB', `${f2(mb(mo.VmRSS))} / ${f2(mb(mo.VmHWM))}`, '', '', '', '', '| peak VmRSS / VmHWM', `${f2(mb(mf.VmRSS))} / ${f2(mb(mf.VmHWM))}`, '', '', '', '|', '', '|', '']);

const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
const fmt = (cells) => cells.map((c, i) => (i === 0 || String(c).startsWith('|') ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ').trimEnd();
const ix = results.index;
const out = [];
out.push(`bench-mcp: ${CORPUS} (${ix.files ?? '?'} files, ${ix.symbols ?? '?'} symbols indexed), index ${INDEX}`);
out.push(`client: @modelcontextprotocol/sdk ${pkgVersion('@modelcontextprotocol/sdk')} Client + StdioClientTransport on node ${process.version}; ` +
  `peer: @modelcontextprotocol/server-filesystem ${pkgVersion('@modelcontextprotocol/server-filesystem')} (${path.relative(process.cwd(), FS_BIN)} ${CORPUS})`);
out.push(`${N} warm calls per tool after a warm-up pass (${N} random files; ${N} random functions from their outlines that expand_at resolves, ${rejected} names skipped as ambiguous or macros); ms = client-side round trip (in server: the server's own log); tok = o200k tokens of the text content per answer`);
out.push('');
out.push(fmt(head));
out.push(fmt(head.map((h, i) => '-'.repeat(widths[i]))));
for (const r of rows) out.push(fmt(r));
out.push('');
out.push('extra peers (one process or tree walk per call, as a tool wrapper runs them):');
const pr = (label, r, vs) => out.push(`  ${label.padEnd(44)} n=${String(r.n).padEnd(4)} p50 ${f2(r.p50).padStart(6)} ms  p99 ${f2(r.p99).padStart(6)} ms  tok mean ${ti(r.tok.mean).padStart(6)}${vs ? `   ${vs}` : ''}`);
const sfiles = results.peers.search_files;
if (sfiles) pr('server-filesystem search_files **/BASENAME', sfiles, `locate + ${readTool}: p50 ${f2(sfiles.p50 + T.goto_definition.fs.p50)} ms, ${ratio(sfiles.p50 + T.goto_definition.fs.p50, T.goto_definition.ours.p50)} goto_definition`);
if (results.peers.global) pr('global -x NAME (GNU Global, db outside corpus)', results.peers.global, `vs goto_definition p50 ${ratio(results.peers.global.p50, T.goto_definition.ours.p50)}`);
if (results.peers.rg) pr('rg -n -w -m 20 NAME . (first 20 lines)', results.peers.rg, `vs search_code p50 ${ratio(results.peers.rg.p50, T.search_code.ours.p50)}`);
out.push('');
const errs = Object.entries(T).flatMap(([t, r]) => [['mcpidx', r.ours], ['server-filesystem', r.fs]].filter(([, x]) => x && x.errors).map(([who, x]) => `${who} ${t}: ${x.errors} error answers (first: ${x.firstError})`));
for (const e of errs) out.push(`note: ${e}`);
out.push(`memory: sampled from /proc/PID/status after every call (${mo.samples} samples mcpidx, ${mf.samples} server-filesystem); mcpidx RssFile is the mapped index plus its own binary`);
const mc = results.machine;
out.push(`machine: ${mc.cpus} CPUs, load average ${mc.load_start.toFixed(2)} -> ${mc.load_end.toFixed(2)} over mcpidx's measured pass (p99 on a loaded machine is mostly scheduling); the server read ${mc.server_major_faults} pages from the disk (major faults) in it; its minor faults per tool: ${Object.entries(T).map(([t, r]) => `${t} ${r.server_minor_faults}`).join(', ')}${mc.serve_args.length ? `; serve ${mc.serve_args.join(' ')}` : ''}`);
for (const [tool, r] of Object.entries(T)) {
  const g = r.ours && r.ours.client_gc;
  if (g && g.calls) out.push(`client gc: ${tool}: ${g.calls} of ${r.ours.n} calls overlapped a garbage collection in the client (${g.slowest_1pct} of the slowest 1%); p99 of the others ${f2(g.without.p99)} ms`);
}
{
  const rf = T['read_file (outline)'], rc = results.raw_client && results.raw_client.read_file, sp = rf.ours.split;
  const pp = (d) => (d ? `${f2(d.p50)} / ${f2(d.p99)}` : '-');
  out.push(`read_file round trip split, p50 / p99 ms over the same ${N} files:`);
  out.push(`  in server (its log)                               ${pp(rf.server)}`);
  if (rc) {
    out.push(`  bare client (raw.mjs, no SDK), own server: round trip ${pp(rc)}  (to first byte ${pp(rc.first_byte)}; in server ${pp(rc.server)}; ping ${pp(results.raw_client.ping)}; answer bytes ${ti(rc.bytes.p50)} / ${ti(rc.bytes.p99)}; ${rc.client_gc_calls} calls overlapped a client gc; client helper threads ran ${f2(rc.client_helper_threads_ms)} ms in all)`);
  }
  out.push(`  SDK client round trip                             ${pp(rf.ours)}`);
  if (sp) out.push(`    call -> first byte ${pp(sp.first_byte)}; ReadBuffer + JSON.parse + message schema ${pp(sp.to_message)}; result schema + outputSchema check + resolve ${pp(sp.to_resolve)}; ${rf.ours.client_gc.calls} calls overlapped a client gc; client helper threads ran ${f2(rf.ours.client_helper_threads_ms)} ms in all`);
}
{
  const rows = Object.entries(T).filter(([, r]) => r.legs);
  if (rows.length) {
    out.push(`where each call's time goes to the answer's first byte (one clock, CLOCK_MONOTONIC; p50 / p99 ms; the slowest 1% of calls: their mean in each leg):`);
    out.push(`  ${'tool'.padEnd(22)} ${'client+pipe -> server'.padStart(22)} ${'in server'.padStart(12)} ${'write+pipe+wake back'.padStart(22)}   slowest 1%: first byte = to server + server + back`);
    for (const [tool, r] of rows) {
      const l = r.legs, s = l.slowest_1pct_mean, pp = (d) => `${f2(d.p50)} / ${f2(d.p99)}`;
      out.push(`  ${tool.padEnd(22)} ${pp(l.to_server).padStart(22)} ${pp(r.server).padStart(12)} ${pp(l.back).padStart(22)}   ${f2(s.first_byte)} = ${f2(s.to_server)} + ${f2(s.server)} + ${f2(s.back)}`);
    }
  }
}
out.push(`targets: ${verdicts.map(([t, v]) => `${t} ${v}`).join(', ')}`);
console.log(out.join('\n'));
results.verdicts = Object.fromEntries(verdicts);
if (outFile) fs.writeFileSync(outFile, JSON.stringify(results, null, 1) + '\n');
