; Go definitions and references (ours).  Methods take their receiver's type
; as parent (go.c); exported names start with a capital letter.
(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
; A func literal given a name: handler := func(...) {...}, var f = func...
(short_var_declaration left: (expression_list . (identifier) @name) right: (expression_list . (func_literal body: (_) @body))) @definition.function
(var_spec name: (identifier) @name value: (expression_list . (func_literal body: (_) @body))) @definition.function

(type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list) @body)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type) @body) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

(field_declaration_list (field_declaration name: (field_identifier) @name) @definition.field)
; embedded field: struct { sync.Mutex; Base }
(field_declaration_list (field_declaration !name type: [(type_identifier) @name (qualified_type name: (type_identifier) @name) (pointer_type (type_identifier) @name)]) @definition.field)
(interface_type (method_elem name: (field_identifier) @name) @definition.method)

(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))

; Calls: f(), pkg.F(), obj.M(); composite literals User{} are constructions.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression field: (field_identifier) @name)) @reference.call
(composite_literal type: (type_identifier) @name) @reference.call
(composite_literal type: (qualified_type name: (type_identifier) @name)) @reference.call

; Embedding an interface in an interface, a type in a struct.
(interface_type (type_elem (type_identifier) @name)) @reference.impl

(import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @name)) @reference.import
(import_spec path: (raw_string_literal) @name) @reference.import

; A function named as a value: a callback argument, a method value
; (s.handle), a composite literal's field value, an assignment.
(argument_list (identifier) @name (#not-any-of? @name "nil" "true" "false" "iota")) @reference.value
(argument_list (selector_expression field: (field_identifier) @name)) @reference.value
(keyed_element value: (literal_element (identifier) @name (#not-any-of? @name "nil" "true" "false"))) @reference.value
(keyed_element value: (literal_element (selector_expression field: (field_identifier) @name))) @reference.value
(literal_value (literal_element (identifier) @name (#not-any-of? @name "nil" "true" "false"))) @reference.value
(assignment_statement right: (expression_list (identifier) @name (#not-any-of? @name "nil" "true" "false"))) @reference.value
(assignment_statement right: (expression_list (selector_expression field: (field_identifier) @name))) @reference.value
(short_var_declaration right: (expression_list (identifier) @name (#not-any-of? @name "nil" "true" "false"))) @reference.value
(short_var_declaration right: (expression_list (selector_expression field: (field_identifier) @name))) @reference.value
(literal_value (literal_element (selector_expression field: (field_identifier) @name))) @reference.value
(return_statement (expression_list (identifier) @name (#not-any-of? @name "nil" "true" "false"))) @reference.value
(var_spec value: (expression_list (identifier) @name (#not-any-of? @name "nil" "true" "false"))) @reference.value
(var_spec value: (expression_list (selector_expression field: (field_identifier) @name))) @reference.value
(binary_expression operator: ["==" "!="] [left: (identifier) right: (identifier)] @name (#not-any-of? @name "nil" "true" "false")) @reference.value
; Names local to a function.
(parameter_declaration name: (identifier) @local)
(variadic_parameter_declaration name: (identifier) @local)
(short_var_declaration left: (expression_list (identifier) @local))
(range_clause left: (expression_list (identifier) @local))
(block (statement_list (var_declaration (var_spec name: (identifier) @local))))
(block (statement_list (const_declaration (const_spec name: (identifier) @local))))
