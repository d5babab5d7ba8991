#!/bin/sh
# bench/hook/run.sh - `make bench-hook`.  Works on a private git copy of the
# kernel subset (build/bench-hook/linux) so the shared corpus stays
# untouched.  Prints one line per measure and the ratios.
#   RUNS=N   edits timed (default 7); QUERIES=N artifact starts timed (default 30)
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
bin="$top/mcpidx"
runs=${RUNS:-7}
queries=${QUERIES:-30}
work="$top/build/bench-hook"
corpus=$(sh bench/corpus.sh | sed -n 's/^linux=//p')
[ -d "$corpus" ] || { echo "bench-hook: no kernel corpus; run: sh bench/corpus.sh" >&2; exit 1; }
command -v gtags >/dev/null || { echo "bench-hook: gtags not found; run: apt-get install -y global" >&2; exit 1; }
repo="$work/linux"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@localhost

now_ms() { date +%s%N | awk '{ printf "%.3f", $1 / 1e6 }'; }
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

if [ ! -f "$repo/.bench-ready" ]; then
	echo "bench-hook: preparing a git copy of $corpus in $repo (once)" >&2
	rm -rf "$repo"
	mkdir -p "$work"
	cp -r "$corpus" "$repo"
	rm -f "$repo/GTAGS" "$repo/GRTAGS" "$repo/GPATH" "$repo/.complete"
	printf '.mcpidx/\nGTAGS\nGRTAGS\nGPATH\n.bench-ready\n' > "$repo/.gitignore"
	git -C "$repo" init -q
	git -C "$repo" add -A
	git -C "$repo" commit -qm corpus
	touch "$repo/.bench-ready"
fi
git -C "$repo" reset -q --hard HEAD
git -C "$repo" clean -qfd -e .mcpidx -e GTAGS -e GRTAGS -e GPATH -e .bench-ready
files=$(git -C "$repo" ls-files | wc -l)

kind="full build"
[ -d "$repo/.mcpidx" ] && kind="build over an existing index (no change)"
t0=$(now_ms)
"$bin" build --quiet "$repo"
t1=$(now_ms)
(cd "$repo" && gtags -q)
t2=$(now_ms)
echo "$kind: mcpidx $(awk "BEGIN{printf \"%.2f\", ($t1-$t0)/1000}") s; gtags (full) $(awk "BEGIN{printf \"%.2f\", ($t2-$t1)/1000}") s ($files files)"

"$bin" hook install --repo "$repo" > /dev/null
hook="$repo/.git/hooks/pre-commit"
: > "$work/hook.ms"
: > "$work/global.ms"
: > "$work/commit.ms"
victims="kernel/fork.c mm/mmap.c lib/string.c fs/ext4/inode.c kernel/sched/core.c include/linux/list.h mm/slub.c kernel/exit.c lib/sort.c fs/ext4/super.c"
i=0
for f in $victims; do
	[ $i -lt "$runs" ] || break
	[ -f "$repo/$f" ] || continue
	i=$((i + 1))
	printf '\nint bench_hook_edit_%d(int x)\n{\n\treturn x + %d;\n}\n' $i $i >> "$repo/$f"
	# The hook itself, as git runs it (from the top of the work tree).
	a=$(now_ms); (cd "$repo" && sh "$hook"); b=$(now_ms)
	echo "$b $a" | awk '{ printf "%.3f\n", $1 - $2 }' >> "$work/hook.ms"
	a=$(now_ms); (cd "$repo" && global -u); b=$(now_ms)
	echo "$b $a" | awk '{ printf "%.3f\n", $1 - $2 }' >> "$work/global.ms"
	"$bin" query "$repo" def "bench_hook_edit_$i" > /dev/null ||
		{ echo "bench-hook: the hook did not index the edit in $f" >&2; exit 1; }
	# A whole commit with the hook, for scale (git add + hook + commit).
	printf '\nint bench_hook_commit_%d(void) { return %d; }\n' $i $i >> "$repo/$f"
	a=$(now_ms); git -C "$repo" commit -qam "edit $i"; b=$(now_ms)
	echo "$b $a" | awk '{ printf "%.3f\n", $1 - $2 }' >> "$work/commit.ms"
done
git -C "$repo" reset -q --hard "HEAD~$i"
hook_ms=$(median < "$work/hook.ms")
global_ms=$(median < "$work/global.ms")
commit_ms=$(median < "$work/commit.ms")
echo "one changed file, median of $i: hook (mcpidx build --quiet) $hook_ms ms, global -u $global_ms ms, git commit with the hook $commit_ms ms"
echo "ratio hook / global -u: $(awk "BEGIN{printf \"%.2f\", $hook_ms/$global_ms}")  target: hook < 500 ms -> $(awk "BEGIN{print ($hook_ms < 500) ? \"met\" : \"MISSED\"}")"
"$bin" build --quiet "$repo"
"$bin" hook uninstall --repo "$repo" > /dev/null

# The shipped artifact: a fresh process opens the packed file and answers.
pack="$work/linux.mcpidx"
rm -f "$pack"
"$bin" pack "$repo" -o "$pack" > /dev/null
"$bin" verify --quiet "$pack"
size=$(wc -c < "$pack")
"$bin" query "$pack" def schedule > /dev/null || { echo "bench-hook: no answer from the packed file" >&2; exit 1; }
: > "$work/first.ms"
: > "$work/empty.ms"
n=0
while [ $n -lt "$queries" ]; do
	n=$((n + 1))
	a=$(now_ms); "$bin" query "$pack" def schedule > /dev/null; b=$(now_ms)
	echo "$b $a" | awk '{ printf "%.3f\n", $1 - $2 }' >> "$work/first.ms"
	a=$(now_ms); "$bin" version > /dev/null; b=$(now_ms)
	echo "$b $a" | awk '{ printf "%.3f\n", $1 - $2 }' >> "$work/empty.ms"
done
first_ms=$(median < "$work/first.ms")
empty_ms=$(median < "$work/empty.ms")
echo "packed artifact $(awk "BEGIN{printf \"%.1f\", $size/1048576}") MiB: new process, open, first answer (def schedule) median $first_ms ms of $queries (process start alone: $empty_ms ms)"
open_ms=$(awk "BEGIN{printf \"%.3f\", $first_ms - $empty_ms}")
echo "open + first answer beyond process start: $open_ms ms"
echo "target: first answer < 20 ms -> $(awk "BEGIN{print ($first_ms < 20) ? \"met\" : \"MISSED\"}") (whole process), $(awk "BEGIN{print ($open_ms < 20) ? \"met\" : \"MISSED\"}") (open + answer)"
