; Kotlin definitions and references (ours; the grammar ships no tags query).

; ---- types: enum before class, both are class_declaration ----
(class_declaration name: (identifier) @name (enum_class_body)) @definition.enum
(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration "class" name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.object
(companion_object) @definition.object
(type_alias type: (identifier) @name) @definition.type

; ---- functions and members ----
(function_declaration name: (identifier) @name) @definition.function
(secondary_constructor "constructor" @name) @definition.method
(enum_entry . (identifier) @name) @definition.enumerator

; properties of classes, objects and files, not locals
(class_body (property_declaration (variable_declaration . (identifier) @name)) @definition.property)
(enum_class_body (property_declaration (variable_declaration . (identifier) @name)) @definition.property)
(source_file (property_declaration (variable_declaration . (identifier) @name)) @definition.variable)
; `class A(val x: Int)`: constructor parameters that are properties
(class_parameter "val" . (identifier) @name) @definition.property
(class_parameter "var" . (identifier) @name) @definition.property

; ---- supertypes: the implementer is the enclosing class or object ----
(delegation_specifier (user_type (identifier) @name .)) @reference.impl
(delegation_specifier (user_type (identifier) @name . (type_arguments))) @reference.impl
(delegation_specifier (constructor_invocation (user_type (identifier) @name .))) @reference.impl
(delegation_specifier (constructor_invocation (user_type (identifier) @name . (type_arguments)))) @reference.impl
(delegation_specifier (explicit_delegation (user_type (identifier) @name .))) @reference.impl
(delegation_specifier (explicit_delegation (user_type (identifier) @name . (type_arguments)))) @reference.impl

; ---- calls: plain (constructors look the same), member calls ----
(call_expression . (identifier) @name) @reference.call
(call_expression . (navigation_expression (identifier) @name .)) @reference.call

; ---- imports ----
(import (qualified_identifier) @name) @reference.import
