# An update of an index of many files: the file records are read in ranges
# on several threads (from 8,192 files on) and the postings of the changed
# files are read ahead of the writer.  Edits, deletes and new files at the
# start, middle and end of the path order show up, nothing else is parsed
# again, and the totals and answers are a fresh build's.
. tests/cli/lib.sh
R=$T/repo
n=0
for d in $(seq -w 0 89); do
	mkdir -p $R/d$d
	for f in $(seq -w 0 99); do
		printf 'int fn_%s_%s(int x) { return x + %d; }\n' $d $f $n > $R/d$d/f$f.c
		n=$((n + 1))
	done
done
b() { "$MCPIDX" build "$R" --json > $T/out.json || fail "build failed"; }
b
expect_eq "$(json $T/out.json "j['indexed'], j['files']")" "9000 9000" "first build"
b
expect_eq "$(json $T/out.json "j['indexed'], j['unchanged'], j['removed']")" "0 9000 0" "no-op"
# Edits at the start, middle and end; one of them big enough that its
# postings changes are many.
words=$(seq 1 150 | sed 's/^/zebraword/' | tr '\n' ' ')
printf 'int fn_00_00(int x) { return x; }\n/* %s */\nint edited_first(void) { return 1; }\n' "$words" > $R/d00/f00.c
echo 'int edited_middle(void) { return 2; }' >> $R/d45/f50.c
echo 'int edited_last(void) { return 3; }' >> $R/d89/f99.c
rm $R/d30/f30.c $R/d70/f07.c
echo 'int added_one(void) { return 4; }' > $R/d10/new.c
mkdir -p $R/zz && echo 'int added_two(void) { return 5; }' > $R/zz/new.c
b
expect_eq "$(json $T/out.json "j['indexed'], j['unchanged'], j['removed'], j['files']")" \
	"5 8995 2 9000" "edits, deletes and new files"
for s in edited_first edited_middle edited_last added_one added_two fn_00_00 fn_89_98; do
	"$MCPIDX" query "$R" def $s > /dev/null 2>&1 || fail "def $s after the update"
done
for s in fn_30_30 fn_70_07; do
	"$MCPIDX" query "$R" def $s > /dev/null 2>&1 && fail "$s still defined after delete"
done
"$MCPIDX" query "$R" search "zebraword77" --json > $T/s.json || fail "search zebraword77"
expect_eq "$(json $T/s.json "j['results'][0]['path']")" "d00/f00.c" "search finds the edited file's new words"
# A second update after the first (new files have the largest ids now).
echo 'int edited_again(void) { return 6; }' >> $R/d60/f60.c
b
expect_eq "$(json $T/out.json "j['indexed'], j['unchanged'], j['removed']")" "1 8999 0" "second update"
b
expect_eq "$(json $T/out.json "j['indexed'], j['unchanged']")" "0 9000" "no-op after updates"
totals="j['files'], j['symbols'], j['references'], j['chunks']"
updated=$(json $T/out.json "$totals")
"$MCPIDX" build "$R" --force --json > $T/out.json || fail "force build"
expect_eq "$(json $T/out.json "$totals")" "$updated" "totals after updates = a fresh build's"
echo ok
