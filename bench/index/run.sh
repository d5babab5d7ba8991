#!/bin/sh
# Build benchmark: mcpidx vs ctags -R vs gtags vs SQLite FTS5 on one corpus,
# one run, figures side by side with ratios.  CORPUS=DIR overrides the kernel
# subset; KERNEL=full uses the whole linux-source-6.1 tree (extracted once
# into build/corpus/linux-full).  mcpidx runs with --no-ignore, so it sees
# the files the peers see.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
bin=$top/mcpidx
if [ -z "${CORPUS:-}" ] && [ "${KERNEL:-}" = full ]; then
	CORPUS=$top/build/corpus/linux-full
	if [ ! -f "$CORPUS/.complete" ]; then
		tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -1)
		[ -n "$tarball" ] || apt-get install -y -qq linux-source-6.1 >&2
		tarball=$(ls /usr/src/linux-source-6.1.tar.* | head -1)
		echo "bench-build: extracting $tarball" >&2
		rm -rf "$CORPUS" "$CORPUS.tmp"
		mkdir -p "$CORPUS.tmp"
		tar -xaf "$tarball" -C "$CORPUS.tmp" --strip-components=1
		mv "$CORPUS.tmp" "$CORPUS"
		touch "$CORPUS/.complete"
	fi
fi
if [ -z "${CORPUS:-}" ]; then
	CORPUS=$(sh bench/corpus.sh | sed -n 's/^linux=//p')
fi
command -v gtags >/dev/null || { echo "bench-build: installing global" >&2; apt-get install -y -qq global >&2; }
command -v ctags >/dev/null || { echo "bench-build: installing universal-ctags" >&2; apt-get install -y -qq universal-ctags >&2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A private copy, so the one-file edit does not touch the corpus (its
# contents: when CORPUS is a symbolic link, cp -a would copy the link).
mkdir "$work/src"
cp -a "$CORPUS/." "$work/src/"
src=$work/src
nfiles=$(find "$src" -type f \( -name '*.c' -o -name '*.h' \) | wc -l)
echo "corpus: $CORPUS ($(find "$src" -type f | wc -l) files, $nfiles C files, $(du -sh "$src" | cut -f1)); $(nproc) cores; load:$(uptime | sed 's/.*load average://')"

# measure LABEL CMD...: wall, user+sys CPU, peak RSS via /usr/bin/time
measure() {
	label=$1; shift
	/usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > "$work/out.$label" 2>&1 || {
		echo "$label failed:"; tail -5 "$work/out.$label"; exit 1; }
	read -r wall usr sys rss < "$work/time"
	cpu=$(echo "$usr $sys" | awk '{printf "%.2f", $1 + $2}')
	eval "${label}_wall=$wall ${label}_cpu=$cpu ${label}_rss=$rss"
}
size_of() { du -sk "$1" | cut -f1; }

sync
measure mcpidx "$bin" build "$src" --no-ignore -o "$work/mcpidx-index" --force --json
measure ctags ctags -R -f "$work/tags" --fields=+n "$src"
mkdir -p "$work/gtags-db"
cd "$src"
measure gtags gtags "$work/gtags-db"
cd "$top"
measure fts5 python3 bench/index/fts5_build.py "$src" "$work/fts5.db"
gdb=$src
[ -f "$work/gtags-db/GTAGS" ] && gdb=$work/gtags-db
m_size=$(size_of "$work/mcpidx-index")
c_size=$(( $(stat -c %s "$work/tags") / 1024 ))
g_size=$(( ($(stat -c %s "$gdb/GTAGS") + $(stat -c %s "$gdb/GRTAGS") + $(stat -c %s "$gdb/GPATH")) / 1024 ))
f_size=$(( $(stat -c %s "$work/fts5.db") / 1024 ))

printf '\nfull build            %10s %10s %10s %12s\n' wall_s cpu_s rss_MiB index_MiB
printf '  mcpidx              %10s %10s %10d %12.1f\n' "$mcpidx_wall" "$mcpidx_cpu" $((mcpidx_rss / 1024)) "$(echo "$m_size/1024" | bc -l)"
printf '  ctags -R            %10s %10s %10d %12.1f\n' "$ctags_wall" "$ctags_cpu" $((ctags_rss / 1024)) "$(echo "$c_size/1024" | bc -l)"
printf '  gtags               %10s %10s %10d %12.1f\n' "$gtags_wall" "$gtags_cpu" $((gtags_rss / 1024)) "$(echo "$g_size/1024" | bc -l)"
printf '  SQLite FTS5         %10s %10s %10d %12.1f   (%s)\n' "$fts5_wall" "$fts5_cpu" $((fts5_rss / 1024)) "$(echo "$f_size/1024" | bc -l)" "$(cat "$work/out.fts5")"
printf '  ratio mcpidx/gtags  wall %.2f  cpu %.2f\n' "$(echo "$mcpidx_wall/$gtags_wall" | bc -l)" "$(echo "$mcpidx_cpu/$gtags_cpu" | bc -l)"
printf '  ratio mcpidx/FTS5   wall %.2f  cpu %.2f  size %.2f\n' "$(echo "$mcpidx_wall/$fts5_wall" | bc -l)" "$(echo "$mcpidx_cpu/$fts5_cpu" | bc -l)" "$(echo "$m_size/$f_size" | bc -l)"
python3 - "$work/out.mcpidx" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
try:
    j = json.loads(t[t.index("{"):])
except ValueError:
    sys.exit(0)
keep = ("files", "indexed", "symbols", "references", "chunks", "seconds", "walk_seconds", "parse_seconds", "write_seconds")
print("  mcpidx --json: " + ", ".join("%s %s" % (k, j[k]) for k in keep if k in j))
print("  mcpidx skipped: " + ", ".join("%s %s" % kv for kv in j.get("skipped", {}).items() if kv[1]))
PY
if command -v mdb_stat >/dev/null; then
	echo "  mcpidx per database (mdb_stat, MiB):"
	mdb_stat -a "$work/mcpidx-index" | awk '/^Status of/ {db=$3} /Branch pages|Leaf pages|Overflow pages/ {pg[db]+=$3; n[db]=1} /Entries/ {e[db]=$2} END {for (d in pg) if (pg[d] > 0) printf "    %-10s %10.1f MiB %12d entries\n", d, pg[d]*4096/1048576, e[d]}' | sort -k2 -nr
fi

# Rebuilds: no-op, then one changed file, beside global -u, three rounds
# (each its own edit): the first, as the tree and index were left by the
# builds above, and the median and range of the three (one sample moved by
# 0.2-0.3 s from run to run).
edit=$src/kernel/fork.c
[ -f "$edit" ] || edit=$(find "$src" -name '*.c' | sort | head -1)
for r in 1 2 3; do
	measure noop "$bin" build "$src" --no-ignore -o "$work/mcpidx-index" -q
	measure gnoop sh -c "cd '$src' && GTAGSROOT='$src' GTAGSDBPATH='$gdb' global -u"
	echo "/* bench edit $r */ static int mi_bench_edit_$r(void) { return 0; }" >> "$edit"
	measure one "$bin" build "$src" --no-ignore -o "$work/mcpidx-index" -q
	measure gone sh -c "cd '$src' && GTAGSROOT='$src' GTAGSDBPATH='$gdb' global -u"
	echo "$noop_wall $gnoop_wall $one_wall $gone_wall" >> "$work/rebuilds"
done
rb() { # column: first, median (range) of the three rounds
	awk -v c="$1" '{v[NR] = $c} END {
		a = v[1]; b = v[2]; d = v[3]
		if (a > b) { t = a; a = b; b = t }
		if (b > d) { t = b; b = d; d = t }
		if (a > b) { t = a; a = b; b = t }
		printf "%s, %s (%s-%s)", v[1], b, a, d }' "$work/rebuilds"
}
printf '\nrebuild (s; first, then median and range of 3)   mcpidx            global -u\n'
printf '  no change           %-24s %s\n' "$(rb 1)" "$(rb 2)"
printf '  one file changed    %-24s %s\n' "$(rb 3)" "$(rb 4)"

# Share of ctags' function definitions found by mcpidx at the same line.
if [ -f bench/ctags-recall.sh ]; then
	echo
	sh bench/ctags-recall.sh "$src" c || true
fi
