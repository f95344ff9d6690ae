//! Admission: the connections open in all and per client, the client a connection counts
//! against, and the operator told about refusals.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::limits::Limits;

/// The client a connection counts against: the IPv4 address (also when mapped into IPv6, as a
/// dual-stack listener sees it), or the /64 of an IPv6 address, which one home or one phone
/// usually holds whole.
pub(super) fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// Admission: the connections open in all and per client.
pub(super) struct Gate {
    pub(super) total: Arc<Semaphore>,
    pub(super) per_client: usize,
    pub(super) clients: Mutex<HashMap<IpAddr, usize>>,
    /// Reverse proxies, whose connections are their many clients': no cap per client for
    /// them (the sockets and rates are capped per forwarded client instead).
    pub(super) trusted: crate::proxies::TrustedProxies,
}

/// Why a connection was refused.
#[derive(Clone, Copy, Debug)]
pub(super) enum Full {
    Total,
    Client,
}

impl Gate {
    pub(super) fn admit(self: &Arc<Gate>, ip: IpAddr) -> Result<Slot, Full> {
        let key = client_key(ip);
        let per_client = self.per_client > 0 && !self.trusted.contains(ip);
        if per_client {
            let mut clients = self.lock();
            let n = clients.entry(key).or_insert(0);
            if *n >= self.per_client {
                return Err(Full::Client);
            }
            *n += 1;
        }
        let client = per_client.then(|| (self.clone(), key));
        // From here the slot gives the client's count back when dropped, refused or not.
        let Ok(permit) = self.total.clone().try_acquire_owned() else {
            drop(ClientCount(client));
            return Err(Full::Total);
        };
        Ok(Slot {
            _permit: permit,
            _client: ClientCount(client),
        })
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.clients.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A connection's place: held as long as its socket is open, a WebSocket's too (it lives in
/// the socket wrapper, which an upgrade hands on).
pub(super) struct Slot {
    _permit: OwnedSemaphorePermit,
    _client: ClientCount,
}

pub(super) struct ClientCount(Option<(Arc<Gate>, IpAddr)>);

impl Drop for ClientCount {
    fn drop(&mut self) {
        if let Some((gate, key)) = self.0.take() {
            let mut clients = gate.lock();
            if let Some(n) = clients.get_mut(&key) {
                *n -= 1;
                if *n == 0 {
                    clients.remove(&key);
                }
            }
        }
    }
}

/// Tells the operator about refused connections, at most once a minute.
#[derive(Default)]
pub(super) struct Refusals {
    last: Option<Instant>,
    since: u64,
}

impl Refusals {
    pub(super) fn note(&mut self, ip: IpAddr, why: Full, limits: &Limits, max: usize) {
        self.since += 1;
        if self
            .last
            .is_some_and(|t| t.elapsed() < Duration::from_secs(60))
        {
            return;
        }
        let reason = match why {
            Full::Total => format!("{max} connections are open (--max-connections)"),
            Full::Client if ip.is_loopback() => format!(
                "{ip} has {} open (--max-connections-per-client); behind a reverse proxy every \
                 connection comes from the proxy: start with --public-url, or set \
                 --max-connections-per-client 0",
                limits.max_connections_per_client
            ),
            Full::Client => format!(
                "{ip} has {} open (--max-connections-per-client)",
                limits.max_connections_per_client
            ),
        };
        tracing::warn!(
            "refused {} connection(s) since the last such message; the last because {reason}",
            self.since
        );
        self.last = Some(Instant::now());
        self.since = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_are_ipv4_addresses_and_ipv6_64s() {
        let v4: IpAddr = "192.0.2.7".parse().unwrap();
        assert_eq!(client_key(v4), v4);
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(client_key(mapped), v4);
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_key(a), client_key(b));
        assert_ne!(client_key(a), client_key(c));
    }

    #[test]
    fn the_gate_counts_per_client_and_in_all() {
        let gate = Arc::new(Gate {
            total: Arc::new(Semaphore::new(3)),
            per_client: 2,
            clients: Mutex::new(HashMap::new()),
            trusted: "192.0.2.9".parse().unwrap(),
        });
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let a1 = gate.admit(a).unwrap();
        let _a2 = gate.admit(a).unwrap();
        assert!(matches!(gate.admit(a), Err(Full::Client)));
        let _b1 = gate.admit(b).unwrap();
        assert!(matches!(gate.admit(b), Err(Full::Total)));
        // A refusal for the total gives the client's count back.
        assert_eq!(gate.lock().get(&client_key(b)), Some(&1));
        drop(a1);
        assert_eq!(gate.lock().get(&client_key(a)), Some(&1));
        let _a3 = gate.admit(a).unwrap();
        assert!(matches!(gate.admit(a), Err(Full::Client)));
    }

    #[test]
    fn a_trusted_proxy_has_no_cap_per_client() {
        let gate = Arc::new(Gate {
            total: Arc::new(Semaphore::new(5)),
            per_client: 1,
            clients: Mutex::new(HashMap::new()),
            trusted: "127.0.0.1/32".parse().unwrap(),
        });
        let proxy: IpAddr = "127.0.0.1".parse().unwrap();
        let held: Vec<_> = (0..5).map(|_| gate.admit(proxy).unwrap()).collect();
        assert!(
            matches!(gate.admit(proxy), Err(Full::Total)),
            "the total still holds"
        );
        assert!(gate.lock().is_empty());
        drop(held);
    }
}
