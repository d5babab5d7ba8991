open Printf

(** A shape in the plane. *)
type shape =
  | Circle of float
  | Rect of { w : float; h : float }

exception Bad_shape of string

let pi = 4.0 *. atan 1.0

(** Area of a shape. *)
let area = function
  | Circle r -> pi *. r *. r
  | Rect { w; h } -> w *. h

let rec total acc = function
  | [] -> acc
  | s :: rest -> total (acc +. area s) rest

let describe s =
  let name = match s with Circle _ -> "circle" | Rect _ -> "rect" in
  let show x = sprintf "%s %.2f" name x in
  show (area s)

module Counter = struct
  let count = ref 0
  let bump () = incr count; !count
end

class printer prefix = object
  method print s = print_endline (prefix ^ describe s)
end

external _raw_time : unit -> float = "caml_sys_time"

let () = [Circle 1.0] |> total 0.0 |> printf "%f\n"
