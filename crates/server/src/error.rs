//! The one error type of the API: a status, a stable code for programs and a message for
//! people, always answered as JSON (`{"error", "message"}`), including 404s and bad paths.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// Seconds after which asking again may succeed (`Retry-After`), for 429 and 503.
    pub retry_after: Option<u64>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    pub fn with_retry_after(mut self, seconds: u64) -> ApiError {
        self.retry_after = Some(seconds.max(1));
        self
    }

    pub fn malformed(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "malformed", message)
    }

    pub fn unknown_game(id: &str) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_game",
            format!(
                "there is no game '{}'",
                id.chars().take(40).collect::<String>()
            ),
        )
    }

    pub fn not_allowed(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, "not_allowed", message)
    }

    pub fn game_over() -> ApiError {
        ApiError::new(StatusCode::CONFLICT, "game_over", "the game is over")
    }

    pub fn wrong_secret() -> ApiError {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "wrong_secret",
            "this seat secret holds no seat in this game",
        )
    }

    pub fn storage(e: impl std::fmt::Display) -> ApiError {
        tracing::error!("storage failure: {e}");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "storage",
            format!("the game could not be stored, so nothing changed: {e}"),
        )
    }

    pub fn busy(message: impl Into<String>, retry_after: u64) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "busy", message)
            .with_retry_after(retry_after)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut resp = (
            self.status,
            Json(json!({"error": self.code, "message": self.message})),
        )
            .into_response();
        if let Some(s) = self.retry_after {
            if let Ok(v) = HeaderValue::from_str(&s.to_string()) {
                resp.headers_mut().insert(header::RETRY_AFTER, v);
            }
        }
        resp
    }
}

/// What a refusal of the store means to a client: another instance changed the game first
/// (`stale`), the database cannot take changes now (`busy`, worth asking again), or it failed.
impl From<crate::store::StoreError> for ApiError {
    fn from(e: crate::store::StoreError) -> ApiError {
        use crate::store::StoreError;
        match e {
            StoreError::Conflict { .. } => ApiError::new(
                axum::http::StatusCode::CONFLICT,
                "stale",
                "the game was changed meanwhile through another server: reload it",
            ),
            StoreError::Unavailable(e) => {
                tracing::warn!("the database is unavailable: {e}");
                ApiError::busy(
                    format!(
                        "the database cannot take changes just now, so nothing changed ({e}); \
                         try again in a few seconds"
                    ),
                    2,
                )
            }
            e => ApiError::storage(e),
        }
    }
}
