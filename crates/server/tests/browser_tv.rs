// TV in a real browser (issue 38): /tv shows the best live game (board, names, clocks) as a
// spectator sees it, follows on to the next game when it ends, and fits a phone; the
// leaderboards page lists a category.

use crate::support;

use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn tv_shows_a_live_game_and_follows_on() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let server = serve_at("tv", "127.0.0.1", None).await;
    let base = format!("http://{}", server.addr);
    let (first, _) = public_game(&server, json!({"mode": "friend", "clock": "5+3"})).await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let (second, secret) = public_game(&server, json!({"mode": "friend", "clock": "5+3"})).await;

    let c = phone(&driver, "tv", 390, 844).await;
    c.goto(&format!("{base}/tv")).await.unwrap();
    js(&c, "localStorage.setItem('anywoli.lang', 'en'); return 1").await;
    c.refresh().await.unwrap();
    let showing = |id: &str| {
        format!(
            "document.body.dataset.view === 'tv' && document.body.dataset.tv === {id:?} \
             && document.body.dataset.status === 'playing' && document.querySelectorAll('.hole').length === 24"
        )
    };
    wait_for(&c, &showing(&second), "TV showing the latest game").await;
    assert_eq!(
        body_data(&c, "seat").await,
        "none",
        "a spectator holds no seat"
    );
    let fits = "return document.documentElement.scrollWidth <= window.innerWidth";
    assert_eq!(js(&c, fits).await, json!(true), "TV fits a phone's width");

    let resign = format!("/api/games/{second}/resign");
    let (s, r) = http_json(&server, "POST", &resign, Some(json!({"secret": secret}))).await;
    assert_eq!(s, 200, "{r}");
    wait_for(&c, &showing(&first), "TV following on to the other game").await;
    assert!(
        c.current_url().await.unwrap().path().ends_with("/tv"),
        "still on /tv"
    );

    c.goto(&format!("{base}/leaderboards?category=rapid"))
        .await
        .unwrap();
    wait_for(
        &c,
        "document.body.dataset.view === 'leaders' && document.body.dataset.leaders === '0' \
         && document.querySelector('#leaders-category').value === 'rapid'",
        "an empty rapid leaderboard",
    )
    .await;
    let _ = c.close().await;
    server.stop().await;
}

/// Signs `name` up over HTTP: the session cookie's value.
async fn signup(server: &anywoli_server::Server, name: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = server.addr;
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = json!({"name": name, "password": "correct horse battery"}).to_string();
    let req = format!(
        "POST /api/account/signup HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).await.unwrap();
    buf.lines()
        .find_map(|l| l.strip_prefix("set-cookie: anywoli_session="))
        .and_then(|v| v.split(';').next())
        .unwrap_or_else(|| panic!("a session cookie: {buf}"))
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn following_a_player_shows_them_online() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let server = serve_at("follow", "127.0.0.1", None).await;
    let base = format!("http://{}", server.addr);
    let kofi = signup(&server, "Kofi").await;

    let c = phone(&driver, "follow", 390, 844).await;
    c.goto(&format!("{base}/rules")).await.unwrap();
    // Abula signs up in the browser, which keeps the session cookie.
    let up = "return fetch('/api/account/signup', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name: 'Abula', password: 'correct horse battery'})}).then((r) => r.status)";
    assert_eq!(js(&c, up).await, json!(201));
    js(&c, "localStorage.setItem('anywoli.lang', 'en'); return 1").await;
    c.goto(&format!("{base}/@/kofi")).await.unwrap();
    wait_for(&c, "document.querySelector('#follow:not([hidden])') && document.querySelector('#follow').textContent === 'Follow'", "the Follow button").await;
    click(&c, "#follow").await;
    wait_for(
        &c,
        "document.querySelector('#follow').textContent === 'Unfollow'",
        "following",
    )
    .await;

    // Kofi has the site open (a lobby socket, as the page keeps one): the dot says online.
    let mut req = tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(
        format!("ws://{}/api/lobby", server.addr),
    )
    .unwrap();
    req.headers_mut()
        .insert("cookie", format!("anywoli_session={kofi}").parse().unwrap());
    req.headers_mut().insert("origin", base.parse().unwrap());
    let (ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    let listed = "document.body.dataset.view === 'following' && [...document.querySelectorAll('.follow-item a')].some((a) => a.textContent === 'Kofi')";
    let online =
        format!("{listed} && document.querySelector('.follow-item').dataset.online === '1'");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        c.goto(&format!("{base}/following")).await.unwrap();
        wait_for(&c, listed, "Kofi in the list").await;
        if js(&c, &format!("return {online}")).await == json!(true) {
            break;
        }
        assert!(std::time::Instant::now() < until, "Kofi shown online");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let fits = "return document.documentElement.scrollWidth <= window.innerWidth";
    assert_eq!(
        js(&c, fits).await,
        json!(true),
        "the list fits a phone's width"
    );
    drop(ws);
    let _ = c.close().await;
    server.stop().await;
}
