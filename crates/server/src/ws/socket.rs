//! The one loop every WebSocket runs (issue 36): the game's events, the lobby and the analysis
//! board were three hand-written loops, none of which ever closed a silent socket.
//!
//! A [`Channel`] says what to push to the client ([`Channel::next`]) and how to answer a text
//! message ([`Channel::answer`]). [`serve`] does the rest, the same for every channel:
//!
//! - **Keepalive.** A ping every `ping_interval`; a socket from which nothing has come for
//!   `idle_timeout` (a message, a ping, the pong a browser sends by itself) is closed with
//!   1001 "no answer to pings" at the next ping.
//! - **Size and rate.** Messages over [`Bounds::max_message`] fail the read (tungstenite
//!   refuses them) and end the socket; more than [`Bounds::max_messages`] frames in a
//!   [`Bounds::window`] close it with 1008 "too many messages". The page reconnects by itself,
//!   so a mistake costs a reconnect, not a game.
//! - **Slow readers.** Each message must be taken within `send_timeout`; otherwise the socket
//!   is dropped, never buffered for. The write buffer is bounded ([`Bounds::upgrade`]).
//! - **Its place** ([`SocketPermit`]) is held until the loop ends, however it ends.

use std::future::Future;
use std::time::Duration;

use axum::extract::ws::{close_code, CloseFrame, Message, WebSocket, WebSocketUpgrade};
use tokio::time::{timeout, Instant, MissedTickBehavior};

use super::caps::{SocketLimits, SocketPermit};

/// When the first ping goes after a socket opens (then every `ping_interval`).
const FIRST_PING: Duration = Duration::from_secs(1);

/// A channel's own bounds on what a client sends.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// The largest message a client may send.
    pub max_message: usize,
    /// Frames a client may send per `window` (pongs and pings included); more closes it.
    pub max_messages: u32,
    pub window: Duration,
}

impl Bounds {
    /// Messages of at most `max_message` bytes, at most `max_messages` frames in 10 s.
    pub const fn per_10s(max_message: usize, max_messages: u32) -> Bounds {
        Bounds {
            max_message,
            max_messages,
            window: Duration::from_secs(10),
        }
    }

    /// The upgrade with this channel's buffers: small, since every open socket holds them
    /// (axum's default read buffer alone is 128 KiB), and a write buffer that cannot grow
    /// without end behind a slow reader.
    pub fn upgrade(&self, ws: WebSocketUpgrade) -> WebSocketUpgrade {
        ws.max_message_size(self.max_message)
            .max_frame_size(self.max_message)
            .read_buffer_size(self.max_message)
            .write_buffer_size(16 * 1024)
            .max_write_buffer_size(1024 * 1024)
    }
}

/// What one kind of socket does; [`serve`] does the rest.
pub trait Channel: Send + 'static {
    /// The next message to push to the client, `None` when there will be no more (the socket
    /// is then closed normally). Must be cancel-safe: the loop drops it when the client speaks.
    fn next(&mut self) -> impl Future<Output = Option<String>> + Send;
    /// The answer to a client's text message, if any.
    fn answer(&mut self, text: String) -> impl Future<Output = Option<String>> + Send;
    /// The client answered the server's ping after `rtt`: the network's round trip as the
    /// server measures it (a game's clock bounds the lag a player claims by it).
    fn pong(&mut self, _rtt: Duration) {}
}

/// Why a socket's loop ended (for tests and the log).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The client closed it or its connection failed.
    Client,
    /// The channel had nothing more to say.
    Done,
    /// Nothing came from the client for the idle timeout.
    Silent,
    /// The client sent too many messages.
    TooMany,
    /// The client did not take a message within the send timeout.
    SlowReader,
}

/// Runs `channel` on `socket`: `first` goes out first, then pushes and answers until the
/// socket ends. `permit` is the socket's place, given back when this returns.
pub async fn serve<C: Channel>(
    mut socket: WebSocket,
    mut channel: C,
    first: Option<String>,
    bounds: Bounds,
    limits: SocketLimits,
    permit: SocketPermit,
) -> End {
    let _permit = permit;
    let send_timeout = limits.send_timeout;
    if let Some(first) = first {
        if let Err(end) = send(&mut socket, Message::Text(first.into()), send_timeout).await {
            return end;
        }
    }
    let mut heard = Instant::now();
    let mut window = Instant::now();
    let mut received = 0u32;
    // The first ping goes soon, so that the round trip is known before the first move.
    let mut ping = tokio::time::interval_at(
        Instant::now() + limits.ping_interval.min(FIRST_PING),
        limits.ping_interval,
    );
    let mut pinged: Option<Instant> = None;
    ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            out = channel.next() => {
                let Some(text) = out else {
                    close(&mut socket, close_code::NORMAL, "").await;
                    return End::Done;
                };
                if let Err(end) = send(&mut socket, Message::Text(text.into()), send_timeout).await {
                    return end;
                }
            }
            msg = socket.recv() => {
                heard = Instant::now();
                let msg = match msg {
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return End::Client,
                    Some(Ok(m)) => m,
                };
                if heard.duration_since(window) >= bounds.window {
                    window = heard;
                    received = 0;
                }
                received += 1;
                if received > bounds.max_messages {
                    close(&mut socket, close_code::POLICY, "too many messages").await;
                    return End::TooMany;
                }
                if let Message::Pong(_) = msg {
                    if let Some(at) = pinged.take() {
                        channel.pong(heard.duration_since(at));
                    }
                }
                if let Message::Text(t) = msg {
                    if let Some(reply) = channel.answer(t.to_string()).await {
                        if let Err(end) = send(&mut socket, Message::Text(reply.into()), send_timeout).await {
                            return end;
                        }
                    }
                }
            }
            _ = ping.tick() => {
                if heard.elapsed() >= limits.idle_timeout {
                    close(&mut socket, close_code::AWAY, "no answer to pings").await;
                    return End::Silent;
                }
                if let Err(end) = send(&mut socket, Message::Ping(Default::default()), send_timeout).await {
                    return end;
                }
                pinged = Some(Instant::now());
            }
        }
    }
}

async fn send(socket: &mut WebSocket, msg: Message, within: Duration) -> Result<(), End> {
    match timeout(within, socket.send(msg)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) => Err(End::Client),
        Err(_) => Err(End::SlowReader),
    }
}

/// A close frame, if the client takes it at once; the socket is dropped either way.
async fn close(socket: &mut WebSocket, code: u16, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    let _ = timeout(
        Duration::from_secs(1),
        socket.send(Message::Close(Some(frame))),
    )
    .await;
}
