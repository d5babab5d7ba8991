#!/bin/sh
# Installs the programs the live checks run (the compilers of
# tests/cli/compile_live.sh, Neovim for tests/lsp/nvim.sh)
# when they are missing: each program of tests/compile/packages that is not on
# PATH, from its Debian package.  Without root or apt-get nothing is
# installed: those checks then SKIP with the package to install.  The
# parsers themselves are tested on recorded output either way.
top=$(cd "$(dirname "$0")/../.." && pwd)
missing=""
while read -r prog pkg; do
	[ -n "$prog" ] || continue
	command -v "$prog" >/dev/null 2>&1 || missing="$missing $pkg"
done < "$top/tests/compile/packages"
[ -n "$missing" ] || exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "compile tests: not installing$missing (needs root and apt-get); their live checks will SKIP"
	exit 0
fi
echo "compile tests: installing Debian packages:$missing"
apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null ||
	echo "compile tests: apt-get could not install$missing; their live checks will SKIP"
exit 0
