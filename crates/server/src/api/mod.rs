//! The HTTP and WebSocket API (docs/api.md), by resource: games (`games`), play in a game
//! (`play`), and a game's events (`events`). Handlers read the request, ask the game's round
//! (crate::round) and answer; they never change a game themselves.

pub mod account;
pub mod analysis;
pub mod bearer;
pub mod blocks;
pub mod bot;
pub mod care;
pub mod challenges;
pub mod client;
pub mod events;
pub mod explorer;
pub mod exports;
pub mod extract;
pub mod follows;
pub mod games;
pub mod health;
pub mod leaderboards;
pub mod lobby;
pub mod moderation;
pub mod play;
pub mod players;
pub mod position;
pub mod reports;
pub mod review;
pub mod sessions;
pub mod tokens;
pub mod tournaments;
pub mod tv;
pub mod waits;

use crate::error::ErrorCode;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{header, StatusCode};
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ApiResult};

/// Reads a request's move letters, naming the first bad one by its place (`move 3: …`).
pub fn parse_moves(moves: &[String]) -> ApiResult<Vec<anywoli_core::Move>> {
    moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            m.parse()
                .map_err(|e| ApiError::malformed(format!("move {}: {e}", i + 1)))
        })
        .collect()
}

/// A JSON request body, the one way every POST of the API is read: `Content-Type` must be
/// `application/json` (so that another site cannot post a plain form at the API), an empty
/// body reads as `{}`, and every way it can be wrong is a JSON error that names it.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ErrorCode::UnsupportedMediaType,
                "send the request body as JSON, with Content-Type: application/json",
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    ErrorCode::TooLarge,
                    "the request body is larger than this endpoint accepts",
                )
            } else {
                ApiError::malformed(format!("the request body could not be read: {e}"))
            }
        })?;
        let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        serde_json::from_slice(bytes).map(JsonBody).map_err(|e| {
            ApiError::malformed(format!(
                "the request body is not valid JSON for this request: {e}"
            ))
        })
    }
}

/// Reads `side` as the API writes it.
pub fn parse_side(s: &str) -> Result<anywoli_core::Side, ApiError> {
    match s {
        "south" => Ok(anywoli_core::Side::South),
        "north" => Ok(anywoli_core::Side::North),
        _ => Err(ApiError::malformed(format!(
            "side '{}' is neither south nor north",
            s.chars().take(20).collect::<String>()
        ))),
    }
}

/// `south`, `north` or `both`: the seats a secret holds.
pub fn seat_name(seats: &[anywoli_core::Side]) -> &'static str {
    match seats {
        [one] => crate::trace_json::side_name(*one),
        _ => "both",
    }
}

pub async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::NotFound,
        "there is no such API endpoint",
    )
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::MethodNotAllowed,
        "this endpoint does not take that HTTP method",
    )
}
