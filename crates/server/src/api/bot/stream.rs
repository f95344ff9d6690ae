//! Newline-delimited JSON streams (`application/x-ndjson`), as lichess streams events: one
//! JSON object a line, and an empty line every [`KEEP_ALIVE`] of silence, so that a client and
//! every proxy between see the stream alive (and the listener's stalled-write timeout closes
//! one whose client has gone).
//!
//! A stream is a task that writes lines into a small channel the response body reads; the
//! client hanging up drops the body, the task's next write fails and the task ends. Streams
//! are bounded per account ([`EVENT_STREAMS_PER_ACCOUNT`], [`GAME_STREAMS_PER_ACCOUNT`]) and,
//! per client address and in all (crate::ws::caps::SocketCaps::streams).

use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use http_body::Frame;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::error::{ApiError, ErrorCode};

/// An empty line after this much silence (lichess sends one every 6 s).
pub const KEEP_ALIVE: Duration = Duration::from_secs(6);
/// Event streams one account may hold open at once: a bot and a spare while it reconnects.
pub const EVENT_STREAMS_PER_ACCOUNT: usize = 4;
/// Game streams one account may hold open at once: a bot playing many games, one stream
/// each, with room for reconnections.
pub const GAME_STREAMS_PER_ACCOUNT: usize = 64;
/// Lines waiting for a slow client before the stream waits for it.
const QUEUE: usize = 16;

/// The body of a stream: what its task writes, as it writes it.
struct Lines(mpsc::Receiver<Bytes>);

impl http_body::Body for Lines {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|b| b.map(|b| Ok(Frame::data(b))))
    }
}

/// Where a stream's task writes; holds the stream's places (per account, per client).
pub struct Writer {
    tx: mpsc::Sender<Bytes>,
    _places: Box<dyn Send + Sync>,
}

impl Writer {
    /// Writes one object as a line: false once the client is gone.
    pub async fn line(&self, v: &Value) -> bool {
        let mut text = v.to_string();
        text.push('\n');
        self.tx.send(Bytes::from(text)).await.is_ok()
    }

    /// Writes the keep-alive line: false once the client is gone.
    pub async fn keep_alive(&self) -> bool {
        self.tx.send(Bytes::from_static(b"\n")).await.is_ok()
    }

    /// Writes `text` from a blocking thread (an export reading the store): false once the
    /// client is gone.
    pub fn blocking_text(&self, text: String) -> bool {
        self.tx.blocking_send(Bytes::from(text)).is_ok()
    }

    /// Resolves when the client has gone.
    pub async fn closed(&self) {
        self.tx.closed().await
    }
}

/// A new stream: the writer for its task, and the response that carries it; `places` (what
/// the stream holds of its caps) are given back when the task drops the writer.
pub fn open(places: impl Send + Sync + 'static) -> (Writer, Response) {
    let (tx, rx) = mpsc::channel(QUEUE);
    let mut resp = Response::new(Body::new(Lines(rx)));
    *resp.status_mut() = StatusCode::OK;
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // nginx passes each line on at once rather than filling its buffer first.
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    (
        Writer {
            tx,
            _places: Box::new(places),
        },
        resp,
    )
}

/// Which kind of stream, for the cap per account.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Events,
    Game,
    /// A seek held open (crate::api::bot::seek).
    Seek,
}

impl Kind {
    fn cap(self) -> usize {
        match self {
            Kind::Events => EVENT_STREAMS_PER_ACCOUNT,
            Kind::Game => GAME_STREAMS_PER_ACCOUNT,
            Kind::Seek => crate::lobby::SEEKS_PER_CONNECTION,
        }
    }
}

/// The streams open on this instance, per account and kind.
#[derive(Default)]
pub struct Open(Arc<Mutex<HashMap<(String, Kind), usize>>>);

/// One stream's place in [`Open`], given back when dropped.
pub struct Place {
    open: Arc<Mutex<HashMap<(String, Kind), usize>>>,
    key: (String, Kind),
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut m = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = m.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.key);
            }
        }
    }
}

impl Open {
    /// A place for one more stream of `kind` of `account`, or `429 too_many_streams`.
    pub fn take(&self, account: &str, kind: Kind) -> Result<Place, ApiError> {
        let mut m = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let key = (account.to_string(), kind);
        let n = m.entry(key.clone()).or_insert(0);
        if *n >= kind.cap() {
            return Err(ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::TooManyStreams,
                format!(
                    "this account has {} such streams open, the most it may: close one first",
                    kind.cap()
                ),
            ));
        }
        *n += 1;
        Ok(Place {
            open: self.0.clone(),
            key,
        })
    }

    /// How many streams are open, in all.
    pub fn count(&self) -> usize {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_per_account_are_capped_and_given_back() {
        let open = Open::default();
        let held: Vec<Place> = (0..EVENT_STREAMS_PER_ACCOUNT)
            .map(|_| open.take("Abula", Kind::Events).unwrap())
            .collect();
        let e = open.take("Abula", Kind::Events).err().unwrap();
        assert_eq!(e.code, ErrorCode::TooManyStreams);
        assert!(open.take("Okello", Kind::Events).is_ok());
        assert!(open.take("Abula", Kind::Game).is_ok());
        assert_eq!(open.count(), EVENT_STREAMS_PER_ACCOUNT);
        drop(held);
        assert_eq!(open.count(), 0);
        assert!(open.take("Abula", Kind::Events).is_ok());
    }
}
