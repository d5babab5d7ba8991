// End-to-end tests of `mcpidx lsp`, driven by vscode-languageserver-protocol
// (the client side of the protocol VS Code itself uses) over stdio.
// Prints one `PASS name` or `FAIL name: why` line per case; exits 1 on any FAIL.
//   MCPIDX=/path/to/mcpidx node test.mjs [name-filter]
import lspNode from 'vscode-languageserver-protocol/node.js';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const {
  createProtocolConnection, StreamMessageReader, StreamMessageWriter,
  InitializeRequest, InitializedNotification, ShutdownRequest, ExitNotification,
  FoldingRangeRequest, DocumentSymbolRequest, WorkspaceSymbolRequest,
  DefinitionRequest, ReferencesRequest, DidOpenTextDocumentNotification,
  DidChangeTextDocumentNotification, DidCloseTextDocumentNotification,
  ShowMessageNotification, PublishDiagnosticsNotification,
} = lspNode;

const here = path.dirname(fileURLToPath(import.meta.url));
const top = path.resolve(here, '../..');
const MCPIDX = process.env.MCPIDX || path.join(top, 'mcpidx');
const filter = process.argv[2] || '';
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpidx-lsp-')));
const repo = path.join(tmp, 'repo');       // fixture copy, indexed
const bare = path.join(tmp, 'bare');       // fixture copy, never indexed

let failures = 0;
function assert(cond, why) { if (!cond) throw new Error(why); }
function eq(a, b, what) {
  assert(JSON.stringify(a) === JSON.stringify(b),
    `${what}: expected ${JSON.stringify(b)}, got ${JSON.stringify(a)}`);
}
const uri = (root, rel) => pathToFileURL(path.join(root, rel)).href;
const read = (root, rel) => fs.readFileSync(path.join(root, rel), 'utf8');
const folds = (r) => r.map((f) => [f.startLine, f.endLine]);

async function run(name, fn, timeoutMs = 20000) {
  if (filter && !name.includes(filter)) return;
  const t0 = Date.now();
  let timer;
  try {
    await Promise.race([fn(), new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    })]);
    console.log(`PASS lsp/${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failures++;
    console.log(`FAIL lsp/${name}: ${String(e && e.message || e).replace(/\n/g, ' ').slice(0, 500)}`);
  } finally {
    clearTimeout(timer);
  }
}

// Starts `mcpidx lsp` and connects the protocol client to it.  opts:
// root (workspace folder), args (extra command-line arguments), caps
// (client capabilities), init (false: do not initialize).
async function start(opts = {}) {
  const proc = spawn(MCPIDX, ['lsp', ...(opts.args || [])], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((res) => proc.on('exit', (code) => res(code)));
  // what the client logs as errors: among them answers with a null id
  const logged = [];
  const logger = { error: (m) => logged.push(m), warn: () => {}, info: () => {}, log: () => {} };
  const conn = createProtocolConnection(new StreamMessageReader(proc.stdout),
    new StreamMessageWriter(proc.stdin), logger);
  const notes = [];
  conn.onNotification(ShowMessageNotification.type, (p) => note('show', p));
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => note('diag', p));
  conn.onError(() => {});
  conn.listen();
  const waiters = [];
  const note = (kind, p) => {
    notes.push([kind, p]);
    for (const w of [...waiters]) if (w.kind === kind && w.pred(p)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(p); }
  };
  const s = {
    proc, conn, notes, logged, exited, stderr: () => stderr, init: null,
    // Resolves with the first notification of kind matching pred (seen or to come).
    waitNote(kind, pred, ms = 10000) {
      const seen = notes.find((n) => n[0] === kind && pred(n[1]));
      if (seen) return Promise.resolve(seen[1]);
      return new Promise((resolve, reject) => {
        const w = { kind, pred, resolve };
        waiters.push(w);
        setTimeout(() => { const k = waiters.indexOf(w); if (k >= 0) { waiters.splice(k, 1); reject(new Error(`no ${kind} notification within ${ms} ms; got ${JSON.stringify(notes.map((n) => [n[0], n[1].uri, (n[1].diagnostics || []).map((d) => d.message.slice(0, 20))]))}`)); } }, ms);
      });
    },
    req: (type, params) => conn.sendRequest(type, params),
    open(root, rel, text) {
      const t = text ?? read(root, rel);
      conn.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri: uri(root, rel), languageId: '', version: 1, text: t },
      });
      return t;
    },
    async stop() {
      await conn.sendRequest(ShutdownRequest.type);
      await conn.sendNotification(ExitNotification.type);
      const code = await exited;
      conn.dispose();
      return code;
    },
  };
  if (opts.init !== false) {
    s.init = await conn.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: opts.root ? pathToFileURL(opts.root).href : null,
      capabilities: opts.caps || {
        textDocument: {
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          foldingRange: { lineFoldingOnly: true },
        },
      },
    });
    await conn.sendNotification(InitializedNotification.type, {});
  }
  return s;
}

// The lines an editor still shows once every fold is closed.
function visibleLines(nlines, ranges) {
  const hidden = new Set();
  for (const r of ranges) for (let l = r.startLine + 1; l <= r.endLine; l++) hidden.add(l);
  const v = [];
  for (let l = 0; l < nlines; l++) if (!hidden.has(l)) v.push(l);
  return v;
}

fs.cpSync(path.join(top, 'testdata/lsp'), repo, { recursive: true });
fs.cpSync(path.join(top, 'testdata/lsp'), bare, { recursive: true });
execFileSync(MCPIDX, ['build', repo], { stdio: 'pipe' });

await run('initialize', async () => {
  const s = await start({ root: repo });
  const c = s.init.capabilities;
  eq(c.positionEncoding, 'utf-16', 'default encoding');
  assert(c.foldingRangeProvider && c.documentSymbolProvider && c.workspaceSymbolProvider &&
    c.definitionProvider && c.referencesProvider, `capabilities ${JSON.stringify(c)}`);
  eq(c.textDocumentSync.change, 2, 'incremental sync');
  eq(s.init.serverInfo.name, 'mcpidx', 'serverInfo');
  eq(await s.stop(), 0, `exit status after shutdown and exit; stderr: ${s.stderr().slice(-1500)}`);
});

await run('folding-c-index', async () => {
  const s = await start({ root: repo });
  const r = await s.req(FoldingRangeRequest.type, { textDocument: { uri: uri(repo, 'src/shapes.c') } });
  eq(folds(r), [[4, 7], [10, 14], [17, 20]], 'function bodies');
  const h = await s.req(FoldingRangeRequest.type, { textDocument: { uri: uri(repo, 'src/shapes.h') } });
  eq(folds(h), [[5, 8]], 'struct');
  await s.stop();
});

// `:McpidxBrief` (docs/editors.md) folds a buffer to its outline: it closes
// the fold of every symbol that holds no multi-line symbol (functions,
// methods, structs, leaf sections) and leaves the containers open.  Done the
// same way here, each line of `mcpidx outline` stays visible and every body
// line of a function is hidden.
function briefClosed(symbols) {
  const closed = [];
  const walk = (list) => {
    for (const y of list || []) {
      if (y.range.end.line <= y.range.start.line) continue;
      const blocks = (y.children || []).filter((c) => c.range.end.line > c.range.start.line);
      if (blocks.length) walk(y.children);
      else closed.push(y.range.start.line);
    }
  };
  walk(symbols);
  return closed;
}

await run('folds-to-outline', async () => {
  const s = await start({ root: repo });
  for (const rel of ['src/shapes.c', 'src/shapes.h', 'app/models.py', 'docs/guide.md']) {
    const src = read(repo, rel).split('\n');
    const nlines = src.length - (src[src.length - 1] === '' ? 1 : 0);
    const u = uri(repo, rel);
    const r = await s.req(FoldingRangeRequest.type, { textDocument: { uri: u } });
    const sym = await s.req(DocumentSymbolRequest.type, { textDocument: { uri: u } });
    const closed = briefClosed(sym);
    for (const l of closed)
      assert(r.some((f) => f.startLine === l), `${rel}: no fold starts at line ${l + 1}`);
    const visible = new Set(visibleLines(nlines, r.filter((f) => closed.includes(f.startLine))));
    const outline = execFileSync(MCPIDX, ['outline', '--filter', 'all', '--line-numbers', 'plain',
      path.join(repo, rel)], { encoding: 'utf8' });
    const lines = outline.split('\n').filter((l) => /^\d+ /.test(l));
    assert(lines.length >= 1, `${rel}: outline too short: ${outline}`);
    for (const l of lines) {
      const n = parseInt(l, 10) - 1;
      assert(visible.has(n), `${rel}: outline line ${n + 1} (${l}) is folded away`);
    }
    const fns = [];
    const walk = (list) => (list || []).forEach((y) => {
      if (y.kind === 12 || y.kind === 6) fns.push(y);
      walk(y.children);
    });
    walk(sym);
    for (const y of fns)
      for (let l = y.range.start.line + 1; l <= y.range.end.line; l++)
        assert(!visible.has(l), `${rel}: body line ${l + 1} of ${y.name} stays visible`);
  }
  await s.stop();
});

await run('folding-markdown', async () => {
  const s = await start({ root: repo });
  const r = await s.req(FoldingRangeRequest.type, { textDocument: { uri: uri(repo, 'docs/guide.md') } });
  eq(folds(r), [[0, 14], [4, 11], [8, 11], [12, 14]], 'sections');
  await s.stop();
});

await run('folding-live-buffer', async () => {
  const s = await start({ root: repo });
  const u = uri(repo, 'src/shapes.c');
  const text = s.open(repo, 'src/shapes.c');
  // Insert a three-line function after line 2: every later range moves down.
  await s.conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri: u, version: 2 },
    contentChanges: [{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } },
      text: 'int twice(int v)\n{\n\treturn 2 * v;\n}\n\n' }],
  });
  let r = await s.req(FoldingRangeRequest.type, { textDocument: { uri: u } });
  eq(folds(r), [[3, 6], [9, 12], [15, 19], [22, 25]], 'after an insertion');
  let sym = await s.req(DocumentSymbolRequest.type, { textDocument: { uri: u } });
  assert(sym.some((y) => y.name === 'twice'), 'new function listed');
  // Delete the new function again (a range edit), then replace the whole text.
  await s.conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri: u, version: 3 },
    contentChanges: [{ range: { start: { line: 3, character: 0 }, end: { line: 8, character: 0 } }, text: '' }],
  });
  r = await s.req(FoldingRangeRequest.type, { textDocument: { uri: u } });
  eq(folds(r), [[4, 7], [10, 14], [17, 20]], 'back to the indexed text');
  await s.conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri: u, version: 4 }, contentChanges: [{ text: 'int one(void)\n{\n\treturn 1;\n}\n' }],
  });
  r = await s.req(FoldingRangeRequest.type, { textDocument: { uri: u } });
  eq(folds(r), [[0, 3]], 'whole-text change');
  await s.conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri: u } });
  r = await s.req(FoldingRangeRequest.type, { textDocument: { uri: u } });
  eq(folds(r), [[4, 7], [10, 14], [17, 20]], 'closed: the index again');
  assert(text.length > 0, 'opened');
  await s.stop();
});

await run('document-symbols', async () => {
  const s = await start({ root: repo });
  const sym = await s.req(DocumentSymbolRequest.type, { textDocument: { uri: uri(repo, 'app/models.py') } });
  const acc = sym.find((y) => y.name === 'Account');
  assert(acc, `Account missing: ${JSON.stringify(sym)}`);
  eq(acc.kind, 5, 'class kind');
  eq(acc.range.start, { line: 3, character: 0 }, 'class range start');
  eq(acc.selectionRange, { start: { line: 3, character: 6 }, end: { line: 3, character: 13 } }, 'class name');
  eq((acc.children || []).map((c) => [c.name, c.kind]), [['__init__', 6], ['validate_token', 6]], 'methods');
  eq(acc.children[1].detail, 'def validate_token(self, token)', 'signature as detail');
  eq(sym.find((y) => y.name === 'make_account').kind, 12, 'function kind');
  const md = await s.req(DocumentSymbolRequest.type, { textDocument: { uri: uri(repo, 'docs/guide.md') } });
  eq(md.map((y) => y.name), ['Guide'], 'one top heading');
  eq(md[0].children.map((y) => y.name), ['Install', 'Usage'], 'sections');
  eq(md[0].children[0].children.map((y) => y.name), ['From source'], 'subsection');
  await s.stop();
});

await run('document-symbols-flat', async () => {
  const s = await start({ root: repo, caps: {} });
  const sym = await s.req(DocumentSymbolRequest.type, { textDocument: { uri: uri(repo, 'app/models.py') } });
  const m = sym.find((y) => y.name === 'validate_token');
  assert(m && m.location && m.location.uri === uri(repo, 'app/models.py'), `flat: ${JSON.stringify(m)}`);
  eq(m.containerName, 'Account', 'container');
  await s.stop();
});

await run('workspace-symbols', async () => {
  const s = await start({ root: repo });
  const r = await s.req(WorkspaceSymbolRequest.type, { query: 'perim' });
  const names = r.map((y) => `${y.name}@${path.relative(repo, fileURLToPath(y.location.uri))}`);
  assert(names.includes('perimeter@src/shapes.c') && names.includes('perimeter@src/shapes.h'),
    `perimeter: ${names}`);
  const def = r.find((y) => y.location.uri.endsWith('shapes.c'));
  eq(def.location.range, { start: { line: 17, character: 0 }, end: { line: 20, character: 1 } }, 'range');
  const exact = await s.req(WorkspaceSymbolRequest.type, { query: 'Account' });
  eq(exact[0].name, 'Account', 'exact match first');
  const all = await s.req(WorkspaceSymbolRequest.type, { query: '' });
  assert(all.length >= 10, `empty query lists symbols: ${all.length}`);
  eq((await s.req(WorkspaceSymbolRequest.type, { query: 'zzzz_nothing' })).length, 0, 'no match');
  await s.stop();
});

await run('definition-and-references', async () => {
  const s = await start({ root: repo });
  const main = uri(repo, 'src/main.c');
  // line 7: "\t/* naïve 🙂 */ int r = area(a, b);" - the emoji is two UTF-16 units
  const col = 'area'.length && '\t/* naïve 🙂 */ int r = '.length;
  const d = await s.req(DefinitionRequest.type, { textDocument: { uri: main }, position: { line: 7, character: col + 1 } });
  const defs = d.map((l) => `${path.relative(repo, fileURLToPath(l.uri))}:${l.range.start.line}:${l.range.start.character}`);
  eq(defs.includes('src/shapes.c:10:4'), true, `definition of area: ${defs}`);
  const refs = await s.req(ReferencesRequest.type, { textDocument: { uri: main }, position: { line: 7, character: col },
    context: { includeDeclaration: false } });
  const at = refs.map((l) => `${path.relative(repo, fileURLToPath(l.uri))}:${l.range.start.line}:${l.range.start.character}-${l.range.end.character}`);
  eq(at.includes(`src/main.c:7:${col}-${col + 4}`), true, `call site in UTF-16 columns: ${at}`);
  const withDecl = await s.req(ReferencesRequest.type, { textDocument: { uri: main }, position: { line: 7, character: col },
    context: { includeDeclaration: true } });
  assert(withDecl.length > refs.length, 'includeDeclaration adds the definition');
  const none = await s.req(DefinitionRequest.type, { textDocument: { uri: main }, position: { line: 2, character: 0 } });
  assert(none === null || none.length === 0, `no word: ${JSON.stringify(none)}`);
  await s.stop();
});

await run('utf8-positions', async () => {
  const s = await start({ root: repo, caps: { general: { positionEncodings: ['utf-8', 'utf-16'] } } });
  eq(s.init.capabilities.positionEncoding, 'utf-8', 'negotiated');
  const main = uri(repo, 'src/main.c');
  const col = Buffer.byteLength('\t/* naïve 🙂 */ int r = ');
  const refs = await s.req(ReferencesRequest.type, { textDocument: { uri: main }, position: { line: 7, character: col },
    context: { includeDeclaration: false } });
  const hit = refs.find((l) => l.uri === main && l.range.start.line === 7);
  eq(hit && hit.range.start.character, col, 'byte column');
  await s.stop();
});

await run('no-index', async () => {
  const s = await start({ root: bare });
  await new Promise((res) => setTimeout(res, 100));
  const warn = s.notes.find((n) => n[0] === 'show');
  assert(warn && /mcpidx build/.test(warn[1].message), `no warning: ${JSON.stringify(s.notes)}`);
  const r = await s.req(FoldingRangeRequest.type, { textDocument: { uri: uri(bare, 'src/shapes.c') } });
  eq(folds(r), [[4, 7], [10, 14], [17, 20]], 'parsed from disk');
  const w = await s.req(WorkspaceSymbolRequest.type, { query: 'area' });
  eq(w.length, 0, 'no workspace symbols without an index');
  await s.stop();
});

await run('index-argument', async () => {
  // INDEX on the command line, no workspace folder: paths are relative to
  // the repository the index records.
  const s = await start({ args: [path.join(repo, '.mcpidx')] });
  const r = await s.req(WorkspaceSymbolRequest.type, { query: 'span' });
  assert(r.some((y) => y.location.uri === uri(repo, 'src/shapes.c')), `uris: ${JSON.stringify(r)}`);
  await s.stop();
});

await run('rebuild-picked-up', async () => {
  const dir = path.join(tmp, 'rebuild');
  fs.cpSync(path.join(top, 'testdata/lsp'), dir, { recursive: true });
  execFileSync(MCPIDX, ['build', dir], { stdio: 'pipe' });
  const s = await start({ root: dir });
  eq((await s.req(WorkspaceSymbolRequest.type, { query: 'volume' })).length, 0, 'before');
  fs.appendFileSync(path.join(dir, 'src/shapes.c'), '\nint volume(int h)\n{\n\treturn h;\n}\n');
  execFileSync(MCPIDX, ['build', dir], { stdio: 'pipe' });
  const w = await s.req(WorkspaceSymbolRequest.type, { query: 'volume' });
  eq(w.map((y) => y.name), ['volume'], 'after the rebuild');
  await s.stop();
});

// The latest compile's diagnostics are published for the files it names,
// dropped when the buffer no longer holds what was compiled, and replaced
// when a newer compile is stored.
await run('compile-diagnostics', async () => {
  const dir = path.join(tmp, 'compiled');
  fs.cpSync(path.join(top, 'testdata/compile/c'), dir, { recursive: true });
  execFileSync(MCPIDX, ['build', dir], { stdio: 'pipe' });
  const compile = () => { try { execFileSync(MCPIDX, ['compile', 'app'], { cwd: dir, stdio: 'pipe' }); } catch (e) { return e.status; } return 0; };
  eq(compile(), 1, 'compile fails');
  const s = await start({ root: dir });
  const u = uri(dir, 'src/app.c');
  let p = await s.waitNote('diag', (d) => d.uri === u && d.diagnostics.length > 0);
  const got = p.diagnostics.map((d) => [d.severity, d.range.start.line, d.range.start.character,
    d.range.end.character, d.message]);
  eq(got, [
    [2, 11, 5, 11, "unused variable 'unused'"],
    [1, 18, 16, 20, "'totl' undeclared (first use in this function)\nhint: did you mean 'total'?"],
    [2, 17, 5, 10, "unused variable 'total'"],
  ], 'diagnostics in the compiler\'s order with ranges on the identifiers (gcc counts a tab as 8 columns)');
  eq(p.diagnostics[0].source, 'mcpidx compile', 'source');
  // an edit: the buffer is no longer what was compiled
  const text = s.open(dir, 'src/app.c');
  await s.conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri: u, version: 2 }, contentChanges: [{ text: text.replace('totl', 'total') }],
  });
  await s.waitNote('diag', (d) => d.uri === u && d.diagnostics.length === 0);
  // fixed on disk and compiled again: one warning is left
  fs.writeFileSync(path.join(dir, 'src/app.c'), text.replace('totl', 'total'));
  eq(compile(), 0, 'compile succeeds');
  p = await s.waitNote('diag', (d) => d.uri === u && d.diagnostics.length === 1);
  eq(p.diagnostics.map((d) => [d.severity, d.message]), [[2, "unused variable 'unused'"]], 'the warning left');
  await s.stop();
});

// gcc ends a line at a lone "\r" too: the diagnostics of a file written
// so land where they do in the "\n" file above.
await run('compile-diagnostics-lone-cr', async () => {
  const dir = path.join(tmp, 'compiled-cr');
  fs.cpSync(path.join(top, 'testdata/compile/c'), dir, { recursive: true });
  const app = path.join(dir, 'src/app.c');
  fs.writeFileSync(app, fs.readFileSync(app, 'utf8').replace(/\r?\n/g, '\r'));
  execFileSync(MCPIDX, ['build', dir], { stdio: 'pipe' });
  try { execFileSync(MCPIDX, ['compile', 'app'], { cwd: dir, stdio: 'pipe' }); } catch (e) { /* it fails */ }
  const s = await start({ root: dir });
  const p = await s.waitNote('diag', (d) => d.uri === uri(dir, 'src/app.c') && d.diagnostics.length > 0);
  eq(p.diagnostics.map((d) => [d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character]),
    [[11, 5, 11, 11], [18, 16, 18, 20], [17, 5, 17, 10]], 'ranges');
  await s.stop();
});

await run('errors', async () => {
  const s = await start({ init: false });
  const code = async (p) => { try { await p; return 'ok'; } catch (e) { return e.code; } };
  eq(await code(s.req(FoldingRangeRequest.type, { textDocument: { uri: uri(repo, 'src/shapes.c') } })),
    -32002, 'before initialize');
  await s.req(InitializeRequest.type, { processId: null, rootUri: pathToFileURL(repo).href, capabilities: {} });
  eq(await code(s.req(InitializeRequest.type, { processId: null, rootUri: null, capabilities: {} })),
    -32600, 'second initialize');
  eq(await code(s.conn.sendRequest('textDocument/hover', { textDocument: { uri: 'file:///x' }, position: { line: 0, character: 0 } })),
    -32601, 'unknown method');
  eq(await code(s.conn.sendRequest('textDocument/foldingRange', {})), -32602, 'missing uri');
  eq(await code(s.conn.sendRequest('textDocument/foldingRange', { textDocument: { uri: 'https://example.com/a.c' } })),
    -32602, 'not a file uri');
  eq(await code(s.req(FoldingRangeRequest.type, { textDocument: { uri: uri(repo, 'src/missing.c') } })),
    -32803, 'missing file');
  eq(await code(s.conn.sendRequest('workspace/symbol', {})), -32602, 'workspace/symbol without query');
  await s.req(ShutdownRequest.type);
  eq(await code(s.req(FoldingRangeRequest.type, { textDocument: { uri: uri(repo, 'src/shapes.c') } })),
    -32600, 'after shutdown');
  await s.conn.sendNotification(ExitNotification.type);
  eq(await s.exited, 0, `exit status; stderr: ${s.stderr().slice(-1500)}`);
  s.conn.dispose();
});

// A file outside the repository is served only as the editor's own text
// (didOpen): the server does not read it from disk, and its answer does not
// tell whether the file exists.
await run('outside-root', async () => {
  const out = path.join(tmp, 'outside');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'secret.py'), 'def secret_fn():\n    return area(1, 2)\n');
  const s = await start({ root: repo });
  const fail = async (p) => { try { return ['ok', await p]; } catch (e) { return [e.code, e.message]; } };
  const secret = uri(tmp, 'outside/secret.py');
  const dotdot = `${pathToFileURL(repo).href}/../outside/secret.py`;
  const missing = uri(tmp, 'outside/missing.py');
  const sym = await fail(s.req(DocumentSymbolRequest.type, { textDocument: { uri: secret } }));
  eq(sym[0], -32803, `documentSymbol outside the root: ${JSON.stringify(sym)}`);
  const fold = await fail(s.req(FoldingRangeRequest.type, { textDocument: { uri: dotdot } }));
  eq(fold[0], -32803, `foldingRange through ..: ${JSON.stringify(fold)}`);
  const gone = await fail(s.req(DocumentSymbolRequest.type, { textDocument: { uri: missing } }));
  eq(gone[1].replace(missing, 'U'), sym[1].replace(secret, 'U'), 'a missing file answers the same');
  const def = await s.req(DefinitionRequest.type, { textDocument: { uri: secret }, position: { line: 1, character: 13 } });
  assert(def === null || def.length === 0, `definition from an unread file: ${JSON.stringify(def)}`);
  // opened in the editor: its text is the client's, and served
  s.open(tmp, 'outside/secret.py');
  const open = await s.req(DocumentSymbolRequest.type, { textDocument: { uri: secret } });
  eq(open.map((y) => y.name), ['secret_fn'], 'the open buffer');
  await s.stop();
});

// A header block without Content-Length leaves its body unframed: the
// server answers one -32700 and skips to the next Content-Length header,
// so the well-framed messages after it (shutdown and exit too) are served.
// A link in the repository to a file outside it is outside too, as for a
// build: not read unless the editor opened it.
await run('link-out-of-root', async () => {
  const dir = path.join(tmp, 'linked');
  fs.mkdirSync(path.join(dir, 'repo'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'outside'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'outside/secret.py'), 'def secret_fn():\n    pass\n');
  fs.writeFileSync(path.join(dir, 'repo/own.py'), 'def own_fn():\n    pass\n');
  fs.symlinkSync('../outside/secret.py', path.join(dir, 'repo/link.py'));
  fs.symlinkSync('own.py', path.join(dir, 'repo/inside.py'));
  const s = await start({ root: path.join(dir, 'repo') });
  const code = async (p) => { try { await p; return 'ok'; } catch (e) { return e.code; } };
  eq(await code(s.req(DocumentSymbolRequest.type, { textDocument: { uri: uri(dir, 'repo/link.py') } })),
    -32803, 'a link out');
  const own = await s.req(DocumentSymbolRequest.type, { textDocument: { uri: uri(dir, 'repo/inside.py') } });
  eq(own.map((y) => y.name), ['own_fn'], 'a link inside');
  await s.stop();
});

await run('framing-resync', async () => {
  const s = await start({ root: repo });
  const body = '{"jsonrpc":"2.0","id":5,"method":"shutdown"}';
  s.proc.stdin.write(`Content-Type: application/vscode-jsonrpc\r\n\r\n${body}`);
  for (let i = 0; i < 3; i++) {
    const r = await s.req(WorkspaceSymbolRequest.type, { query: 'perimeter' });
    assert(r.some((y) => y.name === 'perimeter'), `request ${i} after the bad block: ${JSON.stringify(r)}`);
  }
  const parse = s.logged.filter((m) => /without id/.test(m));
  eq(parse.length, 1, `errors with a null id: ${JSON.stringify(parse)}`);
  assert(/-32700/.test(parse[0]) && /Content-Length/.test(parse[0]), `the error: ${parse[0]}`);
  eq(await s.stop(), 0, 'shutdown and exit after the bad block');
}, 8000);

// A line past the document names no word, however large: 2^32 does not
// wrap around to line 0.
await run('positions-past-the-end', async () => {
  const s = await start({ root: repo });
  const u = uri(repo, 'src/past.c');
  s.open(repo, 'src/past.c', 'area');
  const def = (line, character) => s.req(DefinitionRequest.type, { textDocument: { uri: u }, position: { line, character } });
  const first = await def(0, 1);
  assert(first && first.length > 0, `line 0 names area: ${JSON.stringify(first)}`);
  for (const line of [2 ** 32, 2 ** 32 * 5 + 1, 1]) {
    const r = await def(line, 1);
    assert(r === null || r.length === 0, `line ${line}: ${JSON.stringify(r)}`);
    const refs = await s.req(ReferencesRequest.type, { textDocument: { uri: u }, position: { line, character: 1 },
      context: { includeDeclaration: true } });
    assert(refs === null || refs.length === 0, `references at line ${line}: ${JSON.stringify(refs)}`);
  }
  await s.stop();
});

// LSP ends a line at "\n", "\r\n" or a lone "\r": the three give the
// same answers, in an open buffer (also after an edit) and from the index,
// whose own lines count "\n" only.
await run('lone-cr-lines', async () => {
  const s = await start({ root: repo });
  for (const eol of ['\r', '\r\n', '\n']) {
    const tag = JSON.stringify(eol);
    const py = uri(repo, `src/cr${eol.length}${eol.charCodeAt(0)}.py`);
    s.conn.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: py, languageId: 'python', version: 1, text: ['x = 1', 'def f():', '    pass', ''].join(eol) },
    });
    const sym = await s.req(DocumentSymbolRequest.type, { textDocument: { uri: py } });
    const f = sym.find((y) => y.name === 'f');
    eq(f && [f.range, f.selectionRange], [{ start: { line: 1, character: 0 }, end: { line: 2, character: 8 } },
      { start: { line: 1, character: 4 }, end: { line: 1, character: 5 } }], `${tag}: f`);
    const c = uri(repo, `src/cr${eol.length}${eol.charCodeAt(0)}.c`);
    s.conn.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: c, languageId: 'c', version: 1, text: ['int one(void)', '{', '\treturn 1;', '}', ''].join(eol) },
    });
    eq(folds(await s.req(FoldingRangeRequest.type, { textDocument: { uri: c } })), [[0, 3]], `${tag}: folds`);
    await s.conn.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri: c, version: 2 },
      contentChanges: [{ range: { start: { line: 4, character: 0 }, end: { line: 4, character: 0 } },
        text: ['int two(void)', '{', '\treturn 2;', '}', ''].join(eol) },
      { range: { start: { line: 6, character: 8 }, end: { line: 6, character: 9 } }, text: '22' }],
    });
    eq(folds(await s.req(FoldingRangeRequest.type, { textDocument: { uri: c } })), [[0, 3], [4, 7]], `${tag}: folds after an insertion`);
    const two = (await s.req(DocumentSymbolRequest.type, { textDocument: { uri: c } })).find((y) => y.name === 'two');
    eq(two && two.range, { start: { line: 4, character: 0 }, end: { line: 7, character: 1 } }, `${tag}: two`);
    const d = await s.req(DefinitionRequest.type, { textDocument: { uri: c }, position: { line: 4, character: 5 } });
    assert(d === null || d.length === 0, `${tag}: "two" is in no index: ${JSON.stringify(d)}`);
  }
  await s.stop();
  // from the index: a file whose lines all end in a lone "\r"
  const dir = path.join(tmp, 'lonecr');
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src/cr.c'), 'int a;\rint twice(int v)\r{\r\treturn 2 * v;\r}\r');
  fs.writeFileSync(path.join(dir, 'src/main.c'), 'int twice(int v);\n\nint main(void)\n{\n\treturn twice(1);\n}\n');
  execFileSync(MCPIDX, ['build', dir], { stdio: 'pipe' });
  const t = await start({ root: dir });
  const cr = uri(dir, 'src/cr.c');
  eq(folds(await t.req(FoldingRangeRequest.type, { textDocument: { uri: cr } })), [[1, 4]], 'indexed folds');
  const sym = (await t.req(DocumentSymbolRequest.type, { textDocument: { uri: cr } })).find((y) => y.name === 'twice');
  eq(sym && sym.range, { start: { line: 1, character: 0 }, end: { line: 4, character: 1 } }, 'indexed symbol');
  const d = await t.req(DefinitionRequest.type, { textDocument: { uri: uri(dir, 'src/main.c') }, position: { line: 4, character: 9 } });
  const at = d.map((l) => `${path.relative(dir, fileURLToPath(l.uri))}:${l.range.start.line}:${l.range.start.character}`);
  assert(at.includes('src/cr.c:1:4'), `definition in the lone-CR file: ${at}`);
  await t.stop();
});

await run('exit-without-shutdown', async () => {
  const s = await start({ root: repo });
  await s.conn.sendNotification(ExitNotification.type);
  eq(await s.exited, 1, 'exit status without shutdown');
  s.conn.dispose();
});

fs.rmSync(tmp, { recursive: true, force: true });
process.exit(failures ? 1 : 0);
