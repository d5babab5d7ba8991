use std::fmt;

pub trait Store: Send {
    type Item;
    /// Saves one item.
    fn save(&mut self, item: Self::Item) -> bool;
    fn count(&self) -> usize {
        0
    }
}

pub struct Mem<T> {
    items: Vec<T>,
}

impl<T> Mem<T> {
    /// Makes an empty store.
    pub fn new() -> Self {
        Mem { items: Vec::new() }
    }

    fn grow(&mut self) {
        self.items.reserve(8);
    }
}

impl<T> Store for Mem<T> {
    type Item = T;
    fn save(&mut self, item: T) -> bool {
        self.grow();
        self.items.push(item);
        true
    }
}

impl fmt::Display for Mem<u8> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}", self.items.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves() {
        let mut m = Mem::<u8>::new();
        assert!(m.save(1));
    }
}
