//! The error every channel sends when it refuses a client's message: `{"type": "error",
//! "error": CODE, "message": …}` with the API's stable codes (docs/api.md, "Errors").

use serde::Serialize;

use crate::error::{ApiError, ErrorCode};

/// A refused message: the body of a channel's `error` message.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct SocketError {
    pub error: ErrorCode,
    pub message: String,
}

impl From<ApiError> for SocketError {
    fn from(e: ApiError) -> SocketError {
        SocketError {
            error: e.code,
            message: e.message,
        }
    }
}

impl SocketError {
    pub fn malformed(message: impl Into<String>) -> SocketError {
        SocketError {
            error: ErrorCode::Malformed,
            message: message.into(),
        }
    }
}

/// A channel's outgoing message as the text sent (a message type serializes: this cannot fail).
pub fn text<T: Serialize>(message: &T) -> String {
    serde_json::to_string(message).unwrap_or_default()
}
