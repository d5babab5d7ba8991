; SCSS: CSS's rule sets (nested), mixins and functions, variables; @include
; is a call of the mixin, @use/@import/@forward are imports.
(rule_set (selectors) @name (block) @body) @definition.class
(mixin_statement name: (identifier) @name) @definition.macro
(function_statement name: (identifier) @name) @definition.function
(media_statement (block) @body) @definition.module
(keyframes_statement (keyframes_name) @name) @definition.module
(stylesheet (declaration (property_name) @name (#match? @name "^[$]")) @definition.variable)
(declaration (property_name) @name (#match? @name "^--")) @definition.variable
(include_statement (identifier) @name) @reference.call
(call_expression (function_name) @name) @reference.call
(use_statement (string_value) @name) @reference.import
(forward_statement (string_value) @name) @reference.import
(import_statement (string_value) @name) @reference.import
