//! What the API tests share: a router on a store with a quick engine, and requests sent
//! through it in process (no socket), answered as status and text or JSON.
#![allow(dead_code)]

use std::time::Duration;

use anywoli_server::{app, AppState, Store, Think};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

/// The engine the API tests play against: 200 ms a move, a 1 MiB table.
pub fn think() -> Think {
    Think {
        movetime: Duration::from_millis(200),
        hash_mib: 1,
    }
}

pub fn router_on(store: Store) -> Router {
    app(AppState::new(store, think()))
}

/// One request with any content type (`None`: no header) and body, answered as text.
pub async fn send(
    app: &Router,
    method: &str,
    uri: &str,
    content_type: Option<&str>,
    body: Option<String>,
) -> (StatusCode, String) {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(t) = content_type {
        req = req.header("content-type", t);
    }
    let req = req.body(body.map_or(Body::empty(), Body::from)).unwrap();
    let resp = app.clone().oneshot(req).await.unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(bytes.to_vec()).unwrap())
}

/// The answer as JSON; a panic that shows the text when it is not.
pub fn json((status, text): (StatusCode, String)) -> (StatusCode, Value) {
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    (status, v)
}

/// A JSON request whose body is sent as written (malformed or oversized on purpose).
pub async fn call_text(
    app: &Router,
    method: &str,
    uri: &str,
    body: Option<String>,
) -> (StatusCode, String) {
    send(app, method, uri, Some("application/json"), body).await
}

pub async fn call_raw(
    app: &Router,
    method: &str,
    uri: &str,
    body: Option<String>,
) -> (StatusCode, Value) {
    json(call_text(app, method, uri, body).await)
}

pub async fn call(
    app: &Router,
    method: &str,
    uri: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    call_raw(app, method, uri, body.map(|b| b.to_string())).await
}

pub async fn post(app: &Router, uri: &str, body: Value) -> (StatusCode, Value) {
    call(app, "POST", uri, Some(body)).await
}

pub async fn get(app: &Router, uri: &str) -> (StatusCode, Value) {
    call(app, "GET", uri, None).await
}
