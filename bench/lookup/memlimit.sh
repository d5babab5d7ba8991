#!/bin/sh
# memlimit.sh LOOKUP INDEX CORPUS LIMIT_MIB - the lookups of bench/lookup in a
# memory cgroup of LIMIT_MIB beside a process reading CORPUS's files over and
# over (a build or a grep sharing the container), once as served by default
# and once with the map locked (`serve --lock-memory`, MI_BENCH_LOCK=1).
# Each run warms the map with one pass, waits 20 s and measures a second
# pass of the same sample: p50/p99 per lookup and the major page faults it
# took (reads from the disk).  Needs root and a memory cgroup (v2, or v1's
# memory controller); the page cache is dropped before each run so the
# index's pages are charged to the test cgroup.  Prints, never fails on a
# figure.
set -eu
lookup=$1 index=$2 corpus=$3 limit=$4
[ "$(id -u)" = 0 ] || { echo "memlimit: needs root (a cgroup and drop_caches)" >&2; exit 1; }
bytes=$((limit * 1024 * 1024))
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	cg=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)/mi-memlimit.$$
	mkdir "$cg"
	echo "$bytes" > "$cg/memory.max"
else
	cg=/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)/mi-memlimit.$$
	mkdir "$cg"
	echo "$bytes" > "$cg/memory.limit_in_bytes"
fi
trap 'rmdir "$cg" 2>/dev/null || true' EXIT
run() {
	sync
	echo 1 > /proc/sys/vm/drop_caches
	sh -c 'echo $$ > "$1/cgroup.procs"
		setsid sh -c "while :; do find \"\$0\" -type f -print0 | xargs -0 cat > /dev/null; done" "$2" &
		hog=$!
		MI_BENCH_PAUSE=20 "$3" "$4" 1000 || true
		kill -- "-$hog" 2>/dev/null || true' _ "$cg" "$corpus" "$lookup" "$index"
	# the cgroup empties once the reader's processes are gone
	sleep 1
}
echo "== $(du -sh "$index" | cut -f1) index in a ${limit} MiB memory cgroup beside a reader of $corpus"
echo "-- served as by default"
run
echo "-- map locked (serve --lock-memory)"
MI_BENCH_LOCK=1 run
