; TypeScript definitions and references (ours): JavaScript's tags (the
; grammar's own tags are TypeScript's plus JavaScript's) and TypeScript's
; interfaces, type aliases, enums, namespaces, signatures and overloads.
; tsx.scm includes this file (the TSX grammar has the same nodes plus JSX).

; ---- TypeScript declarations ----
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(enum_body name: (property_identifier) @name @definition.enumerator)
(enum_assignment name: (property_identifier) @name) @definition.enumerator
(internal_module name: [(identifier) (nested_identifier) (string)] @name) @definition.namespace
(module name: [(identifier) (nested_identifier) (string)] @name) @definition.module
(interface_body (method_signature name: [(property_identifier) (private_property_identifier) (string)] @name) @definition.method)
(type_alias_declaration value: (object_type (method_signature name: [(property_identifier) (private_property_identifier) (string)] @name) @definition.method))
(abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(interface_body (property_signature name: [(property_identifier) (private_property_identifier) (string)] @name) @definition.field)
(type_alias_declaration value: (object_type (property_signature name: [(property_identifier) (private_property_identifier) (string)] @name) @definition.field))
; overload signatures and `declare function`
(function_signature name: (identifier) @name) @definition.function

; ---- functions and classes ----
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(method_definition name: [(property_identifier) (private_property_identifier) (string) (computed_property_name)] @name) @definition.method
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.field

; const f = () => {}, const g = function () {}: functions, wherever they are.
(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)])) @definition.function
(variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)])) @definition.function
; const Foo = class { }
(lexical_declaration (variable_declarator name: (identifier) @name value: (class body: (_) @body))) @definition.class
; obj.method = function () {}; Foo.prototype.bar = () => {}
(expression_statement (assignment_expression left: (member_expression property: (property_identifier) @name) right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])) @definition.function
; object literal members: { get() {}, run: () => {} }
(pair key: (property_identifier) @name value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.method

; ---- top-level constants and variables ----
(program (lexical_declaration (variable_declarator name: (identifier) @name value: (_)? @body (#match? @name "^[A-Z][A-Z0-9_]*$"))) @definition.constant)
(program (lexical_declaration (variable_declarator name: (identifier) @name value: (_)? @body)) @definition.variable)
(program (variable_declaration (variable_declarator name: (identifier) @name value: (_)? @body)) @definition.variable)
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: (_)? @body (#match? @name "^[A-Z][A-Z0-9_]*$"))) @definition.constant)
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: (_)? @body)) @definition.variable)

; a named function given as a value: defineGetter(req, 'path', function path() {})
(arguments (function_expression name: (identifier) @name body: (_) @body) @definition.function)

; ---- references ----
(extends_clause value: (identifier) @name) @reference.impl
(extends_clause value: (member_expression property: (property_identifier) @name)) @reference.impl
(implements_clause [(type_identifier) @name (generic_type name: (type_identifier) @name) (nested_type_identifier name: (type_identifier) @name)]) @reference.impl
(extends_type_clause type: [(type_identifier) @name (generic_type name: (type_identifier) @name) (nested_type_identifier name: (type_identifier) @name)]) @reference.impl
(call_expression function: (identifier) @name (#not-eq? @name "require")) @reference.call
(call_expression function: (member_expression property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression constructor: (member_expression property: (property_identifier) @name)) @reference.call
(import_statement source: (string (string_fragment) @name)) @reference.import
(export_statement source: (string (string_fragment) @name)) @reference.import
(call_expression function: (identifier) @fn (#eq? @fn "require") arguments: (arguments . (string (string_fragment) @name))) @reference.import
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @name))) @reference.import

; type uses in annotations: x: User, Array<User>
(type_annotation (type_identifier) @name) @reference.type
(type_arguments (type_identifier) @name) @reference.type

; A function named as a value: a callback argument, a handler stored in an
; object or assigned to a property.
(arguments (identifier) @name (#not-any-of? @name "undefined" "null" "this")) @reference.value
(arguments (member_expression object: (this) property: (property_identifier) @name)) @reference.value
(pair value: (identifier) @name (#not-any-of? @name "undefined" "null")) @reference.value
(assignment_expression left: (member_expression) right: (identifier) @name (#not-any-of? @name "undefined" "null")) @reference.value
(assignment_expression left: (member_expression) right: (member_expression object: (this) property: (property_identifier) @name)) @reference.value
; Names local to a function.
(required_parameter pattern: (identifier) @local)
(optional_parameter pattern: (identifier) @local)
(arrow_function parameter: (identifier) @local)
(statement_block (lexical_declaration (variable_declarator name: (identifier) @local)))
(statement_block (variable_declaration (variable_declarator name: (identifier) @local)))
(object_pattern (shorthand_property_identifier_pattern) @local)
(array_pattern (identifier) @local)
