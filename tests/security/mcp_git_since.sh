#!/bin/sh
# A git revision that is an option in disguise writes nothing: `since` of
# changed_symbols, context_pack and `query changed` is refused when either
# side of A..B starts with '-' (git would read "HEAD..--output=F" as HEAD
# and its --output option, and create or truncate F from a read-only
# server).  A tree (HEAD:src) is refused too (every symbol read as added).
# A real A..B still answers.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
mkdir -p "$T/repo" && cd "$T/repo" || fail "no repo"
printf 'int login(void) { return 1; }\n' > a.c
mkdir src && printf 'int helper(void) { return 0; }\n' > src/b.c
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm one || fail "git commit"
printf 'int login(void) { return 2; }\nint more(void) { return 3; }\n' > a.c
git -c user.name=t -c user.email=t@t commit -qam two || fail "git commit two"
cd "$T" && PYTHONPATH="$here" python3 - "$T" <<'PY' || exit 1
import json, os, sys
from mcptest import Stdio, fail, build, text

t = sys.argv[1]
repo = t + "/repo"
build(repo)
s = Stdio([repo])
s.init()
bad = ["HEAD~1..--output=%s/w1", "..--output=%s/w2", "HEAD~1..-o%s/w3", "--output=%s/w4",
       "HEAD~1...--output=%s/w6", "HEAD:src", "HEAD~1:src"]
for i, b in enumerate(bad):
    since = b % t if "%s" in b else b
    for tool, args in [("changed_symbols", {"since": since}),
                       ("context_pack", {"since": since})]:
        r = s.call(tool, args)
        if not r.get("isError") or "since must be a git revision" not in text(r):
            fail("%s since=%s: want a refusal, got %s" % (tool, since, json.dumps(r)[:300]))
written = [f for f in os.listdir(t) if f.startswith("w")]
if written:
    fail("git wrote %s through since" % written)
r = s.call("changed_symbols", {"since": "HEAD~1..HEAD"})
if r.get("isError") or "more" not in text(r):
    fail("a real A..B: %s" % json.dumps(r)[:300])
s.close()
PY
"$MCPIDX" query "$T/repo" changed --since "HEAD~1..--output=$T/w5" > "$T/out" 2> "$T/err" &&
	fail "query changed took an option after the dots"
expect_contains "$(cat "$T/err")" "since must be a git revision" "query changed refusal"
[ -e "$T/w5" ] && fail "git wrote w5 through query changed --since"
exit 0
