//! Leaderboards (issue 38, docs/api-players.md "Leaderboards"): the best established ratings
//! of one time control and rules.

use anywoli_core::Rules;
use axum::extract::{RawQuery, State};
use axum::Json;
use serde_json::{json, Value};

use crate::app::AppState;
use crate::error::{ApiError, ApiResult};
use crate::rating::{age, periods, Category};

/// Places on a leaderboard.
pub const LEADERBOARD_SIZE: usize = 100;
/// Rows read to fill it: ratings stored as established that grew provisional with time away
/// are left out after reading, so a few more than the board are read.
const READ: usize = 3 * LEADERBOARD_SIZE;

/// What a leaderboard request asks for.
struct Wanted {
    category: Category,
    rules: String,
}

fn wanted(query: Option<&str>) -> ApiResult<Wanted> {
    let (mut category, mut rules) = (None, "anywoli".to_string());
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "category" => {
                category = Some(Category::from_name(v).ok_or_else(|| {
                    ApiError::malformed(
                        "category must be bullet, blitz, rapid, classical or correspondence",
                    )
                })?)
            }
            "rules" => {
                Rules::from_name(v, 0).map_err(|e| ApiError::malformed(e.to_string()))?;
                rules = v.to_string();
            }
            _ => {
                return Err(ApiError::malformed(format!(
                    "unknown query parameter '{}'",
                    k.chars().take(40).collect::<String>()
                )))
            }
        }
    }
    let category = category.ok_or_else(|| ApiError::malformed("say which category"))?;
    Ok(Wanted { category, rules })
}

/// `GET /api/leaderboards?category=blitz&rules=anywoli`: `{"category", "rules", "players":
/// [{"rank", "name", "rating", "deviation", "games"}]}`, at most 100, best first, no
/// provisional rating (deviation above 110, counting the time since the player's last game).
pub async fn leaderboard(
    State(st): State<AppState>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    let w = wanted(query.as_deref())?;
    let (category, rules) = (w.category.name().to_string(), w.rules.clone());
    let rows = st.db(move |s| s.leaders(&category, &rules, READ)).await?;
    let now = crate::dates::now_ms();
    let players: Vec<Value> = rows
        .iter()
        .filter(|r| {
            let idle = std::time::Duration::from_millis((now - r.rating.at).max(0) as u64);
            !age(r.rating.rating, periods(idle)).is_provisional()
        })
        .take(LEADERBOARD_SIZE)
        .enumerate()
        .map(|(i, r)| {
            json!({
                "rank": i + 1, "name": r.name, "rating": r.rating.rating.rating,
                "deviation": r.rating.rating.deviation, "games": r.rating.games,
            })
        })
        .collect();
    Ok(Json(json!({
        "category": w.category.name(), "rules": w.rules, "players": players,
    })))
}

/// The routes of leaderboards (under /api).
pub fn router() -> axum::Router<AppState> {
    axum::Router::new().route("/leaderboards", axum::routing::get(leaderboard))
}
