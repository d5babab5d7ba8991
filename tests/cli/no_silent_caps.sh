# No silent caps on the command line: `mcpidx outline` takes any number of
# files and `query search` keeps every word (both dropped what came past the
# 8th argument and exited 0).
. tests/cli/lib.sh
"$MCPIDX" build testdata/nav -o $T/idx -q || fail "build testdata/nav"
# Twelve files: twelve headers, the last file included.
files=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	cp testdata/nav/shapes.py $T/f$i.py
	files="$files $T/f$i.py"
done
"$MCPIDX" outline $files > $T/o || fail "outline of twelve files"
expect_eq "$(grep -c '^== ' $T/o)" "12" "headers printed"
expect_contains "$(cat $T/o)" "== $T/f12.py" "twelfth file shown"
# A query whose only matching word is the tenth argument still finds it.
"$MCPIDX" query $T/idx search qqa qqb qqc qqd qqe qqf qqg qqh qqi total_area --json > $T/j ||
	fail "search with ten words"
expect_eq "$(json $T/j "j['results'][0]['symbols'][0] if j['results'] else 'none'")" "total_area" "tenth word searched"
# And many options are all read, none dropped.
opts=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18; do opts="$opts --limit 3"; done
"$MCPIDX" query $T/idx search total_area $opts --limit 1 --json > $T/j || fail "eighteen options"
expect_eq "$(json $T/j "len(j['results'])")" "1" "last --limit wins"
