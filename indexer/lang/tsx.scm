; TSX definitions and references (ours): TypeScript's, plus JSX components
; used as calls.
; @include typescript

; <Button onClick={...}/>: a use of the component Button.
(jsx_opening_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.call
(jsx_self_closing_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.call
(jsx_opening_element name: (member_expression property: (property_identifier) @name)) @reference.call
(jsx_self_closing_element name: (member_expression property: (property_identifier) @name)) @reference.call
; onClick={handleClick}
(jsx_attribute (jsx_expression (identifier) @name)) @reference.value
(jsx_attribute (jsx_expression (member_expression object: (this) property: (property_identifier) @name))) @reference.value
