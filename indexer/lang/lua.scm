; Lua definitions and references (ours).  M.f and M:m name f and m under M.
(function_declaration name: (identifier) @name) @definition.function
(function_declaration name: (dot_index_expression field: (identifier) @name)) @definition.function
(function_declaration name: (method_index_expression method: (identifier) @name)) @definition.method
; local f = function () end, M.f = function () end
(variable_declaration (assignment_statement (variable_list name: (identifier) @name) (expression_list value: (function_definition body: (_) @body)))) @definition.function
(chunk (assignment_statement (variable_list name: (identifier) @name) (expression_list value: (function_definition body: (_) @body))) @definition.function)
(block (assignment_statement (variable_list name: (identifier) @name) (expression_list value: (function_definition body: (_) @body))) @definition.function)
(assignment_statement (variable_list name: (dot_index_expression field: (identifier) @name)) (expression_list value: (function_definition body: (_) @body))) @definition.function
; { f = function () end }
(field name: (identifier) @name value: (function_definition body: (_) @body)) @definition.function
(field name: (string content: (string_content) @name) value: (function_definition body: (_) @body)) @definition.function
; file-level locals
(chunk (variable_declaration (assignment_statement (variable_list name: (identifier) @name))) @definition.variable)
(chunk (variable_declaration (variable_list name: (identifier) @name)) @definition.variable)

(function_call name: (identifier) @name (#not-eq? @name "require")) @reference.call
(function_call name: (dot_index_expression field: (identifier) @name)) @reference.call
(function_call name: (method_index_expression method: (identifier) @name)) @reference.call
(function_call name: (identifier) @fn (#eq? @fn "require") arguments: (arguments (string content: (string_content) @name))) @reference.import
(arguments (identifier) @name) @reference.value
(parameters name: (identifier) @local)
(block (variable_declaration (assignment_statement (variable_list name: (identifier) @local))))
