; Svelte components: script and style blocks, headings, elements with an
; id; components used (<Button>) are calls, on:event={handler} values.
(script_element (start_tag) @name) @definition.module
(style_element (start_tag) @name) @definition.module
(element (start_tag (tag_name) @tag (#match? @tag "^[hH][1-6]$")) . (text) @name) @definition.heading
(element (start_tag (attribute (attribute_name) @an (#eq? @an "id") (quoted_attribute_value (attribute_value) @name)))) @definition.field
(start_tag (tag_name) @name (#match? @name "^[A-Z]")) @reference.call
(self_closing_tag (tag_name) @name (#match? @name "^[A-Z]")) @reference.call
(attribute (attribute_name) @an (#match? @an "^on:") (expression (svelte_raw_text) @name (#match? @name "^[A-Za-z_$][A-Za-z0-9_$]*$"))) @reference.value
