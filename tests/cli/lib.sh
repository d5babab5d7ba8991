# Shared helpers for tests/cli/*.sh (sourced, not a test itself).
# $MCPIDX is the binary under test; each test works in its own temp dir.
set -u
: "${MCPIDX:=$(pwd)/mcpidx}"
T=$(mktemp -d "${TMPDIR:-/tmp}/mcpidx-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# json FILE EXPR: evaluates a python expression over the parsed JSON `j`.
json() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"; }
expect_contains() { case "$1" in *"$2"*) ;; *) fail "$3: '$2' not in: $1";; esac; }
# mcp_py [ARGS]: for the tests of `mcpidx serve` in tests/security: runs the
# Python on standard input in $T, with mcptest.py importable and a copy of
# testdata/mcp ($T/repo) as its first argument.
_lib=$(cd "$(dirname "$0")/.." && pwd)
mcp_py() {
	cp -r "$_lib/../testdata/mcp" "$T/repo" && cd "$T" &&
	PYTHONPATH="$_lib/security" python3 - "$T/repo" "$@"
}
