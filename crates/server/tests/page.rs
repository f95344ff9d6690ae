//! The page's files as a browser gets them (issue 37: 560 KB were sent whole on every load):
//! gzipped when the browser takes it, with a strong `ETag`, and `304` without a body when the
//! browser already has that very file.

use std::io::Read as _;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;

use crate::oneshot;

async fn fetch(
    path: &str,
    headers: &[(&str, &str)],
) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let app = oneshot::router_on(anywoli_server::Store::in_memory().unwrap());
    let mut req = Request::builder().uri(path);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = app.oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
    let (status, h) = (resp.status(), resp.headers().clone());
    let bytes = resp
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec();
    (status, h, bytes)
}

#[tokio::test]
async fn files_are_gzipped_validated_and_not_sent_twice() {
    for path in [
        "/assets/i18n.js",
        "/assets/i18n/hi.json",
        "/assets/app.js",
        "/assets/style.css",
        "/",
    ] {
        let (s, plain_h, plain) = fetch(path, &[]).await;
        assert_eq!(s, StatusCode::OK, "{path}");
        assert!(plain_h.get(header::CONTENT_ENCODING).is_none(), "{path}");
        let etag = plain_h[header::ETAG].to_str().unwrap().to_string();
        assert!(etag.starts_with('"') && etag.len() == 26, "{path}: {etag}");
        assert_eq!(plain_h[header::VARY], "Accept-Encoding");

        let (s, h, gz) = fetch(path, &[("accept-encoding", "br, gzip;q=0.8, deflate")]).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(h[header::CONTENT_ENCODING], "gzip", "{path}");
        assert_eq!(
            h[header::ETAG].to_str().unwrap(),
            etag,
            "one file, one validator"
        );
        let mut unzipped = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut unzipped)
            .unwrap();
        assert_eq!(unzipped, plain, "{path}: the same bytes");
        assert!(
            gz.len() * 2 < plain.len(),
            "{path}: {} of {} bytes",
            gz.len(),
            plain.len()
        );

        // Refused with q=0: sent plain.
        let (_, h, body) = fetch(path, &[("accept-encoding", "gzip;q=0")]).await;
        assert!(h.get(header::CONTENT_ENCODING).is_none());
        assert_eq!(body, plain);

        // The browser's copy is this one: 304, no body; another one: the file.
        let (s, h, body) = fetch(path, &[("if-none-match", &etag)]).await;
        assert_eq!(s, StatusCode::NOT_MODIFIED, "{path}");
        assert!(body.is_empty());
        assert_eq!(h[header::ETAG].to_str().unwrap(), etag);
        let (s, _, body) = fetch(path, &[("if-none-match", "\"0123\"")]).await;
        assert_eq!((s, body.len()), (StatusCode::OK, plain.len()));
    }
    // A mistyped address is the page with 404, never a 304.
    let (_, h, _) = fetch("/", &[]).await;
    let etag = h[header::ETAG].to_str().unwrap().to_string();
    let (s, _, body) = fetch("/games", &[("if-none-match", &etag)]).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(!body.is_empty());
}

/// The quoted items of the one-line list a page module declares with `decl`.
fn quoted_list<'a>(js: &'a str, decl: &str) -> Vec<&'a str> {
    let line = js
        .lines()
        .find(|l| l.starts_with(decl))
        .unwrap_or_else(|| panic!("no line {decl}"));
    line.split('\'').skip(1).step_by(2).collect()
}

#[test]
fn the_page_knows_the_variants_the_rules_engine_plays() {
    // The page's one list (web/common.js; issue 37: it was written in four files).
    let page = quoted_list(
        include_str!("../web/common.js"),
        "export const VARIANTS = [",
    );
    let core: Vec<&str> = anywoli_core::VARIANTS.iter().map(|v| v.0).collect();
    assert_eq!(page, core);
}

#[tokio::test]
async fn every_language_is_one_file_of_the_page() {
    // The loader's list (web/i18n.js) names the files the tests read, and each is served.
    let page = quoted_list(include_str!("../web/i18n.js"), "export const LANGS = [");
    assert_eq!(page, crate::support::LANGS);
    for lang in page {
        let (s, h, body) = fetch(&format!("/assets/i18n/{lang}.json"), &[]).await;
        assert_eq!(s, StatusCode::OK, "{lang}");
        assert_eq!(h[header::CONTENT_TYPE], "application/json; charset=utf-8");
        let texts: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            texts.as_object().map(|m| m.len()),
            Some(crate::support::texts_of(lang).len()),
            "{lang}"
        );
    }
    // Files only by their exact names: no way out of web/.
    for path in [
        "/assets/i18n/xx.json",
        "/assets/i18n/../app.js",
        "/assets/i18n",
    ] {
        let (s, _, _) = fetch(path, &[]).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{path}");
    }
}

#[tokio::test]
async fn every_file_of_web_is_served() {
    // A module added to web/ but not to assets.rs's FILES would fail only in a browser.
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                files(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let mut all = Vec::new();
    files(&web, &mut all);
    assert!(all.len() > 40, "{all:?}");
    for p in all {
        let name = p
            .strip_prefix(&web)
            .unwrap()
            .to_str()
            .unwrap()
            .replace('\\', "/");
        if name == "index.html" {
            continue;
        }
        let (s, _, body) = fetch(&format!("/assets/{name}"), &[]).await;
        assert_eq!(s, StatusCode::OK, "{name} is not in assets.rs's FILES");
        assert_eq!(body, std::fs::read(&p).unwrap(), "{name}");
    }
}
