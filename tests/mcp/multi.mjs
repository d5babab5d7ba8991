// A workspace: `mcpidx serve` over several repositories at once, driven by
// the official MCP TypeScript SDK.  Two small repositories from testdata/
// (testdata/mcp as "app", testdata/nav as "shapes"), each indexed, served
// together: the repo argument in every schema, search and navigation
// across both with each result naming its repository, paths resolved to
// the repository holding them, resources whose URIs carry the repository,
// and the command line's errors.
// Prints one `PASS multi/...` or `FAIL multi/...: why` line per case.
//   MCPIDX=/path/to/mcpidx node multi.mjs [name-filter]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assert, eq, finish, run as runCase, text } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const top = path.resolve(here, '../..');
const MCPIDX = process.env.MCPIDX || path.join(top, 'mcpidx');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpidx-multi-'));
const app = path.join(tmp, 'app');
const shapes = path.join(tmp, 'shapes');
const bare = path.join(tmp, 'bare');          // never indexed
const ws = path.join(tmp, 'ws.txt');


const run = (name, fn, timeoutMs) => runCase(`multi/${name}`, fn, timeoutMs);

async function stdioClient(args) {
  const transport = new StdioClientTransport({
    command: MCPIDX, args: ['serve', ...args, '--log-level', 'off'], stderr: 'pipe',
  });
  const client = new Client({ name: 'mcpidx-multi-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

// ---- setup --------------------------------------------------------------------------
fs.cpSync(path.join(top, 'testdata/mcp'), app, { recursive: true });
fs.cpSync(path.join(top, 'testdata/nav'), shapes, { recursive: true });
fs.mkdirSync(bare);
// The same path in both: a path alone cannot say which repository.
for (const d of [app, shapes])
  fs.writeFileSync(path.join(d, 'NOTES.md'), `# Notes of ${path.basename(d)}\n\nKept by hand.\n`);
try {
  for (const d of [app, shapes]) execFileSync(MCPIDX, ['build', '-q', d], { stdio: 'pipe' });
} catch (e) {
  console.log(`FAIL multi/setup: mcpidx build failed: ${e.stderr || e.message}`);
  process.exit(1);
}
fs.writeFileSync(ws, '# the workspace\napp app\n\nshapes shapes/.mcpidx\n');

const c = await stdioClient(['--workspace', ws]);
const call = (name, args) => c.callTool({ name, arguments: args });

await run('tools-list/repo-argument-only-in-a-workspace', async () => {
  const { tools } = await c.listTools();
  assert(tools.length >= 9, `tools listed: ${tools.length}`);
  for (const t of tools) {
    const r = t.inputSchema.properties && t.inputSchema.properties.repo;
    assert(r && r.type === 'string', `${t.name} has a repo argument`);
    eq(r.enum, ['app', 'shapes'], `${t.name} repo enum`);
  }
  const one = await stdioClient([app]);
  const single = await one.listTools();
  await one.close();
  for (const t of single.tools)
    assert(!(t.inputSchema.properties || {}).repo, `${t.name}: no repo argument with one repository`);
});

await run('search_code/across-repos-merged-by-score', async () => {
  const r = await call('search_code', { query: 'session total area', limit: 6 });
  assert(!r.isError, text(r));
  const res = r.structuredContent.results;
  const repos = new Set(res.map((x) => x.repo));
  assert(repos.has('app') && repos.has('shapes'), `hits of both repos: ${JSON.stringify(res.map((x) => [x.repo, x.path]))}`);
  for (let i = 1; i < res.length; i++)
    assert(res[i - 1].score >= res[i].score, `ordered by score: ${res.map((x) => x.score)}`);
  assert(/\[repo app\]/.test(text(r)) && /\[repo shapes\]/.test(text(r)), `text names both repos: ${text(r)}`);
  const links = r.content.filter((x) => x.type === 'resource_link').map((x) => x.uri);
  assert(links.some((u) => u.startsWith('mcpidx://file/shapes/')) &&
    links.some((u) => u.startsWith('mcpidx://file/app/')), `links carry the repo: ${links}`);
});

await run('search_code/pages-across-repos', async () => {
  const all = (await call('search_code', { query: 'session total area', limit: 4 })).structuredContent.results;
  const p1 = (await call('search_code', { query: 'session total area', limit: 2 })).structuredContent.results;
  const p2 = (await call('search_code', { query: 'session total area', limit: 2, offset: 2 })).structuredContent.results;
  const key = (x) => `${x.repo}:${x.path}:${x.start_line}`;
  eq([...p1, ...p2].map(key), all.map(key), 'two pages are the first four');
});

await run('search_docs/across-repos', async () => {
  const r = await call('search_docs', { query: 'notes kept by hand' });
  assert(!r.isError, text(r));
  const got = r.structuredContent.results.filter((x) => x.path === 'NOTES.md').map((x) => x.repo).sort();
  eq(got, ['app', 'shapes'], 'the NOTES.md of each repo');
});

await run('goto_definition/across-repos-names-repo', async () => {
  let r = await call('goto_definition', { symbol: 'login' });
  assert(!r.isError, text(r));
  assert(r.structuredContent.definitions.every((d) => d.repo === 'app'), JSON.stringify(r.structuredContent));
  assert(/^\[repo app\]/.test(text(r)), text(r));
  r = await call('goto_definition', { symbol: 'total_area' });
  eq(r.structuredContent.definitions.map((d) => [d.repo, d.path]), [['shapes', 'shapes.py']], 'found in shapes');
});

await run('find_references/repo-argument-restricts', async () => {
  const r = await call('find_references', { symbol: 'area', kind: 'all', repo: 'shapes' });
  assert(!r.isError, text(r));
  assert(r.structuredContent.references.length > 0, 'some references');
  eq(r.structuredContent.repo, 'shapes', 'answer names its repo');
  const bad = await call('find_references', { symbol: 'area', repo: 'nope' });
  assert(bad.isError && /one of app, shapes/.test(text(bad)), text(bad));
});

await run('read_file/path-picks-the-repo', async () => {
  let r = await call('read_file', { path: 'shapes.py' });
  assert(!r.isError, text(r));
  eq(r.structuredContent.repo, 'shapes', 'repo of shapes.py');
  assert(/class Circle/.test(text(r)), text(r));
  r = await call('expand_at', { path: 'src/auth.c', selector: 'login' });
  assert(!r.isError && r.structuredContent.repo === 'app', text(r));
  r = await call('read_file', { path: 'NOTES.md' });
  assert(r.isError && /several repositories \(app, shapes\)/.test(text(r)), `ambiguous path: ${text(r)}`);
  r = await call('read_file', { path: 'NOTES.md', repo: 'shapes' });
  assert(!r.isError && /Notes of shapes/.test(text(r)), text(r));
  r = await call('read_file', { path: 'missing.c' });
  assert(r.isError && /No file missing.c in the served repositories \(app, shapes\)/.test(text(r)), text(r));
});

await run('index_status/side-by-side', async () => {
  const r = await call('index_status', {});
  assert(!r.isError, text(r));
  eq(r.structuredContent.repos.map((x) => x.repo), ['app', 'shapes'], 'both repos');
  const one = await call('index_status', { repo: 'shapes' });
  eq(one.structuredContent.repo, 'shapes', 'one repo');
  const cr = await call('code_research', { query: 'login' });
  assert(cr.isError && /with repo, one of app, shapes/.test(text(cr)), text(cr));
});

await run('resources/uris-carry-the-repo', async () => {
  const t = await c.listResourceTemplates();
  eq(t.resourceTemplates.map((x) => x.uriTemplate),
    ['mcpidx://file/{repo}/{+path}', 'mcpidx://outline/{repo}/{+path}{?mode,filter}'], 'templates');
  const uris = [];
  let cursor;
  do {
    const page = await c.listResources(cursor ? { cursor } : {});
    uris.push(...page.resources.map((x) => x.uri));
    cursor = page.nextCursor;
  } while (cursor);
  assert(uris.includes('mcpidx://file/app/src/auth.c') && uris.includes('mcpidx://file/shapes/shapes.py'),
    `listed: ${uris}`);
  const f = await c.readResource({ uri: 'mcpidx://file/shapes/NOTES.md' });
  eq(f.contents[0].uri, 'mcpidx://file/shapes/NOTES.md', 'uri echoed');
  assert(/Notes of shapes/.test(f.contents[0].text), f.contents[0].text);
  const o = await c.readResource({ uri: 'mcpidx://outline/app/src/auth.c' });
  assert(/login/.test(o.contents[0].text), o.contents[0].text);
  try {
    await c.readResource({ uri: 'mcpidx://file/nope/shapes.py' });
    throw new Error('read a resource of an unknown repo');
  } catch (e) { assert(e.code === -32002, `not found: ${e.code} ${e.message}`); }
  const comp = await c.complete({ ref: { type: 'ref/resource', uri: 'mcpidx://file/{repo}/{+path}' }, argument: { name: 'repo', value: 'sh' } });
  eq(comp.completion.values, ['shapes'], 'repo completes');
});

await run('http/stateless-and-session-on-a-workspace', async () => {
  const p = spawn(MCPIDX, ['serve', `one=${app}`, `two=${shapes}`, '--http', '127.0.0.1:0', '--log-level', 'info'], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    let err = '';
    const url = await new Promise((resolve, reject) => {
      p.stderr.on('data', (d) => { err += d; const m = /serving MCP on (http:\/\/\S+\/mcp)/.exec(err); if (m) resolve(m[1]); });
      p.on('exit', () => reject(new Error(`server exited: ${err}`)));
    });
    const h = new Client({ name: 'mcpidx-multi-http', version: '1.0.0' });
    await h.connect(new StreamableHTTPClientTransport(new URL(url)));
    const r = await h.callTool({ name: 'goto_definition', arguments: { symbol: 'Circle' } });
    eq(r.structuredContent.definitions.map((d) => d.repo), ['two'], 'named repo over HTTP');
    await h.close();
    const body = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'login', repo: 'one' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } };
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'search_code', 'MCP-Protocol-Version': '2026-07-28' }, body: JSON.stringify(body) });
    const j = await res.json();
    assert(j.result && j.result.structuredContent.repo === 'one', JSON.stringify(j).slice(0, 300));
  } finally { p.kill('SIGTERM'); }
});

await run('unindexed-repo/others-still-answer', async () => {
  const u = await stdioClient([app, bare]);
  const r = await u.callTool({ name: 'search_code', arguments: { query: 'login' } });
  await u.close();
  assert(!r.isError, text(r));
  assert(r.structuredContent.results.every((x) => x.repo === 'app'), 'hits of app');
  eq(r.structuredContent.unavailable.map((x) => x.repo), ['bare'], 'bare is unavailable');
  assert(/\[repo bare\] unavailable: No index at/.test(text(r)), text(r));
});

await run('cli/workspace-errors', async () => {
  const serve = (...a) => spawnSync(MCPIDX, ['serve', ...a], { input: '', encoding: 'utf8', timeout: 10000 });
  fs.mkdirSync(path.join(tmp, 'x', 'app'), { recursive: true });
  let r = serve(app, path.join(tmp, 'x', 'app'));
  assert(r.status === 2 && /two repositories are named app/.test(r.stderr), `duplicate names: ${r.status} ${r.stderr}`);
  fs.writeFileSync(path.join(tmp, 'bad.txt'), 'app app\nghost ./ghost\n');
  r = serve('--workspace', path.join(tmp, 'bad.txt'));
  assert(r.status === 2 && /bad\.txt:2: .*ghost: No such file/.test(r.stderr), `missing path: ${r.status} ${r.stderr}`);
  fs.writeFileSync(path.join(tmp, 'bad2.txt'), 'no/slash app\n');
  r = serve('--workspace', path.join(tmp, 'bad2.txt'));
  assert(r.status === 2 && /cannot name a repository/.test(r.stderr), `bad name: ${r.status} ${r.stderr}`);
  fs.writeFileSync(path.join(tmp, 'empty.txt'), '# nothing\n');
  r = serve('--workspace', path.join(tmp, 'empty.txt'));
  assert(r.status === 2 && /lists no repository/.test(r.stderr), `empty: ${r.status} ${r.stderr}`);
});

await c.close();
fs.rmSync(tmp, { recursive: true, force: true });
finish();
