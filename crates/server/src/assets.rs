//! The page: plain HTML, JavaScript modules, CSS and SVG, built into the binary so that the
//! one `anywoli` file is the whole app (no build step, nothing to install beside it).

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::OnceLock;

use crate::error::ErrorCode;
use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

/// The content type of the page's scripts.
const JS: &str = "text/javascript; charset=utf-8";
/// The content type of the page's texts, one file per language (web/i18n/<lang>.json).
const JSON: &str = "application/json; charset=utf-8";

/// A file of web/ by its path there, which is also its name under /assets/.
macro_rules! page_file {
    ($name:literal, $ty:expr) => {
        ($name, $ty, include_str!(concat!("../web/", $name)))
    };
}

/// Name, content type, bytes.
const FILES: &[(&str, &str, &str)] = &[
    page_file!("common.js", JS),
    page_file!("app.js", JS),
    page_file!("board.js", JS),
    page_file!("i18n.js", JS),
    page_file!("i18n/en.json", JSON),
    page_file!("i18n/tl.json", JSON),
    page_file!("i18n/cs.json", JSON),
    page_file!("i18n/nl.json", JSON),
    page_file!("i18n/hi.json", JSON),
    page_file!("i18n/it.json", JSON),
    page_file!("api.js", JS),
    page_file!("puzzle.js", JS),
    page_file!("rules.js", JS),
    page_file!("prefs.js", JS),
    page_file!("clock.js", JS),
    page_file!("account.js", JS),
    page_file!("profile.js", JS),
    page_file!("archive.js", JS),
    page_file!("theme.js", JS),
    page_file!("tree.js", JS),
    page_file!("socket.js", JS),
    page_file!("engine.js", JS),
    page_file!("review.js", JS),
    page_file!("editor.js", JS),
    page_file!("composer.js", JS),
    page_file!("community.js", JS),
    page_file!("learn.js", JS),
    page_file!("why.js", JS),
    page_file!("lib/dom.js", JS),
    page_file!("lib/h.js", JS),
    page_file!("lib/names.js", JS),
    page_file!("lib/nav.js", JS),
    page_file!("lib/position.js", JS),
    page_file!("lib/speed.js", JS),
    page_file!("pages/analysis/display.js", JS),
    page_file!("pages/analysis/explorer.js", JS),
    page_file!("pages/analysis/layout.js", JS),
    page_file!("pages/analysis/moves.js", JS),
    page_file!("pages/analysis/record.js", JS),
    page_file!("pages/analysis/view.js", JS),
    page_file!("pages/analysis/wire.js", JS),
    page_file!("pages/game/actions.js", JS),
    page_file!("pages/game/chat.js", JS),
    page_file!("pages/game/display.js", JS),
    page_file!("pages/game/history.js", JS),
    page_file!("pages/game/invite.js", JS),
    page_file!("pages/game/layout.js", JS),
    page_file!("pages/game/seats.js", JS),
    page_file!("pages/game/tournament.js", JS),
    page_file!("pages/game/view.js", JS),
    page_file!("pages/lobby/challenges.js", JS),
    page_file!("pages/lobby/connection.js", JS),
    page_file!("pages/lobby/layout.js", JS),
    page_file!("pages/lobby/terms.js", JS),
    page_file!("pages/lobby/wait.js", JS),
    page_file!("pages/lobby/view.js", JS),
    page_file!("pages/missing.js", JS),
    page_file!("pages/new-game.js", JS),
    page_file!("pages/community/follow.js", JS),
    page_file!("pages/community/leaders.js", JS),
    page_file!("pages/community/tv.js", JS),
    page_file!("pages/tournaments/list.js", JS),
    page_file!("pages/tournaments/live.js", JS),
    page_file!("pages/tournaments/chat.js", JS),
    page_file!("pages/tournaments/tables.js", JS),
    page_file!("pages/tournaments/terms.js", JS),
    page_file!("pages/tournaments/view.js", JS),
    page_file!("pages/reset.js", JS),
    page_file!("pages/care.js", JS),
    page_file!("pages/tokens.js", JS),
    page_file!("pages/mod.js", JS),
    page_file!("pages/report.js", JS),
    page_file!("style.css", "text/css; charset=utf-8"),
    page_file!("icon.svg", "image/svg+xml"),
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

/// A file of the page as it is sent: its validator and its gzipped bytes, made once.
struct Prepared {
    /// A strong `ETag`: the file's hash, so a browser that has it asks with `If-None-Match`
    /// and gets a `304` without the body (issue 37: 560 KB sent again on every page load).
    etag: HeaderValue,
    gzip: Vec<u8>,
}

/// Every file of the page and `index.html`, prepared at the first request.
fn prepared(name: &str) -> Option<&'static Prepared> {
    static ALL: OnceLock<HashMap<&'static str, Prepared>> = OnceLock::new();
    ALL.get_or_init(|| {
        FILES
            .iter()
            .map(|&(n, _, body)| (n, body))
            .chain([("index.html", INDEX)])
            .map(|(n, body)| {
                let hash = Sha256::digest(body.as_bytes());
                let hex: String = hash[..12].iter().map(|b| format!("{b:02x}")).collect();
                let etag = HeaderValue::from_str(&format!("\"{hex}\""))
                    .expect("a hex ETag is a valid header value");
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
                // Writing to a Vec cannot fail.
                let _ = gz.write_all(body.as_bytes());
                let gzip = gz.finish().unwrap_or_default();
                (n, Prepared { etag, gzip })
            })
            .collect()
    })
    .get(name)
}

/// Whether `Accept-Encoding` takes gzip (and does not refuse it with `q=0`).
fn takes_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let mut parts = item.split(';').map(str::trim);
            let coding = parts.next().unwrap_or("");
            let refused = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !refused
        })
}

/// File `name` (`body`, of type `ty`) answered with `status`: `304` when the browser's copy is
/// this one, gzipped when the browser takes it.
fn send(
    headers: &HeaderMap,
    status: StatusCode,
    name: &str,
    ty: &'static str,
    body: &'static str,
) -> Response {
    let Some(p) = prepared(name) else {
        return (status, page_headers(ty), body).into_response();
    };
    let fresh = status == StatusCode::OK
        && headers
            .get_all(header::IF_NONE_MATCH)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|t| t.trim() == p.etag.to_str().unwrap_or("") || t.trim() == "*");
    let mut resp = if fresh {
        (StatusCode::NOT_MODIFIED, page_headers(ty)).into_response()
    } else if takes_gzip(headers) {
        let mut r = (status, page_headers(ty), p.gzip.clone()).into_response();
        r.headers_mut()
            .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        r
    } else {
        (status, page_headers(ty), body).into_response()
    };
    let h = resp.headers_mut();
    h.insert(header::ETAG, p.etag.clone());
    h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    resp
}

pub async fn index(headers: HeaderMap) -> Response {
    send(
        &headers,
        StatusCode::OK,
        "index.html",
        "text/html; charset=utf-8",
        INDEX,
    )
}

/// Any other address a person might type or mistype (`/g/abc/`, `/games`): the page, with a
/// 404 status, so that the reader sees the page's own "no such page/game" view instead of raw
/// JSON. Programs get a JSON error for anything but GET.
pub async fn page_not_found(method: axum::http::Method, headers: HeaderMap) -> Response {
    if method == axum::http::Method::GET || method == axum::http::Method::HEAD {
        send(
            &headers,
            StatusCode::NOT_FOUND,
            "index.html",
            "text/html; charset=utf-8",
            INDEX,
        )
    } else {
        crate::api::not_found().await.into_response()
    }
}

/// A game's page; an address that cannot be a game's gets the page with a 404 status (the page
/// then shows its "no such game" view), so that a mistyped link is told apart by programs too.
pub async fn game_page(Path(id): Path<String>, headers: HeaderMap) -> Response {
    if crate::ids::valid_id(&id) {
        index(headers).await
    } else {
        page_not_found(axum::http::Method::GET, headers).await
    }
}

pub async fn asset(Path(name): Path<String>, headers: HeaderMap) -> Response {
    match FILES.iter().find(|f| f.0 == name) {
        Some(&(name, ty, body)) => send(&headers, StatusCode::OK, name, ty, body),
        None => crate::error::ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::NotFound,
            "there is no such file of the page",
        )
        .into_response(),
    }
}

/// The routes of the page (each of its addresses answers the page) and of its files.
pub fn router<S: Clone + Send + Sync + 'static>() -> axum::Router<S> {
    use axum::routing::get;
    axum::Router::new()
        .route("/", get(index))
        .route("/new", get(index))
        .route("/archive", get(index))
        .route("/rules", get(index))
        .route("/puzzles", get(index))
        .route("/puzzles/{id}", get(index))
        .route("/puzzles/community", get(index))
        .route("/learn", get(index))
        .route("/learn/{id}", get(index))
        .route("/puzzles/next", get(index))
        .route("/puzzles/community/{id}", get(game_page))
        .route("/editor", get(index))
        .route("/lobby", get(index))
        .route("/tv", get(index))
        .route("/tournaments", get(index))
        .route("/t/{id}", get(index))
        .route("/leaderboards", get(index))
        .route("/following", get(index))
        .route("/account", get(index))
        .route("/reset/{token}", get(index))
        .route("/mod", get(index))
        .route("/@/{name}", get(index))
        .route("/g/{id}", get(game_page))
        .route("/analysis", get(index))
        .route("/analysis/{id}", get(game_page))
        .route("/assets/{*name}", get(asset))
}
