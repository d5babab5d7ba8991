#!/bin/sh
# The load-balancer tier: stateless `mcpidx serve --http` replicas behind
# HAProxy on loopback (lb.py says what is tested).  HAProxy comes from
# Debian: installed here when missing (root and apt-get), else every case
# is SKIPped with the reason.  Prints PASS/FAIL/SKIP lines.
#   MCPIDX=/path/to/mcpidx sh tests/lb/run.sh
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
MCPIDX=${MCPIDX:-$top/mcpidx}
haproxy_bin() { command -v haproxy || { [ -x /usr/sbin/haproxy ] && echo /usr/sbin/haproxy; }; }
if [ -z "$(haproxy_bin)" ]; then
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "lb tests: installing the Debian package haproxy"
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy; } \
			> "$top/build/lb-apt.log" 2>&1
	fi
fi
HAPROXY=$(haproxy_bin)
if [ -z "$HAPROXY" ]; then
	echo "SKIP lb/all: haproxy is not installed and could not be (needs root and apt-get: apt-get install haproxy)"
	exit 0
fi
if ! "$HAPROXY" -c -f "$top/docs/haproxy.cfg" > "$top/build/lb-check.log" 2>&1; then
	echo "FAIL lb/sample-config: haproxy -c rejects docs/haproxy.cfg: $(tail -3 "$top/build/lb-check.log")"
	exit 1
fi
echo "PASS lb/sample-config"
# A private copy: a concurrent make may relink the binary mid-run.
bindir=$(mktemp -d "${TMPDIR:-/tmp}/mcpidx-lb-bin.XXXXXX")
trap 'rm -rf "$bindir"' EXIT
cp "$MCPIDX" "$bindir/mcpidx"
MCPIDX=$bindir/mcpidx HAPROXY=$HAPROXY TOP=$top timeout 300 python3 "$here/lb.py"
