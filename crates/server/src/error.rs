//! The one error type of the API: a status, a stable code for programs and a message for
//! people, always answered as JSON (`{"error", "message"}`), including 404s and bad paths.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// Every code the API answers errors with (`{"error": code, "message": …}`): stable words for
/// programs, which the page shows in six languages (`err_<code>` in web/i18n.js; tests/words.rs
/// checks every variant). A new refusal adds a variant here, not a string elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    AlreadyChallenged,
    BadLogin,
    BadName,
    BadPassword,
    BadRecord,
    Busy,
    Csrf,
    GameOver,
    HintsOff,
    IllegalMove,
    Malformed,
    MethodNotAllowed,
    NameTaken,
    NotAPuzzle,
    NotAllowed,
    NotFound,
    NotLoggedIn,
    NotYourSeat,
    NotYourTurn,
    OffLine,
    OutOfRange,
    OwnSeek,
    RateLimited,
    RatedNeedsAccount,
    ReservedName,
    SeatTaken,
    Stale,
    Storage,
    Timeout,
    TooLarge,
    TooManyAnalyses,
    TooManySockets,
    TooManyFollows,
    UnknownChallenge,
    UnknownGame,
    UnknownLesson,
    UnknownMove,
    UnknownPlayer,
    UnknownPuzzle,
    UnknownSeek,
    UnsupportedMediaType,
    WrongHost,
    WrongInvite,
    WrongOrigin,
    WrongSecret,
    Blocked,
    BadText,
    Muted,
    Repeated,
    AccountClosed,
    LoginAgain,
    NotModerator,
    ResetLinkInvalid,
    AlreadyReported,
    UnknownReport,
    Marked,
    PlayWait,
    UnknownTournament,
    TournamentClosed,
    EntryConditions,
    WrongPassword,
    BadToken,
    MissingScope,
    TooManyTokens,
    NotABot,
    CannotUpgrade,
    TooManyStreams,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 67] = [
        ErrorCode::AlreadyChallenged,
        ErrorCode::BadLogin,
        ErrorCode::BadName,
        ErrorCode::BadPassword,
        ErrorCode::BadRecord,
        ErrorCode::Busy,
        ErrorCode::Csrf,
        ErrorCode::GameOver,
        ErrorCode::HintsOff,
        ErrorCode::IllegalMove,
        ErrorCode::Malformed,
        ErrorCode::MethodNotAllowed,
        ErrorCode::NameTaken,
        ErrorCode::NotAPuzzle,
        ErrorCode::NotAllowed,
        ErrorCode::NotFound,
        ErrorCode::NotLoggedIn,
        ErrorCode::NotYourSeat,
        ErrorCode::NotYourTurn,
        ErrorCode::OffLine,
        ErrorCode::OutOfRange,
        ErrorCode::OwnSeek,
        ErrorCode::RateLimited,
        ErrorCode::RatedNeedsAccount,
        ErrorCode::ReservedName,
        ErrorCode::SeatTaken,
        ErrorCode::Stale,
        ErrorCode::Storage,
        ErrorCode::Timeout,
        ErrorCode::TooLarge,
        ErrorCode::TooManyAnalyses,
        ErrorCode::TooManySockets,
        ErrorCode::TooManyFollows,
        ErrorCode::UnknownChallenge,
        ErrorCode::UnknownGame,
        ErrorCode::UnknownLesson,
        ErrorCode::UnknownMove,
        ErrorCode::UnknownPlayer,
        ErrorCode::UnknownPuzzle,
        ErrorCode::UnknownSeek,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::WrongHost,
        ErrorCode::WrongInvite,
        ErrorCode::WrongOrigin,
        ErrorCode::WrongSecret,
        ErrorCode::Blocked,
        ErrorCode::BadText,
        ErrorCode::Muted,
        ErrorCode::Repeated,
        ErrorCode::AccountClosed,
        ErrorCode::LoginAgain,
        ErrorCode::NotModerator,
        ErrorCode::ResetLinkInvalid,
        ErrorCode::AlreadyReported,
        ErrorCode::UnknownReport,
        ErrorCode::Marked,
        ErrorCode::PlayWait,
        ErrorCode::UnknownTournament,
        ErrorCode::TournamentClosed,
        ErrorCode::EntryConditions,
        ErrorCode::WrongPassword,
        ErrorCode::BadToken,
        ErrorCode::MissingScope,
        ErrorCode::TooManyTokens,
        ErrorCode::NotABot,
        ErrorCode::CannotUpgrade,
        ErrorCode::TooManyStreams,
    ];

    /// The code as the API writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::AlreadyChallenged => "already_challenged",
            ErrorCode::BadLogin => "bad_login",
            ErrorCode::BadName => "bad_name",
            ErrorCode::BadPassword => "bad_password",
            ErrorCode::BadRecord => "bad_record",
            ErrorCode::Busy => "busy",
            ErrorCode::Csrf => "csrf",
            ErrorCode::GameOver => "game_over",
            ErrorCode::HintsOff => "hints_off",
            ErrorCode::IllegalMove => "illegal_move",
            ErrorCode::Malformed => "malformed",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::NameTaken => "name_taken",
            ErrorCode::NotAPuzzle => "not_a_puzzle",
            ErrorCode::NotAllowed => "not_allowed",
            ErrorCode::NotFound => "not_found",
            ErrorCode::NotLoggedIn => "not_logged_in",
            ErrorCode::NotYourSeat => "not_your_seat",
            ErrorCode::NotYourTurn => "not_your_turn",
            ErrorCode::OffLine => "off_line",
            ErrorCode::OutOfRange => "out_of_range",
            ErrorCode::OwnSeek => "own_seek",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::RatedNeedsAccount => "rated_needs_account",
            ErrorCode::ReservedName => "reserved_name",
            ErrorCode::SeatTaken => "seat_taken",
            ErrorCode::Stale => "stale",
            ErrorCode::Storage => "storage",
            ErrorCode::Timeout => "timeout",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::TooManyAnalyses => "too_many_analyses",
            ErrorCode::TooManySockets => "too_many_sockets",
            ErrorCode::TooManyFollows => "too_many_follows",
            ErrorCode::UnknownChallenge => "unknown_challenge",
            ErrorCode::UnknownGame => "unknown_game",
            ErrorCode::UnknownLesson => "unknown_lesson",
            ErrorCode::UnknownMove => "unknown_move",
            ErrorCode::UnknownPlayer => "unknown_player",
            ErrorCode::UnknownPuzzle => "unknown_puzzle",
            ErrorCode::UnknownSeek => "unknown_seek",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::WrongHost => "wrong_host",
            ErrorCode::WrongInvite => "wrong_invite",
            ErrorCode::WrongOrigin => "wrong_origin",
            ErrorCode::WrongSecret => "wrong_secret",
            ErrorCode::Repeated => "repeated",
            ErrorCode::Muted => "muted",
            ErrorCode::BadText => "bad_text",
            ErrorCode::Blocked => "blocked",
            ErrorCode::AccountClosed => "account_closed",
            ErrorCode::LoginAgain => "login_again",
            ErrorCode::NotModerator => "not_moderator",
            ErrorCode::ResetLinkInvalid => "reset_link_invalid",
            ErrorCode::AlreadyReported => "already_reported",
            ErrorCode::UnknownReport => "unknown_report",
            ErrorCode::Marked => "marked",
            ErrorCode::PlayWait => "play_wait",
            ErrorCode::UnknownTournament => "unknown_tournament",
            ErrorCode::TournamentClosed => "tournament_closed",
            ErrorCode::EntryConditions => "entry_conditions",
            ErrorCode::WrongPassword => "wrong_password",
            ErrorCode::BadToken => "bad_token",
            ErrorCode::MissingScope => "missing_scope",
            ErrorCode::TooManyTokens => "too_many_tokens",
            ErrorCode::NotABot => "not_a_bot",
            ErrorCode::CannotUpgrade => "cannot_upgrade",
            ErrorCode::TooManyStreams => "too_many_streams",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: ErrorCode,
    pub message: String,
    /// Seconds after which asking again may succeed (`Retry-After`), for 429 and 503.
    pub retry_after: Option<u64>,
    /// Until when (ms since the epoch) the refusal holds, answered as `until` (a `play_wait`).
    pub until: Option<i64>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
            until: None,
        }
    }

    pub fn with_retry_after(mut self, seconds: u64) -> ApiError {
        self.retry_after = Some(seconds.max(1));
        self
    }

    pub fn malformed(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::Malformed, message)
    }

    pub fn unknown_game(id: &str) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::UnknownGame,
            format!(
                "there is no game '{}'",
                id.chars().take(40).collect::<String>()
            ),
        )
    }

    pub fn not_allowed(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, ErrorCode::NotAllowed, message)
    }

    /// The refusal of what a block stops (`what`: "challenge this player"...).
    pub fn blocked(what: &str) -> ApiError {
        ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::Blocked,
            format!("you cannot {what}: one of you has blocked the other"),
        )
    }

    pub fn game_over() -> ApiError {
        ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::GameOver,
            "the game is over",
        )
    }

    pub fn wrong_secret() -> ApiError {
        ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::WrongSecret,
            "this seat secret holds no seat in this game",
        )
    }

    pub fn storage(e: impl std::fmt::Display) -> ApiError {
        tracing::error!("storage failure: {e}");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Storage,
            format!("the game could not be stored, so nothing changed: {e}"),
        )
    }

    pub fn busy(message: impl Into<String>, retry_after: u64) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Busy, message)
            .with_retry_after(retry_after)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut resp = (
            self.status,
            Json(match self.until {
                Some(until) => json!({"error": self.code, "message": self.message, "until": until}),
                None => json!({"error": self.code, "message": self.message}),
            }),
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
                ErrorCode::Stale,
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
