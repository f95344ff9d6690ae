//! What a name and a password may be.

use crate::error::ApiError;
use crate::error::ErrorCode;

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
    if !ok {
        return Err(ApiError::new(
            axum::http::StatusCode::BAD_REQUEST,
            ErrorCode::BadName,
            "a name is 2 to 20 letters (A-Z), digits, '_' or '-', starting with a letter or digit",
        ));
    }
    if is_reserved(name) {
        return Err(ApiError::new(
            axum::http::StatusCode::BAD_REQUEST,
            ErrorCode::ReservedName,
            "this name is kept for the site itself (or looks like one that is): choose another",
        ));
    }
    Ok(())
}

/// Names a player could pass off as the site, its staff or its engine (issue 36: `admin`,
/// `anywoli`, `computer`, `moderator` and look-alikes could be registered).
const RESERVED: &[&str] = &[
    "admin",
    "administrator",
    "anywoli",
    "computer",
    "engine",
    "moderator",
    "mod",
    "mods",
    "staff",
    "support",
    "system",
    "root",
    "official",
    "server",
    "anonymous",
    "guest",
    "nobody",
    "null",
    "undefined",
    "host",
    "owner",
    "team",
];

/// What a name looks like, whatever its case, separators and the digits that pass for
/// letters: `Adm1n`, `ADMlN`, `ad_min` and `adrnin` all look like `admin`.
pub fn skeleton(name: &str) -> String {
    let folded: String = name
        .to_ascii_lowercase()
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .map(|c| match c {
            '0' => 'o',
            '1' | 'i' | '|' => 'l',
            '3' => 'e',
            '4' => 'a',
            '5' => 's',
            '7' => 't',
            '8' => 'b',
            '9' => 'g',
            c => c,
        })
        .collect();
    folded.replace("rn", "m").replace("vv", "w")
}

/// The reserved words that no name may start with either (`admin2`, `moderator_kofi`,
/// `anywoli-team`): the site's and its staff's.
const RESERVED_PREFIXES: &[&str] = &[
    "admin",
    "anywoli",
    "moderator",
    "computer",
    "official",
    "support",
    "system",
];

/// Whether `name` is, or looks like, a reserved one, or starts like the site's or its staff's.
pub fn is_reserved(name: &str) -> bool {
    let s = skeleton(name);
    RESERVED.iter().any(|r| s == skeleton(r))
        || RESERVED_PREFIXES
            .iter()
            .any(|r| s.starts_with(&skeleton(r)))
}

pub fn check_password(password: &str) -> Result<(), ApiError> {
    if PASSWORD_LEN.contains(&password.chars().count()) {
        Ok(())
    } else {
        Err(ApiError::new(
            axum::http::StatusCode::BAD_REQUEST,
            ErrorCode::BadPassword,
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
    fn the_site_s_names_and_their_look_alikes_are_kept() {
        for bad in [
            "admin",
            "Admin",
            "ADM1N",
            "adrnin",
            "ad_min",
            "Administrator",
            "admin2",
            "anywoli",
            "Anyw0li",
            "anywoli-team",
            "computer",
            "C0mputer",
            "moderator",
            "moderator_kofi",
            "mod",
            "M0D",
            "system",
        ] {
            let e = check_name(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::ReservedName, "{bad}");
        }
        for ok in [
            "Abula",
            "okello_7",
            "modi",
            "madmin",
            "guesthouse",
            "engineer",
            "hostel",
        ] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        assert_eq!(skeleton("Ad-M1n"), "admln");
    }

    #[test]
    fn passwords() {
        assert!(check_password("12345678").is_ok());
        assert!(check_password("1234567").is_err());
        assert!(check_password(&"é".repeat(256)).is_ok());
        assert!(check_password(&"x".repeat(257)).is_err());
    }
}
