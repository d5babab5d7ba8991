#!/bin/sh
# A compile's timeout holds whatever the command does with its output. A
# process that leaves the group (`setsid`) and keeps the output pipe used
# to keep the compile waiting for the pipe's end (`setsid sleep 100000`:
# the compile, and its MCP task, never ended); a command that closes its
# output and goes on was waited for without a timeout.  Now: timeout,
# SIGTERM, SIGKILL 3 s later and the compile ends; a command that has
# exited leaves its output 3 s to end, then the compile ends without it.
# A timed-out (or cancelled) run's processes that left its group are
# killed too (they carry the run's MCPIDX_RUN entry in their environment;
# they lived on before).
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

[compile.daemon]
argv = ["sh", "-c", "(setsid sh -c 'echo $$ > daemon.pid; exec sleep 30' > /dev/null 2>&1 &); sleep 30"]
timeout = 1

[compile.closed]
argv = ["sh", "-c", "exec > /dev/null 2>&1; sleep 30"]
timeout = 1
TOML
"$MCPIDX" build -q . || fail "build"
cleanup() {
	for f in held.pid held2.pid daemon.pid; do
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
# alive: its /proc entry is there and not a zombie (a container's init may
# not reap what it inherits)
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat"; }
[ -s held.pid ] || fail "the detached command did not start"
alive "$(cat held.pid)" && fail "the detached holder of a timed-out compile lives on"

# a daemon (a double fork into its own session) of a timed-out run
timeout 20 "$MCPIDX" compile daemon > "$T/out" 2>&1
expect_contains "$(cat "$T/out")" "(timed out, " "daemon run"
[ -s daemon.pid ] || fail "the daemon did not start"
alive "$(cat daemon.pid)" && fail "the daemon of a timed-out compile lives on"

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
