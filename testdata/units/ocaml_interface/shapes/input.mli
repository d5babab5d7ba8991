(** Shapes: the interface. *)

open Printf

type shape =
  | Circle of float
  | Rect of { w : float; h : float }
(** A shape in the plane. *)

type t
(** An abstract counter. *)

exception Bad_shape of string

val area : shape -> float
(** Area of a shape. *)

(** Sum of the areas. *)
val total : float -> shape list -> float

val ( +. ) : float -> float -> float

external raw_time : unit -> float = "caml_sys_time"

module Counter : sig
  val count : int ref
  val bump : unit -> unit
end

module type PRINTER = sig
  type t
  val print : t -> unit
end

module Make (P : PRINTER) : PRINTER with type t = P.t

include PRINTER with type t := t

class printer : string -> object
  method print : string -> unit
end

class type named = object
  method name : string
end

val _hidden : int
