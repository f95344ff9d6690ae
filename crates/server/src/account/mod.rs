//! People with accounts (issue 12): names, passwords, sessions and what proves a request is
//! theirs. The HTTP side is `crate::api::account`; the tables are the store's.
//!
//! - A password is hashed with Argon2id (`password.rs`), a few at a time, off the async
//!   threads.
//! - A session is a random cookie; the store keeps its SHA-256 only (`session.rs`), with a
//!   CSRF token that every cookie-authenticated `POST` must repeat in `X-CSRF-Token`.
//! - Logins are limited per address (crate::rate_limit) and per name (`attempts.rs`).

pub mod attempts;
pub mod name;
pub mod password;
pub mod reset;
pub mod session;
pub mod token;

pub use name::{check_name, check_password, key_of};
pub use session::COOKIE;
