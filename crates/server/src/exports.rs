//! Games exported in bulk (docs/api-bots.md, "Exports"): a player's games over HTTP
//! (crate::api::exports) and a month's rated games (`anywoli export`), read page by page from
//! the store (`store::games::export`) so that an export holds one page at a time, whatever its
//! size, and written as records (docs/record-format.md) or as NDJSON.

use anywoli_core::Side;
use serde_json::{json, Value};

use crate::round::game::{title_of, Game, Player, Status};
use crate::store::{Cursor, ExportFilter, Store, StoreResult};

/// Games read from the store at a time.
pub const PAGE: usize = 200;
/// The most games one export answers: a player of many years has a few tens of thousands.
pub const MAX_GAMES: usize = 200_000;

/// How an export writes each game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The record format, each record followed by an empty line.
    Record,
    /// One JSON object a line.
    Ndjson,
}

impl Format {
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Record => "application/x-anywoli-record; charset=utf-8",
            Format::Ndjson => "application/x-ndjson",
        }
    }

    /// One game as this format writes it, with its line ending(s).
    pub fn write(self, g: &Game) -> String {
        match self {
            Format::Record => format!("{}\n\n", g.record()),
            Format::Ndjson => format!("{}\n", game_json(g)),
        }
    }
}

/// Reads `f`'s games, newest first, page by page, giving each to `each` until it answers
/// false or `max` have been given: how many were. Blocking (the store's calls are).
pub fn each_game(
    store: &Store,
    f: &ExportFilter,
    max: usize,
    mut each: impl FnMut(Game) -> bool,
) -> StoreResult<usize> {
    let mut cursor: Option<Cursor> = None;
    let mut given = 0;
    while given < max {
        let page = store.export_page(f, cursor.as_ref(), PAGE.min(max - given))?;
        let Some(last) = page.last().cloned() else {
            break;
        };
        for (_, id) in &page {
            // A game that cannot be read back (damaged) is left out rather than ending the
            // export.
            let Some((row, moves)) = store.load(id)? else {
                continue;
            };
            let Ok(g) = Game::from_row(row, &moves) else {
                continue;
            };
            given += 1;
            if !each(g) {
                return Ok(given);
            }
        }
        cursor = Some(last);
    }
    Ok(given)
}

/// A game as an export's NDJSON line gives it, in lichess's words (crate::api::bot::lichess):
/// `white` is South.
pub fn game_json(g: &Game) -> Value {
    let side = |s: Side| {
        let name = g.people.accounts[s].clone();
        let rating = g.people.ratings.start[s].map(|r| r.rating.round() as i64);
        let diff = g.people.ratings.change.map(|c| {
            let c = if s == Side::South { c[0] } else { c[1] };
            c.diff
        });
        let mut v = json!({
            "user": name.as_ref().map(|n| json!({
                "name": n, "id": crate::account::key_of(n), "title": title_of(&g.tags, s),
            })),
            "rating": rating,
            "ratingDiff": diff,
        });
        if let Player::Computer(level) = g.players[s] {
            v["aiLevel"] = json!(level);
        }
        v
    };
    let status = crate::api::bot::lichess::status_name(g);
    let moves: Vec<String> = g.moves.iter().map(|m| m.to_string()).collect();
    let mut v = json!({
        "id": g.id,
        "rated": g.people.rated,
        "variant": g.rules.name(),
        "speed": g.category().map_or("correspondence", |c| c.name()),
        "createdAt": g.created,
        "lastMoveAt": g.updated,
        "status": status,
        "players": {"white": side(Side::South), "black": side(Side::North)},
        "moves": moves.join(" "),
        "clock": g.clock.map(|c| c.control.name()),
        "result": match &g.status {
            Status::Over { outcome, .. } => outcome.as_str(),
            _ => "*",
        },
    });
    if let Some(w) = crate::api::bot::lichess::winner(g) {
        v["winner"] = json!(w);
    }
    if g.start != anywoli_core::Position::start(g.rules) {
        v["initialFen"] = json!(g.start.to_string());
    }
    if let Some(t) = g.tags.iter().find(|(k, _)| k == "Tournament") {
        v["tournament"] = json!(t.1);
    }
    v
}
