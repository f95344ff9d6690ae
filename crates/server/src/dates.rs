//! Dates as the app writes them: the one place a day is computed from a time.

use std::sync::atomic::{AtomicI64, Ordering};

/// Added to the system's time: 0 but in tests of clocks (see [`shift_for_tests`]).
static SHIFT_MS: AtomicI64 = AtomicI64::new(0);

/// Milliseconds since the Unix epoch, now: the one time every clock, lease and date of the
/// server is read from.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
        + SHIFT_MS.load(Ordering::Relaxed)
}

/// Moves this process's time forward by `ms`, so that a test sees a clock run out without
/// waiting for it. The server never calls it; a test binary that does should hold only tests
/// that can live with it (timers set before the shift still wait their real time, so the
/// tests look at the game, which calls a fallen flag at once).
#[doc(hidden)]
pub fn shift_for_tests(ms: i64) {
    SHIFT_MS.fetch_add(ms, Ordering::Relaxed);
}

/// `YYYY.MM.DD` (UTC) of a time in milliseconds since the epoch, as records write dates.
pub fn record_date(ms: i64) -> String {
    let (y, m, d) = civil(ms.div_euclid(86_400_000));
    format!("{y:04}.{m:02}.{d:02}")
}

/// The (year, month, day) of a day counted from 1970-01-01 (Howard Hinnant's days-to-civil).
pub fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The day counted from 1970-01-01 of a (year, month, day): [`civil`]'s inverse (Hinnant's
/// days-from-civil).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_from_civil_undoes_civil() {
        for days in [-800_000, -1, 0, 1, 11_016, 20_512, 2_000_000] {
            let (y, m, d) = civil(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(days_from_civil(2000, 2, 29) * 86_400_000, 951_782_400_000);
    }

    #[test]
    fn dates_are_civil_dates() {
        assert_eq!(record_date(0), "1970.01.01");
        // 2026-11-30T12:00:00Z
        assert_eq!(record_date(1_796_040_000_000), "2026.11.30");
        assert_eq!(record_date(951_782_400_000), "2000.02.29");
        assert_eq!(record_date(-86_400_000), "1969.12.31");
    }
}
