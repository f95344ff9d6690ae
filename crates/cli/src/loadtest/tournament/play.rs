//! A bot's game: it takes its seat, follows the game's events, and when it is its turn plays a
//! random legal move, or resigns once the game has lasted `--plies`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

use super::socket::{self, Ws, PING_EVERY};
use super::{until_true, wall_ms, Player, Shared};
use crate::loadtest::ctx::RELAXED;
use crate::loadtest::failover::{CallError, Req, Resend};

/// With no message for this long, the bot reads the game (a socket may be stuck).
const QUIET: Duration = Duration::from_secs(5);
/// A game whose requests failed this many times is left.
const MAX_FAILURES: u32 = 20;

/// A game a bot saw end: which, and when.
pub(super) struct Ended {
    pub(super) game: String,
    pub(super) at: Instant,
    pub(super) wall_ms: i64,
}

struct Game {
    sh: Arc<Shared>,
    p: Arc<Player>,
    id: String,
    secret: String,
    /// `south` or `north`.
    side: String,
    /// The game as last seen (the highest version).
    latest: Value,
    /// The ply the bot last acted at (a move or its resignation sent).
    acted: Option<u64>,
    failures: u32,
    /// The last state seen while the game was played: its ply and the side to move.
    playing: Option<(u64, String)>,
}

/// Plays game `id` as `p` to its end (or the stop); says when it ended on `ended`.
pub(super) async fn play(
    sh: Arc<Shared>,
    p: Arc<Player>,
    id: String,
    ended: mpsc::UnboundedSender<Ended>,
) {
    let path = format!("/api/games/{id}/seat");
    let Ok(seat) = p
        .call(&sh.ctx, Req::post("seat", &path, json!({}), Resend::Always))
        .await
    else {
        return;
    };
    let (Some(secret), Some(side)) = (seat["secret"].as_str(), seat["side"].as_str()) else {
        sh.ctx.error(format!("seat: no secret or side in {}", seat));
        return;
    };
    let mut g = Game {
        secret: secret.to_string(),
        side: side.to_string(),
        sh,
        p,
        id,
        latest: Value::Null,
        acted: None,
        failures: 0,
        playing: None,
    };
    if g.run().await {
        let _ = ended.send(Ended {
            game: g.id.clone(),
            at: Instant::now(),
            wall_ms: wall_ms(),
        });
    }
}

impl Game {
    /// Plays until the game is over (`true`), or it is left or stopped (`false`).
    async fn run(&mut self) -> bool {
        let Some(mut ws) = self.connect().await else {
            return false;
        };
        let mut stop = self.sh.ctx.stop.clone();
        let mut ping = tokio::time::interval_at((Instant::now() + PING_EVERY).into(), PING_EVERY);
        let over = loop {
            if self.latest["status"]
                .as_str()
                .is_some_and(|s| s != "playing")
            {
                self.note_abort();
                break true;
            }
            if self.failures > MAX_FAILURES {
                self.sh
                    .ctx
                    .error("game: left after 20 failed requests".to_string());
                break false;
            }
            let ply = self.latest["ply"].as_u64().unwrap_or(0);
            if self.latest["to_move"] == self.side.as_str() && self.acted != Some(ply) {
                self.acted = Some(ply);
                self.act(ply).await;
                continue;
            }
            tokio::select! {
                msg = ws.next() => match msg {
                    Some(Ok(Message::Text(text))) => {
                        let v: Value = serde_json::from_str(&text).unwrap_or_default();
                        self.newer(&v["game"]);
                    }
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => {
                        let kind = socket::dropped(msg);
                        self.sh.ws_reconnects.fetch_add(1, RELAXED);
                        self.p.switch(&self.sh.ctx, &format!("game {kind}"));
                        match self.connect().await {
                            Some(again) => ws = again,
                            None => break false,
                        }
                    }
                    Some(Ok(_)) => {}
                },
                _ = ping.tick() => {
                    let _ = socket::send(&mut ws, json!({"type": "ping"}).to_string()).await;
                }
                _ = tokio::time::sleep(QUIET) => self.read_back().await,
                _ = until_true(&mut stop) => break false,
            }
        };
        socket::close(ws).await;
        over
    }

    /// Connects to the game's events (on the player's server), takes the state they start
    /// with and says hello with the seat's secret, as the page does.
    async fn connect(&mut self) -> Option<Ws> {
        let path = format!("/api/games/{}/events", self.id);
        let mut tries = 0;
        loop {
            let mut ws = match socket::connect(&self.sh, &self.p, &path, "game ws").await {
                Ok(ws) => ws,
                Err(kind) => {
                    self.sh.ctx.error(format!("game {kind}"));
                    return None;
                }
            };
            match tokio::time::timeout(self.sh.ctx.timeout, ws.next()).await {
                Ok(Some(Ok(Message::Text(text)))) => {
                    let v: Value = serde_json::from_str(&text).unwrap_or_default();
                    if v["type"] == "state" {
                        self.newer(&v["game"]);
                        let hello = json!({"type": "hello", "secret": self.secret});
                        let _ = socket::send(&mut ws, hello.to_string()).await;
                        return Some(ws);
                    }
                    self.sh
                        .ctx
                        .error(format!("game ws: the first message is {:?}", v["type"]));
                }
                Ok(msg) => {
                    let kind = socket::dropped(msg);
                    self.sh.ctx.error(format!("game {kind} before the state"));
                }
                Err(_) => self
                    .sh
                    .ctx
                    .error("game ws: no state within the timeout".to_string()),
            }
            tries += 1;
            if tries >= 3 {
                return None;
            }
            self.p.switch(&self.sh.ctx, "game ws: no state");
            tokio::time::sleep(super::setup::backoff(tries)).await;
        }
    }

    /// Keeps `g` if it is newer than the game as last seen.
    fn newer(&mut self, g: &Value) {
        if !g.is_object() {
            return;
        }
        let key = |x: &Value| {
            (
                x["version"].as_i64().unwrap_or(i64::MIN),
                x["ply"].as_u64().unwrap_or(0),
            )
        };
        if self.latest.is_null() || key(g) > key(&self.latest) {
            self.latest = g.clone();
            if g["status"] == "playing" {
                let to_move = g["to_move"].as_str().unwrap_or("-").to_string();
                self.playing = Some((g["ply"].as_u64().unwrap_or(0), to_move));
            }
        }
    }

    /// A game aborted (a player never moved): what this bot saw of it last, for the report.
    fn note_abort(&self) {
        if self.latest["status"] != "aborted" {
            return;
        }
        let (ply, to_move) = self.playing.clone().unwrap_or((0, "-".to_string()));
        let server = &self.sh.ctx.targets[self.p.target.load(RELAXED)].url;
        self.sh.seen.lock().unwrap().aborted.push(format!(
            "game {} aborted: {} ({}, on {server}) last saw ply {ply} with {to_move} to move",
            self.id, self.p.name, self.side
        ));
    }

    /// Reads the game over HTTP (after a failed request, or a quiet socket).
    async fn read_back(&mut self) {
        let path = format!("/api/games/{}", self.id);
        if let Ok(v) = self
            .p
            .call(&self.sh.ctx, Req::get("read back", &path))
            .await
        {
            self.newer(&v);
        }
    }

    /// The bot's turn at `ply`: a random legal move, or its resignation once the game has
    /// lasted `--plies`.
    async fn act(&mut self, ply: u64) {
        let resign = ply >= self.sh.plies;
        let (what, path, body) = if resign {
            (
                "resign",
                format!("/api/games/{}/resign", self.id),
                json!({"secret": self.secret}),
            )
        } else {
            let legal: Vec<&str> = self.latest["legal"]
                .as_array()
                .map(|l| l.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if legal.is_empty() {
                self.sh
                    .ctx
                    .error("game: the bot's turn without a legal move".to_string());
                self.failures += 1;
                return;
            }
            let mv = legal[rand::random_range(0..legal.len())];
            (
                "move",
                format!("/api/games/{}/moves", self.id),
                json!({"move": mv, "secret": self.secret, "ply": ply}),
            )
        };
        let mut t = self.p.target.load(RELAXED);
        let r = self
            .sh
            .ctx
            .request(
                &mut t,
                Req::post(what, &path, body, Resend::IfNotCarriedOut).by(&self.p.auth),
                |_| {},
            )
            .await;
        self.p.target.store(t, RELAXED);
        match r {
            Ok((v, _)) => {
                let counter = if resign {
                    &self.sh.resigns
                } else {
                    &self.sh.moves
                };
                counter.fetch_add(1, RELAXED);
                self.newer(&v["game"]);
            }
            // Not at that ply any longer: the events bring the game as it is.
            Err(e) if e.is_stale() && !e.is_stale_after_failover() => {}
            Err(CallError::Unsure { .. }) => {
                self.sh.unknown_outcomes.fetch_add(1, RELAXED);
                self.read_back().await;
                self.acted = None;
            }
            Err(e) if e.is_stale_after_failover() => {
                self.read_back().await;
                self.acted = None;
            }
            Err(e) => {
                let wait = self.sh.ctx.fail(t, what, &e);
                self.failures += 1;
                tokio::time::sleep(wait.min(Duration::from_millis(500))).await;
                self.read_back().await;
                self.acted = None;
            }
        }
    }
}
