# make bench-build: mcpidx build beside universal-ctags and GNU Global on the
# kernel subset (wall, CPU, peak RSS, index size; no-op and one-file rebuilds
# beside `global -u`; share of ctags' function definitions found).
.PHONY: bench-build
bench: bench-build
bench-build: mcpidx
	sh bench/index/run.sh
