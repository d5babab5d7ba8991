#!/bin/sh
# run.sh - `make bench-tokens`: o200k tokens of whole sources vs our outline
# and compact views vs `repomix --compress`, on three corpora (Linux kernel
# subset, Python 3.11 stdlib, Go 1.19 stdlib) and three libraries nobody here
# wrote (Click, Gin, Express: bench/tokens/foreign.sh); the share of universal-ctags'
# public top-level functions/classes/structs/methods kept by the outline;
# p50/p99 latency of outline and expand in-process.
#   sh bench/tokens/run.sh VIEWS_BINARY      # from the repository root
# Results: build/bench/tokens/<corpus>.json and summary.txt.
# MI_BENCH_CORPORA="linux python" limits the corpora; MI_BENCH_NO_REPOMIX=1
# skips the peer.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
views=${1:-build/bench/views}
out=build/bench/tokens
mkdir -p "$out"
[ -x "$views" ] || { echo "bench-tokens: no driver at $views; run: make bench-tokens" >&2; exit 1; }
command -v node >/dev/null || { echo "bench-tokens: node not found; run: apt-get install -y nodejs npm" >&2; exit 1; }
command -v ctags >/dev/null || { echo "bench-tokens: ctags not found; run: apt-get install -y universal-ctags" >&2; exit 1; }
if [ ! -d bench/tokens/node_modules/gpt-tokenizer ]; then
	echo "bench-tokens: installing gpt-tokenizer and repomix into bench/tokens/node_modules" >&2
	(cd bench/tokens && npm install --no-audit --no-fund --silent) ||
		{ echo "bench-tokens: npm install failed in bench/tokens" >&2; exit 1; }
fi

sh bench/corpus.sh > "$out/corpora.txt"
sh bench/tokens/foreign.sh >> "$out/corpora.txt"
want=${MI_BENCH_CORPORA:-linux python go click gin express}
: > "$out/summary.txt"
for name in $want; do
	root=$(sed -n "s/^$name=//p" "$out/corpora.txt")
	[ -d "$root" ] || { echo "bench-tokens: no corpus $name" >&2; continue; }
	case $name in
	linux) pat='-name *.c -o -name *.h'; langs=C; map='--langmap=C:.c.h' ;;
	python|click) pat='-name *.py'; langs=Python; map='' ;;
	go|gin) pat='-name *.go'; langs=Go; map='' ;;
	express) pat='-name *.js'; langs=JavaScript; map='' ;;
	esac
	# shellcheck disable=SC2086
	(cd "$root" && set -f && find . -type f \( $pat \) ! -path '*/testdata/*' | sed 's|^\./||' | LC_ALL=C sort) > "$out/$name.list"
	echo "== $name: $(wc -l < "$out/$name.list") files in $root" | tee -a "$out/summary.txt"
	"$views" "$root" "$out/$name.list" "$out/$name.jsonl" 1000 | tee "$out/$name.latency" |
		tee -a "$out/summary.txt"
	# shellcheck disable=SC2086
	(cd "$root" && ctags --output-format=json --fields=+KsSZf --languages=$langs $map \
		-L "$top/$out/$name.list" -f - 2>/dev/null) > "$out/$name.ctags.json"
	rep=-
	if [ -z "${MI_BENCH_NO_REPOMIX:-}" ]; then
		rep="$top/$out/$name.repomix.txt"
		(cd "$root" && node "$top/bench/tokens/node_modules/repomix/bin/repomix.cjs" --stdin --compress \
			--style plain --no-security-check --no-gitignore --no-default-patterns \
			-o "$rep" < "$top/$out/$name.list" > "$top/$out/$name.repomix.log" 2>&1) ||
			{ echo "bench-tokens: repomix failed on $name (see $out/$name.repomix.log)" >&2; rep=-; }
	fi
	node --max-old-space-size=4096 bench/tokens/count.mjs "$name" "$root" "$out/$name.jsonl" \
		"$out/$name.ctags.json" "$rep" "$out/$name.json" | tee -a "$out/summary.txt"
done
echo "targets: outline <= 10%, compact <= 5% of source tokens; ctags public defs in outline >= 99.5%" |
	tee -a "$out/summary.txt"
