#!/bin/sh
# A data.mdb with one of 50 bytes flipped: build, build --force, query,
# serve, status and verify (pack for a packed file) each end with a clear
# message and never on a signal (tests/security/damage.py).
. tests/cli/lib.sh
case $MCPIDX in /*) ;; *) MCPIDX=$(pwd)/$MCPIDX ;; esac
python3 tests/security/damage.py "$MCPIDX" "$T" index flip || fail "see above"
