; CSS (ours): rule sets are classes named by their selectors, holding their
; declarations as fields (custom properties too); @media and @supports
; blocks and @keyframes are modules; @import is an import.
(rule_set (selectors) @name (block) @body) @definition.class
(declaration (property_name) @name) @definition.field
(media_statement (block) @body) @definition.module
(supports_statement (block) @body) @definition.module
(keyframes_statement (keyframes_name) @name) @definition.module

(import_statement (string_value (string_content) @name)) @reference.import
(import_statement (call_expression (arguments (string_value (string_content) @name)))) @reference.import
(call_expression (function_name) @_f (#eq? @_f "var") (arguments (plain_value) @name)) @reference.value
