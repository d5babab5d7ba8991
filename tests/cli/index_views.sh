# A view through the index is byte for byte the view of the file parsed on
# the fly: same symbols, diagnostics and trait lines, every language, every mode.
. tests/cli/lib.sh
"$MCPIDX" build testdata/units -o $T/idx -q || fail "build testdata/units"
n=0
for f in $(cd testdata/units && ls */*/input.*); do
	for mode in outline compact full; do
		"$MCPIDX" outline testdata/units/$f --mode $mode > $T/a 2>&1
		"$MCPIDX" query $T/idx outline $f --mode $mode > $T/b 2>&1
		cmp -s $T/a $T/b || { diff $T/a $T/b | head -5; fail "$f --mode $mode differs through the index"; }
		n=$((n + 1))
	done
	"$MCPIDX" outline testdata/units/$f --all > $T/a 2>&1
	"$MCPIDX" query $T/idx outline $f --all > $T/b 2>&1
	cmp -s $T/a $T/b || fail "$f --all differs through the index"
done
[ $n -gt 100 ] || fail "only $n views compared"
echo "ok ($n views)"
