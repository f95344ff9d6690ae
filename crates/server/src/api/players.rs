//! Players as resources: a profile (ratings, history, counts) and a player's games.

use crate::error::ErrorCode;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

use crate::account::key_of;
use crate::api::extract::Viewer;
use crate::app::AppState;
use crate::error::{ApiError, ApiResult};
use crate::rating::Category;
use crate::round::view::SummaryView;
use crate::store::{Listing, Outcome, PlayerGames};

/// Points of rating history a profile carries: a year of a game a day.
pub const HISTORY_POINTS: usize = 400;

pub fn unknown_player(name: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::UnknownPlayer,
        format!(
            "no player is called '{}'",
            name.chars().take(40).collect::<String>()
        ),
    )
}

/// The account's name as typed, from any spelling of it.
pub(crate) async fn name_of(st: &AppState, name: &str) -> ApiResult<(String, i64)> {
    let key = key_of(name);
    let account = st.db(move |s| s.account(&key)).await?;
    account
        .map(|a| (a.name, a.created))
        .ok_or_else(|| unknown_player(name))
}

/// `GET /api/players/{name}`.
pub async fn profile(
    State(st): State<AppState>,
    Path(name): Path<String>,
) -> ApiResult<Json<Value>> {
    let (name, created) = name_of(&st, &name).await?;
    let who = name.clone();
    let (counts, ratings, history, puzzles, standing, marks, bot) = st
        .rounds()
        .db(move |s| {
            Ok((
                s.counts(&who)?,
                s.ratings(&who)?,
                s.rating_history(&who, HISTORY_POINTS)?,
                s.solver_rating(&format!("a:{who}"))?,
                s.standing(&who)?,
                s.marks(&who)?,
                s.is_bot(&who)?,
            ))
        })
        .await?;
    let ratings: Vec<Value> = ratings
        .iter()
        .map(|r| {
            json!({
                "category": r.category, "rules": r.rules, "rating": r.rating.rating,
                "deviation": r.rating.deviation, "volatility": r.rating.volatility,
                "provisional": r.rating.is_provisional(), "games": r.games,
            })
        })
        .collect();
    let history: Vec<Value> = history
        .iter()
        .map(|p| {
            json!({
                "category": p.category, "rules": p.rules, "at": p.at, "rating": p.rating,
                "deviation": p.deviation, "game": p.game,
            })
        })
        .collect();
    Ok(Json(json!({
        "name": name,
        "created": created,
        // `BOT` for a BOT account (docs/api-bots.md), as lichess's titles.
        "title": bot.then_some("BOT"),
        // Closed by its owner or a moderator: its games stay, shown under the name so marked.
        "closed": standing.closed.is_some(),
        // Marked by a moderator (computer assistance or boosting): which mark is theirs to know.
        "marked": !marks.is_empty(),
        "counts": {"games": counts.games, "wins": counts.wins, "draws": counts.draws,
                   "losses": counts.losses},
        "ratings": ratings,
        "history": history,
        // The puzzle rating (docs/api.md, "Puzzle ratings"), once the player has attempted one.
        "puzzles": puzzles.map(|r| json!({
            "rating": r.rating.rating, "deviation": r.rating.deviation,
            "provisional": r.rating.is_provisional(), "attempts": r.attempts,
        })),
    })))
}

/// `GET /api/players/{name}/games?result=&category=&rated=&limit=&before=`.
///
/// The player sees all their games; anyone else sees the finished ones and those in play that
/// are public (a live friend game stays unlisted, as on the Games page).
pub async fn games(
    State(st): State<AppState>,
    Path(name): Path<String>,
    viewer: Viewer,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    let (name, _) = name_of(&st, &name).await?;
    let all = viewer.name() == Some(name.as_str());
    let mut wanted = PlayerGames::new(name, all, 30);
    for pair in query
        .as_deref()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "result" => {
                wanted.outcome = Some(match v {
                    "win" => Outcome::Win,
                    "draw" => Outcome::Draw,
                    "loss" => Outcome::Loss,
                    _ => return Err(ApiError::malformed("result must be win, draw or loss")),
                })
            }
            "category" => {
                let c = Category::from_name(v).ok_or_else(|| {
                    ApiError::malformed(
                        "category must be bullet, blitz, rapid, classical or correspondence",
                    )
                })?;
                wanted.category = Some(c.name().to_string());
            }
            "rated" => {
                wanted.rated = Some(match v {
                    "true" => true,
                    "false" => false,
                    _ => return Err(ApiError::malformed("rated must be true or false")),
                })
            }
            "before" => {
                wanted.before = Some(v.parse().map_err(|_| {
                    ApiError::malformed("before must be a time in milliseconds since 1970")
                })?)
            }
            "limit" => {
                wanted.limit = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=100).contains(n))
                    .ok_or_else(|| {
                        ApiError::malformed("limit must be a whole number from 1 to 100")
                    })?
            }
            _ => {
                return Err(ApiError::malformed(format!(
                    "unknown query parameter '{}'",
                    k.chars().take(40).collect::<String>()
                )))
            }
        }
    }
    let listing = Listing::Player(wanted);
    let rows = st.db(move |s| s.list(&listing)).await?;
    let games: Vec<SummaryView> = rows.into_iter().map(SummaryView::from).collect();
    Ok(Json(json!({ "games": games })))
}

/// The routes of players' profiles and games (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route("/players/{name}", get(profile))
        .route("/players/{name}/games", get(games))
}
