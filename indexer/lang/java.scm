; Java definitions and references (ours; the grammar's tags.scm has no
; constructors, fields, enums, records or imports).

; ---- types ----
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.struct

; ---- members ----
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(enum_constant name: (identifier) @name) @definition.enumerator
(record_declaration parameters: (formal_parameters (formal_parameter name: (identifier) @name) @definition.field))

; A field with several declarators (`int a, b;`): the declaration is the
; first one's symbol, each later declarator its own (java.c trims spans).
(field_declaration type: (_) . declarator: (variable_declarator name: (identifier) @name)) @definition.field
(field_declaration (variable_declarator) (variable_declarator name: (identifier) @name) @definition.field)
(constant_declaration type: (_) . declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(constant_declaration (variable_declarator) (variable_declarator name: (identifier) @name) @definition.constant)

; ---- inheritance: the implementer is the enclosing type ----
(superclass (type_identifier) @name) @reference.impl
(superclass (generic_type (type_identifier) @name)) @reference.impl
(superclass (scoped_type_identifier (type_identifier) @name .)) @reference.impl
(super_interfaces (type_list (type_identifier) @name)) @reference.impl
(super_interfaces (type_list (generic_type (type_identifier) @name))) @reference.impl
(super_interfaces (type_list (scoped_type_identifier (type_identifier) @name .))) @reference.impl
(extends_interfaces (type_list (type_identifier) @name)) @reference.impl
(extends_interfaces (type_list (generic_type (type_identifier) @name))) @reference.impl
(extends_interfaces (type_list (scoped_type_identifier (type_identifier) @name .))) @reference.impl

; ---- calls: plain, qualified, `new X()`, method references ----
(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.call
(object_creation_expression type: (generic_type (type_identifier) @name)) @reference.call
(object_creation_expression type: (scoped_type_identifier (type_identifier) @name .)) @reference.call
(method_reference "::" . (identifier) @name) @reference.call

; ---- imports ----
(import_declaration (scoped_identifier) @name) @reference.import
(import_declaration (identifier) @name) @reference.import
