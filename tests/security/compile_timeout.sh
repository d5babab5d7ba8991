#!/bin/sh
# A compile's timeout holds whatever the command does with its output. A
# process that leaves the group (`setsid`) and keeps the output pipe used
# to keep the compile waiting for the pipe's end (`setsid sleep 100000`:
# the compile, and its MCP task, never ended); a command that closes its
# output and goes on was waited for without a timeout.  Now: timeout,
# SIGTERM, SIGKILL 3 s later and the compile ends; a command that has
# exited leaves its output 3 s to end, then the compile ends without it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib.sh"
mkdir "$T/repo" && cd "$T/repo" || fail "repo"
echo 'int x;' > a.c
cat > .mcpidx.toml <<'TOML'
[compile.detach]
argv = ["setsid", "sh", "-c", "echo $$ > held.pid; exec sleep 30"]
timeout = 2

[compile.detach_ok]
argv = ["setsid", "sh", "-c", "echo $$ > held2.pid; exec sleep 30"]
timeout = 60

[compile.closed]
argv = ["sh", "-c", "exec > /dev/null 2>&1; sleep 30"]
timeout = 1
TOML
"$MCPIDX" build -q . || fail "build"
cleanup() {
	for f in held.pid held2.pid; do
		[ -s "$T/repo/$f" ] && kill "$(cat "$T/repo/$f")" 2> /dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT

# took 30 s, and for ever with a longer sleep
s=$(date +%s)
timeout 20 "$MCPIDX" compile detach > "$T/out" 2>&1
rc=$? took=$(($(date +%s) - s))
[ $rc -eq 124 ] && fail "compile of a detached holder of the pipe did not end"
[ $took -le 8 ] || fail "compile with timeout 2 took ${took}s (want at most timeout + 3 s grace + 2)"
expect_contains "$(cat "$T/out")" "(timed out, " "detached holder"

# the command exited at once: its status, 3 s after
s=$(date +%s)
timeout 20 "$MCPIDX" compile detach_ok > "$T/out" 2>&1
rc=$? took=$(($(date +%s) - s))
[ $rc -eq 124 ] && fail "compile whose command exited waited on a detached holder"
[ $took -le 6 ] || fail "compile whose command exited took ${took}s (want about 3 s)"
expect_contains "$(cat "$T/out")" "(succeeded, " "exited command"

# closed its output and slept: killed at its timeout
s=$(date +%s)
timeout 20 "$MCPIDX" compile closed > "$T/out" 2>&1
rc=$? took=$(($(date +%s) - s))
[ $rc -eq 124 ] && fail "compile of a command that closed its output did not end"
[ $took -le 5 ] || fail "compile with timeout 1 took ${took}s"
expect_contains "$(cat "$T/out")" "(timed out, " "closed output"
echo ok
