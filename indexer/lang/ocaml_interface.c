/*
 * ocaml_interface.c - OCaml interfaces (.mli): the OCaml rules (ocaml.c)
 * over the interface grammar.  A `val` is a function when its type is a
 * function's, else a value; its doc is the (** ... *) right after it, else
 * the one right above, as ocamldoc reads them.
 */
#include "lang_int.h"

const TSLanguage *tree_sitter_ocaml_interface(void);
extern const char mi_query_src_ocaml_interface[];

const mi_lang_row mi_lang_ocaml_interface = {
	.id = MI_LANG_OCAML_INTERFACE,
	.name = "ocaml_interface",
	.exts = " .mli ",
	.ts = tree_sitter_ocaml_interface,
	.query = mi_query_src_ocaml_interface,
	.fix = mi_fix_ocaml,
};
