#!/bin/sh
# context_pack.sh - `mcpidx query IDX pack` and `mcpidx context`: context packs of
# testdata/pack byte for byte as testdata/pack/expected/ says, within their
# budget, the same bytes twice, and clear errors for bad targets and budgets;
# `outline --xrefs` (callers inline) as its golden says.
. tests/cli/lib.sh
E=testdata/pack/expected
"$MCPIDX" build testdata/pack -o "$T/idx" -q || fail "build testdata/pack"

golden() { # $1 = expected file, $2.. = pack arguments
	want=$1
	shift
	"$MCPIDX" query "$T/idx" pack "$@" > "$T/got" 2> "$T/err" || fail "pack $*: exit $? ($(cat "$T/err"))"
	cmp -s "$want" "$T/got" || { diff "$want" "$T/got" >&2; fail "pack $*: differs from $want"; }
}
golden $E/Cart.total.txt Cart.total --budget 400
golden $E/checkout-120.txt checkout --budget 120
golden $E/total-refund-depth2.txt total,refund --budget 300 --depth 2
golden $E/shop-store.py.txt shop/store.py --budget 400
# the seed's spelling of the same thing
cd testdata/pack 2>/dev/null || fail "no testdata/pack"
cd - > /dev/null
"$MCPIDX" context Cart.total --budget 400 --index "$T/idx" --format=mcp > "$T/ctx" || fail "mcpidx context"
cmp -s $E/Cart.total.txt "$T/ctx" || fail "mcpidx context --format=mcp differs from query pack"
"$MCPIDX" context Cart.total --budget 400 --index "$T/idx" --format=json > "$T/ctx.json" || fail "context json"
expect_eq "$(json "$T/ctx.json" 'j["text"] == open("'$E/Cart.total.txt'").read()')" True "context json text"

# within budget, stated, deterministic
for b in 100 150 200 300; do
	"$MCPIDX" query "$T/idx" pack total,checkout,refund --budget $b --json > "$T/a.json" || fail "pack budget $b"
	"$MCPIDX" query "$T/idx" pack total,checkout,refund --budget $b --json > "$T/b.json"
	cmp -s "$T/a.json" "$T/b.json" || fail "pack budget $b: two runs differ"
	expect_eq "$(json "$T/a.json" 'j["tokens"] <= j["budget_tokens"]')" True "tokens within budget $b"
	expect_contains "$(json "$T/a.json" 'j["text"].splitlines()[-1]')" "tokens of $b" "stated budget $b"
done
expect_eq "$(json "$T/a.json" 'sorted(e["name"] for e in j["entries"] if e["role"] == "uses")')" \
	"['apply_discount', 'log', 'subtotal', 'with_tax']" "uses of total, checkout, refund"

# cross-references inline (read_file xrefs): callers under functions
"$MCPIDX" query "$T/idx" outline shop/cart.py --xrefs > "$T/x" || fail "outline --xrefs"
cmp -s $E/cart.py.xrefs.txt "$T/x" || { diff $E/cart.py.xrefs.txt "$T/x" >&2; fail "outline --xrefs differs"; }
"$MCPIDX" query "$T/idx" outline shop/cart.py > "$T/plain" || fail "outline"
grep -q "called by" "$T/plain" && fail "xrefs without --xrefs"

# bad input
"$MCPIDX" query "$T/idx" pack nosuch > "$T/out" 2> "$T/err" && fail "unknown target accepted"
expect_contains "$(cat "$T/err")" "No symbol or file named 'nosuch'" "unknown target message"
"$MCPIDX" query "$T/idx" pack checkout --budget 50 > "$T/out" 2> "$T/err" && fail "budget 50 accepted"
expect_contains "$(cat "$T/err")" "budget_tokens must be at least 100" "small budget message"
"$MCPIDX" query "$T/idx" pack checkout --depth 3 > "$T/out" 2> "$T/err" && fail "depth 3 accepted"
expect_contains "$(cat "$T/err")" "depth must be 1 or 2" "depth message"

# typing overload stubs are not the definition: the implementation is the
# target, and what it calls is packed
mkdir -p "$T/ov" && cat > "$T/ov/api.py" <<'P'
import typing as t


def _fetch(key):
    return key


class Store:
    @t.overload
    def get(self, key: int) -> int: ...

    @t.overload
    def get(self, key: str) -> str: ...

    def get(self, key):
        return _fetch(key)
P
"$MCPIDX" build "$T/ov" -q || fail "build overloads"
"$MCPIDX" query "$T/ov" pack Store.get --budget 300 --json > "$T/ov.json" || fail "pack Store.get"
expect_eq "$(json "$T/ov.json" '[(e["role"], e["name"], e["line"]) for e in j["entries"]]')" \
	"[('target', 'get', 15), ('uses', '_fetch', 4)]" "overload stubs skipped"
# a JavaScript method assigned to a dotted name is found by that name
cat > "$T/ov/res.js" <<'P'
var res = module.exports = {};

function helper(x) {
  return x;
}

res.send = function send(body) {
  return helper(body);
};
P
"$MCPIDX" build "$T/ov" -q || fail "build js"
"$MCPIDX" query "$T/ov" pack res.send --budget 300 --json > "$T/js.json" || fail "pack res.send"
expect_eq "$(json "$T/js.json" '[(e["role"], e["name"], e["path"]) for e in j["entries"]]')" \
	"[('target', 'send', 'res.js'), ('uses', 'helper', 'res.js')]" "dotted assignment target"
# a target with more call sites than a pack reads says how many it left
mkdir -p "$T/many"
{
	echo "int target(int x) { return x; }"
	i=0
	while [ $i -lt 100 ]; do
		echo "int caller_$i(int y) { return target(y); }"
		i=$((i + 1))
	done
} > "$T/many/lib.c"
"$MCPIDX" build "$T/many" -q || fail "build many"
"$MCPIDX" query "$T/many" pack target --budget 4000 > "$T/many.txt" || fail "pack many"
expect_contains "$(tail -1 "$T/many.txt")" "40 more call sites" "call sites past those read are counted"
# A target of only commas names nothing: an error, not an empty pack.
"$MCPIDX" query "$T/many" pack ",,," > "$T/o" 2>&1 && fail "pack ,,, succeeded: $(cat "$T/o")"
expect_contains "$(cat "$T/o")" "names nothing" "pack ,,,"
# What was left out is listed with commas between, none before the ';'.
"$MCPIDX" query "$T/many" pack target caller_1 --budget 60 > "$T/o" 2>&1
case "$(tail -1 "$T/o")" in *",;"*) fail "a comma before ';': $(tail -1 "$T/o")";; esac
exit 0
