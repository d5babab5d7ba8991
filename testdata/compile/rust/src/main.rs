/// Area of a w by h rectangle.
fn area(w: i32, h: i32) -> i32 {
    w * h
}

fn main() {
    let unused = 1;
    let total: i32 = "six";
    println!("{}", aera(2, total));
}
