; C++ definitions and references (ours).  Function names may be qualified
; (Foo::bar, ns::Foo::~Foo, operator==): cpp.c splits them into the
; parent and the simple name.  Member functions declared in a class without
; a body are prototypes, like C's.

; ---- functions ----
(function_definition declarator: [
  (function_declarator declarator: (_) @name)
  (pointer_declarator declarator: (function_declarator declarator: (_) @name))
  (reference_declarator (function_declarator declarator: (_) @name))
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name)))]) @definition.function
(function_definition) @definition.function

; ---- member and free function declarations ----
(field_declaration_list (field_declaration declarator: [
  (function_declarator declarator: (_) @name)
  (pointer_declarator declarator: (function_declarator declarator: (_) @name))
  (reference_declarator (function_declarator declarator: (_) @name))]) @definition.prototype)
(field_declaration_list (declaration declarator: (function_declarator declarator: (_) @name)) @definition.prototype)
(field_declaration_list (template_declaration (declaration declarator: (function_declarator declarator: (_) @name)) @definition.prototype))
(declaration declarator: [
  (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name)
  (pointer_declarator declarator: (function_declarator declarator: [(identifier) (qualified_identifier)] @name))
  (reference_declarator (function_declarator declarator: [(identifier) (qualified_identifier)] @name))]) @definition.prototype

; ---- types ----
(class_specifier name: [(type_identifier) (template_type) (qualified_identifier)] @name body: (field_declaration_list)) @definition.class
(struct_specifier name: [(type_identifier) (template_type) (qualified_identifier)] @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union
(enum_specifier name: [(type_identifier) (qualified_identifier)] @name body: (enumerator_list)) @definition.enum
(type_definition type: (struct_specifier !name body: (field_declaration_list) @body) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (class_specifier !name body: (field_declaration_list) @body) declarator: (type_identifier) @name) @definition.class
(type_definition type: (enum_specifier !name body: (enumerator_list) @body) declarator: (type_identifier) @name) @definition.enum
(type_definition
  type: [(type_identifier) (primitive_type) (sized_type_specifier) (template_type) (qualified_identifier)
         (struct_specifier !body) (class_specifier !body) (union_specifier !body) (enum_specifier !body)]
  declarator: [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]) @definition.typedef
(type_definition
  type: [(struct_specifier name: (_) body: (_)) (class_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))]
  declarator: (type_identifier) @name @definition.typedef)
(alias_declaration name: (type_identifier) @name) @definition.typedef
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace
(concept_definition name: (identifier) @name) @definition.trait

(field_declaration_list (field_declaration declarator: (_) @name) @definition.field)
(enumerator name: (identifier) @name) @definition.enumerator

; ---- macros ----
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; ---- file- and namespace-level variables ----
(translation_unit (declaration declarator: [(init_declarator) (identifier) (pointer_declarator) (array_declarator)]) @definition.variable)
(namespace_definition body: (declaration_list (declaration declarator: [(init_declarator) (identifier) (pointer_declarator) (array_declarator)]) @definition.variable))

; ---- references ----
(base_class_clause [(type_identifier) @name (template_type name: (type_identifier) @name) (qualified_identifier name: (type_identifier) @name)]) @reference.impl
(call_expression function: [
  (identifier) @name
  (field_expression field: (field_identifier) @name)
  (field_expression field: (template_method name: (field_identifier) @name))
  (qualified_identifier name: (identifier) @name)
  (template_function name: (identifier) @name)
  (qualified_identifier name: (template_function name: (identifier) @name))
  (qualified_identifier name: (qualified_identifier name: (identifier) @name))]) @reference.call
(new_expression type: [(type_identifier) @name (template_type name: (type_identifier) @name) (qualified_identifier name: (type_identifier) @name)]) @reference.call
(preproc_include path: (_) @name) @reference.import
(using_declaration (qualified_identifier) @name) @reference.import
