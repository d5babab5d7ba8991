#!/bin/sh
# structuredContent holds to max_tokens when the answer is many items each
# with a long string: changed_symbols on an untracked file of 600 functions
# with 130-byte signatures, goto_definition of a name defined 60 times.
# Cutting one string a round ran out of rounds and returned 166 KB; now the
# longest array is halved when cutting strings falls short, and array tails
# are dropped until it fits.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
mkdir -p "$T/repo/dups"
cd "$T" && PYTHONPATH="$here" python3 - "$T/repo" <<'PY'
import json, subprocess, sys
from mcptest import Stdio, fail, text, build

repo = sys.argv[1]
sig = "(int first_argument_value, int second_argument_value, const char *third_argument_text)"
with open(repo + "/base.c", "w") as f:
    f.write("int base(void) { return 0; }\n")
for i in range(60):
    with open(repo + "/dups/d%02d.c" % i, "w") as f:
        f.write("int duplicated_name%s\n{\n\treturn %d;\n}\n" % (sig, i))
git = lambda *a: subprocess.run(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", *a],
                                capture_output=True, check=True)
git("init", "-q")
git("add", ".")
git("commit", "-qm", "one")
build(repo)
with open(repo + "/longsig.c", "w") as f:
    for i in range(600):
        f.write("int long_signature_function_number_%d%s\n{\n\treturn %d;\n}\n\n" % (i, sig, i))

s = Stdio([repo])
s.init()
for name, args in [("changed_symbols", {"path": "longsig.c"}),
                   ("goto_definition", {"symbol": "duplicated_name"})]:
    for budget in (100, 300, 1000):
        r = s.call(name, dict(args, max_tokens=budget))
        if r.get("isError"):
            fail("%s: %s" % (name, text(r)[:300]))
        t = text(r)
        sc = r.get("structuredContent")
        scs = json.dumps(sc, separators=(",", ":"))
        limit = 6 * budget + 200
        if len(t.encode()) > limit or len(scs.encode()) > limit:
            fail("%s max_tokens %d: text %d bytes, structuredContent %d bytes (limit %d)"
                 % (name, budget, len(t.encode()), len(scs.encode()), limit))
        if sc.get("truncated") is not True:
            fail("%s max_tokens %d: structuredContent lacks truncated: true: %s" % (name, budget, scs[:300]))
s.close()
PY
