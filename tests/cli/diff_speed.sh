#!/bin/sh
# diff_speed.sh - diff mode is not quadratic in a file's symbols: a 1 MB
# file of 30,000 one-line functions with one line edited answers within
# 3 s, and with every function edited within 6 s (matching scanned every
# symbol per symbol and each line built a view of the whole file: 7-10 s
# for the one line).  The lines are the same as before: on a small file
# with namesakes, a moved, a removed and an added function, exactly these.
. tests/cli/lib.sh
R="$T/repo"
mkdir -p "$R" && cd "$R" || fail "no repo"
python3 -c '
open("big.c", "w").write("".join("int f%05d(void) { return %d; }\n" % (i, i) for i in range(30000)))
open("small.py", "w").write("""class Cart:
    def total(self):
        return 1

    def add(self, x):
        return x

def helper():
    return 1

def helper():
    return 2

def gone():
    pass
""")'
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm one || fail "git commit"
"$MCPIDX" build . -q || fail "build"
sed -i 's/return 15000;/return 15001;/' big.c
python3 -c '
s = open("small.py").read()
s = s.replace("return x\n", "return x + 1\n").replace("    return 2\n", "    return 3\n")
s = s.replace("def gone():\n    pass\n", "def fresh():\n    pass\n")
s = s.replace("class Cart:", "class Cart:\n    def total(self):\n        return 0\n")
open("small.py", "w").write(s)'
elapsed() { python3 -c 'import subprocess, sys, time
t = time.time()
r = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], "w"))
print("%.1f" % (time.time() - t) if r.returncode == 0 else "failed")' "$@"; }
s=$(elapsed "$T/big" "$MCPIDX" query . changed --path big.c)
cat > "$T/want" <<'W'
~F> int f15000(void) { ... }  big.c:15001
V* 1 changed symbol in 1 file since the index was built: 0 added, 0 removed, 1 changed
W
cmp -s "$T/want" "$T/big" || { cat "$T/big" >&2; fail "one edited function of 30,000"; }
python3 -c "import sys; sys.exit(0 if float('$s') < 3 else 1)" 2>/dev/null || fail "one edit of 30,000 functions took $s s"
sed -i 's/(void)/(char)/' big.c
s=$(elapsed "$T/all" "$MCPIDX" query . changed --path big.c)
expect_eq "$(tail -1 "$T/all")" "V* 30000 changed symbols in 1 file since the index was built: 0 added, 0 removed, 30000 changed" "every function edited"
python3 -c "import sys; sys.exit(0 if float('$s') < 6 else 1)" 2>/dev/null || fail "30,000 edited functions took $s s"
"$MCPIDX" query . changed --path small.py > "$T/small" || fail "small file"
cat > "$T/want" <<'W'
~F> def total() { ... }  small.py:2 in Cart
+F> def total() { ... }  small.py:5 in Cart
~F> def add(x) { ... }  small.py:8 in Cart
-F> def gone() { ... }  small.py:14
~F> def helper() { ... }  small.py:14
+F> def fresh() { ... }  small.py:17
V* 6 changed symbols in 1 file since the index was built: 2 added, 1 removed, 3 changed
W
cmp -s "$T/want" "$T/small" || { diff "$T/want" "$T/small" >&2; fail "the small file's lines changed"; }
echo ok
