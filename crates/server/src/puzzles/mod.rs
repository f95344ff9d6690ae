//! Endgame puzzles over HTTP (docs/api.md, "Puzzles"): the committed collection, the puzzle of
//! the day, and the check of a player's moves, answered with North's best defence.
//!
//! The collection (`anywoli_engine::puzzles`) carries each puzzle's whole solution, proven by
//! the 8-seed database when it was made: South's only winning move at every turn and North's
//! longest defence. So the server needs no database to judge an attempt or to defend.

use crate::error::ErrorCode;
use anywoli_core::{Line, Position, Side};
use anywoli_engine::puzzles::{self, Judgement, Puzzle};
use anywoli_engine::themes::{self, Theme};
use axum::extract::{FromRequest, FromRequestParts, Path, RawQuery, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::api::extract::Viewer;
use crate::api::JsonBody;
use crate::app::AppState;
use crate::error::{ApiError, ApiResult};
use crate::trace_json::{side_name, JsonTrace};

pub mod community;
pub mod rating;

fn unknown_puzzle(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::UnknownPuzzle,
        format!(
            "there is no puzzle '{}': they are numbered 1 to {}",
            id.chars().take(20).collect::<String>(),
            puzzles::all().len()
        ),
    )
}

/// The board of a position as the page draws it.
pub(crate) fn board(p: &Position) -> Value {
    json!({
        "position": p.to_string(),
        "holes": p.holes().to_vec(),
        "stores": [p.store(Side::South), p.store(Side::North)],
        "to_move": p.to_move().map(side_name),
        "legal": p.moves().map(|m| m.to_string()).collect::<Vec<_>>(),
    })
}

/// A puzzle without its solution.
fn view(p: &Puzzle) -> Value {
    let mut v = common_view(p);
    let o = v.as_object_mut().expect("an object");
    o.insert("id".into(), json!(p.id));
    o.insert("count".into(), json!(puzzles::all().len()));
    v
}

/// What every puzzle's view has, the collection's and the community's: the board, whose
/// puzzle it is, its grade, length and themes.
pub(crate) fn common_view(p: &Puzzle) -> Value {
    let mut v = board(&p.position);
    let o = v.as_object_mut().expect("an object");
    o.insert("side".into(), json!(side_name(p.side())));
    o.insert("grade".into(), json!(p.grade));
    o.insert("plies".into(), json!(p.plies));
    o.insert("solver_moves".into(), json!(p.solver_moves().len()));
    o.insert("south_moves".into(), json!(p.south_moves().len()));
    o.insert("defences".into(), json!(p.defences));
    o.insert("themes".into(), json!(theme_names(p)));
    v
}

/// The names of a puzzle's themes, read from its line.
pub(crate) fn theme_names(p: &Puzzle) -> Vec<&'static str> {
    themes::themes(&p.position, &p.line)
        .into_iter()
        .map(|t| t.name())
        .collect()
}

fn find(id: &str) -> ApiResult<&'static Puzzle> {
    id.parse::<u32>()
        .ok()
        .and_then(puzzles::by_id)
        .ok_or_else(|| unknown_puzzle(id))
}

/// `GET /api/puzzles[?theme=NAME]`: the collection, without solutions; with `theme`, only
/// the puzzles with that theme.
pub async fn list(RawQuery(q): RawQuery) -> ApiResult<Json<Value>> {
    let query = community::ListQuery::parse(q.as_deref(), false)?;
    let list: Vec<Value> = puzzles::all()
        .iter()
        .filter(|p| {
            query
                .theme
                .is_none_or(|t| themes::themes(&p.position, &p.line).contains(&t))
        })
        .map(|p| {
            json!({"id": p.id, "grade": p.grade, "plies": p.plies, "defences": p.defences,
                   "themes": theme_names(p)})
        })
        .collect();
    Ok(Json(
        json!({ "puzzles": list, "themes": Theme::ALL.map(Theme::name) }),
    ))
}

/// `GET /api/puzzles/daily?date=YYYY-MM-DD`: the puzzle of that day (the server's date, UTC,
/// when none is given: the page sends the reader's own date).
pub async fn daily(State(st): State<AppState>, RawQuery(q): RawQuery) -> ApiResult<Json<Value>> {
    let mut date = None;
    for pair in q
        .as_deref()
        .unwrap_or("")
        .split('&')
        .filter(|s| !s.is_empty())
    {
        match pair.split_once('=') {
            Some(("date", d)) => date = Some(d.to_string()),
            _ => {
                return Err(ApiError::malformed(format!(
                    "unknown query '{}': only date=YYYY-MM-DD",
                    pair.chars().take(40).collect::<String>()
                )))
            }
        }
    }
    let day = match &date {
        Some(d) => puzzles::day_of(d)
            // A day that does not exist (2026-02-31) is refused, not rolled over into March.
            .filter(|&day| {
                let (y, m, dd) = crate::dates::civil(day);
                format!("{y:04}-{m:02}-{dd:02}") == d.trim()
            })
            .ok_or_else(|| {
                ApiError::malformed(format!(
                    "bad date '{}': expected YYYY-MM-DD",
                    d.chars().take(20).collect::<String>()
                ))
            })?,
        None => crate::dates::now_ms() / 86_400_000,
    };
    let p = puzzles::daily(day);
    let mut v = view(p);
    v["daily"] = json!(true);
    v["rating"] = rating::puzzle_rating(&st, p.id.to_string(), p.grade).await?;
    Ok(Json(v))
}

/// `GET /api/puzzles/{id}`.
pub async fn get(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    let pz = find(&id)?;
    let mut v = view(pz);
    v["rating"] = rating::puzzle_rating(&st, pz.id.to_string(), pz.grade).await?;
    Ok(Json(v))
}

/// A request that rates a solver: who asks (the session, and its headers for the CSRF check)
/// and the JSON body. One extractor, so that the collection's and the community's handlers
/// read it alike; the session is read before the body, as when they were separate.
pub(crate) struct Asked<T> {
    pub viewer: Viewer,
    pub headers: HeaderMap,
    pub body: T,
}

impl<T: DeserializeOwned> FromRequest<AppState> for Asked<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, st: &AppState) -> Result<Self, ApiError> {
        let (mut parts, body) = req.into_parts();
        let viewer = Viewer::from_request_parts(&mut parts, st).await?;
        let headers = parts.headers.clone();
        let JsonBody(body) = JsonBody::from_request(Request::from_parts(parts, body), st).await?;
        Ok(Asked {
            viewer,
            headers,
            body,
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MovesRequest {
    moves: Vec<String>,
    /// The browser's solver token, for puzzle ratings ([`rating`]).
    solver: Option<String>,
}

/// `POST /api/puzzles/{id}/moves` with `{"moves": [...]}`: every move played so far from the
/// puzzle's position, the player's newest last. The answer judges that move and, when it is
/// right, adds the opponent's defence, with the traces of the moves to animate.
pub async fn moves(
    State(st): State<AppState>,
    Path(id): Path<String>,
    asked: Asked<MovesRequest>,
) -> ApiResult<Json<Value>> {
    let pz = find(&id)?;
    answer_moves(&st, asked, pz.id.to_string(), pz).await
}

/// What `moves` answers, for the collection's puzzles and the community's alike: the
/// judgement, and the solver's rating change when it ends the solver's first attempt.
pub(crate) async fn answer_moves(
    st: &AppState,
    asked: Asked<MovesRequest>,
    key: String,
    pz: &Puzzle,
) -> ApiResult<Json<Value>> {
    let (mut v, token) = judge(pz, asked.body)?;
    let solver = rating::solver_key(&asked.viewer, &asked.headers, token.as_deref())?;
    let won = match v["result"].as_str() {
        Some("solved") => Some(true),
        Some("wrong") => Some(false),
        _ => None,
    };
    v["rating"] = match won {
        Some(won) => rating::rate(st, solver, key, pz.grade, won).await?,
        None => Value::Null,
    };
    Ok(Json(v))
}

/// What `POST …/solution` answers: the solution, and a lost attempt for the solver when it
/// had not attempted the puzzle before (looking is giving up).
pub(crate) async fn give_up(
    st: &AppState,
    asked: Asked<rating::SolverRequest>,
    key: String,
    pz: &Puzzle,
) -> ApiResult<Json<Value>> {
    let solver = asked.solver()?;
    let change = rating::rate(st, solver, key, pz.grade, false).await?;
    Ok(Json(
        json!({ "solution": line(pz), "themes": theme_names(pz), "rating": change }),
    ))
}

/// Judges the attempt in a request body against `pz`; also gives the solver token it names.
fn judge(pz: &Puzzle, req: MovesRequest) -> ApiResult<(Value, Option<String>)> {
    if req.moves.len() > 400 {
        return Err(ApiError::malformed("too many moves"));
    }
    let moves = crate::api::parse_moves(&req.moves)?;
    let judgement = pz.judge(&moves);
    // The position before the player's newest move (the earlier moves are the puzzle's line).
    let mut before = pz.position;
    if let Some((_, earlier)) = moves.split_last() {
        if matches!(judgement, Judgement::Invalid(_)) {
            // Nothing to replay: the answer is the error below.
        } else {
            before = Line::new(pz.position, earlier).after(earlier.len());
        }
    }
    let (result, replies, extra) = match judgement {
        Judgement::Invalid(msg) => {
            return Err(ApiError::new(StatusCode::CONFLICT, ErrorCode::OffLine, msg));
        }
        Judgement::Illegal(msg) => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::IllegalMove,
                msg,
            ));
        }
        Judgement::Wrong { expected } => (
            "wrong",
            Vec::new(),
            json!({"expected": expected.to_string(), "solution": line(pz)}),
        ),
        Judgement::Right { replies } => ("right", replies, json!({})),
        Judgement::Solved { replies } => ("solved", replies, json!({"solution": line(pz)})),
    };
    // Traces of the player's move and of the opponent's replies, in order.
    let mut traces = Vec::new();
    let mut p = before;
    let last = *moves.last().expect("judged moves are not empty");
    for m in std::iter::once(last).chain(replies.iter().copied()) {
        let Ok(t) = p.trace(m) else { break };
        traces.push(JsonTrace::new(&p, &t));
        if p.play(m).is_err() {
            break;
        }
    }
    let mut v = board(&p);
    let o = v.as_object_mut().expect("an object");
    o.insert("result".into(), json!(result));
    o.insert(
        "replies".into(),
        json!(replies.iter().map(|m| m.to_string()).collect::<Vec<_>>()),
    );
    o.insert("traces".into(), json!(traces));
    for (k, val) in extra.as_object().expect("an object") {
        o.insert(k.clone(), val.clone());
    }
    Ok((v, req.solver))
}

/// `POST /api/puzzles/{id}/solution` with `{"solver"}`: the whole line, counted as a lost
/// attempt for the solver (the page's "Show the solution").
pub async fn give_up_solution(
    State(st): State<AppState>,
    Path(id): Path<String>,
    asked: Asked<rating::SolverRequest>,
) -> ApiResult<Json<Value>> {
    let pz = find(&id)?;
    give_up(&st, asked, pz.id.to_string(), pz).await
}

/// `GET /api/puzzles/{id}/solution`: the whole line, rating nothing (for tools).
pub async fn solution(Path(id): Path<String>) -> ApiResult<Json<Value>> {
    Ok(Json(json!({ "solution": line(find(&id)?) })))
}

pub(crate) fn line(pz: &Puzzle) -> Vec<String> {
    pz.line.iter().map(|m| m.to_string()).collect()
}

/// The routes of the puzzles, the daily one, and (merged) the community's and the rated ones (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/puzzles", get(list))
        .route("/puzzles/daily", get(daily))
        .route("/puzzles/{id}", get(self::get))
        .route("/puzzles/{id}/moves", post(moves))
        .route(
            "/puzzles/{id}/solution",
            get(solution).post(give_up_solution),
        )
        .merge(community::router())
        .merge(rating::router())
}
