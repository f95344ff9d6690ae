//! Who is asking: the client's address, for the per-client limits (crate::rate_limit,
//! crate::ws::caps, logins).
//!
//! The address is the peer's, unless the peer is a trusted reverse proxy: then it is the one
//! that proxy saw (crate::proxies). A peer that is not trusted cannot choose its address by
//! sending forwarding headers. At main 74384e7 any loopback peer was believed, and behind
//! nginx without `X-Forwarded-For` every client was the proxy.

use crate::error::ErrorCode;
use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;

use crate::app::AppState;
use crate::error::{ApiError, ApiResult};
use crate::rate_limit::RateLimiter;

/// The client's address (see the module's text). `None` for requests that did not come over
/// a socket (tests calling the router).
#[derive(Clone, Copy, Debug)]
pub struct ClientIp(pub Option<IpAddr>);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        st: &AppState,
    ) -> Result<Self, std::convert::Infallible> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        Ok(ClientIp(
            peer.map(|p| st.trusted_proxies().client(p, &parts.headers)),
        ))
    }
}

impl ClientIp {
    /// Refuses the request (429, `Retry-After`) when this client went over `limiter`'s rate.
    pub fn check(&self, limiter: &RateLimiter, what: &str) -> ApiResult<()> {
        let Some(ip) = self.0 else { return Ok(()) };
        limiter.check(ip).map_err(|wait| {
            ApiError::new(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::RateLimited,
                format!(
                    "too many {what} from your address; try again in {} s",
                    wait.as_secs().max(1)
                ),
            )
            .with_retry_after(wait.as_secs())
        })
    }
}
