; Vue single-file components (ours, over the HTML grammar): the template,
; script and style blocks; components used (<MyButton>) are calls, event
; handlers (@click="save", v-on:click="save") values.  What the scripts
; define is read by JavaScript's or TypeScript's rules (vue.c).
(document (element (start_tag (tag_name) @name (#eq? @name "template"))) @definition.module)
(script_element (start_tag) (raw_text)) @definition.module
(style_element (start_tag) (raw_text)) @definition.module

(start_tag (tag_name) @name (#match? @name "^[A-Z]")) @reference.call
(self_closing_tag (tag_name) @name (#match? @name "^[A-Z]")) @reference.call
(attribute (attribute_name) @_a (#match? @_a "^(@|v-on:)")
  (quoted_attribute_value (attribute_value) @name (#match? @name "^[A-Za-z_$][A-Za-z0-9_$]*$"))) @reference.value
