//! Games: their rows and moves, the changes a round makes to them (`change.rs`, each checked
//! against the game's revision, sent to the writer as a `GameOp`: `op.rs`) and the reads
//! (`read.rs`), in SQL that both backends share but for the head of a change
//! (`Conn::change`).

mod change;
mod export;
mod list;
mod op;
mod read;

pub(crate) use change::{insert_game, GameChange};
pub use export::{Cursor, ExportFilter};
pub use list::{Counts, Listing, Outcome, PlayerGames};
#[cfg(test)]
pub(in crate::store) use op::GameDone;
pub(in crate::store) use op::GameOp;
pub(crate) use read::{due, ids_after, load};

use super::RateGame;
use super::{Store, StoreResult};
use crate::rating::GameRatings;

/// One row of `games`: everything about a game but its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    pub id: String,
    /// Milliseconds since the Unix epoch.
    pub created: i64,
    pub updated: i64,
    /// `computer`, `friend` or `local`.
    pub mode: String,
    pub rules: String,
    /// The lottery seed, as text because SQLite integers are signed 64-bit.
    pub seed: String,
    /// The position string the game started from.
    pub start: String,
    /// `human` or `level:N`, for South and North.
    pub seats: [String; 2],
    /// The seat secrets; `None` for a computer seat or a friend's seat nobody has taken yet.
    pub secrets: [Option<String>; 2],
    /// `playing` or `over`.
    pub status: String,
    /// `*`, `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// Why the game ended: `last_seeds`, `quiet`, `resignation`, or a record's own text.
    pub termination: Option<String>,
    /// The game that a rematch of this one started.
    pub rematch: Option<String>,
    /// Free tags of an imported record, as a JSON array of pairs.
    pub tags: String,
    /// Hints may be asked for. Between friends only when both agreed as the game was made.
    pub hints: bool,
    /// A friend game's join token (only the invite link carries it); `None` before tokens.
    pub invite: Option<String>,
    /// How many changes the game has had: each change names the revision it was checked
    /// against and is refused ([`crate::store::StoreError::Conflict`]) if another server changed the game
    /// first.
    pub revision: i64,
    /// The server instance that owes the engine's reply, while it is the engine's turn.
    pub engine: Option<EngineClaim>,
    /// The clocks of a game made with a time control.
    pub clock: Option<ClockRow>,
    /// An offer waiting for the other player: `draw:south`, `takeback:north`.
    pub offer: Option<String>,
    /// Since when each side's player (South, North) has had no connection to the game.
    pub away: [Option<i64>; 2],
    /// The account names holding South's and North's seats, if any.
    pub accounts: [Option<String>; 2],
    /// Whether the game changes its players' ratings.
    pub rated: bool,
    /// Whether the game is listed while it is played.
    pub public: bool,
    /// The players' ratings as the game began and, once rated, after it
    /// (crate::rating::GameRatings as JSON).
    pub ratings: Option<String>,
    /// The rating category of its clock (crate::rating::Category), for lists' filters.
    pub category: Option<String>,
}

/// A game's clocks as stored (crate::round::clock).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockRow {
    /// The time control, `5+3` or `3d`.
    pub control: String,
    /// Milliseconds left for South and North when their time last stopped.
    pub left: [i64; 2],
    /// Since when the side to move uses its time (milliseconds since the epoch); `None` while
    /// the clocks do not run.
    pub since: Option<i64>,
    /// When the side to move's time is up whatever its lag: each instance looks for games
    /// past it (`Store::due`).
    pub deadline: Option<i64>,
}

/// Which server instance plays the engine's move in a game, and until when that claim holds:
/// past `until` another instance may take the engine's turn over (its owner has died, or is
/// far behind).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineClaim {
    pub owner: String,
    /// Milliseconds since the Unix epoch.
    pub until: i64,
}

/// A line of the archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub id: String,
    pub created: i64,
    pub updated: i64,
    pub mode: String,
    pub rules: String,
    pub seats: [String; 2],
    pub status: String,
    pub result: String,
    pub moves: i64,
    pub accounts: [Option<String>; 2],
    pub rated: bool,
    pub clock: Option<String>,
}

/// What every change to a stored game carries.
#[derive(Clone, Debug)]
pub struct Head {
    pub id: String,
    /// The revision the change was checked against; the game's revision becomes one more.
    pub expect: i64,
    /// When, in milliseconds since the Unix epoch.
    pub at: i64,
    /// Who owes the engine's reply after the change (none when it is not the engine's turn).
    pub engine: Option<EngineClaim>,
    /// The clocks after the change.
    pub clock: Option<ClockRow>,
    /// The offer waiting after the change.
    pub offer: Option<String>,
    /// Since when each side's player has been away, after the change.
    pub away: [Option<i64>; 2],
}

/// A game's `status`, `result` and `termination` columns.
#[derive(Clone, Debug)]
pub struct StatusRow {
    pub status: String,
    pub result: String,
    pub termination: Option<String>,
    /// A rated game that ends with this change: its players' ratings change with it.
    pub rate: Option<RateGame>,
    /// The offence of a player this change ends the game with (left, never moved, stalled),
    /// recorded in the same transaction.
    pub offence: Option<crate::store::OffenceRow>,
    /// A game this change ends, as the opening explorer counts it (in the same transaction).
    pub explore: Option<crate::store::ExploreGame>,
}

/// A game's changes and reads, and the lists of games.
impl Store {
    pub fn create_game(&self, g: &GameRow, moves: &[String]) -> StoreResult<()> {
        self.writer
            .call(GameOp::CreateGame {
                row: g.clone(),
                moves: moves.to_vec(),
            })
            .map(drop)
    }

    pub fn load(&self, id: &str) -> StoreResult<Option<(GameRow, Vec<String>)>> {
        self.readers.with(|c| load(c, id))
    }

    /// Appends move number `ply` (counting from 1) and the game's new status in one
    /// transaction. Fails, changing nothing, if that ply is already stored or the game is no
    /// longer at `head.expect`.
    pub fn append_move(
        &self,
        head: Head,
        ply: usize,
        mv: &str,
        status: StatusRow,
    ) -> StoreResult<Option<GameRatings>> {
        self.writer
            .call(GameOp::AppendMove {
                head,
                ply: ply as i64,
                mv: mv.to_string(),
                status,
            })
            .map(|done| done.ratings)
    }

    /// Keeps the first `keep` moves and deletes the rest (a take-back); the game is playing.
    pub fn truncate_moves(&self, head: Head, keep: usize) -> StoreResult<()> {
        self.writer
            .call(GameOp::TruncateMoves {
                head,
                keep: keep as i64,
            })
            .map(drop)
    }

    pub fn set_status(&self, head: Head, status: StatusRow) -> StoreResult<Option<GameRatings>> {
        self.writer
            .call(GameOp::SetStatus { head, status })
            .map(|done| done.ratings)
    }

    /// A change of what the head carries only (an offer made or answered).
    pub fn touch(&self, head: Head) -> StoreResult<()> {
        self.writer.call(GameOp::Touch { head }).map(drop)
    }

    /// Stores the game's head and its tags (JSON), checked against its revision.
    pub fn retag(&self, head: Head, tags: &str) -> StoreResult<()> {
        self.writer
            .call(GameOp::Retag {
                head,
                tags: tags.to_string(),
            })
            .map(drop)
    }

    /// Gives an untaken seat its secret. A seat someone took first is a
    /// [`StoreError::Conflict`], as any change to a game that moved on.
    pub fn claim_seat(
        &self,
        head: Head,
        seat: usize,
        secret: &str,
        account: Option<&str>,
    ) -> StoreResult<()> {
        self.writer
            .call(GameOp::ClaimSeat {
                head,
                seat,
                secret: secret.to_string(),
                account: account.map(str::to_string),
            })
            .map(drop)
    }

    /// Creates the rematch game `next` and links the game to it, in one transaction; a
    /// [`StoreError::Conflict`] (creating nothing) if the game already has a rematch.
    pub fn create_rematch(&self, head: Head, next: &GameRow) -> StoreResult<()> {
        self.writer
            .call(GameOp::CreateRematch {
                head,
                next: next.clone(),
            })
            .map(drop)
    }

    /// Claims the engine's turn in game `id` at revision `expect` for this instance until
    /// `until`, if nobody holds it or its holder's claim ran out before `now`. True if granted.
    /// The claim changes no revision: it is not a change of the game.
    pub fn claim_engine(&self, id: &str, expect: i64, now: i64, until: i64) -> StoreResult<bool> {
        self.writer
            .call(GameOp::ClaimEngine {
                id: id.to_string(),
                expect,
                claim: EngineClaim {
                    owner: self.instance.clone(),
                    until,
                },
                now,
            })
            .map(|done| done.took)
    }

    /// Up to `limit` games (of each kind) with something overdue at `now`: an engine claim
    /// that ran out (its owner did not play the move in time: it died, so another instance
    /// takes the turn over), or a clock whose deadline passed (a flag to call).
    pub fn due(&self, now: i64, limit: usize) -> StoreResult<Vec<String>> {
        self.readers.sql(|db| due(db, now, limit))
    }

    /// Sets who holds each seat and whether the game is listed while played.
    pub fn set_seating(
        &self,
        head: Head,
        accounts: [Option<String>; 2],
        public: bool,
    ) -> StoreResult<()> {
        self.writer
            .call(GameOp::SetSeating {
                head,
                accounts,
                public,
            })
            .map(drop)
    }

    /// The games of a list, newest change first.
    pub fn list(&self, l: &Listing) -> StoreResult<Vec<Summary>> {
        self.readers.sql(|db| list::list(db, l))
    }

    /// The most recently updated games, newest first; live friend games are unlisted (their
    /// players did not make them public, and their free seat is for the invited friend).
    pub fn recent(&self, limit: usize) -> StoreResult<Vec<Summary>> {
        self.list(&Listing::Public { limit })
    }

    /// Up to `limit` game ids greater than `after`, in byte order (`""` for the first page),
    /// every game included: for walking a whole store a page at a time (`anywoli db migrate`).
    pub fn ids_after(&self, after: &str, limit: usize) -> StoreResult<Vec<String>> {
        self.readers.sql(|db| ids_after(db, after, limit))
    }

    /// A player's wins, draws and losses.
    /// The next page of an export's games (see `export.rs`): their cursors, newest first.
    pub fn export_page(
        &self,
        f: &ExportFilter,
        cursor: Option<&Cursor>,
        limit: usize,
    ) -> StoreResult<Vec<Cursor>> {
        self.readers.sql(|db| export::page(db, f, cursor, limit))
    }

    /// The ids of the games in play that `name` holds a seat in, the latest changed first.
    pub fn playing_of(&self, name: &str, limit: usize) -> StoreResult<Vec<String>> {
        self.readers.sql(|db| {
            db.query(
                "SELECT id FROM games
                 WHERE (south_account = $1 OR north_account = $1) AND status = 'playing'
                 ORDER BY updated DESC LIMIT $2",
                &[name.into(), (limit as i64).into()],
            )?
            .iter()
            .map(|r| r.text("id"))
            .collect()
        })
    }

    pub fn counts(&self, name: &str) -> StoreResult<Counts> {
        self.readers.sql(|db| list::counts(db, name))
    }
}
