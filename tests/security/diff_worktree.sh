#!/bin/sh
# Diff mode reads the working tree as a build would: only regular files
# inside the repository.  An untracked link to a file outside, a folder
# replaced by a link out of the repository and a file replaced by a FIFO
# are neither read nor shown (before: changed_symbols showed the outside
# files' signatures, and the FIFO blocked `query changed` and the server's
# call for good; a link to /dev/zero ran it out of memory).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
mkdir -p "$T/repo/d" "$T/outside" && cd "$T/repo" || fail "no repo"
printf 'int login(void) { return 1; }\n' > a.c
printf 'int fifo_victim(void) { return 2; }\n' > b.c
printf 'int in_folder(void) { return 3; }\n' > d/x.c
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm one || fail "git commit"
"$MCPIDX" build -q . || fail "build"
printf 'int outside_secret_one(int password) { return 4; }\n' > "$T/outside/secret.c"
printf 'int outside_secret_two(int password) { return 5; }\n' > "$T/outside/x.c"
ln -s "$T/outside/secret.c" leak.c
rm -r d && ln -s "$T/outside" d
rm b.c && mkfifo b.c
for since in "" "--since HEAD"; do
	# shellcheck disable=SC2086
	timeout 20 "$MCPIDX" query . changed $since > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 124 ] && fail "query changed $since blocked on a FIFO"
	[ $rc -eq 0 ] || { cat "$T/err" >&2; fail "query changed $since exited $rc"; }
	grep -q outside_secret "$T/out" && { cat "$T/out" >&2; fail "query changed $since read a file outside the repository"; }
	grep -q -- "-F> int fifo_victim" "$T/out" || { cat "$T/out" >&2; fail "query changed $since: the FIFO should count as a removed file"; }
done
cd "$T" && PYTHONPATH="$here" python3 - "$T/repo" <<'PY' || exit 1
import json, sys
from mcptest import Stdio, fail, text
s = Stdio([sys.argv[1]])
s.init()
for args in [{}, {"since": "HEAD"}]:
    r = s.call("changed_symbols", args, timeout=20)
    if r.get("isError") or "outside_secret" in json.dumps(r):
        fail("changed_symbols %s: %s" % (args, json.dumps(r)[:400]))
s.close()
PY
exit 0
