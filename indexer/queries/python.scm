; Python definitions and references (ours).
(class_definition name: (identifier) @name body: (block . (expression_statement (string) @doc)?)) @definition.class
(function_definition name: (identifier) @name body: (block . (expression_statement (string) @doc)?)) @definition.function
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable)
(class_definition superclasses: (argument_list (identifier) @name)) @reference.impl
(class_definition superclasses: (argument_list (attribute attribute: (identifier) @name))) @reference.impl
(call function: (identifier) @name) @reference.call
(call function: (attribute attribute: (identifier) @name)) @reference.call
(import_statement name: (dotted_name) @name) @reference.import
(import_from_statement module_name: (dotted_name) @name) @reference.import
