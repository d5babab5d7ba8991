#!/bin/sh
# Bearer token: with --token-file (or MCPIDX_TOKEN) every HTTP request must
# carry Authorization: Bearer TOKEN; a missing, wrong, shorter or longer
# token gets 401 and no session.  A token file that is too short is refused
# at start.  The token taken from the environment is not passed on to child
# processes (a compile target that asks for MCPIDX_TOKEN gets nothing).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
cp -r "$here/../../testdata/mcp" "$T/repo"
printf 'short\n' > "$T/short"
"$MCPIDX" serve "$T/repo" --http 127.0.0.1:0 --token-file "$T/short" 2> "$T/err" && fail "a 5-character token was accepted"
expect_contains "$(cat "$T/err")" "at least 16" "short token message"
"$MCPIDX" serve "$T/repo" --http 127.0.0.1:0 --token-file "$T/missing" 2> "$T/err" && fail "a missing token file was accepted"
expect_contains "$(cat "$T/err")" "cannot read --token-file" "missing token file message"
tok=0123456789abcdef0123456789abcdef
printf '%s\n' "$tok" > "$T/token"
cd "$T" && PYTHONPATH="$here" python3 - "$T/repo" "$T/token" "$tok" <<'PY'
import sys
from mcptest import Http, INIT, fail, build

repo, tokfile, tok = sys.argv[1:4]
build(repo)
for how in (["--token-file", tokfile], None):
    h = Http([repo] + how) if how else Http([repo], env={"MCPIDX_TOKEN": tok})
    try:
        for auth in [None, "Bearer", "Bearer ", "Bearer " + tok[:-1], "Bearer " + tok + "x",
                     "Bearer " + tok.upper(), "Basic " + tok, tok, "Bearer  " + tok]:
            st, body, hd = h.post(INIT, {"Authorization": auth} if auth is not None else {})
            if st != 401 or "mcp-session-id" in hd:
                fail("Authorization %r should get 401, got %d" % (auth, st))
            if "bearer" not in hd.get("www-authenticate", "").lower():
                fail("401 without WWW-Authenticate: Bearer")
        st, body, hd = h.post(INIT, {"Authorization": "Bearer " + tok})
        if st != 200 or "mcp-session-id" not in hd:
            fail("the right token should pass: %d %s" % (st, body[:200]))
        st, body, hd = h.post(INIT, {"Authorization": "bearer " + tok})
        if st != 200:
            fail("the scheme name is case-insensitive: %d" % st)
    finally:
        h.stop()
print("ok")
PY

# The token never reaches a child: a compile target the repository lists
# MCPIDX_TOKEN for (a hostile .mcpidx.toml could) sees it unset.
mkdir -p "$T/leak/src"
printf 'int f(void) { return 0; }\n' > "$T/leak/src/f.c"
cat > "$T/leak/.mcpidx.toml" <<'TOML'
[compile.leak]
argv = ["sh", "-c", "printf '[%s]' \"$MCPIDX_TOKEN\" > leaked.txt"]
env = ["PATH", "MCPIDX_TOKEN"]
timeout = 20
TOML
cd "$T" && PYTHONPATH="$here" python3 - "$T/leak" "$tok" <<'PY'
import json, os, sys, time
from mcptest import Http, INIT, fail, build

repo, tok = sys.argv[1:3]
build(repo)
h = Http([repo], env={"MCPIDX_TOKEN": tok})
try:
    auth = {"Authorization": "Bearer " + tok}
    st, body, hd = h.post(INIT, auth)
    if st != 200:
        fail("initialize with the token: %d %s" % (st, body[:200]))
    sid = {"Mcp-Session-Id": hd["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
    h.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, dict(auth, **sid))
    st, body, hd = h.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                           "params": {"name": "run_compile", "arguments": {"target": "leak"}}},
                          dict(auth, **sid), timeout=30)
    if st != 200:
        fail("run_compile: %d %s" % (st, body[:300]))
    deadline = time.time() + 30
    while not os.path.exists(repo + "/leaked.txt") and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(0.2)
    got = open(repo + "/leaked.txt").read() if os.path.exists(repo + "/leaked.txt") else None
    if got is None:
        fail("the compile target did not run: %s" % body[:300])
    if got != "[]":
        fail("a child process saw MCPIDX_TOKEN: %r" % got)
finally:
    h.stop()
print("ok")
PY
