//! The bodies of the Bot and challenge API's POSTs, as lichess's clients send them: empty, a
//! form (`application/x-www-form-urlencoded`), or a JSON object with flat keys
//! (`{"clock.limit": 300}`); read into one map of keys to text.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{header, StatusCode};

use crate::error::{ApiError, ErrorCode};

/// Longest body read, in bytes: a chat line and a challenge's terms are far shorter.
pub const MAX_FORM_BYTES: usize = 8 * 1024;

/// A POST's flat fields.
#[derive(Debug, Default)]
pub struct Flat(pub HashMap<String, String>);

impl Flat {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(|s| s.trim()).filter(|s| !s.is_empty())
    }

    /// `key` as a whole number, if given.
    pub fn int(&self, key: &str) -> Result<Option<i64>, ApiError> {
        self.get(key)
            .map(|v| {
                v.parse::<i64>().map_err(|_| {
                    ApiError::malformed(format!(
                        "{key}: '{}' is not a whole number",
                        v.chars().take(20).collect::<String>()
                    ))
                })
            })
            .transpose()
    }

    /// `key` as `true` or `false`, if given.
    pub fn bool(&self, key: &str) -> Result<Option<bool>, ApiError> {
        match self.get(key) {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(v) => Err(ApiError::malformed(format!(
                "{key}: '{}' is neither true nor false",
                v.chars().take(20).collect::<String>()
            ))),
        }
    }

    /// Reads a body: JSON when its `Content-Type` says so, else a form.
    pub fn parse(content_type: Option<&str>, body: &[u8]) -> Result<Flat, ApiError> {
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Flat::default());
        }
        let json = content_type
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Ok(Flat(
                form_urlencoded::parse(body)
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect(),
            ));
        }
        let v: serde_json::Value = serde_json::from_slice(body)
            .map_err(|e| ApiError::malformed(format!("the body is not valid JSON: {e}")))?;
        let obj = v
            .as_object()
            .ok_or_else(|| ApiError::malformed("the body is JSON but not an object"))?;
        let mut out = HashMap::new();
        for (k, v) in obj {
            let text = match v {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::Bool(b) => b.to_string(),
                serde_json::Value::Null => continue,
                _ => {
                    return Err(ApiError::malformed(format!(
                        "{}: send flat keys ('clock.limit'), not nested objects or lists",
                        k.chars().take(40).collect::<String>()
                    )))
                }
            };
            out.insert(k.clone(), text);
        }
        Ok(Flat(out))
    }
}

impl<S: Send + Sync> FromRequest<S> for Flat {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let ct = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        // Bounded by the app's body limit (crate::BODY_LIMIT) while read.
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                too_large()
            } else {
                ApiError::malformed(format!("the request body could not be read: {e}"))
            }
        })?;
        if bytes.len() > MAX_FORM_BYTES {
            return Err(too_large());
        }
        Flat::parse(ct.as_deref(), &bytes)
    }
}

fn too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::TooLarge,
        format!("the request body is longer than {MAX_FORM_BYTES} bytes"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_json_and_nothing_read_alike() {
        let f = Flat::parse(
            None,
            b"rated=true&clock.limit=300&clock.increment=2&text=g+g%21",
        )
        .unwrap();
        assert_eq!(f.bool("rated").unwrap(), Some(true));
        assert_eq!(f.int("clock.limit").unwrap(), Some(300));
        assert_eq!(f.get("text"), Some("g g!"));
        let j = Flat::parse(
            Some("application/json; charset=utf-8"),
            br#"{"rated": true, "clock.limit": 300, "variant": "anywoli", "x": null}"#,
        )
        .unwrap();
        assert_eq!(j.bool("rated").unwrap(), Some(true));
        assert_eq!(j.int("clock.limit").unwrap(), Some(300));
        assert_eq!(j.get("x"), None);
        assert!(Flat::parse(None, b"").unwrap().0.is_empty());
        assert!(Flat::parse(Some("application/json"), b"  ")
            .unwrap()
            .0
            .is_empty());
        for bad in [&b"[1]"[..], br#"{"clock": {"limit": 1}}"#, b"{"] {
            let e = Flat::parse(Some("application/json"), bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::Malformed);
        }
        let f = Flat::parse(None, b"rated=maybe&clock.limit=ten").unwrap();
        assert!(f.bool("rated").is_err() && f.int("clock.limit").is_err());
    }
}
