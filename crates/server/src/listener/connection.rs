//! One connection served by hyper under its clock's watch, and each of its requests: a
//! smuggling-shaped head refused, the body's time bounded, 408 when it did not arrive.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{header, HeaderValue, Request, Response, StatusCode};
use axum::response::IntoResponse;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::Instant;
use tower_service::Service;

use super::body::{InFlight, TimedBody, TrackedBody};
use super::clock::Clock;
use super::gate::Slot;
use super::limits::{Limits, MAX_HEAD_BYTES};
use super::socket::Socket;
use crate::error::{ApiError, ErrorCode};

/// Serves one connection until it closes, is upgraded, or a deadline passes.
pub(super) async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    slot: Slot,
    router: Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
    _done: watch::Receiver<()>,
) {
    let clock = Arc::new(Clock::new());
    let io = TokioIo::new(Socket {
        stream,
        clock: clock.clone(),
        _slot: slot,
    });
    let service = {
        let clock = clock.clone();
        hyper::service::service_fn(move |req| {
            handle(
                req,
                router.clone(),
                clock.clone(),
                peer,
                limits.request_timeout,
            )
        })
    };
    let mut builder = http1::Builder::new();
    // The clock above times heads; hyper's own header timer would also run while the
    // connection waits for a request, that is count idle time against the head.
    builder
        .header_read_timeout(None)
        .max_header_size(MAX_HEAD_BYTES)
        .keep_alive(true);
    let conn = builder.serve_connection(io, service).with_upgrades();
    tokio::pin!(conn);
    let mut stopping = false;
    loop {
        let deadline = clock.deadline(&limits);
        tokio::select! {
            r = conn.as_mut() => {
                if let Err(e) = r {
                    tracing::debug!("connection from {peer}: {e}");
                }
                return;
            }
            _ = stop.changed(), if !stopping => {
                stopping = true;
                clock.stop();
                conn.as_mut().graceful_shutdown();
            }
            _ = clock.wake.notified() => {}
            _ = sleep_until(deadline) => {
                if clock.deadline(&limits).is_some_and(|d| d <= Instant::now()) {
                    tracing::debug!("connection from {peer}: closed, a timeout passed");
                    return;
                }
            }
        }
    }
}

pub(super) async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// One request: refuses a smuggling-shaped head, bounds the body's time, and answers 408 when
/// the body did not arrive in time.
pub(super) async fn handle(
    req: Request<Incoming>,
    mut router: Router,
    clock: Arc<Clock>,
    peer: SocketAddr,
    request_timeout: Duration,
) -> Result<Response<TrackedBody>, Infallible> {
    let had_content_length = clock.request_started();
    let in_flight = InFlight(clock.clone());
    if had_content_length && req.headers().contains_key(header::TRANSFER_ENCODING) {
        let resp = closing(ApiError::malformed(
            "a request may not have both Content-Length and Transfer-Encoding",
        ));
        return Ok(resp.map(|b| TrackedBody::new(b, in_flight)));
    }
    let timed_out = Arc::new(AtomicBool::new(false));
    let (mut parts, body) = req.into_parts();
    parts.extensions.insert(ConnectInfo(peer));
    let body = TimedBody {
        inner: body,
        deadline: Box::pin(tokio::time::sleep(request_timeout)),
        timed_out: timed_out.clone(),
    };
    let resp = match router
        .call(Request::from_parts(parts, Body::new(body)))
        .await
    {
        Ok(r) => r,
        Err(never) => match never {},
    };
    let resp = if timed_out.load(Ordering::Relaxed) {
        closing(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            ErrorCode::Timeout,
            format!(
                "the request's body did not arrive within {} s",
                request_timeout.as_secs_f64()
            ),
        ))
    } else {
        resp
    };
    if resp.status() == StatusCode::SWITCHING_PROTOCOLS {
        clock.upgraded.store(true, Ordering::Relaxed);
    }
    Ok(resp.map(|b| TrackedBody::new(b, in_flight)))
}

/// An error answer after which the connection closes.
pub(super) fn closing(e: ApiError) -> Response<Body> {
    let mut resp = e.into_response();
    resp.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    resp
}
