//! The JSON views of a game the API sends (docs/api.md, "The game"); secrets are never in them.

use anywoli_core::Side;
use serde::Serialize;

use crate::round::change::{Change, Event};
use crate::round::game::{Game, Player, Status};
use crate::store::Summary;
use crate::trace_json::{side_name, JsonTrace};

#[derive(Serialize, Clone, Debug)]
pub struct SeatView {
    /// `human` or `computer`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// A person holds this seat's secret.
    pub taken: bool,
    /// The account holding the seat; `null` for an anonymous player or the computer.
    pub player: Option<String>,
    /// The player's rating as the game began (rated games).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<crate::rating::Shown>,
}

#[derive(Serialize, Clone, Debug)]
pub struct SeatsView {
    pub south: SeatView,
    pub north: SeatView,
}

/// A game as the API shows it to everyone.
#[derive(Serialize, Clone, Debug)]
pub struct GameView {
    pub id: String,
    pub mode: &'static str,
    pub rules: &'static str,
    /// The lottery's game seed, as a string (it may not fit a JavaScript number).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    pub start: String,
    pub position: String,
    pub holes: Vec<u8>,
    pub stores: [u8; 2],
    pub to_move: Option<&'static str>,
    pub legal: Vec<String>,
    pub moves: Vec<String>,
    pub ply: usize,
    pub status: &'static str,
    pub result: &'static str,
    pub termination: Option<String>,
    pub seats: SeatsView,
    pub thinking: bool,
    pub rematch: Option<String>,
    /// Hints may be asked for (by the player to move, with their secret).
    pub hints: bool,
    /// The free seat (of a friend game) opens only with the invite link's token.
    pub invite_only: bool,
    /// Who takes the last seeds, when the rules fix it before the game starts (the lottery's
    /// draw, South in `anywoli-it`): both players see what the engine knows.
    pub last_seeds_to: Option<&'static str>,
    pub version: u64,
    pub created: i64,
    pub updated: i64,
    /// The clocks, for a game made with a time control.
    pub clock: Option<ClockView>,
    /// The game can still be called off (`POST /api/games/{id}/abort`).
    pub can_abort: bool,
    /// A draw offered or a take-back asked for, waiting for the other player.
    pub offer: Option<OfferView>,
    /// Milliseconds each side's player has been away from the game (no connection to it), or
    /// `null` while there (or never connected); see `can_claim`.
    pub away: AwayView,
    /// The game changes its players' ratings.
    pub rated: bool,
    /// The game is listed while it is played.
    pub public: bool,
    /// The rating category of its clock; `null` untimed.
    pub category: Option<crate::rating::Category>,
    /// What the game did to each player's rating, once a rated game has ended.
    pub rating_change: Option<RatingChangeView>,
    /// The tournament the game is part of (its record's `Tournament` and `Event` tags).
    pub tournament: Option<TournamentOf>,
    /// An arena's game: who berserked, and who still may (before their first move).
    pub berserk: Option<BerserkView>,
    /// Each seat's player's title (`BOT`), if any.
    pub titles: TitlesView,
}

#[derive(Serialize, Clone, Debug)]
pub struct TitlesView {
    pub south: Option<String>,
    pub north: Option<String>,
}

#[derive(Serialize, Clone, Debug)]
pub struct BerserkView {
    pub south: bool,
    pub north: bool,
    pub south_may: bool,
    pub north_may: bool,
}

impl BerserkView {
    fn of(g: &Game) -> Option<BerserkView> {
        let sides = crate::round::game::berserk_tag(&g.tags)?;
        let (south, north) = (sides.contains('S'), sides.contains('N'));
        let open = g.is_playing();
        Some(BerserkView {
            south,
            north,
            south_may: open && !south && !g.moved[Side::South],
            north_may: open && !north && !g.moved[Side::North],
        })
    }
}

/// A game's tournament.
#[derive(Serialize, Clone, Debug)]
pub struct TournamentOf {
    pub id: String,
    pub name: String,
}

impl TournamentOf {
    pub fn of(g: &Game) -> Option<TournamentOf> {
        let tag = |k: &str| g.tags.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        Some(TournamentOf {
            id: tag("Tournament")?,
            name: tag("Event").unwrap_or_default(),
        })
    }
}

#[derive(Serialize, Clone, Debug)]
pub struct RatingChangeView {
    pub south: crate::rating::Change,
    pub north: crate::rating::Change,
}

#[derive(Serialize, Clone, Debug)]
pub struct AwayView {
    pub south: Option<i64>,
    pub north: Option<i64>,
    /// How long a player must be away before the other may claim the win (by the clock's
    /// speed); `null` in correspondence, where nobody claims.
    pub claim_after: Option<i64>,
}

#[derive(Serialize, Clone, Debug)]
pub struct OfferView {
    /// `draw` or `takeback`.
    pub kind: &'static str,
    /// Who made it: `south` or `north`.
    pub by: &'static str,
}

/// A game's clocks as a client shows them: what each side has left as of this message, and
/// whose time runs (the client counts it down from when the message arrived).
#[derive(Serialize, Clone, Debug)]
pub struct ClockView {
    /// `5+3` (minutes + seconds per move) or `3d` (days per move).
    pub control: String,
    pub south: i64,
    pub north: i64,
    pub running: Option<&'static str>,
}

impl SeatView {
    fn of(g: &Game, side: Side) -> SeatView {
        let p = g.players[side];
        SeatView {
            kind: match p {
                Player::Human => "human",
                Player::Computer(_) => "computer",
            },
            level: match p {
                Player::Computer(l) => Some(l),
                Player::Human => None,
            },
            taken: p == Player::Human && g.secrets()[side].is_some(),
            player: g.people.accounts[side].clone(),
            rating: g.people.ratings.start[side],
        }
    }
}

impl AwayView {
    fn of(g: &Game) -> AwayView {
        let now = crate::dates::now_ms();
        let since = |side: Side| {
            g.away[side]
                .filter(|_| g.is_playing())
                .map(|t| (now - t).max(0))
        };
        AwayView {
            south: since(Side::South),
            north: since(Side::North),
            claim_after: crate::round::game::claim_after_ms(g.category()),
        }
    }
}

impl ClockView {
    fn of(g: &Game) -> Option<ClockView> {
        let c = g.clock?;
        let now = crate::dates::now_ms();
        let to_move = g
            .pos
            .to_move()
            .filter(|_| g.is_playing() && c.since.is_some());
        Some(ClockView {
            control: c.control.name(),
            south: c.left_at(Side::South, to_move, now),
            north: c.left_at(Side::North, to_move, now),
            running: to_move.map(side_name),
        })
    }
}

impl GameView {
    pub fn of(g: &Game) -> GameView {
        let playing = g.is_playing();
        let (status, result, termination) = g.status_columns();
        GameView {
            id: g.id.clone(),
            mode: g.mode.name(),
            rules: g.rules.name(),
            seed: g.rules.seed().map(|s| s.to_string()),
            start: g.start.to_string(),
            position: g.pos.to_string(),
            holes: g.pos.holes().to_vec(),
            stores: [g.pos.store(Side::South), g.pos.store(Side::North)],
            to_move: if playing {
                g.pos.to_move().map(side_name)
            } else {
                None
            },
            legal: if playing {
                g.pos.moves().map(|m| m.to_string()).collect()
            } else {
                Vec::new()
            },
            moves: g.moves.iter().map(|m| m.to_string()).collect(),
            ply: g.moves.len(),
            status,
            result,
            termination,
            seats: SeatsView {
                south: SeatView::of(g, Side::South),
                north: SeatView::of(g, Side::North),
            },
            thinking: g.thinking && matches!(g.status, Status::Playing),
            rematch: g.rematch.clone(),
            hints: g.hints,
            invite_only: g.invite.is_some() && g.free_seat().is_some(),
            last_seeds_to: g.last_seeds_to().map(side_name),
            version: g.version(),
            created: g.created,
            updated: g.updated,
            clock: ClockView::of(g),
            can_abort: g.can_abort(),
            offer: g.offer.map(|o| OfferView {
                kind: o.kind.name(),
                by: side_name(o.by),
            }),
            away: AwayView::of(g),
            rated: g.people.rated,
            public: g.people.public,
            category: g.category(),
            rating_change: g
                .people
                .ratings
                .change
                .map(|[south, north]| RatingChangeView { south, north }),
            tournament: TournamentOf::of(g),
            berserk: BerserkView::of(g),
            titles: TitlesView {
                south: crate::round::game::title_of(&g.tags, Side::South).map(str::to_string),
                north: crate::round::game::title_of(&g.tags, Side::North).map(str::to_string),
            },
        }
    }
}

/// A line of the archive.
#[derive(Serialize, Clone, Debug)]
pub struct SummaryView {
    pub id: String,
    pub mode: String,
    pub rules: String,
    pub south: String,
    pub north: String,
    pub status: String,
    pub result: String,
    pub moves: i64,
    pub created: i64,
    pub updated: i64,
    /// The account names holding South's and North's seats.
    pub players: [Option<String>; 2],
    pub rated: bool,
    pub clock: Option<String>,
}

impl From<Summary> for SummaryView {
    fn from(s: Summary) -> SummaryView {
        let [south, north] = s.seats;
        SummaryView {
            id: s.id,
            mode: s.mode,
            rules: s.rules,
            south,
            north,
            status: s.status,
            result: s.result,
            moves: s.moves,
            created: s.created,
            updated: s.updated,
            players: s.accounts,
            rated: s.rated,
            clock: s.clock,
        }
    }
}

/// An event as its WebSocket message: `{"type", "game", ...}` (docs/api.md, "Events").
#[derive(Serialize)]
struct EventMessage<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    game: GameView,
    #[serde(skip_serializing_if = "Option::is_none")]
    trace: Option<JsonTrace>,
    #[serde(skip_serializing_if = "Option::is_none")]
    side: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rematch: Option<&'a str>,
}

/// The message watchers get for `event`, with the game as it now is.
pub fn event_message(event: &Event, g: &Game) -> String {
    let mut m = EventMessage {
        kind: "state",
        game: GameView::of(g),
        trace: None,
        side: None,
        rematch: None,
    };
    match event {
        Event::State => {}
        Event::Move { before, trace } => {
            m.kind = "move";
            m.trace = Some(JsonTrace::new(before, trace));
        }
        Event::Thinking => m.kind = "thinking",
        Event::Seat => m.kind = "seat",
        Event::Berserk { side } => {
            m.kind = "berserk";
            m.side = Some(side_name(*side));
        }
        Event::TakeBack => m.kind = "takeback",
        Event::Resign { side } => {
            m.kind = "resign";
            m.side = Some(side_name(*side));
        }
        Event::Rematch { id } => {
            m.kind = "rematch";
            m.rematch = Some(id);
        }
        Event::Flag { side } => {
            m.kind = "flag";
            m.side = Some(side_name(*side));
        }
        Event::Aborted => m.kind = "aborted",
        Event::Offer(o) => {
            m.kind = "offer";
            m.side = Some(side_name(o.by));
        }
        Event::Declined { by } => {
            m.kind = "declined";
            m.side = Some(side_name(*by));
        }
        Event::Drawn => m.kind = "drawn",
        Event::Presence { side, here } => {
            m.kind = if *here { "back" } else { "left" };
            m.side = Some(side_name(*side));
        }
        Event::Claimed { side } => {
            m.kind = "claimed";
            m.side = Some(side_name(*side));
        }
    }
    serde_json::to_string(&m).unwrap_or_else(|_| "{}".to_string())
}

/// The messages that bring a watcher from `old` to `new`, a later revision of the game read
/// from the store (another server instance changed it): a `move` event for each move added, so
/// that the page sows them, then the whole state if anything else changed too (a player who
/// reloaded the page left and came back meanwhile); the whole state alone when no move was
/// added or the moves do not follow on (a take-back).
pub fn catch_up(old: &Game, new: &Game) -> Vec<String> {
    let added = new.moves.len().saturating_sub(old.moves.len());
    if added > 0 && new.moves.starts_with(&old.moves) {
        let mut g = old.clone();
        g.thinking = false;
        let mut out = Vec::with_capacity(added + 1);
        for &mv in &new.moves[old.moves.len()..] {
            let Ok(trace) = g.pos.trace(mv) else { break };
            let event = g.apply(&Change::Move {
                trace,
                at: new.updated,
                lag_ms: 0,
            });
            // The clocks as the instance that took the moves set them.
            g.clock = new.clock;
            out.push(event_message(&event, &g));
        }
        if g.moves == new.moves {
            let nothing_else = new.revision - old.revision == added as i64
                && g.status == new.status
                && g.rematch == new.rematch
                && g.secrets() == new.secrets();
            if !nothing_else {
                out.push(event_message(&Event::State, new));
            }
            return out;
        }
    }
    vec![event_message(&Event::State, new)]
}

#[cfg(test)]
mod tests {
    use anywoli_core::Side;
    use serde_json::Value;

    use super::catch_up;
    use crate::round::change::Change;
    use crate::round::game::{Game, Mode, Player};
    use crate::round::rules::tests::game;

    fn moved(mut g: Game, mv: &str) -> Game {
        let trace = g.pos.trace(mv.parse().unwrap()).unwrap();
        g.apply(&Change::Move {
            trace,
            at: 2_000,
            lag_ms: 0,
        });
        g
    }

    fn kinds(messages: &[String]) -> Vec<(String, u64)> {
        messages
            .iter()
            .map(|m| {
                let v: Value = serde_json::from_str(m).unwrap();
                let kind = v["type"].as_str().unwrap().to_string();
                (kind, v["game"]["version"].as_u64().unwrap())
            })
            .collect()
    }

    #[test]
    fn moves_alone_come_as_moves() {
        let old = game(Mode::Friend, [Player::Human; 2], None);
        let new = moved(moved(old.clone(), "e"), "E");
        let got = kinds(&catch_up(&old, &new));
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got.iter().all(|(k, _)| k == "move"), "{got:?}");
        assert_eq!(got[1].1, new.version());
    }

    #[test]
    fn a_move_after_a_reload_is_sown_then_the_state_follows() {
        // South reloads (gone, then back), then plays: the watcher on another instance sees
        // the three changes at once.
        let old = game(Mode::Friend, [Player::Human; 2], None);
        let mut new = old.clone();
        new.apply(&Change::Presence {
            side: Side::South,
            away: Some(1_500),
        });
        new.apply(&Change::Presence {
            side: Side::South,
            away: None,
        });
        let new = moved(new, "e");
        let got = kinds(&catch_up(&old, &new));
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].0, "move");
        assert_eq!(got[1], ("state".to_string(), new.version()));
        assert!(
            got[0].1 < got[1].1,
            "the state is newer than the move: {got:?}"
        );
    }

    #[test]
    fn a_take_back_comes_as_the_state() {
        let old = moved(game(Mode::Friend, [Player::Human; 2], None), "e");
        let mut new = old.clone();
        new.apply(&Change::TakeBack { keep: 0, at: 3_000 });
        let new = moved(new, "f");
        let got = kinds(&catch_up(&old, &new));
        assert_eq!(got, vec![("state".to_string(), new.version())]);
    }
}
