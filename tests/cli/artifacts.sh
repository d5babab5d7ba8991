#!/bin/sh
# mcpidx artifacts: the prompt -> store round trip from the command line, the
# tree listing, per-function annotations split out of a file's answer, an
# artifact going stale when its source changes, deletion, the REPL commands,
# bad input (a task of the wrong kind of path too), the side store of a packed index beside it (and --side), and a
# rebuild that leaves the side store alone while the index stays unwritten.
. "$(dirname "$0")/lib.sh"

repo=$T/repo
mkdir -p "$repo/src/net"
cat > "$repo/src/net/conn.c" <<'C'
/* Opens a connection to host. */
int net_connect(const char *host, int port) { return port > 0 && host != 0; }
static int net_retry(int fd) { return fd + 1; }
int net_close(int fd) { return fd; }
C
cat > "$repo/src/main.c" <<'C'
int main(void) { return 0; }
C
"$MCPIDX" build --quiet "$repo" || fail "build failed"
idx=$repo/.mcpidx
before=$(cksum < "$idx/data.mdb")

# prompt: outline + bodies, and the callback arguments to send back.
"$MCPIDX" artifacts "$repo" prompt src/net/conn.c --task annotate --json > "$T/p.json" ||
	fail "prompt exited $?"
expect_eq "$(json "$T/p.json" 'j["status"]')" prompt_ready "prompt status"
expect_eq "$(json "$T/p.json" 'j["callbackTool"]')" store_llm_result "callback tool"
p=$(json "$T/p.json" 'j["promptForHostLLM"]')
expect_contains "$p" "F> int net_connect(const char *host, int port) { ... }" "outline in the prompt"
expect_contains "$p" "--- net_retry (lines 3-3)" "a private body for annotate"
chain=$(json "$T/p.json" 'j["callbackArgs"]["chain"]')
hash=$(json "$T/p.json" 'j["callbackArgs"]["hash"]')
expect_eq "$(json "$T/p.json" 'j["callbackArgs"]["step"]')" 1 "first step"

# store: the model's answer, one line per function.
printf 'net_connect: dials the remote host over tcp.\n- `net_close`: hangs up the socket.\nnope: not a symbol\n' |
	"$MCPIDX" artifacts "$repo" store src/net/conn.c --task annotate --chain "$chain" \
	--hash "$hash" --json > "$T/s.json" || fail "store exited $?: $(cat "$T/s.json")"
expect_eq "$(json "$T/s.json" 'j["status"]')" success "store status"
expect_eq "$(json "$T/s.json" 'j["data"]["per_symbol"]')" 2 "per-symbol annotations"
expect_eq "$(json "$T/s.json" 'j["data"]["step"]')" 2 "store is step 2"
expect_eq "$(json "$T/s.json" 'j["data"]["artifact"]["stale"]')" False "fresh artifact"

echo "the main entry point" | "$MCPIDX" artifacts "$repo" store src/main.c --task summarize > /dev/null ||
	fail "store without a chain exited $?"

"$MCPIDX" artifacts "$repo" list > "$T/list.out" || fail "list exited $?"
expect_eq "$(head -4 "$T/list.out")" "src/
  net/
    conn.c: annotate, annotate net_close, annotate net_connect
  main.c: summarize" "tree"
"$MCPIDX" artifacts "$repo" list src/net --json > "$T/l.json" || fail "list dir exited $?"
expect_eq "$(json "$T/l.json" 'j["data"]["total"]')" 3 "list under src/net"
"$MCPIDX" artifacts "$repo" list --type summarize --json > "$T/l.json"
expect_eq "$(json "$T/l.json" 'j["data"]["total"]')" 1 "list by type"

"$MCPIDX" artifacts "$repo" show src/net/conn.c --task annotate --symbol net_connect > "$T/show.out" ||
	fail "show exited $?"
expect_contains "$(cat "$T/show.out")" "dials the remote host over tcp." "shown text"

# Summaries show in outlines when asked, and in expand's docs.
"$MCPIDX" query "$repo" outline src/net/conn.c --summaries > "$T/o.out" || fail "outline --summaries exited $?"
expect_contains "$(cat "$T/o.out")" "F> int net_connect(const char *host, int port) { ... }
V* summary: dials the remote host over tcp." "V* summary under its function"
"$MCPIDX" query "$repo" outline src/net/conn.c > "$T/o.out"
case "$(cat "$T/o.out")" in *"V* summary"*) fail "summaries shown without --summaries";; esac
"$MCPIDX" query "$repo" expand src/net/conn.c net_close --what docs > "$T/o.out"
expect_contains "$(cat "$T/o.out")" "V* summary: hangs up the socket." "expand docs"

# The index was only read.
expect_eq "$(cksum < "$idx/data.mdb")" "$before" "index unchanged by artifacts"
[ -f "$idx/side/data.mdb" ] || fail "no side store in $idx/side"

# The REPL has the same commands.
printf 'artifacts show src/main.c\n' | "$MCPIDX" query "$repo" > "$T/repl.out" 2>&1 ||
	fail "repl exited $?: $(cat "$T/repl.out")"
expect_contains "$(cat "$T/repl.out")" "the main entry point" "repl artifacts show"

# The source changes: stale, in the listing and in show.
echo "int extra(void) { return 1; }" >> "$repo/src/net/conn.c"
"$MCPIDX" artifacts "$repo" list src/net > "$T/list.out"
expect_contains "$(cat "$T/list.out")" "annotate net_connect (stale)" "stale after an edit"
"$MCPIDX" artifacts "$repo" show src/net/conn.c --task annotate --symbol net_connect --json > "$T/g.json"
expect_eq "$(json "$T/g.json" 'j["data"]["artifacts"][0]["stale"]')" True "stale in show"
"$MCPIDX" build --quiet "$repo" || fail "rebuild failed"
"$MCPIDX" query "$repo" outline src/net/conn.c --summaries > "$T/o.out"
case "$(cat "$T/o.out")" in *"V* summary"*) fail "a stale summary shown: $(cat "$T/o.out")";; esac

# The rebuild above replaced the index, never the side store.
"$MCPIDX" artifacts "$repo" list --json > "$T/l.json"
expect_eq "$(json "$T/l.json" 'j["data"]["total"]')" 4 "artifacts survive a rebuild"

# Delete.
"$MCPIDX" artifacts "$repo" rm src/net/conn.c --task annotate > "$T/rm.out" || fail "rm exited $?"
expect_eq "$(head -1 "$T/rm.out")" "deleted 3 artifacts of src/net/conn.c" "rm"
"$MCPIDX" artifacts "$repo" rm src/net/conn.c 2> "$T/rm.err" && fail "rm of nothing exited 0"
expect_contains "$(cat "$T/rm.err")" "No artifact of src/net/conn.c matches" "rm of nothing"

# Bad input: clear errors, exit 1 (2 for usage).
"$MCPIDX" artifacts "$repo" prompt src/main.c --task poem 2> "$T/e.err"; expect_eq $? 1 "bad task status"
expect_contains "$(cat "$T/e.err")" "Unknown task 'poem'" "bad task"
"$MCPIDX" artifacts "$repo" prompt ../etc/passwd --task summarize 2> "$T/e.err"; expect_eq $? 1 "bad path status"
expect_contains "$(cat "$T/e.err")" "outside the repository" "bad path"
"$MCPIDX" artifacts "$repo" prompt src/nope.c --task summarize 2> "$T/e.err"
expect_contains "$(cat "$T/e.err")" "not in the index" "unknown file"
"$MCPIDX" artifacts "$repo" prompt src/main.c --task summarize --symbol nosuch 2> "$T/e.err"
expect_contains "$(cat "$T/e.err")" "No symbol 'nosuch' in src/main.c" "unknown symbol"
"$MCPIDX" artifacts "$repo" store src/main.c --task summarize < /dev/null 2> "$T/e.err"
expect_contains "$(cat "$T/e.err")" "needs a non-empty result" "empty result"
echo x | "$MCPIDX" artifacts "$repo" store src/main.c --task summarize --chain ch-0000 2> "$T/e.err"
expect_contains "$(cat "$T/e.err")" "Unknown chain 'ch-0000'" "unknown chain"
# aliases is a tool's task: a file path (one shorter than "tool:" too, which
# was read past its end) is refused as such; a file's task refuses a tool
for p in x src/main.c; do
	echo x | "$MCPIDX" artifacts "$repo" store "$p" --task aliases 2> "$T/e.err" &&
		fail "aliases stored for the file $p"
	expect_contains "$(cat "$T/e.err")" "Task aliases is about a tool of the catalog, not a file" "aliases of $p"
done
echo x | "$MCPIDX" artifacts "$repo" store tool:srv/t --task summarize 2> "$T/e.err"
expect_contains "$(cat "$T/e.err")" "Task summarize is about a file, not a tool" "summary of a tool"
"$MCPIDX" artifacts "$repo" frob 2> /dev/null; expect_eq $? 2 "unknown command"

# A packed index ships no artifacts unless asked; with --with-artifacts they
# go to FILE.side/, where a server or the CLI of FILE finds them.
"$MCPIDX" pack "$repo" -o "$T/ship.idx" > /dev/null || fail "pack failed"
[ -e "$T/ship.idx.side" ] && fail "pack without --with-artifacts wrote $T/ship.idx.side"
"$MCPIDX" pack "$repo" -o "$T/full.idx" --with-artifacts > "$T/pack.out" || fail "pack --with-artifacts failed"
expect_contains "$(cat "$T/pack.out")" "artifacts: 1 in $T/full.idx.side/" "pack --with-artifacts summary"
"$MCPIDX" artifacts "$T/full.idx" show src/main.c > "$T/show.out" || fail "show on the packed file exited $?"
expect_contains "$(cat "$T/show.out")" "the main entry point" "artifacts shipped with the packed index"
"$MCPIDX" verify "$T/full.idx" > /dev/null || fail "verify of a pack with artifacts"
echo "packed summary" | "$MCPIDX" artifacts "$T/ship.idx" store src/main.c --task summarize > /dev/null ||
	fail "store beside a packed index exited $?"
[ -f "$T/ship.idx.side/data.mdb" ] || fail "no side store beside the packed file"
chmod a-w "$T"
echo "elsewhere" | "$MCPIDX" artifacts "$T/ship.idx" store src/main.c --task summarize --side "$T/../side-$$" > /dev/null ||
	{ chmod u+w "$T"; fail "store with --side exited $?"; }
chmod u+w "$T"
"$MCPIDX" artifacts "$T/ship.idx" show src/main.c --side "$T/../side-$$" > "$T/show.out"
rm -rf "$T/../side-$$"
expect_contains "$(cat "$T/show.out")" "elsewhere" "--side store"

# staleness reads the working tree's file only when it is a regular file:
# a FIFO in its place made show (and get_artifact) wait for good
rm "$repo/src/main.c" && mkfifo "$repo/src/main.c"
timeout 20 "$MCPIDX" artifacts "$repo" show src/main.c > "$T/show.out" 2>&1
[ $? -eq 124 ] && fail "show blocked on a FIFO in the file's place"
expect_contains "$(cat "$T/show.out")" "the main entry point" "show beside a FIFO"
echo ok
