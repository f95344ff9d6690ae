//! One game of the load from its creation to its end: made (and joined, between friends),
//! watched, and played with random legal moves at full speed or at a pace, each move timed.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::{oneshot, watch};

use super::args::Mode;
use super::client::Timing;
use super::ctx::{Ctx, RELAXED};
use super::failover::{resync, settle, CallError, Req, Resend};
use super::live::{LiveGame, Pending, SentTimes};
use super::stats::{micros, Played};
use super::watcher;

/// Plays games, one after another, until the stop.
pub(super) async fn slot(ctx: Arc<Ctx>) {
    while !ctx.stopped() {
        let target = ctx.next_target.fetch_add(1, RELAXED) % ctx.targets.len();
        if let Err(wait) = play_game(&ctx, target).await {
            ctx.sleep_until(Instant::now() + wait).await;
        }
    }
}

/// One game from creation to its end, to a failed move or to the stop. `Err` is how long to
/// wait before the next game (a failed creation).
async fn play_game(ctx: &Arc<Ctx>, target: usize) -> Result<(), Duration> {
    let Some(mut game) = open_game(ctx, target).await? else {
        ctx.stats.games_abandoned.fetch_add(1, RELAXED);
        return Ok(());
    };

    // The watchers, each connected and holding the state before the first move.
    let sent: SentTimes = Arc::new(Mutex::new(Vec::new()));
    let (last_tx, last_rx) = watch::channel(None::<u64>);
    let watched = if ctx.watch_other {
        (game.target + 1) % ctx.targets.len()
    } else {
        game.target
    };
    let mut watchers = Vec::with_capacity(ctx.watchers);
    let mut ready = Vec::with_capacity(ctx.watchers);
    for _ in 0..ctx.watchers {
        let (tx, rx) = oneshot::channel();
        watchers.push(tokio::spawn(watcher::watcher(
            ctx.clone(),
            watched,
            game.id.clone(),
            sent.clone(),
            last_rx.clone(),
            tx,
        )));
        ready.push(rx);
    }
    for r in ready {
        let _ = r.await;
    }

    play_moves(ctx, &mut game, &sent).await;
    settle(ctx, &mut game);
    let _ = last_tx.send(Some(game.state["ply"].as_u64().unwrap_or(0)));
    for w in watchers {
        let _ = w.await;
    }
    ctx.stats.played.lock().unwrap().push(Played {
        target: game.target,
        id: game.id,
        known: game.known,
    });
    Ok(())
}

/// Makes a game and, between friends, joins it. `Ok(None)`: it cannot be played (the join
/// failed).
async fn open_game(ctx: &Ctx, mut target: usize) -> Result<Option<LiveGame>, Duration> {
    let mut body = json!({"mode": ctx.mode.name()});
    if let Some((control, _)) = &ctx.clock {
        body["clock"] = json!(control);
    }
    let create = Req::post(
        "create",
        "/api/games",
        body,
        // A creation lost with a server leaves an unused game at worst.
        Resend::Always,
    );
    let (created, timing) = ctx.call(&mut target, create).await?;
    ctx.stats.games_started.fetch_add(1, RELAXED);
    {
        let mut s = ctx.stats.samples.lock().unwrap();
        s.create.push(micros(timing.round_trip));
        s.queued.push(micros(timing.queued));
    }
    let id = created["game"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let secret = created["secret"].as_str().unwrap_or_default().to_string();
    if id.is_empty() || secret.is_empty() {
        ctx.error("create: an answer without id or secret".to_string());
        return Err(Duration::from_secs(1));
    }
    let mut game = LiveGame {
        id,
        target,
        secrets: [secret.clone(), secret],
        state: created["game"].clone(),
        known: Vec::new(),
        unsettled: None,
    };
    if ctx.mode == Mode::Friend && !join(ctx, &mut game, &created).await {
        return Ok(None);
    }
    Ok(Some(game))
}

/// Takes the free seat of a friend game with its invite token; false if that failed.
async fn join(ctx: &Ctx, game: &mut LiveGame, created: &Value) -> bool {
    let path = format!("/api/games/{}/join", game.id);
    let body = json!({"invite": created["invite"].as_str().unwrap_or_default()});
    let join = Req::post("join", &path, body, Resend::IfNotCarriedOut);
    let joined = match ctx.request(&mut game.target, join, |_| {}).await {
        Ok((joined, _)) => joined,
        // The lost join may have taken the seat, whose secret only its answer carried: the
        // game cannot be played, and nothing went wrong at the server that is still there.
        Err(CallError::Unsure { .. }) => return false,
        Err(e) => {
            ctx.fail(game.target, "join", &e);
            return false;
        }
    };
    let secret = &game.secrets[0];
    let other = joined["secret"].as_str().unwrap_or_default().to_string();
    match (created["seat"].as_str(), joined["seat"].as_str()) {
        (Some("south"), Some("north")) => game.secrets = [secret.clone(), other],
        (Some("north"), Some("south")) => game.secrets = [other, secret.clone()],
        (a, b) => {
            ctx.error(format!("join: seats {a:?} and {b:?}"));
            return false;
        }
    }
    game.state = joined["game"].clone();
    true
}

/// Plays random legal moves until the game is over, the stop, or a failure that leaves its
/// state unknown.
async fn play_moves(ctx: &Ctx, game: &mut LiveGame, sent: &SentTimes) {
    let mut due = [Instant::now(); 2];
    // When the tool learned the state it moves from (the previous answer).
    let mut learned = Instant::now();
    if let Some(p) = ctx.pace {
        for d in &mut due {
            *d += p.mul_f64(rand::random_range(0.0..1.0));
        }
    }
    loop {
        if game.state["status"] != "playing" {
            ctx.stats.games_finished.fetch_add(1, RELAXED);
            break;
        }
        if ctx.stopped() {
            break;
        }
        let (side, mv) = match next_move(&game.state) {
            Ok(x) => x,
            Err(why) => {
                ctx.error(format!("move: {why}"));
                ctx.stats.games_abandoned.fetch_add(1, RELAXED);
                break;
            }
        };
        if ctx.pace.is_some() && ctx.sleep_until(due[side]).await {
            break;
        }
        let (answer, sent_at) = send_move(ctx, game, sent, side, &mv).await;
        let pending = match answer {
            Ok((v, timing)) => {
                acknowledged(ctx, game, side, mv, &v, &timing, sent_at - learned);
                learned = Instant::now();
                if let Some(p) = ctx.pace {
                    due[side] = sent_at + p;
                }
                continue;
            }
            Err(CallError::Unsure { .. }) => {
                settle(ctx, game);
                Some(Pending::new(mv, true))
            }
            // The game moved on behind the tool's back: after a failover, the failed server
            // may have stored the move sent to it after all (the one read back and not
            // found, or this one).
            Err(e) if e.is_stale() && game.unsettled.is_some() => game.unsettled.take(),
            Err(e) if e.is_stale_after_failover() => Some(Pending::new(mv, false)),
            Err(e) => {
                ctx.fail(game.target, "move", &e);
                // The game's state is unknown now: a new game instead.
                ctx.stats.games_abandoned.fetch_add(1, RELAXED);
                break;
            }
        };
        if resync(ctx, game, pending).await.is_err() {
            ctx.stats.games_abandoned.fetch_add(1, RELAXED);
            break;
        }
    }
}

/// Sends `side`'s move `mv`, noting when it was sent for the watchers; the answer, and the
/// instant the request was (last) written.
async fn send_move(
    ctx: &Ctx,
    game: &mut LiveGame,
    sent: &SentTimes,
    side: usize,
    mv: &str,
) -> (Result<(Value, Timing), CallError>, Instant) {
    let path = format!("/api/games/{}/moves", game.id);
    let ply = game.state["ply"].as_u64().unwrap_or(0);
    let mut sent_at = Instant::now();
    let body = json!({"move": mv, "secret": game.secrets[side], "ply": ply});
    let answer = ctx
        .request(
            &mut game.target,
            Req::post("move", &path, body, Resend::IfNotCarriedOut),
            |at| {
                sent_at = at;
                note_sent(sent, ply as usize + 1, at);
            },
        )
        .await;
    (answer, sent_at)
}

/// The move that makes `ply` was sent `at`.
fn note_sent(sent: &Mutex<Vec<Option<Instant>>>, ply: usize, at: Instant) {
    let mut s = sent.lock().unwrap();
    if s.len() <= ply {
        s.resize(ply + 1, None);
    }
    s[ply] = Some(at);
}

/// A move the server answered with 2xx: counted, timed, and the game goes on from `answer`.
/// `thinking` is the tool's time from learning the state to sending the move.
fn acknowledged(
    ctx: &Ctx,
    game: &mut LiveGame,
    side: usize,
    mv: String,
    answer: &Value,
    timing: &Timing,
    thinking: Duration,
) {
    settle(ctx, game);
    ctx.stats.moves.fetch_add(1, RELAXED);
    ctx.this_second(|s| s.moves += 1);
    let overhead = ctx
        .clock
        .as_ref()
        .and_then(|(_, inc)| clock_overhead(&game.state, &answer["game"], side, *inc, thinking));
    {
        let mut s = ctx.stats.samples.lock().unwrap();
        s.round_trip.push(micros(timing.round_trip));
        s.queued.push(micros(timing.queued));
        s.clock_overhead.extend(overhead);
    }
    game.known.push(mv);
    game.state = answer["game"].clone();
}

/// What the clock of `side` (0 South, 1 North) was charged for its move beyond `thinking`, the
/// time from the tool reading `before` to sending the move, in microseconds: the network both
/// ways and the server's queue. `None` when `side`'s clock was not running.
///
/// `before`'s clock says what `side` had as of that answer, `after`'s what it has after the
/// move and its increment; so the difference, less `thinking`, is the time between the first
/// answer leaving the server and the move arriving there, less what the tool spent itself.
fn clock_overhead(
    before: &Value,
    after: &Value,
    side: usize,
    inc: i64,
    thinking: Duration,
) -> Option<u32> {
    let name = ["south", "north"][side];
    if before["clock"]["running"] != name {
        return None;
    }
    let had = before["clock"][name].as_i64()?;
    let has = after["clock"][name].as_i64()?;
    let charged_us = (had - (has - inc)) * 1000;
    Some((charged_us - thinking.as_micros() as i64).clamp(0, i64::from(u32::MAX)) as u32)
}

/// The side to move (0 South, 1 North) and a random legal move, or why the game cannot go on.
fn next_move(game: &Value) -> Result<(usize, String), Unplayable> {
    let side = match game["to_move"].as_str() {
        Some("south") => 0,
        Some("north") => 1,
        other => return Err(Unplayable::ToMove(other.map(String::from))),
    };
    let legal: Vec<&str> = game["legal"]
        .as_array()
        .map(|l| l.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if legal.is_empty() {
        return Err(Unplayable::NoLegalMove);
    }
    Ok((side, legal[rand::random_range(0..legal.len())].to_string()))
}

/// Why a game the server says is being played cannot go on: its answer lacks what a move
/// needs.
#[derive(Debug, thiserror::Error)]
enum Unplayable {
    #[error("a game playing with to_move {0:?}")]
    ToMove(Option<String>),
    #[error("a game playing without legal moves")]
    NoLegalMove,
}
