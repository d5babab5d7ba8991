#!/bin/sh
# corpus.sh - prepares the benchmark corpora and prints their paths, one per
# line as NAME=PATH: a Linux kernel subset (kernel/ mm/ fs/ext4 lib/
# include/linux) extracted into build/corpus/linux, the Python 3.11 standard
# library and the Go 1.19 standard library sources.
#   sh bench/corpus.sh          # from the repository root
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
dest="$top/build/corpus/linux"
pystd=/usr/lib/python3.11
gostd=/usr/share/go-1.19/src

need=""
ls /usr/src/linux-source-6.1.tar.* >/dev/null 2>&1 || need="$need linux-source-6.1"
[ -d "$gostd" ] || need="$need golang-1.19-src"
if [ -n "$need" ]; then
	echo "corpus: installing$need" >&2
	if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
	$sudo apt-get install -y $need >&2 || {
		echo "corpus: could not install$need; run: apt-get update && apt-get install -y$need" >&2
		exit 1
	}
fi

if [ ! -f "$dest/.complete" ]; then
	tarball=$(ls /usr/src/linux-source-6.1.tar.* | head -1)
	echo "corpus: extracting kernel subset from $tarball" >&2
	rm -rf "$dest" "$dest.tmp"
	mkdir -p "$dest.tmp"
	case "$tarball" in
	*.xz) unz="xz -dc" ;;
	*.bz2) unz="bzip2 -dc" ;;
	*) unz="gzip -dc" ;;
	esac
	$unz "$tarball" | tar -x -C "$dest.tmp" --strip-components=1 \
		--wildcards 'linux-source-6.1/kernel/*' 'linux-source-6.1/mm/*' \
		'linux-source-6.1/fs/ext4/*' 'linux-source-6.1/lib/*' \
		'linux-source-6.1/include/linux/*'
	rm -f "$dest.tmp/.gitignore"
	mv "$dest.tmp" "$dest"
	touch "$dest/.complete"
fi

[ -d "$pystd" ] || { echo "corpus: no Python stdlib at $pystd; run: apt-get install -y python3.11" >&2; exit 1; }
echo "linux=$dest"
echo "python=$pystd"
echo "go=$gostd"
