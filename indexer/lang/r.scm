; R definitions and references (ours): f <- function(...) and f = function
; are functions; other file-level assignments are variables.
(binary_operator lhs: [(identifier) (string)] @name rhs: (function_definition body: (_) @body)) @definition.function
(program (binary_operator lhs: (identifier) @name) @definition.variable)
(call function: (identifier) @name (#not-any-of? @name "library" "require" "requireNamespace" "source" "function")) @reference.call
(call function: (namespace_operator rhs: (identifier) @name)) @reference.call
(call function: (identifier) @fn (#any-of? @fn "library" "require" "requireNamespace") arguments: (arguments (argument value: [(identifier) (string)] @name))) @reference.import
(call function: (identifier) @fn (#eq? @fn "source") arguments: (arguments (argument value: (string) @name))) @reference.import
(arguments (argument value: (identifier) @name)) @reference.value
(parameters (parameter name: (identifier) @local))
(braced_expression (binary_operator lhs: (identifier) @local))
