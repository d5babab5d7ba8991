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
"$bin" check "$here/catalogs" "$here/blind.tsv"
"$bin" check "$here/catalogs" "$here/reword.tsv"
"$bin" texts "$here/catalogs" > "$out/texts.tsv"
# Three query sets, each split by line (odd tasks tune, even tasks test):
# queries.tsv (written beside the ranker), blind.tsv and reword.tsv (written
# from the catalogs alone, without running or reading any ranker).  The
# weights are tuned on the three tuning halves together: `tools_bench eval
# INDEX queries.tsv,blind.tsv,reword.tsv --no-aliases --tune`.
all="$here/blind.tsv,$here/queries.tsv,$here/reword.tsv"
for set in blind queries reword; do
	echo "== recall@5, query set bench/tools/$set.tsv (odd lines tune, even lines test)"
	"$bin" eval "$out/real" "$here/$set.tsv" --no-aliases
	python3 "$here/fts5.py" "$out/texts.tsv" "$here/$set.tsv" 20
	"$bin" eval "$out/real-aliases" "$here/$set.tsv"
done
echo "== recall@5, the three sets together (each keeps its halves)"
"$bin" eval "$out/real" "$all" --no-aliases
python3 "$here/fts5.py" "$out/texts.tsv" "$all" 20
"$bin" eval "$out/real-aliases" "$all"
echo "== what model-free expansion earns: WordNet relatives of the task's words (wordnet.py)"
if [ ! -d /usr/share/wordnet ] || ! /usr/bin/python3 -c 'import snowballstemmer' 2>/dev/null; then
	echo "bench-tools: installing wordnet-base python3-snowballstemmer" >&2
	apt-get install -y -qq wordnet-base python3-snowballstemmer >&2 || true
fi
/usr/bin/python3 "$here/wordnet.py" "$out/texts.tsv" "$all" || true
echo "== latency and memory (same run; 2 shared cores: read the ratio, not the absolute)"
"$bin" time "$out/real" "$here/queries.tsv" 40
"$bin" time "$out/10k" "$here/queries.tsv" 40
python3 "$here/fts5.py" "$out/texts.tsv" "$here/queries.tsv" 40 10000
echo "== tokens"
"$bin" tokens "$out/real" "$here/queries.tsv" "$here/catalogs"
