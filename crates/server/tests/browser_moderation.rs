// Moderators and account care in a real browser (issue 38): a reset link made as `anywoli
// admin reset-link` makes it opens the reset view, sets a new password once, and says so in
// the player's language when it is used again; a report reaches the moderator's queue page
// with its evidence, and the moderator's warning lands in the log view.

use crate::support;

use anywoli_server::account::reset::{new_reset_token, reset_link};
use anywoli_server::dates::now_ms;
use anywoli_server::store::{Act, Moderate, ADMIN_CLI};
use anywoli_server::{Server, Store};
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
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

/// A chromedriver and a server on a new SQLite file: (driver, the file, server, its address).
async fn start(name: &str) -> (Driver, std::path::PathBuf, Server, String) {
    let driver = driver();
    let db = sqlite_db(name);
    let server = serve_on("127.0.0.1", None, db.clone()).await;
    let base = format!("http://{}", server.addr);
    (driver, db, server, base)
}

/// What `anywoli admin` does, on the running server's database.
pub(crate) fn as_admin(store: &Store, act: Act, target: &str) {
    let m = Moderate {
        act,
        moderator: ADMIN_CLI.into(),
        target: target.into(),
        reason: String::new(),
        detail: json!({}),
        at: now_ms(),
    };
    assert!(store.moderate(m).unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn a_reset_link_works_once_in_the_page() {
    let _slot = support::browser_slot().await;
    let (driver, db, server, base) = start("moderation-reset").await;
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
    as_admin(&store, Act::ResetLink { hash }, "Abula");
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

/// One request with a cookie and CSRF token: (status, body, the `Set-Cookie` value if any).
async fn raw(
    server: &Server,
    path: &str,
    body: Value,
    who: Option<(&str, &str)>,
) -> (u16, Value, Option<String>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let port = server.addr.port();
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let body = body.to_string();
    let auth = who.map_or(String::new(), |(cookie, csrf)| {
        format!("Cookie: anywoli_session={cookie}\r\nX-CSRF-Token: {csrf}\r\n")
    });
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).await.unwrap();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap();
    let cookie = head
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: anywoli_session="))
        .map(|v| v.split(';').next().unwrap().to_string());
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (
        status,
        serde_json::from_str(rest).unwrap_or(Value::Null),
        cookie,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn a_report_reaches_the_moderators_queue_and_the_action_lands_in_the_log() {
    let _slot = support::browser_slot().await;
    let (driver, db, server, base) = start("moderation-queue").await;
    let pw = "long-enough-pw";
    let (s, v, cookie) = raw(
        &server,
        "/api/account/signup",
        json!({"name": "Abula", "password": pw}),
        None,
    )
    .await;
    assert_eq!(s, 201, "{v}");
    let (cookie, csrf) = (
        cookie.unwrap(),
        v["account"]["csrf"].as_str().unwrap().to_string(),
    );
    for name in ["Bao", "Modo"] {
        let (s, _, _) = raw(
            &server,
            "/api/account/signup",
            json!({"name": name, "password": pw}),
            None,
        )
        .await;
        assert_eq!(s, 201);
    }
    let report =
        json!({"player": "Bao", "reason": "abusive_chat", "text": "<b>called me names</b>"});
    let (s, v, _) = raw(&server, "/api/reports", report, Some((&cookie, &csrf))).await;
    assert_eq!(s, 201, "{v}");
    let store = Store::open_db(&db).unwrap();
    as_admin(&store, Act::GrantModerator, "Modo");

    let c = browser(&driver, "moderator", &[]).await;
    c.goto(&format!("{base}/account")).await.unwrap();
    js(&c, "localStorage.setItem('anywoli.lang', 'en'); return 1").await;
    c.refresh().await.unwrap();
    wait_for(
        &c,
        "!!document.querySelector('#login-form')",
        "the login form",
    )
    .await;
    type_into(&c, "#login-user", "Modo").await;
    type_into(&c, "#login-password", pw).await;
    click(&c, "#login-form button[type=submit]").await;
    wait_for(
        &c,
        "!!document.querySelector('#account-area .account-name')",
        "logged in",
    )
    .await;
    // The account view has its care panels: the sessions (the signup's, and this one), the
    // export link.
    wait_for(
        &c,
        "document.querySelectorAll('#session-list li').length === 2 && document.querySelectorAll('#session-list strong').length === 1",
        "the signup's session and this one listed",
    )
    .await;

    // Modo reports Abula from her profile; the header's menu has the moderators' link.
    wait_for(
        &c,
        "!!document.querySelector('#mod-link')",
        "the link to /mod",
    )
    .await;
    c.goto(&format!("{base}/@/Abula")).await.unwrap();
    wait_for(
        &c,
        "!!document.querySelector('#report-box details')",
        "the report form",
    )
    .await;
    click(&c, "#report-box summary").await;
    type_into(&c, "#report-text", "boosts a friend").await;
    click(&c, "#report-form button[type=submit]").await;
    wait_for(
        &c,
        "!!document.querySelector('#report-sent')",
        "the report sent",
    )
    .await;

    c.goto(&format!("{base}/mod")).await.unwrap();
    wait_for(
        &c,
        "!!document.querySelector('.mod-report')",
        "the report in the queue",
    )
    .await;
    assert_eq!(text_of(&c, ".mod-report .mod-target").await, "Bao");
    assert!(
        text_of(&c, ".mod-report blockquote")
            .await
            .contains("<b>called me names</b>"),
        "the text shown as text"
    );
    assert!(text_of(&c, ".mod-report .mod-evidence")
        .await
        .contains("Games between them: 0"));
    click(&c, ".mod-report .mod-open-player").await;
    wait_for(
        &c,
        "!!document.querySelector('.mod-player[data-player=\"Bao\"]')",
        "Bao's dossier",
    )
    .await;
    type_into(&c, "#mod-reason", "mind your words").await;
    click(&c, ".mod-player button[data-action=warn]").await;
    wait_for(
        &c,
        "!!document.querySelector('#mod-log li[data-action=warn]')",
        "the warning in the log",
    )
    .await;
    let line = text_of(&c, "#mod-log li[data-action=warn]").await;
    assert!(
        line.contains("Modo") && line.contains("Bao") && line.contains("mind your words"),
        "{line}"
    );
    click(&c, ".mod-report .mod-close-report").await;
    wait_for(
        &c,
        "document.querySelectorAll('.mod-report').length === 1 && document.querySelector('.mod-report .mod-target').textContent === 'Abula'",
        "Bao's report closed, Abula's left",
    )
    .await;

    let _ = c.close().await;
    server.stop().await;
}

/// On a phone (390 px wide): a player's dossier lists the accounts seen from its address (the
/// three accounts here all signed up from 127.0.0.1) and its signals; the Signals view ranks
/// players (none here: no rated game yet); nothing scrolls sideways.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn a_moderator_sees_shared_addresses_and_signals_on_a_phone() {
    let _slot = support::browser_slot().await;
    let (driver, db, server, base) = start("moderation-phone").await;
    let pw = "long-enough-pw";
    for name in ["Abula", "Bao", "Modo"] {
        let body = json!({"name": name, "password": pw});
        let (s, v, _) = raw(&server, "/api/account/signup", body, None).await;
        assert_eq!(s, 201, "{v}");
    }
    as_admin(&Store::open_db(&db).unwrap(), Act::GrantModerator, "Modo");

    let p = phone(&driver, "moderator-phone", 390, 844).await;
    p.goto(&format!("{base}/account")).await.unwrap();
    js(&p, "localStorage.setItem('anywoli.lang', 'en'); return 1").await;
    p.refresh().await.unwrap();
    wait_for(
        &p,
        "!!document.querySelector('#login-form')",
        "the login form",
    )
    .await;
    type_into(&p, "#login-user", "Modo").await;
    type_into(&p, "#login-password", pw).await;
    click(&p, "#login-form button[type=submit]").await;
    wait_for(
        &p,
        "!!document.querySelector('#account-area .account-name')",
        "logged in",
    )
    .await;
    p.goto(&format!("{base}/mod")).await.unwrap();
    wait_for(
        &p,
        "!!document.querySelector('#mod-signals-load')",
        "the Signals view",
    )
    .await;
    type_into(&p, "#mod-name", "Bao").await;
    click(&p, "#mod-lookup button[type=submit]").await;
    wait_for(
        &p,
        "!!document.querySelector('.mod-player .mod-shared li[data-player=\"Abula\"]')",
        "Abula among the accounts sharing Bao's address",
    )
    .await;
    let shared = text_of(&p, ".mod-player .mod-shared").await;
    assert!(
        shared.contains("Modo") && shared.contains("127.0.0.1"),
        "{shared}"
    );
    assert!(text_of(&p, ".mod-player .mod-figures")
        .await
        .contains("Engine's first choice"));
    click(&p, "#mod-signals-load").await;
    wait_for(
        &p,
        "document.querySelector('#mod-signals').textContent.includes('No rated games')",
        "the ranking, empty",
    )
    .await;
    let width = js(&p, "return document.documentElement.scrollWidth").await;
    assert!(
        width.as_u64().unwrap() <= 390,
        "no sideways scrolling: {width}"
    );
    let _ = p.close().await;
    server.stop().await;
}
