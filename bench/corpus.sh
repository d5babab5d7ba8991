#!/bin/sh
# corpus.sh - prepares the benchmark corpora and prints their paths, one per
# line as NAME=PATH: a Linux kernel subset (kernel/ mm/ fs/ext4 lib/
# include/linux) extracted into build/corpus/linux, the Python 3.11 standard
# library, the Go 1.19 standard library sources, Java's java.base module
# (openjdk-17-source, extracted into build/corpus/java), one npm
# package's JavaScript source (ESLint, fetched with npm pack into
# build/corpus/eslint and checked against its pinned sha512), Rust's core,
# alloc and std libraries (rust-src, copied into build/corpus/rust) and
# two npm packages' TypeScript sources (RxJS's and Effect's src/, copied
# side by side into build/corpus/ts).
# With KERNEL=full, linux= is the whole linux-source-6.1 tree instead
# (build/corpus/linux-full, as `make bench-build KERNEL=full` uses).  The
# Rust and TypeScript corpora (rust=, ts=) are prepared only with
# CORPUS_EXTRA=1 (make bench-search): the other benches do not read them.
#   sh bench/corpus.sh          # from the repository root
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
dest="$top/build/corpus/linux"
[ "${KERNEL:-}" = full ] && dest="$top/build/corpus/linux-full"
pystd=/usr/lib/python3.11
gostd=/usr/share/go-1.19/src
jdksrc=/usr/lib/jvm/openjdk-17/lib/src.zip
jsdest="$top/build/corpus/eslint"
js_pkg=eslint@8.57.0
js_sha512=dZ6+mexnaTIbSBZWgou51U6OmzIhYM2VcNdtiTtI7qPNZm35Akpr0f6vtw3w1Kmn5PYo+tZVfh13WrhpS6oLqQ==
tsdest="$top/build/corpus/rxjs"
ts_pkg=rxjs@7.8.1
ts_sha512=AA3TVj+0A2iuIoQkWEK/tqFjBq2j+6PO6Y0zJcvzLAFhEFIO3HL0vls9hWLncZbAAbK0mar7oZ4V079I/qPMxg==
ts2dest="$top/build/corpus/effect"
ts2_pkg=effect@3.10.0
ts2_sha512=J9rsJBXNHZxklJTbHriY8D9wIHhmvXDamExW4pPZ2kPNZ+XRfstXeHBqpXAIK+B42ASVbuDswAXyup5WHWK6jg==
tsboth="$top/build/corpus/ts"
rustdest="$top/build/corpus/rust"

need=""
ls /usr/src/linux-source-6.1.tar.* >/dev/null 2>&1 || need="$need linux-source-6.1"
[ -d "$gostd" ] || need="$need golang-1.19-src"
[ -f "$jdksrc" ] || need="$need openjdk-17-source"
command -v unzip >/dev/null 2>&1 || need="$need unzip"
extra=${CORPUS_EXTRA:-}
[ -z "$extra" ] || ls -d /usr/src/rustc-*/library/std >/dev/null 2>&1 || need="$need rust-src"
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
	echo "corpus: extracting the kernel${KERNEL:+ ($KERNEL)} from $tarball" >&2
	rm -rf "$dest" "$dest.tmp"
	mkdir -p "$dest.tmp"
	case "$tarball" in
	*.xz) unz="xz -dc" ;;
	*.bz2) unz="bzip2 -dc" ;;
	*) unz="gzip -dc" ;;
	esac
	if [ "${KERNEL:-}" = full ]; then
		$unz "$tarball" | tar -x -C "$dest.tmp" --strip-components=1
	else
		$unz "$tarball" | tar -x -C "$dest.tmp" --strip-components=1 \
			--wildcards 'linux-source-6.1/kernel/*' 'linux-source-6.1/mm/*' \
			'linux-source-6.1/fs/ext4/*' 'linux-source-6.1/lib/*' \
			'linux-source-6.1/include/linux/*'
		rm -f "$dest.tmp/.gitignore"
	fi
	mv "$dest.tmp" "$dest"
	touch "$dest/.complete"
fi

if [ ! -f "$top/build/corpus/java/.complete" ]; then
	echo "corpus: extracting java.base from $jdksrc" >&2
	rm -rf "$top/build/corpus/java"
	mkdir -p "$top/build/corpus/java.tmp"
	(cd "$top/build/corpus/java.tmp" && unzip -q "$jdksrc" 'java.base/*.java')
	mv "$top/build/corpus/java.tmp" "$top/build/corpus/java"
	touch "$top/build/corpus/java/.complete"
fi

# npm_src DEST PKG SHA512: the package fetched with npm pack into DEST,
# checked against its pinned sha512 and unpacked (DEST/package).
npm_src() {
	[ -f "$1/.complete" ] && return 0
	echo "corpus: fetching $2 with npm pack" >&2
	rm -rf "$1" "$1.tmp"
	mkdir -p "$1.tmp"
	(cd "$1.tmp" && npm pack --silent "$2" >/dev/null 2>&1) || {
		echo "corpus: npm pack $2 failed (network?)" >&2
		exit 1
	}
	tgz=$(ls "$1.tmp"/*.tgz)
	got=$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)
	if [ "$got" != "$3" ]; then
		echo "corpus: $tgz: sha512 $got, expected $3" >&2
		exit 1
	fi
	tar -xzf "$tgz" -C "$1.tmp"
	rm -f "$tgz"
	mv "$1.tmp" "$1"
	touch "$1/.complete"
}
npm_src "$jsdest" "$js_pkg" "$js_sha512"
[ -z "$extra" ] || npm_src "$tsdest" "$ts_pkg" "$ts_sha512"
[ -z "$extra" ] || npm_src "$ts2dest" "$ts2_pkg" "$ts2_sha512"
if [ -n "$extra" ] && [ ! -f "$tsboth/.complete" ]; then
	rm -rf "$tsboth" "$tsboth.tmp"
	mkdir -p "$tsboth.tmp"
	cp -r "$tsdest/package/src" "$tsboth.tmp/rxjs"
	cp -r "$ts2dest/package/src" "$tsboth.tmp/effect"
	mv "$tsboth.tmp" "$tsboth"
	touch "$tsboth/.complete"
fi

if [ -n "$extra" ] && [ ! -f "$rustdest/.complete" ]; then
	lib=$(ls -d /usr/src/rustc-*/library | head -1)
	echo "corpus: copying core, alloc and std from $lib" >&2
	rm -rf "$rustdest" "$rustdest.tmp"
	mkdir -p "$rustdest.tmp"
	cp -r "$lib/core" "$lib/alloc" "$lib/std" "$rustdest.tmp/"
	mv "$rustdest.tmp" "$rustdest"
	touch "$rustdest/.complete"
fi

[ -d "$pystd" ] || { echo "corpus: no Python stdlib at $pystd; run: apt-get install -y python3.11" >&2; exit 1; }
echo "linux=$dest"
echo "python=$pystd"
echo "go=$gostd"
echo "java=$top/build/corpus/java/java.base"
echo "js=$jsdest/package"
if [ -n "$extra" ]; then
	echo "rust=$rustdest"
	echo "ts=$tsboth"
fi
