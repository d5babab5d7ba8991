# `mcpidx build --progress-fd N`: the workers finish files on several
# threads in any order, yet the lines on N rise strictly and the last one
# says TOTAL of TOTAL, so a client's progress never goes back or past it.
. tests/cli/lib.sh
R=$T/repo
mkdir -p $R
python3 - "$R" <<'PY'
import os, sys
for d in range(30):
    os.makedirs(f"{sys.argv[1]}/d{d}", exist_ok=True)
    for i in range(100):
        with open(f"{sys.argv[1]}/d{d}/f{i}.c", "w") as f:
            f.write(f"int fn_{d}_{i}(int x) {{ return x + {i}; }}\n")
PY
n=0
while [ $n -lt 4 ]; do
	"$MCPIDX" build "$R" -q -j 2 --force -o $T/idx --progress-fd 3 3> $T/p$n || fail "build $n"
	python3 - $T/p$n <<'PY' || fail "progress lines of build $n"
import sys
lines = [l.split() for l in open(sys.argv[1])]
assert lines, "no progress lines"
done = [int(l[1]) for l in lines]
total = {int(l[2]) for l in lines}
assert len(total) == 1, f"totals {total}"
total = total.pop()
assert all(a < b for a, b in zip(done, done[1:])), f"not rising: {done}"
assert done[-1] == total == 3000, f"last {done[-1]} of {total}"
assert len(done) >= 2, f"{len(done)} lines"
PY
	n=$((n + 1))
done
echo ok
