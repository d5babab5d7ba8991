; Python definitions and references (ours).  Docstrings are the first
; statement of a body, captured as @doc.
; A decorated definition spans its decorators.
(decorated_definition
  definition: (class_definition
    name: (identifier) @name
    body: (block . (expression_statement (string) @doc)?) @body)) @definition.class
(decorated_definition
  definition: (function_definition
    name: (identifier) @name
    body: (block . (expression_statement (string) @doc)?) @body)) @definition.function
(module (class_definition
  name: (identifier) @name
  body: (block . (expression_statement (string) @doc)?)) @definition.class)
(module (function_definition
  name: (identifier) @name
  body: (block . (expression_statement (string) @doc)?)) @definition.function)
(block (class_definition
  name: (identifier) @name
  body: (block . (expression_statement (string) @doc)?)) @definition.class)
(block (function_definition
  name: (identifier) @name
  body: (block . (expression_statement (string) @doc)?)) @definition.function)
; Inside a parse error.
(ERROR (function_definition name: (identifier) @name) @definition.function)
(ERROR (class_definition name: (identifier) @name) @definition.class)

; f = lambda x: ... is a function.
(expression_statement (assignment left: (identifier) @name right: (lambda))) @definition.function

; Class attributes (plain, annotated, dataclass fields).
(class_definition
  body: (block (expression_statement (assignment left: (identifier) @name)) @definition.field))

; Module-level constants (UPPER_CASE) and variables.
(module (expression_statement (assignment left: (identifier) @name (#match? @name "^_*[A-Z][A-Z0-9_]*$"))) @definition.constant)
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable)
(module (if_statement consequence: (block (expression_statement (assignment left: (identifier) @name)) @definition.variable)))
(module (try_statement body: (block (expression_statement (assignment left: (identifier) @name)) @definition.variable)))

; Base classes: class User(Base, mixins.Logged).
(class_definition superclasses: (argument_list (identifier) @name)) @reference.impl
(class_definition superclasses: (argument_list (attribute attribute: (identifier) @name))) @reference.impl
(class_definition superclasses: (argument_list (subscript value: (identifier) @name))) @reference.impl

; Calls, including constructor calls User(...).
(call function: (identifier) @name) @reference.call
(call function: (attribute attribute: (identifier) @name)) @reference.call

; Imports.
(import_statement name: (dotted_name) @name) @reference.import
(import_statement name: (aliased_import name: (dotted_name) @name)) @reference.import
(import_from_statement module_name: (dotted_name) @name) @reference.import
(import_from_statement module_name: (relative_import (dotted_name)) @name) @reference.import
(import_from_statement module_name: (relative_import . (import_prefix) .) name: (dotted_name) @name) @reference.import

; Decorators are calls of the decorator.
(decorator (identifier) @name) @reference.call
(decorator (attribute attribute: (identifier) @name)) @reference.call

; A function named as a value: a callback argument (key=len,
; target=self.run), a handler stored in a dict.
(argument_list (identifier) @name (#not-any-of? @name "None" "True" "False" "self" "cls")) @reference.value
(argument_list (attribute attribute: (identifier) @name)) @reference.value
(keyword_argument value: (identifier) @name (#not-any-of? @name "None" "True" "False" "self" "cls")) @reference.value
(keyword_argument value: (attribute attribute: (identifier) @name)) @reference.value
(pair value: (identifier) @name (#not-any-of? @name "None" "True" "False")) @reference.value
; Names local to a function.
(parameters (identifier) @local)
(parameters (default_parameter name: (identifier) @local))
(parameters (typed_parameter (identifier) @local))
(parameters (typed_default_parameter name: (identifier) @local))
(lambda_parameters (identifier) @local)
(block (expression_statement (assignment left: (identifier) @local)))
(for_statement left: (identifier) @local)
(for_in_clause left: (identifier) @local)
