//! Where people reach the server, so that the links the page shows work for them.
//!
//! The page builds links from the address its browser used, unless the operator named a public
//! address (`--public-url`, behind a reverse proxy). When the server listens on loopback only,
//! nobody on another device can reach it whatever the link says, and the page says so.

use std::fmt;
use std::net::{IpAddr, SocketAddr};

use serde::Serialize;

/// An `http` or `https` origin with no path: `https://anywoli.example.org` or
/// `http://192.168.1.20:8080`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicUrl(String);

/// What is wrong with a `--public-url`.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum PublicUrlError {
    #[error("--public-url must start with http:// or https:// (got '{0}')")]
    Scheme(String),
    #[error("--public-url has no host name")]
    NoHost,
    #[error("--public-url must be an origin without a path, query or user (got '{0}'): the app's pages live at the root")]
    Path(String),
    #[error("--public-url's host '{0}' holds a character a host name cannot")]
    Host(String),
}

impl PublicUrl {
    pub fn parse(s: &str) -> Result<PublicUrl, PublicUrlError> {
        let s = s.trim();
        let short: String = s.chars().take(80).collect();
        let rest = s
            .strip_prefix("https://")
            .or_else(|| s.strip_prefix("http://"))
            .ok_or_else(|| PublicUrlError::Scheme(short.clone()))?;
        let host = rest.strip_suffix('/').unwrap_or(rest);
        if host.is_empty() {
            return Err(PublicUrlError::NoHost);
        }
        if host.contains(['/', '?', '#', '@']) {
            return Err(PublicUrlError::Path(short));
        }
        let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']');
        if !host.chars().all(ok) {
            return Err(PublicUrlError::Host(host.chars().take(80).collect()));
        }
        let scheme_len = s.len() - rest.len();
        Ok(PublicUrl(format!("{}{host}", &s[..scheme_len])))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PublicUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What `GET /api/site` tells the page about how it is reached.
#[derive(Clone, Debug, Serialize)]
pub struct SiteView {
    /// The origin links are built from, when the operator set one; otherwise the page uses the
    /// address its browser used.
    pub public_url: Option<String>,
    /// The server listens on a loopback address only: other devices cannot reach it.
    pub loopback_only: bool,
    /// The port the server listens on, for the advice on how to open it up.
    pub port: u16,
    /// `http://ADDRESS:PORT` for each network address of this machine the server answers on
    /// (none with a public URL or on loopback), read once at start: what a friend on the same
    /// network can open when the page itself was opened at a loopback address.
    pub network_urls: Vec<String>,
}

impl SiteView {
    pub fn new(listening: SocketAddr, public_url: Option<&PublicUrl>) -> SiteView {
        let loopback_only = is_loopback(listening.ip());
        let network_urls = if loopback_only || public_url.is_some() {
            Vec::new()
        } else {
            network_urls(listening)
        };
        SiteView {
            public_url: public_url.map(|u| u.to_string()),
            loopback_only,
            port: listening.port(),
            network_urls,
        }
    }
}

/// The addresses other devices may reach a server listening at `listening` on: that address
/// itself, or, for 0.0.0.0 / [::], every interface's address but loopback and IPv6 link-local
/// (which needs a zone the browser cannot be given). IPv4 first: easier to type.
fn network_urls(listening: SocketAddr) -> Vec<String> {
    let port = listening.port();
    let url = |ip: IpAddr| match ip {
        IpAddr::V4(v4) => format!("http://{v4}:{port}"),
        IpAddr::V6(v6) => format!("http://[{v6}]:{port}"),
    };
    if !listening.ip().is_unspecified() {
        return vec![url(listening.ip())];
    }
    let want_v6 = listening.is_ipv6();
    let mut ips: Vec<IpAddr> = if_addrs::get_if_addrs()
        .unwrap_or_default()
        .into_iter()
        .map(|i| i.ip())
        .filter(|ip| !is_loopback(*ip))
        .filter(|ip| match ip {
            IpAddr::V4(_) => true,
            // A server on [::] usually answers IPv4 too; one on 0.0.0.0 never answers IPv6.
            IpAddr::V6(v6) => want_v6 && (v6.segments()[0] & 0xffc0) != 0xfe80,
        })
        .collect();
    ips.sort_by_key(|ip| (ip.is_ipv6(), *ip));
    ips.dedup();
    ips.into_iter().map(url).collect()
}

fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_urls_are_origins() {
        assert_eq!(
            PublicUrl::parse("https://anywoli.example.org/")
                .unwrap()
                .as_str(),
            "https://anywoli.example.org"
        );
        assert_eq!(
            PublicUrl::parse("http://192.168.1.20:8080")
                .unwrap()
                .as_str(),
            "http://192.168.1.20:8080"
        );
        assert_eq!(
            PublicUrl::parse("http://[::1]:8080").unwrap().as_str(),
            "http://[::1]:8080"
        );
        assert!(matches!(
            PublicUrl::parse("anywoli.example.org"),
            Err(PublicUrlError::Scheme(_))
        ));
        assert!(matches!(
            PublicUrl::parse("ftp://x"),
            Err(PublicUrlError::Scheme(_))
        ));
        assert_eq!(PublicUrl::parse("https://"), Err(PublicUrlError::NoHost));
        assert!(matches!(
            PublicUrl::parse("https://x.org/play"),
            Err(PublicUrlError::Path(_))
        ));
        assert!(matches!(
            PublicUrl::parse("https://u@x.org"),
            Err(PublicUrlError::Path(_))
        ));
        assert!(matches!(
            PublicUrl::parse("https://x .org"),
            Err(PublicUrlError::Host(_))
        ));
        assert!(matches!(
            PublicUrl::parse("https://x\".org"),
            Err(PublicUrlError::Host(_))
        ));
    }

    #[test]
    fn loopback_is_told_apart() {
        let site = |a: &str| SiteView::new(a.parse().unwrap(), None);
        assert!(site("127.0.0.1:8080").loopback_only);
        assert!(site("127.0.0.2:8080").loopback_only);
        assert!(site("[::1]:8080").loopback_only);
        assert!(!site("0.0.0.0:8080").loopback_only);
        assert!(!site("[::]:8080").loopback_only);
        assert!(!site("192.168.1.5:8080").loopback_only);
        assert_eq!(site("127.0.0.1:8123").port, 8123);
        assert!(site("127.0.0.1:8080").network_urls.is_empty());
        assert_eq!(
            site("192.168.1.5:8080").network_urls,
            vec!["http://192.168.1.5:8080".to_string()]
        );
        let public = PublicUrl::parse("https://a.example").unwrap();
        assert!(SiteView::new("0.0.0.0:80".parse().unwrap(), Some(&public))
            .network_urls
            .is_empty());
        for u in site("0.0.0.0:8080").network_urls {
            assert!(u.starts_with("http://") && u.ends_with(":8080"), "{u}");
            assert!(!u.contains("127.0.0.") && !u.contains("[::1]"), "{u}");
        }
    }
}
