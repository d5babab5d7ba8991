; Rust definitions and references (ours).  An impl block is a symbol of kind
; impl named by its type, so its methods get the type as parent; the trait
; it implements is an impl reference.
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.method
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.union
(enum_item name: (type_identifier) @name) @definition.enum
(enum_variant name: (identifier) @name) @definition.enumerator
(trait_item name: (type_identifier) @name) @definition.trait
(mod_item name: (identifier) @name) @definition.module
(impl_item
  type: [(type_identifier) @name
         (generic_type type: (type_identifier) @name)
         (scoped_type_identifier name: (type_identifier) @name)
         (reference_type type: (type_identifier) @name)]) @definition.impl
(impl_item) @definition.impl
(field_declaration_list (field_declaration name: (field_identifier) @name) @definition.field)
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
(type_item name: (type_identifier) @name) @definition.typedef
(associated_type name: (type_identifier) @name) @definition.typedef
(macro_definition name: (identifier) @name) @definition.macro

; impl Trait for Type
(impl_item trait: [(type_identifier) @name
                   (generic_type type: (type_identifier) @name)
                   (scoped_type_identifier name: (type_identifier) @name)]) @reference.impl
; trait Sub: Super
(trait_item bounds: (trait_bounds (type_identifier) @name)) @reference.impl

; Calls: f(), path::f(), obj.m(), macros m!(), constructions User { }.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (scoped_identifier name: (identifier) @name)) @reference.call
(call_expression function: (field_expression field: (field_identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (scoped_identifier name: (identifier) @name))) @reference.call
(call_expression function: (generic_function function: (field_expression field: (field_identifier) @name))) @reference.call
(macro_invocation macro: (identifier) @name) @reference.call
(struct_expression name: (type_identifier) @name) @reference.call

; use paths (the path, not the list of names).
(use_declaration argument: [(identifier) (scoped_identifier)] @name) @reference.import
(use_declaration argument: (scoped_use_list path: (_) @name)) @reference.import
(use_declaration argument: (use_as_clause path: (_) @name)) @reference.import
(use_declaration argument: (use_wildcard (_) @name)) @reference.import
(extern_crate_declaration name: (identifier) @name) @reference.import
