#!/bin/sh
# The interactive prompt of `mcpidx query INDEX`, driven through a
# pseudo-terminal: TAB completion of a symbol prefix, a path and a command,
# colour of block marks and NO_COLOR, the pager for long answers, quotes and
# an unbalanced quote, Ctrl-C dropping the line, Ctrl-D leaving, the history
# file; then the same commands piped in without a terminal.
set -u
: "${MCPIDX:=./mcpidx}"
case $MCPIDX in /*) ;; *) MCPIDX=$(pwd)/$MCPIDX ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "repl: $*"; exit 1; }

mkdir -p "$tmp/repo/src"
cat > "$tmp/repo/src/settings.c" <<'C'
/* Reads one settings file. */
int parse_settings_file(const char *path) { return path != 0; }

/* Frees what parse_settings_file made. */
void release_settings(void) { }

static int helper(int x) { return parse_settings_file("x") + x; }
C
{
	echo "/* Many small functions, so the outline is taller than the terminal. */"
	i=0
	while [ $i -lt 40 ]; do echo "int step_$i(int v) { return v + $i; }"; i=$((i + 1)); done
} > "$tmp/repo/src/steps.c"
"$MCPIDX" build --quiet "$tmp/repo" || fail "build failed"

# Without a terminal: one command per line, answers on stdout.
printf 'def parse_settings_file\n\n# a comment\nsearch "settings file" --limit 1\nstats --json\n' |
	"$MCPIDX" query "$tmp/repo" > "$tmp/piped" 2> "$tmp/piped.err" || fail "piped commands exited $?"
grep -q '^F> int parse_settings_file' "$tmp/piped" || { cat "$tmp/piped" "$tmp/piped.err"; fail "piped def answer missing"; }
grep -q '"files":2' "$tmp/piped" || fail "piped stats --json missing"
printf 'def "unbalanced\nstats\n' | "$MCPIDX" query "$tmp/repo" > "$tmp/piped2" 2>&1
grep -q 'unbalanced " quote' "$tmp/piped2" || fail "no message for an unbalanced quote: $(cat "$tmp/piped2")"
grep -q '^files 2' "$tmp/piped2" || fail "the prompt did not go on after a bad line"

cat > "$tmp/drive.py" <<'PY'
import fcntl, os, pty, re, select, struct, sys, termios, time
mcpidx, index, tmp, mode = sys.argv[1:5]
env = dict(os.environ, TERM="xterm", HOME=tmp, MCPIDX_HISTORY=tmp + "/hist",
           PAGER="cat > " + tmp + "/paged")
env.pop("NO_COLOR", None)
if mode == "nocolor":
    env["NO_COLOR"] = "1"
pid, fd = pty.fork()
if pid == 0:
    os.execve(mcpidx, [mcpidx, "query", index], env)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 12, 100, 0, 0))
buf = b""

def expect(pat, what, timeout=5.0):
    global buf
    end = time.time() + timeout
    rx = re.compile(pat)
    while True:
        m = rx.search(buf)
        if m:
            buf = buf[m.end():]
            return
        left = end - time.time()
        if left <= 0:
            sys.exit("repl: %s: waited for %r, got %r" % (what, pat, buf[-400:]))
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                d = os.read(fd, 4096)
            except OSError:
                d = b""
            if not d:
                sys.exit("repl: %s: the prompt exited; got %r" % (what, buf[-400:]))
            buf += d

def send(s):
    os.write(fd, s)

def leave():
    # Ctrl-D on an empty line leaves with status 0 (never wait unbounded).
    # Sent a moment after the prompt, as a person types it: a Ctrl-D typed
    # ahead while the terminal is still in cooked mode between two lines is
    # taken by the line discipline, not by the line editor.
    time.sleep(0.3)
    send(b"\x04")
    end = time.time() + 5
    while time.time() < end:
        p, st = os.waitpid(pid, os.WNOHANG)
        if p:
            if os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0:
                sys.exit(0)
            sys.exit("repl: exit status %r after Ctrl-D" % st)
        try:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                os.read(fd, 4096)
        except OSError:
            pass
    where = ""
    try:
        where = open("/proc/%d/wchan" % pid).read() + " " + open("/proc/%d/syscall" % pid).read()
    except OSError:
        pass
    os.kill(pid, 9)
    sys.exit("repl: still running 5 s after Ctrl-D (waiting in %s)" % where.strip())

prompt = rb"mcpidx> "
expect(prompt, "first prompt")
if mode == "nocolor":
    send(b"def parse_settings_file\r")
    expect(rb"F> int parse_settings_file", "answer")
    if b"\x1b[" in buf or b"\x1b[1;33m" in buf:
        sys.exit("repl: colour escapes with NO_COLOR set")
    expect(prompt, "prompt")
    leave()
# TAB completes a symbol prefix from the index.
send(b"def parse_sett\t")
expect(rb"ings_file ", "completion of parse_sett")
send(b"\r")
# The answer, with the F> mark in colour.
expect(rb"\x1b\[1;33mF>\x1b\[0m int parse_settings_file", "coloured F> mark")
expect(prompt, "prompt after def")
# TAB completes a command name and an indexed path, one folder at a time.
send(b"outl\t")
expect(rb"ine ", "completion of the command outl")
send(b"sr\t")
expect(rb"c/", "completion of the folder src/")
send(b"se\t")
expect(rb"ttings\.c ", "completion of src/se")
send(b"\r")
expect(rb"F>\x1b\[0m int parse_settings_file\(const char \*path\)", "outline answer")
expect(prompt, "prompt after outline")
# Quotes group words; an unbalanced quote gets a message, not a crash.
send(b'search "settings file" --limit 1\r')
expect(rb"settings", "quoted search")
expect(prompt, "prompt after search")
send(b'def "parse\r')
expect(rb"unbalanced \" quote", "unbalanced quote message")
expect(prompt, "prompt after bad quote")
# Ctrl-C drops the line being typed and keeps the prompt.
send(b"refs something_half_typ")
time.sleep(0.2)
send(b"\x03")
expect(rb"\^C", "Ctrl-C echo")
expect(prompt, "prompt after Ctrl-C")
send(b"stats\r")
expect(rb"files 2", "stats after Ctrl-C")
if re.search(rb"something_half_typ", buf):
    sys.exit("repl: the line dropped by Ctrl-C was run")
expect(prompt, "prompt after stats")
# A long answer goes through the pager (the terminal has 12 rows).
send(b"outline src/steps.c\r")
expect(prompt, "prompt after the paged outline")
time.sleep(0.2)
paged = open(tmp + "/paged", "rb").read() if os.path.exists(tmp + "/paged") else b""
if b"step_39" not in paged:
    sys.exit("repl: the long outline did not go through $PAGER (got %r)" % paged[:200])
leave()
PY
python3 "$tmp/drive.py" "$MCPIDX" "$tmp/repo" "$tmp" color || exit 1
[ -f "$tmp/hist" ] || fail "no history file at \$MCPIDX_HISTORY"
grep -q 'def\\040parse_settings_file' "$tmp/hist" || fail "history lacks the def line: $(cat "$tmp/hist")"
grep -q 'stats' "$tmp/hist" || fail "history lacks stats"
grep -q 'something_half_typ' "$tmp/hist" && fail "a line dropped with Ctrl-C went into the history"
python3 "$tmp/drive.py" "$MCPIDX" "$tmp/repo" "$tmp" nocolor || exit 1
exit 0
