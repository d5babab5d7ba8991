; YAML: top keys and nested mappings (yaml.c keeps them out of sequences
; and at most a few levels deep); anchors are definitions of their own kind
; only through their key; aliases are references.
(block_mapping_pair key: (_) @name value: (block_node (block_mapping) @body)) @definition.struct
(block_mapping_pair key: (_) @name) @definition.field
(alias (alias_name) @name) @reference.value
