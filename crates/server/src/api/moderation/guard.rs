//! Who may use `/api/mod/`: a moderator (read from the store at each request, so `anywoli
//! admin grant-moderator` and `revoke-moderator` act at once), with the session's CSRF token on
//! writes and a login of the last [`RECENT_LOGIN_MS`] (an old cookie left on a shared computer
//! does not carry the role), at most 30 writes a minute from one address. Everyone else gets
//! 403 `not_moderator`, logged in or not.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{Method, StatusCode};

use crate::account::session::check_csrf;
use crate::api::client::ClientIp;
use crate::api::extract::Viewer;
use crate::app::AppState;
use crate::error::{ApiError, ErrorCode};
use crate::store::SessionRow;

/// How recent a moderator's login must be: 12 hours.
pub const RECENT_LOGIN_MS: i64 = 12 * 3600 * 1000;

/// A moderator's request, checked as above.
pub struct Moderator(pub SessionRow);

fn not_moderator() -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        ErrorCode::NotModerator,
        "only moderators can do this",
    )
}

impl FromRequestParts<AppState> for Moderator {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, ApiError> {
        let Viewer(session) = Viewer::from_request_parts(parts, st).await?;
        let s = session.ok_or_else(not_moderator)?;
        let name = s.name.clone();
        if !st.db(move |db| db.standing(&name)).await?.moderator {
            return Err(not_moderator());
        }
        if parts.method != Method::GET && parts.method != Method::HEAD {
            check_csrf(&parts.headers, &s)?;
            // Trusted, and logged, but a stolen session must not close accounts by the hundred.
            let Ok(client) = ClientIp::from_request_parts(parts, st).await;
            client.check(&st.limiters().moderation, "moderator actions")?;
        }
        if s.created < crate::dates::now_ms() - RECENT_LOGIN_MS {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::LoginAgain,
                "log in again: moderators' requests need a login of the last 12 hours",
            ));
        }
        Ok(Moderator(s))
    }
}

/// Refuses (`403 account_closed`) what a connection opened before its account closed asks
/// for: a lobby socket keeps the name it opened with, and the store is asked again here.
pub async fn refuse_closed(st: &AppState, name: Option<&str>) -> Result<(), ApiError> {
    let Some(name) = name.map(str::to_string) else {
        return Ok(());
    };
    if st.db(move |db| db.standing(&name)).await?.closed.is_some() {
        return Err(account_closed());
    }
    Ok(())
}

/// `403 account_closed`.
pub fn account_closed() -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        ErrorCode::AccountClosed,
        "this account is closed",
    )
}
