//! A game's changes (decided, stored, then applied) and the events they make for watchers,
//! with [`Game::apply`], which makes a change in memory: here rather than in `game.rs`, which
//! then needs nothing of this module.

use anywoli_core::{BySide, Outcome, Position, Side, Trace};

use super::game::Game;
use super::offer::{Offer, OfferKind};
use super::status::{status_after, Status};
use super::termination::Termination;

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
    /// `side` berserks (an arena game, before its first move): half its time, no increment.
    Berserk {
        side: Side,
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
    /// `side` berserked.
    Berserk {
        side: Side,
    },
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

/// How each change happens in memory.
impl Game {
    /// Makes `change` happen in memory (it was checked and stored before) and says what
    /// happened. The only place a game changes.
    pub fn apply(&mut self, change: &Change) -> Event {
        self.revision += 1;
        self.flips = 0;
        // An offer stands until it is answered or the game moves on in any other way (a player
        // coming or going is not the game moving on). A draw offered before one's own move
        // stands through it, as over the board (offer, then move): the opponent answers it,
        // or declines it by moving.
        let keeps = match (change, self.offer) {
            (Change::Presence { .. }, _) => true,
            (Change::Move { .. }, Some(o)) => {
                o.kind == OfferKind::Draw && self.pos.to_move() == Some(o.by)
            }
            _ => false,
        };
        if !keeps {
            self.offer = None;
        }
        match change {
            Change::Move { trace, at, lag_ms } => self.apply_move(trace, *at, *lag_ms),
            Change::TakeBack { keep, at } => self.apply_take_back(*keep, *at),
            Change::Resign { loser, at } => {
                self.end(
                    Outcome::Win(loser.opponent()),
                    Termination::Resignation,
                    *at,
                );
                Event::Resign { side: *loser }
            }
            Change::Flag { loser, at } => {
                // The flag falls on the loser's clock, whoever the position says is to move.
                self.clock = self.clock.map(|c| {
                    let mut c = c.stopped(Some(*loser), *at);
                    c.left[*loser] = 0;
                    c
                });
                self.end(Outcome::Win(loser.opponent()), Termination::Time, *at);
                Event::Flag { side: *loser }
            }
            Change::Abort { at } => {
                self.stop_clock(*at);
                self.status = Status::Aborted;
                self.updated = *at;
                Event::Aborted
            }
            Change::Offer(offer) => {
                self.offer = Some(*offer);
                Event::Offer(*offer)
            }
            Change::Decline { by } => Event::Declined { by: *by },
            Change::Presence { side, away } => {
                self.away[*side] = *away;
                Event::Presence {
                    side: *side,
                    here: away.is_none(),
                }
            }
            Change::Claim { winner, at } => {
                self.end(Outcome::Win(*winner), Termination::Abandoned, *at);
                Event::Claimed { side: *winner }
            }
            Change::Draw { at } => {
                self.end(Outcome::Draw, Termination::Agreement, *at);
                Event::Drawn
            }
            Change::Join {
                seat,
                secret,
                account,
                at,
            } => {
                self.secrets[*seat] = Some(secret.clone());
                self.people.accounts[*seat] = account.clone();
                self.updated = *at;
                Event::Seat
            }
            Change::Seating { accounts, public } => {
                self.people.accounts = accounts.clone();
                self.people.public = *public;
                Event::Seat
            }
            Change::Berserk { side, at } => {
                self.clock = self.clock.map(|c| c.berserked(*side));
                let mut sides = super::game::berserk_tag(&self.tags)
                    .unwrap_or_default()
                    .to_string();
                sides.push(if *side == Side::South { 'S' } else { 'N' });
                self.set_berserk_tag(sides);
                self.updated = *at;
                Event::Berserk { side: *side }
            }
            Change::Rematch { next } => {
                self.rematch = Some(next.id.clone());
                Event::Rematch {
                    id: next.id.clone(),
                }
            }
        }
    }

    fn apply_move(&mut self, trace: &Trace, at: i64, lag_ms: i64) -> Event {
        let before = self.pos;
        let mover = before.to_move();
        if let Some(side) = mover {
            self.moved[side] = true;
        }
        self.moves.push(trace.mv);
        self.pos = trace.after;
        self.status = status_after(trace);
        self.updated = at;
        if let (Some(clock), Some(side)) = (self.clock, mover) {
            let both = self.moved == BySide::both(true);
            self.clock = Some(clock.after_move(side, at, lag_ms, both, !self.is_playing()));
        }
        Event::Move {
            before,
            trace: trace.clone(),
        }
    }

    fn apply_take_back(&mut self, keep: usize, at: i64) -> Event {
        self.moves.truncate(keep);
        self.pos = self.line().after(keep);
        self.moved = self.line().sides_moved();
        self.status = Status::Playing;
        self.updated = at;
        let running = self.moved == BySide::both(true);
        self.clock = self.clock.map(|c| c.restarted(running, at));
        Event::TakeBack
    }

    /// The game ends by a player's act or the clock (the rules' own ends come with a move).
    fn end(&mut self, outcome: Outcome, termination: Termination, at: i64) {
        self.stop_clock(at);
        self.status = Status::Over {
            outcome,
            termination: Some(termination),
        };
        self.updated = at;
    }

    /// Stops the clocks, charging the side to move for its time so far (a clock already
    /// stopped stays as it is).
    fn stop_clock(&mut self, at: i64) {
        self.clock = self.clock.map(|c| c.stopped(self.pos.to_move(), at));
    }

    /// Marks the engine as thinking (or not), which watchers see.
    pub fn set_thinking(&mut self, thinking: bool) -> Event {
        self.thinking = thinking;
        self.flips = self.flips.saturating_add(1);
        if thinking {
            Event::Thinking
        } else {
            Event::State
        }
    }
}
