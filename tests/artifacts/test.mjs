// End-to-end tests of the artifact round trip of `mcpidx serve`: the official
// MCP SDK client plays the host and a scripted "model" answers each prompt.
// generate -> store -> get -> search finds it -> the source changes -> stale
// -> delete; generate_artifact; chain limits and timeouts; two servers
// storing at once; a server killed while storing; bad input.  The index is
// checked to stay unwritten throughout.
// Prints one `PASS name` or `FAIL name: why` line per case; exits 1 on any FAIL.
//   MCPIDX=/path/to/mcpidx node test.mjs [name-filter]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MCPIDX = process.env.MCPIDX || 'mcpidx';
EventEmitter.defaultMaxListeners = 200; // many calls in flight on one stdio pipe
const filter = process.argv[2] || '';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpidx-art-'));
const repo = path.join(tmp, 'repo');
const logFile = path.join(tmp, 'server.log');
const ART_TOOLS = ['generate_prompt', 'store_llm_result', 'get_artifact', 'list_artifacts',
  'delete_artifact', 'generate_artifact'];

let failures = 0;
function assert(cond, why) { if (!cond) throw new Error(why); }
function eq(a, b, what) {
  assert(JSON.stringify(a) === JSON.stringify(b),
    `${what}: expected ${JSON.stringify(b)}, got ${JSON.stringify(a)}`);
}
function text(r) { return (r.content || []).map((c) => c.text || '').join(''); }
function sha(file) { return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'); }
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

async function run(name, fn, timeoutMs = 30000) {
  if (filter && !name.includes(filter)) return;
  const t0 = Date.now();
  let timer;
  try {
    await Promise.race([fn(), new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    })]);
    console.log(`PASS ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${String(e && e.message || e).replace(/\n/g, ' ').slice(0, 500)}`);
  } finally { clearTimeout(timer); }
}

async function server(extra = [], dir = repo) {
  const transport = new StdioClientTransport({
    command: MCPIDX, args: ['serve', dir, '--artifacts', '--log', logFile, ...extra], stderr: 'pipe',
  });
  const client = new Client({ name: 'artifact-host', version: '1.0.0' });
  await client.connect(transport);
  client.pid = transport.pid;
  return client;
}

async function call(client, name, args) {
  return client.callTool({ name, arguments: args }, CallToolResultSchema);
}
// The structured answer of an artifact tool: status, data, error, nextAction.
async function tool(client, name, args) {
  const r = await call(client, name, args);
  const s = r.structuredContent;
  assert(s && typeof s.status === 'string' && 'nextAction' in s,
    `${name}: structured answer with status and nextAction, got ${JSON.stringify(r).slice(0, 300)}`);
  eq(r.isError, s.status === 'error', `${name}: isError matches status ${s.status}`);
  return s;
}

// The scripted model: answers a prompt the way a host's model would, from the
// prompt alone.  Annotations name every function of the outline; summaries
// use words the code never contains, so search can only find them there.
function model(prompt) {
  if (/^Annotate the functions/.test(prompt)) {
    const names = [...prompt.matchAll(/^F> .*?\b(\w+)\(/gm)].map((m) => m[1]);
    return names.map((n) => `${n}: handles the ${n.replace(/_/g, ' ')} step of the cache`).join('\n');
  }
  const sym = /^Symbol: (\S+)/m.exec(prompt);
  if (sym && sym[1] === 'cache_evict')
    return 'Drops one entry from the table, freeing its strings: a zephyrine purge.';
  if (/^Summarize this file/.test(prompt))
    return 'A tiny chained hash table keyed by strings.';
  return `Notes about ${sym ? sym[1] : 'the file'}.`;
}

// ---- setup ----------------------------------------------------------------------
fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
const cacheSrc = `#include <stdlib.h>
#include <string.h>

struct entry { char *key; char *val; struct entry *next; };

static unsigned bucket(const char *key, unsigned n)
{
	unsigned h = 5381;
	while (*key)
		h = h * 33 + (unsigned char)*key++;
	return h % n;
}

const char *cache_get(struct entry **tab, unsigned n, const char *key)
{
	for (struct entry *e = tab[bucket(key, n)]; e; e = e->next)
		if (strcmp(e->key, key) == 0)
			return e->val;
	return NULL;
}

void cache_evict(struct entry **tab, unsigned n, const char *key)
{
	struct entry **pp = &tab[bucket(key, n)];
	while (*pp) {
		struct entry *e = *pp;
		if (strcmp(e->key, key) == 0) {
			*pp = e->next;
			free(e->key);
			free(e->val);
			free(e);
			return;
		}
		pp = &e->next;
	}
}
`;
fs.writeFileSync(path.join(repo, 'src/cache.c'), cacheSrc);
let big = '';
for (let i = 0; i < 3000; i++) big += `int f${i}(int x)\n{\n\treturn x * ${i} + ${i % 7};\n}\n\n`;
fs.writeFileSync(path.join(repo, 'src/big.c'), big);
for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(repo, `src/w${i}.c`), `int w${i}(void) { return ${i}; }\n`);
try { execFileSync(MCPIDX, ['build', repo], { stdio: 'pipe' }); } catch (e) {
  console.log(`FAIL setup: mcpidx build failed: ${e.stderr || e.message}`);
  process.exit(1);
}
const dataMdb = path.join(repo, '.mcpidx/data.mdb');
const indexSum = sha(dataMdb);

const host = await server();

// ---- the surface --------------------------------------------------------------
await run('tools/list/artifact-tools', async () => {
  const tools = (await host.listTools()).tools;
  const names = tools.map((t) => t.name);
  for (const n of ART_TOOLS) assert(names.includes(n), `tools/list lacks ${n}`);
  const ro = { generate_prompt: true, get_artifact: true, list_artifacts: true, generate_artifact: true,
    store_llm_result: false, delete_artifact: false };
  for (const t of tools.filter((x) => ART_TOOLS.includes(x.name))) {
    eq(t.annotations.readOnlyHint, ro[t.name], `${t.name}.readOnlyHint`);
    eq(t.outputSchema.type, 'object', `${t.name}.outputSchema`);
    assert(t.outputSchema.required.includes('status'), `${t.name}: status required`);
  }
  eq(tools.find((t) => t.name === 'delete_artifact').annotations.destructiveHint, true,
    'delete_artifact is destructive');
  eq(tools.find((t) => t.name === 'store_llm_result').annotations.destructiveHint, false,
    'store_llm_result is not destructive');
  const gp = tools.find((t) => t.name === 'generate_prompt');
  eq(gp.inputSchema.properties.task.enum, ['annotate', 'summarize', 'document', 'test-plan', 'aliases'],
    'generate_prompt tasks');
  const ga = tools.find((t) => t.name === 'generate_artifact');
  eq(ga.inputSchema.properties.task.enum, ['parse', 'annotate', 'summarize'], 'generate_artifact tasks');
});

// ---- the full chain ---------------------------------------------------------------
let stored;
await run('chain/generate-store-get-stale-delete', async () => {
  const p = await tool(host, 'generate_prompt', { path: 'src/cache.c', task: 'summarize', symbol: 'cache_evict' });
  eq(p.status, 'prompt_ready', 'generate_prompt status');
  eq(p.callbackTool, 'store_llm_result', 'callbackTool');
  eq(p.callbackArgs.path, 'src/cache.c', 'callbackArgs.path');
  eq(p.callbackArgs.step, 1, 'first step');
  assert(/^ch-[0-9a-f]{16}$/.test(p.callbackArgs.chain), `chain id: ${p.callbackArgs.chain}`);
  assert(p.promptForHostLLM.includes('F> void cache_evict(struct entry **tab, unsigned n, const char *key) { ... }'),
    'the prompt carries the folded outline');
  assert(p.promptForHostLLM.includes('*pp = e->next;'), 'and the body it needs');
  assert(!p.promptForHostLLM.includes('h * 33'), 'and not the bodies it does not need');
  eq(p.data.prompt.bodies, ['cache_evict'], 'bodies listed');

  const s = await tool(host, 'store_llm_result', { ...p.callbackArgs, result: model(p.promptForHostLLM) });
  eq(s.status, 'success', `store_llm_result: ${s.error}`);
  eq(s.data.step, 2, 'store is step 2 of the chain');
  eq(s.data.artifact.stale, false, 'fresh');
  eq(s.data.artifact.line, 22, 'pinned to the symbol line');
  stored = s.data.artifact;

  const g = await tool(host, 'get_artifact', { path: 'src/cache.c', task: 'summarize' });
  eq(g.status, 'success', 'get_artifact');
  eq(g.data.artifacts.length, 1, 'one artifact');
  assert(g.data.artifacts[0].text.includes('zephyrine'), 'the stored text');
  eq(g.data.artifacts[0].chain, p.callbackArgs.chain, 'correlation id of the chain');

  const l = await tool(host, 'list_artifacts', {});
  eq(l.data.total, 1, 'list total');
  eq(l.data.tree.dirs[0].name, 'src', 'tree: src/');
  eq(l.data.tree.dirs[0].files[0].artifacts[0].symbol, 'cache_evict', 'tree leaf');

  // search_code ranks the function by words only its summary holds.
  const sr = await call(host, 'search_code', { query: 'zephyrine purge', format: 'json' });
  assert(!sr.isError, text(sr));
  eq(sr.structuredContent.results[0] && sr.structuredContent.results[0].symbols, ['cache_evict'],
    `search finds the summary's function: ${JSON.stringify(sr.structuredContent.results.slice(0, 2))}`);
  const rf = await call(host, 'read_file', { path: 'src/cache.c', summaries: true });
  assert(text(rf).includes('F> void cache_evict(struct entry **tab, unsigned n, const char *key) { ... }\n' +
    'V* summary: Drops one entry from the table, freeing its strings: a zephyrine purge.'),
    `read_file summaries: V* summary under the function: ${text(rf)}`);
  assert(!text(await call(host, 'read_file', { path: 'src/cache.c' })).includes('V* summary'),
    'no summaries unless asked');
  const ex = await call(host, 'expand_at', { path: 'src/cache.c', selector: 'cache_evict', what: 'docs' });
  assert(text(ex).includes('V* summary: Drops one entry'), `expand_at docs: ${text(ex)}`);

  fs.appendFileSync(path.join(repo, 'src/cache.c'), '\nint cache_size(void) { return 0; }\n');
  const g2 = await tool(host, 'get_artifact', { path: 'src/cache.c' });
  eq(g2.data.artifacts[0].stale, true, 'stale after the source changed');
  assert(/generate_prompt/.test(g2.nextAction), `nextAction says how to refresh: ${g2.nextAction}`);
  const l2 = await tool(host, 'list_artifacts', { directory: 'src' });
  eq(l2.data.stale, 1, 'list counts it stale');

  const d = await tool(host, 'delete_artifact', { path: 'src/cache.c', task: 'summarize' });
  eq(d.data.deleted, 1, 'deleted');
  const g3 = await tool(host, 'get_artifact', { path: 'src/cache.c' });
  eq(g3.status, 'error', 'gone after delete');
  fs.writeFileSync(path.join(repo, 'src/cache.c'), cacheSrc);
});

await run('chain/annotate-splits-per-function', async () => {
  const p = await tool(host, 'generate_prompt', { path: 'src/cache.c', task: 'annotate' });
  const s = await tool(host, 'store_llm_result', { ...p.callbackArgs, result: model(p.promptForHostLLM) });
  eq(s.data.per_symbol, 3, 'one artifact per function');
  const g = await tool(host, 'get_artifact', { path: 'src/cache.c', task: 'annotate', symbol: 'cache_get' });
  eq(g.data.artifacts[0].text, 'handles the cache get step of the cache', 'per-function text');
  await tool(host, 'delete_artifact', { path: 'src/cache.c' });
});

await run('generate_artifact/parse-and-annotate', async () => {
  const p = await tool(host, 'generate_artifact', { path: 'src/cache.c', task: 'parse' });
  eq(p.status, 'success', 'parse answers at once');
  assert(p.data.artifact.text.includes('F> const char *cache_get('), 'the file structure');
  eq(p.data.artifact.stored, false, 'parse is not stored');
  const a = await tool(host, 'generate_artifact', { path: 'src/cache.c', task: 'annotate',
    options: { focusOn: ['cache_get'] } });
  eq(a.status, 'prompt_ready', 'annotate asks the host model');
  eq(a.data.prompt.bodies, ['cache_get'], 'focusOn picks the bodies');
});

// ---- search_code through the host's model ---------------------------------------------
await run('search/expand-query-round-trip', async () => {
  const plain = await call(host, 'search_code', { query: 'discard element', expand_query: true });
  assert(!plain.isError, text(plain));
  const sc = plain.structuredContent;
  eq(sc.status, 'prompt_ready', 'expand_query asks the host model');
  eq(sc.callbackTool, 'search_code', 'the callback runs the expanded search');
  assert(sc.promptForHostLLM.includes('discard element'), 'the prompt carries the query');
  assert(!sc.results.some((h) => h.start_line === 22), 'the plain words do not find cache_evict');
  const exp = await call(host, 'search_code', { ...sc.callbackArgs, result: '- evict\n- remove entry\nfree' });
  assert(!exp.isError, text(exp));
  eq(exp.structuredContent.status, 'success', 'expanded search');
  assert(exp.structuredContent.expanded_query.includes('evict'), 'expanded query reported');
  assert(exp.structuredContent.results.some((h) => h.path === 'src/cache.c' && h.start_line === 22),
    `the expanded search finds cache_evict: ${JSON.stringify(exp.structuredContent.results.slice(0, 3))}`);
  eq(exp.structuredContent.step, 2, 'the callback is step 2 of the chain');
});

await run('search/synthesize', async () => {
  const r = await call(host, 'search_code', { query: 'cache entry', synthesize: true });
  assert(!r.isError, text(r));
  const sc = r.structuredContent;
  assert(sc.results.length > 0, 'results come back');
  assert(/follow-up questions/.test(sc.promptForHostLLM) && sc.promptForHostLLM.includes('src/cache.c:'),
    `a synthesis prompt over the hits: ${sc.promptForHostLLM}`);
  assert(!sc.callbackTool, 'nothing to send back');
});

// ---- bounds ---------------------------------------------------------------------
await run('chain/max-steps-refused', async () => {
  const c = await server(['--max-steps', '3']);
  try {
    const p = await tool(c, 'generate_prompt', { path: 'src/w0.c', task: 'summarize' });
    await tool(c, 'store_llm_result', { ...p.callbackArgs, result: 'one' });
    const p2 = await tool(c, 'generate_prompt', { path: 'src/w1.c', task: 'summarize', chain: p.callbackArgs.chain });
    eq(p2.callbackArgs.step, 3, 'third step');
    const r = await tool(c, 'store_llm_result', { ...p2.callbackArgs, result: 'two' });
    eq(r.status, 'error', 'step 4 of 3 refused');
    assert(/MAX_STEPS/.test(r.error) && /new chain/.test(r.nextAction), `actionable: ${r.error} / ${r.nextAction}`);
    const g = await tool(c, 'get_artifact', { path: 'src/w1.c' });
    eq(g.status, 'error', 'nothing stored for the refused step');
    const u = await tool(c, 'store_llm_result', { path: 'src/w1.c', task: 'summarize', result: 'x', chain: 'ch-0123456789abcdef' });
    assert(u.status === 'error' && /Unknown chain/.test(u.error), `unknown chain: ${u.error}`);
  } finally { await c.close(); }
});

await run('chain/callback-timeout', async () => {
  const c = await server(['--callback-timeout', '800']);
  try {
    const p = await tool(c, 'generate_prompt', { path: 'src/w2.c', task: 'summarize' });
    eq(p.data.expires_in_ms, 800, 'the prompt says when it expires');
    await sleep(1300);
    const r = await tool(c, 'store_llm_result', { ...p.callbackArgs, result: 'late' });
    assert(r.status === 'error' && /callback timeout/.test(r.error), `late answer refused: ${r.error}`);
    const p2 = await tool(c, 'generate_prompt', { path: 'src/w2.c', task: 'summarize' });
    eq((await tool(c, 'store_llm_result', { ...p2.callbackArgs, result: 'on time' })).status, 'success', 'on time');
  } finally { await c.close(); }
});

await run('tool-timeout/prompt-cut', async () => {
  const c = await server(['--tool-timeout', '1']);
  try {
    const p = await tool(c, 'generate_prompt', { path: 'src/big.c', task: 'annotate' });
    eq(p.status, 'prompt_ready', 'still a prompt');
    assert(p.data.prompt.omitted.length > 2900, `bodies left out past the deadline: ${p.data.prompt.omitted.length}`);
  } finally { await c.close(); }
});

await run('chain/steps-logged', async () => {
  const out = execFileSync(MCPIDX, ['artifacts', repo, 'list', '--json']);
  assert(JSON.parse(out).status === 'success', 'cli list');
  // The log lives in the side store; every step above has a line there.
  const side = path.join(repo, '.mcpidx/side/data.mdb');
  assert(fs.statSync(side).size > 0, 'side store exists');
});

// ---- concurrency and crashes -----------------------------------------------------
await run('concurrent/two-servers-lose-nothing', async () => {
  const a = await server();
  const b = await server();
  try {
    const jobs = [];
    for (let i = 0; i < 20; i++) {
      jobs.push(tool(a, 'store_llm_result', { path: `src/w${i % 4}.c`, task: 'annotate', symbol: `w${i % 4}`, result: `a${i}` }));
      jobs.push(tool(b, 'store_llm_result', { path: `src/w${i % 4}.c`, task: 'document', symbol: `w${i % 4}`, result: `b${i}` }));
      jobs.push(tool(i % 2 ? a : b, 'store_llm_result', { path: 'src/big.c', task: 'summarize', symbol: `f${i}`, result: `s${i}` }));
    }
    const rs = await Promise.all(jobs);
    for (const r of rs) eq(r.status, 'success', 'every store succeeded');
    const l = await tool(a, 'list_artifacts', { directory: 'src' });
    const big = l.data.tree.files.find((f) => f.name === 'big.c');
    eq(big.artifacts.length, 20, 'all 20 big.c summaries from both servers');
    for (const f of l.data.tree.files.filter((x) => /^w\d\.c$/.test(x.name)))
      for (const task of ['annotate', 'document'])
        assert(f.artifacts.some((x) => x.task === task), `${f.name}: the ${task} artifact of its server`);
  } finally { await a.close(); await b.close(); }
});

await run('crash/killed-while-storing-loses-nothing', async () => {
  const c = await server();
  const acked = [];
  let killed = false;
  const jobs = [];
  for (let i = 0; i < 200; i++) {
    jobs.push(tool(c, 'store_llm_result', { path: 'src/big.c', task: 'annotate', symbol: `f${i}`, result: `k${i}` })
      .then((r) => { if (r.status === 'success') acked.push(`f${i}`); }, () => {}));
    if (i === 60) {
      // Kill once some stores have been acknowledged and others are in flight.
      while (acked.length < 10) await sleep(5);
      process.kill(c.pid, 'SIGKILL');
      killed = true;
    }
  }
  await Promise.allSettled(jobs);
  assert(killed, 'the server was killed');
  try { await c.close(); } catch { /* already dead */ }
  const d = await server();
  try {
    const g = await tool(d, 'get_artifact', { path: 'src/big.c', task: 'annotate' });
    const have = new Set(g.data.artifacts.map((x) => x.symbol));
    for (const s of acked) assert(have.has(s), `acknowledged store of ${s} survived the kill`);
    const n = await tool(d, 'store_llm_result', { path: 'src/big.c', task: 'annotate', symbol: 'f999', result: 'after' });
    eq(n.status, 'success', 'a new server writes after the kill');
  } finally { await d.close(); }
});

// ---- tool aliases: the same round trip over a catalog tool ------------------------
await run('aliases/round-trip-feeds-find-tools', async () => {
  const cfg = path.join(tmp, 'servers.json');
  fs.writeFileSync(cfg, JSON.stringify({ mcpServers: { fx: {
    command: process.execPath, args: [path.join(path.dirname(new URL(import.meta.url).pathname), 'fixture.mjs')] } } }));
  const idx = path.join(tmp, 'tidx');
  execFileSync(MCPIDX, ['build', '--servers', cfg, '-o', idx, '-q'], { stdio: 'pipe' });
  const c = await server([], idx);
  try {
    const p = await tool(c, 'generate_prompt', { path: 'tool:fx/greet', task: 'aliases' });
    eq(p.status, 'prompt_ready', `aliases prompt: ${p.error}`);
    assert(p.promptForHostLLM.includes('Greets a person by name.'), 'the prompt carries the tool card');
    assert(/^[0-9a-f]{32}$/.test(p.callbackArgs.hash), 'pinned to the tool hash');
    const s = await tool(c, 'store_llm_result', { ...p.callbackArgs,
      result: '1. wave hello to a colleague\n- say good morning to somebody\nwave hello to a colleague\n' });
    eq(s.status, 'success', `store aliases: ${s.error}`);
    eq(s.data.aliases.phrasings, 2, 'numbering and duplicates dropped');
    const g = await tool(c, 'get_artifact', { path: 'tool:fx/greet' });
    eq(g.data.artifacts[0].text, 'wave hello to a colleague\nsay good morning to somebody\n', 'aliases read back');
    eq(g.data.artifacts[0].stale, false, 'pin matches');
  } finally { await c.close(); }
  execFileSync(MCPIDX, ['build', '--servers', cfg, '-o', idx, '-q'], { stdio: 'pipe' });
  const f = JSON.parse(execFileSync(MCPIDX, ['tools', '-i', idx, 'find', 'wave hello to a colleague', '--json', '--limit', '1']));
  eq(f.tools[0] && f.tools[0].name, 'fx/greet', 'find_tools matches the stored alias');
});

// ---- bad input -------------------------------------------------------------------
await run('errors/structured', async () => {
  const cases = [
    [{ path: '../etc/passwd', task: 'summarize' }, /outside the repository/],
    [{ path: 'src/nope.c', task: 'summarize' }, /not in the index/],
    [{ path: 'src/cache.c', task: 'summarize', symbol: 'nosuch' }, /No symbol 'nosuch'/],
  ];
  for (const [args, re] of cases) {
    const r = await tool(host, 'generate_prompt', args);
    assert(r.status === 'error' && re.test(r.error) && r.nextAction, `${JSON.stringify(args)}: ${r.error}`);
  }
  const e = await tool(host, 'store_llm_result', { path: 'src/cache.c', task: 'summarize', result: 'x', hash: 'zz' });
  assert(e.status === 'error' && /hash/.test(e.error), `bad hash: ${e.error}`);
  const bad = await call(host, 'generate_prompt', { path: 'src/cache.c', task: 'poem' });
  assert(bad.isError && /must be one of/.test(text(bad)), `schema refuses a bad task: ${text(bad)}`);
  const m = await call(host, 'store_llm_result', { path: 'src/cache.c', task: 'summarize' });
  assert(m.isError && /Missing required argument: result/.test(text(m)), `missing result: ${text(m)}`);
});

await run('index/stays-read-only', async () => {
  eq(sha(dataMdb), indexSum, 'the index data file is unchanged by every artifact call');
});

await host.close();
fs.rmSync(tmp, { recursive: true, force: true });
process.exit(failures ? 1 : 0);
