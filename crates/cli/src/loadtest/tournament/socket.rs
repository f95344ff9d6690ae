//! The bots' WebSockets: connected to the player's server, tried again with back-off, and, with
//! two servers, moved to the other one when the player's server does not answer.

use std::time::{Duration, Instant};

use futures_util::SinkExt;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::WebSocketStream;

use super::setup::backoff;
use super::{Player, Shared};
use crate::loadtest::client::HttpError;
use crate::loadtest::ctx::{Ctx, RELAXED};
use crate::loadtest::watcher::ws_kind;

pub(super) type Ws = WebSocketStream<TcpStream>;

/// How long a socket is tried again, at least, before it counts as failed.
const KEEP_TRYING: Duration = Duration::from_secs(30);
/// How often a bot pings its sockets, as the page does.
pub(super) const PING_EVERY: Duration = Duration::from_secs(15);

/// Connects to `path` on the player's server; on failure tries again with back-off (with two
/// servers, on the other one) for [`KEEP_TRYING`] or `--failover-secs`, whichever is longer.
/// `Err`: the last failure's kind.
pub(super) async fn connect(sh: &Shared, p: &Player, path: &str, what: &str) -> Result<Ws, String> {
    let keep = sh.ctx.failover.unwrap_or(KEEP_TRYING).max(KEEP_TRYING);
    let deadline = Instant::now() + keep;
    let mut tries = 0;
    loop {
        let t = p.target.load(RELAXED);
        match connect_once(&sh.ctx, t, path).await {
            Ok(ws) => return Ok(ws),
            Err(kind) => {
                if sh.ctx.stopped() || Instant::now() >= deadline {
                    return Err(kind);
                }
                p.switch(&sh.ctx, &format!("{what}: {kind}"));
                tokio::time::sleep(backoff(tries)).await;
                tries += 1;
            }
        }
    }
}

async fn connect_once(ctx: &Ctx, target: usize, path: &str) -> Result<Ws, String> {
    let t = &ctx.targets[target];
    let url = format!("ws://{}{path}", t.host);
    let config = tungstenite::protocol::WebSocketConfig::default()
        .read_buffer_size(16 * 1024)
        .write_buffer_size(4 * 1024);
    let attempt = async {
        let tcp = TcpStream::connect(t.addr)
            .await
            .map_err(|e| format!("ws connect: {}", HttpError::Connect(e).kind()))?;
        let _ = tcp.set_nodelay(true);
        let (ws, _) = tokio_tungstenite::client_async_with_config(url.as_str(), tcp, Some(config))
            .await
            .map_err(|e| format!("ws handshake: {}", ws_kind(&e)))?;
        Ok(ws)
    };
    match tokio::time::timeout(ctx.timeout, attempt).await {
        Ok(r) => r,
        Err(_) => Err("ws connect: timeout".to_string()),
    }
}

/// Sends a text message; `false` if the socket is gone.
pub(super) async fn send(ws: &mut Ws, text: String) -> bool {
    ws.send(Message::text(text)).await.is_ok()
}

/// Closes a socket, waiting a little for the server's answer.
pub(super) async fn close(mut ws: Ws) {
    let _ = tokio::time::timeout(Duration::from_secs(1), ws.close(None)).await;
}

/// Why a socket ended, for the report's counts.
pub(super) fn dropped(msg: Option<Result<Message, tungstenite::Error>>) -> String {
    match msg {
        Some(Err(e)) => format!("ws: {}", ws_kind(&e)),
        _ => "ws: closed by the server".to_string(),
    }
}
