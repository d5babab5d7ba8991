# A prototype above the callers (`int foo(int x);` in the caller's file)
# declares foo and defines nothing: its file's calls are still callers of
# the definition elsewhere, for outline --xrefs and research (the prototype
# counted as a local definition and hid every caller).
. tests/cli/lib.sh
mkdir -p $T/r
printf 'int foo(int x)\n{\n\treturn x + 1;\n}\n' > $T/r/foo.c
printf 'int foo(int x);\n\nint use_a(void)\n{\n\treturn foo(1);\n}\n\nint use_b(void)\n{\n\treturn foo(2);\n}\n' > $T/r/m0.c
printf 'static int foo(int x)\n{\n\treturn x;\n}\n\nint use_c(void)\n{\n\treturn foo(3);\n}\n' > $T/r/own.c
"$MCPIDX" build $T/r -q || fail "build"
"$MCPIDX" query $T/r outline foo.c --xrefs > $T/o || fail "outline --xrefs"
grep -q "called by: use_a, use_b$" $T/o || fail "callers through a prototype: $(cat $T/o)"
"$MCPIDX" query $T/r research "what calls foo" > $T/o || fail "research"
grep -q "use_a  m0.c:3" $T/o || fail "research through a prototype: $(cat $T/o)"
grep -q "use_c" $T/o && fail "use_c calls its own static foo: $(cat $T/o)"
echo ok
