//! Requests, one server at a time or, with `--failover`, moving on to the next server when
//! one stops answering: what a client behind a load balancer sees when an instance dies. A
//! request is sent again elsewhere only when doing so cannot play a move twice; a move whose
//! fate is unknown is read back instead (`resync`) and counted apart from the acknowledged
//! ones: found stored, it was stored, but no server ever said so to its client.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::client::{HttpError, Timing};
use super::ctx::{Ctx, RELAXED};
use super::live::{move_list, LiveGame, Pending};

/// After every server failed once in a row, a pause before the next round of tries: a server
/// that is restarting is not hammered, and the tries still fit many times in `--failover-secs`.
const ROUND_PAUSE: Duration = Duration::from_millis(200);

/// One request's tries over the servers, for up to `--failover-secs` from its first failure.
#[derive(Default)]
pub(super) struct Tries {
    deadline: Option<Instant>,
    failures: usize,
}

impl Tries {
    /// After a failure of kind `kind` on `target`: `false` when there is no switching (no
    /// `--failover`, or its time is up); else the switch is counted and `target` is the next
    /// server.
    pub(super) async fn switch(&mut self, ctx: &Ctx, target: &mut usize, kind: &str) -> bool {
        let Some(limit) = ctx.failover else {
            return false;
        };
        let deadline = *self.deadline.get_or_insert_with(|| Instant::now() + limit);
        if Instant::now() >= deadline {
            return false;
        }
        ctx.failed_over(kind);
        *target = (*target + 1) % ctx.targets.len();
        self.failures += 1;
        if self.failures.is_multiple_of(ctx.targets.len()) {
            tokio::time::sleep(ROUND_PAUSE.min(deadline.saturating_duration_since(Instant::now())))
                .await;
        }
        true
    }

    /// Whether the request has gone to another server.
    pub(super) fn switched(&self) -> bool {
        self.failures > 0
    }
}

/// A request as a game makes it.
pub(super) struct Req<'a> {
    /// What it is for, in the report's counts: `create`, `move`, `check`...
    what: &'a str,
    method: &'static str,
    path: &'a str,
    body: Option<Value>,
    resend: Resend,
    /// Made as this account (its cookie, and on a `POST` its CSRF token and an `Origin`).
    auth: Option<&'a Auth>,
}

/// An account's session, as a page holds it: the cookie, and the CSRF token a `POST` repeats.
pub(super) struct Auth {
    /// The `anywoli_session` cookie's value.
    pub(super) cookie: String,
    pub(super) csrf: String,
}

impl Auth {
    /// The header lines of a request to the server `url` (`http://HOST:PORT`) as this account.
    fn headers(&self, method: &str, url: &str) -> String {
        let mut h = format!("Cookie: anywoli_session={}\r\n", self.cookie);
        if method == "POST" {
            h.push_str(&format!("X-CSRF-Token: {}\r\nOrigin: {url}\r\n", self.csrf));
        }
        h
    }
}

impl<'a> Req<'a> {
    pub(super) fn get(what: &'a str, path: &'a str) -> Req<'a> {
        Req {
            what,
            method: "GET",
            path,
            body: None,
            resend: Resend::Always,
            auth: None,
        }
    }

    pub(super) fn post(what: &'a str, path: &'a str, body: Value, resend: Resend) -> Req<'a> {
        Req {
            what,
            method: "POST",
            path,
            body: Some(body),
            resend,
            auth: None,
        }
    }

    /// The same request, made as the account `auth`.
    pub(super) fn by(self, auth: &'a Auth) -> Req<'a> {
        Req {
            auth: Some(auth),
            ..self
        }
    }
}

/// Why a request got no 2xx answer.
pub(super) enum CallError {
    /// No answer at all. `sent`: the request was written, so the server may have acted on it.
    Transport { error: HttpError, sent: bool },
    /// An answer other than 2xx. `after_failover`: it came from a server the request was
    /// switched to, after another one failed.
    Status {
        status: u16,
        code: String,
        retry_after: Option<u64>,
        after_failover: bool,
    },
    /// The request may have been carried out by a server that then failed; the game was
    /// switched to the next server, where its state must be read back before going on.
    Unsure { kind: String },
}

/// Whether a request may be sent again to another server after one failed with it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Resend {
    /// Reading, or making a new game (a lost one is just an unused game): always.
    Always,
    /// A move or a join: only if no server can have carried it out, else [`CallError::Unsure`].
    IfNotCarriedOut,
}

impl CallError {
    /// The kind, for the report's counts.
    pub(super) fn kind(&self) -> String {
        match self {
            CallError::Transport { error, .. } => error.kind(),
            CallError::Status { status, code, .. } => format!("{status} {code}"),
            CallError::Unsure { kind } => format!("{kind} (outcome unknown)"),
        }
    }

    /// Another server may answer instead: no answer, or a load balancer's 502 or 503.
    fn unavailable(&self) -> bool {
        match self {
            CallError::Transport { .. } => true,
            CallError::Status { status, .. } => matches!(status, 502 | 503),
            CallError::Unsure { .. } => false,
        }
    }

    /// The failed server may have carried the request out: it was sent and no answer came, or
    /// a proxy says the server behind it failed (502) after it may have got the request.
    fn maybe_carried_out(&self) -> bool {
        match self {
            CallError::Transport { sent, .. } => *sent,
            CallError::Status { status, .. } => *status == 502,
            CallError::Unsure { .. } => true,
        }
    }

    /// How long to wait before making new games on that server.
    pub(super) fn wait(&self) -> Duration {
        match self {
            CallError::Transport {
                error: HttpError::Timeout,
                ..
            } => Duration::ZERO,
            CallError::Transport { .. } | CallError::Unsure { .. } => Duration::from_secs(1),
            CallError::Status { retry_after, .. } => {
                Duration::from_secs(retry_after.unwrap_or(1).clamp(1, 60))
            }
        }
    }

    /// A `409 stale`: the game is not at the ply the move was sent for.
    pub(super) fn is_stale(&self) -> bool {
        matches!(self, CallError::Status { status: 409, code, .. } if code == "stale")
    }

    /// A `409 stale` from the server a move was sent to after another one failed with it.
    pub(super) fn is_stale_after_failover(&self) -> bool {
        matches!(self, CallError::Status { status: 409, code, after_failover: true, .. } if code == "stale")
    }
}

/// An error answer a person can act on: JSON with an `error` code and a `message`.
fn has_message(body: &Value) -> bool {
    body["error"].as_str().is_some_and(|c| !c.is_empty())
        && body["message"].as_str().is_some_and(|m| !m.is_empty())
}

impl Ctx {
    /// One request to one server. Counts the hangs (the timeout) and the 5xx answers without
    /// a message, whatever becomes of the request afterwards.
    async fn request_once(
        &self,
        target: usize,
        method: &str,
        path: &str,
        auth: Option<&Auth>,
        body: Option<&[u8]>,
        on_send: &mut impl FnMut(Instant),
    ) -> Result<(Value, Timing), CallError> {
        let mut sent = false;
        let t = &self.targets[target];
        let headers = auth.map_or(String::new(), |a| a.headers(method, &t.url));
        let result = t
            .pool
            .request_with(method, path, &headers, body, |at| {
                sent = true;
                on_send(at)
            })
            .await;
        match result {
            Err(error) => {
                if matches!(error, HttpError::Timeout) {
                    self.stats.hangs.fetch_add(1, RELAXED);
                }
                Err(CallError::Transport { error, sent })
            }
            Ok((answer, timing)) => {
                let v: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
                if (200..300).contains(&answer.status) {
                    return Ok((v, timing));
                }
                if answer.status >= 500 && !has_message(&v) {
                    self.stats.unexplained_5xx.fetch_add(1, RELAXED);
                }
                Err(CallError::Status {
                    status: answer.status,
                    code: v["error"].as_str().unwrap_or("-").to_string(),
                    retry_after: answer.retry_after,
                    after_failover: false,
                })
            }
        }
    }

    /// A request to `target`; with `--failover`, one that gets no answer or a 502/503 goes to
    /// the next server (and `target` follows it) for up to `--failover-secs`, each switch
    /// counted under the request's `what`. Nothing is counted as an error here: the caller
    /// decides (see [`Ctx::fail`]).
    pub(super) async fn request(
        &self,
        target: &mut usize,
        req: Req<'_>,
        mut on_send: impl FnMut(Instant),
    ) -> Result<(Value, Timing), CallError> {
        let body = req.body.map(|b| b.to_string().into_bytes());
        let mut tries = Tries::default();
        loop {
            let e = match self
                .request_once(
                    *target,
                    req.method,
                    req.path,
                    req.auth,
                    body.as_deref(),
                    &mut on_send,
                )
                .await
            {
                Ok(answer) => return Ok(answer),
                Err(e) => e,
            };
            if !e.unavailable() || self.failover.is_none() {
                return Err(match e {
                    CallError::Status {
                        status,
                        code,
                        retry_after,
                        ..
                    } => CallError::Status {
                        status,
                        code,
                        retry_after,
                        after_failover: tries.switched(),
                    },
                    other => other,
                });
            }
            if !tries
                .switch(self, target, &format!("{}: {}", req.what, e.kind()))
                .await
            {
                return Err(e);
            }
            if req.resend == Resend::IfNotCarriedOut && e.maybe_carried_out() {
                return Err(CallError::Unsure { kind: e.kind() });
            }
        }
    }

    /// Counts a failed request to `target` under `what` and says how long to wait before
    /// making new games on that server.
    pub(super) fn fail(&self, target: usize, what: &str, e: &CallError) -> Duration {
        self.error(format!("{what}: {}", e.kind()));
        if let CallError::Status {
            status: 429, code, ..
        } = e
        {
            if !self.stats.rate_limited.swap(true, RELAXED) {
                eprintln!(
                    "anywoli loadtest: {} refuses new games (429 {code}): start it with --games-per-minute 0",
                    self.targets[target].url
                );
            }
        }
        e.wait()
    }

    /// A request whose failures are errors: `Err` is how long to wait before new games there.
    pub(super) async fn call(
        &self,
        target: &mut usize,
        req: Req<'_>,
    ) -> Result<(Value, Timing), Duration> {
        let what = req.what;
        self.request(target, req, |_| {})
            .await
            .map_err(|e| self.fail(*target, what, &e))
    }
}

/// After a failover, reads the game back from the server now holding it and goes on from its
/// state. A `pending` move found stored joins the game's known moves (stored, but not
/// acknowledged). One not found is only counted as not stored once the game has moved on
/// (see [`settle`]): the failed server's last write can still land in the database after
/// this read, and the next move's `409 stale` then sends the tool to look again. `Err`
/// (counted as an error) when the stored game contradicts what the tool knows, or cannot be
/// read.
pub(super) async fn resync(
    ctx: &Ctx,
    game: &mut LiveGame,
    pending: Option<Pending>,
) -> Result<(), ()> {
    let path = format!("/api/games/{}", game.id);
    let (read, _) = ctx
        .request(&mut game.target, Req::get("read back", &path), |_| {})
        .await
        .map_err(|e| {
            ctx.fail(game.target, "read back", &e);
        })?;
    let stored = move_list(&read);
    let known = &game.known;
    let kept = known
        .iter()
        .zip(&stored)
        .take_while(|(k, s)| k == s)
        .count();
    if kept < known.len() {
        ctx.error(
            "read back: the game another server holds lacks moves this tool knows are stored"
                .to_string(),
        );
        return Err(());
    }
    match (pending, &stored[kept..]) {
        (Some(p), [extra]) if p.mv == *extra => {
            ctx.stats.unknown_found.fetch_add(1, RELAXED);
            game.known.push(p.mv);
        }
        (Some(p), []) if !p.looked => {
            game.unsettled = Some(Pending { looked: true, ..p });
        }
        (Some(p), []) => count_not_stored(ctx, &p),
        (None, []) => {}
        _ => {
            ctx.error(
                "read back: the game another server holds has moves this tool did not make"
                    .to_string(),
            );
            return Err(());
        }
    }
    game.state = read;
    Ok(())
}

/// The game moved on (a move was answered, or the game ended here): a move read back and not
/// found can no longer be stored.
pub(super) fn settle(ctx: &Ctx, game: &mut LiveGame) {
    if let Some(p) = game.unsettled.take() {
        count_not_stored(ctx, &p);
    }
}

fn count_not_stored(ctx: &Ctx, p: &Pending) {
    if p.unknown {
        ctx.stats.unknown_not_stored.fetch_add(1, RELAXED);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn status(status: u16) -> CallError {
        CallError::Status {
            status,
            code: "-".to_string(),
            retry_after: None,
            after_failover: false,
        }
    }

    fn transport(error: HttpError, sent: bool) -> CallError {
        CallError::Transport { error, sent }
    }

    #[test]
    fn no_answer_or_a_proxy_s_502_or_503_sends_a_request_elsewhere() {
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(transport(HttpError::Connect(refused), false).unavailable());
        assert!(transport(HttpError::Closed, true).unavailable());
        assert!(transport(HttpError::Timeout, true).unavailable());
        assert!(status(502).unavailable());
        assert!(status(503).unavailable());
        // The server answered: another one would answer the same.
        for s in [400, 409, 429, 500, 504] {
            assert!(!status(s).unavailable(), "{s}");
        }
    }

    #[test]
    fn only_a_request_that_reached_a_server_may_have_been_carried_out() {
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(!transport(HttpError::Connect(refused), false).maybe_carried_out());
        assert!(transport(HttpError::Closed, true).maybe_carried_out());
        assert!(transport(HttpError::Timeout, true).maybe_carried_out());
        assert!(!transport(HttpError::Timeout, false).maybe_carried_out());
        assert!(status(502).maybe_carried_out());
        assert!(!status(503).maybe_carried_out());
    }

    #[test]
    fn a_stale_answer_is_told_apart_after_a_failover() {
        let stale = |after_failover| CallError::Status {
            status: 409,
            code: "stale".to_string(),
            retry_after: None,
            after_failover,
        };
        assert!(stale(false).is_stale() && !stale(false).is_stale_after_failover());
        assert!(stale(true).is_stale_after_failover());
        assert!(!status(409).is_stale());
    }

    #[test]
    fn an_error_is_clear_with_a_code_and_a_message() {
        assert!(has_message(
            &json!({"error": "storage", "message": "the database is read-only"})
        ));
        assert!(!has_message(&json!({"error": "storage"})));
        assert!(!has_message(&json!({"error": "storage", "message": ""})));
        assert!(!has_message(&Value::Null));
    }
}
