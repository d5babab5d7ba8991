#!/bin/sh
# lang_headers.sh - a .h header is C or C++ by what its text says, in the
# index and in every view: a C++ header named .h (as most C++ projects name
# theirs) is parsed as C++, a C header that uses C++'s words as names (the
# kernel's "struct class *class") stays C; an edit that turns one into the
# other is picked up by the next update.
. "$(dirname "$0")/lib.sh"
u=$(pwd)/testdata/units
mkdir -p "$T/r/include"
cp "$u/cpp/header_h/input.h" "$T/r/include/ring_buffer.h"
cp "$u/c/cxx_words/input.h" "$T/r/include/device_class.h"
printf '#include "include/device_class.h"\nint main(void) { return class_register(0, 0, 0); }\n' > "$T/r/main.c"
"$MCPIDX" build -q "$T/r" || fail "build"
langs=$("$MCPIDX" query "$T/r" stats | grep '^languages:')
expect_eq "$langs" "languages: c 2, cpp 1" "languages of the two headers and main.c"
out=$("$MCPIDX" query "$T/r" def RingBuffer.push)
expect_contains "$out" "include/ring_buffer.h:22-32 method" "a method of a class in a .h"
out=$("$MCPIDX" query "$T/r" outline include/ring_buffer.h)
expect_contains "$out" "C>   class RingBuffer { ... }" "outline of the C++ header"
case "$out" in *"syntax error"*) fail "the C++ header was read as C: $out";; esac
out=$("$MCPIDX" query "$T/r" outline include/device_class.h)
expect_contains "$out" "S> struct class { name, probe }" "the C header stays C"
# the C header gains a C++ section; the update reads it as C++
printf 'namespace registry {\nint count();\n}\n' >> "$T/r/include/device_class.h"
"$MCPIDX" build -q "$T/r" || fail "update"
langs=$("$MCPIDX" query "$T/r" stats | grep '^languages:')
expect_eq "$langs" "languages: c 1, cpp 2" "languages after the edit"
# .inl, .tpp and the module units are C++ by their names
cp "$u/cpp/header_h/input.h" "$T/r/include/ring_impl.inl"
cp "$u/cpp/header_h/input.h" "$T/r/include/ring.cppm"
"$MCPIDX" build -q "$T/r" || fail "update with .inl"
langs=$("$MCPIDX" query "$T/r" stats | grep '^languages:')
expect_eq "$langs" "languages: c 1, cpp 4" "languages with .inl and .cppm"
# --lang c reads a file as asked, whatever its text
out=$("$MCPIDX" outline --lang c "$u/cpp/header_h/input.h")
expect_contains "$out" "syntax error" "--lang c is obeyed"
out=$("$MCPIDX" outline "$u/cpp/header_h/input.h")
expect_eq "$out" "$(cat "$u/cpp/header_h/expected.outline")" "outline of the header without an index"
exit 0
