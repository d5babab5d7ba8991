#!/bin/sh
# `serve --workspace FILE` reads FILE as a regular file, whole: a FIFO is
# refused at once (serve waited on it for ever); a line longer than the old
# 4,223-byte buffer is refused with FILE:LINE (it was split, and the tail
# of a commented-out line served the repository it named); over 1 MiB is
# refused.  An ordinary workspace still serves.
. tests/cli/lib.sh
mkdir -p $T/a $T/b
echo 'int a_fn(void) { return 0; }' > $T/a/a.c
echo 'int b_fn(void) { return 0; }' > $T/b/b.c
"$MCPIDX" build -q $T/a && "$MCPIDX" build -q $T/b || fail "builds"
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
mkfifo $T/ws.fifo
echo "$init" | timeout 10 "$MCPIDX" serve --workspace $T/ws.fifo > $T/o 2> $T/e
rc=$?
[ $rc -eq 124 ] && fail "serve waited on a FIFO"
[ $rc -eq 0 ] && fail "serve took a FIFO"
grep -q 'cannot read --workspace' $T/e || fail "FIFO message: $(cat $T/e)"
# a commented-out line whose 4,223rd byte starts " b": only a is listed
{ printf '#'; head -c 4221 /dev/zero | tr '\0' x; printf ' b\na a\n'; } > $T/ws.long
echo "$init" | timeout 10 "$MCPIDX" serve --workspace $T/ws.long > $T/o 2> $T/e && fail "serve took the long line"
grep -q "ws.long:1: line too long" $T/e || fail "long line message: $(cat $T/e)"
{ echo 'a a'; head -c 1100000 /dev/zero | tr '\0' '\n'; } > $T/ws.big
echo "$init" | timeout 10 "$MCPIDX" serve --workspace $T/ws.big > $T/o 2> $T/e && fail "serve took a 1 MB file"
grep -q "over 1 MiB" $T/e || fail "big file message: $(cat $T/e)"
printf '# two\na a\r\nb b\n' > $T/ws
printf '%s\n%s\n' "$init" '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"goto_definition","arguments":{"symbol":"b_fn","repo":"b"}}}' |
	timeout 20 "$MCPIDX" serve --workspace $T/ws > $T/o 2> $T/e || fail "workspace serve: $(cat $T/e)"
grep -q 'b\.c' $T/o || fail "b_fn not served: $(cat $T/o)"
echo ok
