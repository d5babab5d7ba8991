#!/bin/sh
# build's and status's number options are parsed strictly: --max-size abc,
# 0, -1, 1e3 or past 1 GiB, -j abc, -5, 0, 2147483648 or past 64, and a
# --progress-fd that is not a number or not open are usage errors (exit 2,
# nothing built) naming the option; they used to mean the default, no cap,
# 1 byte or any thread count without a word.  Good values still work.
. tests/cli/lib.sh
R=$T/repo
mkdir -p $R
echo 'int main(void) { return 0; }' > $R/main.c
bad() { # OPTION VALUE [COMMAND]
	"$MCPIDX" ${3:-build} "$R" "$1" "$2" > $T/o 2> $T/e
	rc=$?
	[ $rc -eq 2 ] || fail "${3:-build} $1 '$2' exited $rc: $(cat $T/e)"
	grep -q -e "$1" $T/e || fail "${3:-build} $1 '$2' message: $(cat $T/e)"
	[ -e $R/.mcpidx ] && [ "${3:-build}" = build ] && fail "build $1 '$2' built an index"
	return 0
}
for v in abc 0 -1 1e3 '' ' 7' 1073741825 99999999999999999999 18446744073709551615 0x10 12k; do
	bad --max-size "$v"
done
for v in abc -5 0 65 2147483648 4294967297 1.5; do
	bad --jobs "$v"
	bad -j "$v"
done
bad --progress-fd abc
bad --progress-fd -1
bad --progress-fd 2147483648
bad --progress-fd 77
"$MCPIDX" build -q "$R" -j 2 --max-size 1073741824 || fail "good values refused"
"$MCPIDX" build -q "$R" --max-size 1000 --progress-fd 1 > /dev/null || fail "--progress-fd 1 refused"
for v in abc 0 -1 1e3; do
	bad --max-size "$v" status
done
"$MCPIDX" status "$R" --max-size 4096 > /dev/null 2>&1 || fail "status --max-size 4096"
echo ok
