#!/bin/sh
# Bearer token: with --token-file (or MCPIDX_TOKEN) every HTTP request must
# carry Authorization: Bearer TOKEN; a missing, wrong, shorter or longer
# token gets 401 and no session.  A token file that is too short is refused
# at start.
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
