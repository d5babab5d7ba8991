// count.mjs - o200k token counts for one corpus: whole sources vs our outline
// and compact views (from views.jsonl) vs repomix --compress, plus the share
// of universal-ctags' public top-level functions/classes/structs/methods
// whose names appear in the outline of their file.
//
//   node count.mjs NAME ROOT VIEWS.jsonl CTAGS.json REPOMIX.txt|- OUT.json
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

const [name, root, viewsFile, ctagsFile, repomixFile, outFile] = process.argv.slice(2);
if (!outFile) {
	console.error('usage: node count.mjs NAME ROOT VIEWS.jsonl CTAGS.json REPOMIX.txt|- OUT.json');
	process.exit(2);
}

async function* lines(file) {
	const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
	for await (const l of rl) if (l) yield l;
}

const outlines = new Map();
let files = 0, src = 0, outline = 0, compact = 0, estSrc = 0, estOutline = 0;
for await (const l of lines(viewsFile)) {
	const r = JSON.parse(l);
	const text = fs.readFileSync(path.join(root, r.path), 'utf8');
	files++;
	src += countTokens(text);
	outline += countTokens(r.outline);
	compact += countTokens(r.compact);
	estSrc += r.est_src;
	estOutline += r.est_outline;
	outlines.set(r.path, r.outline);
}

// Public top-level definitions by universal-ctags' reading of the same files.
function wanted(t) {
	const lang = path.extname(t.path);
	const top = s => !s || t.scopeKind === 'package';
	if (t.name.startsWith('__anon') || t.name.startsWith('AnonymousFunction')) return false;
	if (lang === '.c' || lang === '.h') {
		return (t.kind === 'function' || t.kind === 'struct') && !t.file && !t.scope;
	}
	if (lang === '.py') {
		if (t.name.startsWith('_')) return false;
		if (t.kind === 'class' || t.kind === 'function') return !t.scope;
		return t.kind === 'member' && t.scopeKind === 'class' &&
			!t.scope.includes('.') && !t.scope.startsWith('_');
	}
	if (lang === '.go') {
		if (!/^[A-Z]/.test(t.name)) return false;
		if (t.kind === 'struct') return top(t.scope);
		if (t.kind === 'func') return top(t.scope) || t.scopeKind === 'struct';
	}
	if (lang === '.js') {
		if (t.name.startsWith('_')) return false;
		return (t.kind === 'function' || t.kind === 'class') && !t.scope;
	}
	return false;
}

const esc = s => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
let tags = 0, found = 0;
const missed = [];
if (ctagsFile !== '-' && fs.existsSync(ctagsFile)) {
	for await (const l of lines(ctagsFile)) {
		let t;
		try { t = JSON.parse(l); } catch { continue; }
		if (t._type !== 'tag' || !outlines.has(t.path) || !wanted(t)) continue;
		tags++;
		if (new RegExp(`(^|[^A-Za-z0-9_])${esc(t.name)}($|[^A-Za-z0-9_])`).test(outlines.get(t.path)))
			found++;
		else if (missed.length < 15)
			missed.push(`${t.path}:${t.kind}:${t.name}`);
	}
}

let repomix = null;
if (repomixFile !== '-' && fs.existsSync(repomixFile))
	repomix = countTokens(fs.readFileSync(repomixFile, 'utf8'));

const pct = (a, b) => (b ? Math.round((a * 1000) / b) / 10 : 0);
const res = {
	corpus: name, files, src_tokens: src,
	outline_tokens: outline, outline_pct: pct(outline, src),
	compact_tokens: compact, compact_pct: pct(compact, src),
	repomix_compress_tokens: repomix, repomix_pct: repomix === null ? null : pct(repomix, src),
	ctags_public_defs: tags, ctags_in_outline: found, ctags_pct: pct(found, tags),
	estimate_vs_o200k_src: pct(estSrc, src), estimate_vs_o200k_outline: pct(estOutline, outline),
	ctags_missed_sample: missed,
};
fs.writeFileSync(outFile, JSON.stringify(res, null, 1) + '\n');
console.log(`${name}: ${files} files, source ${src} tok; outline ${outline} (${res.outline_pct}%), ` +
	`compact ${compact} (${res.compact_pct}%), repomix --compress ${repomix ?? 'n/a'}` +
	`${repomix === null ? '' : ` (${res.repomix_pct}%)`}; ctags public defs in outline ` +
	`${found}/${tags} (${res.ctags_pct}%); estimate/o200k src ${res.estimate_vs_o200k_src}% ` +
	`outline ${res.estimate_vs_o200k_outline}%`);
if (missed.length) console.log(`  missed e.g.: ${missed.slice(0, 8).join(' ')}`);
