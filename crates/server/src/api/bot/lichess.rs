//! A game, a player and a challenge in the shapes lichess's Bot and Board APIs give them
//! (docs/api-bots.md), so that programs written for lichess need little change: `white` is
//! South (who moves first), `black` North; times in milliseconds; lichess's status words.

use anywoli_core::{Outcome, Side};
use serde_json::{json, Value};

use crate::account::key_of;
use crate::lobby::message::Challenge;
use crate::round::game::{Game, Player, Status, Termination};

/// `white` for South, `black` for North.
pub fn color(side: Side) -> &'static str {
    match side {
        Side::South => "white",
        Side::North => "black",
    }
}

/// lichess's word for how a game stands: `started` while it runs, then `resign`, `outoftime`,
/// `aborted`, `draw` (agreed), `timeout` (the loser left and the win was claimed) or
/// `variantEnd` (an end by the rules: the last seeds, or 100 quiet plies).
pub fn status_name(g: &Game) -> &'static str {
    match &g.status {
        Status::Playing => "started",
        Status::Aborted => "aborted",
        Status::Over { termination, .. } => match termination {
            Some(Termination::Resignation) => "resign",
            Some(Termination::Time) => "outoftime",
            Some(Termination::Agreement) => "draw",
            Some(Termination::Abandoned) => "timeout",
            _ => "variantEnd",
        },
    }
}

/// The winner's colour, if the game is over with one.
pub fn winner(g: &Game) -> Option<&'static str> {
    match &g.status {
        Status::Over {
            outcome: Outcome::Win(side),
            ..
        } => Some(color(*side)),
        _ => None,
    }
}

/// A seat's player: `{id, name, rating, provisional, title}` for an account (a house bot's
/// with its `aiLevel` too), `{aiLevel}` for the computer, `{id: null, name: "Anonymous"}`
/// otherwise.
pub fn player(g: &Game, side: Side, bots: &[String]) -> Value {
    let level = match g.players[side] {
        Player::Computer(level) => Some(level),
        Player::Human => None,
    };
    let Some(name) = &g.people.accounts[side] else {
        return match level {
            Some(level) => json!({"aiLevel": level}),
            None => json!({"id": null, "name": "Anonymous", "title": null}),
        };
    };
    let rating = g.people.ratings.start[side];
    let bot = bots.contains(name) || crate::round::game::title_of(&g.tags, side) == Some("BOT");
    let mut v = json!({
        "id": key_of(name),
        "name": name,
        "rating": rating.map(|r| r.rating.round() as i64),
        "provisional": rating.is_some_and(|r| r.provisional),
        "title": bot.then_some("BOT"),
    });
    if let Some(level) = level {
        v["aiLevel"] = json!(level);
    }
    v
}

/// `{"key", "name"}` of the game's rules.
pub fn variant(rules: &str) -> Value {
    json!({"key": rules, "name": rules, "short": rules})
}

/// The state of play: `{"type":"gameState", moves, wtime, btime, winc, binc, status, …}`,
/// with the clocks as they stand at `now`.
pub fn game_state(g: &Game, now: i64) -> Value {
    let moves: Vec<String> = g.moves.iter().map(|m| m.to_string()).collect();
    let (wtime, btime, winc, binc) = match &g.clock {
        Some(c) => {
            let to_move = if g.is_playing() {
                g.pos.to_move()
            } else {
                None
            };
            let inc = match c.control {
                crate::round::clock::TimeControl::RealTime { increment_ms, .. } => increment_ms,
                crate::round::clock::TimeControl::Correspondence { .. } => 0,
            };
            let inc_of = |s: Side| if c.no_increment[s] { 0 } else { inc };
            (
                c.left_at(Side::South, to_move, now),
                c.left_at(Side::North, to_move, now),
                inc_of(Side::South),
                inc_of(Side::North),
            )
        }
        // lichess gives an untimed game a day a move; so that a client's time sums work.
        None => (86_400_000, 86_400_000, 0, 0),
    };
    let offered = |kind: crate::round::game::OfferKind, side: Side| {
        g.offer
            .as_ref()
            .is_some_and(|o| o.kind == kind && o.by == side)
    };
    use crate::round::game::OfferKind::{Draw, TakeBack};
    let mut v = json!({
        "type": "gameState",
        "moves": moves.join(" "),
        "wtime": wtime.max(0),
        "btime": btime.max(0),
        "winc": winc,
        "binc": binc,
        "status": status_name(g),
        "wdraw": offered(Draw, Side::South),
        "bdraw": offered(Draw, Side::North),
        "wtakeback": offered(TakeBack, Side::South),
        "btakeback": offered(TakeBack, Side::North),
    });
    if let Some(w) = winner(g) {
        v["winner"] = json!(w);
    }
    v
}

/// The whole game, first on a game's stream: `{"type":"gameFull", id, white, black,
/// initialFen, clock, state, …}`.
pub fn game_full(g: &Game, bots: &[String], now: i64) -> Value {
    let clock = g.clock.map(|c| match c.control {
        crate::round::clock::TimeControl::RealTime {
            initial_ms,
            increment_ms,
        } => json!({"initial": initial_ms, "increment": increment_ms}),
        crate::round::clock::TimeControl::Correspondence { days } => {
            json!({"initial": days * 86_400_000, "increment": 0, "daysPerTurn": days})
        }
    });
    let initial = if g.start == anywoli_core::Position::start(g.rules) {
        "startpos".to_string()
    } else {
        g.start.to_string()
    };
    let speed = g.category().map_or("correspondence", |c| c.name());
    json!({
        "type": "gameFull",
        "id": g.id,
        "rated": g.people.rated,
        "variant": variant(g.rules.name()),
        "clock": clock,
        "speed": speed,
        "perf": {"name": speed},
        "createdAt": g.created,
        "white": player(g, Side::South, bots),
        "black": player(g, Side::North, bots),
        "initialFen": initial,
        "state": game_state(g, now),
    })
}

/// A game as the account's event stream names it (`gameStart`, `gameFinish`), from the side
/// of `me`, who holds a seat in it.
pub fn game_event(g: &Game, me: &str, bots: &[String], now: i64) -> Value {
    let side = Side::ALL
        .into_iter()
        .find(|s| g.people.accounts[*s].as_deref() == Some(me))
        .unwrap_or(Side::South);
    let to_move = g.pos.to_move();
    let speed = g.category().map_or("correspondence", |c| c.name());
    let seconds_left = g
        .clock
        .map(|c| c.left_at(side, to_move.filter(|_| g.is_playing()), now) / 1000);
    let source = if crate::round::view::TournamentOf::of(g).is_some() {
        "arena"
    } else {
        "friend"
    };
    let mut v = json!({
        "gameId": g.id,
        "fullId": g.id,
        "id": g.id,
        "color": color(side),
        "fen": g.pos.to_string(),
        "hasMoved": g.moved[side],
        "isMyTurn": g.is_playing() && to_move == Some(side),
        "lastMove": g.moves.last().map(|m| m.to_string()).unwrap_or_default(),
        "opponent": opponent(g, side.opponent(), bots),
        "perf": speed,
        "speed": speed,
        "rated": g.people.rated,
        "secondsLeft": seconds_left,
        "source": source,
        "status": {"name": status_name(g)},
        "variant": variant(g.rules.name()),
    });
    if let Some(w) = winner(g) {
        v["winner"] = json!(w);
    }
    v
}

fn opponent(g: &Game, side: Side, bots: &[String]) -> Value {
    let p = player(g, side, bots);
    match p.get("name") {
        Some(name) => json!({
            "id": p["id"], "username": name, "rating": p["rating"], "title": p["title"],
        }),
        None => json!({"id": null, "username": "Computer", "ai": p["aiLevel"]}),
    }
}

/// A challenge as lichess's event stream gives it; `direction` is `in` for its player, `out`
/// for its sender.
pub fn challenge(c: &Challenge, me: &str, bots: &[String]) -> Value {
    let user = |name: &str| {
        json!({
            "id": key_of(name),
            "name": name,
            "title": bots.iter().any(|b| b == name).then_some("BOT"),
        })
    };
    let time_control = match c
        .clock
        .as_deref()
        .map(crate::round::clock::TimeControl::parse)
    {
        Some(Ok(crate::round::clock::TimeControl::RealTime {
            initial_ms,
            increment_ms,
        })) => json!({
            "type": "clock", "limit": initial_ms / 1000, "increment": increment_ms / 1000,
            "show": c.clock,
        }),
        Some(Ok(crate::round::clock::TimeControl::Correspondence { days })) => {
            json!({"type": "correspondence", "daysPerTurn": days})
        }
        _ => json!({"type": "unlimited"}),
    };
    let speed = c.category.map_or("correspondence", |c| c.name());
    json!({
        "id": c.id,
        "status": "created",
        "challenger": user(&c.from),
        "destUser": user(&c.to),
        "variant": variant(&c.rules),
        "rated": c.rated,
        "speed": speed,
        "perf": {"name": speed},
        "timeControl": time_control,
        "color": match c.side {
            crate::lobby::message::SideChoice::South => "white",
            crate::lobby::message::SideChoice::North => "black",
            crate::lobby::message::SideChoice::Random => "random",
        },
        "direction": if c.to == me { "in" } else { "out" },
    })
}
