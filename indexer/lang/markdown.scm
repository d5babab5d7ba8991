; Markdown (block grammar): headings of the document outline, ATX and setext.
; Only headings whose ancestors are all sections count: not those inside
; block quotes or list items (markdown.c drops them: nested patterns for
; each depth made the query slow to compile); code blocks never give
; symbols.  markdown.c sets the level and makes each heading's span run to the next heading of
; the same or a higher level (the grammar opens sections for ATX headings
; only), so nested headings nest as children.

(atx_heading heading_content: (_) @name) @definition.heading
(setext_heading heading_content: (_) @name) @definition.heading
