; Swift definitions and references (ours; the grammar's tags.scm tags every
; property, locals included, and has no enums, extensions or calls).

; ---- types: one node type, told apart by its keyword ----
(class_declaration declaration_kind: "class" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "actor" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
; an extension is an impl block named after the extended type
(class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @name .)) @definition.impl
(protocol_declaration name: (type_identifier) @name) @definition.protocol
(typealias_declaration name: (type_identifier) @name) @definition.type

; ---- functions and members ----
(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(init_declaration "init" @name) @definition.method
(deinit_declaration "deinit" @name) @definition.method
(subscript_declaration "subscript" @name (computed_property)? @body) @definition.method

; Properties of types and top-level variables, not locals.  Several
; patterns in one declaration (`let a = 1, b = 2`): the declaration is the
; first one's symbol, each later pattern its own (swift.c trims spans).
(class_body (property_declaration (value_binding_pattern) . name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)
(class_body (property_declaration name: (pattern) name: (pattern bound_identifier: (simple_identifier) @name) @definition.property))
(enum_class_body (property_declaration (value_binding_pattern) . name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)
(protocol_body (protocol_property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)
(source_file (property_declaration (value_binding_pattern) . name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)
(source_file (property_declaration name: (pattern) name: (pattern bound_identifier: (simple_identifier) @name) @definition.variable))

; enum cases: `case a, b(Int)` gives one enumerator per name
(enum_entry "case" . name: (simple_identifier) @name) @definition.enumerator
(enum_entry name: (simple_identifier) name: (simple_identifier) @name @definition.enumerator)

; ---- conformances and superclasses: the implementer is the enclosing type
; or extension ----
(inheritance_specifier inherits_from: (user_type (type_identifier) @name .)) @reference.impl

; ---- calls: plain (and initializers), method calls ----
(call_expression . [(simple_identifier) @name (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @name))]) @reference.call

; ---- imports ----
(import_declaration (identifier) @name) @reference.import
