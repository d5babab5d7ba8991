# `mcpidx query search` over testdata/search built by `mcpidx build`:
# private code is an answer by default (--filter public restricts), test
# code yields to the code it tests, and generated code (*.pb.go) is indexed:
# its definitions are found, its chunks rank below written code.
. tests/cli/lib.sh
"$MCPIDX" build testdata/search -o $T/idx -q || fail "build testdata/search"
q() { "$MCPIDX" query $T/idx "$@"; }
# Generated code is indexed, not skipped as vendored.
q def EnumDescriptor --json > $T/j || fail "def EnumDescriptor"
expect_eq "$(json $T/j "j['definitions'][0]['path'], j['definitions'][0]['kind']")" \
	"server/status.pb.go method" "EnumDescriptor in the generated file"
q search name of a health state --json > $T/j || fail "search health"
expect_eq "$(json $T/j "[r['breadcrumb'] for r in j['results']].index('describeHealth') < [r['breadcrumb'] for r in j['results']].index('Health > String')")" \
	"True" "written code above generated code"
# Private symbols are answers unless --filter public.
q search free entries --json > $T/j || fail "search free entries"
expect_eq "$(json $T/j "j['results'][0]['breadcrumb']")" "free_entries" "private function found by default"
q search free entries --filter public --json > $T/j || fail "search --filter public"
expect_eq "$(json $T/j "'free_entries' in [r['breadcrumb'] for r in j['results']]")" "False" \
	"--filter public leaves private code out"
# Test code yields unless the query speaks of tests.
q search start the http server --json > $T/j || fail "search start"
expect_eq "$(json $T/j "j['results'][0]['breadcrumb']")" "StartHTTPServer" "implementation first"
q search test starting the http server --json > $T/j || fail "search test"
expect_eq "$(json $T/j "j['results'][0]['breadcrumb']")" "TestStartHTTPServer" "test first when asked"
echo ok
