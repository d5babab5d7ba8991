// packs.mjs - context packs on a repository nobody here wrote: for each
// target, the pack's o200k tokens against its budget, whether every name
// the target's body calls that the index defines is in the pack (or was
// left out for the budget), and the pack's tokens against the o200k tokens
// of the files it draws from.
//
//   node packs.mjs MCPIDX INDEX ROOT BUDGET TARGET...
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

const [mcpidx, index, root, budgetArg, ...targets] = process.argv.slice(2);
if (!targets.length) {
	console.error('usage: node packs.mjs MCPIDX INDEX ROOT BUDGET TARGET...');
	process.exit(2);
}
const budget = Number(budgetArg);
const q = (...args) => {
	try {
		return JSON.parse(execFileSync(mcpidx, ['query', index, ...args, '--json'], { encoding: 'utf8' }));
	} catch (e) {
		return e.stdout ? JSON.parse(e.stdout) : null;
	}
};
const defined = new Map();
const isDefined = (name) => {
	if (!defined.has(name)) {
		const d = q('def', name);
		defined.set(name, !!(d && d.total > 0));
	}
	return defined.get(name);
};
const fileTok = new Map();
const tokOf = (p) => {
	if (!fileTok.has(p)) fileTok.set(p, countTokens(fs.readFileSync(path.join(root, p), 'utf8')));
	return fileTok.get(p);
};
const keywords = new Set(['if', 'for', 'while', 'switch', 'return', 'func', 'function', 'def', 'len',
	'make', 'new', 'append', 'cap', 'copy', 'panic', 'print', 'println', 'range', 'go', 'defer', 'catch']);

let over = 0, missing = 0, packTok = 0, srcTok = 0, worst = 0;
const rows = [];
for (const t of targets) {
	const p = q('pack', t, '--budget', String(budget));
	if (!p || p.error) { rows.push(`${t}: ${p ? p.error : 'no answer'}`); missing++; continue; }
	const tokens = countTokens(p.text);
	const target = p.entries.find((e) => e.role === 'target');
	// docstrings and block comments hold examples, not calls
	const body = p.text.replace(/"""[\s\S]*?"""|'''[\s\S]*?'''|\/\*[\s\S]*?\*\//g, '""').split('\n').filter((l) => !/^(== |V\* |[A-Z]> )/.test(l)).slice(1)
		.map((l) => l.replace(/"(\\.|[^"\\])*"|'(\\.|[^'\\])*'|`[^`]*`/g, '""').replace(/(\/\/|#).*$/, ''))
		.join('\n');
	const names = new Set();
	// calls, not the definitions of nested functions (`function name(`, `def name(`)
	for (const m of body.matchAll(/(\b(?:function|def|func)\s+)?\b([A-Za-z_]\w*)\s*\(/g))
		if (!m[1] && !keywords.has(m[2])) names.add(m[2]);
	const got = new Set([...p.entries, ...p.left_out].filter((e) => e.role === 'uses').map((e) => e.name));
	const miss = [...names].filter((n) => n !== target.name && isDefined(n) && !got.has(n));
	const files = new Set(p.entries.map((e) => e.path));
	const src = [...files].reduce((a, f) => a + tokOf(f), 0);
	const pct = Math.round((tokens * 1000) / src) / 10;
	worst = Math.max(worst, pct);
	packTok += tokens;
	srcTok += src;
	if (tokens > budget) over++;
	if (miss.length) missing++;
	rows.push(`${t}: ${tokens}/${budget} tok, ${p.entries.filter((e) => e.role === 'uses').length} uses, ` +
		`${p.left_out.length} left out, ${files.size} files ${src} tok (${pct}%)` +
		(miss.length ? `; MISSING ${miss.join(', ')}` : ''));
}
for (const r of rows) console.log('  ' + r);
console.log(`packs: ${targets.length} targets, budget ${budget}: over budget ${over}, ` +
	`missing a called symbol ${missing}, pack/source tokens ${Math.round((packTok * 1000) / srcTok) / 10}% ` +
	`(worst ${worst}%)`);
