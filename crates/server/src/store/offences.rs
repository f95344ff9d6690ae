//! Offences against the players' time (issue 38): a game left, a first move never made, a lost
//! game let run out on the clock. Each is recorded against the account at fault, one row per
//! game and account, so that recording it again (a retried write) changes nothing; the wait
//! before the next game is computed from them ([`wait_from`], docs/community.md, "Waits after
//! leaving, stalling or never moving").

use super::sql::{FromRow, Row, Sql};
use super::writer::Change;
use super::{Conn, Store, StoreError, StoreResult};

/// The table, the same text in both backends (new in issue 38: older databases gain it).
pub(super) const OFFENCE_TABLES: &str = "
CREATE TABLE IF NOT EXISTS play_offences (
    game TEXT NOT NULL,
    account TEXT NOT NULL REFERENCES accounts (name),
    kind TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (game, account)
);
CREATE INDEX IF NOT EXISTS play_offences_by_account ON play_offences (account, at);
";

const MINUTE: i64 = 60_000;
const HOUR: i64 = 60 * MINUTE;

/// The wait after the first, second… offence within [`OFFENCE_WINDOW_MS`]: lichess's range
/// (10 minutes up to 3 days); the sixth and every later one wait the longest.
pub const WAIT_LADDER_MS: [i64; 6] = [10 * MINUTE, HOUR, 3 * HOUR, 12 * HOUR, 24 * HOUR, 72 * HOUR];

/// How far back offences count towards the next step of the ladder: a week, so that one bad
/// evening climbs it but a player who leaves a game a month costs themselves 10 minutes.
pub const OFFENCE_WINDOW_MS: i64 = 7 * 24 * HOUR;

/// Offences a read looks at (the ladder has six steps; a dossier lists this many).
pub const OFFENCES_READ: usize = 50;

/// What the account did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OffenceKind {
    /// Lost by a claim after leaving the game.
    Left,
    /// The game was aborted because this player's first move did not come.
    NoFirstMove,
    /// Lost on time after sitting on a lost position (round::offence says when).
    Stalled,
}

impl OffenceKind {
    pub fn name(self) -> &'static str {
        match self {
            OffenceKind::Left => "left",
            OffenceKind::NoFirstMove => "no_first_move",
            OffenceKind::Stalled => "stalled",
        }
    }

    pub fn from_name(s: &str) -> Option<OffenceKind> {
        match s {
            "left" => Some(OffenceKind::Left),
            "no_first_move" => Some(OffenceKind::NoFirstMove),
            "stalled" => Some(OffenceKind::Stalled),
            _ => None,
        }
    }
}

/// One offence: in which game, whose, what, when (ms since the epoch).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffenceRow {
    pub game: String,
    pub account: String,
    pub kind: OffenceKind,
    pub at: i64,
}

impl FromRow for OffenceRow {
    fn from_row(r: &Row) -> StoreResult<OffenceRow> {
        let kind = r.text("kind")?;
        Ok(OffenceRow {
            game: r.text("game")?,
            account: r.text("account")?,
            kind: OffenceKind::from_name(&kind)
                .ok_or_else(|| StoreError::Failed(format!("an offence of kind '{kind}'")))?,
            at: r.int("at")?,
        })
    }
}

/// A wait before the next game: until when, and the offences that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayWait {
    pub until: i64,
    /// Offences counted for it (its step on the ladder).
    pub offences: usize,
}

/// The wait at `now` from `offences` (newest first): the newest offence's step on the ladder
/// (how many offences fell in the window before it, itself included) from its time. A lift
/// (`lifted`, the time of a moderator's last `lift_wait`) forgives every offence before it:
/// they stay on record but no longer count.
pub fn wait_from(offences: &[OffenceRow], lifted: Option<i64>, now: i64) -> Option<PlayWait> {
    let counted: Vec<i64> = offences
        .iter()
        .map(|o| o.at)
        .filter(|at| lifted.is_none_or(|l| *at > l))
        .collect();
    let last = counted.iter().copied().max()?;
    let n = counted
        .iter()
        .filter(|at| **at > last - OFFENCE_WINDOW_MS)
        .count();
    let until = last + WAIT_LADDER_MS[n.clamp(1, WAIT_LADDER_MS.len()) - 1];
    (until > now).then_some(PlayWait { until, offences: n })
}

/// Records `o` unless that game's offence of that account is already recorded; whether it was
/// new. The games' own change calls it in the transaction that ends the game.
pub(super) fn record(db: &mut dyn Sql, o: &OffenceRow) -> StoreResult<bool> {
    let n = db.execute(
        "INSERT INTO play_offences (game, account, kind, at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (game, account) DO NOTHING",
        &[
            (&o.game).into(),
            (&o.account).into(),
            o.kind.name().into(),
            o.at.into(),
        ],
    )?;
    Ok(n == 1)
}

fn list(db: &mut dyn Sql, account: &str, since: i64) -> StoreResult<Vec<OffenceRow>> {
    db.rows(
        "SELECT game, account, kind, at FROM play_offences WHERE account = $1 AND at > $2
         ORDER BY at DESC, game LIMIT $3",
        &[account.into(), since.into(), (OFFENCES_READ as i64).into()],
    )
}

struct Record(OffenceRow);

impl Change for Record {
    type Out = bool;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<bool> {
        record(c.sql(), &self.0)
    }
}

/// Offences and the waits they earn.
impl Store {
    /// Records `o` (once per game and account: again, it changes nothing); whether it was new.
    pub fn record_offence(&self, o: OffenceRow) -> StoreResult<bool> {
        self.writer.call(Record(o))
    }

    /// `account`'s newest offences (at most [`OFFENCES_READ`]), newest first.
    pub fn offences(&self, account: &str) -> StoreResult<Vec<OffenceRow>> {
        self.readers.sql(|db| list(db, account, i64::MIN))
    }

    /// The wait `account` is under at `now`, if any.
    pub fn play_wait(&self, account: &str, now: i64) -> StoreResult<Option<PlayWait>> {
        // Older offences cannot make a wait that lasts until now, nor count towards one.
        let since = now - OFFENCE_WINDOW_MS - WAIT_LADDER_MS[WAIT_LADDER_MS.len() - 1];
        self.readers.sql(|db| {
            let offences = list(db, account, since)?;
            if offences.is_empty() {
                return Ok(None);
            }
            let lifted = super::moderation::last_act(db, account, "lift_wait")?;
            Ok(wait_from(&offences, lifted, now))
        })
    }
}

#[cfg(test)]
mod offence_tests {
    use super::*;

    fn at(t: i64) -> OffenceRow {
        OffenceRow {
            game: format!("g{t}"),
            account: "a".into(),
            kind: OffenceKind::Left,
            at: t,
        }
    }

    #[test]
    fn the_wait_climbs_the_ladder_within_the_window_and_a_lift_forgives() {
        assert_eq!(wait_from(&[], None, 0), None);
        let one = [at(1_000)];
        assert_eq!(
            wait_from(&one, None, 1_000),
            Some(PlayWait {
                until: 1_000 + 10 * MINUTE,
                offences: 1
            })
        );
        assert_eq!(wait_from(&one, None, 1_000 + 10 * MINUTE), None);
        let two = [at(2_000), at(1_000)];
        assert_eq!(wait_from(&two, None, 2_000).unwrap().until, 2_000 + HOUR);
        // Eight in a row: the top of the ladder.
        let many: Vec<_> = (1..=8).rev().map(|i| at(i * 1_000)).collect();
        assert_eq!(
            wait_from(&many, None, 8_000).unwrap().until,
            8_000 + 72 * HOUR
        );
        // One outside the window does not count.
        let apart = [at(OFFENCE_WINDOW_MS + 1_000), at(1_000)];
        assert_eq!(
            wait_from(&apart, None, OFFENCE_WINDOW_MS + 1_000)
                .unwrap()
                .offences,
            1
        );
        // Lifted: nothing now, and the next offence starts again from the bottom.
        assert_eq!(wait_from(&two, Some(2_500), 2_600), None);
        let after = [at(3_000), at(2_000), at(1_000)];
        assert_eq!(
            wait_from(&after, Some(2_500), 3_000).unwrap().until,
            3_000 + 10 * MINUTE
        );
    }
}
