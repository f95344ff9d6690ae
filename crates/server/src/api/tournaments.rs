//! Tournaments over HTTP and a WebSocket (issue 39, docs/tournaments.md "The API"): lists,
//! creation, one tournament's page, standings by page, games by round, joining and leaving,
//! the organiser's start, and the change signal. The director (crate::tournaments) pairs and
//! settles; these handlers only read, and record what a person asks.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::watch;

use crate::api::client::ClientIp;
use crate::api::extract::{Authed, Viewer};
use crate::api::JsonBody;
use crate::app::AppState;
use crate::chat::tournament::TournamentChat;
use crate::dates::now_ms;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::round::clock::TimeControl;
use crate::store::{Entry, MissedRow, TournamentState};
use crate::tournaments::cache::Cached;
use crate::tournaments::plan::{arena_end, ARENA_LAST_PAIRING_MS};
use crate::tournaments::settings::{CreateRequest, Settings, System, MAX_ENTRANTS, PER_ORGANISER};
use crate::tournaments::view;
use crate::ws::caps::{AskedUpgrade, Unopened};
use crate::ws::{text as text_of, Bounds, Channel, SocketError};

/// Tournaments each list holds.
const LISTED: usize = 50;

fn unknown(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::UnknownTournament,
        format!(
            "there is no tournament '{}'",
            id.chars().take(20).collect::<String>()
        ),
    )
}

fn closed(why: &str) -> ApiError {
    ApiError::new(StatusCode::CONFLICT, ErrorCode::TournamentClosed, why)
}

/// Tournament `id` as stored now, with its standings: from this instance's copy when it is
/// current, else read (by one request at a time; the others wait and share it).
async fn state_of(st: &AppState, id: &str) -> ApiResult<Arc<Cached>> {
    if !crate::ids::valid_id(id) {
        return Err(unknown(id));
    }
    let key = id.to_string();
    let version = st
        .db(move |s| s.tournament_version(&key))
        .await?
        .ok_or_else(|| unknown(id))?;
    let cache = st.tournament_cache();
    if let Some(c) = cache.get(id, version) {
        return Ok(c);
    }
    let loading = cache.loading(id);
    let _one = loading.lock().await;
    if let Some(c) = cache.get(id, version) {
        return Ok(c);
    }
    let key = id.to_string();
    let store = st.store().clone();
    let read = tokio::task::spawn_blocking(move || {
        store
            .tournament_state(&key)
            .map(|s| s.map(|s| Arc::new(Cached::new(s))))
    })
    .await
    .map_err(|e| ApiError::storage(format!("the tournament's read failed: {e}")))?;
    let c = read?.ok_or_else(|| unknown(id))?;
    cache.put(id, c.clone());
    Ok(c)
}

/// `GET /api/tournaments`.
pub async fn list(State(st): State<AppState>) -> ApiResult<Json<Value>> {
    let m = st.minute_ms();
    let lists = st
        .db(|s| {
            Ok((
                s.tournaments("upcoming", LISTED)?,
                s.tournaments("running", LISTED)?,
                s.tournaments("finished", LISTED)?,
            ))
        })
        .await?;
    let show = |v: Vec<crate::store::TournamentRow>| -> Vec<Value> {
        v.iter().map(|t| view::tournament(t, m)).collect()
    };
    Ok(Json(json!({
        "upcoming": show(lists.0),
        "running": show(lists.1),
        "finished": show(lists.2),
    })))
}

/// `POST /api/tournaments`: 201 `{"tournament": T}`.
pub async fn create(
    State(st): State<AppState>,
    client: ClientIp,
    Authed(s): Authed,
    JsonBody(req): JsonBody<CreateRequest>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    client.check(&st.limiters().games, "tournaments")?;
    let row = req.into_row(crate::ids::new_id(), &s.name, now_ms())?;
    let name = s.name.clone();
    let organised = st.db(move |db| db.tournaments_organised(&name)).await?;
    if organised >= PER_ORGANISER as i64 {
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!("you organise {PER_ORGANISER} tournaments already: let one finish first"),
        ));
    }
    let out = view::tournament(&row, st.minute_ms());
    st.db(move |db| db.create_tournament(row)).await?;
    Ok((StatusCode::CREATED, Json(json!({ "tournament": out }))))
}

/// Whether `name` may join `state` now (conditions aside): `Err` says why not.
fn open_to_join(state: &TournamentState, minute_ms: i64, now: i64) -> Result<(), &'static str> {
    let t = &state.tournament;
    let system = System::from_name(&t.system);
    match t.status.as_str() {
        "finished" | "cancelled" => return Err("the tournament is over"),
        "running" if system == Some(System::RoundRobin) => {
            return Err("a round robin takes no players once it has started")
        }
        "running" if system == Some(System::Swiss) && t.round * 2 > t.rounds.unwrap_or(0) => {
            return Err("a Swiss takes no players past half its rounds")
        }
        "running" if system == Some(System::Swiss) => {}
        "running" => {
            let last = ARENA_LAST_PAIRING_MS.min(minute_ms / 2);
            if now >= arena_end(state, minute_ms) - last {
                return Err("the arena is about to end");
            }
        }
        _ => {}
    }
    let max = if system == Some(System::RoundRobin) {
        anywoli_tournament::robin::MAX_PLAYERS as i64
    } else {
        MAX_ENTRANTS
    };
    if t.players >= max {
        return Err("the tournament is full");
    }
    Ok(())
}

/// `GET /api/tournaments/{id}`.
pub async fn one(
    State(st): State<AppState>,
    Path(id): Path<String>,
    viewer: Viewer,
) -> ApiResult<Json<Value>> {
    let c = state_of(&st, &id).await?;
    let (state, standings) = (&c.state, &c.standings);
    let me = viewer.name();
    let active = me.is_some_and(|n| {
        state
            .entries
            .iter()
            .any(|e| e.account == n && e.state == "active")
    });
    let can_join = me.is_some() && !active && open_to_join(state, st.minute_ms(), now_ms()).is_ok();
    Ok(Json(view::page(
        state,
        standings,
        me,
        can_join,
        st.minute_ms(),
    )))
}

#[derive(Deserialize)]
pub struct PageQuery {
    page: Option<usize>,
}

/// `GET /api/tournaments/{id}/standings?page=P`.
pub async fn standings(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> ApiResult<Json<Value>> {
    let c = state_of(&st, &id).await?;
    let (state, rows) = (&c.state, &c.standings);
    let pages = rows.len().div_ceil(view::PER_PAGE).max(1);
    let page = q.page.unwrap_or(1).clamp(1, pages);
    let players: Vec<Value> = rows
        .iter()
        .skip((page - 1) * view::PER_PAGE)
        .take(view::PER_PAGE)
        .map(|s| view::standing(s, view::state_of(state, &s.id)))
        .collect();
    Ok(Json(json!({
        "page": page,
        "pages": pages,
        "total": rows.len(),
        "players": players,
    })))
}

#[derive(Deserialize)]
pub struct RoundQuery {
    round: Option<i64>,
}

/// `GET /api/tournaments/{id}/games?round=R`.
pub async fn games(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<RoundQuery>,
) -> ApiResult<Json<Value>> {
    let c = state_of(&st, &id).await?;
    let games: Vec<Value> = c
        .state
        .games
        .iter()
        .filter(|g| match q.round {
            Some(r) => g.round == r,
            None => g.result.is_none(),
        })
        .map(|g| {
            json!({
                "game": g.game,
                "round": g.round,
                "south": g.south,
                "north": g.north,
                "result": g.result,
                "plies": g.plies,
            })
        })
        .collect();
    Ok(Json(json!({ "round": q.round, "games": games })))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct JoinRequest {
    #[serde(default)]
    password: Option<String>,
}

fn me_of(c: &Cached, name: &str) -> Value {
    let e = c.state.entries.iter().find(|e| e.account == name);
    let s = c.standings.iter().find(|s| s.id == name);
    match (e, s) {
        (Some(e), Some(s)) => json!({
            "state": e.state,
            "playing": e.playing,
            "rank": s.rank,
            "score": s.score,
            "games": s.games,
        }),
        _ => Value::Null,
    }
}

/// `POST /api/tournaments/{id}/join`.
pub async fn join(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
    Authed(s): Authed,
    JsonBody(req): JsonBody<JoinRequest>,
) -> ApiResult<Json<Value>> {
    client.check(&st.limiters().games, "tournament entries")?;
    let c = state_of(&st, &id).await?;
    let state = &c.state;
    let t = &state.tournament;
    let now = now_ms();
    let already = state.entries.iter().find(|e| e.account == s.name);
    if already.is_some_and(|e| e.state == "active") {
        return Ok(Json(json!({ "me": me_of(&c, &s.name) })));
    }
    open_to_join(state, st.minute_ms(), now).map_err(closed)?;
    if let Some(wait) = already.and_then(|e| leader_cooldown(&c, e, now)) {
        let secs = (wait as u64).div_ceil(1000);
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!("a leader who paused comes back after a minute: in {secs} s"),
        )
        .with_retry_after(secs));
    }
    let settings = Settings::of(t);
    if !settings.admits(&t.id, req.password.as_deref()) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::WrongPassword,
            "this tournament asks for a password, and that is not it",
        ));
    }
    crate::api::waits::refuse_waiting(&st, Some(&s.name), crate::api::waits::Whose::Mine).await?;
    let clock = TimeControl::parse(&t.clock).map_err(|e| ApiError::storage(e.to_string()))?;
    let (category, rules) = (clock.category().name().to_string(), t.rules.clone());
    let name = s.name.clone();
    let row = st
        .db(move |db| {
            Ok(db
                .ratings(&name)?
                .into_iter()
                .find(|r| r.category == category && r.rules == rules))
        })
        .await?;
    let (rating, rated_games) = row.map_or((crate::rating::Rating::DEFAULT.rating, 0), |r| {
        (r.rating.rating, r.games)
    });
    let rating = rating.round() as i64;
    if settings.min_rating.is_some_and(|m| rating < m) || rated_games < settings.min_rated_games {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::EntryConditions,
            format!(
                "this tournament asks for a rating of {} and {} rated games at its speed; you \
                 have {rating} and {rated_games}",
                settings.min_rating.unwrap_or(0),
                settings.min_rated_games
            ),
        ));
    }
    let missed = missed_rounds(state, &s.name);
    let entry = Entry {
        tournament: t.id.clone(),
        account: s.name.clone(),
        now,
        rating,
        bot: false,
        state: "active".to_string(),
        missed,
    };
    st.db(move |db| db.set_entry(entry)).await?;
    let c = state_of(&st, &id).await?;
    Ok(Json(json!({ "me": me_of(&c, &s.name) })))
}

/// Players among the first this many who pause an arena wait [`LEADER_COOLDOWN_MS`] before
/// they come back, so that a leader cannot sit out to keep their place and rejoin at will.
pub const LEADERS: u32 = 10;
pub const LEADER_COOLDOWN_MS: i64 = 60_000;

/// How long `e`, paused, still waits before coming back (ms), if a leader's cooldown holds.
fn leader_cooldown(c: &Cached, e: &crate::store::EntryRow, now: i64) -> Option<i64> {
    if e.state != "paused" {
        return None;
    }
    let rank = c.standings.iter().find(|s| s.id == e.account)?.rank;
    let left = e.since + LEADER_COOLDOWN_MS - now;
    (rank <= LEADERS && left > 0).then_some(left)
}

/// The rounds of a Swiss that a player joining now has missed: half a point for a missed first
/// round, nothing for later ones (docs/tournaments.md).
fn missed_rounds(state: &TournamentState, name: &str) -> Vec<MissedRow> {
    let t = &state.tournament;
    if System::from_name(&t.system) != Some(System::Swiss) {
        return Vec::new();
    }
    (1..=t.round)
        .filter(|r| {
            !state
                .games
                .iter()
                .any(|g| g.round == *r && (g.south == name || g.north == name))
                && !state
                    .missed
                    .iter()
                    .any(|m| m.round == *r && m.account == name)
        })
        .map(|r| MissedRow {
            account: name.to_string(),
            round: r,
            kind: "absent".to_string(),
            points: if r == 1 { 0.5 } else { 0.0 },
        })
        .collect()
}

/// `POST /api/tournaments/{id}/withdraw`: a pause in an arena, out of the rounds to come in a
/// Swiss or round robin (or out before it starts).
pub async fn withdraw(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Authed(s): Authed,
) -> ApiResult<Json<Value>> {
    let c = state_of(&st, &id).await?;
    let state = &c.state;
    let t = &state.tournament;
    let arena = System::from_name(&t.system) == Some(System::Arena);
    let to = if arena && t.status == "running" {
        "paused"
    } else {
        "withdrawn"
    };
    if state.entries.iter().any(|e| e.account == s.name) {
        let entry = Entry {
            tournament: t.id.clone(),
            account: s.name.clone(),
            now: now_ms(),
            rating: 0,
            bot: false,
            state: to.to_string(),
            missed: Vec::new(),
        };
        st.db(move |db| db.set_entry(entry)).await?;
    }
    let c = state_of(&st, &id).await?;
    Ok(Json(json!({ "me": me_of(&c, &s.name) })))
}

/// `POST /api/tournaments/{id}/start`: its organiser starts it now, or its next round.
pub async fn start(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Authed(s): Authed,
) -> ApiResult<Json<Value>> {
    let c = state_of(&st, &id).await?;
    if c.state.tournament.created_by != s.name {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::NotAllowed,
            "only the tournament's organiser starts it",
        ));
    }
    let (key, name) = (id.clone(), s.name.clone());
    let started = st
        .db(move |db| db.start_tournament(&key, &name, now_ms()))
        .await?;
    if !started {
        return Err(closed(
            "there is nothing to start: it is running by its own clock, or over",
        ));
    }
    Ok(Json(json!({ "started": true })))
}

/// Games one export holds at most (a three-hour arena of 500 players plays fewer).
const EXPORT_GAMES: usize = 20_000;

fn download(body: String, content_type: &'static str, file: String) -> Response {
    use axum::http::{header, HeaderValue};
    use axum::response::IntoResponse;
    let mut resp = ([(header::CONTENT_TYPE, content_type)], body).into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{file}\"")) {
        resp.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    resp
}

/// A CSV field: quoted when it must be, and never read as a formula by a spreadsheet.
fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// `GET /api/tournaments/{id}/standings.csv`: the whole standings as CSV.
pub async fn standings_csv(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
) -> ApiResult<Response> {
    client.check(&st.limiters().care, "exports")?;
    let c = state_of(&st, &id).await?;
    let mut out = String::from(
        "rank,name,rating,score,games,wins,draws,losses,performance,buchholz,sonneborn_berger,state\n",
    );
    for s in &c.standings {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}\n",
            s.rank,
            csv_field(&s.id),
            s.rating,
            s.score,
            s.games,
            s.wins,
            s.draws,
            s.losses,
            s.performance.map_or(String::new(), |p| p.to_string()),
            s.buchholz,
            s.sonneborn_berger,
            view::state_of(&c.state, &s.id),
        ));
    }
    Ok(download(
        out,
        "text/csv; charset=utf-8",
        format!("tournament-{id}.csv"),
    ))
}

/// `GET /api/tournaments/{id}/games.txt`: every game played to its end, as records
/// (docs/record-format.md), one after the other.
pub async fn games_records(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
) -> ApiResult<Response> {
    client.check(&st.limiters().care, "exports")?;
    let c = state_of(&st, &id).await?;
    let ids: Vec<String> = c
        .state
        .games
        .iter()
        .filter(|g| g.result.as_deref().is_some_and(|r| r != "aborted"))
        .take(EXPORT_GAMES)
        .map(|g| g.game.clone())
        .collect();
    let text = st
        .db(move |s| {
            let mut out = String::new();
            for id in ids {
                if let Some((row, moves)) = s.load(&id)? {
                    if let Ok(g) = crate::round::game::Game::from_row(row, &moves) {
                        out.push_str(&g.record().to_string());
                        out.push('\n');
                    }
                }
            }
            Ok(out)
        })
        .await?;
    Ok(download(
        text,
        "text/plain; charset=utf-8",
        format!("tournament-{id}.txt"),
    ))
}

/// What a watcher may send: pings only.
const BOUNDS: Bounds = Bounds::per_10s(1024, 20);

/// `GET /api/tournaments/{id}/events`: `{"type":"changed","version","at"}` at most once a
/// second, and the tournament's chat (`{"type":"chat","line"}` out, `{"type":"chat","text"}`
/// in, from an account).
pub async fn events(
    State(st): State<AppState>,
    Path(id): Path<String>,
    client: ClientIp,
    viewer: Viewer,
    ws: AskedUpgrade,
) -> Result<Response, Unopened> {
    let key = id.clone();
    let version = match st.db(move |s| s.tournament(&key)).await {
        Ok(Some(t)) => t.version,
        Ok(None) => return Err(Unopened::NotAnUpgrade(unknown(&id))),
        Err(e) => return Err(Unopened::NotAnUpgrade(e)),
    };
    let (ws, permit) = crate::ws::caps::open(st.sockets(), client.0, ws)?;
    let ip = client
        .0
        .map_or_else(|| "-".to_string(), |ip| ip.to_string());
    let who = viewer.name().map(str::to_string);
    let chat = TournamentChat::open(st.chat().clone(), &id, who, ip)
        .await
        .map_err(Unopened::NotAnUpgrade)?;
    let limits = st.sockets().limits();
    let rx = st.tournaments().watch(&id, version);
    Ok(BOUNDS.upgrade(ws).on_upgrade(move |socket| async move {
        let first = Some(changed(*rx.borrow()));
        crate::ws::serve(socket, Watcher { rx, chat }, first, BOUNDS, limits, permit).await;
    }))
}

/// `{"type": "changed", "version", "at"}`: `at` is when this instance saw the version (ms).
fn changed((version, at): crate::tournaments::signal::Seen) -> String {
    text_of(&Out::Changed { version, at })
}

/// What a tournament's watcher is sent.
#[derive(serde::Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Out {
    Changed { version: i64, at: i64 },
    Chat { line: crate::chat::reader::Heard },
    Pong,
    Error(SocketError),
}

struct Watcher {
    rx: watch::Receiver<crate::tournaments::signal::Seen>,
    chat: TournamentChat,
}

/// What a tournament's watcher sends.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum In {
    Ping,
    Chat { text: String },
}

impl Channel for Watcher {
    async fn next(&mut self) -> Option<String> {
        tokio::select! {
            r = self.rx.changed() => {
                r.ok()?;
                let v = *self.rx.borrow_and_update();
                Some(changed(v))
            }
            Some(line) = self.chat.next() => Some(text_of(&Out::Chat { line })),
        }
    }

    async fn answer(&mut self, text: String) -> Option<String> {
        match serde_json::from_str::<In>(&text) {
            Ok(In::Ping) => Some(text_of(&Out::Pong)),
            // A line said reaches its author with its readers; only a refusal answers.
            Ok(In::Chat { text }) => self
                .chat
                .say(&text)
                .await
                .err()
                .map(|e| text_of(&Out::Error(e))),
            Err(_) => Some(text_of(&Out::Error(SocketError::malformed(
                "a tournament's watcher sends {\"type\":\"ping\"} or {\"type\":\"chat\",\"text\":…}",
            )))),
        }
    }
}

/// The routes of tournaments (under /api; the events socket is in crate::WEBSOCKET_ROUTES).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/tournaments", get(list).post(create))
        .route("/tournaments/{id}", get(one))
        .route("/tournaments/{id}/standings", get(standings))
        .route("/tournaments/{id}/games", get(games))
        .route("/tournaments/{id}/standings.csv", get(standings_csv))
        .route("/tournaments/{id}/games.txt", get(games_records))
        .route("/tournaments/{id}/join", post(join))
        .route("/tournaments/{id}/withdraw", post(withdraw))
        .route("/tournaments/{id}/start", post(start))
}
