//! Who is asking: the client's address, for the per-client limits (crate::rate_limit).

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::HeaderMap;

use crate::error::{ApiError, ApiResult};
use crate::rate_limit::RateLimiter;

/// The client's address: the peer's, or, when the peer is a reverse proxy on this machine
/// (a loopback address), the last address that proxy put in `X-Forwarded-For` (the one it
/// saw; earlier entries are the client's own claims). `None` for requests that did not come
/// over a socket (tests calling the router).
pub struct ClientIp(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientIp {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        Ok(ClientIp(match peer {
            Some(p) if p.is_loopback() => forwarded(&parts.headers).or(Some(p)),
            other => other,
        }))
    }
}

fn forwarded(headers: &HeaderMap) -> Option<IpAddr> {
    let last = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .last()?;
    last.trim().parse().ok()
}

impl ClientIp {
    /// Refuses the request (429, `Retry-After`) when this client went over `limiter`'s rate.
    pub fn check(&self, limiter: &RateLimiter, what: &str) -> ApiResult<()> {
        let Some(ip) = self.0 else { return Ok(()) };
        limiter.check(ip).map_err(|wait| {
            ApiError::new(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                format!(
                    "too many {what} from your address; try again in {} s",
                    wait.as_secs().max(1)
                ),
            )
            .with_retry_after(wait.as_secs())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proxy_s_own_entry_counts() {
        let mut h = HeaderMap::new();
        h.append("x-forwarded-for", "1.2.3.4, 10.0.0.7".parse().unwrap());
        assert_eq!(forwarded(&h), Some("10.0.0.7".parse().unwrap()));
        h.append("x-forwarded-for", "2001:db8::1".parse().unwrap());
        assert_eq!(forwarded(&h), Some("2001:db8::1".parse().unwrap()));
        assert_eq!(forwarded(&HeaderMap::new()), None);
    }
}
