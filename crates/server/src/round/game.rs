//! A game as the server holds it, typed: who sits where, how it stands, and the changes that
//! can happen to it. A change is decided (checked) first, then stored, then applied to memory;
//! [`Game::apply`] (in `change.rs`) is the one place a game changes, and it returns the event
//! to announce. Its parts: [`super::mode`], [`super::status`], [`super::offer`],
//! [`super::change`], and the game's stored forms in [`super::row`] (the store's row) and
//! [`super::record`] (a record).

pub use super::fairness::{claim_after_ms, first_move_ms, MIN_RATED_PLIES};
pub use super::mode::{Mode, Player};
pub use super::offer::{Offer, OfferKind};
pub use super::status::{status_after, Status};
pub use super::termination::{Termination, MAX_RECORDED};
use anywoli_core::{lottery_draw, BySide, Line, Move, Position, Rules, Side};

use crate::rating::{Category, GameRatings};
use crate::round::clock::{Clock, TimeControl};
use crate::store::EngineClaim;

/// The tag an arena's games carry: present when berserk is allowed, its value the sides that
/// berserked (`S`, `N`, `SN`).
pub const BERSERK_TAG: &str = "Berserk";

/// The tags that name a seat's title (`BOT`), as PGN's `WhiteTitle`/`BlackTitle` do: set
/// when the game is made, so that every view and record of it says so without asking the store.
pub const TITLE_TAGS: BySide<&str> = BySide::new("SouthTitle", "NorthTitle");

/// The title of `side`'s player, if the game names one.
pub fn title_of(tags: &[(String, String)], side: Side) -> Option<&str> {
    tags.iter()
        .find(|(k, _)| k == TITLE_TAGS[side])
        .map(|(_, v)| v.as_str())
}

/// The sides that berserked, when the game allows it.
pub fn berserk_tag(tags: &[(String, String)]) -> Option<&str> {
    tags.iter()
        .find(|(k, _)| k == BERSERK_TAG)
        .map(|(_, v)| v.as_str())
}

/// A game in memory. `pos` is always the position after `moves` from `start`.
#[derive(Clone, Debug)]
pub struct Game {
    pub id: String,
    pub created: i64,
    pub updated: i64,
    pub mode: Mode,
    pub rules: Rules,
    /// South's and North's seats.
    pub players: BySide<Player>,
    pub(super) secrets: BySide<Option<String>>,
    pub start: Position,
    pub moves: Vec<Move>,
    pub pos: Position,
    pub status: Status,
    pub rematch: Option<String>,
    /// An imported record's tags, kept for export.
    pub tags: Vec<(String, String)>,
    /// Hints may be asked for; between friends only when both agreed when the game was made.
    pub hints: bool,
    /// The token a friend game's invite link carries: only its holder may take the free seat.
    pub invite: Option<String>,
    /// How many changes the game has had, as stored: a change is stored only if the game is
    /// still at the revision it was checked against (another server may have changed it).
    pub revision: i64,
    /// Changes of `thinking` since the last revision (they are not stored).
    pub(super) flips: u16,
    /// Which server owes the engine's reply, as stored.
    pub engine: Option<EngineClaim>,
    /// The clocks of a game made with a time control.
    pub clock: Option<Clock>,
    /// Whether each side (South, North) has moved at least once: the clocks run, and the game
    /// can no longer be aborted, once both have.
    pub moved: BySide<bool>,
    /// An offer waiting for the other player (between people).
    pub offer: Option<Offer>,
    /// Since when each side's player (South, North) has had no connection to the game, as
    /// stored: an opponent away long enough lets the other claim the win.
    pub away: BySide<Option<i64>>,
    /// The engine is choosing (or storing) a move for this game.
    pub thinking: bool,
    /// Who plays it by name, and whether it counts for ratings.
    pub people: People,
}

/// A game's players by name, and what the game is to them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct People {
    /// The account names holding South's and North's seats (none: anonymous, or the computer).
    pub accounts: BySide<Option<String>>,
    /// The game changes both players' ratings (both seats then belong to accounts).
    pub rated: bool,
    /// Listed while it is played (lobby games, and games their players made public).
    pub public: bool,
    /// The players' ratings as the game began, and what the game did to them.
    pub ratings: GameRatings,
}

impl People {
    /// A game nobody is named in, listed unless it is between friends (whose free seat is
    /// for the invited friend).
    pub fn anonymous(mode: Mode) -> People {
        People {
            public: mode != Mode::Friend,
            ..People::default()
        }
    }
}

/// Everything needed to make a new game.
pub struct NewGame {
    pub id: String,
    pub at: i64,
    pub mode: Mode,
    pub rules: Rules,
    pub players: BySide<Player>,
    pub secrets: BySide<Option<String>>,
    pub start: Position,
    pub hints: bool,
    pub invite: Option<String>,
    pub clock: Option<TimeControl>,
    pub people: People,
}

/// Versions start far above the clock in milliseconds (until the year 2096), which older
/// servers used: a page open across the upgrade still takes the new states as newer.
const VERSION_BASE: u64 = 4_000_000_000_000;

impl Game {
    /// Names the seats of the accounts among `bots` as `BOT`s ([`TITLE_TAGS`]).
    pub fn set_bot_titles(&mut self, bots: &[String]) {
        for side in Side::ALL {
            let bot = self.people.accounts[side]
                .as_ref()
                .is_some_and(|a| bots.contains(a));
            if bot && title_of(&self.tags, side).is_none() {
                self.tags
                    .push((TITLE_TAGS[side].to_string(), "BOT".to_string()));
            }
        }
    }

    /// Sets the berserk tag's value (the game allows berserk).
    pub fn set_berserk_tag(&mut self, sides: String) {
        match self.tags.iter_mut().find(|(k, _)| k == BERSERK_TAG) {
            Some(t) => t.1 = sides,
            None => self.tags.push((BERSERK_TAG.to_string(), sides)),
        }
    }
}

impl Game {
    pub fn new(n: NewGame) -> Game {
        Game {
            id: n.id,
            created: n.at,
            updated: n.at,
            mode: n.mode,
            rules: n.rules,
            players: n.players,
            secrets: n.secrets,
            start: n.start,
            moves: Vec::new(),
            pos: n.start,
            status: Status::Playing,
            rematch: None,
            tags: Vec::new(),
            hints: n.hints,
            invite: n.invite,
            revision: 0,
            flips: 0,
            engine: None,
            clock: n.clock.map(Clock::new),
            moved: BySide::both(false),
            offer: None,
            away: BySide::both(None),
            thinking: false,
            people: n.people,
        }
    }

    /// When the game must be looked at again even if nobody asks: when the side to move's flag
    /// falls, or its wait for a first move ends. None when nothing can happen by itself.
    pub fn deadline(&self) -> Option<i64> {
        if !self.is_playing() {
            return None;
        }
        let flag = self.clock.and_then(|c| c.deadline(self.pos.to_move()));
        flag.or_else(|| self.first_move_deadline())
    }

    /// When a real-time game between two people is aborted for want of its side to move's
    /// first move ([`first_move_ms`] after the change that made it theirs: the seats filled, or
    /// the opponent's first move).
    pub fn first_move_deadline(&self) -> Option<i64> {
        let wait = first_move_ms(self.category()?)?;
        let side = self.pos.to_move()?;
        // A house bot's seat (the computer's, in a game between accounts) is always taken.
        let both_seated = Side::ALL
            .into_iter()
            .all(|s| matches!(self.players[s], Player::Computer(_)) || self.secrets[s].is_some());
        let people = self.mode == Mode::Friend && self.players[side] == Player::Human;
        (self.is_playing() && people && both_seated && !self.moved[side])
            .then_some(self.updated + wait)
    }

    /// The rating category of the game's clock; none for an untimed game.
    pub fn category(&self) -> Option<Category> {
        self.clock.map(|c| c.control.category())
    }

    /// South's score if the game just ended in a way that rates it: a rated game between two
    /// accounts, over with a result after at least [`MIN_RATED_PLIES`] plies, not yet rated.
    pub fn score_to_rate(&self) -> Option<f64> {
        let p = &self.people;
        if !p.rated || p.ratings.change.is_some() || p.accounts.iter().any(Option::is_none) {
            return None;
        }
        match &self.status {
            // Ended by the players themselves before the fourth ply: not rated (a flag needs
            // both clocks run down, and the rules' own ends come later).
            Status::Over {
                termination:
                    Some(Termination::Resignation | Termination::Agreement | Termination::Abandoned),
                ..
            } if self.moves.len() < MIN_RATED_PLIES => None,
            Status::Over { outcome, .. } => Some(outcome.score_for(Side::South)),
            _ => None,
        }
    }

    /// Goes up with every change, the engine starting or stopping to think included, so that
    /// a client can tell a newer state from an older one: from the stored revision, so that
    /// every server instance and every restart agree on it.
    pub fn version(&self) -> u64 {
        VERSION_BASE + (self.revision.max(0) as u64) * 65_536 + u64::from(self.flips)
    }

    pub fn is_playing(&self) -> bool {
        self.status == Status::Playing
    }

    /// The seats `secret` holds (South, North or both); none for a wrong secret.
    pub fn seats_of(&self, secret: &str) -> Vec<Side> {
        [Side::South, Side::North]
            .into_iter()
            .filter(|s| {
                self.secrets[*s]
                    .as_deref()
                    .is_some_and(|held| constant_time_eq(held.as_bytes(), secret.as_bytes()))
            })
            .collect()
    }

    /// The secrets of both seats, for a rematch (the players keep theirs).
    pub fn secrets(&self) -> &BySide<Option<String>> {
        &self.secrets
    }

    /// A friend game's seat that nobody holds yet.
    pub fn free_seat(&self) -> Option<Side> {
        [Side::South, Side::North]
            .into_iter()
            .find(|&s| self.players[s] == Player::Human && self.secrets[s].is_none())
    }

    /// Whether `token` opens this game's free seat. A friend game made before invite tokens
    /// has none, and its old links keep working.
    pub fn invite_matches(&self, token: Option<&str>) -> bool {
        match (&self.invite, token) {
            (None, _) => true,
            (Some(want), Some(got)) => constant_time_eq(want.as_bytes(), got.as_bytes()),
            (Some(_), None) => false,
        }
    }

    /// The engine's level when it is the engine's turn in a game still going on.
    pub fn computer_to_move(&self) -> Option<u8> {
        if !self.is_playing() {
            return None;
        }
        match self.players[self.pos.to_move()?] {
            Player::Computer(level) => Some(level),
            Player::Human => None,
        }
    }

    /// Who takes the last seeds whatever happens in the game, if the rules say so up front.
    pub fn last_seeds_to(&self) -> Option<Side> {
        match self.rules {
            Rules::Lottery { seed } => Some(lottery_draw(seed)),
            Rules::It => Some(Side::South),
            Rules::Anywoli | Rules::FirstFinal => None,
        }
    }

    /// The game's moves from its start: its positions, and how far a take-back goes.
    pub fn line(&self) -> Line<'_> {
        Line::new(self.start, &self.moves)
    }

    /// Whether the game can still be called off: it goes on and a side has not moved yet.
    pub fn can_abort(&self) -> bool {
        self.is_playing() && self.moved != BySide::both(true)
    }
}

/// Compares secrets without stopping at the first difference, so that response times do not
/// tell an attacker how much of a guess was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round::change::Change;

    fn local() -> Game {
        Game::new(NewGame {
            id: "abcdefghijkm".into(),
            at: 0,
            mode: Mode::Local,
            rules: Rules::Anywoli,
            players: BySide::both(Player::Human),
            secrets: BySide::both(Some("s".into())),
            start: Position::start(Rules::Anywoli),
            hints: true,
            invite: None,
            clock: None,
            people: People::anonymous(Mode::Local),
        })
    }

    #[test]
    fn players_round_trip_through_the_database_form() {
        for p in [Player::Human, Player::Computer(1), Player::Computer(10)] {
            assert_eq!(Player::from_db(&p.to_db()), Some(p));
        }
        assert_eq!(Player::from_db("level:11"), None);
        assert_eq!(Player::from_db("robot"), None);
    }

    #[test]
    fn a_game_survives_its_row() {
        let mut g = local();
        for mv in ["e", "F", "a"] {
            let trace = g.pos.trace(mv.parse().unwrap()).unwrap();
            g.set_thinking(true);
            let v = g.version();
            g.apply(&Change::Move {
                trace,
                at: 5,
                lag_ms: 0,
            });
            assert!(g.version() > v, "a change outranks the thinking before it");
        }
        g.apply(&Change::Resign {
            loser: Side::North,
            at: 9,
        });
        let moves: Vec<String> = g.moves.iter().map(|m| m.to_string()).collect();
        let back = Game::from_row(g.to_row(), &moves).unwrap();
        assert_eq!(back.pos, g.pos);
        assert_eq!(back.status, g.status);
        assert_eq!(back.to_row(), g.to_row());
        assert_eq!(g.status_columns().1, "1-0");
    }

    #[test]
    fn a_damaged_row_names_its_first_bad_move() {
        let damage = |moves: &[&str]| {
            let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
            Game::from_row(local().to_row(), &moves).unwrap_err().what
        };
        let good = Game::from_row(local().to_row(), &["e".into(), "F".into()]).unwrap();
        assert_eq!(good.moved, BySide::both(true));
        // South's hole on North's turn, before a move that does not read.
        assert!(damage(&["e", "a", "?"]).starts_with("move 2: "));
        assert!(damage(&["e", "F", "?", "a"]).starts_with("move 3: "));
    }

    #[test]
    fn take_back_returns_to_the_position_after_the_moves_kept() {
        let mut g = local();
        let mut after_one = None;
        for mv in ["e", "F", "a"] {
            let trace = g.pos.trace(mv.parse().unwrap()).unwrap();
            g.apply(&Change::Move {
                trace,
                at: 1,
                lag_ms: 0,
            });
            after_one.get_or_insert(g.pos);
        }
        g.apply(&Change::TakeBack { keep: 1, at: 2 });
        assert_eq!(g.moves.len(), 1);
        assert_eq!(Some(g.pos), after_one);
        assert!(g.is_playing());
    }

    #[test]
    fn invites_open_only_their_game() {
        let mut g = local();
        assert!(
            g.invite_matches(None),
            "games without a token keep old links working"
        );
        g.invite = Some("t0ken".into());
        assert!(g.invite_matches(Some("t0ken")));
        assert!(!g.invite_matches(Some("t0keN")));
        assert!(!g.invite_matches(None));
    }
}
