#!/bin/sh
# A packed index cut at 20 offsets past its first page (trailer included): build, build --force, query,
# serve, status and verify (pack for a packed file) each end with a clear
# message and never on a signal (tests/security/damage.py).
. tests/cli/lib.sh
case $MCPIDX in /*) ;; *) MCPIDX=$(pwd)/$MCPIDX ;; esac
python3 tests/security/damage.py "$MCPIDX" "$T" pack truncate || fail "see above"
