#!/bin/sh
# pack -> verify -> query/serve round trip on a packed file in a read-only
# folder; verify catching a truncated copy, a flipped byte, a damaged
# trailer and another format version; status listing modified, new and
# deleted files with exit 1, 0 when up to date.
set -u
: "${MCPIDX:=./mcpidx}"
case $MCPIDX in /*) ;; *) MCPIDX=$(pwd)/$MCPIDX ;; esac
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "pack: $*"; exit 1; }

repo="$tmp/repo"
mkdir -p "$repo/src" "$repo/lib"
cat > "$repo/src/net.c" <<'C'
/* Opens a connection to host. */
int net_connect(const char *host, int port) { return port > 0 && host != 0; }
int net_close(int fd) { return fd; }
C
cat > "$repo/lib/util.py" <<'PYSRC'
def retry_call(fn, times=3):
    """Calls fn until it succeeds."""
    for _ in range(times):
        if fn():
            return True
    return False
PYSRC
printf '.mcpidx/\n' > "$repo/.gitignore"
git -C "$repo" init -q && git -C "$repo" add -A &&
	git -C "$repo" -c user.name=t -c user.email=t@t commit -qm init || fail "git setup failed"
head=$(git -C "$repo" rev-parse HEAD)
"$MCPIDX" build --quiet "$repo" || fail "build failed"

# status: up to date right after the build.
"$MCPIDX" status "$repo" > "$tmp/st.out" 2> "$tmp/st.err" || fail "status exited $? on a fresh index: $(cat "$tmp/st.err")"
[ -s "$tmp/st.out" ] && fail "status listed files on a fresh index: $(cat "$tmp/st.out")"

mkdir "$tmp/ship"
"$MCPIDX" pack "$repo" -o "$tmp/ship/idx.mcpidx" > "$tmp/pack.out" || fail "pack exited $?"
grep -q "2 files" "$tmp/pack.out" || fail "pack summary: $(cat "$tmp/pack.out")"
[ "$(ls -A "$tmp/ship")" = "idx.mcpidx" ] || fail "pack left temporary files: $(ls -A "$tmp/ship")"
"$MCPIDX" verify "$tmp/ship/idx.mcpidx" > "$tmp/v.out" || fail "verify of a fresh pack exited $?"
fmt=$("$MCPIDX" version | sed -n 's/.*index format \([0-9]*\).*/\1/p')
grep -q "^ok .*2 files, index format $fmt" "$tmp/v.out" || fail "verify output: $(cat "$tmp/v.out")"
grep -q "head $head" "$tmp/v.out" || fail "verify does not show the git HEAD $head: $(cat "$tmp/v.out")"
"$MCPIDX" verify --json "$tmp/ship/idx.mcpidx" | grep -q '"ok":true,"files":2' || fail "verify --json"

# Query and serve it from a read-only folder, without a lock file.
chmod 555 "$tmp/ship"
"$MCPIDX" query "$tmp/ship/idx.mcpidx" def net_connect > "$tmp/q.out" || fail "query on the packed file exited $?"
grep -q "^F> int net_connect(const char \*host, int port)" "$tmp/q.out" || fail "query answer: $(cat "$tmp/q.out")"
"$MCPIDX" query "$tmp/ship/idx.mcpidx" outline lib/util.py | grep -q "retry_call" || fail "outline from the pack"
printf '%s\n' \
	'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"goto_definition","arguments":{"symbol":"retry_call"}}}' |
	"$MCPIDX" serve "$tmp/ship/idx.mcpidx" > "$tmp/serve.out" 2> "$tmp/serve.err" || fail "serve exited $?: $(tail -3 "$tmp/serve.err")"
grep -q '"id":2,"result".*"path":"lib/util.py"' "$tmp/serve.out" || fail "serve answer: $(cat "$tmp/serve.out")"
[ "$(ls -A "$tmp/ship")" = "idx.mcpidx" ] || fail "opening the pack left files beside it: $(ls -A "$tmp/ship")"
chmod 755 "$tmp/ship"

# Damage: each copy must fail verify with a clear message.
bad() { # $1 = file, $2 = expected message part, $3 = what
	if "$MCPIDX" verify "$1" > "$tmp/bad.out" 2> "$tmp/bad.err"; then
		fail "verify passed a $3"
	fi
	grep -q "$2" "$tmp/bad.err" || fail "verify on a $3 said: $(cat "$tmp/bad.err")"
}
size=$(wc -c < "$tmp/ship/idx.mcpidx")
head -c $((size - 1000)) "$tmp/ship/idx.mcpidx" > "$tmp/trunc.mcpidx"
bad "$tmp/trunc.mcpidx" "no pack trailer" "truncated copy"
head -c 100 "$tmp/ship/idx.mcpidx" > "$tmp/short.mcpidx"
bad "$tmp/short.mcpidx" "too short" "100-byte stub"
# a FIFO is refused, not waited on for a writer that never comes
mkfifo "$tmp/fifo.mcpidx" || fail "mkfifo"
timeout 20 "$MCPIDX" verify "$tmp/fifo.mcpidx" > "$tmp/bad.out" 2> "$tmp/bad.err"
[ $? -eq 124 ] && fail "verify of a FIFO blocked"
grep -q "not a regular file" "$tmp/bad.err" || fail "verify on a FIFO said: $(cat "$tmp/bad.err")"
python3 - "$tmp/ship/idx.mcpidx" "$tmp" <<'PY'
import struct, sys, zlib
src, tmp = sys.argv[1], sys.argv[2]
data = bytearray(open(src, "rb").read())
t = len(data) - 256
def out(name, b):
    open(tmp + "/" + name, "wb").write(b)
flip = bytearray(data); flip[t // 2] ^= 0x10; out("flip.mcpidx", flip)
tr = bytearray(data); tr[t + 70] ^= 0x01; out("trailer.mcpidx", tr)
ver = bytearray(data)
struct.pack_into("<I", ver, t + 12, 99)
struct.pack_into("<I", ver, t + 252, zlib.crc32(bytes(ver[t:t + 252])) & 0xffffffff)
out("version.mcpidx", ver)
pv = bytearray(data)
struct.pack_into("<I", pv, t + 8, 9)
struct.pack_into("<I", pv, t + 252, zlib.crc32(bytes(pv[t:t + 252])) & 0xffffffff)
out("packver.mcpidx", pv)
out("padded.mcpidx", data[:t] + b"\0" * 4096 + data[t:])
PY
bad "$tmp/flip.mcpidx" "checksum mismatch" "copy with a flipped byte"
bad "$tmp/trailer.mcpidx" "trailer is damaged" "copy with a damaged trailer"
bad "$tmp/version.mcpidx" "holds index format 99.*reads format $fmt" "pack of another index format"
bad "$tmp/packver.mcpidx" "pack format 9" "pack of another pack format"
bad "$tmp/padded.mcpidx" "cut or padded" "padded copy"
"$MCPIDX" verify "$tmp/nonexistent" 2> "$tmp/bad.err" && fail "verify passed a missing file"
grep -q "cannot open" "$tmp/bad.err" || fail "missing file message: $(cat "$tmp/bad.err")"

# Repacking a packed file gives the same manifest digest.
"$MCPIDX" pack "$tmp/ship/idx.mcpidx" -o "$tmp/re.mcpidx" > /dev/null || fail "pack of a packed file"
d1=$("$MCPIDX" verify "$tmp/ship/idx.mcpidx" | sed -n 's/^digest //p')
d2=$("$MCPIDX" verify "$tmp/re.mcpidx" | sed -n 's/^digest //p')
[ -n "$d1" ] && [ "$d1" = "$d2" ] || fail "digests differ after repacking: $d1 / $d2"

# status: modified, new and deleted files, exit 1; ignored files are not new.
echo "int net_extra(void) { return 1; }" >> "$repo/src/net.c"
echo "int fresh(void) { return 2; }" > "$repo/src/fresh.c"
mkdir -p "$repo/node_modules/x" && echo "function y() {}" > "$repo/node_modules/x/y.js"
echo "notes" > "$repo/NOTES.unknownext"
rm "$repo/lib/util.py"
"$MCPIDX" status "$repo" > "$tmp/st.out" 2> "$tmp/st.err"
[ $? -eq 1 ] || fail "status on a stale index did not exit 1"
printf 'A src/fresh.c\nM src/net.c\nD lib/util.py\n' | sort > "$tmp/st.want"
sort "$tmp/st.out" > "$tmp/st.got"
cmp -s "$tmp/st.want" "$tmp/st.got" || fail "status listed: $(cat "$tmp/st.out")"
grep -q "1 modified, 1 new, 1 deleted" "$tmp/st.err" || fail "status summary: $(cat "$tmp/st.err")"
"$MCPIDX" status --json "$repo" | grep -q '"stale":true,"files":2,"modified":1,"added":1,"deleted":1' || fail "status --json"
"$MCPIDX" build --quiet "$repo" || fail "rebuild failed"
"$MCPIDX" status --quiet "$repo" || fail "status after the rebuild exited $?"
# an indexed file replaced by a FIFO is unreadable, as a build sees it
# (before: status waited on the FIFO for good; then it said deleted)
rm "$repo/src/fresh.c" && mkfifo "$repo/src/fresh.c"
timeout 20 "$MCPIDX" status "$repo" > "$tmp/st.out" 2> "$tmp/st.err"
rc=$?
[ $rc -eq 124 ] && fail "status blocked on a FIFO"
[ $rc -eq 1 ] || fail "status with a FIFO for a file exited $rc: $(cat "$tmp/st.err")"
[ "$(cat "$tmp/st.out")" = "U src/fresh.c (not a regular file (a FIFO, socket or device))" ] || fail "a file replaced by a FIFO: $(cat "$tmp/st.out")"
exit 0
