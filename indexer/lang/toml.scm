; TOML: tables ([server], [[servers]]) holding their keys.
(table [(bare_key) (quoted_key) (dotted_key)] @name) @definition.module
(table_array_element [(bare_key) (quoted_key) (dotted_key)] @name) @definition.module
(pair [(bare_key) (quoted_key) (dotted_key)] @name) @definition.field
