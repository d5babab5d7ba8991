//! A small user store.
use std::collections::HashMap;
use std::fmt::{self, Display};
use crate::db::Conn as Connection;

/// Largest number of users.
pub const MAX_USERS: usize = 100;
static mut COUNTER: u32 = 0;

/// A user with a name.
#[derive(Debug, Clone)]
pub struct User {
    /// Display name.
    pub name: String,
    age: u32,
}

pub enum Role {
    Admin,
    Member { since: u32 },
    Guest(u32),
}

pub type Users = HashMap<String, User>;

struct Point(i32, i32);

mod internal {
    pub fn helper() -> u32 {
        42
    }
}

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

pub(crate) fn count(users: &Users) -> usize {
    users.len()
}

async fn load() -> Option<User> {
    None
}
