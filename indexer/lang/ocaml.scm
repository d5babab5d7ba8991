; OCaml definitions and references (ours): let-bound functions (also local
; ones), externals, modules and module types, classes and methods, types
; with their constructors and record fields, exceptions; file-level values.
(module_definition (module_binding (module_name) @name)) @definition.module
(module_type_definition (module_type_name) @name) @definition.interface
(class_definition (class_binding (class_name) @name)) @definition.class
(method_definition (method_name) @name) @definition.method
(type_definition (type_binding name: (type_constructor) @name)) @definition.type
(exception_definition (constructor_declaration (constructor_name) @name)) @definition.type
(variant_declaration (constructor_declaration (constructor_name) @name) @definition.enumerator)
(field_declaration (field_name) @name) @definition.field
(let_binding pattern: (value_name) @name (parameter)) @definition.function
(let_binding pattern: (value_name) @name body: [(fun_expression) (function_expression)]) @definition.function
(let_binding pattern: (parenthesized_operator (_) @name)) @definition.function
(external (value_name) @name) @definition.function
(compilation_unit (value_definition (let_binding pattern: (value_name) @name) @definition.variable))
(structure (value_definition (let_binding pattern: (value_name) @name) @definition.variable))

(application_expression function: (value_path (value_name) @name)) @reference.call
(infix_expression left: (value_path (value_name) @name) operator: (concat_operator) @op (#eq? @op "@@")) @reference.call
(infix_expression operator: (rel_operator) @op (#eq? @op "|>") right: (value_path (value_name) @name)) @reference.call
(type_constructor_path (type_constructor) @name) @reference.type
(open_module module: (module_path (module_name) @name)) @reference.import
(parameter pattern: (value_pattern) @local)
(parameter (value_pattern) @local)
