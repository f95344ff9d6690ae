// Programs' parts of the page in a real browser (issue 40): a token made on the account page,
// shown once, working, listed without its text and revoked by two clicks; a house bot's profile
// with its BOT badge and the games' download links; the opening explorer beside the analysis
// board, with a game played through the Board API counted in it, a click on its move playing
// it; and the same on a phone in Hindi (screenshots into a scratch folder).

use crate::support;

use fantoccini::Client;
use serde_json::{json, Value};
use support::*;

const PW: &str = "long-enough-pw";

/// Logs `c` in as `name` (the page's own request) in `lang`.
async fn log_in(c: &Client, base: &str, name: &str, lang: &str) {
    c.goto(&format!("{base}/")).await.unwrap();
    let script = format!(
        "localStorage.setItem('anywoli.lang', {lang:?}); localStorage.setItem('anywoli.speed', 'fast'); window.__in = 0;
         fetch('/api/account/login', {{method: 'POST', headers: {{'content-type': 'application/json'}},
           body: JSON.stringify({{name: {name:?}, password: {PW:?}}})}}).then((r) => {{ window.__in = r.status; }});
         return 1"
    );
    js(c, &script).await;
    wait_for(c, "window.__in === 200", "logged in").await;
}

/// A request with a bearer token and a form: (status, JSON).
async fn bearer(
    addr: std::net::SocketAddr,
    token: &str,
    method: &str,
    path: &str,
    form: &str,
) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
        form.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).await.unwrap();
    let (head, body) = buf.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// The page fits the window's width.
async fn no_sideways_scroll(c: &Client) {
    let overflow = js(
        c,
        "return document.documentElement.scrollWidth - window.innerWidth",
    )
    .await;
    assert!(
        overflow.as_i64().unwrap() <= 1,
        "no sideways scroll: {overflow}"
    );
}

/// Makes a token on the account page: its text, as the page shows it once.
async fn token_on_the_page(c: &Client, base: &str) -> String {
    c.goto(&format!("{base}/account")).await.unwrap();
    wait_for(
        c,
        "!!document.querySelector('#token-form')",
        "the tokens' form",
    )
    .await;
    wait_for(c, "!!document.querySelector('#token-none')", "no token yet").await;
    crate::browser_players::type_into(c, "#token-description", "my board").await;
    click(c, "#token-scope-board-play").await;
    click(c, "#token-scope-challenge-write").await;
    click(c, "#token-form button[type=submit]").await;
    wait_for(
        c,
        "(document.querySelector('#token-text') || {}).value",
        "the new token",
    )
    .await;
    let v = js(c, "return document.querySelector('#token-text').value").await;
    v.as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn tokens_bot_badges_downloads_and_the_explorer_in_a_browser() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let mut cfg = config("127.0.0.1", None, sqlite_db("bots-page"));
    cfg.house = anywoli_server::house::HouseBots::parse("Anuak3:3", "3+2", 5).unwrap();
    let server = anywoli_server::start(&cfg).await.unwrap();
    let base = format!("http://{}", server.addr);
    for name in ["Ana", "Okello"] {
        let body = json!({"name": name, "password": PW});
        let (s, v) = http_json(&server, "POST", "/api/account/signup", Some(body)).await;
        assert_eq!(s, 201, "{v}");
    }
    let shots = Some(scratch("bots-shots"));
    eprintln!("screenshots in {}", shots.as_ref().unwrap().display());

    // A token, made and shown once; it works; listed without its text; revoked.
    let c = browser(&driver, "bots-desktop", &["--lang=en"]).await;
    log_in(&c, &base, "Ana", "en").await;
    let token = token_on_the_page(&c, &base).await;
    assert!(token.starts_with("anw_"), "{token}");
    let (s, me) = bearer(server.addr, &token, "GET", "/api/account", "").await;
    assert_eq!((s, me["username"].as_str()), (200, Some("Ana")));
    save_screenshot(&c, &shots, "token-made.png").await;
    c.refresh().await.unwrap();
    wait_for(
        &c,
        "document.querySelectorAll('#token-list li[data-token]').length === 1",
        "the token listed",
    )
    .await;
    let html = js(&c, "return document.body.innerHTML").await;
    assert!(
        !html.as_str().unwrap().contains(&token),
        "the text is shown once only"
    );
    click(&c, ".token-revoke").await;
    click(&c, ".token-revoke").await;
    wait_for(
        &c,
        "!!document.querySelector('#token-none')",
        "the token revoked",
    )
    .await;
    let (s, _) = bearer(server.addr, &token, "GET", "/api/account", "").await;
    assert_eq!(s, 401);

    // A game between two people's programs, counted in the explorer.
    let ana = token_on_the_page(&c, &base).await;
    let okello = {
        let r = anywoli_server::Store::open_db(&cfg.db).unwrap();
        let (text, hash) = anywoli_server::account::token::new_token();
        let row = anywoli_server::store::TokenRow {
            id: anywoli_server::ids::new_id(),
            account: "Okello".into(),
            description: String::new(),
            scopes: "board:play challenge:write".into(),
            created: 1,
            used: None,
        };
        r.mint_token(row, hash, 20).unwrap();
        text
    };
    let (s, ch) = bearer(
        server.addr,
        &ana,
        "POST",
        "/api/challenge/Okello",
        "rated=false&clock.limit=300&color=white",
    )
    .await;
    assert_eq!(s, 201, "{ch}");
    let id = ch["id"].as_str().unwrap();
    let (s, acc) = bearer(
        server.addr,
        &okello,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        "",
    )
    .await;
    assert_eq!(s, 200, "{acc}");
    let game = acc["game"]["id"].as_str().unwrap().to_string();
    for (who, mv) in [(&ana, "e"), (&okello, "F")] {
        let (s, v) = bearer(
            server.addr,
            who,
            "POST",
            &format!("/api/board/game/{game}/move/{mv}"),
            "",
        )
        .await;
        assert_eq!(s, 200, "{v}");
    }
    let (s, _) = bearer(
        server.addr,
        &okello,
        "POST",
        &format!("/api/board/game/{game}/resign"),
        "",
    )
    .await;
    assert_eq!(s, 200);
    // The game is in the explorer once the queue is folded in (every half second).
    anywoli_server::Store::open_db(&cfg.db)
        .unwrap()
        .explorer_fold_all()
        .unwrap();

    // The house bot's profile: its badge; and the games' download links.
    c.goto(&format!("{base}/@/Anuak3")).await.unwrap();
    wait_for(
        &c,
        "!!document.querySelector('.profile-head .title-badge')",
        "the BOT badge",
    )
    .await;
    assert_eq!(text_of(&c, ".profile-head .title-badge").await, "BOT");
    c.goto(&format!("{base}/@/Ana")).await.unwrap();
    wait_for(
        &c,
        "!!document.querySelector('#download-games')",
        "the download link",
    )
    .await;
    let href = js(
        &c,
        "return document.querySelector('#download-games').getAttribute('href')",
    )
    .await;
    assert_eq!(href, "/api/games/user/Ana");
    let (s, _, text) = http_with(&server, "GET", "/api/games/user/Ana", "", None).await;
    let _ = text;
    assert_eq!(s, 200);

    // The explorer beside the analysis board: the game's first move, counted; a click plays it.
    c.goto(&format!("{base}/analysis")).await.unwrap();
    wait_for(&c, "document.body.dataset.explorer === 'ready' && !!document.querySelector('#explorer-moves .explorer-move[data-move=e]')", "the explorer's moves").await;
    let games = text_of(
        &c,
        "#explorer-moves tr.explorer-row[data-move=e] .explorer-games",
    )
    .await;
    assert!(games.starts_with('1'), "{games}");
    assert!(
        js(
            &c,
            "return document.querySelectorAll('#explorer-book .explorer-book-move').length"
        )
        .await
        .as_u64()
        .unwrap()
            > 0
    );
    save_screenshot(&c, &shots, "explorer-desktop.png").await;
    click(&c, "#explorer-moves .explorer-move[data-move=e]").await;
    wait_for(&c, "document.body.dataset.explorer === 'ready' && !!document.querySelector('#explorer-moves .explorer-move[data-move=F]')", "the explorer after e").await;
    let _ = c.close().await;

    // On a phone, in Hindi.
    let p = phone(&driver, "bots-phone", 390, 844).await;
    log_in(&p, &base, "Okello", "hi").await;
    p.goto(&format!("{base}/analysis")).await.unwrap();
    wait_for(
        &p,
        "document.body.dataset.explorer === 'ready'",
        "the explorer on a phone",
    )
    .await;
    let title = support::texts_of("hi")["ex_title"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text_of(&p, "#explorer").await.contains(&title));
    no_sideways_scroll(&p).await;
    save_screenshot(&p, &shots, "explorer-phone-hi.png").await;
    p.goto(&format!("{base}/account")).await.unwrap();
    wait_for(
        &p,
        "!!document.querySelector('#token-form')",
        "the tokens on a phone",
    )
    .await;
    no_sideways_scroll(&p).await;
    save_screenshot(&p, &shots, "tokens-phone-hi.png").await;
    let _ = p.close().await;
}
