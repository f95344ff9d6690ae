//! The HTTP and WebSocket API (docs/api.md). The server is the authority: every move is checked
//! with `anywoli_core` and stored before it is acknowledged or shown to anyone.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anywoli_core::{parse_position, Move, Position, Record, Rules, Side, Trace, VARIANTS};
use anywoli_engine::{Engine, LevelPlayer, Limits, Player};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{broadcast, Mutex, Semaphore};

use crate::game::{Game, GameView, Mode, Seat, SummaryView};
use crate::site::SiteView;
use crate::store::{GameRow, Store, StoreError};
use crate::trace_json::{side_name, JsonTrace};

/// An API error: a status, a stable code for programs and a message for people.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    fn malformed(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "malformed", message)
    }

    fn unknown_game(id: &str) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_game",
            format!(
                "there is no game '{}'",
                id.chars().take(40).collect::<String>()
            ),
        )
    }

    fn not_allowed(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, "not_allowed", message)
    }

    fn storage(e: impl std::fmt::Display) -> ApiError {
        tracing::error!("storage failure: {e}");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "storage",
            format!("the game could not be stored, so nothing changed: {e}"),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(json!({"error": self.code, "message": self.message})),
        )
            .into_response()
    }
}

type ApiResult<T> = Result<T, ApiError>;

/// The computer's level when a request names none, the page's default too (web/app.js): a
/// beginner can beat it, a careless player cannot (docs/decisions.md, "Default level").
pub const DEFAULT_LEVEL: u8 = 2;

/// How long the engine may think.
#[derive(Clone, Copy, Debug)]
pub struct Think {
    /// For level 10 (a timed search) and for hints.
    pub movetime: Duration,
    /// Hash table size for each search.
    pub hash_mib: usize,
}

impl Default for Think {
    fn default() -> Think {
        Think {
            movetime: Duration::from_millis(1500),
            hash_mib: 16,
        }
    }
}

/// One game in memory, with the channel its watchers listen on. The mutex is held from the
/// check of a move until it is stored and announced, so moves of one game are strictly ordered.
pub struct Slot {
    game: Mutex<Game>,
    events: broadcast::Sender<Arc<str>>,
}

pub struct Inner {
    store: Arc<Store>,
    games: std::sync::Mutex<HashMap<String, Arc<Slot>>>,
    /// The engine runs on blocking threads; this keeps it to one search per core so that a
    /// burst of games cannot starve the machine.
    engine: Arc<Semaphore>,
    think: Think,
    site: SiteView,
}

/// The server's shared state.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

impl AppState {
    /// A state for a server on loopback (what tests that call the router directly need).
    pub fn new(store: Store, think: Think) -> AppState {
        let site = SiteView::new(([127, 0, 0, 1], 0).into(), None);
        AppState::with_site(store, think, site)
    }

    pub fn with_site(store: Store, think: Think, site: SiteView) -> AppState {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        AppState(Arc::new(Inner {
            store: Arc::new(store),
            games: std::sync::Mutex::new(HashMap::new()),
            engine: Arc::new(Semaphore::new(cores)),
            think,
            site,
        }))
    }

    /// Runs a store call on a blocking thread.
    async fn db<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
    ) -> ApiResult<T> {
        let store = self.0.store.clone();
        match tokio::task::spawn_blocking(move || f(&store)).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(ApiError::storage(e)),
            Err(e) => Err(ApiError::storage(format!("the storage task failed: {e}"))),
        }
    }

    fn games(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Slot>>> {
        self.0.games.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The game `id`, loaded from the store on first use. A game whose engine was to move when
    /// the server stopped starts thinking again here.
    async fn slot(&self, id: &str) -> ApiResult<Arc<Slot>> {
        if !valid_id(id) {
            return Err(ApiError::unknown_game(id));
        }
        if let Some(s) = self.games().get(id) {
            return Ok(s.clone());
        }
        let key = id.to_string();
        let Some((row, moves)) = self.db(move |s| s.load(&key)).await? else {
            return Err(ApiError::unknown_game(id));
        };
        let game = Game::from_row(row, &moves).map_err(ApiError::storage)?;
        let slot = self.insert(game);
        self.kick_engine(slot.clone());
        Ok(slot)
    }

    fn insert(&self, game: Game) -> Arc<Slot> {
        let id = game.row.id.clone();
        let mut games = self.games();
        games
            .entry(id)
            .or_insert_with(|| {
                Arc::new(Slot {
                    game: Mutex::new(game),
                    events: broadcast::channel(256).0,
                })
            })
            .clone()
    }

    /// Starts the engine if it is its turn in this game and it is not already thinking.
    fn kick_engine(&self, slot: Arc<Slot>) {
        let st = self.clone();
        tokio::spawn(async move { st.engine_loop(slot).await });
    }

    async fn engine_loop(self, slot: Arc<Slot>) {
        loop {
            let (pos, level, token, seed) = {
                let mut g = slot.game.lock().await;
                let Some(level) = g.computer_to_move() else {
                    return;
                };
                if g.thinking {
                    return;
                }
                g.thinking = true;
                g.version += 1;
                announce(&slot, "thinking", &g, None);
                let seed = id_seed(&g.row.id) ^ g.moves.len() as u64;
                (g.pos, level, g.version, seed)
            };
            let think = self.0.think;
            let permits = self.0.engine.clone();
            let chosen = match permits.acquire_owned().await {
                Ok(permit) => tokio::task::spawn_blocking(move || {
                    let _permit = permit;
                    let mut player = LevelPlayer::new(level, seed, think.hash_mib, 1)?;
                    // Levels below 10 search to a depth; the time is only their upper bound.
                    let time = if level == 10 {
                        think.movetime
                    } else {
                        think.movetime * 2
                    };
                    player.choose(&pos, time)
                })
                .await
                .ok()
                .flatten(),
                Err(_) => None,
            };
            let mut g = slot.game.lock().await;
            g.thinking = false;
            if g.version != token {
                // A take-back or resignation came first; look again at what is to be done.
                g.version += 1;
                announce(&slot, "state", &g, None);
                continue;
            }
            let trace = chosen.and_then(|mv| g.pos.trace(mv).ok());
            let Some(trace) = trace else {
                tracing::error!("the engine found no move in game {}", g.row.id);
                g.version += 1;
                announce(&slot, "state", &g, None);
                return;
            };
            if let Err(e) = self.commit_move(&slot, &mut g, trace).await {
                tracing::error!("engine move not stored in game {}: {}", g.row.id, e.message);
                g.version += 1;
                announce(&slot, "state", &g, None);
                return;
            }
        }
    }

    /// Stores a checked move, then updates the game in memory and tells its watchers.
    async fn commit_move(&self, slot: &Slot, g: &mut Game, trace: Trace) -> ApiResult<JsonTrace> {
        let before = g.pos;
        let (status, result, termination) = Game::outcome_after(&trace);
        let ply = g.moves.len() + 1;
        let now = now_ms();
        let (id, mv, res) = (g.row.id.clone(), trace.mv.to_string(), result.clone());
        self.db(move |s| s.append_move(&id, ply, &mv, now, status, &res, termination))
            .await?;
        g.moves.push(trace.mv);
        g.pos = trace.after;
        g.row.status = status.to_string();
        g.row.result = result;
        g.row.termination = termination.map(str::to_string);
        g.row.updated = now;
        g.version += 1;
        let jt = JsonTrace::new(&before, &trace);
        announce(slot, "move", g, Some(("trace", json!(jt))));
        Ok(jt)
    }
}

/// Sends an event to everyone watching the game.
fn announce(slot: &Slot, kind: &str, g: &Game, extra: Option<(&str, Value)>) {
    let mut msg = json!({"type": kind, "game": g.view()});
    if let (Some((k, v)), Some(obj)) = (extra, msg.as_object_mut()) {
        obj.insert(k.to_string(), v);
    }
    // No receiver is not an error: nobody may be watching.
    let _ = slot.events.send(Arc::from(msg.to_string()));
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

const ID_ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
const ID_LEN: usize = 12;

pub(crate) fn valid_id(id: &str) -> bool {
    id.len() == ID_LEN && id.bytes().all(|b| ID_ALPHABET.contains(&b))
}

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    // The OS random source failing is not something a server can go on without: secrets
    // would be guessable.
    getrandom::fill(&mut b).expect("the operating system's random source failed");
    b
}

fn new_id() -> String {
    random_bytes::<ID_LEN>()
        .iter()
        .map(|b| ID_ALPHABET[(*b as usize) % ID_ALPHABET.len()] as char)
        .collect()
}

fn new_secret() -> String {
    random_bytes::<16>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn id_seed(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// Reads a JSON body, turning every way it can be wrong into a JSON error. An empty body is
/// read as `{}` so that requests with nothing to say need not send anything.
fn parse_body<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> ApiResult<T> {
    let bytes = body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                "the request body is larger than this endpoint accepts",
            )
        } else {
            ApiError::malformed(format!("the request body could not be read: {e}"))
        }
    })?;
    let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        &bytes
    };
    serde_json::from_slice(bytes).map_err(|e| {
        ApiError::malformed(format!(
            "the request body is not valid JSON for this request: {e}"
        ))
    })
}

fn parse_side(s: &str) -> ApiResult<Side> {
    match s {
        "south" => Ok(Side::South),
        "north" => Ok(Side::North),
        _ => Err(ApiError::malformed(format!(
            "side '{}' is neither south nor north",
            s.chars().take(20).collect::<String>()
        ))),
    }
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

fn seat_name(seats: &[usize]) -> &'static str {
    match seats {
        [0] => "south",
        [1] => "north",
        _ => "both",
    }
}

/// The seats a secret holds; a wrong secret is refused here.
fn authorise(g: &Game, secret: &str) -> ApiResult<Vec<usize>> {
    let held = g.seats_of(secret);
    if held.is_empty() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "wrong_secret",
            "this seat secret holds no seat in this game",
        ));
    }
    Ok(held)
}

fn game_over_error() -> ApiError {
    ApiError::new(StatusCode::CONFLICT, "game_over", "the game is over")
}

// ---------------------------------------------------------------------------------------------
// Handlers

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
}

pub async fn create_game(
    State(st): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let req: CreateRequest = parse_body(body)?;
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
    let secret = new_secret();
    let me = side.index();
    let mut seats = [Seat::Human; 2];
    let mut secrets = [None, None];
    match mode {
        Mode::Computer => {
            seats[1 - me] = Seat::Computer(level);
            secrets[me] = Some(secret.clone());
        }
        Mode::Friend => secrets[me] = Some(secret.clone()),
        Mode::Local => secrets = [Some(secret.clone()), Some(secret.clone())],
    }
    let now = now_ms();
    let row = GameRow {
        id: new_id(),
        created: now,
        updated: now,
        mode: mode.name().to_string(),
        rules: rules.name().to_string(),
        seed: rules.seed().unwrap_or(0).to_string(),
        start: start.to_string(),
        seats: [seats[0].to_db(), seats[1].to_db()],
        secrets,
        status: "playing".to_string(),
        result: "*".to_string(),
        termination: None,
        rematch: None,
        tags: "[]".to_string(),
        hints: req.hints.unwrap_or(mode != Mode::Friend),
    };
    let game = Game::from_row(row.clone(), &[]).map_err(ApiError::storage)?;
    st.db(move |s| s.create_game(&row, &[])).await?;
    let seat = if mode == Mode::Local {
        "both"
    } else {
        side_name(side)
    };
    let view = game.view();
    let slot = st.insert(game);
    st.kick_engine(slot);
    Ok((
        StatusCode::CREATED,
        Json(json!({"game": view, "seat": seat, "secret": secret})),
    )
        .into_response())
}

pub async fn get_game(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<GameView>> {
    let slot = st.slot(&id).await?;
    let g = slot.game.lock().await;
    Ok(Json(g.view()))
}

pub async fn list_games(
    State(st): State<AppState>,
    RawQuery(query): RawQuery,
) -> ApiResult<Json<Value>> {
    let mut limit = 30usize;
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
            _ => {
                return Err(ApiError::malformed(format!(
                    "unknown query parameter '{}'",
                    pair.chars().take(40).collect::<String>()
                )))
            }
        }
    }
    let rows = st.db(move |s| s.recent(limit)).await?;
    let games: Vec<SummaryView> = rows.into_iter().map(SummaryView::from).collect();
    Ok(Json(json!({ "games": games })))
}

pub async fn positions(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let slot = st.slot(&id).await?;
    let g = slot.game.lock().await;
    Ok(Json(
        json!({"positions": g.positions(), "moves": g.view().moves}),
    ))
}

pub async fn move_trace(
    State(st): State<AppState>,
    Path((id, n)): Path<(String, String)>,
) -> ApiResult<Json<JsonTrace>> {
    let slot = st.slot(&id).await?;
    let g = slot.game.lock().await;
    let n: usize = n
        .parse()
        .map_err(|_| ApiError::malformed("the move number must be a whole number"))?;
    let before = g.before_move(n).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_move",
            format!("the game has {} moves; there is no move {n}", g.moves.len()),
        )
    })?;
    let trace = before
        .trace(g.moves[n - 1])
        .map_err(|e| ApiError::storage(format!("stored move {n} no longer plays: {e}")))?;
    Ok(Json(JsonTrace::new(&before, &trace)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    #[serde(rename = "move")]
    mv: String,
    secret: String,
    /// The number of moves the client saw before this one; a different number means the
    /// client is behind, and the move is refused rather than played in a position its sender
    /// did not see.
    ply: Option<usize>,
}

pub async fn make_move(
    State(st): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<Value>> {
    let req: MoveRequest = parse_body(body)?;
    let slot = st.slot(&id).await?;
    let mut g = slot.game.lock().await;
    let held = authorise(&g, &req.secret)?;
    if !g.is_playing() {
        return Err(game_over_error());
    }
    let Some(to_move) = g.pos.to_move() else {
        return Err(game_over_error());
    };
    if !held.contains(&to_move.index()) {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "not_your_turn",
            format!(
                "it is {to_move}'s turn, and your seat is {}",
                to_move.opponent()
            ),
        ));
    }
    if let Some(p) = req.ply {
        if p != g.moves.len() {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "stale",
                format!(
                    "the move was sent after move {p}, but the game is at move {}: reload it",
                    g.moves.len()
                ),
            ));
        }
    }
    let mv: Move = req
        .mv
        .trim()
        .parse()
        .map_err(|e: anywoli_core::ParseMoveError| ApiError::malformed(e.to_string()))?;
    let trace = g.pos.trace(mv).map_err(|e| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "illegal_move",
            e.to_string(),
        )
    })?;
    let jt = st.commit_move(&slot, &mut g, trace).await?;
    let view = g.view();
    drop(g);
    st.kick_engine(slot);
    Ok(Json(json!({"game": view, "trace": jt})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretRequest {
    secret: String,
}

pub async fn join(
    State(st): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<Value>> {
    let _: HashMap<String, Value> = parse_body(body)?;
    let slot = st.slot(&id).await?;
    let mut g = slot.game.lock().await;
    let open = (0..2).find(|&i| g.seats[i] == Seat::Human && g.row.secrets[i].is_none());
    let Some(seat) = open else {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "seat_taken",
            "every seat of this game is taken; you can watch it",
        ));
    };
    let secret = new_secret();
    let (gid, sec) = (g.row.id.clone(), secret.clone());
    if !st.db(move |s| s.claim_seat(&gid, seat, &sec)).await? {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "seat_taken",
            "every seat of this game is taken; you can watch it",
        ));
    }
    g.row.secrets[seat] = Some(secret.clone());
    g.version += 1;
    announce(&slot, "seat", &g, None);
    Ok(Json(
        json!({"game": g.view(), "seat": seat_name(&[seat]), "secret": secret}),
    ))
}

pub async fn takeback(
    State(st): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<Value>> {
    let req: SecretRequest = parse_body(body)?;
    let slot = st.slot(&id).await?;
    let mut g = slot.game.lock().await;
    let held = authorise(&g, &req.secret)?;
    if g.mode == Mode::Friend {
        return Err(ApiError::not_allowed(
            "moves are taken back only in games against the computer or on one screen",
        ));
    }
    if g.row.termination.as_deref() == Some("resignation") {
        return Err(ApiError::not_allowed("the game was resigned"));
    }
    // Back to the last position where one of the caller's seats was to move, so that a
    // take-back against the computer also undoes the computer's replies.
    let mut p = g.start;
    let mut keep = None;
    for (k, &mv) in g.moves.iter().enumerate() {
        if p.to_move().is_some_and(|s| held.contains(&s.index())) {
            keep = Some((k, p));
        }
        if p.play(mv).is_err() {
            break;
        }
    }
    let Some((keep, pos)) = keep else {
        return Err(ApiError::not_allowed(
            "there is no move of yours to take back",
        ));
    };
    let now = now_ms();
    let gid = g.row.id.clone();
    st.db(move |s| s.truncate_moves(&gid, keep, now)).await?;
    g.moves.truncate(keep);
    g.pos = pos;
    g.row.status = "playing".to_string();
    g.row.result = "*".to_string();
    g.row.termination = None;
    g.row.updated = now;
    g.version += 1;
    announce(&slot, "takeback", &g, None);
    Ok(Json(json!({"game": g.view()})))
}

pub async fn resign(
    State(st): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<Value>> {
    let req: SecretRequest = parse_body(body)?;
    let slot = st.slot(&id).await?;
    let mut g = slot.game.lock().await;
    let held = authorise(&g, &req.secret)?;
    if !g.is_playing() {
        return Err(game_over_error());
    }
    // On one screen the player to move is the one resigning.
    let loser = match (held.as_slice(), g.pos.to_move()) {
        ([one], _) => *one,
        (_, Some(s)) => s.index(),
        (_, None) => return Err(game_over_error()),
    };
    let result = if loser == 0 { "0-1" } else { "1-0" };
    let now = now_ms();
    let gid = g.row.id.clone();
    st.db(move |s| s.set_status(&gid, now, "over", result, Some("resignation")))
        .await?;
    g.row.status = "over".to_string();
    g.row.result = result.to_string();
    g.row.termination = Some("resignation".to_string());
    g.row.updated = now;
    g.version += 1;
    let side = if loser == 0 { "south" } else { "north" };
    announce(&slot, "resign", &g, Some(("side", json!(side))));
    Ok(Json(json!({"game": g.view()})))
}

pub async fn rematch(
    State(st): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let req: SecretRequest = parse_body(body)?;
    let slot = st.slot(&id).await?;
    let mut g = slot.game.lock().await;
    let held = authorise(&g, &req.secret)?;
    let seat_after: Vec<usize> = held.iter().map(|&i| 1 - i).collect();
    if let Some(next) = g.row.rematch.clone() {
        drop(g);
        let nslot = st.slot(&next).await?;
        let ng = nslot.game.lock().await;
        return Ok(Json(
            json!({"game": ng.view(), "seat": seat_name(&seat_after), "secret": req.secret}),
        )
        .into_response());
    }
    if g.is_playing() {
        return Err(ApiError::not_allowed(
            "the game is still going on: a rematch starts once it is over",
        ));
    }
    let seed = match g.rules {
        Rules::Lottery { .. } => u64::from_le_bytes(random_bytes::<8>()),
        _ => 0,
    };
    let rules = Rules::from_name(g.rules.name(), seed).unwrap_or(g.rules);
    let now = now_ms();
    // The players change sides and keep their secrets, so each browser already holds the key
    // to its new seat.
    let row = GameRow {
        id: new_id(),
        created: now,
        updated: now,
        mode: g.row.mode.clone(),
        rules: rules.name().to_string(),
        seed: rules.seed().unwrap_or(0).to_string(),
        start: Position::start(rules).to_string(),
        seats: [g.row.seats[1].clone(), g.row.seats[0].clone()],
        secrets: [g.row.secrets[1].clone(), g.row.secrets[0].clone()],
        status: "playing".to_string(),
        result: "*".to_string(),
        termination: None,
        rematch: None,
        tags: "[]".to_string(),
        hints: g.row.hints,
    };
    let game = Game::from_row(row.clone(), &[]).map_err(ApiError::storage)?;
    let (gid, r) = (g.row.id.clone(), row.clone());
    if !st.db(move |s| s.create_rematch(&gid, &r)).await? {
        return Err(ApiError::storage("the rematch link changed underneath"));
    }
    g.row.rematch = Some(row.id.clone());
    g.version += 1;
    let view = game.view();
    announce(&slot, "rematch", &g, Some(("rematch", json!(row.id))));
    drop(g);
    let nslot = st.insert(game);
    st.kick_engine(nslot);
    Ok((
        StatusCode::CREATED,
        Json(json!({"game": view, "seat": seat_name(&seat_after), "secret": req.secret})),
    )
        .into_response())
}

/// The engine's choice for the side to move, for the player whose turn it is: hints are help,
/// so between two people they are given only where both agreed, and only to the player to move.
pub async fn hint(
    State(st): State<AppState>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<Value>> {
    let req: SecretRequest = parse_body(body)?;
    let slot = st.slot(&id).await?;
    let (pos, ply) = {
        let g = slot.game.lock().await;
        let held = authorise(&g, &req.secret)?;
        if !g.is_playing() {
            return Err(game_over_error());
        }
        let Some(to_move) = g.pos.to_move() else {
            return Err(game_over_error());
        };
        if !g.row.hints {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "hints_off",
                "hints are off in this game: it was made without them, for both players",
            ));
        }
        if !held.contains(&to_move.index()) {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "not_your_turn",
                format!("a hint is for the player to move, and it is {to_move}'s turn"),
            ));
        }
        (g.pos, g.moves.len())
    };
    let think = st.0.think;
    let permit = st.0.engine.clone().acquire_owned().await.map_err(|_| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "busy",
            "the engine is shutting down",
        )
    })?;
    let best = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let mut engine = Engine::new(think.hash_mib, 1);
        engine.set_tablebase(anywoli_engine::tablebase::from_env());
        let stop = std::sync::atomic::AtomicBool::new(false);
        let limits = Limits {
            depth: Some(24),
            movetime: Some(think.movetime),
            nodes: None,
        };
        engine.search(&pos, &limits, &stop, &mut |_| {}).best
    })
    .await
    .ok()
    .flatten();
    let best = best.ok_or_else(|| ApiError::storage("the engine found no move"))?;
    Ok(Json(json!({"move": best.to_string(), "ply": ply})))
}

pub async fn record(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult<Response> {
    let slot = st.slot(&id).await?;
    let g = slot.game.lock().await;
    let text = g.record().to_string();
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    record: String,
}

pub async fn import(
    State(st): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let req: ImportRequest = parse_body(body)?;
    let rec = Record::parse(&req.record).map_err(|e| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_record",
            e.to_string(),
        )
    })?;
    let end = rec.end().map_err(|(i, e)| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad_record",
            format!("move {} is illegal: {e}", i + 1),
        )
    })?;
    let (status, result, termination) = match end.outcome() {
        Some(o) => ("over", o.as_str().to_string(), Some("recorded".to_string())),
        None if rec.result != "*" => ("over", rec.result.clone(), Some("recorded".to_string())),
        None => ("playing", "*".to_string(), None),
    };
    let termination = rec.tag("Termination").map(str::to_string).or(termination);
    let tags: Vec<(String, String)> = rec
        .tags
        .iter()
        .filter(|(k, _)| k != "Termination")
        .cloned()
        .collect();
    let secret = new_secret();
    let now = now_ms();
    let row = GameRow {
        id: new_id(),
        created: now,
        updated: now,
        mode: "local".to_string(),
        rules: rec.rules.name().to_string(),
        seed: rec.rules.seed().unwrap_or(0).to_string(),
        start: rec.start.to_string(),
        seats: ["human".to_string(), "human".to_string()],
        secrets: [Some(secret.clone()), Some(secret.clone())],
        status: status.to_string(),
        result,
        termination,
        rematch: None,
        tags: serde_json::to_string(&tags).unwrap_or_else(|_| "[]".to_string()),
        hints: true,
    };
    let moves: Vec<String> = rec.moves.iter().map(|m| m.to_string()).collect();
    let game = Game::from_row(row.clone(), &moves).map_err(ApiError::storage)?;
    st.db(move |s| s.create_game(&row, &moves)).await?;
    let view = game.view();
    st.insert(game);
    Ok((
        StatusCode::CREATED,
        Json(json!({"game": view, "seat": "both", "secret": secret})),
    )
        .into_response())
}

/// How the page is reached: the public address if the operator set one, and whether the server
/// listens on loopback only (so that the page can say a friend elsewhere cannot join).
pub async fn site(State(st): State<AppState>) -> Json<SiteView> {
    Json(st.0.site.clone())
}

pub async fn rules_list() -> Json<Value> {
    let list: Vec<Value> = VARIANTS
        .iter()
        .map(|(name, what)| json!({"name": name, "description": what}))
        .collect();
    Json(json!({ "rules": list }))
}

pub async fn events(
    State(st): State<AppState>,
    Path(id): Path<String>,
    ws: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> ApiResult<Response> {
    let slot = st.slot(&id).await?;
    let ws = ws.map_err(|e| {
        ApiError::malformed(format!("this endpoint takes a WebSocket connection: {e}"))
    })?;
    Ok(ws
        .max_message_size(4096)
        .on_upgrade(move |socket| watch(socket, slot)))
}

/// Sends the game's state, then every event, until the client goes away.
async fn watch(mut socket: WebSocket, slot: Arc<Slot>) {
    // Subscribing under the lock means no event can fall between the state and the stream.
    let (first, mut rx) = {
        let g = slot.game.lock().await;
        let rx = slot.events.subscribe();
        (json!({"type": "state", "game": g.view()}).to_string(), rx)
    };
    if socket.send(Message::Text(first.into())).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            ev = rx.recv() => {
                let text = match ev {
                    Ok(t) => t.to_string(),
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        // Too slow to follow every event: the current state replaces them.
                        let g = slot.game.lock().await;
                        json!({"type": "state", "game": g.view()}).to_string()
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if socket.send(Message::Text(text.into())).await.is_err() {
                    return;
                }
            }
            msg = socket.recv() => match msg {
                Some(Ok(Message::Text(t))) => {
                    // The page pings to find out whether the connection still works.
                    let reply = if t.contains("\"ping\"") {
                        json!({"type": "pong"})
                    } else {
                        json!({"type": "error", "error": "malformed", "message": "the only message a client sends is {\"type\":\"ping\"}"})
                    };
                    if socket.send(Message::Text(reply.to_string().into())).await.is_err() {
                        return;
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return,
            }
        }
    }
}

pub async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        "there is no such API endpoint",
    )
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this endpoint does not take that HTTP method",
    )
}
