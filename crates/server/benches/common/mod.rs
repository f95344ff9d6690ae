//! What the benches share.

/// This process's resident memory (KiB), from /proc.
#[allow(dead_code)] // each bench compiles this module; not every one measures memory
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// No per-client rates: every client of a bench is 127.0.0.1, and the rates would refuse most.
#[allow(dead_code)] // each bench compiles this module; not every one starts a server
pub fn no_rates() -> anywoli_server::RateLimits {
    anywoli_server::RateLimits {
        games_per_minute: 0,
        hints_per_minute: 0,
        imports_per_minute: 0,
        logins_per_minute: 0,
    }
}
