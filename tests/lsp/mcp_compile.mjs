// End-to-end tests of the compile tools through MCP, driven by the official
// TypeScript SDK over stdio: a model compiles a target the repository's
// .mcpidx.toml names, reads the error group, and sees the error in the
// outline of the file; what the config does not name is refused.
// Prints one `PASS name` or `FAIL name: why` line per case; exits 1 on any FAIL.
//   MCPIDX=/path/to/mcpidx node mcp_compile.mjs [name-filter]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const top = path.resolve(here, '../..');
const MCPIDX = process.env.MCPIDX || path.join(top, 'mcpidx');
const filter = process.argv[2] || '';
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpidx-mcpc-')));
const repo = path.join(tmp, 'c');       // testdata/compile/c, indexed
const plain = path.join(tmp, 'plain');  // no .mcpidx.toml

let failures = 0;
function assert(cond, why) { if (!cond) throw new Error(why); }
function eq(a, b, what) {
  assert(JSON.stringify(a) === JSON.stringify(b),
    `${what}: expected ${JSON.stringify(b)}, got ${JSON.stringify(a)}`);
}
const text = (r) => (r.content || []).map((c) => c.text || '').join('');
const nosec = (s) => s.replace(/, [0-9.]+s\)\n/, ')\n');

async function run(name, fn, timeoutMs = 60000) {
  if (filter && !name.includes(filter)) return;
  const t0 = Date.now();
  let timer;
  try {
    await Promise.race([fn(), new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    })]);
    console.log(`PASS mcp-compile/${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failures++;
    console.log(`FAIL mcp-compile/${name}: ${String(e && e.message || e).replace(/\n/g, ' ').slice(0, 600)}`);
  } finally {
    clearTimeout(timer);
  }
}

async function client(dir) {
  const transport = new StdioClientTransport({
    command: MCPIDX, args: ['serve', dir, '--log', path.join(tmp, 'server.log')], stderr: 'pipe',
  });
  const c = new Client({ name: 'mcpidx-compile-tests', version: '1.0.0' });
  await c.connect(transport);
  return c;
}

fs.cpSync(path.join(top, 'testdata/compile/c'), repo, { recursive: true });
fs.rmSync(path.join(repo, 'expected'), { recursive: true, force: true });
fs.cpSync(path.join(top, 'testdata/lsp'), plain, { recursive: true });
execFileSync(MCPIDX, ['build', repo], { stdio: 'pipe' });
execFileSync(MCPIDX, ['build', plain], { stdio: 'pipe' });

// The whole loop a model goes through, tool by tool.
await run('compile-read-errors-see-outline', async () => {
  const c = await client(repo);
  const { tools } = await c.listTools();
  const rc = tools.find((t) => t.name === 'run_compile');
  assert(rc && tools.some((t) => t.name === 'read_task_log'), `tools: ${tools.map((t) => t.name)}`);
  eq(rc.inputSchema.properties.target.enum, ['app', 'clang', 'generic'], 'targets as an enum');
  const started = await c.callTool({ name: 'run_compile', arguments: { target: 'app' } });
  assert(!started.isError, `run_compile: ${text(started)}`);
  const id = started.structuredContent.task_id;
  assert(/^compile-/.test(id) && started.structuredContent.status === 'working', `started: ${JSON.stringify(started)}`);
  const counts = await c.callTool({ name: 'read_task_log', arguments: { task_id: id } });
  eq(nosec(text(counts)), 'V* task: make app (failed: exit 2)\nV* INFO x5\nV* WARN x2\nV* ERROR x1\n', 'groups');
  eq(counts.structuredContent.counts, { INFO: 5, WARN: 2, ERROR: 1 }, 'counts');
  const errors = await c.callTool({ name: 'read_task_log', arguments: { task_id: id, group: 'ERROR' } });
  eq(nosec(text(errors)), "V* task: make app (failed: exit 2)\nV* ERROR src/app.c:19:24\n" +
    "    'totl' undeclared (first use in this function)\n    hint: did you mean 'total'?\n", 'error group');
  const m = errors.structuredContent.messages.find((x) => x.group === 'ERROR');
  eq([m.path, m.line, m.column, m.hint], ['src/app.c', 19, 24, "did you mean 'total'?"], 'structured message');
  const outline = await c.callTool({ name: 'read_file', arguments: { path: 'src/app.c' } });
  const o = text(outline);
  assert(o.includes("F> int main(void) { ... }\nV* [W]:18 unused variable 'total'\n" +
    "V* [E]:19 'totl' undeclared (first use in this function)\nV* [H] did you mean 'total'?\n"),
  `outline: ${o}`);
  const compact = await c.callTool({ name: 'read_file', arguments: { path: 'src/app.c', mode: 'compact' } });
  assert(text(compact).startsWith('V* [1E 2W 1H in file]\n'), `compact: ${text(compact)}`);
  await c.close();
});

// Each output line is streamed as notifications/progress on the task's
// progress token while the compile runs.
await run('progress-streams-output', async () => {
  const transport = new StdioClientTransport({ command: MCPIDX, args: ['serve', repo], stderr: 'pipe' });
  const c = new Client({ name: 'mcpidx-compile-tests', version: '1.0.0' });
  await c.connect(transport);
  const seen = [];
  const orig = transport.onmessage;
  transport.onmessage = (m, extra) => { seen.push(m); orig(m, extra); };
  const created = await c.request({ method: 'tools/call', params: { name: 'run_compile',
    arguments: { target: 'clang' }, task: {}, _meta: { progressToken: 'p1' } } }, CreateTaskResultSchema);
  const res = await c.request({ method: 'tasks/result', params: { taskId: created.task.taskId } },
    CallToolResultSchema, { timeout: 60000 });
  assert(text(res).includes('V* ERROR x1'), `result: ${text(res)}`);
  const prog = seen.filter((m) => m.method === 'notifications/progress' && m.params.progressToken === 'p1');
  assert(prog.some((m) => /src\/app\.c:19:17: error: use of undeclared identifier 'totl'/.test(m.params.message)),
    `progress: ${JSON.stringify(prog.map((m) => m.params.message))}`);
  const ps = prog.map((m) => m.params.progress);
  assert(ps.every((p, i) => i === 0 || p > ps[i - 1]), `progress increases: ${ps}`);
  await c.close();
});

await run('as-an-mcp-task', async () => {
  const c = await client(repo);
  const created = await c.request({ method: 'tools/call', params: { name: 'run_compile',
    arguments: { target: 'app' }, task: { ttl: 60000 } } }, CreateTaskResultSchema);
  const tid = created.task.taskId;
  assert(/^compile-/.test(tid) && created.task.status === 'working', `created: ${JSON.stringify(created)}`);
  const res = await c.request({ method: 'tasks/result', params: { taskId: tid } }, CallToolResultSchema, { timeout: 60000 });
  eq(nosec(text(res)), 'V* task: make app (failed: exit 2)\nV* INFO x5\nV* WARN x2\nV* ERROR x1\n', 'task result');
  eq(res.structuredContent.status, 'failed', 'status of a failed compile');
  eq(res._meta['io.modelcontextprotocol/related-task'], { taskId: tid }, 'related task');
  const again = await c.callTool({ name: 'read_task_log', arguments: { task_id: tid, group: 'WARN' } });
  assert(text(again).includes('V* WARN src/app.c:12:13 [-Wunused-variable]'), `warn group: ${text(again)}`);
  await c.close();
});

await run('refused', async () => {
  const c = await client(repo);
  let r = await c.callTool({ name: 'run_compile', arguments: { target: 'rm' } });
  assert(r.isError && /target "rm" is not in .*names: app clang generic/.test(text(r)), `unknown target: ${text(r)}`);
  r = await c.callTool({ name: 'run_compile', arguments: { target: 'app', flags: ['; rm -rf /'] } });
  assert(r.isError && text(r).includes('is not allowed for target "app"; it allows: "-k" "V=1"'), `flag: ${text(r)}`);
  r = await c.callTool({ name: 'run_compile', arguments: { target: 'app', flags: [1] } });
  assert(r.isError, 'a flag that is not a string');
  r = await c.callTool({ name: 'read_task_log', arguments: { task_id: 'compile-nope' } });
  assert(r.isError && text(r).includes('No task log compile-nope'), `unknown task: ${text(r)}`);
  r = await c.callTool({ name: 'read_task_log', arguments: { task_id: 'x', group: 'DEBUG' } });
  assert(r.isError, 'unknown group');
  await c.close();
});

await run('hidden-without-config', async () => {
  const c = await client(plain);
  const { tools } = await c.listTools();
  assert(!tools.some((t) => t.name === 'run_compile' || t.name === 'read_task_log'),
    `compile tools listed without a config: ${tools.map((t) => t.name)}`);
  const r = await c.callTool({ name: 'run_compile', arguments: { target: 'app' } });
  assert(r.isError && text(r).includes('no .mcpidx.toml in'), `without a config: ${text(r)}`);
  await c.close();
});

fs.rmSync(tmp, { recursive: true, force: true });
process.exit(failures ? 1 : 0);
