; C# definitions and references (ours; the grammar's tags.scm has no
; structs, enums, properties, fields, constructors or usings).

; ---- namespaces and types ----
(namespace_declaration name: (_) @name) @definition.namespace
(file_scoped_namespace_declaration name: (_) @name) @definition.namespace
(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(record_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type

; ---- members ----
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(destructor_declaration name: (identifier) @name) @definition.method
(operator_declaration operator: _ @name) @definition.method
(conversion_operator_declaration type: (_) @name) @definition.method
(indexer_declaration "this" @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.function
(property_declaration name: (identifier) @name) @definition.property
(event_declaration name: (identifier) @name) @definition.field
(enum_member_declaration name: (identifier) @name) @definition.enumerator
(record_declaration (parameter_list (parameter name: (identifier) @name) @definition.property))

; Several declarators (`int a, b;`): the declaration is the first one's
; symbol, each later declarator its own (csharp.c trims spans).
(field_declaration (variable_declaration type: (_) . (variable_declarator name: (identifier) @name))) @definition.field
(field_declaration (variable_declaration (variable_declarator) (variable_declarator name: (identifier) @name) @definition.field))
(event_field_declaration (variable_declaration type: (_) . (variable_declarator name: (identifier) @name))) @definition.field
(event_field_declaration (variable_declaration (variable_declarator) (variable_declarator name: (identifier) @name) @definition.field))

; ---- base lists: the implementer is the enclosing type ----
(base_list (identifier) @name) @reference.impl
(base_list (generic_name (identifier) @name)) @reference.impl
(base_list (qualified_name name: (identifier) @name)) @reference.impl
(base_list (qualified_name name: (generic_name (identifier) @name))) @reference.impl
(base_list (primary_constructor_base_type type: (identifier) @name)) @reference.impl
(base_list (primary_constructor_base_type type: (generic_name (identifier) @name))) @reference.impl

; ---- calls: plain, member, generic, `new X()` ----
(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (generic_name (identifier) @name)) @reference.call
(invocation_expression function: (member_access_expression name: (identifier) @name)) @reference.call
(invocation_expression function: (member_access_expression name: (generic_name (identifier) @name))) @reference.call
(invocation_expression function: (conditional_access_expression (member_binding_expression name: (identifier) @name))) @reference.call
(object_creation_expression type: (identifier) @name) @reference.call
(object_creation_expression type: (generic_name (identifier) @name)) @reference.call
(object_creation_expression type: (qualified_name name: (identifier) @name)) @reference.call
(object_creation_expression type: (qualified_name name: (generic_name (identifier) @name))) @reference.call

; ---- usings ----
(using_directive !name (qualified_name) @name) @reference.import
(using_directive !name (identifier) @name) @reference.import
(using_directive name: (identifier) (qualified_name) @name) @reference.import
(using_directive name: (identifier) (identifier) @name) @reference.import
