//! Games as resources: make one (or import one), read one, list them, and what a page needs
//! to know about the server.

use crate::api::extract::Acting;
use crate::api::waits::{refuse_waiting, Whose};
use crate::error::ErrorCode;
use anywoli_core::{parse_position, BySide, Position, Record, Rules, Side, VARIANTS};
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::api::client::ClientIp;
use crate::api::extract::not_logged_in;
use crate::api::extract::Viewer;
use crate::api::{parse_side, JsonBody};
use crate::app::AppState;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult};
use crate::ids::{new_id, new_secret, random_bytes};
use crate::round::clock::TimeControl;
use crate::round::game::{Game, Mode, NewGame, People, Player};
use crate::round::view::{GameView, SummaryView};
use crate::site::SiteView;
use crate::store::{Listing, PlayerGames};
use crate::trace_json::{side_name, JsonTrace};

/// Largest import: a record of 1 MiB (what `anywoli_core::Record` reads) once escaped in JSON.
pub const IMPORT_LIMIT: usize = 3 * 1024 * 1024;

/// The computer's level when a request names none, the page's default too (web/app.js): a
/// beginner can beat it, a careless player cannot (docs/decisions.md, "Default level").
pub const DEFAULT_LEVEL: u8 = 2;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRequest {
    mode: Option<String>,
    rules: Option<String>,
    seed: Option<Value>,
    level: Option<u8>,
    side: Option<String>,
    position: Option<String>,
    /// Whether the players may ask the engine for hints: on by default against the computer
    /// and on one screen, off by default between friends (both see the choice).
    hints: Option<bool>,
    /// A time control, `MINUTES+SECONDS` or `DAYSd` (crate::round::clock); none for an
    /// untimed game.
    clock: Option<String>,
}

fn parse_seed(v: Option<&Value>) -> ApiResult<Option<u64>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .map(Some)
            .ok_or_else(|| ApiError::malformed("seed must be a whole number from 0 to 2^64-1")),
        Some(Value::String(s)) => s
            .parse()
            .map(Some)
            .map_err(|_| ApiError::malformed("seed must be a whole number from 0 to 2^64-1")),
        Some(_) => Err(ApiError::malformed(
            "seed must be a number or a string of digits",
        )),
    }
}

/// `POST /api/games`.
pub async fn create(
    State(st): State<AppState>,
    client: ClientIp,
    viewer: Acting,
    JsonBody(req): JsonBody<CreateRequest>,
) -> ApiResult<Response> {
    client.check(&st.limiters().games, "new games")?;
    let w = wanted(&req)?;
    // A game for a friend is a game with another person: not while the account waits.
    if w.mode == Mode::Friend {
        refuse_waiting(&st, viewer.name(), Whose::Mine).await?;
    }
    let Seating {
        players,
        secrets,
        secret,
        invite,
        people,
    } = seating(&w, viewer.name());
    let (mode, side) = (w.mode, w.side);
    let game = Game::new(NewGame {
        id: new_id(),
        at: now_ms(),
        mode,
        rules: w.rules,
        players,
        secrets,
        start: w.start,
        hints: req.hints.unwrap_or(mode != Mode::Friend),
        invite: invite.clone(),
        clock: w.clock,
        people,
    });
    let game = st.rounds().create(game).await?;
    let seat = if mode == Mode::Local {
        "both"
    } else {
        side_name(side)
    };
    let mut answer = json!({"game": GameView::of(&game), "seat": seat, "secret": secret});
    if let Some(token) = invite {
        // Only the creator gets the token, to put in the link sent to the friend.
        answer["invite"] = json!(token);
    }
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

/// What a valid `POST /api/games` asks for.
struct Wanted {
    mode: Mode,
    rules: Rules,
    start: Position,
    side: Side,
    level: u8,
    clock: Option<TimeControl>,
}

/// Reads a new game's request, naming the first thing wrong with it (in this order).
fn wanted(req: &CreateRequest) -> ApiResult<Wanted> {
    let mode_name = req.mode.as_deref().unwrap_or("computer");
    let mode = Mode::from_name(mode_name).ok_or_else(|| {
        ApiError::malformed(format!(
            "mode '{}' is not computer, friend or local",
            mode_name.chars().take(20).collect::<String>()
        ))
    })?;
    let seed = match parse_seed(req.seed.as_ref())? {
        Some(s) => s,
        None => u64::from_le_bytes(random_bytes::<8>()),
    };
    let rules = Rules::from_name(req.rules.as_deref().unwrap_or("anywoli"), seed)
        .map_err(|e| ApiError::malformed(e.to_string()))?;
    let start = match &req.position {
        None => Position::start(rules),
        Some(p) => parse_position(p, rules).map_err(|e| ApiError::malformed(e.to_string()))?,
    };
    if start.is_over() {
        return Err(ApiError::malformed("the start position is a finished game"));
    }
    let side = parse_side(req.side.as_deref().unwrap_or("south"))?;
    let level = req.level.unwrap_or(DEFAULT_LEVEL);
    if !(1..=10).contains(&level) {
        return Err(ApiError::malformed(format!(
            "level {level} is not one of 1 to 10"
        )));
    }
    if req.level.is_some() && mode != Mode::Computer {
        return Err(ApiError::malformed(
            "a level is only for games against the computer",
        ));
    }
    let clock = req
        .clock
        .as_deref()
        .map(TimeControl::parse)
        .transpose()
        .map_err(|e| ApiError::malformed(e.to_string()))?;
    Ok(Wanted {
        mode,
        rules,
        start,
        side,
        level,
        clock,
    })
}

/// Who sits where in a new game: the players, the secrets of the seats its creator takes
/// (`secret`), a friend's invitation, and the seats held by the creator's account.
struct Seating {
    players: BySide<Player>,
    secrets: BySide<Option<String>>,
    secret: String,
    invite: Option<String>,
    people: People,
}

fn seating(w: &Wanted, account: Option<&str>) -> Seating {
    let (mode, me) = (w.mode, w.side);
    let secret = new_secret();
    let mut players = BySide::both(Player::Human);
    let mut secrets = BySide::default();
    match mode {
        Mode::Computer => {
            players[me.opponent()] = Player::Computer(w.level);
            secrets[me] = Some(secret.clone());
        }
        Mode::Friend => secrets[me] = Some(secret.clone()),
        Mode::Local => secrets = BySide::both(Some(secret.clone())),
    }
    let invite = (mode == Mode::Friend).then(new_secret);
    // A logged-in player's seats are theirs by name (one screen: both).
    let mut people = People::anonymous(mode);
    if let Some(name) = account {
        match mode {
            Mode::Local => people.accounts = BySide::both(Some(name.to_string())),
            _ => people.accounts[me] = Some(name.to_string()),
        }
    }
    Seating {
        players,
        secrets,
        secret,
        invite,
        people,
    }
}

/// `GET /api/games/{id}`: never behind a move another instance acknowledged.
pub async fn get(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<GameView>> {
    let g = st.rounds().snapshot_fresh(&id).await?;
    Ok(Json(GameView::of(&g)))
}

/// Watch (`live=true`) lists a real-time game only if it changed this recently: a game whose
/// players left stays "playing" until someone claims it, and 10 minutes is past any real-time
/// move (the slowest, classical 180+60, leaves a player 3 hours in all, but a move that takes
/// longer than 10 minutes is not much to watch either). Issue 36: Watch listed 10 dead games.
pub const WATCH_ACTIVE_MS: i64 = 10 * 60 * 1000;

/// `GET /api/games?limit=N`: the public list (finished games, and live ones made public);
/// `mine=true` the logged-in account's own games instead, `live=true` public games in play.
pub async fn list(
    State(st): State<AppState>,
    viewer: Viewer,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    let mut limit = 30usize;
    let (mut mine, mut live) = (false, false);
    for pair in query
        .as_deref()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
    {
        match pair.split_once('=') {
            Some(("limit", v)) => {
                limit = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=200).contains(n))
                    .ok_or_else(|| {
                        ApiError::malformed("limit must be a whole number from 1 to 200")
                    })?;
            }
            Some(("mine", v)) => mine = flag("mine", v)?,
            Some(("live", v)) => live = flag("live", v)?,
            _ => {
                return Err(ApiError::malformed(format!(
                    "unknown query parameter '{}'",
                    pair.chars().take(40).collect::<String>()
                )))
            }
        }
    }
    let listing = match (mine, live) {
        (true, _) => {
            let name = viewer.name().ok_or_else(not_logged_in)?;
            Listing::Player(PlayerGames::new(name.to_string(), true, limit))
        }
        (false, true) => Listing::Live {
            limit,
            active_since: crate::dates::now_ms() - WATCH_ACTIVE_MS,
        },
        (false, false) => Listing::Public { limit },
    };
    let rows = st.db(move |s| s.list(&listing)).await?;
    let games: Vec<SummaryView> = rows.into_iter().map(SummaryView::from).collect();
    Ok(Json(json!({ "games": games })))
}

fn flag(name: &str, v: &str) -> ApiResult<bool> {
    match v {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ApiError::malformed(format!("{name} must be true or false"))),
    }
}

/// `GET /api/games/{id}/positions`.
pub async fn positions(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let g = st.rounds().snapshot(&id).await?;
    let moves: Vec<String> = g.moves.iter().map(|m| m.to_string()).collect();
    let positions: Vec<String> = g.line().positions().map(|p| p.to_string()).collect();
    Ok(Json(json!({"positions": positions, "moves": moves})))
}

/// `GET /api/games/{id}/moves/{n}/trace`.
pub async fn move_trace(
    State(st): State<AppState>,
    Path((id, n)): Path<(String, String)>,
) -> ApiResult<Json<JsonTrace>> {
    let n: usize = n
        .parse()
        .map_err(|_| ApiError::malformed("the move number must be a whole number"))?;
    let g = st.rounds().snapshot(&id).await?;
    let before = g.line().before(n).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::UnknownMove,
            format!("the game has {} moves; there is no move {n}", g.moves.len()),
        )
    })?;
    let trace = before
        .trace(g.moves[n - 1])
        .map_err(|e| ApiError::storage(format!("stored move {n} no longer plays: {e}")))?;
    Ok(Json(JsonTrace::new(&before, &trace)))
}

/// `GET /api/games/{id}/record`.
pub async fn record(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult<Response> {
    let g = st.rounds().snapshot(&id).await?;
    let text = g.record().to_string();
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    record: String,
}

/// `POST /api/import`: a record becomes a game on one screen, the importer's.
pub async fn import(
    State(st): State<AppState>,
    client: ClientIp,
    JsonBody(req): JsonBody<ImportRequest>,
) -> ApiResult<Response> {
    client.check(&st.limiters().imports, "imports")?;
    let bad = |m: String| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, ErrorCode::BadRecord, m);
    // Reading a record is linear in its size but can take milliseconds: off the async threads.
    let rec = tokio::task::spawn_blocking(move || Record::parse(&req.record))
        .await
        .map_err(|e| ApiError::storage(format!("the import task failed: {e}")))?
        .map_err(|e| bad(e.to_string()))?;
    let secret = new_secret();
    let game = Game::from_record(
        NewGame {
            id: new_id(),
            at: now_ms(),
            mode: Mode::Local,
            rules: rec.rules,
            players: BySide::both(Player::Human),
            secrets: BySide::both(Some(secret.clone())),
            start: rec.start,
            hints: true,
            invite: None,
            clock: None,
            people: People::anonymous(Mode::Local),
        },
        &rec,
    )
    .map_err(|e| bad(e.to_string()))?;
    let game = st.rounds().create(game).await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"game": GameView::of(&game), "seat": "both", "secret": secret})),
    )
        .into_response())
}

/// `GET /api/rules`.
pub async fn rules_list() -> Json<Value> {
    let list: Vec<Value> = VARIANTS
        .iter()
        .map(|(name, what)| json!({"name": name, "description": what}))
        .collect();
    Json(json!({ "rules": list }))
}

/// `GET /api/site`: how the page is reached: the public address if the operator set one, and
/// whether the server listens on loopback only (so that the page can say a friend elsewhere
/// cannot join).
pub async fn site(State(st): State<AppState>) -> Json<SiteView> {
    Json(st.site().clone())
}

/// The routes of games: the game list, a game, its positions, traces and record, new games and imports (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::extract::DefaultBodyLimit;
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/site", get(site))
        .route("/rules", get(rules_list))
        .route("/games", get(list).post(create))
        .route("/games/{id}", get(self::get))
        .route("/games/{id}/positions", get(positions))
        .route("/games/{id}/moves/{n}/trace", get(move_trace))
        .route("/games/{id}/record", get(record))
        .route(
            "/import",
            post(import).layer(DefaultBodyLimit::max(IMPORT_LIMIT)),
        )
}
