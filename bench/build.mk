# make bench-build: mcpidx build beside universal-ctags, GNU Global and SQLite
# FTS5 on the kernel subset, or on the whole linux-source-6.1 tree with
# `make bench-build KERNEL=full` (wall, CPU, peak RSS, index size and its
# parts; no-op and one-file rebuilds beside `global -u`; share of ctags'
# function definitions found).
.PHONY: bench-build
bench: bench-build
bench-build: mcpidx
	KERNEL=$(KERNEL) sh bench/index/run.sh
