//! The bodies around a request: the response's, which holds its request in flight until it
//! is sent, and the request's, which fails once its time is up.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::BoxError;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use tokio::time::Sleep;

use super::clock::Clock;

/// Counts a request as in flight until its response has been sent whole (or given up).
pub(super) struct InFlight(pub(super) Arc<Clock>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_finished();
    }
}

/// A response body that holds its request's [`InFlight`] until hyper is done with it.
pub(super) struct TrackedBody {
    inner: Body,
    _in_flight: InFlight,
}

impl TrackedBody {
    pub(super) fn new(inner: Body, in_flight: InFlight) -> TrackedBody {
        TrackedBody {
            inner,
            _in_flight: in_flight,
        }
    }
}

impl http_body::Body for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A request body that fails once `deadline` passes before its end.
pub(super) struct TimedBody {
    pub(super) inner: Incoming,
    pub(super) deadline: Pin<Box<Sleep>>,
    pub(super) timed_out: Arc<AtomicBool>,
}

impl http_body::Body for TimedBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => Poll::Ready(frame.map(|f| f.map_err(BoxError::from))),
            Poll::Pending => {
                if this.deadline.as_mut().poll(cx).is_ready() {
                    this.timed_out.store(true, Ordering::Relaxed);
                    Poll::Ready(Some(Err("the request body did not arrive in time".into())))
                } else {
                    Poll::Pending
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
