; CSS: rule sets named by their selectors, at-rules (@media, @supports,
; @keyframes) holding theirs, custom properties; @import is an import.
(rule_set (selectors) @name (block) @body) @definition.class
(media_statement (block) @body) @definition.module
(supports_statement (block) @body) @definition.module
(keyframes_statement (keyframes_name) @name) @definition.module
(declaration (property_name) @name (#match? @name "^--")) @definition.variable
(import_statement (string_value (string_content) @name)) @reference.import
(import_statement (call_expression (arguments (plain_value) @name))) @reference.import
