# A name defined more than 1,000 times: every definition is counted and
# the best ranked are shown first (only the first 1,000 in path order used
# to be ranked, so a class named init after them was never shown and the
# total said 1,000), and those of one rank in path order (a better one past
# the first 1,000 took the place of the first worse one kept: C0.init gave
# way to the class, and C1.init came first).
. tests/cli/lib.sh
mkdir -p $T/r/zz
python3 - "$T/r/a_many.py" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1100):
        f.write("class C%d:\n    def init(self):\n        return %d\n\n" % (i, i))
PY
printf 'class init:\n    pass\n' > $T/r/zz/last.py
"$MCPIDX" build $T/r -q || fail "build"
"$MCPIDX" query $T/r def init --json > $T/j || fail "def init"
expect_eq "$(json $T/j "j['total'], j['definitions'][0]['kind'], j['definitions'][0]['path']")" "1101 class zz/last.py" "def init"
expect_eq "$(json $T/j "j['definitions'][1]['path'], j['definitions'][1]['line'], j['definitions'][2]['line']")" "a_many.py 2 6" "same rank in path order"
echo ok
