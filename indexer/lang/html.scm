; HTML: headings (h1-h6, html.c sets their level), elements with an id,
; script and style blocks; src and href are imports.
(element (start_tag (tag_name) @tag (#match? @tag "^[hH][1-6]$")) . (text) @name) @definition.heading
(element (start_tag (attribute (attribute_name) @an (#eq? @an "id") (quoted_attribute_value (attribute_value) @name)))) @definition.field
(script_element (start_tag) @name) @definition.module
(style_element (start_tag) @name) @definition.module
(attribute (attribute_name) @an (#any-of? @an "src" "href") (quoted_attribute_value (attribute_value) @name)) @reference.import
