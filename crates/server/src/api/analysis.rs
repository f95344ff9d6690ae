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
use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::api::client::ClientIp;
use crate::app::AppState;
use crate::engine_queue::QueueError;
use crate::error::{ApiError, ApiResult};
use crate::ws::{
    caps::{AskedUpgrade, Unopened},
    text as text_of, Bounds, Channel, SocketError,
};

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

/// What the analysis board may send: requests, stops and pings, each well under 4 KiB. A
/// person stepping through a game asks for a new position per step: 60 in 10 s is holding an
/// arrow key down.
const BOUNDS: Bounds = Bounds::per_10s(MAX_MESSAGE, 60);

/// `GET /api/analysis`.
pub async fn analysis(
    State(st): State<AppState>,
    client: ClientIp,
    ws: AskedUpgrade,
) -> Result<Response, Unopened> {
    let (ws, permit) = crate::ws::caps::open(st.sockets(), client.0, ws)?;
    let limits = st.sockets().limits();
    let (tx, rx) = mpsc::channel::<Reply>(64);
    let channel = Analyst {
        st,
        client: client.0,
        tx,
        rx,
        running: None,
    };
    Ok(BOUNDS.upgrade(ws).on_upgrade(move |socket| async move {
        crate::ws::serve(socket, channel, None, BOUNDS, limits, permit).await;
    }))
}

/// What the analysis board is sent.
#[derive(Serialize, Debug)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Reply {
    Pong,
    /// The search's lines at one depth, once every asked-for line has a score.
    Info {
        position: String,
        depth: u32,
        nodes: u64,
        time: u64,
        lines: Vec<Line>,
    },
    /// The search ended (its time ran out, or it was stopped).
    Done {
        position: String,
        best: Option<String>,
        score: i32,
        depth: u32,
    },
    Error(SocketError),
}

/// One of the engine's lines: its score (centiseeds, for the side to move) and its moves.
#[derive(Serialize, Debug)]
struct Line {
    score: i32,
    pv: Vec<String>,
}

fn error(e: ApiError) -> Reply {
    Reply::Error(e.into())
}

/// One analysis board: the engine's lines go out, requests come in. At most one analysis
/// runs for it; a new request, `stop` or the socket's end stops it.
struct Analyst {
    st: AppState,
    /// Who asks: at most [`crate::ws::caps::ANALYSES_PER_CLIENT`] of their analyses run at once.
    client: Option<std::net::IpAddr>,
    tx: mpsc::Sender<Reply>,
    rx: mpsc::Receiver<Reply>,
    /// The analysis running: its stop flag and its task.
    running: Option<(Arc<AtomicBool>, tokio::task::JoinHandle<()>)>,
}

impl Analyst {
    fn stop(&mut self) {
        if let Some((s, _)) = &self.running {
            s.store(true, Ordering::Relaxed);
        }
    }

    /// Stops the analysis running and forgets it: one still waiting for a worker leaves the
    /// queue at once, and its place among the client's analyses is free again.
    fn replace(&mut self) {
        if let Some((s, task)) = self.running.take() {
            s.store(true, Ordering::Relaxed);
            task.abort();
        }
    }
}

impl Drop for Analyst {
    fn drop(&mut self) {
        self.replace();
    }
}

impl Channel for Analyst {
    async fn next(&mut self) -> Option<String> {
        // Never `None`: this channel holds a sender itself.
        self.rx.recv().await.map(|r| text_of(&r))
    }

    async fn answer(&mut self, text: String) -> Option<String> {
        let reply = match serde_json::from_str::<Request>(&text) {
            Ok(Request::Ping) => Reply::Pong,
            Ok(Request::Stop) => {
                self.stop();
                return None;
            }
            Ok(Request::Analyse {
                position,
                rules,
                seed,
                multipv,
                movetime,
            }) => {
                self.replace();
                let asked = Asked {
                    position: &position,
                    rules: &rules,
                    seed,
                    multipv,
                    movetime,
                };
                match start(&self.st, self.client, asked, self.tx.clone()) {
                    Ok(running) => {
                        self.running = Some(running);
                        return None;
                    }
                    Err(e) => error(e),
                }
            }
            Err(e) => error(ApiError::malformed(format!("not an analysis request: {e}"))),
        };
        Some(text_of(&reply))
    }
}

/// What an analysis request asks for.
struct Asked<'a> {
    position: &'a str,
    rules: &'a str,
    seed: u64,
    multipv: usize,
    movetime: Option<u64>,
}

/// Starts an analysis for `client`; its messages go to `tx`. The flag that stops it (the
/// engine queue sets it too, when a computer's move needs the worker).
fn start(
    st: &AppState,
    client: Option<std::net::IpAddr>,
    asked: Asked<'_>,
    tx: mpsc::Sender<Reply>,
) -> ApiResult<(Arc<AtomicBool>, tokio::task::JoinHandle<()>)> {
    let Asked {
        position,
        rules,
        seed,
        multipv,
        movetime,
    } = asked;
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
    // Held until the analysis has ended, not merely been asked to stop.
    let permit = st.analyses().admit(client)?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let yields = stop.clone();
    let position = position.to_string();
    let engine = st.engine().clone();
    let task = tokio::spawn(async move {
        let expected = multipv.min(pos.moves().count());
        let asked = position.clone();
        let job_tx = tx.clone();
        let job = move || {
            let mut engine = Engine::new(16, 1);
            engine.set_tablebase(anywoli_engine::endgame::shared());
            engine.set_multipv(multipv);
            let limits = Limits {
                movetime: Some(Duration::from_millis(movetime)),
                ..Limits::default()
            };
            let mut lines: Vec<Line> = Vec::new();
            let mut on_info = |i: &Info| {
                let pv: Vec<String> = i.pv.iter().map(|m| m.to_string()).collect();
                lines.push(Line { score: i.score, pv });
                if i.multipv == expected {
                    let _ = job_tx.blocking_send(Reply::Info {
                        position: asked.clone(),
                        depth: i.depth,
                        nodes: i.nodes,
                        time: i.time.as_millis() as u64,
                        lines: std::mem::take(&mut lines),
                    });
                }
            };
            engine.search(&pos, &limits, &flag, &mut on_info)
        };
        let ran = engine.run_yielding(yields, job).await;
        drop(permit);
        let done = match ran {
            Ok(r) => Reply::Done {
                position,
                best: r.best.map(|m| m.to_string()),
                score: r.score,
                depth: r.depth,
            },
            Err(QueueError::Full { retry_after }) => error(ApiError::busy(
                "the engine is busy; try again",
                retry_after.as_secs(),
            )),
            Err(e) => error(ApiError::busy(e.to_string(), 5)),
        };
        let _ = tx.send(done).await;
    });
    Ok((stop, task))
}
