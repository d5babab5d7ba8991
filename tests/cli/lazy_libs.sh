#!/bin/sh
# libcurl and libmicrohttpd are loaded when first needed (mcp/dl.c), not
# linked: the binary does not name them, a start that serves stdio or
# answers a query loads neither, and when one cannot be loaded the command
# that needs it says which file and why instead of failing at start.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

if command -v ldd > /dev/null; then
	libs=$(ldd "$MCPIDX")
	case "$libs" in *libcurl*|*libmicrohttpd*|*libgnutls*)
		fail "the binary links libcurl, libmicrohttpd or GnuTLS: $libs";; esac
	expect_contains "$libs" "libc.so" "ldd lists the binary's libraries"
	# Where the -dev package ships an archive the library is linked from
	# it (the Makefile's LINK_LIBS): a start maps and relocates no file
	# of its own.
	for l in lmdb jansson zstd; do
		case "$(${CC:-cc} -print-file-name=lib$l.a)" in /*)
			case "$libs" in *lib$l.so*) fail "lib$l linked shared though lib$l.a is there: $libs";; esac;;
		esac
	done
fi

# From libstemmer's archive only the English stemmer is linked (the
# tokenizer calls it by its own entry points): the other languages' tables
# are pointers a position-independent binary relocates at every start.
case "$(${CC:-cc} -print-file-name=libstemmer.a)" in /*)
	if command -v nm > /dev/null; then
		syms=$(nm "$MCPIDX" 2>/dev/null | grep -c '_UTF_8_stem$')
		[ "$syms" = 1 ] || fail "expected one Snowball stemmer linked (English), found $syms"
		nm "$MCPIDX" | grep -q ' english_UTF_8_stem$' || fail "the English stemmer is not linked"
	fi;;
esac

# A query over stdio maps neither library.
cp -r "$here/../../testdata/mcp" "$T/repo"
"$MCPIDX" build "$T/repo" -q || fail "build"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' |
	LD_DEBUG=files "$MCPIDX" serve "$T/repo" > "$T/out" 2> "$T/ld"
expect_contains "$(cat "$T/out")" '"serverInfo"' "initialize answered"
expect_contains "$(cat "$T/ld")" "libc.so" "LD_DEBUG shows the libraries loaded"
case "$(cat "$T/ld")" in *libcurl*|*libmicrohttpd*) fail "serve over stdio loaded libcurl or libmicrohttpd";; esac

# serve --http without its library: a clear error, exit 1.
MCPIDX_LIBMICROHTTPD=/nonexistent/libmicrohttpd.so.12 \
	"$MCPIDX" serve "$T/repo" --http 127.0.0.1:0 > "$T/out" 2> "$T/err" &&
	fail "serve --http started without libmicrohttpd"
expect_contains "$(cat "$T/err")" "serve --http needs /nonexistent/libmicrohttpd.so.12, which cannot be loaded" \
	"serve --http without libmicrohttpd"

# An HTTP upstream without libcurl is skipped with the reason; a stdio
# upstream in the same file is still read; a library without libcurl's
# entry points is refused, not called.
cat > "$T/servers.json" <<JSON
{"mcpServers": {"web": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
 "local": {"command": "$MCPIDX", "args": ["serve", "$T/repo"]}}}
JSON
MCPIDX_LIBCURL=/nonexistent/libcurl.so.4 \
	"$MCPIDX" build --servers "$T/servers.json" -o "$T/idx" > "$T/out" 2> "$T/err" || fail "catalog build: $(cat "$T/err")"
expect_contains "$(cat "$T/err")" "server 'web' skipped: an HTTP upstream server needs /nonexistent/libcurl.so.4, which cannot be loaded" \
	"HTTP upstream without libcurl"
expect_contains "$(cat "$T/out")" "from 2 servers (1 failed" "the stdio upstream still read"
libc=$(ldd "$MCPIDX" 2> /dev/null | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
if [ -n "$libc" ]; then
	MCPIDX_LIBCURL=$libc "$MCPIDX" build --servers "$T/servers.json" -o "$T/idx2" > "$T/out" 2> "$T/err" ||
		fail "catalog build: $(cat "$T/err")"
	expect_contains "$(cat "$T/err")" "which has no curl_global_init" "a library that is not libcurl"
fi
# With libcurl: the request is made (and fails to connect: nothing listens).
"$MCPIDX" build --servers "$T/servers.json" -o "$T/idx3" > "$T/out" 2> "$T/err" || fail "catalog build"
expect_contains "$(cat "$T/err")" "server 'web' skipped: HTTP request to server 'web' failed" "libcurl loaded"
echo ok
