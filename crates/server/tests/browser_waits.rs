// The wait before the next game in a real browser (issue 38): a player who left a game sees
// the wait and the time left above the lobby's seeks and on the new-game form, in English; a
// moderator finds the offence and the wait in the player's dossier on /mod, lifts it with the
// Lift button, and the log shows the lift; the player's lobby then says nothing of a wait.

use crate::support;

use anywoli_server::dates::now_ms;
use anywoli_server::store::{OffenceKind, OffenceRow};
use anywoli_server::Store;
use fantoccini::Client;
use serde_json::json;
use support::*;

const PW: &str = "long-enough-pw";

/// Logs `c` in as `name` (the page's own request, as its login form sends it) in English.
async fn log_in(c: &Client, base: &str, name: &str) {
    c.goto(&format!("{base}/")).await.unwrap();
    let script = format!(
        "localStorage.setItem('anywoli.lang', 'en'); window.__in = 0;
         fetch('/api/account/login', {{method: 'POST', headers: {{'content-type': 'application/json'}},
           body: JSON.stringify({{name: {name:?}, password: {PW:?}}})}}).then((r) => {{ window.__in = r.status; }});
         return 1"
    );
    js(c, &script).await;
    wait_for(c, "window.__in === 200", "logged in").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn the_lobby_shows_the_wait_and_a_moderator_lifts_it_on_the_mod_page() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let db = sqlite_db("waits-page");
    let server = serve_on("127.0.0.1", None, db.clone()).await;
    let base = format!("http://{}", server.addr);
    for name in ["Lea", "Modo"] {
        let body = json!({"name": name, "password": PW});
        let (s, v) = http_json(&server, "POST", "/api/account/signup", Some(body)).await;
        assert_eq!(s, 201, "{v}");
    }
    // What a claim against Lea records, and `anywoli admin grant-moderator Modo`.
    let store = Store::open_db(&db).unwrap();
    let left = OffenceRow {
        game: "abcdefghijkm".into(),
        account: "Lea".into(),
        kind: OffenceKind::Left,
        at: now_ms(),
    };
    assert!(store.record_offence(left).unwrap());
    grant_moderator(&store, "Modo");

    let lea = browser(&driver, "waiting", &[]).await;
    log_in(&lea, &base, "Lea").await;
    lea.goto(&format!("{base}/lobby")).await.unwrap();
    wait_for(
        &lea,
        "!!document.querySelector('#play-wait:not([hidden]) strong')",
        "the wait shown",
    )
    .await;
    let shown = text_of(&lea, "#play-wait").await;
    let title = texts_of("en")["wait_title"].as_str().unwrap().to_string();
    assert!(shown.starts_with(&title), "{shown}");
    assert!(shown.contains("10 min"), "ten minutes left: {shown}");
    // And on the new-game form, where a friend's game would be refused.
    lea.goto(&format!("{base}/")).await.unwrap();
    wait_for(
        &lea,
        "document.body.dataset.view === 'new' && !!document.querySelector('#play-wait:not([hidden]) strong')",
        "the wait on the new-game form",
    )
    .await;

    let modo = browser(&driver, "lifting", &[]).await;
    log_in(&modo, &base, "Modo").await;
    modo.goto(&format!("{base}/mod")).await.unwrap();
    wait_for(
        &modo,
        "!!document.querySelector('#mod-lookup')",
        "the lookup",
    )
    .await;
    js(
        &modo,
        "document.querySelector('#mod-name').value = 'Lea';
         document.querySelector('#mod-lookup button').click(); return 1",
    )
    .await;
    wait_for(
        &modo,
        "!!document.querySelector('.mod-offences li[data-kind=left]') && !!document.querySelector('.mod-wait button[data-action=lift-wait]')",
        "the offence and the wait in the dossier",
    )
    .await;
    js(
        &modo,
        "document.querySelector('#mod-reason').value = 'the server restarted';
         document.querySelector('.mod-wait button').click(); return 1",
    )
    .await;
    wait_for(
        &modo,
        "!document.querySelector('.mod-wait') && !!document.querySelector('#mod-log li[data-action=lift_wait]')",
        "the wait lifted and the lift in the log",
    )
    .await;
    assert!(text_of(&modo, "#mod-log li[data-action=lift_wait]")
        .await
        .contains("the server restarted"));

    lea.goto(&format!("{base}/lobby")).await.unwrap();
    wait_for(
        &lea,
        "document.body.dataset.view === 'lobby' && !!document.querySelector('#seek-form')",
        "the lobby again",
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(
        js(&lea, "return document.querySelector('#play-wait').hidden").await,
        json!(true)
    );
    let _ = lea.close().await;
    let _ = modo.close().await;
    server.stop().await;
}
