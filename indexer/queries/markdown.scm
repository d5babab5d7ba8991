; Markdown (block grammar): headings of the document outline, ATX and setext.
; Only headings whose ancestors are all sections count: not those inside
; block quotes or list items; code blocks never give symbols.  lang_b.c
; sets the level and makes each heading's span run to the next heading of
; the same or a higher level (the grammar opens sections for ATX headings
; only), so nested headings nest as children.

(document (section (atx_heading heading_content: (_) @name) @definition.heading))
(document (section (section (atx_heading heading_content: (_) @name) @definition.heading)))
(document (section (section (section (atx_heading heading_content: (_) @name) @definition.heading))))
(document (section (section (section (section (atx_heading heading_content: (_) @name) @definition.heading)))))
(document (section (section (section (section (section (atx_heading heading_content: (_) @name) @definition.heading))))))
(document (section (section (section (section (section (section (atx_heading heading_content: (_) @name) @definition.heading)))))))
(document (section (section (section (section (section (section (section (atx_heading heading_content: (_) @name) @definition.heading))))))))
(document (section (setext_heading heading_content: (_) @name) @definition.heading))
(document (section (section (setext_heading heading_content: (_) @name) @definition.heading)))
(document (section (section (section (setext_heading heading_content: (_) @name) @definition.heading))))
(document (section (section (section (section (setext_heading heading_content: (_) @name) @definition.heading)))))
(document (section (section (section (section (section (setext_heading heading_content: (_) @name) @definition.heading))))))
(document (section (section (section (section (section (section (setext_heading heading_content: (_) @name) @definition.heading)))))))
(document (section (section (section (section (section (section (section (setext_heading heading_content: (_) @name) @definition.heading))))))))
