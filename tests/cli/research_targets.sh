# code_research's targets: a query that writes some names as code
# (lookupHost, parse_config, a path) starts from those only, not from the
# English words around them that happen to name a definition ("resolver");
# prose alone still starts from its words; and a name starts from the
# definition goto_definition shows first (the Conn interface, not the
# embedded field of a struct in a file that sorts before it).
. tests/cli/lib.sh
"$MCPIDX" build testdata/research -o $T/idx -q || fail "build testdata/research"
r() { "$MCPIDX" query $T/idx research "$1" --json > $T/j || fail "research '$1'"; }
r "how does the resolver call lookupHost"
expect_eq "$(json $T/j "sorted(n['name'] for n in j['nodes'] if n['depth'] == 0)")" \
	"['lookupHost']" "only the name written as code"
expect_eq "$(json $T/j "sorted(n['name'] for n in j['nodes'])")" \
	"['dialSerial', 'lookupHost']" "its callers"
r "how does the resolver work"
expect_eq "$(json $T/j "[n['name'] for n in j['nodes'] if n['depth'] == 0]")" \
	"['resolver']" "prose alone: its words"
r "what calls noSuchName in the resolver"
expect_eq "$(json $T/j "[n['name'] for n in j['nodes'] if n['depth'] == 0]")" \
	"['resolver']" "a code name that names nothing: the words after all"
r "implementations of Conn"
expect_eq "$(json $T/j "[(n['path'], n['kind']) for n in j['nodes'] if n['depth'] == 0]")" \
	"[('net.go', 'trait')]" "the interface, not the field"
echo "PASS research_targets"
