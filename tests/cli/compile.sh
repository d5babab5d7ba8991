#!/bin/sh
# compile.sh - `mcpidx compile` runs only what .mcpidx.toml names, reads
# gcc's and Python's output into log groups (goldens in testdata/compile),
# and its diagnostics join the outline of the files they name until a file
# changes; what the config does not name, or allow, is refused.
. "$(dirname "$0")/lib.sh"
top=$(pwd)
nosec() { sed 's/, [0-9.]*s)$/)/'; }

cp -r testdata/compile/c "$T/c"
"$MCPIDX" build "$T/c" -q || fail "build"
cd "$T/c"
"$MCPIDX" compile app > "$T/log" 2>&1
expect_eq "$?" 1 "exit status of a failed compile"
nosec < "$T/log" > "$T/got"
nosec < "$top/testdata/compile/c/expected/app.log" > "$T/want"
cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got"; fail "groups differ from the golden"; }
"$MCPIDX" compile app --expand | nosec > "$T/got"
nosec < "$top/testdata/compile/c/expected/app.expand" > "$T/want"
cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got"; fail "expanded log differs"; }

# the error joins the outline, compact and full views of its file
"$MCPIDX" query . outline src/app.c > "$T/o"
expect_contains "$(cat "$T/o")" "F> int main(void) { ... }
V* [W]:18 unused variable 'total'
V* [E]:19 'totl' undeclared (first use in this function)
V* [H] did you mean 'total'?" "outline"
expect_contains "$("$MCPIDX" query . outline src/app.c --mode compact)" "V* [1E 2W 1H in file]" "compact"
expect_contains "$("$MCPIDX" query . outline src/app.c --mode full)" \
	"printf(\"%d\\n\", totl); // [E] 'totl' undeclared (first use in this function); [H] did you mean 'total'?" "full"

# the log is kept: read it back by task id, one group
"$MCPIDX" compile app --flag -k --json > "$T/j" || true
id=$(json "$T/j" "j['task_id']")
"$MCPIDX" compile --log "$id" --group ERROR > "$T/e"
expect_eq "$(sed -n 2p "$T/e")" "V* ERROR src/app.c:19:24" "error group"
expect_eq "$(sed -n 4p "$T/e")" "    hint: did you mean 'total'?" "hint"
"$MCPIDX" compile --log nope > "$T/e" 2>&1 && fail "unknown task log accepted"
expect_contains "$(cat "$T/e")" "no task log nope" "unknown task"

# a changed file loses its compile diagnostics
sed -i 's/totl/total/' src/app.c
"$MCPIDX" build . -q
"$MCPIDX" query . outline src/app.c > "$T/o"
case "$(cat "$T/o")" in *"[E]"*) fail "stale diagnostics shown: $(cat "$T/o")" ;; esac

# the targets, as the config names them
expect_eq "$("$MCPIDX" compile --list)" "app: make app
clang: clang -Wall -c src/app.c -o /dev/null
generic: clang -Wall -fno-caret-diagnostics -c src/app.c -o /dev/null" "--list"

# refused: a target not named, a flag not allowed, a shell string
"$MCPIDX" compile rm > "$T/r" 2>&1
expect_eq "$?" 2 "unknown target status"
expect_contains "$(cat "$T/r")" "target \"rm\" is not in" "unknown target"
expect_contains "$(cat "$T/r")" "names: app clang generic" "targets listed"
"$MCPIDX" compile app --flag '; rm -rf /' > "$T/r" 2>&1 && fail "flag accepted"
expect_contains "$(cat "$T/r")" "is not allowed for target \"app\"; it allows: \"-k\" \"V=1\"" "flag"
mkdir "$T/bad" && printf '[compile.x]\nargv = "make && rm -rf /"\n' > "$T/bad/.mcpidx.toml"
"$MCPIDX" compile x --repo "$T/bad" > "$T/r" 2>&1
expect_eq "$?" 2 "shell string status"
expect_contains "$(cat "$T/r")" ".mcpidx.toml:2: argv must be a non-empty array" "shell string"
"$MCPIDX" compile x --repo "$top/testdata/lsp" > "$T/r" 2>&1
expect_eq "$?" 1 "no config status"
expect_contains "$(cat "$T/r")" "no .mcpidx.toml in" "no config"

# a FIFO (a link to /dev/zero too) as .mcpidx.toml is refused, not read:
# compile and the server's tools/list answer at once
mkdir "$T/fifo" && echo 'int main(void) { return 0; }' > "$T/fifo/main.c" && mkfifo "$T/fifo/.mcpidx.toml"
timeout 20 "$MCPIDX" compile --list --repo "$T/fifo" > "$T/r" 2>&1
[ $? -eq 124 ] && fail "compile --list blocked on a FIFO .mcpidx.toml"
expect_contains "$(cat "$T/r")" ".mcpidx.toml is not a regular file" "FIFO config"
"$MCPIDX" build -q "$T/fifo" || fail "build beside a FIFO config"
printf '%s\n%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | timeout 20 "$MCPIDX" serve "$T/fifo" > "$T/r" 2> /dev/null
[ $? -eq 124 ] && fail "serve blocked on a FIFO .mcpidx.toml"
expect_contains "$(cat "$T/r")" '"name":"read_file"' "tools/list beside a FIFO config"

# at most 1,000 targets: each is looked up by name, and 45,000 (a 1 MiB
# file) took seconds per tools/list
mkdir "$T/many" && python3 -c "
import sys
sys.stdout.write(''.join('[compile.t%d]\\nargv = [\"true\"]\\n' % i for i in range(1001)))" > "$T/many/.mcpidx.toml"
timeout 20 "$MCPIDX" compile --list --repo "$T/many" > "$T/r" 2>&1
expect_contains "$(cat "$T/r")" "more than 1000 compile targets" "too many targets"

# a command over its timeout is killed
mkdir "$T/slow" && printf '[compile.wait]\nargv = ["sleep", "30"]\ntimeout = 1\n' > "$T/slow/.mcpidx.toml"
"$MCPIDX" compile wait --repo "$T/slow" > "$T/r" 2>&1
expect_contains "$(cat "$T/r")" "V* task: sleep 30 (timed out, " "timeout"

# Python: the traceback's innermost frame locates the error
cp -r "$top/testdata/compile/python" "$T/py"
cd "$T/py" && "$MCPIDX" build . -q && "$MCPIDX" compile run > /dev/null
expect_contains "$("$MCPIDX" query . outline app/models.py --filter all)" \
	"V*   [E]:11 AttributeError: 'Account' object has no attribute 'nme'." "python outline"
echo ok
