; HTML (ours): elements with an id are modules named by it, h1-h6 headings
; (folded and searched like Markdown's), inline <script> and <style> blocks
; modules; script src and link href are imports.
(element (start_tag (attribute (attribute_name) @_a (#eq? @_a "id")
  [(quoted_attribute_value (attribute_value) @name) (attribute_value) @name]))) @definition.module
(element (start_tag (tag_name) @_t (#match? @_t "^[hH][1-6]$"))) @definition.heading
(script_element (start_tag) (raw_text)) @definition.module
(style_element (start_tag) (raw_text)) @definition.module

(script_element (start_tag (attribute (attribute_name) @_a (#eq? @_a "src")
  (quoted_attribute_value (attribute_value) @name)))) @reference.import
(element (start_tag (tag_name) @_t (#eq? @_t "link") (attribute (attribute_name) @_a (#eq? @_a "href")
  (quoted_attribute_value (attribute_value) @name)))) @reference.import
