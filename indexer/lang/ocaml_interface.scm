; OCaml interfaces (.mli), ours: values (functions when their type is a
; function's), externals, modules and module types, classes, class types
; and their methods, types with their constructors and fields, exceptions.
(module_definition (module_binding (module_name) @name)) @definition.module
(module_type_definition (module_type_name) @name) @definition.interface
(class_definition (class_binding (class_name) @name)) @definition.class
(class_type_definition (class_type_binding (class_type_name) @name)) @definition.interface
(method_specification (method_name) @name) @definition.method
(type_definition (type_binding name: (type_constructor) @name)) @definition.type
(exception_definition (constructor_declaration (constructor_name) @name)) @definition.type
(variant_declaration (constructor_declaration (constructor_name) @name) @definition.enumerator)
(field_declaration (field_name) @name) @definition.field
(value_specification (value_name) @name) @definition.function
(value_specification (parenthesized_operator (_) @name)) @definition.function
(external (value_name) @name) @definition.function

(type_constructor_path (type_constructor) @name) @reference.type
(module_type_path (module_type_name) @name) @reference.type
(open_module module: (module_path (module_name) @name)) @reference.import
