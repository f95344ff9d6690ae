//! Giving freed memory back to the system. Issue 36: 100,000 games in memory took 2.7 GB, and
//! the server's resident memory stayed there after they ended, since glibc keeps what is
//! freed in its arenas for later. When many rounds have rested since the last look, the
//! server asks glibc to return its free pages (`malloc_trim`, a few milliseconds).

use std::time::Duration;

/// How often the server looks, and how many rounds must have gone since the busiest moment
/// of the last period for it to give memory back.
const EVERY: Duration = Duration::from_secs(30);
const ROUNDS_GONE: usize = 1000;

/// Gives the allocator's free memory back to the system now.
pub fn give_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory the allocator holds free; it takes no pointer
    // and may be called from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Runs until `rounds` says `None` (the rounds are gone): gives memory back whenever
/// [`ROUNDS_GONE`] rounds rested since the most there were. It takes the count rather than the
/// rounds, so that this module stays below `round`, which calls it.
pub async fn give_back_when_rounds_rest(rounds: impl Fn() -> Option<usize>) {
    let mut most = 0;
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(now) = rounds() else { return };
        most = most.max(now);
        if most >= now + ROUNDS_GONE {
            tokio::task::spawn_blocking(give_back);
            most = now;
        }
    }
}
