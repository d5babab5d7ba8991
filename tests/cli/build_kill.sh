# A build killed with SIGKILL at any point leaves the previous index whole:
# it opens and answers exactly as before.
. tests/cli/lib.sh
R=$T/repo
mkdir -p $R
i=0
while [ $i -lt 400 ]; do
	printf 'int f%d(int x) { return x + %d; }\nint g%d(void) { return f%d(1); }\n' $i $i $i $i > $R/f$i.c
	i=$((i + 1))
done
"$MCPIDX" build "$R" -q || fail "first build"
"$MCPIDX" query "$R" stats --json > $T/before.json
# Change every file so the next build has real work, then kill it midway.
for f in $R/*.c; do echo 'int extra_one(void) { return 0; }' >> $f; done
for delay in 0.01 0.05 0.1 0.2 0.3; do
	"$MCPIDX" build "$R" -q -j 1 &
	pid=$!
	sleep $delay
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	"$MCPIDX" query "$R" stats --json > $T/after.json || fail "index unreadable after kill at ${delay}s"
	files=$(json $T/after.json "j['files']")
	expect_eq "$files" "400" "files after kill at ${delay}s"
	"$MCPIDX" query "$R" def f7 --json > $T/def.json || fail "def f7 after kill at ${delay}s"
	expect_eq "$(json $T/def.json "j['definitions'][0]['path']")" "f7.c" "def after kill"
done
# A complete build after the kills still works and sees the edits.
"$MCPIDX" build "$R" -q || fail "build after kills"
"$MCPIDX" query "$R" def extra_one --json > $T/def.json || fail "extra_one"
expect_eq "$(json $T/def.json "j['total']")" "400" "edits indexed"
echo ok
