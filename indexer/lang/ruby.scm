; Ruby definitions and references (ours; the grammar's tags.scm relies on
; #is-not? local and #select-adjacent!, which we do not have).

; ---- classes and modules (`class A::B::C` is named C) ----
(class name: [(constant) @name (scope_resolution name: (_) @name)]) @definition.class
(module name: [(constant) @name (scope_resolution name: (_) @name)]) @definition.module
; a class whose end the parser could not find still holds its methods
(ERROR . "class" . (constant) @name) @definition.class
(ERROR . "module" . (constant) @name) @definition.module

; ---- methods: `def x` (a method inside a class or module), `def self.x`
; (a class method, ruby.c flags it static), aliases ----
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method
(alias name: (_) @name) @definition.method

; ---- constants and attributes (one symbol per attribute name) ----
(assignment left: [(constant) @name (scope_resolution name: (constant) @name)]) @definition.constant
(call
  method: (identifier) @_attr
  arguments: (argument_list (simple_symbol) @name @definition.field)
  (#any-of? @_attr "attr_reader" "attr_writer" "attr_accessor"))

; ---- inheritance and mixins: the implementer is the enclosing class ----
(superclass [(constant) @name (scope_resolution name: (_) @name)]) @reference.impl
(call
  method: (identifier) @_mix
  arguments: (argument_list [(constant) @name (scope_resolution name: (_) @name)])
  (#any-of? @_mix "include" "extend" "prepend")) @reference.impl

; ---- imports ----
(call
  method: (identifier) @_req
  arguments: (argument_list . (string (string_content) @name))
  (#any-of? @_req "require" "require_relative" "load" "autoload")) @reference.import

; ---- calls: `x.m(...)`, `m arg`, `X.new` as a call of X, and a bare name
; standing alone as a statement that is not the last one (a call with no
; arguments; a last one may be a local variable given back) ----
(call
  method: (identifier) @name
  (#not-any-of? @name "new" "require" "require_relative" "load" "autoload"
    "include" "extend" "prepend" "attr_reader" "attr_writer" "attr_accessor"
    "private" "protected" "public" "module_function" "private_class_method"
    "public_class_method" "private_constant")) @reference.call
(call receiver: [(constant) @name (scope_resolution name: (constant) @name)] method: (identifier) @_new (#eq? @_new "new")) @reference.call
(body_statement
  (identifier) @name . (_)
  (#not-any-of? @name "private" "protected" "public" "module_function")) @reference.call
(then (identifier) @name . (_)) @reference.call
(else (identifier) @name . (_)) @reference.call
(block_body (identifier) @name . (_)) @reference.call
