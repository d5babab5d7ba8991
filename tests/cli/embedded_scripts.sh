# The <script> blocks of Vue and Svelte components and of HTML pages are
# read by JavaScript's or TypeScript's rules: their definitions are found,
# searched and nested in the block; their calls have callers; data scripts
# (JSON) are not code; past 64 scripts a file says the rest are text.
. tests/cli/lib.sh
mkdir -p $T/repo/src
cp testdata/units/vue/counter/input.vue $T/repo/src/Counter.vue
cp testdata/units/svelte/component/input.svelte $T/repo/src/Hello.svelte
cp testdata/units/html/page/input.html $T/repo/index.html
python3 -c "
print('<html><body>')
for i in range(1, 71): print('<script>function many%d() { return %d; }</script>' % (i, i))
print('</body></html>')" > $T/repo/many.html
"$MCPIDX" build $T/repo -q || fail "build"
Q() { "$MCPIDX" query $T/repo "$@"; }

# a TypeScript function of <script setup lang="ts">, with its doc
Q def increment --json > $T/j || fail "def increment"
expect_eq "$(json $T/j "j['definitions'][0]['path']")" "src/Counter.vue" "increment's file"
expect_eq "$(json $T/j "j['definitions'][0]['line']")" "17" "increment's line"
expect_contains "$(Q def increment)" "Adds one to the count." "increment's doc"
# nested in the block: Parent.NAME finds it
Q def script.increment > $T/o || fail "def script.increment"
expect_contains "$(cat $T/o)" "src/Counter.vue" "qualified by the block"
# a Svelte module script's TypeScript and an instance script's JavaScript
expect_contains "$(Q def preload)" "function preload(id: string)" "svelte lang=ts"
Q refs greet --json > $T/j || fail "refs greet"
expect_eq "$(json $T/j "j['references'][0]['caller']")" "go" "a call in a svelte script has its caller"
# a page's module script: a class and its method
expect_contains "$(Q def Greeter.greet)" "index.html" "html module script"
# a JSON script is data: its keys are not functions
Q def nope > /dev/null 2>&1 && fail "a JSON script's key was read as code"
# searched like any function
Q search adds one count --json > $T/j || fail "search"
expect_contains "$(json $T/j "[r['path'] for r in j['results']]")" "src/Counter.vue" "search finds the vue function"
# the outline shows the script's functions in the block
Q outline src/Counter.vue > $T/o || fail "outline"
expect_contains "$(cat $T/o)" "function increment(): void" "outline of the vue file"
# 70 scripts: the first 64 read, then a diagnostic at the 65th
Q outline many.html > $T/o || fail "outline many.html"
expect_contains "$(cat $T/o)" "function many64()" "64th script read"
case "$(cat $T/o)" in *"function many65()"*) fail "65th script read past the cap";; esac
expect_contains "$(cat $T/o)" "[W]:66 scripts from here on read as text" "the cap is said"
exit 0
