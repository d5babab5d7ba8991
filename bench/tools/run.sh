#!/bin/sh
# bench/tools/run.sh BIN OUT - the body of `make bench-tools` (see tools.mk).
set -e
bin=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"
mkdir -p "$out"
echo "== catalogs: $(ls "$here"/catalogs/*.json | wc -l) real npm MCP servers (bench/tools/collect.mjs)"
"$bin" build "$here/catalogs" "$here/aliases.json" "$out"
"$bin" check "$here/catalogs" "$here/queries.tsv"
"$bin" texts "$here/catalogs" > "$out/texts.tsv"
echo "== recall@5, query set bench/tools/queries.tsv (odd lines tune, even lines test)"
"$bin" eval "$out/real" "$here/queries.tsv" --no-aliases
python3 "$here/fts5.py" "$out/texts.tsv" "$here/queries.tsv" 20
"$bin" eval "$out/real-aliases" "$here/queries.tsv"
echo "== what model-free expansion earns: WordNet relatives of the task's words (wordnet.py)"
if [ ! -d /usr/share/wordnet ] || ! /usr/bin/python3 -c 'import snowballstemmer' 2>/dev/null; then
	echo "bench-tools: installing wordnet-base python3-snowballstemmer" >&2
	apt-get install -y -qq wordnet-base python3-snowballstemmer >&2 || true
fi
/usr/bin/python3 "$here/wordnet.py" "$out/texts.tsv" "$here/queries.tsv" || true
echo "== latency and memory (same run; 2 shared cores: read the ratio, not the absolute)"
"$bin" time "$out/real" "$here/queries.tsv" 40
"$bin" time "$out/10k" "$here/queries.tsv" 40
python3 "$here/fts5.py" "$out/texts.tsv" "$here/queries.tsv" 40 10000
echo "== tokens"
"$bin" tokens "$out/real" "$here/queries.tsv" "$here/catalogs"
