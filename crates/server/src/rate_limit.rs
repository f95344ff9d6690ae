//! A per-client rate limit (issue 10, finding 5): a token bucket per client address, so that
//! one client cannot take the engine's hints for itself.
//!
//! - A client may make `burst` requests at once, then one every `60 s / per_minute`; a refused
//!   request learns when the next one will be allowed (whole seconds, for `Retry-After`).
//! - Clients are keyed by IPv4 address, and by /64 for IPv6: one user (one home, one phone)
//!   usually holds a whole /64 and can pick a new address in it at will. IPv4 addresses mapped
//!   into IPv6 (`::ffff:a.b.c.d`, what a dual-stack listener sees) count as IPv4.
//! - Memory is bounded: at most [`MAX_CLIENTS`] clients are tracked. A client whose bucket is
//!   full again is forgotten first (that loses nothing: a new client starts with a full bucket);
//!   if all are still active, the stalest tenth (the buckets closest to full) goes.
//! - The address is the peer's: behind a reverse proxy it is the proxy's, and the caller must
//!   pass the client address the proxy reports instead.
//!
//! The bucket is kept as the time it will be full again (the "generic cell rate algorithm"):
//! one `Instant` per client and integer arithmetic, no drift.
//!
//! # Defaults for hints, in figures
//!
//! A hint keeps one worker for up to 1.5 s (`Think::movetime`); the 2-core reference machine
//! gives 80 a minute (2 workers × 60 s / 1.5 s), 120 engine-seconds a minute.
//!
//! - **[`DEFAULT_HINTS_PER_MINUTE`] = 12, one every 5 s.** A person uses at most one hint per
//!   own move, and a move cycle takes at least about 5 s: 1.5 s of hint, a couple of seconds to
//!   read it and play, then the opponent's reply. 12 a minute is the fastest human use, while
//!   one address at that rate takes 12 × 1.5 s = 18 engine-seconds a minute, 15 % of the
//!   2-core machine: it takes 7 such addresses to use every worker, and the engine queue's
//!   bound (8 waiting hints on 2 cores) answers the rest with `503`.
//! - **[`DEFAULT_HINT_BURST`] = 4.** Asking again after a few quick moves in a row is allowed,
//!   and 4 is half the 8 places in the engine queue on 2 cores, so one address alone cannot
//!   fill it and lock everyone else out.
//! - **[`MAX_CLIENTS`] = 10,000.** An entry is a 16-byte key and a 16-byte `Instant` in a hash
//!   table, under 64 bytes with the table's overhead: under 1 MB in all, whatever the number of
//!   distinct addresses. 10,000 clients each active in the same few seconds is far beyond what
//!   one engine serves; past it, the forgotten clients get a fresh burst, and the engine queue
//!   still bounds the work.
//! - One address shared by many people (a school behind one IPv4 NAT) shares one bucket; raise
//!   the limit, or set it to 0 (no limit), for such a site.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Default hints a client may ask for each minute, once its burst is spent.
pub const DEFAULT_HINTS_PER_MINUTE: u32 = 12;
/// Default hints a client may ask for at once.
pub const DEFAULT_HINT_BURST: u32 = 4;
/// Most clients tracked at once.
pub const MAX_CLIENTS: usize = 10_000;

/// A token bucket per client address.
#[derive(Debug)]
pub struct RateLimiter {
    /// Time to earn one request; `None`: no limit.
    interval: Option<Duration>,
    /// `burst × interval`: how far ahead of now a client's bucket may be emptied.
    window: Duration,
    max_clients: usize,
    /// For each client, when its bucket is full again.
    full_at: Mutex<HashMap<IpAddr, Instant>>,
}

impl RateLimiter {
    /// `per_minute` requests a minute once the `burst` is spent (`burst` 0 counts as 1);
    /// `per_minute` 0 turns the limit off.
    pub fn new(per_minute: u32, burst: u32) -> RateLimiter {
        let interval = (per_minute > 0).then(|| Duration::from_secs(60) / per_minute);
        RateLimiter {
            interval,
            window: interval.unwrap_or_default() * burst.max(1),
            max_clients: MAX_CLIENTS,
            full_at: Mutex::new(HashMap::new()),
        }
    }

    /// Tracks at most `n` clients (at least 1) instead of [`MAX_CLIENTS`].
    pub fn with_max_clients(mut self, n: usize) -> RateLimiter {
        self.max_clients = n.max(1);
        self
    }

    /// Counts one request from `ip`: `Err` with the time until the next one is allowed (whole
    /// seconds, at least 1 s) if this one is not.
    pub fn check(&self, ip: IpAddr) -> Result<(), Duration> {
        self.check_at(ip, Instant::now())
    }

    /// How many clients are tracked now.
    pub fn tracked(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Instant>> {
        self.full_at.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// [`check`](Self::check) at a given time, for tests.
    fn check_at(&self, ip: IpAddr, now: Instant) -> Result<(), Duration> {
        let Some(interval) = self.interval else {
            return Ok(());
        };
        let key = client_key(ip);
        let mut map = self.lock();
        if map.len() >= self.max_clients && !map.contains_key(&key) {
            evict(&mut map, now, self.max_clients);
        }
        let full_at = map.get(&key).copied().unwrap_or(now).max(now);
        let next = full_at + interval;
        let limit = now + self.window;
        if next > limit {
            return Err(whole_seconds(next - limit));
        }
        map.insert(key, next);
        Ok(())
    }
}

/// Makes room for one more client: forgets the clients whose bucket is full again, and if that
/// frees less than a tenth of the room, the stalest tenth too (the least behind; at least one).
fn evict(map: &mut HashMap<IpAddr, Instant>, now: Instant, max_clients: usize) {
    map.retain(|_, full_at| *full_at > now);
    let target = max_clients - max_clients.div_ceil(10);
    if map.len() <= target {
        return;
    }
    let mut by_age: Vec<(Instant, IpAddr)> = map.iter().map(|(k, t)| (*t, *k)).collect();
    let excess = by_age.len() - target;
    by_age.select_nth_unstable(excess - 1);
    for (_, key) in &by_age[..excess] {
        map.remove(key);
    }
}

/// The key a client is counted under: its IPv4 address, or its IPv6 /64.
pub fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & (!0u128 << 64))),
        },
    }
}

/// Two limits on one action: per client address and per account (the action needs one), so
/// that neither many accounts from one address nor one account from many addresses gets past.
#[derive(Debug)]
pub struct ClientAndAccount {
    pub by_client: RateLimiter,
    /// Keyed by [`account_key`].
    pub by_account: RateLimiter,
}

impl ClientAndAccount {
    pub fn new(per_minute: u32, burst: u32) -> ClientAndAccount {
        ClientAndAccount {
            by_client: RateLimiter::new(per_minute, burst),
            by_account: RateLimiter::new(per_minute, burst),
        }
    }
}

/// The key an account is counted under in a limiter of its own (one that counts accounts, not
/// addresses): its lower-case name hashed into the upper half of an IPv6 address, so that the
/// same token buckets and bounds on memory serve accounts too.
pub fn account_key(name: &str) -> IpAddr {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    name.to_lowercase().hash(&mut h);
    IpAddr::V6(Ipv6Addr::from(u128::from(h.finish()) << 64))
}

/// A wait rounded up to whole seconds, at least 1 s (what `Retry-After` can say).
fn whole_seconds(d: Duration) -> Duration {
    let secs = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    Duration::from_secs(secs.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn v4(n: u32) -> IpAddr {
        IpAddr::V4(Ipv4Addr::from(n))
    }

    fn v6(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn allows_the_burst_then_refuses_until_a_token_comes_back() {
        let limiter = RateLimiter::new(12, 4);
        let t0 = Instant::now();
        let ip = v4(0x0a00_0001);
        for _ in 0..4 {
            assert_eq!(limiter.check_at(ip, t0), Ok(()));
        }
        // One request every 5 s: the next in 5 s.
        assert_eq!(limiter.check_at(ip, t0), Err(Duration::from_secs(5)));
        let t = t0 + Duration::from_millis(3200);
        assert_eq!(limiter.check_at(ip, t), Err(Duration::from_secs(2)));
        let t = t0 + Duration::from_millis(4900);
        assert_eq!(limiter.check_at(ip, t), Err(Duration::from_secs(1)));
        let t = t0 + Duration::from_secs(5);
        assert_eq!(limiter.check_at(ip, t), Ok(()));
        assert_eq!(limiter.check_at(ip, t), Err(Duration::from_secs(5)));
        // Refused requests do not count: after 10 s more, two are allowed.
        let t = t + Duration::from_secs(10);
        assert_eq!(limiter.check_at(ip, t), Ok(()));
        assert_eq!(limiter.check_at(ip, t), Ok(()));
        assert!(limiter.check_at(ip, t).is_err());
        // Other clients are not affected.
        assert_eq!(limiter.check_at(v4(0x0a00_0002), t), Ok(()));
    }

    #[test]
    fn refills_to_the_burst_and_no_further() {
        let limiter = RateLimiter::new(60, 3);
        let t0 = Instant::now();
        let ip = v4(1);
        for _ in 0..3 {
            assert_eq!(limiter.check_at(ip, t0), Ok(()));
        }
        assert!(limiter.check_at(ip, t0).is_err());
        // An hour idle gives back the burst, not 3,600 requests.
        let t = t0 + Duration::from_secs(3600);
        for _ in 0..3 {
            assert_eq!(limiter.check_at(ip, t), Ok(()));
        }
        assert_eq!(limiter.check_at(ip, t), Err(Duration::from_secs(1)));
    }

    #[test]
    fn zero_per_minute_means_no_limit_and_zero_burst_means_one() {
        let off = RateLimiter::new(0, 0);
        let t0 = Instant::now();
        for _ in 0..1000 {
            assert_eq!(off.check_at(v4(1), t0), Ok(()));
        }
        assert_eq!(off.tracked(), 0);
        let one = RateLimiter::new(60, 0);
        assert_eq!(one.check_at(v4(1), t0), Ok(()));
        assert_eq!(one.check_at(v4(1), t0), Err(Duration::from_secs(1)));
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_64() {
        let limiter = RateLimiter::new(12, 2);
        let t0 = Instant::now();
        assert_eq!(limiter.check_at(v6("2001:db8:1:2::1"), t0), Ok(()));
        assert_eq!(limiter.check_at(v6("2001:db8:1:2:ffff::9"), t0), Ok(()));
        // A third address in the same /64 shares the bucket.
        assert!(limiter
            .check_at(v6("2001:db8:1:2:abcd:ef01:2345:6789"), t0)
            .is_err());
        // The next /64 is another client.
        assert_eq!(limiter.check_at(v6("2001:db8:1:3::1"), t0), Ok(()));
        assert_eq!(limiter.tracked(), 2);
        // An IPv4-mapped address is its IPv4 address, not one /64 for all of IPv4.
        assert_eq!(
            client_key(v6("::ffff:192.0.2.7")),
            "192.0.2.7".parse::<IpAddr>().unwrap()
        );
        assert_ne!(
            client_key(v6("::ffff:192.0.2.7")),
            client_key(v6("::ffff:198.51.100.7"))
        );
    }

    #[test]
    fn stays_bounded_under_a_flood_of_addresses() {
        let limiter = RateLimiter::new(12, 4);
        let t0 = Instant::now();
        for n in 0..100_000u32 {
            assert_eq!(limiter.check_at(v4(n), t0), Ok(()));
            assert!(limiter.tracked() <= MAX_CLIENTS);
        }
        for n in 0..100_000u128 {
            let ip = IpAddr::V6(Ipv6Addr::from((0x2001_0db8_u128 << 96) | (n << 64)));
            assert_eq!(limiter.check_at(ip, t0), Ok(()));
        }
        assert!(limiter.tracked() <= MAX_CLIENTS);
        assert!(limiter.tracked() >= MAX_CLIENTS * 9 / 10);
    }

    #[test]
    fn forgets_idle_clients_first_and_then_the_stalest() {
        let limiter = RateLimiter::new(60, 1).with_max_clients(10);
        let t0 = Instant::now();
        // Ten clients, each one second later than the previous.
        for n in 0..10 {
            let t = t0 + Duration::from_secs(n);
            assert_eq!(limiter.check_at(v4(n as u32), t), Ok(()));
        }
        // At t0 + 9.5 s, clients 0 to 8 are full again and forgotten; client 9 is kept.
        let t = t0 + Duration::from_millis(9500);
        assert_eq!(limiter.check_at(v4(100), t), Ok(()));
        assert_eq!(limiter.tracked(), 2);
        assert!(limiter.check_at(v4(9), t).is_err());
        // All busy at once: the stalest tenth (one here) goes to make room.
        let limiter = RateLimiter::new(60, 1).with_max_clients(10);
        for n in 0..10 {
            let t = t0 + Duration::from_millis(100 * n);
            assert_eq!(limiter.check_at(v4(n as u32), t), Ok(()));
        }
        let t = t0 + Duration::from_millis(950);
        assert_eq!(limiter.check_at(v4(100), t), Ok(()));
        assert_eq!(limiter.tracked(), 10);
        // Client 1 is still tracked; client 0 was forgotten (it gets a fresh bucket).
        assert!(limiter.check_at(v4(1), t).is_err());
        assert_eq!(limiter.check_at(v4(0), t), Ok(()));
    }
}

/// The per-client rates of `anywoli serve` (`--games-per-minute` and the like), in requests per
/// minute; 0 turns a limit off. Each allows a burst (fixed) above its steady rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimits {
    pub games_per_minute: u32,
    pub hints_per_minute: u32,
    pub imports_per_minute: u32,
    /// Signups and logins together.
    pub logins_per_minute: u32,
}

impl Default for RateLimits {
    /// Games: 30 a minute (burst 10): a person starts a game every few minutes; a school
    /// class behind one address starting games at once still fits the burst. Hints: 12 a
    /// minute (burst 4), see above. Imports: 10 a minute (burst 5): each holds up to 1 MiB of
    /// text while it is read. Logins: 10 a minute (burst 5): a person mistypes a password a
    /// few times; a guesser gets 14,400 tries a day from one address, and the per-name limit
    /// (crate::account::attempts) stops guessing one player's password from many.
    fn default() -> RateLimits {
        RateLimits {
            games_per_minute: 30,
            hints_per_minute: 12,
            imports_per_minute: 10,
            logins_per_minute: 10,
        }
    }
}

/// One limiter per kind of request.
pub struct Limiters {
    pub games: RateLimiter,
    pub hints: RateLimiter,
    pub imports: RateLimiter,
    pub logins: RateLimiter,
    /// Game reviews started (a stored or running one costs nothing): [`REVIEWS_PER_MINUTE`],
    /// off with the hints' limit (`--hints-per-minute 0`), since both are engine time.
    pub reviews: RateLimiter,
    /// Blocks and unblocks (issue 38): [`BLOCKS_PER_MINUTE`] a client, after a burst of 10.
    pub blocks: RateLimiter,
    /// Reports filed ([`REPORTS_PER_MINUTE`], burst 3): the store's limit per account
    /// (5 an hour) is the one a person meets; this one holds back many accounts on one address.
    pub reports: RateLimiter,
    /// Account care (exports, ending a session, closing the account): [`CARE_PER_MINUTE`],
    /// burst 5; off with the logins' limit.
    pub care: RateLimiter,
    /// Moderators' actions: [`MODERATION_PER_MINUTE`], burst 10; off with the logins' limit.
    pub moderation: RateLimiter,
    /// Requests made with API tokens, per account and per client address
    /// (crate::api::bearer::TOKEN_REQUESTS_PER_MINUTE); off with the logins' limit.
    pub tokens: ClientAndAccount,
}

/// Blocks and unblocks one client may make a minute: a person blocks someone now and then;
/// toggling in a loop is a client gone wrong (each is a write).
pub const BLOCKS_PER_MINUTE: u32 = 20;

/// Moderators' actions one client address may take a minute, after a burst of 10: a moderator
/// working through the queue acts every few seconds at most.
pub const MODERATION_PER_MINUTE: u32 = 30;

/// Account-care requests one client address may make a minute, after a burst of 5: an export
/// reads every game of the account.
pub const CARE_PER_MINUTE: u32 = 10;

/// Reports one client address may file a minute, after a burst of 3.
pub const REPORTS_PER_MINUTE: u32 = 6;

/// Reviews one client may start a minute, after a burst of 2. A review is up to a few seconds
/// of one core (4 s for 314 plies, issue 36, which found them unlimited); a person reviews a
/// game after playing it, minutes apart.
pub const REVIEWS_PER_MINUTE: u32 = 4;

/// `per_minute`, or 0 (no limit) when logins are not limited: the community's limiters
/// (reports, account care, moderators' actions) are turned off with the logins' one.
fn with_logins(r: &RateLimits, per_minute: u32) -> u32 {
    if r.logins_per_minute == 0 {
        0
    } else {
        per_minute
    }
}

impl Limiters {
    pub fn new(r: RateLimits) -> Limiters {
        Limiters {
            games: RateLimiter::new(r.games_per_minute, 10),
            hints: RateLimiter::new(r.hints_per_minute, 4),
            imports: RateLimiter::new(r.imports_per_minute, 5),
            logins: RateLimiter::new(r.logins_per_minute, 5),
            reviews: RateLimiter::new(
                if r.hints_per_minute == 0 {
                    0
                } else {
                    REVIEWS_PER_MINUTE
                },
                2,
            ),
            blocks: RateLimiter::new(BLOCKS_PER_MINUTE, 10),
            reports: RateLimiter::new(with_logins(&r, REPORTS_PER_MINUTE), 3),
            care: RateLimiter::new(with_logins(&r, CARE_PER_MINUTE), 5),
            moderation: RateLimiter::new(with_logins(&r, MODERATION_PER_MINUTE), 10),
            tokens: ClientAndAccount::new(
                with_logins(&r, crate::api::bearer::TOKEN_REQUESTS_PER_MINUTE),
                crate::api::bearer::TOKEN_REQUEST_BURST,
            ),
        }
    }
}
