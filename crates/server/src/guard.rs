//! What every request passes before a handler sees it, and what every answer carries:
//! - the `Host` it was sent to must be this server's (against DNS rebinding: a page of another
//!   site whose name is made to point at 127.0.0.1 would otherwise talk to the app), and so must
//!   a WebSocket's or a POST's `Origin` (against cross-site WebSockets and posts);
//! - `X-Content-Type-Options: nosniff` on every answer;
//! - an API error is always the JSON error, even one made by the router or an extractor
//!   before any handler ran (a bad path, a bad method).

use crate::error::ErrorCode;
use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// The host names a request may be addressed to. IP literals are always allowed: DNS
/// rebinding needs a name, and friends on a network open the server by its address.
#[derive(Clone, Debug, Default)]
pub struct AllowedHosts {
    names: Arc<Vec<String>>,
}

impl AllowedHosts {
    /// `localhost` (and `*.localhost`), plus `names` (the public URL's host, `--allowed-host`).
    pub fn new(names: impl IntoIterator<Item = String>) -> AllowedHosts {
        AllowedHosts {
            names: Arc::new(
                names
                    .into_iter()
                    .map(|n| n.trim().trim_end_matches('.').to_ascii_lowercase())
                    .filter(|n| !n.is_empty())
                    .collect(),
            ),
        }
    }

    /// Whether `host` (a `Host` header: name or address, with or without a port) is ours.
    pub fn allows(&self, host: &str) -> bool {
        let name = strip_port(host.trim()).to_ascii_lowercase();
        let name = name.trim_end_matches('.');
        if name.is_empty() {
            return false;
        }
        if name.trim_matches(['[', ']']).parse::<IpAddr>().is_ok() {
            return true;
        }
        // Names only the local network resolves (a one-label host name, mDNS `.local`, the
        // home network's zones) cannot be pointed at this machine by another site's DNS.
        let local = !name.contains('.')
            || [".localhost", ".local", ".home.arpa", ".lan", ".internal"]
                .iter()
                .any(|zone| name.ends_with(zone));
        local || self.names.iter().any(|n| n == name)
    }

    /// Whether `origin` (`scheme://host[:port]`, or `null`) is a page of ours, for a request
    /// sent to `host` (its `Host` header): the same host and port as the request (a page
    /// posts to the server that served it), the same host when a proxy passed the `Host`
    /// without its port, or a name of ours (the public URL's, `--allowed-host`). Issue 36:
    /// any IP address, one-label or `.local` name was accepted, so a page of another device
    /// on the network could post with a player's cookie.
    pub fn allows_origin(&self, origin: &str, host: Option<&str>) -> bool {
        let Some(authority) = origin
            .strip_prefix("https://")
            .or_else(|| origin.strip_prefix("http://"))
            .filter(|r| !r.is_empty() && !r.contains('/'))
            .map(str::to_ascii_lowercase)
        else {
            return false;
        };
        let origin_name = strip_port(&authority).trim_end_matches('.').to_string();
        if self.names.contains(&origin_name) {
            return true;
        }
        let Some(host) = host.map(|h| h.trim().to_ascii_lowercase()) else {
            return false;
        };
        let host_name = strip_port(&host).trim_end_matches('.').to_string();
        let host_has_port = host_name.len() != host.trim_end_matches('.').len();
        self.allows(&host)
            && (authority.trim_end_matches('.') == host.trim_end_matches('.')
                || (!host_has_port && origin_name == host_name))
    }
}

/// `example.org:8080` → `example.org`; `[::1]:8080` → `[::1]`; `::1` stays.
fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host
            .split_once(']')
            .map_or(host, |(h, _)| &host[..h.len() + 1]);
    }
    match host.rsplit_once(':') {
        Some((h, port)) if !h.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host,
    }
}

/// The middleware: checks `Host` and `Origin`, then marks and fixes up the answer.
pub async fn guard(State(hosts): State<AllowedHosts>, req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .or_else(|| req.uri().authority().map(|a| a.to_string()));
    let is_api = req.uri().path().starts_with("/api/");
    let mut resp = match host {
        Some(h) if !hosts.allows(&h) => {
            let message = format!(
                "this server does not answer to the host '{}' (start it with --allowed-host {} to add the name)",
                h.chars().take(80).collect::<String>(),
                strip_port(&h).chars().take(80).collect::<String>()
            );
            if is_api {
                ApiError::new(
                    StatusCode::MISDIRECTED_REQUEST,
                    ErrorCode::WrongHost,
                    message,
                )
                .into_response()
            } else {
                // A person opening the page by a name the operator did not list: say so in words.
                let page = format!(
                    "<!doctype html><meta charset=utf-8><title>Anywoli</title><p>Anywoli: {}</p>",
                    message.replace('&', "&amp;").replace('<', "&lt;")
                );
                (
                    StatusCode::MISDIRECTED_REQUEST,
                    [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                    page,
                )
                    .into_response()
            }
        }
        _ => {
            let origin = req
                .headers()
                .get(header::ORIGIN)
                .and_then(|o| o.to_str().ok());
            let needs_origin =
                req.method() == Method::POST || req.headers().contains_key(header::UPGRADE);
            match origin {
                Some(o) if needs_origin && !hosts.allows_origin(o, host.as_deref()) => {
                    ApiError::new(
                        StatusCode::FORBIDDEN,
                        ErrorCode::WrongOrigin,
                        "requests from pages of other sites are refused",
                    )
                    .into_response()
                }
                _ => next.run(req).await,
            }
        }
    };
    if is_api {
        resp = json_errors(resp).await;
    }
    resp.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    resp
}

/// An API answer that is an error but not JSON (made by the router or an extractor) becomes
/// the JSON error for its status, keeping the text as the message.
async fn json_errors(resp: Response) -> Response {
    let status = resp.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return resp;
    }
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return resp;
    }
    let bytes = axum::body::to_bytes(resp.into_body(), 4096)
        .await
        .unwrap_or_default();
    let text: String = String::from_utf8_lossy(&bytes).chars().take(200).collect();
    let code = match status {
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::TooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
        StatusCode::REQUEST_TIMEOUT => ErrorCode::Timeout,
        s if s.is_server_error() => ErrorCode::Storage,
        _ => ErrorCode::Malformed,
    };
    let message = if text.trim().is_empty() {
        status.canonical_reason().unwrap_or("error").to_string()
    } else {
        text
    };
    ApiError::new(status, code, message).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_by_address_or_by_a_known_name() {
        let h = AllowedHosts::new(["anywoli.example.org".to_string()]);
        for ok in [
            "127.0.0.1:8080",
            "127.0.0.2",
            "192.168.1.5:8080",
            "[::1]:8080",
            "::1",
            "localhost:8080",
            "LOCALHOST",
            "app.localhost",
            "mypc:8080",
            "mypc.local",
            "router.home.arpa",
            "anywoli.example.org",
            "Anywoli.Example.Org:443",
            "anywoli.example.org.",
        ] {
            assert!(h.allows(ok), "{ok}");
        }
        for bad in [
            "evil.example.com",
            "evil.example.com:8080",
            "127.0.0.1.evil.com",
            "localhost.evil.com",
            "",
            "anywoli.example.org.evil.com",
        ] {
            assert!(!h.allows(bad), "{bad}");
        }
    }

    #[test]
    fn origins_are_the_request_s_own_host_or_a_name_of_ours() {
        let h = AllowedHosts::new(["anywoli.example.org".to_string()]);
        let host = Some("127.0.0.1:8080");
        assert!(h.allows_origin("http://127.0.0.1:8080", host));
        assert!(
            h.allows_origin("https://anywoli.example.org", host),
            "the public URL"
        );
        assert!(h.allows_origin(
            "https://anywoli.example.org:8443",
            Some("anywoli.example.org")
        ));
        assert!(h.allows_origin("http://mypc.local:8080", Some("mypc.local:8080")));
        assert!(h.allows_origin("http://[::1]:8080", Some("[::1]:8080")));
        for bad in [
            // Another device's page on the network, or another program on this machine.
            "http://192.168.1.99:8080",
            "http://127.0.0.1:3000",
            "http://evil.local:8080",
            "http://printer:8080",
            "https://evil.example.com",
            "null",
            "http://127.0.0.1:8080/path",
            "http://",
        ] {
            assert!(!h.allows_origin(bad, host), "{bad}");
        }
        assert!(!h.allows_origin("http://127.0.0.1:8080", None));
        // A request to a host we do not answer to is refused whatever its origin.
        assert!(!h.allows_origin("http://evil.example.com", Some("evil.example.com")));
    }
}
