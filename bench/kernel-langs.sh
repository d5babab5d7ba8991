#!/bin/sh
# bench/kernel-langs.sh - the whole Linux kernel (Debian's linux-source-6.1,
# unpacked into build/kernel/; KERNEL=DIR uses another tree or a part of it)
# indexed twice in one run by the same binary: once without the languages
# beyond the first seventeen (MCPIDX_SKIP_LANGS) and once with them.  Prints
# wall and CPU time of each build (the best of ROUNDS alternated runs,
# default 2), their ratios, and the files each of those
# languages covers.  Usage: sh bench/kernel-langs.sh [JOBS]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
bin=${MCPIDX:-$top/mcpidx}
jobs=${1:-2}
src=${KERNEL:-build/kernel/linux-source-6.1}
langs="kconfig asm rst dockerfile make devicetree yaml json toml css html lua hcl sql cmake latex ini proto scss xml svelte r powershell ocaml awk"
if [ ! -d "$src" ]; then
	tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -1)
	[ -n "$tarball" ] || { echo "kernel-langs: apt-get install linux-source-6.1 first" >&2; exit 2; }
	mkdir -p build/kernel && tar xf "$tarball" -C build/kernel || exit 2
fi
out=build/kernel/idx
run() { # $1 = label, $2 = MCPIDX_SKIP_LANGS value; prints "wall cpu"
	rm -rf "$out"
	MCPIDX_SKIP_LANGS="$2" /usr/bin/time -f "%e %U %S" -o "build/kernel/$1.time" \
		"$bin" build "$src" -o "$out" --no-ignore --force --jobs "$jobs" --json \
		> "build/kernel/$1.json" 2> "build/kernel/$1.err" || { cat "build/kernel/$1.err"; exit 1; }
	awk '{ print $1, $2 + $3 }' "build/kernel/$1.time"
}
mkdir -p build/kernel
# Alternate the two builds ROUNDS times and keep each one's fastest run:
# on a shared machine one run of each says little.
rounds=${ROUNDS:-2}
without="" with=""
i=0
while [ "$i" -lt "$rounds" ]; do
	without="$without,$(run without "$langs")" || exit 1
	with="$with,$(run with "")" || exit 1
	i=$((i + 1))
done
"$bin" query "$out" stats --json > build/kernel/stats.json
python3 - "$without" "$with" build/kernel/without.json build/kernel/with.json build/kernel/stats.json "$langs" <<'PY'
import json, sys
def best(runs):
    rs = [tuple(map(float, r.split())) for r in runs.split(",") if r.strip()]
    return min(r[0] for r in rs), min(r[1] for r in rs)
(wo, wo_cpu), (wi, wi_cpu) = best(sys.argv[1]), best(sys.argv[2])
a, b, st = (json.load(open(p)) for p in sys.argv[3:6])
print(f"best of {len(sys.argv[1].split(',')) - 1} alternated runs each")
print(f"kernel build without {sys.argv[6]!r}: wall {wo:.1f} s, cpu {wo_cpu:.1f} s, {a['files']} files")
print(f"kernel build with them: wall {wi:.1f} s, cpu {wi_cpu:.1f} s, {b['files']} files"
      f"  (ratio wall {wi / wo:.3f}, cpu {wi_cpu / wo_cpu:.3f})")
langs = st.get("languages", {})
for l in sys.argv[6].split():
    print(f"  {l:12s} {langs.get(l, 0):6d} files")
PY
rm -rf "$out"
