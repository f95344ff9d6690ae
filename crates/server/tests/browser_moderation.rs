// Moderators and account care in a real browser (issue 38): a reset link made as `anywoli
// admin reset-link` makes it opens the reset view, sets a new password once, and says so in
// the player's language when it is used again.

use crate::support;

use anywoli_server::account::reset::{new_reset_token, reset_link};
use anywoli_server::dates::now_ms;
use anywoli_server::store::{Act, Moderate, ADMIN_CLI};
use anywoli_server::Store;
use fantoccini::{Client, Locator};
use serde_json::json;
use support::*;

async fn type_into(c: &Client, css: &str, text: &str) {
    let field = c.find(Locator::Css(css)).await.unwrap();
    field.clear().await.unwrap();
    field.send_keys(text).await.unwrap();
}

/// Opens `url` in English and sends the reset form with `password`.
async fn reset_in_page(c: &Client, url: &str, password: &str) {
    c.goto(url).await.unwrap();
    js(c, "localStorage.setItem('anywoli.lang', 'en'); return 1").await;
    c.refresh().await.unwrap();
    wait_for(
        c,
        "document.body.dataset.view === 'reset' && document.querySelector('#reset-form')",
        "the reset form",
    )
    .await;
    type_into(c, "#reset-password", password).await;
    type_into(c, "#reset-repeat", password).await;
    click(c, "#reset-form button[type=submit]").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn a_reset_link_works_once_in_the_page() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let db = sqlite_db("moderation-reset");
    let server = serve_on("127.0.0.1", None, db.clone()).await;
    let base = format!("http://{}", server.addr);
    let signup = json!({"name": "Abula", "password": "forgotten-one"});
    assert_eq!(
        http_json(&server, "POST", "/api/account/signup", Some(signup))
            .await
            .0,
        201
    );

    // What `anywoli admin reset-link` does, on the running server's database.
    let store = Store::open_db(&db).unwrap();
    let (token, hash) = new_reset_token();
    let m = Moderate {
        act: Act::ResetLink { hash },
        moderator: ADMIN_CLI.into(),
        target: "Abula".into(),
        reason: String::new(),
        detail: json!({}),
        at: now_ms(),
    };
    assert!(store.moderate(m).unwrap());
    let url = reset_link(&base, &token);

    let c = browser(&driver, "reset", &[]).await;
    reset_in_page(&c, &url, "remembered-now").await;
    wait_for(
        &c,
        "!!document.querySelector('main .success')",
        "the new password set",
    )
    .await;
    assert!(text_of(&c, "main .success").await.contains("Abula"));
    let login = json!({"name": "Abula", "password": "remembered-now"});
    assert_eq!(
        http_json(&server, "POST", "/api/account/login", Some(login))
            .await
            .0,
        200
    );

    reset_in_page(&c, &url, "a-second-try").await;
    let refused = texts_of("en")["err_reset_link_invalid"]
        .as_str()
        .unwrap()
        .to_string();
    wait_for(
        &c,
        &format!("document.querySelector('#reset-error').textContent === {refused:?}"),
        "the refusal",
    )
    .await;
    let login = json!({"name": "Abula", "password": "a-second-try"});
    assert_eq!(
        http_json(&server, "POST", "/api/account/login", Some(login))
            .await
            .0,
        401
    );

    let _ = c.close().await;
    server.stop().await;
}
