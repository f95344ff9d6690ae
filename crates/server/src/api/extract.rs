//! Who is asking, as the handlers take it: the session the cookie opens ([`Viewer`]), and
//! the same checked against its CSRF token for requests that change something ([`Acting`],
//! [`Authed`]). The cookie and token helpers they use are `account::session`'s; these are the
//! HTTP edge's, so `account` knows nothing of the app's state.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::StatusCode;

use crate::account::session::{check_csrf, cookie_in, token_of};
use crate::app::AppState;
use crate::error::{ApiError, ErrorCode};
use crate::store::SessionRow;

/// Who is asking: the session the cookie opens, if any. A cookie that opens none (ended,
/// guessed) is the same as none.
pub struct Viewer(pub Option<SessionRow>);

impl Viewer {
    pub fn name(&self) -> Option<&str> {
        self.0.as_ref().map(|s| s.name.as_str())
    }
}

impl FromRequestParts<AppState> for Viewer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, ApiError> {
        let Some(cookie) = cookie_in(&parts.headers) else {
            return Ok(Viewer(None));
        };
        let token = token_of(&cookie);
        let now = crate::dates::now_ms();
        let session = st.db(move |s| s.session(&token, now)).await?;
        Ok(Viewer(session))
    }
}

/// A request that changes something, made with or without an account (a new game, joining
/// one, a puzzle's moves): the session the cookie opens, if any, and then its `X-CSRF-Token`
/// must be right (else `403 csrf`, and nothing changes), so that another site's page cannot
/// act for the account its cookie rides with (issue 36: creating and joining took none).
pub struct Acting(pub Option<SessionRow>);

impl Acting {
    pub fn name(&self) -> Option<&str> {
        self.0.as_ref().map(|s| s.name.as_str())
    }
}

impl FromRequestParts<AppState> for Acting {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, ApiError> {
        let Viewer(session) = Viewer::from_request_parts(parts, st).await?;
        if let Some(s) = &session {
            check_csrf(&parts.headers, s)?;
        }
        Ok(Acting(session))
    }
}

/// A logged-in account's request that changes something: the cookie must open a session and
/// `X-CSRF-Token` must be that session's token (else `401 not_logged_in` or `403 csrf`, and
/// nothing changes).
pub struct Authed(pub SessionRow);

impl FromRequestParts<AppState> for Authed {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, ApiError> {
        let Viewer(session) = Viewer::from_request_parts(parts, st).await?;
        let session = session.ok_or_else(not_logged_in)?;
        check_csrf(&parts.headers, &session)?;
        Ok(Authed(session))
    }
}

pub fn not_logged_in() -> ApiError {
    ApiError::new(
        StatusCode::UNAUTHORIZED,
        ErrorCode::NotLoggedIn,
        "log in first: this needs an account",
    )
}
