# mcpidx - a plain Makefile.
#   make            build ./mcpidx (installs missing dependencies first)
#   make run        build, index this repository, show it answering
#   make test       the whole test suite, then one pass under ASan+UBSan (built with clang)
#   make CC=clang test   the same with every object built by clang (its own tree: build/clang/)
#   make bench      benchmarks beside named peers (bench/*.mk)
#   make install PREFIX=/usr/local

PREFIX ?= /usr/local
CC ?= cc
B := build
TS := $(B)/ts
PKGS := lmdb libxxhash msgpack jansson libedit libmicrohttpd libcurl libzstd

WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation -Wno-unknown-warning-option
OPT ?= -O2 -g
CFLAGS_BASE = -std=gnu11 $(WARN) -D_GNU_SOURCE -I. -I$(TS)/runtime/vendor/tree-sitter/lib/include
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libcurl and libmicrohttpd are not linked: mcp/dl.c loads them (by the
# sonames read off the installed libraries) when an HTTP upstream or
# `serve --http` first needs them, so no other start pays for them and what
# they pull in.
DL_PKGS := libmicrohttpd libcurl
# The other libraries are linked from their static archives (the -dev
# packages ship them) where the compiler finds one, else as shared ones:
# each shared library a start maps and relocates costs a process that
# answers one request (`serve` over stdio, `query`) about 0.2 ms on a
# 2-core virtual machine, and there were ten (docs/benchmarks.md).
# libedit's archive needs libtinfo's and libbsd's, and libbsd's libmd's.
# Worked out when the first link runs, once (on a fresh machine the
# archives appear only after this make has installed the -dev packages).
LINK_LIBS := lmdb xxhash msgpackc jansson edit tinfo bsd md zstd stemmer
link_lib = $(if $(filter /%,$(shell $(CC) -print-file-name=lib$(1).a)),-l:lib$(1).a,-l$(1))
LIBS = $(eval LIBS := $(foreach l,$(LINK_LIBS),$(call link_lib,$(l))) -lpthread -lm -ldl)$(LIBS)
soname = $(shell f=$$(pkg-config --variable=libdir $(1) 2>/dev/null)/$(2); \
	[ -f "$$f" ] && readelf -d "$$f" 2>/dev/null | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
DL_SONAMES = -DMI_CURL_SONAME='"$(or $(call soname,libcurl,libcurl.so),libcurl.so.4)"' \
	-DMI_MHD_SONAME='"$(or $(call soname,libmicrohttpd,libmicrohttpd.so),libmicrohttpd.so.12)"'

# Grammars: name:dir-under-build/ts holding parser.c [scanner.c].
GRAMMARS := c:c/src cpp:cpp/src python:python/src go:go/src rust:rust/src \
	javascript:javascript/src typescript:typescript/typescript/src \
	tsx:typescript/tsx/src java:java/src c_sharp:c_sharp/src swift:swift/src \
	ruby:ruby/src php:php/php/src bash:bash/src kotlin:kotlin/src \
	markdown:markdown/tree-sitter-markdown/src \
	markdown_inline:markdown/tree-sitter-markdown-inline/src \
	devicetree:devicetree/src yaml:yaml/src json:json/src toml:toml/src \
	css:css/src html:html/src lua:lua/src hcl:hcl/src scss:scss/src xml:xml/xml/src \
	svelte:svelte/src r:r/src powershell:powershell/src ocaml:ocaml/grammars/ocaml/src \
	ocaml_interface:ocaml/grammars/interface/src \
	awk:awk/src

# Our objects and binaries per compiler: the default cc writes build/obj etc.
# and ./mcpidx; another compiler (CC=clang) gets its own tree under build/.
ifeq ($(notdir $(CC)),cc)
O := $(B)
BIN := mcpidx
else ifeq ($(notdir $(CC)),gcc)
O := $(B)
BIN := mcpidx
else
O := $(B)/$(notdir $(CC))
BIN := $(O)/mcpidx
endif
# The sanitized pass is built with clang (falls back to CC where it is absent),
# so every `make test` also proves the code builds and passes with clang.
SAN_CC ?= $(shell command -v clang >/dev/null 2>&1 && echo clang || echo $(CC))

DEPS_STAMP := $(TS)/.deps-$(shell cat tools/deps.lock tools/fetch-deps.sh | cksum | cut -d' ' -f1)

SRC := $(sort $(wildcard format/*.c indexer/*.c indexer/lang/*.c query/*.c mcp/*.c tools/*.c))
LIB_SRC := $(filter-out tools/main.c,$(SRC))
QUERIES := $(sort $(wildcard indexer/lang/*.scm))
HDRS := $(wildcard */*.h */*/*.h)

# Two flavours of our objects: release (build/obj) and sanitized (build/asan).
OBJ := $(SRC:%.c=$(O)/obj/%.o) $(O)/obj/gen/queries.o
ASAN_OBJ := $(SRC:%.c=$(O)/asan/%.o) $(O)/asan/gen/queries.o
GRAMMAR_LIB := $(B)/grammars.a

.PHONY: all deps run test test-fast test-asan unit cli mcp-test bench install clean valgrind fuzz
all: $(BIN)

deps: $(DEPS_STAMP)
$(DEPS_STAMP): tools/deps.lock tools/fetch-deps.sh
	sh tools/fetch-deps.sh
	rm -f $(TS)/.deps-*
	touch $@

# ---- tree-sitter runtime and grammars (third-party: no -Werror, -O2) ----
$(B)/g/runtime.o: $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -w -std=gnu11 -I$(TS)/runtime/vendor/tree-sitter/lib/include \
		-I$(TS)/runtime/vendor/tree-sitter/lib/src -c $(TS)/runtime/vendor/tree-sitter/lib/src/lib.c -o $@

# A grammar object depends on its own package (the .ok stamp fetch-deps.sh
# writes), so adding a grammar compiles that grammar only.  The grammars of
# FAST_GRAMMARS read indexer/lang/grammar_fast.h first: an ASCII fast path
# for the character sets their lexers search (3.6% of a C parse).
FAST_GRAMMARS := c cpp
# LEX_GRAMMARS read indexer/lang/grammar_lex.h before it: the lexer's advance to
# an ASCII character in line (the runtime's per-character calls were a
# tenth of a C parse).  Their tree_sitter/parser.h must be the runtime's
# ABI (ts_dense.c checks the lexer layout it relies on).
LEX_GRAMMARS := c
define grammar_rule
$(TS)/$(firstword $(subst /, ,$(2)))/.ok: | $(DEPS_STAMP)
$(B)/g/$(1)_parser.o: $(TS)/$(firstword $(subst /, ,$(2)))/.ok $(if $(filter $(1),$(FAST_GRAMMARS)),indexer/lang/grammar_fast.h) $(if $(filter $(1),$(LEX_GRAMMARS)),indexer/lang/grammar_lex.h indexer/lang/ts_lexer.h) | $(DEPS_STAMP)
	@mkdir -p $(B)/g
	$(CC) -O2 -w -std=gnu11 -I$(TS)/$(2) \
		$(if $(filter $(1),$(LEX_GRAMMARS)),-I$(TS)/runtime/vendor/tree-sitter/lib/include -include indexer/lang/grammar_lex.h) \
		$(if $(filter $(1),$(FAST_GRAMMARS)),-include indexer/lang/grammar_fast.h) -c $(TS)/$(2)/parser.c -o $$@
$(B)/g/$(1)_scanner.o: $(TS)/$(firstword $(subst /, ,$(2)))/.ok | $(DEPS_STAMP)
	@mkdir -p $(B)/g
	if [ -f $(TS)/$(2)/scanner.c ]; then $(CC) -O2 -w -std=gnu11 -I$(TS)/$(2) -c $(TS)/$(2)/scanner.c -o $$@; \
	else echo 'static int mi_no_scanner;' | $(CC) -x c -c - -o $$@; fi
GRAMMAR_OBJ += $(B)/g/$(1)_parser.o $(B)/g/$(1)_scanner.o
endef
$(foreach g,$(GRAMMARS),$(eval $(call grammar_rule,$(word 1,$(subst :, ,$(g))),$(word 2,$(subst :, ,$(g))))))
# The C grammar once more with the runtime's own advance, as
# mi_ts_c_runtime_lexer, for test_lang to compare trees and positions with.
$(B)/g/c_plain_parser.o: $(TS)/c/.ok indexer/lang/grammar_fast.h | $(DEPS_STAMP)
	@mkdir -p $(B)/g
	$(CC) -O2 -w -std=gnu11 -I$(TS)/c/src -include indexer/lang/grammar_fast.h \
		-Dtree_sitter_c=mi_ts_c_runtime_lexer -c $(TS)/c/src/parser.c -o $@
GRAMMAR_OBJ += $(B)/g/c_plain_parser.o

$(GRAMMAR_LIB): $(GRAMMAR_OBJ) $(B)/g/runtime.o
	rm -f $@
	ar rcs $@ $^

# ---- our queries, embedded as C strings ----
$(B)/gen/queries.c: $(QUERIES) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $(QUERIES) > $@

$(O)/obj/gen/queries.o: $(B)/gen/queries.c
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -c $< -o $@
$(O)/asan/gen/queries.o: $(B)/gen/queries.c
	@mkdir -p $(dir $@)
	$(SAN_CC) -O1 -g -c $< -o $@

# ---- our code ----
$(O)/obj/%.o: %.c $(HDRS) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(CFLAGS_BASE) $(PKG_CFLAGS) -c $< -o $@

$(O)/obj/mcp/dl.o $(O)/asan/mcp/dl.o: CFLAGS_BASE += $(DL_SONAMES)

# indexer/ts_dense.c reads the runtime's TSLanguage (lib/src/parser.h).
$(O)/obj/indexer/ts_dense.o $(O)/asan/indexer/ts_dense.o: CFLAGS_BASE += -iquote $(TS)/runtime/vendor/tree-sitter/lib/src
# With libstemmer's archive the tokenizer calls the English stemmer's own
# entry points, so the other 28 languages' tables (300 KB of pointers a
# start relocates) are not linked; the shared library does not export them.
$(O)/obj/format/tokenize.o $(O)/asan/format/tokenize.o: CFLAGS_BASE += $(if $(filter -l:%,$(call link_lib,stemmer)),-DMI_STEM_DIRECT)

# MI_POSIX_ONLY: the sanitized pass takes the POSIX fallbacks of Linux calls.
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -DMI_POSIX_ONLY
$(O)/asan/%.o: %.c $(HDRS) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(SAN_CC) -O1 -g $(SAN) $(CFLAGS_BASE) $(PKG_CFLAGS) -c $< -o $@

$(BIN): $(OBJ) $(GRAMMAR_LIB) $(EXTRA_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) -o $@ $(OBJ) $(EXTRA_OBJ) $(GRAMMAR_LIB) $(LIBS)

$(O)/mcpidx-asan: $(ASAN_OBJ) $(GRAMMAR_LIB)
	$(SAN_CC) -g $(SAN) -o $@ $(ASAN_OBJ) $(GRAMMAR_LIB) $(LIBS)

# ---- unit tests: tests/unit/test_*.c, each its own binary over the library ----
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
UNIT_ASAN := $(UNIT_SRC:tests/unit/%.c=$(O)/tests-asan/%)
LIB_OBJ := $(filter-out $(O)/obj/tools/main.o,$(OBJ))
LIB_ASAN := $(filter-out $(O)/asan/tools/main.o,$(ASAN_OBJ))

$(O)/tests/%: tests/unit/%.c tests/unit/test.h $(LIB_OBJ) $(GRAMMAR_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(LIB_OBJ) $(GRAMMAR_LIB) $(LIBS)
$(O)/tests-asan/%: tests/unit/%.c tests/unit/test.h $(LIB_ASAN) $(GRAMMAR_LIB)
	@mkdir -p $(dir $@)
	$(SAN_CC) -O1 -g $(SAN) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(LIB_ASAN) $(GRAMMAR_LIB) $(LIBS)

# The regression replayer includes the fuzz targets' code.
$(O)/tests/test_fuzz_regress $(O)/tests-asan/test_fuzz_regress: $(wildcard tests/fuzz/*.c) tests/fuzz/fuzz.h

# The conformance fixture server of tests/mcp (the suite's tools, prompts and
# resources over the mcp/ library).
$(O)/mcp-fixture: tests/mcp/fixture.c $(LIB_OBJ) $(GRAMMAR_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(CFLAGS_BASE) $(PKG_CFLAGS) -o $@ $< $(LIB_OBJ) $(GRAMMAR_LIB) $(LIBS)

# ---- entry points ----
run: mcpidx
	sh tools/demo.sh

# tests/run.sh finds the binaries through MI_OUT (object tree) and MI_BIN.
RUN_TESTS = MI_OUT=$(O) MI_BIN=$(BIN) sh tests/run.sh
test: $(BIN) $(UNIT_BIN) $(O)/mcpidx-asan $(UNIT_ASAN) $(O)/mcp-fixture
	sh tests/compile/deps.sh
	$(RUN_TESTS)

# Quick loop while developing: no sanitized pass.
test-fast: $(BIN) $(UNIT_BIN) $(O)/mcp-fixture
	MI_SKIP_ASAN=1 $(RUN_TESTS)

valgrind: $(BIN) $(UNIT_BIN)
	MI_VALGRIND=1 MI_SKIP_ASAN=1 $(RUN_TESTS)

# libFuzzer targets (clang): make fuzz, then run build/fuzz/fuzz_NAME CORPUS_DIR.
# make fuzz also runs the damaged-index target for FUZZ_SECONDS (0: build only).
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 60
fuzz: $(FUZZ_BIN)
	@if [ "$(FUZZ_SECONDS)" != 0 ]; then mkdir -p $(B)/fuzz-corpus/index && \
	  $(B)/fuzz/fuzz_index_open -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 \
	    -artifact_prefix=$(B)/fuzz/ $(B)/fuzz-corpus/index tests/fuzz/corpus/index; fi
$(B)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(LIB_SRC) $(B)/gen/queries.c $(GRAMMAR_LIB)
	@mkdir -p $(dir $@)
	clang -g -O1 -fsanitize=fuzzer,address,undefined -Wno-unknown-warning-option $(CFLAGS_BASE) $(PKG_CFLAGS) \
	  $(DL_SONAMES) -iquote $(TS)/runtime/vendor/tree-sitter/lib/src \
	  -o $@ $< $(LIB_SRC) $(B)/gen/queries.c $(GRAMMAR_LIB) $(LIBS)

-include $(sort $(wildcard bench/*.mk))

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 mcpidx $(DESTDIR)$(PREFIX)/bin/mcpidx
	install -m 644 docs/mcpidx.1 $(DESTDIR)$(PREFIX)/share/man/man1/mcpidx.1

clean:
	rm -rf $(B)/obj $(B)/asan $(B)/tests $(B)/tests-asan $(B)/gen $(B)/mcpidx-asan mcpidx $(B)/clang
