#!/bin/sh
# Build benchmark: mcpidx vs ctags -R vs gtags on one corpus, one run,
# figures side by side with ratios.  CORPUS=DIR overrides the kernel subset.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
bin=$top/mcpidx
if [ -z "${CORPUS:-}" ]; then
	CORPUS=$(sh bench/corpus.sh | sed -n 's/^linux=//p')
fi
command -v gtags >/dev/null || { echo "bench-build: installing global" >&2; apt-get install -y -qq global >&2; }
command -v ctags >/dev/null || { echo "bench-build: installing universal-ctags" >&2; apt-get install -y -qq universal-ctags >&2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A private copy, so the one-file edit does not touch the corpus.
cp -a "$CORPUS" "$work/src"
src=$work/src
nfiles=$(find "$src" -type f \( -name '*.c' -o -name '*.h' \) | wc -l)
echo "corpus: $CORPUS ($nfiles C files, $(du -sh "$src" | cut -f1)); $(nproc) cores"

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
measure mcpidx "$bin" build "$src" --no-ignore -o "$work/mcpidx-index" --force -q
measure ctags ctags -R -f "$work/tags" --fields=+n "$src"
mkdir -p "$work/gtags-db"
cd "$src"
measure gtags gtags "$work/gtags-db"
cd "$top"
gdb=$src
[ -f "$work/gtags-db/GTAGS" ] && gdb=$work/gtags-db
m_size=$(size_of "$work/mcpidx-index")
c_size=$(( $(stat -c %s "$work/tags") / 1024 ))
g_size=$(( ($(stat -c %s "$gdb/GTAGS") + $(stat -c %s "$gdb/GRTAGS") + $(stat -c %s "$gdb/GPATH")) / 1024 ))

printf '\nfull build            %10s %10s %10s %12s\n' wall_s cpu_s rss_MiB index_MiB
printf '  mcpidx              %10s %10s %10d %12.1f\n' "$mcpidx_wall" "$mcpidx_cpu" $((mcpidx_rss / 1024)) "$(echo "$m_size/1024" | bc -l)"
printf '  ctags -R            %10s %10s %10d %12.1f\n' "$ctags_wall" "$ctags_cpu" $((ctags_rss / 1024)) "$(echo "$c_size/1024" | bc -l)"
printf '  gtags               %10s %10s %10d %12.1f\n' "$gtags_wall" "$gtags_cpu" $((gtags_rss / 1024)) "$(echo "$g_size/1024" | bc -l)"
printf '  ratio mcpidx/gtags  wall %.2f  cpu %.2f\n' "$(echo "$mcpidx_wall/$gtags_wall" | bc -l)" "$(echo "$mcpidx_cpu/$gtags_cpu" | bc -l)"

# Rebuilds: no-op, then one changed file, beside global -u.
measure noop "$bin" build "$src" --no-ignore -o "$work/mcpidx-index" -q
measure gnoop sh -c "cd '$src' && GTAGSROOT='$src' GTAGSDBPATH='$gdb' global -u"
echo '/* bench edit */ static int mi_bench_edit(void) { return 0; }' >> "$src/kernel/fork.c"
measure one "$bin" build "$src" --no-ignore -o "$work/mcpidx-index" -q
measure gone sh -c "cd '$src' && GTAGSROOT='$src' GTAGSDBPATH='$gdb' global -u"
printf '\nrebuild               %10s %10s\n' mcpidx_s 'global -u'
printf '  no change           %10s %10s\n' "$noop_wall" "$gnoop_wall"
printf '  one file changed    %10s %10s\n' "$one_wall" "$gone_wall"

# Share of ctags' function definitions found by mcpidx at the same line.
if [ -f bench/ctags-recall.sh ]; then
	echo
	sh bench/ctags-recall.sh "$src" c || true
fi
