//! The analysis board's engine (issue 13): `GET /api/analysis` upgrades to a WebSocket on
//! which the page asks about a position and hears the engine's lines as each depth completes
//! (docs/api.md, "Analysis"). One analysis at a time per connection; a new request, `stop` or
//! closing ends the one running. Each runs on the engine queue like a hint, for at most
//! [`MAX_MOVETIME_MS`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anywoli_core::{parse_position, Rules};
use anywoli_engine::{Engine, Info, Limits, MAX_MULTIPV};
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::api::AppState;
use crate::engine_queue::{Priority, QueueError};
use crate::error::{ApiError, ApiResult};

/// The longest one analysis searches, and how long when the request says nothing.
pub const MAX_MOVETIME_MS: u64 = 30_000;
pub const DEFAULT_MOVETIME_MS: u64 = 5_000;
const MAX_MESSAGE: usize = 4096;

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum Request {
    Analyse {
        position: String,
        #[serde(default = "anywoli")]
        rules: String,
        #[serde(default)]
        seed: u64,
        #[serde(default = "one")]
        multipv: usize,
        movetime: Option<u64>,
    },
    Stop,
    Ping,
}

fn anywoli() -> String {
    "anywoli".to_string()
}

fn one() -> usize {
    1
}

/// `GET /api/analysis`.
pub async fn analysis(
    State(st): State<AppState>,
    ws: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> ApiResult<Response> {
    let ws = ws.map_err(|e| {
        ApiError::malformed(format!("this endpoint takes a WebSocket connection: {e}"))
    })?;
    Ok(ws
        .max_message_size(MAX_MESSAGE)
        .max_frame_size(MAX_MESSAGE)
        .read_buffer_size(MAX_MESSAGE)
        .write_buffer_size(16 * 1024)
        .max_write_buffer_size(1024 * 1024)
        .on_upgrade(move |socket| run(socket, st)))
}

fn error(e: &ApiError) -> Value {
    json!({"type": "error", "error": e.code, "message": e.message})
}

async fn run(mut socket: WebSocket, st: AppState) {
    let (tx, mut rx) = mpsc::channel::<Value>(64);
    let mut running: Option<Arc<AtomicBool>> = None;
    loop {
        let out = tokio::select! {
            m = rx.recv() => match m {
                Some(v) => v,
                None => continue,
            },
            msg = socket.recv() => match msg {
                Some(Ok(Message::Text(t))) => {
                    match serde_json::from_str::<Request>(&t) {
                        Ok(Request::Ping) => json!({"type": "pong"}),
                        Ok(Request::Stop) => {
                            if let Some(s) = running.take() {
                                s.store(true, Ordering::Relaxed);
                            }
                            continue;
                        }
                        Ok(Request::Analyse { position, rules, seed, multipv, movetime }) => {
                            if let Some(s) = running.take() {
                                s.store(true, Ordering::Relaxed);
                            }
                            match start(&st, &position, &rules, seed, multipv, movetime, tx.clone()) {
                                Ok(stop) => {
                                    running = Some(stop);
                                    continue;
                                }
                                Err(e) => error(&e),
                            }
                        }
                        Err(e) => error(&ApiError::malformed(format!("not an analysis request: {e}"))),
                    }
                }
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => break,
            },
        };
        if socket
            .send(Message::Text(out.to_string().into()))
            .await
            .is_err()
        {
            break;
        }
    }
    if let Some(s) = running {
        s.store(true, Ordering::Relaxed);
    }
}

/// Starts an analysis; its messages go to `tx`. The flag that stops it.
fn start(
    st: &AppState,
    position: &str,
    rules: &str,
    seed: u64,
    multipv: usize,
    movetime: Option<u64>,
    tx: mpsc::Sender<Value>,
) -> ApiResult<Arc<AtomicBool>> {
    let rules = Rules::from_name(rules, seed).map_err(|e| ApiError::malformed(e.to_string()))?;
    let pos = parse_position(position, rules).map_err(|e| ApiError::malformed(e.to_string()))?;
    if !(1..=MAX_MULTIPV).contains(&multipv) {
        return Err(ApiError::malformed(format!(
            "multipv must be from 1 to {MAX_MULTIPV}"
        )));
    }
    let movetime = movetime.unwrap_or(DEFAULT_MOVETIME_MS);
    if !(1..=MAX_MOVETIME_MS).contains(&movetime) {
        return Err(ApiError::malformed(format!(
            "movetime must be from 1 to {MAX_MOVETIME_MS} ms"
        )));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let position = position.to_string();
    let rounds = st.rounds().clone();
    tokio::spawn(async move {
        let expected = multipv.min(pos.moves().count());
        let asked = position.clone();
        let job_tx = tx.clone();
        let job = move || {
            let mut engine = Engine::new(16, 1);
            engine.set_tablebase(anywoli_engine::tablebase::from_env());
            engine.set_multipv(multipv);
            let limits = Limits {
                movetime: Some(Duration::from_millis(movetime)),
                ..Limits::default()
            };
            let mut lines: Vec<Value> = Vec::new();
            let mut on_info = |i: &Info| {
                let pv: Vec<String> = i.pv.iter().map(|m| m.to_string()).collect();
                lines.push(json!({"score": i.score, "pv": pv}));
                if i.multipv == expected {
                    let _ = job_tx.blocking_send(json!({
                        "type": "info", "position": asked, "depth": i.depth, "nodes": i.nodes,
                        "time": i.time.as_millis() as u64, "lines": std::mem::take(&mut lines),
                    }));
                }
            };
            engine.search(&pos, &limits, &flag, &mut on_info)
        };
        let done = match rounds.ctx.engine.run(Priority::Hint, job).await {
            Ok(r) => json!({
                "type": "done",
                "position": position,
                "best": r.best.map(|m| m.to_string()),
                "score": r.score,
                "depth": r.depth,
            }),
            Err(QueueError::Full { retry_after }) => error(&ApiError::busy(
                "the engine is busy; try again",
                retry_after.as_secs(),
            )),
            Err(e) => error(&ApiError::busy(e.to_string(), 5)),
        };
        let _ = tx.send(done).await;
    });
    Ok(stop)
}
