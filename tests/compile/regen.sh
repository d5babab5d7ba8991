#!/bin/sh
# Records real compiler output for the golden tests of the log parsers:
# runs every target of testdata/compile/*/.mcpidx.toml in a scratch copy of
# its fixture (LC_ALL=C, as `mcpidx compile` runs it) and writes
# expected/TARGET.output (the scratch directory written as @ROOT@) and
# expected/TARGET.exit.  A compiler that is not installed is skipped with
# the package that has it.  Then run
#   MI_UPDATE_GOLDEN=1 build/tests/test_compile
# to rewrite the parsed goldens, and read `git diff testdata/compile`.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpidx-regen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for dir in "$top"/testdata/compile/*/; do
	name=$(basename "$dir")
	python3 - "$dir/.mcpidx.toml" > "$tmp/targets" <<'PY'
import shlex, sys, tomllib
cfg = tomllib.load(open(sys.argv[1], "rb"))
for t, v in cfg.get("compile", {}).items():
    print(t, shlex.join(v["argv"]))
PY
	while read -r target cmd; do
		prog=$(echo "$cmd" | cut -d' ' -f1)
		if ! command -v "$prog" >/dev/null 2>&1; then
			pkg=$(grep "^$prog " "$top/tests/compile/packages" | cut -d' ' -f2)
			echo "SKIP $name/$target: $prog is not installed (Debian: apt-get install $pkg)"
			continue
		fi
		rm -rf "$tmp/repo"
		cp -r "$dir" "$tmp/repo"
		root=$(cd "$tmp/repo" && pwd -P)
		mkdir -p "$dir/expected"
		(cd "$tmp/repo" && eval "LC_ALL=C $cmd" > "$tmp/out" 2>&1; echo $? > "$dir/expected/$target.exit")
		sed "s|$root|@ROOT@|g" "$tmp/out" > "$dir/expected/$target.output"
		echo "recorded $name/$target (exit $(cat "$dir/expected/$target.exit"), $prog $("$prog" --version 2>&1 | head -1))"
	done < "$tmp/targets"
done
