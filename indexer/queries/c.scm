; C definitions and references (ours; the grammar's tags.scm tags
; prototypes as definitions and has no calls).
(function_definition) @definition.function
(declaration declarator: (function_declarator)) @definition.prototype
(declaration declarator: (pointer_declarator declarator: (function_declarator))) @definition.prototype
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(type_definition type: (struct_specifier !name body: (field_declaration_list)) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (union_specifier !name body: (field_declaration_list)) declarator: (type_identifier) @name) @definition.union
(type_definition type: (enum_specifier !name body: (enumerator_list)) declarator: (type_identifier) @name) @definition.enum
(type_definition declarator: (_) @name) @definition.typedef
(field_declaration_list (field_declaration) @definition.field)
(enumerator name: (identifier) @name) @definition.enumerator
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
(translation_unit (declaration declarator: (init_declarator)) @definition.variable)
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(preproc_include path: (_) @name) @reference.import
