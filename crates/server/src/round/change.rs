//! A game's changes (decided, stored, then applied) and the events they make for watchers.

use anywoli_core::{BySide, Position, Side, Trace};

use super::game::Game;
use super::offer::Offer;

/// A change to a game, checked against the game before it is stored. The same value is stored
/// (crate::round::persist) and applied to memory ([`Game::apply`]), so the two cannot differ.
#[derive(Clone, Debug)]
pub enum Change {
    /// A move by a person or the engine, `lag_ms` the network's allowance claimed for it (its
    /// clock, if any, is charged less that, within round::clock::LAG_CAP_MS).
    Move {
        trace: Trace,
        at: i64,
        lag_ms: i64,
    },
    /// The side to move ran out of time.
    Flag {
        loser: Side,
        at: i64,
    },
    /// The game is called off before each side has moved once.
    Abort {
        at: i64,
    },
    /// A player offers a draw or asks to take a move back.
    Offer(Offer),
    /// The offer is declined (or withdrawn) by `by`.
    Decline {
        by: Side,
    },
    /// The players agreed to a draw.
    Draw {
        at: i64,
    },
    /// `side`'s player has no connection to the game since `away` (or is back: `None`).
    Presence {
        side: Side,
        away: Option<i64>,
    },
    /// `winner` claims the game its opponent left.
    Claim {
        winner: Side,
        at: i64,
    },
    /// Keep the first `keep` moves.
    TakeBack {
        keep: usize,
        at: i64,
    },
    Resign {
        loser: Side,
        at: i64,
    },
    /// A friend takes the free seat (logged in as `account`, or not) at `at`: from then on
    /// the game is between two people, and South's first move is due.
    Join {
        seat: Side,
        secret: String,
        account: Option<String>,
        at: i64,
    },
    /// Who holds the seats by name, and whether the game is listed while played.
    Seating {
        accounts: BySide<Option<String>>,
        public: bool,
    },
    /// A rematch `next` was made (and is stored in the same transaction).
    Rematch {
        next: Box<Game>,
    },
}

/// What happened, for the game's watchers (docs/api.md, "Events").
#[derive(Clone, Debug)]
pub enum Event {
    /// The whole state (on connecting, or after something a watcher has to look at again).
    State,
    Move {
        before: Position,
        trace: Trace,
    },
    Thinking,
    Seat,
    TakeBack,
    Resign {
        side: Side,
    },
    Rematch {
        id: String,
    },
    /// The side to move ran out of time.
    Flag {
        side: Side,
    },
    Aborted,
    Offer(Offer),
    /// `by` declined the offer (or withdrew their own).
    Declined {
        by: Side,
    },
    /// A draw by agreement.
    Drawn,
    /// `side`'s player left the game (`here` false) or came back.
    Presence {
        side: Side,
        here: bool,
    },
    /// `side` won the game its opponent left.
    Claimed {
        side: Side,
    },
}
