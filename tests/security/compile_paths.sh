#!/bin/sh
# A path in a compiler's output names a file of the repository or nothing.
# `../../../../../etc/passwd:1:1: error: x` (or a `#line` in the repository's
# own code) used to be kept as that path in the log and the file read whole,
# without a size bound, to store its hash beside the index; a link inside the
# repository was followed out of it.  Now a path that leaves the repository
# keeps its message without a location, a file is hashed only when it
# resolves inside the repository, and never when over 1 MiB.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
mkdir -p "$T/repo/src" "$T/outdir" && cd "$T/repo" || fail "repo"
echo 'int secret_outside;' > "$T/secret.c"
echo 'int secret_dir;' > "$T/outdir/secrethdr.h"
ln -s "$T/secret.c" src/linked.c
ln -s "$T/outdir" inc
echo 'int a;' > src/a.c
head -c 2000000 /dev/zero | tr '\0' 'x' > src/big.c
cat > out.txt <<'OUT'
../../../../../../../../../etc/passwd:1:1: error: passwd outside
../secret.c:1:1: error: up and out
src/../../secret.c:2:1: warning: up and out again
src/linked.c:1:1: error: through a link
inc/secrethdr.h:1:1: error: through a folder link
src/big.c:1:1: error: a big file
src/a.c:1:5: error: inside
OUT
printf '[compile.out]\nargv = ["cat", "out.txt"]\n' > .mcpidx.toml
"$MCPIDX" build -q . || fail "build"
"$MCPIDX" compile out --json > "$T/j" 2> "$T/err"
[ -s "$T/j" ] || fail "compile: $(cat "$T/err")"
python3 - "$T/j" "$T/repo/.mcpidx/side/data.mdb" <<'PY' || exit 1
import json, sys
j = json.load(open(sys.argv[1]))
msgs = [m for m in j["messages"] if m["group"] != "INFO"]
by = {m["text"]: m for m in msgs}
def bad(why):
    print("FAIL: " + why)
    sys.exit(1)
for t in ("passwd outside", "up and out", "up and out again"):
    m = by.get(t)
    if not m:
        bad("message %r lost: %s" % (t, msgs))
    if m["path"] is not None or m["line"]:
        bad("a path outside the repository kept: %s" % m)
if by["inside"]["path"] != "src/a.c" or by["inside"]["line"] != 1:
    bad("the path inside lost: %s" % by["inside"])
text = open(sys.argv[1]).read()
if "passwd" in text.replace("passwd outside", "") or "secret.c" in text:
    bad("the log names a file outside: %s" % text[:600])
data = open(sys.argv[2], "rb").read()
rec = lambda p: p.encode() + b"\0compile\0" in data
for p in ("../../../../../../../../../etc/passwd", "../secret.c", "src/linked.c",
          "inc/secrethdr.h", "src/big.c"):
    if rec(p):
        bad("diagnostics stored for %s (read outside the repository or over 1 MiB)" % p)
if b"passwd" in data.replace(b"passwd outside", b"") or b"secret.c" in data:
    bad("the side store names a file outside")
if not rec("src/a.c"):
    bad("no diagnostics stored for src/a.c")
PY
# the file inside is still shown with its error
expect_contains "$("$MCPIDX" query . outline src/a.c)" "V* [E]:1 inside" "outline"
echo ok
