#!/bin/sh
# Installs what mcpidx needs to build: Debian -dev packages (when missing) and
# the pinned tree-sitter npm packages, checked against tools/deps.lock.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/build/ts"
debs="liblmdb-dev libxxhash-dev libmsgpack-dev libjansson-dev libedit-dev libstemmer-dev libmicrohttpd-dev libcurl4-openssl-dev libzstd-dev pkg-config universal-ctags"
command -v npm >/dev/null 2>&1 || debs="$debs npm"
# The test suite drives the CLI with python3 (JSON checks, a pty) and git.
command -v python3 >/dev/null 2>&1 || debs="$debs python3"
command -v git >/dev/null 2>&1 || debs="$debs git"
# The sanitized test pass and the fuzz targets are built with clang.
debs="$debs clang libclang-rt-14-dev"
missing=""
for p in $debs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "fetch-deps: installing Debian packages:$missing"
	if [ "$(id -u)" -ne 0 ]; then
		echo "fetch-deps: need root to install$missing (run: sudo apt-get install$missing)" >&2
		exit 1
	fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
fi
mkdir -p "$out/dl"
grep -v '^#' "$top/tools/deps.lock" | while read -r spec dir sum; do
	[ -n "$spec" ] || continue
	[ -f "$out/$dir/.ok" ] && [ "$(cat "$out/$dir/.ok")" = "$sum" ] && continue
	name=${spec%@*}
	ver=${spec##*@}
	tgz=$(echo "$name" | sed 's|^@||; s|/|-|')-$ver.tgz
	if [ ! -f "$out/dl/$tgz" ]; then
		echo "fetch-deps: npm pack $spec"
		(cd "$out/dl" && npm pack --silent "$spec" >/dev/null)
	fi
	got=$(sha256sum "$out/dl/$tgz" | cut -d' ' -f1)
	if [ "$got" != "$sum" ]; then
		echo "fetch-deps: checksum mismatch for $spec: got $got, want $sum" >&2
		rm -f "$out/dl/$tgz"
		exit 1
	fi
	rm -rf "$out/$dir"
	mkdir -p "$out/$dir"
	tar xzf "$out/dl/$tgz" -C "$out/$dir" --strip-components=1
	echo "$sum" > "$out/$dir/.ok"
done
