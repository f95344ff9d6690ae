//! The page: plain HTML, JavaScript modules, CSS and SVG, built into the binary so that the
//! one `anywoli` file is the whole app (no build step, nothing to install beside it).

use crate::error::ErrorCode;
use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

/// Name, content type, bytes.
const FILES: &[(&str, &str, &str)] = &[
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/app.js"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/board.js"),
    ),
    (
        "i18n.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/i18n.js"),
    ),
    (
        "api.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/api.js"),
    ),
    (
        "puzzle.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/puzzle.js"),
    ),
    (
        "rules.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/rules.js"),
    ),
    (
        "prefs.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/prefs.js"),
    ),
    (
        "clock.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/clock.js"),
    ),
    (
        "account.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/account.js"),
    ),
    (
        "profile.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/profile.js"),
    ),
    (
        "archive.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/archive.js"),
    ),
    (
        "lobby.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/lobby.js"),
    ),
    (
        "theme.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/theme.js"),
    ),
    (
        "analysis.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/analysis.js"),
    ),
    (
        "tree.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/tree.js"),
    ),
    (
        "socket.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/socket.js"),
    ),
    (
        "engine.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/engine.js"),
    ),
    (
        "review.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/review.js"),
    ),
    (
        "editor.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/editor.js"),
    ),
    (
        "composer.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/composer.js"),
    ),
    (
        "community.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/community.js"),
    ),
    (
        "learn.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/learn.js"),
    ),
    (
        "why.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/why.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../web/style.css"),
    ),
    ("icon.svg", "image/svg+xml", include_str!("../web/icon.svg")),
];

pub const INDEX: &str = include_str!("../web/index.html");

/// Headers every page response carries: the page loads nothing from elsewhere, and is not to
/// be framed by other sites.
fn page_headers(content_type: &'static str) -> [(header::HeaderName, &'static str); 4] {
    [
        (header::CONTENT_TYPE, content_type),
        (header::CACHE_CONTROL, "no-cache"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; img-src 'self' data: blob:; connect-src 'self'; frame-ancestors 'none'",
        ),
    ]
}

pub async fn index() -> Response {
    (page_headers("text/html; charset=utf-8"), INDEX).into_response()
}

/// Any other address a person might type or mistype (`/g/abc/`, `/games`): the page, with a
/// 404 status, so that the reader sees the page's own "no such page/game" view instead of raw
/// JSON. Programs get a JSON error for anything but GET.
pub async fn page_not_found(method: axum::http::Method) -> Response {
    if method == axum::http::Method::GET || method == axum::http::Method::HEAD {
        (
            StatusCode::NOT_FOUND,
            page_headers("text/html; charset=utf-8"),
            INDEX,
        )
            .into_response()
    } else {
        crate::api::not_found().await.into_response()
    }
}

/// A game's page; an address that cannot be a game's gets the page with a 404 status (the page
/// then shows its "no such game" view), so that a mistyped link is told apart by programs too.
pub async fn game_page(Path(id): Path<String>) -> Response {
    if crate::ids::valid_id(&id) {
        index().await
    } else {
        page_not_found(axum::http::Method::GET).await
    }
}

pub async fn asset(Path(name): Path<String>) -> Response {
    match FILES.iter().find(|f| f.0 == name) {
        Some(&(_, ty, body)) => (page_headers(ty), body).into_response(),
        None => crate::error::ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::NotFound,
            "there is no such file of the page",
        )
        .into_response(),
    }
}
