//! What a name and a password may be.

use crate::error::ApiError;

/// Shortest and longest names.
pub const NAME_LEN: std::ops::RangeInclusive<usize> = 2..=20;
/// Shortest and longest passwords, in characters.
pub const PASSWORD_LEN: std::ops::RangeInclusive<usize> = 8..=256;

/// Two names are the same account when they are equal in lower case (names are ASCII).
pub fn key_of(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// A name is 2–20 letters, digits, `_` and `-`, starting with a letter or digit: it goes in
/// URLs (`/@/name`) and records as it is.
pub fn check_name(name: &str) -> Result<(), ApiError> {
    let ok = NAME_LEN.contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(ApiError::new(
            axum::http::StatusCode::BAD_REQUEST,
            "bad_name",
            "a name is 2 to 20 letters (A-Z), digits, '_' or '-', starting with a letter or digit",
        ))
    }
}

pub fn check_password(password: &str) -> Result<(), ApiError> {
    if PASSWORD_LEN.contains(&password.chars().count()) {
        Ok(())
    } else {
        Err(ApiError::new(
            axum::http::StatusCode::BAD_REQUEST,
            "bad_password",
            "a password has 8 to 256 characters",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in [
            "ab",
            "Abula",
            "okello_7",
            "a-b",
            "9lives",
            "ABCDEFGHIJKLMNOPQRST",
        ] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "a",
            "_ab",
            "-ab",
            "a b",
            "ab/",
            "Ābula",
            "ABCDEFGHIJKLMNOPQRSTU",
            "a\u{0}b",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(key_of("AbUla"), "abula");
    }

    #[test]
    fn passwords() {
        assert!(check_password("12345678").is_ok());
        assert!(check_password("1234567").is_err());
        assert!(check_password(&"é".repeat(256)).is_ok());
        assert!(check_password(&"x".repeat(257)).is_err());
    }
}
