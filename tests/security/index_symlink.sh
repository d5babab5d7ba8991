#!/bin/sh
# A .mcpidx committed as a symbolic link to elsewhere is not followed: query,
# serve, status and build refuse with a message that says why and what to
# do, and no lock.mdb (or anything else) is written where the link points.
# The index at its real place still opens.
. tests/cli/lib.sh
R=$T/repo
mkdir -p $R/src $T/elsewhere
echo 'int main(void) { return 0; }' > $R/src/main.c
"$MCPIDX" build -q "$R" -o $T/elsewhere/idx || fail "build -o"
rm -f $T/elsewhere/idx/lock.mdb
ln -s $T/elsewhere/idx $R/.mcpidx
before=$(ls -A $T/elsewhere/idx)
"$MCPIDX" query "$R" def main > $T/q.out 2> $T/q.err && fail "query followed the link"
grep -q 'is a symbolic link' $T/q.err || fail "query: $(cat $T/q.err)"
"$MCPIDX" status "$R" > $T/s.out 2> $T/s.err; [ $? -eq 2 ] || fail "status exit"
grep -q 'is a symbolic link' $T/s.err || fail "status: $(cat $T/s.err)"
"$MCPIDX" build "$R" > $T/b.out 2> $T/b.err && fail "build wrote through the link"
grep -q 'is a symbolic link.*Remove the link' $T/b.err || fail "build: $(cat $T/b.err)"
"$MCPIDX" build --force "$R" > $T/b.out 2> $T/b.err && fail "build --force wrote through the link"
printf '%s\n%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"goto_definition","arguments":{"symbol":"main"}}}' |
	"$MCPIDX" serve "$R" > $T/srv.out 2> $T/srv.err && fail "serve followed the link"
grep -q 'is a symbolic link' $T/srv.err || fail "serve: $(cat $T/srv.err)"
expect_eq "$(ls -A $T/elsewhere/idx)" "$before" "files where the link points"
"$MCPIDX" query $T/elsewhere/idx def main > $T/q.out || fail "the real index does not open"
echo ok
