#!/bin/sh
# A data.mdb whose branch pages each hold one key, one at a time: LMDB's
# own assertion in mdb_page_search_root would abort the process; query and
# serve end the call with "truncated or damaged" instead and keep running
# (tests/security/damage.py branch).
. tests/cli/lib.sh
case $MCPIDX in /*) ;; *) MCPIDX=$(pwd)/$MCPIDX ;; esac
python3 tests/security/damage.py "$MCPIDX" "$T" index branch || fail "see above"
