; XML: elements as an outline (xml.c: elements holding elements nest, the
; others are fields with their short text), a few levels deep.
(element (STag (Name) @name)) @definition.struct
(element (EmptyElemTag (Name) @name)) @definition.field
