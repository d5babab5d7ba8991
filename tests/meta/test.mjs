// End-to-end tests of the meta-server: catalogs of real MCP servers from
// npm indexed by `mcpidx build --servers`, then find_tools, describe_tools,
// execute and the rest over `mcpidx serve` with the official SDK client.
// One line per case: PASS name / FAIL name: why.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const MCPIDX = process.env.MCPIDX;
const NODE = process.env.NODE || process.execPath;
const filter = process.argv[2] || '';
const mods = join(here, 'node_modules', '@modelcontextprotocol');
let failed = 0;

function run(args, opts = {}) {
  return new Promise((resolve) => {
    execFile(MCPIDX, args, { timeout: 120000, ...opts }, (err, stdout, stderr) => {
      resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr });
    });
  });
}

function check(cond, what) {
  if (!cond) throw new Error(what);
}

async function test(name, fn) {
  if (filter && !name.includes(filter)) return;
  try {
    await fn();
    console.log(`PASS meta/${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL meta/${name}: ${e && e.message ? e.message : e}`);
  }
}

const work = mkdtempSync(join(tmpdir(), 'mcpidx-meta-'));
const files = join(work, 'files');
const SECRET = 'sk-test-9f2c7e1d-never-stored';

function servers(extra = {}) {
  return {
    mcpServers: {
      everything: { command: NODE, args: [join(mods, 'server-everything/dist/index.js'), 'stdio'],
                    env: { EVERYTHING_TOKEN: SECRET } },
      filesystem: { command: NODE, args: [join(mods, 'server-filesystem/dist/index.js'), files] },
      memory: { command: NODE, args: [join(mods, 'server-memory/dist/index.js')],
                env: { MEMORY_FILE_PATH: join(work, 'memory.jsonl') } },
      ...extra,
    },
  };
}

function writeServers(name, obj) {
  const p = join(work, name);
  writeFileSync(p, JSON.stringify(obj, null, 1));
  return p;
}

async function buildIndex(cfgName, obj, idx) {
  const cfg = writeServers(cfgName, obj);
  const r = await run(['build', '--servers', cfg, '-o', idx, '--json']);
  return { ...r, cfg };
}

function allIndexBytes(dir) {
  return readdirSync(dir).filter((f) => f.endsWith('.mdb'))
    .map((f) => readFileSync(join(dir, f)).toString('latin1')).join('');
}

import { mkdirSync } from 'node:fs';
mkdirSync(files, { recursive: true });
writeFileSync(join(files, 'notes.txt'), 'alpha\nbeta\n');
const idx = join(work, 'idx');

await test('ingest_real_servers', async () => {
  const r = await buildIndex('servers.json', servers({
    broken: { command: join(work, 'no-such-server') },
    remote: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${SECRET}` } },
  }), idx);
  check(r.code === 0, `build exited ${r.code}: ${r.stderr}`);
  const j = JSON.parse(r.stdout);
  check(j.servers === 5 && j.failed === 2, `servers/failed: ${r.stdout}`);
  const by = Object.fromEntries(j.fetched.map((f) => [f.name, f]));
  check(by.everything.tools >= 10 && by.filesystem.tools >= 10 && by.memory.tools >= 8,
        `tool counts: ${r.stdout}`);
  check(/^20\d\d-\d\d-\d\d$/.test(by.memory.protocol), `protocol: ${by.memory.protocol}`);
  check(by.broken.error.includes('no-such-server'), `broken error: ${by.broken.error}`);
  check(by.remote.error.includes('remote'), `remote error: ${by.remote.error}`);
  check(r.stderr.includes("server 'broken' skipped"), `stderr: ${r.stderr}`);
  check(!r.stderr.includes(SECRET) && !r.stdout.includes(SECRET), 'a secret was printed');
  check(!allIndexBytes(idx).includes(SECRET), 'a secret reached the index');
});

await test('cli_find_describe_namespaces', async () => {
  let r = await run(['tools', '-i', idx, 'find', 'read the contents of a text file', '--json']);
  check(r.code === 0, `find exited ${r.code}: ${r.stderr}`);
  let j = JSON.parse(r.stdout);
  check(j.tools[0].name.startsWith('filesystem/read'), `first hit: ${r.stdout}`);
  r = await run(['tools', '-i', idx, 'find', 'add an observation about an entity', '--json', '--limit', '3']);
  j = JSON.parse(r.stdout);
  check(j.tools.length === 3 && j.tools[0].name === 'memory/add_observations', `memory: ${r.stdout}`);
  r = await run(['tools', '-i', idx, 'describe', 'filesystem/list_directory', '--level', 'L2', '--json']);
  j = JSON.parse(r.stdout);
  check(j.tools[0].inputSchema.properties.path, `L2 schema: ${r.stdout}`);
  r = await run(['tools', '-i', idx, 'namespaces', '--json']);
  j = JSON.parse(r.stdout);
  check(j.namespaces.length === 5 && j.namespaces.find((n) => n.name === 'broken').error, `ns: ${r.stdout}`);
});

rmSync(work, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
