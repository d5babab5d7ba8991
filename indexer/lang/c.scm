; C definitions and references (ours; the grammar's tags.scm tags
; prototypes as definitions and has no calls).  The first pattern that
; captures a node wins, so the specific forms come before the general ones.

; ---- functions ----
; SYSCALL_DEFINE0(name) { ... }: the grammar reads a type and a declarator.
(function_definition
  type: (type_identifier) @name
  declarator: (parenthesized_declarator)) @definition.function
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))
    (attributed_declarator (function_declarator declarator: (identifier) @name))
  ]) @definition.function
(function_definition) @definition.function

; Macro-made functions at file level (SYSCALL_DEFINE3(read, ...) { ... })
; and file-level variables, also inside #if blocks, are found by mi_c_walk
; in c.c: patterns under each kind of #if block made this query slow
; to compile.

; A header the grammar could not read (an attribute macro with arguments,
; `static __always_inline __alloc_size(1) void *kmalloc(...)`) followed by a
; block: the last declarator in the error names the function.
((ERROR
   (function_declarator declarator: (identifier) @name) .) @definition.function
  .
  (compound_statement) @body)
((ERROR
   (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)) .) @definition.function
  .
  (compound_statement) @body)
((ERROR
   (parameter_declaration declarator: (function_declarator declarator: (identifier) @name)) .) @definition.function
  .
  (compound_statement) @body)

; ---- prototypes (declarations, not definitions) ----
(declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.prototype

; ---- types ----
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.union
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(type_definition type: (struct_specifier !name body: (field_declaration_list) @body) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (union_specifier !name body: (field_declaration_list) @body) declarator: (type_identifier) @name) @definition.union
(type_definition type: (enum_specifier !name body: (enumerator_list) @body) declarator: (type_identifier) @name) @definition.enum
; typedef struct tag { ... } name_t: the struct is `tag`, the alias is its
; name only (so the struct does not nest under the alias).
(type_definition
  type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))]
  declarator: (type_identifier) @name @definition.typedef)
(type_definition
  type: [(struct_specifier name: (_) body: (_)) (union_specifier name: (_) body: (_)) (enum_specifier name: (_) body: (_))]
  declarator: (pointer_declarator declarator: (type_identifier) @name @definition.typedef))
(type_definition
  type: [(type_identifier) (primitive_type) (sized_type_specifier) (macro_type_specifier)
         (struct_specifier !body) (union_specifier !body) (enum_specifier !body)]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (pointer_declarator declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name))))
    (array_declarator declarator: (type_identifier) @name)
  ]) @definition.typedef

(field_declaration_list (field_declaration declarator: (_) @name) @definition.field)
(enumerator name: (identifier) @name) @definition.enumerator

; ---- macros ----
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; ---- references ----
(call_expression function: [
  (identifier) @name
  (field_expression field: (field_identifier) @name)
  (parenthesized_expression (pointer_expression argument: (identifier) @name))]) @reference.call
(preproc_include path: (_) @name) @reference.import

; A function named as a value: a callback argument, a designated or
; positional initializer (struct of function pointers), an assignment.
; All-capitals names are constants, not functions.
(call_expression arguments: (argument_list (identifier) @name (#not-match? @name "^[A-Z0-9_]+$"))) @reference.value
(initializer_pair value: (identifier) @name (#not-match? @name "^[A-Z0-9_]+$")) @reference.value
(initializer_list (identifier) @name (#not-match? @name "^[A-Z0-9_]+$")) @reference.value
(assignment_expression right: (identifier) @name (#not-match? @name "^[A-Z0-9_]+$")) @reference.value
(init_declarator value: (identifier) @name (#not-match? @name "^[A-Z0-9_]+$")) @reference.value
(conditional_expression [consequence: (identifier) alternative: (identifier)] @name (#not-match? @name "^[A-Z0-9_]+$")) @reference.value
(binary_expression operator: ["==" "!="] [left: (identifier) right: (identifier)] @name (#not-match? @name "^[A-Z0-9_]+$")) @reference.value
(return_statement (identifier) @name (#not-match? @name "^[A-Z0-9_]+$")) @reference.value
(cast_expression value: (identifier) @name (#not-match? @name "^[A-Z0-9_]+$")) @reference.value
(pointer_expression operator: "&" argument: (identifier) @name (#not-match? @name "^[A-Z0-9_]+$")) @reference.value
; A function handed to a macro at file scope that the grammar reads as a
; type: `static DECLARE_WORK(w, fn);`, and the `module_init(fn);` it then
; swallows as a declarator of that "type".
(macro_type_specifier type: (type_descriptor type: (type_identifier) @name (#not-match? @name "^[A-Z0-9_]+$"))) @reference.value
(declaration type: (macro_type_specifier) declarator: (function_declarator parameters: (parameter_list (parameter_declaration !declarator type: (type_identifier) @name (#not-match? @name "^[A-Z0-9_]+$"))))) @reference.value
; Names local to a function: a value reference to one names nothing indexed.
; The parameters of a macro-made function (SYSCALL_DEFINE1(close, int, fd)
; { ... }) and of an old-style definition are names too.
((expression_statement (call_expression arguments: (argument_list (identifier) @local))) . (compound_statement))
(function_declarator parameters: (parameter_list (identifier) @local))
(parameter_declaration declarator: [
  (identifier) @local
  (pointer_declarator declarator: (identifier) @local)
  (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local))
  (array_declarator declarator: (identifier) @local)])
(compound_statement (declaration declarator: [
  (identifier) @local
  (init_declarator declarator: [(identifier) @local (pointer_declarator declarator: (identifier) @local) (array_declarator declarator: (identifier) @local)])
  (pointer_declarator declarator: (identifier) @local)
  (array_declarator declarator: (identifier) @local)]))
; Calls written in macro bodies (the grammar leaves them as text).
(preproc_function_def parameters: (preproc_params) @params value: (preproc_arg) @scan.calls)
(preproc_def value: (preproc_arg) @scan.calls)
