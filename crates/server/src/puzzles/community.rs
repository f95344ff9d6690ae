//! Puzzles people compose (docs/api.md, "Composing puzzles"): `POST /api/puzzles/compose`
//! asks the composer (`anywoli_engine::compose`) whether a position is a puzzle and why not;
//! `POST /api/puzzles/community` composes it again on the server — a client's word is never
//! taken for a proof — and keeps it with its solution; the rest lists, shows and judges the
//! community's puzzles as the collection's are.

use crate::error::ErrorCode;
use anywoli_core::{Move, Position, Rules};
use anywoli_engine::compose::{compose, ComposeLimits, Refusal};
use anywoli_engine::puzzles::Puzzle;
use anywoli_engine::themes::{self, Theme};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{common_view, line, theme_names};
use super::{Asked, MovesRequest};
use crate::account::session::check_csrf;
use crate::api::client::ClientIp;
use crate::api::extract::Viewer;
use crate::api::JsonBody;
use crate::app::AppState;
use crate::engine_queue::{Priority, QueueError};
use crate::error::{ApiError, ApiResult};
use crate::store::PuzzleRow;
use crate::trace_json::side_name;

/// What one composition may spend: all the solver's questions together, about 1 s of one
/// core on the 2-core reference machine (docs/decisions.md, "Composed puzzles").
pub const COMPOSE_NODES: u64 = 2_000_000;
/// Puzzles a page of the community list shows.
pub const PAGE_SIZE: i64 = 30;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComposeRequest {
    position: String,
    rules: Option<String>,
    /// The game seed of `anywoli-lottery`; 0 when not given.
    seed: Option<u64>,
}

impl ComposeRequest {
    fn position(&self) -> ApiResult<Position> {
        let rules = Rules::from_name(
            self.rules.as_deref().unwrap_or("anywoli"),
            self.seed.unwrap_or(0),
        )
        .map_err(|e| ApiError::malformed(format!("rules: {e}")))?;
        anywoli_core::parse_position(&self.position, rules)
            .map_err(|e| ApiError::malformed(e.to_string()))
    }
}

/// A list's query: `theme=NAME` and, for the community's, `page=N` (from 1).
pub struct ListQuery {
    pub theme: Option<Theme>,
    pub page: i64,
}

impl ListQuery {
    pub fn parse(q: Option<&str>, paged: bool) -> ApiResult<ListQuery> {
        let mut out = ListQuery {
            theme: None,
            page: 1,
        };
        for pair in q.unwrap_or("").split('&').filter(|s| !s.is_empty()) {
            let cut = |s: &str| s.chars().take(40).collect::<String>();
            match pair.split_once('=') {
                Some(("theme", t)) => {
                    out.theme = Some(Theme::from_name(t).ok_or_else(|| {
                        ApiError::malformed(format!(
                            "theme: no theme '{}'; the themes are {}",
                            cut(t),
                            Theme::ALL.map(Theme::name).join(", ")
                        ))
                    })?)
                }
                Some(("page", n)) if paged => {
                    out.page = n
                        .parse()
                        .ok()
                        .filter(|&n| (1..=100_000).contains(&n))
                        .ok_or_else(|| {
                            ApiError::malformed(format!(
                                "page: '{}' is not a page number (1 to 100000)",
                                cut(n)
                            ))
                        })?
                }
                _ => {
                    return Err(ApiError::malformed(format!(
                        "unknown query '{}': only theme=NAME{}",
                        cut(pair),
                        if paged { " and page=N" } else { "" }
                    )))
                }
            }
        }
        Ok(out)
    }
}

/// Why a position is not a puzzle, with the numbers of the reason for the page's own words.
fn refusal_json(r: &Refusal) -> Value {
    let mut v = json!({"puzzle": false, "reason": r.name(), "message": r.to_string()});
    let letters = |m: &[Move]| m.iter().map(|m| m.to_string()).collect::<Vec<_>>();
    let more = match r {
        Refusal::GameOver => json!({}),
        Refusal::NotAWin { value, margin } => json!({"value": value, "margin": margin}),
        Refusal::SeveralWinningFirstMoves { moves } => json!({"moves": letters(moves)}),
        Refusal::Dual { ply, moves } => json!({"ply": ply, "moves": letters(moves)}),
        Refusal::Unproven { nodes } => json!({"nodes": nodes}),
        Refusal::TooLong { max } => json!({"max": max}),
    };
    if let (Value::Object(v), Value::Object(more)) = (&mut v, more) {
        v.extend(more);
    }
    v
}

/// A proven puzzle: its solution and what it is like.
fn composed_json(pz: &Puzzle) -> Value {
    let mut v = common_view(pz);
    let o = v.as_object_mut().expect("an object");
    o.insert("puzzle".into(), json!(true));
    o.insert("first_move".into(), json!(pz.line[0].to_string()));
    o.insert("line".into(), json!(line(pz)));
    v
}

/// Composes `pos` on the engine queue, as a hint (and counted as one).
async fn run(st: &AppState, client: &ClientIp, pos: Position) -> ApiResult<ComposeAnswer> {
    if pos.to_move().is_some() && pos.seeds_in_play() > crate::api::position::PROOF_MAX_SEEDS {
        return Ok(ComposeAnswer::TooManySeeds(pos.seeds_in_play()));
    }
    if pos.to_move().is_some() {
        client.check(&st.limiters().hints, "puzzles composed")?;
    }
    let job = move || {
        let tb = anywoli_engine::endgame::shared();
        compose(&pos, tb.as_deref(), ComposeLimits::nodes(COMPOSE_NODES))
    };
    match st.engine().run(Priority::Hint, job).await {
        Ok(Ok(pz)) => Ok(ComposeAnswer::Puzzle(pz)),
        Ok(Err(r)) => Ok(ComposeAnswer::Refused(r)),
        Err(QueueError::Full { retry_after }) => Err(ApiError::busy(
            "the engine is busy with other hints and proofs; try again",
            retry_after.as_secs(),
        )),
        Err(e) => Err(ApiError::busy(e.to_string(), 5)),
    }
}

enum ComposeAnswer {
    Puzzle(Puzzle),
    Refused(Refusal),
    /// More seeds in play than the solver is started for.
    TooManySeeds(u8),
}

impl ComposeAnswer {
    fn refusal_json(&self) -> Option<Value> {
        match self {
            ComposeAnswer::Puzzle(_) => None,
            ComposeAnswer::Refused(r) => Some(refusal_json(r)),
            ComposeAnswer::TooManySeeds(n) => Some(json!({
                "puzzle": false,
                "reason": "too_many_seeds",
                "message": format!(
                    "{n} seeds in play: the solver proves puzzles of at most {} seeds",
                    crate::api::position::PROOF_MAX_SEEDS
                ),
                "in_play": n,
                "max": crate::api::position::PROOF_MAX_SEEDS,
            })),
        }
    }
}

fn seed_text(pos: &Position) -> String {
    pos.rules()
        .seed()
        .map(|s| s.to_string())
        .unwrap_or_default()
}

/// `POST /api/puzzles/compose`: `200` with the puzzle or the reason it is none; the `id` of
/// the community's puzzle when the position is one already.
pub async fn compose_one(
    State(st): State<AppState>,
    client: ClientIp,
    JsonBody(req): JsonBody<ComposeRequest>,
) -> ApiResult<Json<Value>> {
    let pos = req.position()?;
    let answer = run(&st, &client, pos).await?;
    let ComposeAnswer::Puzzle(pz) = answer else {
        return Ok(Json(answer.refusal_json().expect("a refusal")));
    };
    let mut v = composed_json(&pz);
    let (p, r, s) = (
        pos.to_string(),
        pos.rules().name().to_string(),
        seed_text(&pos),
    );
    if let Some(row) = st.db(move |db| db.puzzle_of(&p, &r, &s)).await? {
        v["id"] = json!(row.id);
    }
    Ok(Json(v))
}

/// `POST /api/puzzles/community`: composes the position again and keeps it. `201` with the
/// new puzzle, `200` with the one already kept for the position, `422 not_a_puzzle` with
/// the reason when it is none. A logged-in author's name goes with it (the request must then
/// carry the session's CSRF token, as every cookie-authenticated change does).
pub async fn save(
    State(st): State<AppState>,
    client: ClientIp,
    viewer: Viewer,
    headers: HeaderMap,
    JsonBody(req): JsonBody<ComposeRequest>,
) -> ApiResult<Response> {
    let pos = req.position()?;
    if let Some(session) = &viewer.0 {
        check_csrf(&headers, session)?;
    }
    let (p, r, s) = (
        pos.to_string(),
        pos.rules().name().to_string(),
        seed_text(&pos),
    );
    let (p2, r2, s2) = (p.clone(), r.clone(), s.clone());
    if let Some(row) = st
        .rounds()
        .db(move |db| db.puzzle_of(&p2, &r2, &s2))
        .await?
    {
        return Ok((StatusCode::OK, Json(json!({"puzzle": row_view(&row)?}))).into_response());
    }
    client.check(&st.limiters().imports, "puzzles saved")?;
    let answer = run(&st, &client, pos).await?;
    let ComposeAnswer::Puzzle(pz) = answer else {
        let why = answer.refusal_json().expect("a refusal");
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::NotAPuzzle,
            format!(
                "the position is not a puzzle: {}",
                why["message"].as_str().unwrap_or("")
            ),
        ));
    };
    let row = PuzzleRow {
        id: crate::ids::new_id(),
        position: p,
        rules: r,
        seed: s,
        line: line(&pz).join(" "),
        grade: pz.grade as i64,
        plies: pz.plies as i64,
        defences: pz.defences as i64,
        themes: themes::join(&themes::themes(&pz.position, &pz.line)),
        author: viewer.name().map(str::to_string),
        created: crate::dates::now_ms(),
    };
    let saved = row.clone();
    let inserted = st.db(move |db| db.save_puzzle(saved)).await?;
    if inserted {
        return Ok((
            StatusCode::CREATED,
            Json(json!({"puzzle": row_view(&row)?})),
        )
            .into_response());
    }
    // Another request kept the same position a moment before: that one is the puzzle.
    let (p, r, s) = (row.position, row.rules, row.seed);
    match st.db(move |db| db.puzzle_of(&p, &r, &s)).await? {
        Some(row) => Ok((StatusCode::OK, Json(json!({"puzzle": row_view(&row)?}))).into_response()),
        None => Err(ApiError::storage("the puzzle was neither stored nor found")),
    }
}

/// The stored puzzle as the engine's puzzle (numbered 0: community puzzles go by `id`).
fn puzzle_of_row(row: &PuzzleRow) -> ApiResult<Puzzle> {
    let bad = |what: &str| ApiError::storage(format!("community puzzle {}: {what}", row.id));
    let seed = if row.seed.is_empty() {
        0
    } else {
        row.seed.parse().map_err(|_| bad("bad seed"))?
    };
    let rules = Rules::from_name(&row.rules, seed).map_err(|_| bad("unknown rules"))?;
    let position =
        anywoli_core::parse_position(&row.position, rules).map_err(|_| bad("bad position"))?;
    let line = row
        .line
        .split_whitespace()
        .map(|m| m.parse::<Move>().map_err(|_| bad("bad line")))
        .collect::<ApiResult<Vec<Move>>>()?;
    Ok(Puzzle {
        id: 0,
        grade: row.grade as u8,
        plies: row.plies as u16,
        defences: row.defences as u32,
        position,
        line,
    })
}

/// A community puzzle without its solution.
fn row_view(row: &PuzzleRow) -> ApiResult<Value> {
    let pz = puzzle_of_row(row)?;
    let mut v = common_view(&pz);
    let o = v.as_object_mut().expect("an object");
    o.insert("id".into(), json!(row.id));
    o.insert("community".into(), json!(true));
    o.insert("rules".into(), json!(row.rules));
    o.insert("author".into(), json!(row.author));
    o.insert("created".into(), json!(row.created));
    Ok(v)
}

fn unknown(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::UnknownPuzzle,
        format!(
            "there is no community puzzle '{}'",
            id.chars().take(20).collect::<String>()
        ),
    )
}

async fn find(st: &AppState, id: &str) -> ApiResult<PuzzleRow> {
    if !crate::ids::valid_id(id) {
        return Err(unknown(id));
    }
    let key = id.to_string();
    st.rounds()
        .db(move |db| db.puzzle(&key))
        .await?
        .ok_or_else(|| unknown(id))
}

/// `GET /api/puzzles/community[?theme=NAME][&page=N]`: newest first.
pub async fn list(State(st): State<AppState>, RawQuery(q): RawQuery) -> ApiResult<Json<Value>> {
    let query = ListQuery::parse(q.as_deref(), true)?;
    let theme = query.theme.map(|t| t.name());
    let offset = (query.page - 1) * PAGE_SIZE;
    let (rows, total) = st
        .rounds()
        .db(move |db| db.puzzles(theme, PAGE_SIZE, offset))
        .await?;
    let list = rows
        .iter()
        .map(|r| {
            Ok(json!({
                "id": r.id, "grade": r.grade, "plies": r.plies, "defences": r.defences,
                "themes": themes::split(&r.themes).into_iter().map(Theme::name).collect::<Vec<_>>(),
                "side": side_name(puzzle_of_row(r)?.side()),
                "rules": r.rules, "author": r.author, "created": r.created,
            }))
        })
        .collect::<ApiResult<Vec<Value>>>()?;
    Ok(Json(json!({
        "puzzles": list,
        "total": total,
        "page": query.page,
        "per_page": PAGE_SIZE,
        "themes": Theme::ALL.map(Theme::name),
    })))
}

/// `GET /api/puzzles/community/{id}`.
pub async fn get(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    let row = find(&st, &id).await?;
    let mut v = row_view(&row)?;
    v["rating"] = super::rating::puzzle_rating(&st, row.id, row.grade.clamp(1, 5) as u8).await?;
    Ok(Json(v))
}

/// `POST /api/puzzles/community/{id}/moves`: as the collection's.
pub async fn moves(
    State(st): State<AppState>,
    Path(id): Path<String>,
    asked: Asked<MovesRequest>,
) -> ApiResult<Json<Value>> {
    let row = find(&st, &id).await?;
    let pz = puzzle_of_row(&row)?;
    super::answer_moves(&st, asked, row.id, &pz).await
}

/// `POST /api/puzzles/community/{id}/solution`: as the collection's.
pub async fn give_up_solution(
    State(st): State<AppState>,
    Path(id): Path<String>,
    asked: Asked<super::rating::SolverRequest>,
) -> ApiResult<Json<Value>> {
    let row = find(&st, &id).await?;
    let pz = puzzle_of_row(&row)?;
    super::give_up(&st, asked, row.id, &pz).await
}

/// `GET /api/puzzles/community/{id}/solution`.
pub async fn solution(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let pz = puzzle_of_row(&find(&st, &id).await?)?;
    Ok(Json(
        json!({ "solution": line(&pz), "themes": theme_names(&pz) }),
    ))
}

/// The routes of the community's puzzles: composed, saved, solved (under /api).
pub fn router() -> axum::Router<AppState> {
    use crate::api::position::POSITION_BODY_LIMIT;
    use axum::extract::DefaultBodyLimit;
    use axum::routing::{get, post};
    axum::Router::new()
        .route(
            "/puzzles/compose",
            post(compose_one).layer(DefaultBodyLimit::max(POSITION_BODY_LIMIT)),
        )
        .route(
            "/puzzles/community",
            get(list)
                .post(save)
                .layer(DefaultBodyLimit::max(POSITION_BODY_LIMIT)),
        )
        .route("/puzzles/community/{id}", get(self::get))
        .route("/puzzles/community/{id}/moves", post(moves))
        .route(
            "/puzzles/community/{id}/solution",
            get(solution).post(give_up_solution),
        )
}
