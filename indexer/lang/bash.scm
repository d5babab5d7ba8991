; Bash definitions and references (ours; the grammar has no tags query).
(function_definition name: (word) @name) @definition.function

; Top-level variables: NAME=value, export NAME=value, readonly/declare.
(program (variable_assignment name: (variable_name) @name (#match? @name "^[A-Z][A-Z0-9_]*$")) @definition.constant)
(program (variable_assignment name: (variable_name) @name) @definition.variable)
(program (declaration_command (variable_assignment name: (variable_name) @name)) @definition.variable)

; `source lib.sh` and `. lib.sh` import a file.
(command
  name: (command_name) @cmd (#any-of? @cmd "source" ".")
  argument: [(word) (string (string_content)) (raw_string)] @name) @reference.import
; Every other command is a call of it (functions, builtins, programs).
(command name: (command_name (word) @name (#not-any-of? @name "source" ".") (#not-match? @name "^[{}()]"))) @reference.call
