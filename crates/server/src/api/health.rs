//! Operations over HTTP (issue 11): `GET /healthz` for a load balancer, `GET /metrics` for
//! Prometheus (the counters are [`crate::metrics`]), and the middleware that times every
//! request.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use crate::app::AppState;
use crate::metrics::Metrics;

/// How long `/healthz` waits for the database before it answers 503.
pub const HEALTH_TIMEOUT: Duration = Duration::from_secs(1);

/// The `Content-Type` of `/metrics`.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The middleware that times every request the router answers.
pub async fn track(State(metrics): State<Arc<Metrics>>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let route = route_label(req.extensions().get::<MatchedPath>()).to_string();
    let resp = next.run(req).await;
    metrics.request_done(&method, route, resp.status(), started.elapsed());
    resp
}

/// `GET /metrics`.
pub async fn metrics(State(state): State<AppState>) -> Response {
    let text = state
        .metrics()
        .render(state.games_in_memory(), state.engine());
    let mut resp = text.into_response();
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// Why `/healthz` says 503 (besides a database too slow to answer).
#[derive(Debug, thiserror::Error)]
enum Unhealthy {
    #[error("the database failed: {0}")]
    Database(#[from] crate::store::StoreError),
    /// The blocking task that read the database stopped (it panicked).
    #[error("the database check failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// `GET /healthz`: 200 when the database answers a read within [`HEALTH_TIMEOUT`], else 503.
pub async fn healthz(State(state): State<AppState>) -> Response {
    let store = state.store().clone();
    let read = async move {
        tokio::task::spawn_blocking(move || store.recent(1)).await??;
        Ok::<(), Unhealthy>(())
    };
    health(read, HEALTH_TIMEOUT).await
}

/// The answer of `/healthz` to `check`, given `within` to finish.
async fn health<E: std::fmt::Display>(
    check: impl Future<Output = Result<(), E>>,
    within: Duration,
) -> Response {
    let (status, body) = match tokio::time::timeout(within, check).await {
        Ok(Ok(())) => (StatusCode::OK, json!({"status": "ok"})),
        Ok(Err(e)) => {
            tracing::warn!("health check: {e}");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                json!({"status": "unavailable", "error": e.to_string()}),
            )
        }
        Err(_) => {
            let e = format!(
                "the database did not answer within {} s",
                within.as_secs_f64()
            );
            tracing::warn!("health check: {e}");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                json!({"status": "unavailable", "error": e}),
            )
        }
    };
    let mut resp = (status, Json(body)).into_response();
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// A matched route's template, or `other`: no route matched, or only a fallback's catch-all.
fn route_label(matched: Option<&MatchedPath>) -> &str {
    match matched {
        Some(p) if !p.as_str().contains("__private__") => p.as_str(),
        _ => "other",
    }
}

/// The routes of operations: health for a load balancer, counters for Prometheus (at the root).
pub fn router() -> axum::Router<AppState> {
    use axum::routing::get;
    axum::Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    async fn answer(r: Response) -> (StatusCode, serde_json::Value) {
        let status = r.status();
        let bytes = r.into_body().collect().await.unwrap().to_bytes();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn health_is_503_when_the_check_fails_or_is_too_slow() {
        let ok = answer(health(async { Ok::<(), String>(()) }, HEALTH_TIMEOUT).await).await;
        assert_eq!(ok, (StatusCode::OK, json!({"status": "ok"})));

        let (s, v) =
            answer(health(async { Err("disk I/O error".to_string()) }, HEALTH_TIMEOUT).await).await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            v,
            json!({"status": "unavailable", "error": "disk I/O error"})
        );

        let slow = std::future::pending::<Result<(), String>>();
        let (s, v) = answer(health(slow, Duration::from_millis(20)).await).await;
        assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(v["status"], "unavailable");
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("did not answer within 0.02 s"),
            "{v}"
        );
    }

    #[test]
    fn a_route_is_its_template_or_other() {
        assert_eq!(route_label(None), "other");
    }
}
