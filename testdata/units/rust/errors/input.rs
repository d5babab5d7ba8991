fn ok() -> u32 {
    1
}

fn broken(x: u32 -> u32 {
    x
}

pub fn after() -> u32 {
    ok()
}
