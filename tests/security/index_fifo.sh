#!/bin/sh
# A FIFO in the place of data.mdb (a tarball or a mistake can put one there)
# is a damaged index, not a wait for a writer that never comes: query,
# status, pack, build and serve each say so within seconds, and build
# --force recovers, keeping the FIFO aside as data.mdb.damaged.
. tests/cli/lib.sh
R=$T/repo
mkdir -p $R/src
echo 'int main(void) { return 0; }' > $R/src/main.c
"$MCPIDX" build -q "$R" || fail "build"
rm -f $R/.mcpidx/data.mdb $R/.mcpidx/lock.mdb
mkfifo $R/.mcpidx/data.mdb || fail "mkfifo"
run() { # $1 = what; the rest: the command
	what=$1
	shift
	timeout 20 "$@" > $T/out 2> $T/err
	rc=$?
	[ $rc -eq 124 ] && fail "$what blocked on the FIFO"
	[ $rc -eq 0 ] && fail "$what took the FIFO for an index"
	grep -q 'truncated or damaged: run mcpidx build --force' $T/err $T/out ||
		fail "$what: $(cat $T/err $T/out)"
}
run query "$MCPIDX" query "$R" def main
run status "$MCPIDX" status "$R"
run pack "$MCPIDX" pack "$R" -o $T/p.mcpidx
run build "$MCPIDX" build "$R"
printf '%s\n%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"goto_definition","arguments":{"symbol":"main"}}}' |
	timeout 20 "$MCPIDX" serve "$R" > $T/srv.out 2> $T/srv.err
[ $? -eq 124 ] && fail "serve blocked on the FIFO"
grep -q 'truncated or damaged' $T/srv.out $T/srv.err || fail "serve: $(cat $T/srv.out $T/srv.err)"
timeout 60 "$MCPIDX" build -q --force "$R" || fail "build --force did not recover"
[ -p $R/.mcpidx/data.mdb.damaged ] || fail "the FIFO was not kept aside"
"$MCPIDX" query "$R" def main > $T/out || fail "the rebuilt index does not answer"
echo ok
