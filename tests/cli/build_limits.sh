# Resource limits: a map too small grows; a full disk fails the build with a
# clear message and leaves the previous index answering.
. tests/cli/lib.sh
R=$T/repo
mkdir -p $R
i=0
while [ $i -lt 300 ]; do
	printf '/* file %d */\nint fn_%d(int x) { return x * %d; }\n' $i $i $i > $R/f$i.c
	i=$((i + 1))
done
MCPIDX_INITIAL_MAP=65536 "$MCPIDX" build "$R" -q -o $T/small || fail "build with a 64 KiB initial map"
"$MCPIDX" query $T/small def fn_299 > /dev/null || fail "answer after map growth"
# Full disk: index on a 1 MiB tmpfs (needs root and mount; skipped otherwise).
mkdir -p $T/disk
if mount -t tmpfs -o size=1m tmpfs $T/disk 2>/dev/null; then
	trap 'umount $T/disk 2>/dev/null; rm -rf "$T"' EXIT
	printf 'int tiny(void) { return 1; }\n' > $T/one.c
	mkdir -p $T/r2 && cp $T/one.c $T/r2/
	"$MCPIDX" build $T/r2 -q -o $T/disk/idx || fail "tiny build on tmpfs"
	python3 -c "
import random
for i in range(120):
    with open('$T/r2/big%d.c' % i, 'w') as f:
        for j in range(200):
            f.write('int big_%d_%d_%s(void) { return %d; }\n' % (i, j, ''.join(random.choice('abcdefgh') for _ in range(20)), j))
"
	"$MCPIDX" build $T/r2 -q -o $T/disk/idx > $T/o 2>&1 && fail "build on a full disk claimed success"
	expect_contains "$(cat $T/o)" "previous index is unchanged" "full disk message"
	"$MCPIDX" query $T/disk/idx def tiny > /dev/null || fail "old index lost after full disk"
	"$MCPIDX" query $T/disk/idx def big_1_1 > /dev/null 2>&1 && fail "half-written build visible"
	umount $T/disk
else
	echo "full-disk case skipped: cannot mount tmpfs here"
fi
echo ok
