# make bench-hook: on the kernel subset, the pre-commit hook's incremental
# build after one changed file beside `global -u` (GNU Global), and the time a
# packed artifact takes to open and answer its first query.  Targets: hook
# < 0.5 s, first answer from a packed file < 20 ms.
.PHONY: bench-hook
bench: bench-hook
bench-hook: mcpidx
	sh bench/hook/run.sh
