; AWK definitions and references (ours): functions, and each rule (a
; pattern and its action, BEGIN, END) as a block named by its pattern.
(func_def name: (_) @name) @definition.function
(rule (pattern) @name (block)) @definition.module
(rule (block)) @definition.module
(func_call name: (_) @name) @reference.call
(directive (string) @name) @reference.import
(param_list (identifier) @local)
