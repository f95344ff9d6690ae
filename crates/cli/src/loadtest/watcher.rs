//! A game's WebSocket watcher: it times the delivery of every move from its POST to its `move`
//! event. With `--failover`, a watcher whose server goes away reconnects to another one, whose
//! first message is the whole state: the moves missed meanwhile are counted as resynced, not
//! as errors (docs/api.md, "Events").

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::sync::{oneshot, watch};
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::WebSocketStream;

use super::client::HttpError;
use super::ctx::{Ctx, RELAXED};
use super::failover::Tries;
use super::live::SentTimes;
use super::stats::micros;

type Ws = WebSocketStream<TcpStream>;

/// Why a watcher could not connect, as reported by kind.
struct ConnectError {
    kind: String,
}

/// Connects a watcher to the game's events on `target` (with `--failover`, on the next server
/// when that one does not answer) and reads them until it saw the game's last move (the ply
/// sent on `last`), timing each `move` event from its POST.
pub(super) async fn watcher(
    ctx: Arc<Ctx>,
    mut target: usize,
    id: String,
    sent: SentTimes,
    mut last: watch::Receiver<Option<u64>>,
    ready: oneshot::Sender<()>,
) {
    let (mut ws, mut seen) = match connect_failover(&ctx, &mut target, &id).await {
        Ok(x) => x,
        Err(e) => return ctx.error(e.kind),
    };
    let _ = ready.send(());
    // The last ply to wait for, and until when.
    let mut end: Option<(u64, tokio::time::Instant)> = None;
    loop {
        if let Some((ply, _)) = end {
            if seen >= ply {
                break;
            }
        }
        let deadline = end.map(|e| e.1);
        let dropped = tokio::select! {
            msg = ws.next() => match msg {
                Some(Ok(Message::Text(text))) => {
                    on_event(&ctx, &sent, &text, &mut seen);
                    continue;
                }
                Some(Ok(Message::Close(_))) | None => "ws: closed by the server".to_string(),
                Some(Ok(_)) => continue,
                Some(Err(e)) => format!("ws: {}", ws_kind(&e)),
            },
            changed = last.changed(), if end.is_none() => {
                let ply = match changed {
                    Ok(()) => (*last.borrow()).unwrap_or(seen),
                    Err(_) => seen,
                };
                end = Some((ply, tokio::time::Instant::now() + ctx.timeout));
                continue;
            }
            _ = tokio::time::sleep_until(deadline.unwrap_or_else(tokio::time::Instant::now)), if deadline.is_some() => {
                ctx.error("ws: the last move's event did not come within the timeout".to_string());
                break;
            }
        };
        if ctx.failover.is_none() {
            return ctx.error(dropped);
        }
        // Another server, not the one that just dropped the watcher (it may be gone).
        target = (target + 1) % ctx.targets.len();
        match connect_failover(&ctx, &mut target, &id).await {
            Ok((again, ply)) => {
                ws = again;
                ctx.stats.ws_reconnects.fetch_add(1, RELAXED);
                resynced(&ctx, &mut seen, ply);
            }
            Err(e) => {
                return ctx.error(format!(
                    "ws: no server took the watcher back after \"{dropped}\" ({})",
                    e.kind
                ))
            }
        }
    }
    let _ = tokio::time::timeout(Duration::from_secs(1), ws.close(None)).await;
}

/// One event: a `move` is timed from its POST; a `state` that is ahead stands for the moves
/// it skipped.
fn on_event(ctx: &Ctx, sent: &SentTimes, text: &str, seen: &mut u64) {
    let now = Instant::now();
    let v: Value = serde_json::from_str(text).unwrap_or_default();
    let ply = v["game"]["ply"].as_u64().unwrap_or(0);
    match v["type"].as_str() {
        Some("move") => {
            if ply > *seen + 1 {
                ctx.error_n("ws: move events skipped".to_string(), ply - *seen - 1);
            }
            let at = sent.lock().unwrap().get(ply as usize).copied().flatten();
            if let Some(at) = at {
                ctx.stats
                    .samples
                    .lock()
                    .unwrap()
                    .delivery
                    .push(micros(now - at));
            }
            *seen = (*seen).max(ply);
        }
        // A watcher too slow to follow every event gets the state instead.
        Some("state") => resynced(ctx, seen, ply),
        _ => {}
    }
}

fn resynced(ctx: &Ctx, seen: &mut u64, ply: u64) {
    if ply > *seen {
        ctx.stats.resynced.fetch_add(ply - *seen, RELAXED);
        *seen = ply;
    }
}

/// Connects to `target`; with `--failover`, to the next servers in turn when it does not
/// answer, for up to `--failover-secs` (each switch counted as a failover), `target`
/// following. The answer: the socket and the ply of the state it sent first.
async fn connect_failover(
    ctx: &Ctx,
    target: &mut usize,
    id: &str,
) -> Result<(Ws, u64), ConnectError> {
    let mut tries = Tries::default();
    loop {
        match connect(ctx, *target, id).await {
            Ok(x) => return Ok(x),
            Err(e) => {
                if !tries.switch(ctx, target, &e.kind).await {
                    return Err(e);
                }
            }
        }
    }
}

/// Connects to the game's events on `target` and reads the state it sends first.
async fn connect(ctx: &Ctx, target: usize, id: &str) -> Result<(Ws, u64), ConnectError> {
    let t = &ctx.targets[target];
    let url = format!("ws://{}/api/games/{id}/events", t.host);
    let config = tungstenite::protocol::WebSocketConfig::default()
        .read_buffer_size(16 * 1024)
        .write_buffer_size(4 * 1024);
    let attempt = async {
        let tcp = TcpStream::connect(t.addr)
            .await
            .map_err(|e| format!("ws connect: {}", HttpError::Connect(e).kind()))?;
        let _ = tcp.set_nodelay(true);
        let (mut ws, _) =
            tokio_tungstenite::client_async_with_config(url.as_str(), tcp, Some(config))
                .await
                .map_err(|e| format!("ws handshake: {}", ws_kind(&e)))?;
        // The first message is the whole state.
        let first = match ws.next().await {
            Some(Ok(Message::Text(text))) => {
                serde_json::from_str::<Value>(&text).unwrap_or_default()
            }
            Some(Err(e)) => return Err(format!("ws: {}", ws_kind(&e))),
            _ => return Err("ws: no state message first".to_string()),
        };
        if first["type"] != "state" {
            return Err(format!("ws: the first message is {:?}", first["type"]));
        }
        Ok((ws, first["game"]["ply"].as_u64().unwrap_or(0)))
    };
    match tokio::time::timeout(ctx.timeout, attempt).await {
        Err(_) => {
            ctx.stats.hangs.fetch_add(1, RELAXED);
            Err(ConnectError {
                kind: "ws connect: timeout".to_string(),
            })
        }
        Ok(Err(kind)) => Err(ConnectError { kind }),
        Ok(Ok(x)) => Ok(x),
    }
}

pub(super) fn ws_kind(e: &tungstenite::Error) -> String {
    match e {
        tungstenite::Error::Io(io) => HttpError::Io(std::io::Error::new(io.kind(), io.to_string()))
            .kind()
            .replacen("i/o: ", "", 1),
        tungstenite::Error::Http(r) => format!("HTTP {}", r.status().as_u16()),
        tungstenite::Error::Protocol(p) => format!("protocol: {p}"),
        other => other.to_string(),
    }
}
