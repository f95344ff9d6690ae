//! Playing a friend on another device, as hosted: the invite link is built from the address the
//! browser used (or the operator's `--public-url`), never a loopback address the friend cannot
//! open, and a server on loopback only says so on the page.
//!
//! Traffic goes only to the loopback range: the server listens on every interface, and the
//! browsers reach it at 127.0.0.2, an address other than the one the server printed.

use crate::support;

use fantoccini::Client;
use serde_json::json;
use support::*;

async fn start_friend_game(c: &Client, base: &str) -> String {
    c.goto(&format!("{base}/")).await.unwrap();
    js(c, "localStorage.setItem('anywoli.speed', 'fast'); return 1").await;
    wait_for(
        c,
        "document.querySelector('#new-form')",
        "the new game form",
    )
    .await;
    click(c, "input[name=mode][value=friend]").await;
    click(c, "input[name=side][value=south]").await;
    click(c, "#start").await;
    wait_for(
        c,
        "document.body.dataset.view === 'game' && !document.querySelector('#invite').hidden && document.querySelector('#share').value.includes('/g/')",
        "the invitation",
    )
    .await;
    js(c, "return document.querySelector('#share').value")
        .await
        .as_str()
        .unwrap()
        .to_string()
}

/// The server on all interfaces, the page opened at 127.0.0.2: the link uses 127.0.0.2, the
/// friend opens it in another browser, and a move goes across.
async fn all_interfaces(driver: &Driver) {
    let server = serve_at("all", "0.0.0.0", None).await;
    assert!(server.addr.ip().is_unspecified());
    let port = server.addr.port();
    let base = format!("http://127.0.0.2:{port}");
    let (_, site) = http_json(&server, "GET", "/api/site", None).await;
    assert_eq!(site["loopback_only"], false, "{site}");

    let a = browser(driver, "host-a", &["--lang=en"]).await;
    let link = start_friend_game(&a, &base).await;
    assert!(
        link.starts_with(&format!("{base}/g/")),
        "the link {link} is built from the address the browser used ({base})"
    );
    assert_eq!(
        js(
            &a,
            "return document.querySelector('#invite-warning').hidden"
        )
        .await,
        json!(true),
        "no loopback warning when the server listens on every interface"
    );
    // The page was opened at a loopback address, so it also offers this machine's network
    // address, when it has one.
    let network = js(&a, "return document.querySelector('#share-network').value").await;
    let network = network.as_str().unwrap();
    match site["network_urls"].as_array().unwrap().first() {
        Some(url) => {
            let path = link.strip_prefix(&base).unwrap();
            assert_eq!(network, format!("{}{path}", url.as_str().unwrap()));
            assert!(text_of(&a, "#invite-network-text")
                .await
                .contains("your network"));
        }
        None => assert_eq!(
            js(
                &a,
                "return document.querySelector('#invite-network').hidden"
            )
            .await,
            json!(true)
        ),
    }

    let b = browser(driver, "host-b", &["--lang=en"]).await;
    b.goto(&link).await.unwrap();
    js(
        &b,
        "localStorage.setItem('anywoli.speed', 'fast'); return 1",
    )
    .await;
    wait_for(
        &b,
        "document.querySelector('#join') && !document.querySelector('#join').hidden",
        "the seat offer",
    )
    .await;
    click(&b, "#join-button").await;
    wait_for(&b, "document.body.dataset.seat === 'north'", "B seated").await;
    assert!(await_my_turn(&a).await);
    click(&a, ".hole.playable").await;
    wait_for(
        &b,
        "Number(document.body.dataset.ply) >= 1 && document.body.dataset.busy === '0'",
        "the friend seeing the move",
    )
    .await;
    // The mover's own page may still be sowing its move when the friend's has shown it.
    wait_for(
        &a,
        "Number(document.body.dataset.ply) >= 1 && document.body.dataset.busy === '0'",
        "the mover seeing its move",
    )
    .await;
    assert_eq!(moves_listed(&b).await, moves_listed(&a).await);
    for c in [a, b] {
        let _ = c.close().await;
    }
    server.stop().await;
}

/// Behind a reverse proxy the operator names the public address, and links use it.
async fn public_url(driver: &Driver) {
    let server = serve_at("public", "127.0.0.1", Some("https://anywoli.example.org/")).await;
    let base = format!("http://{}", server.addr);
    let c = browser(driver, "host-public", &["--lang=en"]).await;
    let link = start_friend_game(&c, &base).await;
    let path = link
        .strip_prefix("https://anywoli.example.org/g/")
        .unwrap_or("");
    let (id, invite) = path.split_once("#invite=").expect("an invite link");
    assert_eq!(id.len(), 12, "{link}");
    assert_eq!(invite.len(), 32, "{link}");
    // Behind a proxy, listening on loopback is the plan, not a mistake.
    assert_eq!(
        js(
            &c,
            "return document.querySelector('#invite-warning').hidden"
        )
        .await,
        json!(true)
    );
    let _ = c.close().await;
    server.stop().await;
}

/// On loopback only, the page says a friend elsewhere cannot join, and how to fix it; in the
/// reader's language.
async fn loopback_warning(driver: &Driver) {
    let server = serve_at("loopback", "127.0.0.1", None).await;
    let port = server.addr.port();
    let base = format!("http://{}", server.addr);
    let c = browser(driver, "host-loopback", &["--lang=en"]).await;
    let link = start_friend_game(&c, &base).await;
    assert!(link.starts_with(&format!("{base}/g/")), "{link}");
    wait_for(
        &c,
        "!document.querySelector('#invite-warning').hidden",
        "the loopback warning",
    )
    .await;
    let warning = text_of(&c, "#invite-warning").await;
    assert!(
        warning.contains("another device")
            && warning.contains(&format!("anywoli serve --addr 0.0.0.0 --port {port}")),
        "{warning}"
    );
    js(&c, "localStorage.setItem('anywoli.lang', 'nl'); return 1").await;
    c.refresh().await.unwrap();
    wait_for(
        &c,
        "!document.querySelector('#invite-warning').hidden",
        "the loopback warning in Dutch",
    )
    .await;
    let warning = text_of(&c, "#invite-warning").await;
    assert!(warning.contains("ander apparaat"), "{warning}");
    let _ = c.close().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn invite_links_reach_the_friend() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    all_interfaces(&driver).await;
    public_url(&driver).await;
    loopback_warning(&driver).await;
}
