//! The Bot API over HTTP (docs/api-bots.md): form POSTs, and the newline-delimited JSON
//! streams read object by object, with the keep-alive lines taken as signs of life. Given
//! several servers (instances of one site on one database), a request that cannot reach one
//! goes to the next from then on.

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;

use crate::error::BotError;

/// A stream that says nothing, not even a keep-alive line (every 6 s), for this long is
/// taken as lost, and opened again.
pub const SILENCE: Duration = Duration::from_secs(20);
/// The longest line read from a stream (a game with thousands of plies is far shorter).
const MAX_LINE: usize = 1 << 20;

/// A server's Bot API, as one account (its token).
#[derive(Clone)]
pub struct Api {
    http: reqwest::Client,
    bases: std::sync::Arc<Vec<String>>,
    /// Which of `bases` requests go to.
    current: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    token: String,
}

impl Api {
    pub fn new(bases: &[String], token: &str) -> Result<Api, BotError> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .user_agent(concat!("anywoli-bot/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| BotError::Client(e.to_string()))?;
        if bases.is_empty() {
            return Err(BotError::Client("no --server".to_string()));
        }
        Ok(Api {
            http,
            bases: std::sync::Arc::new(
                bases
                    .iter()
                    .map(|b| b.trim_end_matches('/').to_string())
                    .collect(),
            ),
            current: Default::default(),
            token: token.trim().to_string(),
        })
    }

    fn url(&self, path: &str) -> String {
        use std::sync::atomic::Ordering;
        let i = self.current.load(Ordering::Relaxed) % self.bases.len();
        format!("{}{path}", self.bases[i])
    }

    /// A request that could not reach its server: the next requests go to the next one.
    fn unreachable(&self, path: &str, e: reqwest::Error) -> BotError {
        use std::sync::atomic::Ordering;
        if e.is_connect() || e.is_timeout() || e.is_request() {
            self.current.fetch_add(1, Ordering::Relaxed);
        }
        BotError::Http {
            path: path.to_string(),
            message: e.to_string(),
        }
    }

    /// `POST path`, asked again (up to 5 times) while the server says to wait
    /// (`429`, its `Retry-After`, at most 10 s): a move refused for a moment is still owed.
    pub async fn post_patiently(
        &self,
        path: &str,
        form: &[(&str, String)],
    ) -> Result<Value, BotError> {
        let mut tries = 0;
        loop {
            match self.post(path, form).await {
                Err(BotError::Refused {
                    status: 429,
                    retry_after,
                    ..
                }) if tries < 5 => {
                    tries += 1;
                    let secs = retry_after.unwrap_or(1).clamp(1, 10);
                    tokio::time::sleep(Duration::from_secs(secs)).await;
                }
                r => return r,
            }
        }
    }

    /// `POST path` with a form (empty: no body): the answer's JSON, or why not.
    pub async fn post(&self, path: &str, form: &[(&str, String)]) -> Result<Value, BotError> {
        let resp = self
            .http
            .post(self.url(path))
            .bearer_auth(&self.token)
            .timeout(Duration::from_secs(30))
            .form(form)
            .send()
            .await
            .map_err(|e| self.unreachable(path, e))?;
        answer(path, resp).await
    }

    /// `GET path`: the answer's JSON.
    pub async fn get(&self, path: &str) -> Result<Value, BotError> {
        let resp = self
            .http
            .get(self.url(path))
            .bearer_auth(&self.token)
            .timeout(Duration::from_secs(30))
            .send()
            .await
            .map_err(|e| self.unreachable(path, e))?;
        answer(path, resp).await
    }

    /// Opens the stream at `path`.
    pub async fn stream(&self, path: &str) -> Result<Lines, BotError> {
        let resp = self
            .http
            .get(self.url(path))
            .bearer_auth(&self.token)
            .send()
            .await
            .map_err(|e| self.unreachable(path, e))?;
        if !resp.status().is_success() {
            return Err(refusal(path, resp).await);
        }
        Ok(Lines {
            body: Box::pin(resp.bytes_stream()),
            pending: Vec::new(),
        })
    }
}

async fn answer(path: &str, resp: reqwest::Response) -> Result<Value, BotError> {
    if !resp.status().is_success() {
        return Err(refusal(path, resp).await);
    }
    let text = resp.text().await.map_err(|e| BotError::Http {
        path: path.to_string(),
        message: e.to_string(),
    })?;
    Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// A refusal's status and the server's JSON error.
async fn refusal(path: &str, resp: reqwest::Response) -> BotError {
    let status = resp.status().as_u16();
    let retry_after = resp
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    BotError::Refused {
        path: path.to_string(),
        status,
        retry_after,
        code: body["error"].as_str().unwrap_or("").to_string(),
        message: body["message"].as_str().unwrap_or("").to_string(),
    }
}

type Body =
    std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>;

/// An open stream of JSON objects.
pub struct Lines {
    body: Body,
    pending: Vec<u8>,
}

impl Lines {
    /// The next object; `Ok(None)` when the stream ended; an error when it broke or fell
    /// silent for [`SILENCE`].
    pub async fn next(&mut self) -> Result<Option<Value>, BotError> {
        loop {
            while let Some(i) = self.pending.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=i).collect();
                let line = String::from_utf8_lossy(&line);
                let line = line.trim();
                if !line.is_empty() {
                    return serde_json::from_str(line)
                        .map(Some)
                        .map_err(|e| BotError::Stream(format!("not JSON: {e}")));
                }
            }
            if self.pending.len() > MAX_LINE {
                return Err(BotError::Stream("a line longer than 1 MiB".to_string()));
            }
            match tokio::time::timeout(SILENCE, self.body.next()).await {
                Err(_) => return Err(BotError::Stream("silent for 20 s".to_string())),
                Ok(None) => return Ok(None),
                Ok(Some(Err(e))) => return Err(BotError::Stream(e.to_string())),
                Ok(Some(Ok(b))) => self.pending.extend_from_slice(&b),
            }
        }
    }
}
