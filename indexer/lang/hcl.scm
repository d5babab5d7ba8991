; HCL and Terraform: blocks (resource "aws_instance" "web" is named
; aws_instance.web, hcl.c) holding their attributes; top-level attributes;
; var.x, local.x and module.x uses are references to x.
(block (identifier) @name) @definition.module
(block (body (attribute (identifier) @name) @definition.field))
(config_file (body (attribute (identifier) @name) @definition.variable))
(expression (variable_expr (identifier) @v (#any-of? @v "var" "local" "module" "data")) . (get_attr (identifier) @name)) @reference.value
(function_call (identifier) @name) @reference.call
