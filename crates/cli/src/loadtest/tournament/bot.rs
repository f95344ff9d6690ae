//! A player as a bot: it keeps the tournament's change signal open, reads the tournament's
//! page on each change, and plays each new game it is sent to (`me.playing`). It times how
//! long it waits from seeing a game end to seeing its next game.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

use super::play::{play, Ended};
use super::setup::backoff;
use super::socket::{self, PING_EVERY};
use super::{until_true, wall_us, Player, Shared};
use crate::loadtest::args::TournamentSystem;
use crate::loadtest::ctx::RELAXED;
use crate::loadtest::failover::Req;

/// An arena's player left waiting this long before its pairing stops should have been paired
/// (`arena::MAX_WAIT_MS`).
const ARENA_MAX_WAIT_MS: i64 = 5_000;

/// A wait for the next game: since when, and the round of the game that ended.
struct Wait {
    since: Instant,
    wall_ms: i64,
    round: i64,
}

/// The bot's game in hand and its wait.
struct Bot {
    sh: Arc<Shared>,
    p: Arc<Player>,
    /// Games it was sent to.
    games: HashSet<String>,
    /// The last of those, and the tournament's round when it came.
    current: Option<(String, i64)>,
    wait: Option<Wait>,
    ended_tx: mpsc::UnboundedSender<Ended>,
    ended_rx: mpsc::UnboundedReceiver<Ended>,
    playing: tokio::task::JoinSet<()>,
    /// The tournament is finished or cancelled.
    over: bool,
}

/// Plays as `p` until the tournament is over (and its games have ended) or the stop. `ready`
/// is sent once the bot watches the tournament.
pub(super) async fn bot(sh: Arc<Shared>, p: Arc<Player>, ready: oneshot::Sender<()>) {
    let (ended_tx, ended_rx) = mpsc::unbounded_channel();
    let mut b = Bot {
        sh,
        p,
        games: HashSet::new(),
        current: None,
        wait: None,
        ended_tx,
        ended_rx,
        playing: tokio::task::JoinSet::new(),
        over: false,
    };
    b.watch(ready).await;
    // The games still in play end with the tournament (or at the stop).
    let mut stop = b.sh.ctx.stop.clone();
    loop {
        tokio::select! {
            r = b.playing.join_next() => if r.is_none() { break },
            _ = until_true(&mut stop) => {
                b.playing.abort_all();
                break;
            }
        }
    }
    while let Ok(e) = b.ended_rx.try_recv() {
        b.ended(e);
    }
    b.unanswered();
}

impl Bot {
    /// Watches the tournament's signal until it is over.
    async fn watch(&mut self, ready: oneshot::Sender<()>) {
        let path = format!("/api/tournaments/{}/events", self.sh.id);
        let mut ready = Some(ready);
        let mut over = self.sh.over.clone();
        let mut stop = self.sh.ctx.stop.clone();
        let mut tries = 0;
        while !self.over && !*over.borrow() && !self.sh.ctx.stopped() {
            let mut ws = match socket::connect(&self.sh, &self.p, &path, "tournament ws").await {
                Ok(ws) => ws,
                Err(kind) => {
                    self.sh.ctx.error(format!("tournament {kind}"));
                    tokio::time::sleep(backoff(tries)).await;
                    tries += 1;
                    continue;
                }
            };
            tries = 0;
            if let Some(r) = ready.take() {
                let _ = r.send(());
            }
            let mut ping =
                tokio::time::interval_at((Instant::now() + PING_EVERY).into(), PING_EVERY);
            loop {
                tokio::select! {
                    biased;
                    Some(e) = self.ended_rx.recv() => self.ended(e),
                    msg = ws.next() => match msg {
                        Some(Ok(Message::Text(text))) => {
                            self.changed(&text).await;
                            if self.over {
                                break;
                            }
                        }
                        Some(Ok(Message::Close(_))) | Some(Err(_)) | None => {
                            let kind = socket::dropped(msg);
                            self.sh.ws_reconnects.fetch_add(1, RELAXED);
                            self.p.switch(&self.sh.ctx, &format!("tournament {kind}"));
                            break;
                        }
                        Some(Ok(_)) => {}
                    },
                    _ = ping.tick() => {
                        let _ = socket::send(&mut ws, json!({"type": "ping"}).to_string()).await;
                    }
                    _ = until_true(&mut over) => break,
                    _ = until_true(&mut stop) => break,
                }
            }
            socket::close(ws).await;
        }
    }

    /// A message of the tournament's signal: a `changed` is timed, then the page read.
    async fn changed(&mut self, text: &str) {
        let arrived = wall_us();
        let v: Value = serde_json::from_str(text).unwrap_or_default();
        if v["type"] != "changed" {
            return;
        }
        if let Some(version) = v["version"].as_i64() {
            let mut seen = self.sh.seen.lock().unwrap();
            seen.changed_messages += 1;
            if let Some(at) = v["at"].as_i64() {
                seen.lags_ms.push(arrived as f64 / 1e3 - at as f64);
            }
            let e = seen
                .arrivals
                .entry(version)
                .or_insert((arrived, arrived, 0));
            e.0 = e.0.min(arrived);
            e.1 = e.1.max(arrived);
            e.2 += 1;
        }
        self.read_page().await;
    }

    /// Reads the tournament's page as this player: a new `me.playing` is a game to play.
    async fn read_page(&mut self) {
        let path = format!("/api/tournaments/{}", self.sh.id);
        let Ok(v) = self
            .p
            .call(&self.sh.ctx, Req::get("tournament page", &path))
            .await
        else {
            return;
        };
        // A game that ended before this read started the wait this read may end.
        while let Ok(e) = self.ended_rx.try_recv() {
            self.ended(e);
        }
        let t = &v["tournament"];
        if matches!(t["status"].as_str(), Some("finished" | "cancelled")) {
            self.over = true;
        }
        let Some(game) = v["me"]["playing"].as_str() else {
            return;
        };
        if !self.games.insert(game.to_string()) {
            return;
        }
        let round = t["round"].as_i64().unwrap_or(0);
        if let Some(w) = self.wait.take() {
            if w.wall_ms < self.sh.pairing_until {
                let ms = w.since.elapsed().as_secs_f64() * 1e3;
                self.sh.seen.lock().unwrap().waits_ms.push(ms);
            }
        }
        self.current = Some((game.to_string(), round));
        self.sh
            .seen
            .lock()
            .unwrap()
            .sent
            .entry(game.to_string())
            .or_default()
            .push(self.p.name.clone());
        self.playing.spawn(play(
            self.sh.clone(),
            self.p.clone(),
            game.to_string(),
            self.ended_tx.clone(),
        ));
    }

    /// A game of this bot ended: if it is the last one it was sent to, the wait begins.
    fn ended(&mut self, e: Ended) {
        if let Some((game, round)) = &self.current {
            if *game == e.game {
                self.wait = Some(Wait {
                    since: e.at,
                    wall_ms: e.wall_ms,
                    round: *round,
                });
            }
        }
    }

    /// A wait still open at the end that should have ended in a game: in an arena, one that
    /// began 5 s or more before its pairing stopped; in a Swiss, one after a round before the
    /// last.
    fn unanswered(&mut self) {
        let Some(w) = self.wait.take() else { return };
        let missed = match self.sh.system {
            TournamentSystem::Arena => w.wall_ms < self.sh.pairing_until - ARENA_MAX_WAIT_MS,
            TournamentSystem::Swiss => w.round < self.sh.rounds,
        };
        if missed {
            let when = match self.sh.system {
                TournamentSystem::Arena => format!(
                    "from {:.1} s before the pairing stopped",
                    (self.sh.pairing_until - w.wall_ms) as f64 / 1e3
                ),
                TournamentSystem::Swiss => format!("after round {}", w.round),
            };
            self.sh
                .seen
                .lock()
                .unwrap()
                .unanswered
                .push(format!("{} waited {when}", self.p.name));
        }
    }
}
