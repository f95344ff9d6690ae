//! `GET /api/mod/signals` (issue 38, "Signals, not verdicts"): players ranked by what their
//! recent rated games say (`anywoli_engine::signals`), each figure shown with the number of
//! games behind it. Nothing is decided here: a moderator looks.
//!
//! The figures come from the stored game reviews. A game without one is reviewed on the engine
//! queue (at the hints' priority, so that games in play go first), at most [`REVIEW_BUDGET`]
//! per request, and by one request at a time per instance (another request meanwhile reviews
//! nothing); the rest is counted as `pending` and reviewed by later requests. A full queue
//! ends the reviewing of this request (the queue admits work, it never piles it up).

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use anywoli_core::{Outcome, Side};
use anywoli_engine::review::Review;
use anywoli_engine::signals::{signals, stood_lost, GameFacts, Signals};
use axum::extract::{RawQuery, State};
use axum::Json;
use serde_json::{json, Value};

use super::Moderator;
use crate::account::key_of;
use crate::api::players::unknown_player;
use crate::api::review::{judge, moves_of};
use crate::app::AppState;
use crate::error::{ApiError, ApiResult};
use crate::round::game::Game;
use crate::round::status::Status;
use crate::round::termination::Termination;

/// Rated games (the newest that are over) the ranking looks at.
pub const RANKED_GAMES: usize = 200;
/// A player's newest rated games its own figures are made from.
pub const PLAYER_GAMES: usize = 20;
/// Reviews one request may have the engine make.
pub const REVIEW_BUDGET: usize = 10;

/// Held by the one request that has reviews made (see the module's text).
static REVIEWING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);

/// One game as one of its players' signals need it (owned; [`GameFacts`] borrows it).
struct Played {
    review: Review,
    side: Side,
    move_ms: Vec<i64>,
    score: f64,
    left_lost: bool,
    /// The opponent's group: see [`opponent_group`].
    opponent: String,
}

/// What the games of one request came to, per player (names as stored).
#[derive(Default)]
struct Gathered {
    played: HashMap<String, Vec<Played>>,
    /// Games not reviewed yet, per player.
    pending: HashMap<String, usize>,
    /// Opponent groups found so far (one store read per opponent).
    groups: HashMap<String, String>,
    budget: usize,
    /// [`REVIEWING`], once this request needs a review made.
    permit: Option<tokio::sync::SemaphorePermit<'static>>,
}

/// `GET /api/mod/signals[?player=NAME]`.
pub async fn signals_view(
    State(st): State<AppState>,
    _m: Moderator,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    match query.as_deref().unwrap_or("").split_once('=') {
        Some(("player", name)) => {
            let key = key_of(name);
            let account = st.db(move |db| db.account(&key)).await?;
            let name = account.ok_or_else(|| unknown_player(name))?.name;
            Ok(Json(json!({ "player": player_signals(&st, &name).await? })))
        }
        None if query.as_deref().unwrap_or("").is_empty() => ranked(&st).await.map(Json),
        _ => Err(ApiError::malformed("the only query parameter is player")),
    }
}

/// One player's figures over its newest [`PLAYER_GAMES`] rated games (also the dossier's).
pub async fn player_signals(st: &AppState, name: &str) -> ApiResult<Value> {
    let who = name.to_string();
    let ids = st
        .db(move |db| db.rated_over(Some(&who), PLAYER_GAMES))
        .await?;
    let mut g = Gathered {
        budget: REVIEW_BUDGET,
        ..Gathered::default()
    };
    for id in ids {
        gather(st, &id, &mut g, Some(name)).await?;
    }
    Ok(figures(name, &g))
}

/// Every player of the newest [`RANKED_GAMES`] rated games, the most engine-like first.
async fn ranked(st: &AppState) -> ApiResult<Value> {
    let ids = st.db(|db| db.rated_over(None, RANKED_GAMES)).await?;
    let looked = ids.len();
    let mut g = Gathered {
        budget: REVIEW_BUDGET,
        ..Gathered::default()
    };
    for id in ids {
        gather(st, &id, &mut g, None).await?;
    }
    let mut names: Vec<&String> = g.played.keys().chain(g.pending.keys()).collect();
    names.sort();
    names.dedup();
    let mut players: Vec<Value> = names.into_iter().map(|n| figures(n, &g)).collect();
    // The most engine-like first; players with too few moves to say (null) after them.
    players.sort_by(|a, b| {
        let (x, y) = (a["engine_likeness"].as_f64(), b["engine_likeness"].as_f64());
        y.partial_cmp(&x)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a["name"].as_str().cmp(&b["name"].as_str()))
    });
    let pending: usize = g.pending.values().sum();
    Ok(json!({
        "players": players,
        "games": looked,
        "pending": pending,
        "review_budget": REVIEW_BUDGET,
    }))
}

/// A player's figures: the engine's [`Signals`], `engine_likeness` (`null` below
/// `anywoli_engine::signals::MIN_MOVES` moves) and `pending` (its games not reviewed yet).
fn figures(name: &str, g: &Gathered) -> Value {
    let played = g.played.get(name).map_or(&[][..], Vec::as_slice);
    let facts: Vec<GameFacts> = played
        .iter()
        .map(|p| GameFacts {
            review: &p.review,
            side: p.side,
            move_ms: &p.move_ms,
            score: p.score,
            left_lost: p.left_lost,
            opponent: &p.opponent,
        })
        .collect();
    let s: Signals = signals(&facts);
    let mut v = json!(s);
    v["name"] = json!(name);
    v["engine_likeness"] = json!(s.engine_likeness());
    v["pending"] = json!(g.pending.get(name).copied().unwrap_or(0));
    v
}

/// Adds game `id` to its players' facts (to `only`'s, if given), reviewing it if the budget
/// allows, else counting it pending.
async fn gather(st: &AppState, id: &str, g: &mut Gathered, only: Option<&str>) -> ApiResult<()> {
    let Some(game) = load(st, id).await? else {
        return Ok(());
    };
    let Status::Over {
        outcome,
        termination,
    } = &game.status
    else {
        return Ok(());
    };
    let seats: Vec<(Side, String)> = [Side::South, Side::North]
        .into_iter()
        .filter_map(|s| game.people.accounts[s].clone().map(|n| (s, n)))
        .filter(|(_, n)| only.is_none_or(|o| o == n))
        .collect();
    let Some(review) = review_of(st, &game, g).await? else {
        for (_, name) in seats {
            *g.pending.entry(name).or_default() += 1;
        }
        return Ok(());
    };
    let gid = game.id.clone();
    let times = st.db(move |db| db.move_times(&gid)).await?;
    for (side, name) in seats {
        let other = game.people.accounts[side.opponent()]
            .clone()
            .unwrap_or_default();
        let opponent = opponent_group(st, g, &other).await?;
        let score = match outcome {
            Outcome::Win(s) if *s == side => 1.0,
            Outcome::Win(_) => 0.0,
            Outcome::Draw => 0.5,
        };
        let left = matches!(
            termination,
            Some(Termination::Abandoned | Termination::Time)
        );
        let played = Played {
            left_lost: left && score == 0.0 && stood_lost(&review, side),
            move_ms: think_times(&review, &times, side),
            review: review.clone(),
            side,
            score,
            opponent,
        };
        g.played.entry(name).or_default().push(played);
    }
    Ok(())
}

async fn load(st: &AppState, id: &str) -> ApiResult<Option<Game>> {
    let id = id.to_string();
    let Some((row, moves)) = st.db(move |db| db.load(&id)).await? else {
        return Ok(None);
    };
    // A damaged game says nothing about its players: it is left out.
    Ok(Game::from_row(row, &moves).ok())
}

/// The game's stored review of these very moves; else one made now while the budget lasts.
async fn review_of(st: &AppState, game: &Game, g: &mut Gathered) -> ApiResult<Option<Review>> {
    if let Some(r) = stored(st, game).await? {
        return Ok(Some(r));
    }
    if g.budget == 0 || game.moves.is_empty() {
        return Ok(None);
    }
    if g.permit.is_none() {
        g.permit = REVIEWING.try_acquire().ok();
    }
    // Another request is having reviews made, or a player asked for this one: pending.
    let done = Arc::new(AtomicUsize::new(0));
    let mine = g.permit.is_some() && {
        let mut running = st.reviews().lock();
        match running.entry(game.id.clone()) {
            Entry::Vacant(e) => {
                e.insert((done.clone(), game.moves.len()));
                true
            }
            Entry::Occupied(_) => false,
        }
    };
    if !mine {
        return Ok(None);
    }
    g.budget -= 1;
    let _running = Listed(st, &game.id);
    if let Err(e) = judge(st, game, done).await {
        // The engine is busy: no more reviews in this request.
        tracing::info!("signals: game {} not reviewed: {}", game.id, e.message);
        g.budget = 0;
        return Ok(None);
    }
    stored(st, game).await
}

/// A review listed as running on this instance, taken off the list however the request ends
/// (a moderator's page closed mid-review drops the request's future).
struct Listed<'a>(&'a AppState, &'a str);

impl Drop for Listed<'_> {
    fn drop(&mut self) {
        self.0.reviews().lock().remove(self.1);
    }
}

async fn stored(st: &AppState, game: &Game) -> ApiResult<Option<Review>> {
    let id = game.id.clone();
    let row = st.db(move |db| db.review(&id)).await?;
    Ok(row
        .filter(|r| r.moves == moves_of(game))
        .and_then(|r| parse_review(&r.body)))
}

/// A stored review's body (`api/review.rs` stores the engine's [`Review`] as JSON) read back;
/// `None` for one this version cannot read. The signals use the searches' scores, which every
/// version stores.
fn parse_review(body: &str) -> Option<Review> {
    serde_json::from_str(body).ok()
}

/// How long `side` took for each of its moves: the time from the move before (stored times;
/// the game's first move has no "before" and is left out).
fn think_times(review: &Review, times: &[i64], side: Side) -> Vec<i64> {
    review
        .moves
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, m)| m.mover == side)
        .filter_map(|(i, _)| Some(times.get(i)? - times.get(i - 1)?))
        .collect()
}

/// Who an opponent counts as for "wins from one": the first by name of the opponent and the
/// accounts seen from its addresses, so that wins fed by several accounts of one person count
/// together.
async fn opponent_group(st: &AppState, g: &mut Gathered, name: &str) -> ApiResult<String> {
    if let Some(group) = g.groups.get(name) {
        return Ok(group.clone());
    }
    let who = name.to_string();
    let shared = st.db(move |db| db.shared_address(&who)).await?;
    let group = shared
        .into_iter()
        .map(|s| s.name)
        .chain([name.to_string()])
        .min()
        .unwrap_or_default();
    g.groups.insert(name.to_string(), group.clone());
    Ok(group)
}
