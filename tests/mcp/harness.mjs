// harness.mjs - what test.mjs and multi.mjs share: checks, a result's text
// and run(), which prints one `PASS name (ms)` / `FAIL name: why` line per
// case (cases whose name lacks the command line's filter are skipped);
// finish() exits non-zero when any case failed.
const filter = process.argv[2] || '';
let failures = 0;

export function assert(cond, why) { if (!cond) throw new Error(why); }
export function eq(a, b, what) {
  assert(JSON.stringify(a) === JSON.stringify(b),
    `${what}: expected ${JSON.stringify(b)}, got ${JSON.stringify(a)}`);
}
export function text(r) { return (r.content || []).map((c) => c.text || '').join(''); }

export async function run(name, fn, timeoutMs = 20000) {
  if (filter && !name.includes(filter)) return;
  const t0 = Date.now();
  let timer;
  try {
    await Promise.race([fn(), new Promise((_, rej) => { timer = setTimeout(() => rej(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs); })]);
    console.log(`PASS ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${String(e && e.message || e).replace(/\n/g, ' ').slice(0, 400)}`);
  } finally { clearTimeout(timer); }
}

export function finish() { process.exit(failures ? 1 : 0); }
