//! What the browser tests share: chromedriver and Chromium sessions, waiting on the page, and
//! small HTTP calls. Each browser test binary uses what it needs.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anywoli_server::{start, Config, Server, Think};

pub mod marks;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

/// A test that needs PostgreSQL: `#[ignore]`d for it (`cargo test -- --include-ignored` runs
/// it where `ANYWOLI_TEST_POSTGRES` names a database). The `*_postgres` modules define their
/// `store_test!` as this, so that the tests they include run on PostgreSQL.
#[macro_export]
macro_rules! needs_postgres {
    ($(#[$m:meta])* async fn $name:ident() $body:block) => {
        $(#[$m])*
        #[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
        async fn $name() $body
    };
    ($(#[$m:meta])* fn $name:ident() $body:block) => {
        $(#[$m])*
        #[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
        fn $name() $body
    };
}

/// Browser tests that run at once in the `serial` binary. Each drives Chromium and a server;
/// most of a test's time is the page waiting (for the server, the engine, the network), so two
/// share this machine's two cores without slowing each other down by as much as they save.
pub const BROWSERS_AT_ONCE: u32 = 2;

static SLOTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(BROWSERS_AT_ONCE as usize);

/// A browser test's place: at most [`BROWSERS_AT_ONCE`] run together. Hold it for the whole test.
pub async fn browser_slot() -> tokio::sync::SemaphorePermit<'static> {
    SLOTS.acquire().await.expect("the slots are never closed")
}

/// The whole process, for a test that moves the server's clock for everything in it
/// (`anywoli_server::dates::shift_for_tests`): no other serial test runs meanwhile. Hold it for
/// the whole test.
pub async fn whole_process() -> tokio::sync::SemaphorePermit<'static> {
    SLOTS
        .acquire_many(BROWSERS_AT_ONCE)
        .await
        .expect("the slots are never closed")
}

/// chromedriver, started. The tests that call it are `#[ignore = "needs chromium and
/// chromedriver"]`; run where it is missing, they fail and say what to install.
pub fn driver() -> Driver {
    let exe = find_in_path("chromedriver").expect(
        "the browser tests need chromium and chromedriver: apt-get install chromium chromium-driver",
    );
    Driver::start(&exe)
}

/// A server on `addr` (port picked by the system) with a fresh SQLite database and a quick
/// engine.
pub async fn serve_at(name: &str, addr: &str, public_url: Option<&str>) -> Server {
    serve_on(addr, public_url, sqlite_db(name)).await
}

/// A server on `addr` (port picked by the system) with the database `db` (a SQLite file or a
/// PostgreSQL URL) and a quick engine. Servers started on one PostgreSQL URL are instances
/// sharing its games.
pub async fn serve_on(addr: &str, public_url: Option<&str>, db: PathBuf) -> Server {
    start(&config(addr, public_url, db)).await.unwrap()
}

/// What [`serve_on`] starts a server with.
pub fn config(addr: &str, public_url: Option<&str>, db: PathBuf) -> Config {
    Config {
        addr: addr.to_string(),
        port: 0,
        db,
        think: Think {
            movetime: Duration::from_millis(200),
            hash_mib: 1,
        },
        public_url: public_url.map(|u| anywoli_server::PublicUrl::parse(u).unwrap()),
        limits: Default::default(),
        rates: anywoli_server::RateLimits {
            games_per_minute: 0,
            hints_per_minute: 0,
            imports_per_minute: 0,
            logins_per_minute: 0,
        },
        allowed_hosts: Vec::new(),
        engine_lease: anywoli_server::round::ENGINE_LEASE,
        ..Config::default()
    }
}

/// A new SQLite file for the server `name`.
pub fn sqlite_db(name: &str) -> PathBuf {
    scratch(&format!("server-{name}")).join("games.sqlite")
}

/// The database of a browser test's server: a new SQLite file. The page never sees which store
/// the server uses; the HTTP tests run on both (`it.rs`), and `browser_instances.rs` runs the
/// page on PostgreSQL, where two instances share it.
pub fn fresh_db(name: &str) -> PathBuf {
    sqlite_db(name)
}

/// Calls the API of `server` over loopback: (status, JSON body).
pub async fn http_json(
    server: &Server,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let (status, _, v) = http_with(server, method, path, "", body).await;
    (status, v)
}

/// Calls the API of `server` over loopback with more header lines (`headers`, each ending in
/// CRLF): (status, the response's head, JSON body).
pub async fn http_with(
    server: &Server,
    method: &str,
    path: &str,
    headers: &str,
    body: Option<Value>,
) -> (u16, String, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let port = server.addr.port();
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).await.unwrap();
    let (head, body) = buf.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let v = serde_json::from_str(body).unwrap_or(Value::Null);
    (status, head.to_string(), v)
}

/// The text of the first element matching `css`, or "" when there is none.
pub async fn text_of(c: &Client, css: &str) -> String {
    js(
        c,
        &format!("const e = document.querySelector({css:?}); return e ? e.textContent : ''"),
    )
    .await
    .as_str()
    .unwrap_or("")
    .to_string()
}

/// Long enough for a slow CI machine, short enough that a hang fails instead of blocking.
pub const PATIENCE: Duration = Duration::from_secs(60);

pub fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// chromedriver, ended when dropped.
pub struct Driver {
    child: Child,
    pub url: String,
}

impl Driver {
    pub fn start(exe: &Path) -> Driver {
        use std::os::unix::process::CommandExt;
        let port = free_port();
        // A process group of its own, so that dropping the driver also ends every browser it
        // started, even when a failed assertion skipped closing the sessions.
        let child = Command::new(exe)
            .arg(format!("--port={port}"))
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let deadline = Instant::now() + PATIENCE;
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("browser-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub async fn browser(driver: &Driver, name: &str, extra: &[&str]) -> Client {
    browser_with(driver, name, extra, None).await
}

/// A session that shows pages the way a phone of `width` x `height` CSS pixels does.
pub async fn phone(driver: &Driver, name: &str, width: u32, height: u32) -> Client {
    let metrics = json!({"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1.0}});
    browser_with(driver, name, &[], Some(metrics)).await
}

pub async fn browser_with(
    driver: &Driver,
    name: &str,
    extra: &[&str],
    mobile: Option<Value>,
) -> Client {
    let profile = scratch(&format!("profile-{name}"));
    let mut args = vec![
        "--headless".to_string(),
        "--no-sandbox".to_string(),
        "--disable-gpu".to_string(),
        "--disable-quic".to_string(),
        "--no-first-run".to_string(),
        "--disable-background-networking".to_string(),
        "--disable-component-update".to_string(),
        "--disable-sync".to_string(),
        "--disable-dev-shm-usage".to_string(),
        "--hide-scrollbars".to_string(),
        "--window-size=1280,800".to_string(),
        format!("--user-data-dir={}", profile.display()),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let mut options = json!({ "args": args });
    if let Some(bin) = find_in_path("chromium") {
        options["binary"] = json!(bin);
    }
    if let Some(m) = mobile {
        options["mobileEmulation"] = m;
    }
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".to_string(), options);
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&driver.url)
        .await
        .expect("a browser session")
}

pub async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.expect("script runs")
}

pub async fn body_data(c: &Client, key: &str) -> String {
    js(c, &format!("return document.body.dataset['{key}'] || ''"))
        .await
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// Polls the page until `cond` (a JavaScript expression) is true.
pub async fn wait_for(c: &Client, cond: &str, what: &str) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        // A page still loading (after a refresh or a click) may lack the elements `cond`
        // reads: that is "not yet", not a failure.
        let probe = format!("try {{ return !!({cond}); }} catch (e) {{ return false; }}");
        if js(c, &probe).await == json!(true) {
            return;
        }
        if Instant::now() > deadline {
            let status = js(c, "return document.querySelector('#status') && document.querySelector('#status').textContent").await;
            let data = js(c, "return JSON.stringify(document.body.dataset)").await;
            panic!("waited too long for {what} ({cond}); status {status}, body {data}");
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

pub async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("click {css}: {e}"));
}

/// Waits until the viewer may move (or the game is over); true while the game goes on.
pub async fn await_my_turn(c: &Client) -> bool {
    wait_for(
        c,
        "(document.body.dataset.turn === 'mine' && document.body.dataset.busy === '0') || document.body.dataset.status === 'over'",
        "my turn",
    )
    .await;
    body_data(c, "status").await != "over"
}

/// The one of two browsers whose turn it is, once it may move.
pub async fn whose_turn<'a>(a: &'a Client, b: &'a Client) -> &'a Client {
    let ready = "document.body.dataset.turn === 'mine' && document.body.dataset.busy === '0'";
    let deadline = Instant::now() + PATIENCE;
    loop {
        for c in [a, b] {
            if js(c, &format!("return {ready}")).await == json!(true) {
                return c;
            }
        }
        assert!(Instant::now() < deadline, "neither browser got the turn");
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

pub async fn new_game(c: &Client, base: &str, mode: &str, side: &str, level: Option<u8>) {
    c.goto(&format!("{base}/")).await.unwrap();
    wait_for(
        c,
        "document.querySelector('#new-form')",
        "the new game form",
    )
    .await;
    click(c, &format!("input[name=mode][value={mode}]")).await;
    if let Some(l) = level {
        c.find(Locator::Css("#level"))
            .await
            .unwrap()
            .select_by_value(&l.to_string())
            .await
            .unwrap();
    }
    if mode != "local" {
        click(c, &format!("input[name=side][value={side}]")).await;
    }
    click(c, "#start").await;
    wait_for(
        c,
        "document.body.dataset.view === 'game' && document.body.dataset.status === 'playing'",
        "the game page",
    )
    .await;
}

pub async fn moves_listed(c: &Client) -> usize {
    js(c, "return document.querySelectorAll('#movelist li').length")
        .await
        .as_u64()
        .unwrap() as usize
}

/// Sizes the viewport (not the window, which may have a frame) to `w` x `h`.
pub async fn viewport(c: &Client, w: u32, h: u32) {
    c.set_window_size(w, h).await.unwrap();
    let frame = js(
        c,
        "return [window.outerWidth - window.innerWidth, window.outerHeight - window.innerHeight]",
    )
    .await;
    let fw = frame[0].as_u64().unwrap_or(0) as u32;
    let fh = frame[1].as_u64().unwrap_or(0) as u32;
    if fw > 0 || fh > 0 {
        c.set_window_size(w + fw, h + fh).await.unwrap();
    }
}

pub async fn save_screenshot(c: &Client, dir: &Option<PathBuf>, name: &str) {
    js(
        c,
        "document.getElementById('toast').hidden = true; return 1",
    )
    .await;
    let png = c.screenshot().await.expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "screenshots are PNG");
    if let Some(dir) = dir {
        std::fs::write(dir.join(name), png).unwrap();
    }
}

pub async fn http_get(server: &Server, path: &str) -> Value {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).await.unwrap();
    let body = buf.split_once("\r\n\r\n").unwrap().1;
    serde_json::from_str(body).unwrap()
}

/// Runs the Chrome DevTools command `cmd` in the session of `c` (through chromedriver's
/// `goog/cdp/execute`), for what WebDriver itself cannot do: a script that runs before the
/// page's own, say.
pub async fn cdp(driver: &Driver, c: &Client, cmd: &str, params: Value) -> Value {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let session = c.session_id().await.unwrap().expect("a session id");
    let host = driver.url.trim_start_matches("http://");
    let mut s = tokio::net::TcpStream::connect(host).await.unwrap();
    let body = json!({"cmd": cmd, "params": params}).to_string();
    let req = format!(
        "POST /session/{session}/goog/cdp/execute HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    // chromedriver keeps the connection open: read the head, then as many bytes as it says.
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let (head, mut rest) = loop {
        let n = s.read(&mut chunk).await.unwrap();
        assert!(n > 0, "{cmd}: chromedriver closed the connection");
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break (
                String::from_utf8_lossy(&buf[..i]).to_string(),
                buf[i + 4..].to_vec(),
            );
        }
    };
    assert!(head.contains(" 200 "), "{cmd}: {head}");
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .expect("a Content-Length");
    while rest.len() < length {
        let n = s.read(&mut chunk).await.unwrap();
        assert!(n > 0, "{cmd}: the answer was cut short");
        rest.extend_from_slice(&chunk[..n]);
    }
    serde_json::from_slice::<Value>(&rest[..length]).unwrap()["value"].clone()
}

/// The languages of the page: one file of texts each, web/i18n/<lang>.json.
pub const LANGS: [&str; 6] = ["en", "tl", "cs", "nl", "hi", "it"];

/// The texts of one language, by key, read from its file web/i18n/<lang>.json.
pub fn texts_of(lang: &str) -> serde_json::Map<String, serde_json::Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("web/i18n/{lang}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    match serde_json::from_str(&text) {
        Ok(serde_json::Value::Object(m)) => m,
        other => panic!("{path:?} is not an object of texts: {other:?}"),
    }
}

/// A public game between two anonymous people, made with `body` (a friend game's options) and
/// joined over HTTP: (id, south's secret).
pub async fn public_game(server: &Server, body: Value) -> (String, String) {
    let (s, v) = http_json(server, "POST", "/api/games", Some(body)).await;
    assert_eq!(s, 201, "{v}");
    let id = v["game"]["id"].as_str().unwrap().to_string();
    let secret = v["secret"].as_str().unwrap().to_string();
    let join = format!("/api/games/{id}/join");
    let invite = serde_json::json!({"invite": v["invite"]});
    let (s, j) = http_json(server, "POST", &join, Some(invite)).await;
    assert_eq!(s, 200, "{j}");
    let public = serde_json::json!({"secret": secret, "public": true});
    let (s, p) = http_json(
        server,
        "POST",
        &format!("/api/games/{id}/public"),
        Some(public),
    )
    .await;
    assert_eq!(s, 200, "{p}");
    (id, secret)
}

/// A rated game's players as the lobby seats them: `names` (South, North), both new players
/// (1500, provisional), the game listed while played.
pub fn rated_people(names: [&str; 2]) -> anywoli_server::round::game::People {
    use anywoli_server::rating::{GameRatings, Shown};
    let new = Shown {
        rating: 1500.0,
        provisional: true,
    };
    anywoli_server::round::game::People {
        accounts: anywoli_core::BySide::from(names).map(|n| Some(n.to_string())),
        rated: true,
        public: true,
        ratings: GameRatings {
            start: anywoli_core::BySide::both(Some(new)),
            change: None,
        },
    }
}

/// What `anywoli admin grant-moderator NAME` does, on a running server's database.
pub fn grant_moderator(store: &anywoli_server::Store, name: &str) {
    use anywoli_server::store::{Act, Moderate, ADMIN_CLI};
    let m = Moderate {
        act: Act::GrantModerator,
        moderator: ADMIN_CLI.into(),
        target: name.into(),
        reason: String::new(),
        detail: json!({}),
        at: anywoli_server::dates::now_ms(),
    };
    assert!(store.moderate(m).unwrap());
}
