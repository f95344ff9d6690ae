//! Positions (issue 13), for the board editor and the analysis board (docs/api.md,
//! "Positions"): `POST /api/position` says whether a position string is valid — and if not,
//! exactly what is wrong, as a kind with its numbers that the page puts in its own words — and
//! gives every legal move with the position after it and its trace, so that the page plays
//! moves without knowing the rules. `POST /api/position/proof` asks the exact solver for the
//! proven result, on the engine queue like a hint and within [`PROOF_NODES`].

use anywoli_core::{
    Counted, Field, Outcome, Position, PositionError, PositionErrorKind, Rules, Side,
};
use anywoli_engine::endgame::{Probe, Solution, Solver, Unproven, Verdict};
use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::api::client::ClientIp;
use crate::api::JsonBody;
use crate::app::AppState;
use crate::engine_queue::{Priority, QueueError};
use crate::error::{ApiError, ApiResult};
use crate::trace_json::{side_name, JsonTrace};

/// Largest request body of both endpoints: a position string is at most 256 bytes.
pub const POSITION_BODY_LIMIT: usize = 4 * 1024;
/// The solver gives up after this many nodes for one proof: at most about 0.5 s of one core
/// and 60 MB on the 2-core reference machine (docs/decisions.md, "Positions").
pub const PROOF_NODES: u64 = 1_000_000;
/// Above this many seeds in play the solver is not even started: within [`PROOF_NODES`] it
/// proved none of the positions measured (docs/decisions.md, "Positions").
pub const PROOF_MAX_SEEDS: u8 = 16;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionRequest {
    position: String,
    rules: Option<String>,
    /// The game seed of `anywoli-lottery` (who gets the last 4); 0 when not given.
    seed: Option<u64>,
}

fn rules_of(req: &PositionRequest) -> ApiResult<Rules> {
    Rules::from_name(
        req.rules.as_deref().unwrap_or("anywoli"),
        req.seed.unwrap_or(0),
    )
    .map_err(|e| ApiError::malformed(format!("rules: {e}")))
}

/// A stable name for the field at fault: [`Field::name`], except for the rows, whose names
/// are words for people.
pub fn field_id(f: Field) -> &'static str {
    match f {
        Field::SouthRow => "south-row",
        Field::NorthRow => "north-row",
        other => other.name(),
    }
}

fn side_or_null(s: Option<Side>) -> Value {
    s.map_or(Value::Null, |s| json!(side_name(s)))
}

/// The refusal as the page needs it: the field, the kind, the English message and the
/// numbers of the kind (`found` the offending number, `expected` the required one, `max` a
/// limit, `text` the offending text cut to 24 characters, `hole` the hole's letter).
pub fn error_json(e: &PositionError) -> Value {
    use PositionErrorKind as K;
    let mut v = json!({
        "field": field_id(e.field),
        "kind": e.kind.code(),
        "message": e.message,
    });
    let more = match &e.kind {
        K::TooLong { len } => {
            json!({"found": len, "max": anywoli_core::notation::MAX_LEN})
        }
        K::FieldCount { found } => json!({"found": found, "expected": 8}),
        K::NoSlash { board } => json!({"text": board}),
        K::RowLength { found, row } => json!({"found": found, "expected": 12, "text": row}),
        K::CountNotANumber { what, text } => match what {
            Counted::Hole(h) => json!({"text": text, "hole": h.to_string()}),
            Counted::Store => json!({"text": text}),
        },
        K::CountTooLarge { what, text, found } => {
            let mut m = json!({"text": text, "found": found, "max": 96});
            if let Counted::Hole(h) = what {
                m["hole"] = json!(h.to_string());
            }
            m
        }
        K::BadToMove { text }
        | K::BadSide { text }
        | K::NotANumber { text }
        | K::NumberTooLarge { text } => json!({"text": text}),
        K::QuietAboveLimit { quiet } => {
            json!({"found": quiet, "max": anywoli_core::QUIET_LIMIT})
        }
        K::SeedTotal {
            total,
            in_play,
            south,
            north,
        } => json!({"found": total, "expected": 96, "in_play": in_play, "stores": [south, north]}),
        K::QuietAbovePly { quiet, ply } => json!({"found": quiet, "ply": ply}),
        K::OverWithSeeds { in_play } | K::InPlayNotMultipleOf4 { in_play } => {
            json!({"in_play": in_play})
        }
        K::TooFewInPlay {
            in_play,
            threshold,
            rules,
        } => json!({"in_play": in_play, "threshold": threshold, "rules": rules.name()}),
        K::QuietAtLimit { quiet } => {
            json!({"found": quiet, "max": anywoli_core::QUIET_LIMIT - 1})
        }
        K::NoSeedsToMove { side } => json!({"side": side_name(*side)}),
    };
    if let (Value::Object(v), Value::Object(more)) = (&mut v, more) {
        v.extend(more);
    }
    v
}

fn winner_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Win(s) => side_name(s),
        Outcome::Draw => "draw",
    }
}

/// A valid position as the page draws it, with every legal move.
pub fn position_json(pos: &Position) -> Value {
    let moves: Vec<Value> = pos
        .moves()
        .into_iter()
        .filter_map(|mv| {
            let t = pos.trace(mv).ok()?;
            Some(json!({
                "move": mv.to_string(),
                "position": t.after.to_string(),
                "trace": JsonTrace::new(pos, &t),
            }))
        })
        .collect();
    let rules = pos.rules();
    let mut v = json!({
        "valid": true,
        "position": pos.to_string(),
        "rules": rules.name(),
        "holes": pos.holes().to_vec(),
        "stores": [pos.store(Side::South), pos.store(Side::North)],
        "to_move": side_or_null(pos.to_move()),
        "over": pos.is_over(),
        "winner": pos.outcome().map(winner_name),
        "in_play": pos.seeds_in_play(),
        "quiet": pos.quiet_plies(),
        "ply": pos.ply(),
        "last_capturer": side_or_null(pos.last_capturer()),
        "first_final_capturer": side_or_null(pos.first_final_capturer()),
        "moves": moves,
    });
    if let Some(seed) = rules.seed() {
        v["seed"] = json!(seed);
    }
    v
}

/// `POST /api/position`: `200` whether the position is valid or not.
pub async fn check(JsonBody(req): JsonBody<PositionRequest>) -> ApiResult<Json<Value>> {
    let rules = rules_of(&req)?;
    Ok(Json(
        match anywoli_core::parse_position(&req.position, rules) {
            Ok(pos) => position_json(&pos),
            Err(e) => json!({"valid": false, "error": error_json(&e)}),
        },
    ))
}

fn outcome_name(margin: i32) -> &'static str {
    match margin.cmp(&0) {
        std::cmp::Ordering::Greater => "win",
        std::cmp::Ordering::Equal => "draw",
        std::cmp::Ordering::Less => "loss",
    }
}

/// The winner when `side` ends `margin` seeds ahead.
fn winner_of(side: Side, margin: i32) -> &'static str {
    match margin.cmp(&0) {
        std::cmp::Ordering::Greater => side_name(side),
        std::cmp::Ordering::Equal => "draw",
        std::cmp::Ordering::Less => side_name(side.opponent()),
    }
}

/// The final stores, South's and North's, when `side` ends `margin` seeds ahead.
fn final_stores(side: Side, margin: i32) -> [i32; 2] {
    let total = anywoli_core::TOTAL_SEEDS as i32;
    let mine = (total + margin) / 2;
    match side {
        Side::South => [mine, total - mine],
        Side::North => [total - mine, mine],
    }
}

/// The answer for a proven position.
fn proven_json(pos: &Position, me: Side, s: &Solution, probe: Option<Probe>) -> Value {
    let stores = pos.store(me) as i32 - pos.store(me.opponent()) as i32;
    let mut moves: Vec<Value> = s
        .moves
        .iter()
        .map(|&(mv, value)| {
            json!({
                "move": mv.to_string(),
                "value": value,
                "margin": stores + value,
                "outcome": outcome_name(stores + value),
            })
        })
        .collect();
    moves.extend(s.unproven_moves.iter().map(|&(mv, lower, upper)| {
        json!({
            "move": mv.to_string(),
            "value": null,
            "margin": null,
            "outcome": null,
            "lower": lower,
            "upper": upper,
        })
    }));
    // The database's distance to the capture that decides the game, when it knows it in time.
    let capture = probe.filter(|p| p.in_time && p.verdict != Verdict::Unforced);
    json!({
        "proven": true,
        "side": side_name(me),
        "value": s.value,
        "margin": s.margin,
        "outcome": outcome_name(s.margin),
        "winner": winner_of(me, s.margin),
        "final": final_stores(me, s.margin),
        "capture_in": capture.map(|p| p.dtc),
        "capture_by": capture.map(|p| side_name(if p.verdict == Verdict::Win { me } else { me.opponent() })),
        "plies": s.line.len(),
        "line": s.line.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        "moves": moves,
        "nodes": s.nodes,
    })
}

/// `POST /api/position/proof`: the proven result, or why there is none.
pub async fn proof(
    State(st): State<AppState>,
    client: ClientIp,
    JsonBody(req): JsonBody<PositionRequest>,
) -> ApiResult<Json<Value>> {
    let rules = rules_of(&req)?;
    let pos = anywoli_core::parse_position(&req.position, rules)
        .map_err(|e| ApiError::malformed(e.to_string()))?;
    let Some(me) = pos.to_move() else {
        // Over: the stores are the result.
        let margin = pos.store(Side::South) as i32 - pos.store(Side::North) as i32;
        return Ok(Json(json!({
            "proven": true,
            "side": "south",
            "value": 0,
            "margin": margin,
            "outcome": outcome_name(margin),
            "winner": pos.outcome().map(winner_name),
            "final": [pos.store(Side::South), pos.store(Side::North)],
            "capture_in": null,
            "capture_by": null,
            "plies": 0,
            "line": [],
            "moves": [],
            "nodes": 0,
        })));
    };
    if pos.seeds_in_play() > PROOF_MAX_SEEDS {
        return Ok(Json(json!({
            "proven": false,
            "reason": "too_many_seeds",
            "nodes": 0,
            "in_play": pos.seeds_in_play(),
            "max": PROOF_MAX_SEEDS,
        })));
    }
    client.check(&st.limiters().hints, "proofs")?;
    let job = move || {
        let tb = anywoli_engine::endgame::shared();
        let tb = tb.as_deref();
        let probe = tb.and_then(|t| t.probe(&pos));
        (Solver::new(tb, PROOF_NODES).solve(&pos), probe)
    };
    let (result, probe) = match st.engine().run(Priority::Hint, job).await {
        Ok(r) => r,
        Err(QueueError::Full { retry_after }) => {
            return Err(ApiError::busy(
                "the engine is busy with other hints and proofs; try again",
                retry_after.as_secs(),
            ))
        }
        Err(e) => return Err(ApiError::busy(e.to_string(), 5)),
    };
    Ok(Json(match result {
        Ok(s) => proven_json(&pos, me, &s, probe),
        Err(Unproven {
            nodes,
            lower,
            upper,
        }) => json!({
            "proven": false,
            "reason": "node_limit",
            "nodes": nodes,
            "side": side_name(me),
            "lower": lower,
            "upper": upper,
        }),
    }))
}

/// The routes of positions checked and proved (under /api).
pub fn router() -> axum::Router<AppState> {
    use axum::extract::DefaultBodyLimit;
    use axum::routing::post;
    axum::Router::new()
        .route(
            "/position",
            post(check).layer(DefaultBodyLimit::max(POSITION_BODY_LIMIT)),
        )
        .route(
            "/position/proof",
            post(proof).layer(DefaultBodyLimit::max(POSITION_BODY_LIMIT)),
        )
}
