; PHP definitions and references (ours; the grammar's tags.scm has no
; constants, enums or imports and tags methods as functions).

; ---- namespaces and types ----
(namespace_definition name: (namespace_name) @name) @definition.namespace
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(enum_case name: (name) @name) @definition.enumerator

; ---- functions and methods ----
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method

; ---- properties and constants: one symbol per element (`$a, $b`); the
; declaration stands for its first element (php.c trims spans) ----
(property_declaration type: (_) . (property_element name: (variable_name (name) @name))) @definition.field
(property_declaration [(visibility_modifier) (static_modifier) (readonly_modifier) (var_modifier)] . (property_element name: (variable_name (name) @name))) @definition.field
(property_declaration (property_element) (property_element name: (variable_name (name) @name)) @definition.field)
(property_promotion_parameter name: (variable_name (name) @name)) @definition.field
(const_declaration "const" . (const_element (name) @name)) @definition.constant
(const_declaration (const_element) (const_element (name) @name) @definition.constant)

; ---- inheritance and trait use: the implementer is the enclosing type ----
(base_clause [(name) @name (qualified_name (name) @name)]) @reference.impl
(class_interface_clause [(name) @name (qualified_name (name) @name)]) @reference.impl
(use_declaration [(name) @name (qualified_name (name) @name)]) @reference.impl

; ---- calls: functions, methods, static methods, `new X` ----
(function_call_expression function: [(name) @name (qualified_name (name) @name)]) @reference.call
(member_call_expression name: (name) @name) @reference.call
(nullsafe_member_call_expression name: (name) @name) @reference.call
(scoped_call_expression name: (name) @name) @reference.call
(object_creation_expression (name) @name (#not-any-of? @name "static" "self" "parent")) @reference.call
(object_creation_expression (qualified_name (name) @name)) @reference.call

; ---- imports: use clauses and include/require of a literal path ----
(namespace_use_clause (qualified_name) @name) @reference.import
(namespace_use_clause . (name) @name) @reference.import
(include_expression [(string (string_content) @name) (binary_expression right: (string (string_content) @name))]) @reference.import
(include_once_expression [(string (string_content) @name) (binary_expression right: (string (string_content) @name))]) @reference.import
(require_expression [(string (string_content) @name) (binary_expression right: (string (string_content) @name))]) @reference.import
(require_once_expression [(string (string_content) @name) (binary_expression right: (string (string_content) @name))]) @reference.import
