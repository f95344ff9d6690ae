//! `GET /api/explorer`: what people play here from a position, and how it scores
//! (docs/api-bots.md, "Opening explorer"): the moves played with their counts, South win / draw
//! / North win, average rating and recent games, filtered by speed and rating band, beside
//! the opening book's moves. One indexed read of the position's rows (crate::explorer).

use anywoli_core::{parse_position, Position, Rules};
use axum::extract::{RawQuery, State};
use axum::Json;
use serde_json::{json, Value};

use super::bot::form::Flat;
use crate::app::AppState;
use crate::error::{ApiError, ApiResult};
use crate::explorer::{band, position_key, summarise, Wanted};
use crate::rating::Category;

/// Recent games an answer lists.
const RECENT: usize = 8;
const KEYS: [&str; 5] = ["rules", "position", "moves", "speeds", "ratings"];

/// The position a query names: `position` (a position string) or `moves` from the start
/// (space- or comma-separated), under `rules`.
fn position_of(q: &Flat) -> ApiResult<Position> {
    let rules = Rules::from_name(q.get("rules").unwrap_or("anywoli"), 0)
        .map_err(|e| ApiError::malformed(format!("rules: {e}")))?;
    let mut pos = match q.get("position") {
        Some(text) => parse_position(text, rules)
            .map_err(|e| ApiError::malformed(format!("position: {e}")))?,
        None => Position::start(rules),
    };
    let moves = q.get("moves").unwrap_or("");
    for (i, m) in moves
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|m| !m.is_empty())
        .enumerate()
    {
        if i >= 400 {
            return Err(ApiError::malformed("moves: at most 400"));
        }
        let mv = m
            .parse()
            .map_err(|e| ApiError::malformed(format!("moves: move {}: {e}", i + 1)))?;
        pos.play(mv)
            .map_err(|e| ApiError::malformed(format!("moves: move {}: {e}", i + 1)))?;
    }
    Ok(pos)
}

fn wanted(q: &Flat) -> ApiResult<Wanted> {
    let list = |key: &str| -> Vec<String> {
        q.get(key)
            .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default()
    };
    let speeds = list("speeds");
    for s in &speeds {
        if s != "untimed" && !Category::ALL.iter().any(|c| c.name() == s) {
            return Err(ApiError::malformed(format!(
                "speeds: '{}' is none of bullet, blitz, rapid, classical, correspondence, untimed",
                s.chars().take(20).collect::<String>()
            )));
        }
    }
    let bands = list("ratings")
        .iter()
        .map(|b| {
            band(b).ok_or_else(|| {
                ApiError::malformed(format!(
                    "ratings: '{}' is not a band: -1 (unrated), 0, 1200, 1400, 1600, 1800, \
                     2000, 2200 or 2500",
                    b.chars().take(20).collect::<String>()
                ))
            })
        })
        .collect::<ApiResult<Vec<i64>>>()?;
    Ok(Wanted { speeds, bands })
}

/// `GET /api/explorer?rules=&position=|moves=&speeds=&ratings=`.
pub async fn explorer(
    State(st): State<AppState>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    let q = Flat::parse(None, query.as_deref().unwrap_or("").as_bytes())?;
    if let Some(k) = q.0.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(ApiError::malformed(format!(
            "unknown query parameter '{}': the explorer takes rules, position, moves, speeds \
             and ratings",
            k.chars().take(40).collect::<String>()
        )));
    }
    let pos = position_of(&q)?;
    let w = wanted(&q)?;
    let rules = pos.rules().name().to_string();
    let key = position_key(&pos);
    let rows = st.db(move |s| s.explorer_rows(&rules, key)).await?;
    let (moves, recent) = summarise(&rows, &w, RECENT);
    let total = moves.iter().fold(
        json!({"games": 0, "south": 0, "draws": 0, "north": 0}),
        |t, m| {
            json!({
                "games": t["games"].as_i64().unwrap_or(0) + m.games,
                "south": t["south"].as_i64().unwrap_or(0) + m.south,
                "draws": t["draws"].as_i64().unwrap_or(0) + m.draws,
                "north": t["north"].as_i64().unwrap_or(0) + m.north,
            })
        },
    );
    let book: Vec<Value> = anywoli_engine::book::shipped()
        .ok()
        .filter(|b| b.header.rules == pos.rules())
        .and_then(|b| b.lookup(&pos))
        .map(|e| {
            e.moves
                .iter()
                .map(|(m, score)| json!({"move": m.to_string(), "score": score}))
                .collect()
        })
        .unwrap_or_default();
    Ok(Json(json!({
        "rules": pos.rules().name(),
        "position": pos.to_string(),
        "total": total,
        "moves": moves,
        "recent": recent,
        "book": book,
        "plies": crate::store::EXPLORER_PLIES,
    })))
}

pub fn router() -> axum::Router<AppState> {
    axum::Router::new().route("/explorer", axum::routing::get(explorer))
}
