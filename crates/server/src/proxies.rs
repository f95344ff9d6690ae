//! Which reverse proxies are believed (`--trusted-proxy CIDR`, none by default), and the
//! client they name: the right-most address of `X-Forwarded-For` that is not itself a trusted
//! proxy (earlier entries are whatever the client claimed), or `X-Real-IP` when there is no
//! `X-Forwarded-For`. The listener (per-client connection caps) and the API (`ClientIp`) both
//! ask it, so it sits below both.

use std::net::IpAddr;
use std::str::FromStr;

use axum::http::HeaderMap;
use ipnet::IpNet;

/// The reverse proxies whose forwarding headers are believed (`--trusted-proxy`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

/// A `--trusted-proxy` that is neither an address nor a network.
#[derive(Debug, thiserror::Error)]
#[error("'{0}' is not an IP address or network (such as 127.0.0.1/32 or ::1)")]
pub struct BadProxy(String);

impl FromStr for TrustedProxies {
    type Err = BadProxy;

    /// One network (`127.0.0.1/32`, `10.0.0.0/8`, `::1/128`) or address (`127.0.0.1`).
    fn from_str(s: &str) -> Result<TrustedProxies, BadProxy> {
        let s = s.trim();
        let net = s
            .parse::<IpNet>()
            .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
            .map_err(|_| BadProxy(s.chars().take(60).collect()))?;
        Ok(TrustedProxies(vec![net.trunc()]))
    }
}

impl TrustedProxies {
    /// All of `lists` together.
    pub fn join(lists: impl IntoIterator<Item = TrustedProxies>) -> TrustedProxies {
        TrustedProxies(lists.into_iter().flat_map(|l| l.0).collect())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `ip` is one of the trusted proxies (an IPv4 address mapped into IPv6, as a
    /// dual-stack listener sees it, counts as the IPv4 one).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|n| n.contains(&ip))
    }

    /// The client behind a request that came from `peer`.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.contains(peer) {
            return peer;
        }
        let hops: Vec<&str> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect();
        if hops.is_empty() {
            return headers
                .get("x-real-ip")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(peer);
        }
        let mut client = peer;
        for hop in hops.iter().rev() {
            // An entry that is not an address was not written by a proxy we know: stop at
            // the last one that was.
            let Ok(ip) = hop.parse::<IpAddr>() else { break };
            client = ip;
            if !self.contains(ip) {
                break;
            }
        }
        client
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, v.parse().unwrap());
        }
        h
    }

    fn trusted(list: &[&str]) -> TrustedProxies {
        TrustedProxies::join(list.iter().map(|s| s.parse().unwrap()))
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_claims() {
        let h = headers(&[("x-forwarded-for", "1.2.3.4"), ("x-real-ip", "5.6.7.8")]);
        assert_eq!(
            TrustedProxies::default().client(ip("127.0.0.1"), &h),
            ip("127.0.0.1")
        );
        let t = trusted(&["10.0.0.1"]);
        assert_eq!(t.client(ip("127.0.0.1"), &h), ip("127.0.0.1"));
    }

    #[test]
    fn behind_a_trusted_proxy_the_right_most_untrusted_hop_is_the_client() {
        let t = trusted(&["127.0.0.1/32", "10.0.0.0/8"]);
        // The client claimed 6.6.6.6; nginx appended what it saw (1.2.3.4), and a second
        // proxy of ours (10.1.1.1) appended the first's address.
        let h = headers(&[
            ("x-forwarded-for", "6.6.6.6, 1.2.3.4"),
            ("x-forwarded-for", "10.1.1.1"),
        ]);
        assert_eq!(t.client(ip("127.0.0.1"), &h), ip("1.2.3.4"));
        assert_eq!(
            t.client(ip("::ffff:127.0.0.1"), &h),
            ip("1.2.3.4"),
            "mapped IPv4"
        );
        let h = headers(&[("x-real-ip", "2001:db8::7")]);
        assert_eq!(t.client(ip("127.0.0.1"), &h), ip("2001:db8::7"));
        let h = headers(&[("x-forwarded-for", "6.6.6.6, garbage, 10.1.1.1")]);
        assert_eq!(
            t.client(ip("127.0.0.1"), &h),
            ip("10.1.1.1"),
            "stops at a bad hop"
        );
        assert_eq!(
            t.client(ip("127.0.0.1"), &HeaderMap::new()),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn networks_and_addresses_parse_and_nonsense_is_named() {
        assert!("127.0.0.1"
            .parse::<TrustedProxies>()
            .unwrap()
            .contains(ip("127.0.0.1")));
        let t: TrustedProxies = "10.0.0.0/8".parse().unwrap();
        assert!(t.contains(ip("10.200.0.1")) && !t.contains(ip("11.0.0.1")));
        let t: TrustedProxies = "::1".parse().unwrap();
        assert!(t.contains(ip("::1")));
        let e = "localhost".parse::<TrustedProxies>().unwrap_err();
        assert!(e.to_string().contains("'localhost'"), "{e}");
        assert!("10.0.0.0/33".parse::<TrustedProxies>().is_err());
    }
}
