//! Password-reset links (issue 38): `anywoli admin reset-link` makes one, the player opens
//! `/reset/TOKEN` and sets a new password (`POST /api/account/reset`). The token is 32 random
//! bytes in base64url (43 characters); the store keeps its SHA-256 only, like a session's.

use base64::Engine;

use super::session::token_of;
use crate::ids::random_bytes;

/// A new reset token: what the link carries, and what the store keeps of it.
pub fn new_reset_token() -> (String, String) {
    let token = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random_bytes::<32>());
    let hash = token_of(&token);
    (token, hash)
}

/// Whether `token` has a reset token's shape: anything else is refused before a lookup.
pub fn is_reset_token(token: &str) -> bool {
    token.len() == 43
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The link for `token` under `base` (`http://127.0.0.1:8080`, say; a trailing `/` is fine).
pub fn reset_link(base: &str, token: &str) -> String {
    format!("{}/reset/{token}", base.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_url_safe_and_stored_hashed() {
        let (a, ha) = new_reset_token();
        let (b, _) = new_reset_token();
        assert_ne!(a, b);
        assert!(is_reset_token(&a), "{a}");
        assert_eq!(ha, token_of(&a));
        assert_ne!(ha, a);
        assert!(!is_reset_token("short"));
        assert!(!is_reset_token(&format!("{}/", &a[1..])));
        assert_eq!(
            reset_link("http://h:1/", "T"),
            "http://h:1/reset/T".to_string()
        );
    }
}
