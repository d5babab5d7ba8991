; Devicetree: nodes (named name@address, devicetree.c adds the address
; and the label to the signature), their properties, macros; phandle
; references (&label) and includes.
(node name: (identifier) @name) @definition.struct
(node name: (reference) @name) @definition.struct
(property name: (identifier) @name) @definition.field
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
(reference label: (identifier) @name) @reference.value
(preproc_include path: (_) @name) @reference.import
(dtsi_include path: (_) @name) @reference.import
