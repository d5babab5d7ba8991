; JSON: the document's shape.  A key holding an object is a struct of its
; keys; a key holding an array is one field whose signature summarizes the
; array (json.c); keys inside arrays are not symbols.
(pair key: (string (string_content) @name) value: (object) @body) @definition.struct
(pair key: (string (string_content) @name)) @definition.field
