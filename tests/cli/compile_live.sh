#!/bin/sh
# compile_live.sh - every recorded compiler that is installed here runs its
# fixture through `mcpidx compile`, and the first error lands where the
# golden says (file:line; message wording may differ between versions).
# A compiler that is missing is skipped with the Debian package that has it
# (tests/compile/packages); the parsers are still tested on the recorded
# output by test_compile.  Runs in the release pass only (the compilers,
# not mcpidx, take the time).
. "$(dirname "$0")/lib.sh"
top=$(pwd)
case "$MCPIDX" in *asan*) echo "SKIP: live compilers run in the release pass"; exit 0 ;; esac
ran=0
for exp in testdata/compile/*/expected/*.expand; do
	dir=$(dirname "$(dirname "$exp")")
	name=$(basename "$dir")
	target=$(basename "$exp" .expand)
	prog=$(sed -n "/^\[compile\.$target\]/,/^argv/s/^argv = \[\"\([^\"]*\)\".*/\1/p" "$dir/.mcpidx.toml")
	if ! command -v "$prog" >/dev/null 2>&1; then
		echo "SKIP $name/$target: $prog is not installed (Debian: apt-get install $(grep "^$prog " tests/compile/packages | cut -d' ' -f2))"
		continue
	fi
	want=$(grep -m1 '^V\* ERROR ' "$exp" | sed 's/^V\* ERROR \([^: ]*:[0-9]*\).*/\1/')
	rm -rf "$T/w" && cp -r "$dir" "$T/w" && rm -rf "$T/w/expected"
	(cd "$T/w" && "$MCPIDX" build . -q && "$MCPIDX" compile "$target" --group ERROR) > "$T/out" 2>&1
	got=$(grep -m1 '^V\* ERROR ' "$T/out" | sed 's/^V\* ERROR \([^: ]*:[0-9]*\).*/\1/')
	expect_eq "$got" "$want" "$name/$target first error ($(head -c 300 "$T/out"))"
	echo "ok $name/$target: $got"
	ran=$((ran + 1))
done
[ "$ran" -ge 2 ] || fail "fewer than two compilers ran (cc and python3 are always there)"
