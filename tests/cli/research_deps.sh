# code_research's dependency focus: a name means the module first (the json
# package, not a variable called json), with what it imports (relative
# imports resolved to their files) and who imports it.
. tests/cli/lib.sh
"$MCPIDX" build testdata/deps -o $T/idx -q || fail "build testdata/deps"
"$MCPIDX" query $T/idx research json --focus dependencies --json > $T/j || fail "research json"
expect_eq "$(json $T/j "[(n['name'], n['path'], n['kind']) for n in j['nodes'] if n['depth'] == 0]")" \
	"[('json', 'json/__init__.py', 'module')]" "target is the package"
expect_eq "$(json $T/j "sorted(n['path'] for n in j['nodes'] if n['name'] in ('.decoder', '.encoder'))")" \
	"['json/decoder.py', 'json/encoder.py']" "relative imports resolved"
expect_eq "$(json $T/j "sorted(e['from'] for e in j['edges'] if e['to'] == 'json')")" \
	"['app/config.py', 'app/server.py', 'load']" "importers"
# Without the dependency focus the same word still finds a definition.
"$MCPIDX" query $T/idx research "what calls loads" --json > $T/j || fail "research calls"
expect_eq "$(json $T/j "sorted(n['name'] for n in j['nodes'])")" "['handle', 'load', 'loads']" "call chain"
