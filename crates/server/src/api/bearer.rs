//! Requests made with a personal API token (`Authorization: Bearer TOKEN`, docs/api-bots.md):
//! the [`Bearer`] extractor, which finds the token's account and scopes, and [`Caller`], which
//! takes a token or else a logged-in session (with its CSRF token), for the endpoints that
//! programs and the page share (challenges).
//!
//! A token is looked up by its SHA-256, never logged, never echoed: an unknown or revoked one
//! is `401 bad_token` whatever it was. Requests made with tokens are limited per account
//! ([`TOKEN_REQUESTS_PER_MINUTE`]) and per client address, as the account's own are.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, StatusCode};

use crate::account::token::{looks_like_token, Scope, Scopes};
use crate::api::client::ClientIp;
use crate::api::extract::Authed;
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ErrorCode};
use crate::rate_limit::account_key;

/// Requests one account may make a minute with its tokens, after a burst of
/// [`TOKEN_REQUEST_BURST`]: 100 a second, what a bot playing 20 games at once against house
/// bots (which answer at once) makes at 200 ms a move; a loop gone wrong is stopped.
pub const TOKEN_REQUESTS_PER_MINUTE: u32 = 6000;
pub const TOKEN_REQUEST_BURST: u32 = 300;

/// The account a valid token speaks for, and what it may do.
#[derive(Clone, Debug)]
pub struct Bearer {
    pub name: String,
    pub scopes: Scopes,
}

impl Bearer {
    /// Refuses (`403 missing_scope`) unless the token has `scope`.
    pub fn require(&self, scope: Scope) -> Result<(), ApiError> {
        if self.scopes.has(scope) {
            Ok(())
        } else {
            Err(missing_scope(scope))
        }
    }

    /// Refuses unless the token has one of `scopes`.
    pub fn require_any(&self, scopes: &[Scope]) -> Result<(), ApiError> {
        match scopes.iter().any(|s| self.scopes.has(*s)) {
            true => Ok(()),
            false => Err(missing_scope(scopes[0])),
        }
    }
}

pub fn missing_scope(scope: Scope) -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        ErrorCode::MissingScope,
        format!(
            "this token lacks the scope {}: make one that has it",
            scope.name()
        ),
    )
}

fn bad_token() -> ApiError {
    ApiError::new(
        StatusCode::UNAUTHORIZED,
        ErrorCode::BadToken,
        "the token is unknown or was revoked: send Authorization: Bearer with a token made \
         on the account page",
    )
}

/// The bearer token of a request, if its `Authorization` names one (of whatever shape).
fn bearer_text(parts: &Parts) -> Option<&str> {
    let v = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, rest) = v.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then_some(rest.trim())
}

impl FromRequestParts<AppState> for Bearer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, ApiError> {
        let text = bearer_text(parts).ok_or_else(|| {
            ApiError::new(
                StatusCode::UNAUTHORIZED,
                ErrorCode::BadToken,
                "this endpoint needs a token: send Authorization: Bearer TOKEN",
            )
        })?;
        if !looks_like_token(text) {
            return Err(bad_token());
        }
        let hash = crate::account::session::token_of(text);
        let ClientIp(client) = ClientIp::from_request_parts(parts, st)
            .await
            .unwrap_or(ClientIp(None));
        let looked = hash.clone();
        let row = st
            .db(move |s| s.token(&looked))
            .await?
            .ok_or_else(bad_token)?;
        limit(st, client, &row.account)?;
        crate::api::moderation::refuse_closed(st, Some(&row.account)).await?;
        let now = now_ms();
        if row
            .used
            .is_none_or(|u| now - u >= crate::store::USED_EVERY_MS)
        {
            // Best effort: a request is not refused because its token's last use was not
            // written.
            let _ = st.db(move |s| s.token_used(&hash, now)).await;
        }
        Ok(Bearer {
            name: row.account,
            scopes: Scopes::stored(&row.scopes),
        })
    }
}

fn limit(st: &AppState, client: Option<std::net::IpAddr>, account: &str) -> Result<(), ApiError> {
    let l = &st.limiters().tokens;
    let refused = |wait: std::time::Duration| {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!(
                "too many requests with this account's tokens; try again in {} s",
                wait.as_secs().max(1)
            ),
        )
        .with_retry_after(wait.as_secs().max(1))
    };
    l.by_account.check(account_key(account)).map_err(refused)?;
    if let Some(ip) = client {
        l.by_client.check(ip).map_err(refused)?;
    }
    Ok(())
}

/// A token if the request sends one (`Authorization`), refused if it is bad; none if not.
impl axum::extract::OptionalFromRequestParts<AppState> for Bearer {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        st: &AppState,
    ) -> Result<Option<Self>, ApiError> {
        if !parts.headers.contains_key(header::AUTHORIZATION) {
            return Ok(None);
        }
        Ok(Some(
            <Bearer as FromRequestParts<AppState>>::from_request_parts(parts, st).await?,
        ))
    }
}

/// Who makes a request that a program (with a token) or the page (with its session) may make.
pub enum Caller {
    Token(Bearer),
    Session(String),
}

impl Caller {
    pub fn name(&self) -> &str {
        match self {
            Caller::Token(b) => &b.name,
            Caller::Session(n) => n,
        }
    }

    /// A token must have `scope`; a session may do anything its account may.
    pub fn require(&self, scope: Scope) -> Result<(), ApiError> {
        match self {
            Caller::Token(b) => b.require(scope),
            Caller::Session(_) => Ok(()),
        }
    }
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, ApiError> {
        if parts.headers.contains_key(header::AUTHORIZATION) {
            return Ok(Caller::Token(Bearer::from_request_parts(parts, st).await?));
        }
        let Authed(s) = Authed::from_request_parts(parts, st).await?;
        Ok(Caller::Session(s.name))
    }
}
