//! Sessions: the cookie, what the store keeps of it, and the extractors that say who is asking.
//!
//! The cookie holds 32 random bytes (base64url); the store keeps their SHA-256, so that a
//! copy of the database (a backup, say) opens no session. Each session has a CSRF token of its
//! own, which the page reads from `GET /api/account` and sends back in `X-CSRF-Token`: another
//! site's page can make the browser send the cookie but cannot read the token.

use crate::error::ErrorCode;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use base64::Engine;
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::ids::{new_secret, random_bytes};
use crate::store::SessionRow;

/// The session cookie's name.
pub const COOKIE: &str = "anywoli_session";
/// How long a session lasts without logging in again (the store refuses it after as long).
pub const MAX_AGE_SECS: u64 = (crate::store::SESSION_MS / 1000) as u64;
/// The header that repeats the session's CSRF token.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// A new session for `name`: its cookie value (for the browser only) and its row.
pub fn new_session(name: &str, at: i64) -> (String, SessionRow) {
    let cookie = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random_bytes::<32>());
    let row = SessionRow {
        token: token_of(&cookie),
        name: name.to_string(),
        csrf: new_secret(),
        created: at,
    };
    (cookie, row)
}

/// What the store keeps of a cookie's value.
pub fn token_of(cookie: &str) -> String {
    Sha256::digest(cookie.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The session cookie's value in a request, if it has one of the right shape.
pub fn cookie_in(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.trim().to_string())
        // 32 bytes in base64url: anything else is no session of ours (and is not looked up).
        .filter(|v| {
            v.len() == 43
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// `Set-Cookie` for a new session; `Secure` when the page is served over TLS.
pub fn set_cookie(value: &str, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{COOKIE}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={MAX_AGE_SECS}{secure}"
    ))
    .expect("a cookie of base64url is a valid header")
}

/// `Set-Cookie` that removes the session cookie.
pub fn clear_cookie(secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{secure}"
    ))
    .expect("a valid header")
}

/// The request repeats the session's CSRF token.
pub fn check_csrf(headers: &HeaderMap, session: &SessionRow) -> Result<(), ApiError> {
    let sent = headers
        .get(CSRF_HEADER)
        .map(|v| v.as_bytes())
        .unwrap_or_default();
    if same(sent, session.csrf.as_bytes()) {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::Csrf,
            "the request lacks the session's X-CSRF-Token: reload the page and try again",
        ))
    }
}

/// Compares in a time that does not depend on where the first difference is.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies() {
        let (value, row) = new_session("Abula", 5);
        assert_eq!(value.len(), 43);
        assert_eq!(row.token, token_of(&value));
        assert_ne!(row.token, value);
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            format!("theme=dark; {COOKIE}={value}; x=y")
                .parse()
                .unwrap(),
        );
        assert_eq!(cookie_in(&h), Some(value.clone()));
        h.insert(header::COOKIE, format!("{COOKIE}=short").parse().unwrap());
        assert_eq!(cookie_in(&h), None);
        let set = set_cookie(&value, true);
        let set = set.to_str().unwrap();
        for part in ["HttpOnly", "SameSite=Lax", "Secure", "Path=/"] {
            assert!(set.contains(part), "{set}");
        }
        assert!(!set_cookie(&value, false)
            .to_str()
            .unwrap()
            .contains("Secure"));
    }

    #[test]
    fn csrf() {
        let (_, row) = new_session("Abula", 5);
        let mut h = HeaderMap::new();
        assert_eq!(check_csrf(&h, &row).unwrap_err().code, ErrorCode::Csrf);
        h.insert(CSRF_HEADER, "0".repeat(32).parse().unwrap());
        assert_eq!(check_csrf(&h, &row).unwrap_err().code, ErrorCode::Csrf);
        h.insert(CSRF_HEADER, row.csrf.parse().unwrap());
        assert!(check_csrf(&h, &row).is_ok());
    }
}
