#!/bin/sh
# Records testdata/coverage/lcov.info: real gcc --coverage data of src/test.c
# exercising src/shapes.c, captured by lcov with branch coverage.  The scratch
# directory becomes /src/project in SF: paths (views match SF by suffix).
# Needs gcc and lcov (Debian: apt-get install lcov).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
command -v lcov >/dev/null || { echo "SKIP: lcov is not installed (Debian: apt-get install lcov)"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpidx-cov.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -r "$here/src" "$tmp/"
cd "$tmp"
cc --coverage -O0 -o t src/test.c src/shapes.c
./t
lcov -q --capture --directory . --rc lcov_branch_coverage=1 -o raw.info 2>/dev/null
lcov -q --extract raw.info "$tmp/src/shapes.c" --rc lcov_branch_coverage=1 -o one.info 2>/dev/null
sed "s|$tmp|/src/project|" one.info > "$here/lcov.info"
echo "recorded $here/lcov.info ($(lcov --version | head -1))"
