; PowerShell definitions and references (ours).
(function_statement (function_name) @name (script_block) @body) @definition.function
(class_statement (simple_name) @name) @definition.class
(class_method_definition (simple_name) @name (script_block) @body) @definition.method
(class_property_definition (variable) @name) @definition.field
(enum_statement (simple_name) @name) @definition.enum
(command command_name: (command_name) @name (#not-match? @name "^(Import-Module|using)$")) @reference.call
(command command_name: (command_name) @fn (#eq? @fn "Import-Module") command_elements: (command_elements (generic_token) @name)) @reference.import
(command command_name: (command_name_expr) @name) @reference.call
