; JavaScript definitions and references (ours).  In an ES module (a file
; with import/export) top-level names are private unless exported
; (javascript.c); #names are private class members.

; ---- functions and classes ----
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class
(method_definition name: [(property_identifier) (private_property_identifier) (string) (computed_property_name)] @name) @definition.method
(field_definition property: [(property_identifier) (private_property_identifier)] @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @definition.field

; const f = () => {}, const g = function () {}: functions, wherever they are.
(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)])) @definition.function
(variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)])) @definition.function
; const Foo = class { }
(lexical_declaration (variable_declarator name: (identifier) @name value: (class body: (_) @body))) @definition.class
; obj.method = function () {}; Foo.prototype.bar = () => {}
(expression_statement (assignment_expression left: (member_expression property: (property_identifier) @name) right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @definition.function
; a named function given as a value: defineGetter(req, 'path', function path() {})
(arguments (function_expression name: (identifier) @name body: (_) @body) @definition.function)
; object literal members: { get() {}, run: () => {} }
(pair key: (property_identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method

; ---- top-level constants and variables ----
(program (lexical_declaration (variable_declarator name: (identifier) @name value: (_)? @body (#match? @name "^[A-Z][A-Z0-9_]*$"))) @definition.constant)
(program (lexical_declaration (variable_declarator name: (identifier) @name value: (_)? @body)) @definition.variable)
(program (variable_declaration (variable_declarator name: (identifier) @name value: (_)? @body)) @definition.variable)
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: (_)? @body (#match? @name "^[A-Z][A-Z0-9_]*$"))) @definition.constant)
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: (_)? @body)) @definition.variable)

; ---- references ----
(class_heritage (identifier) @name) @reference.impl
(class_heritage (member_expression property: (property_identifier) @name)) @reference.impl
(call_expression function: (identifier) @name (#not-eq? @name "require")) @reference.call
(call_expression function: (member_expression property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression constructor: (member_expression property: (property_identifier) @name)) @reference.call
(import_statement source: (string (string_fragment) @name)) @reference.import
(export_statement source: (string (string_fragment) @name)) @reference.import
(call_expression function: (identifier) @fn (#eq? @fn "require") arguments: (arguments . (string (string_fragment) @name))) @reference.import
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @name))) @reference.import

; A function named as a value: a callback argument, a handler stored in an
; object or assigned to a property, a JSX handler.
(arguments (identifier) @name (#not-any-of? @name "undefined" "null" "this")) @reference.value
(arguments (member_expression object: (this) property: (property_identifier) @name)) @reference.value
(pair value: (identifier) @name (#not-any-of? @name "undefined" "null")) @reference.value
(assignment_expression left: (member_expression) right: (identifier) @name (#not-any-of? @name "undefined" "null")) @reference.value
(assignment_expression left: (member_expression) right: (member_expression object: (this) property: (property_identifier) @name)) @reference.value
; Names local to a function.
(formal_parameters (identifier) @local)
(formal_parameters (assignment_pattern left: (identifier) @local))
(arrow_function parameter: (identifier) @local)
(statement_block (lexical_declaration (variable_declarator name: (identifier) @local)))
(statement_block (variable_declaration (variable_declarator name: (identifier) @local)))
(object_pattern (shorthand_property_identifier_pattern) @local)
(array_pattern (identifier) @local)
; onClick={handleClick}
(jsx_attribute (jsx_expression (identifier) @name)) @reference.value
(jsx_attribute (jsx_expression (member_expression object: (this) property: (property_identifier) @name))) @reference.value
