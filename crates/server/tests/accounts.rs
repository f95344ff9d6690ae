// Accounts over HTTP, against a server on a real port (docs/api-players.md): signing up and
// logging in, the session cookie and its CSRF token, the limits on logins, seats that belong
// to accounts, which games are listed, ratings and profiles. Every answer of every test is
// checked for the passwords (and hashes) the test used, and so is everything the server logs.
// (Plain comments: `accounts_postgres.rs` includes this file.)

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use anywoli_core::{BySide, Position, Rules};
use anywoli_server::round::clock::TimeControl;
use anywoli_server::round::game::{Game, Mode, NewGame, Player};
use anywoli_server::{app, AppState, Options, PublicUrl, RateLimits, SiteView, Store, Think};
use axum::body::Bytes;
use axum::http::{HeaderMap, Request};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use serde_json::{json, Value};

// The store of a test's server: SQLite (in memory, or a file for a test that restarts its
// server). `accounts_postgres.rs` includes this file and defines `fresh_store` and `fresh_db`
// of its own, which shadow these glob-imported ones.
#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }

    pub fn fresh_db(name: &str) -> std::path::PathBuf {
        super::sqlite_file(name)
    }
}

/// A new SQLite file for the test `name`.
#[allow(dead_code)]
fn sqlite_file(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("accounts-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("games.sqlite")
}

fn think() -> Think {
    Think {
        movetime: Duration::from_millis(200),
        hash_mib: 1,
    }
}

fn no_limits() -> RateLimits {
    RateLimits {
        games_per_minute: 0,
        hints_per_minute: 0,
        imports_per_minute: 0,
        logins_per_minute: 0,
    }
}

// What the server logs: one record for the whole test binary (`crate::logs`).
use crate::logs::{capture_logs, logged};

// ---- A server on a real port, and a client for it ----

struct Srv {
    addr: SocketAddr,
    state: AppState,
    client: Client<HttpConnector, Full<Bytes>>,
    /// Texts no answer (and no log line) may contain: the test's passwords and hashes.
    never: Mutex<Vec<String>>,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

/// An answer: status, headers and body.
struct Resp {
    status: u16,
    headers: HeaderMap,
    body: String,
}

impl Resp {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.status, self.body))
    }

    fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    }

    /// The answer is the API error `code` with `status`.
    fn is_error(&self, status: u16, code: &str) -> &Resp {
        assert_eq!(self.status, status, "{}", self.body);
        let v = self.json();
        assert_eq!(v["error"], code, "{}", self.body);
        assert!(v["message"].is_string(), "{}", self.body);
        self
    }

    fn ok(&self, status: u16) -> Value {
        assert_eq!(self.status, status, "{}", self.body);
        self.json()
    }

    /// The session cookie this answer sets: its value and its attributes.
    fn cookie(&self) -> (String, Vec<String>) {
        let set = self.header("set-cookie").expect("a Set-Cookie header");
        let mut parts = set.split(';').map(|p| p.trim().to_string());
        let first = parts.next().unwrap();
        let value = first
            .strip_prefix("anywoli_session=")
            .unwrap_or_else(|| panic!("not the session cookie: {set}"));
        (value.to_string(), parts.collect())
    }
}

/// A logged-in browser: its session cookie and the session's CSRF token.
#[derive(Clone, Debug)]
struct Who {
    name: String,
    cookie: String,
    csrf: String,
}

/// A request: what the browser sends besides the method, path and body.
#[derive(Clone, Copy, Default)]
struct Extra<'a> {
    cookie: Option<&'a str>,
    csrf: Option<&'a str>,
    /// The client's address, as a reverse proxy on this machine reports it.
    from: Option<&'a str>,
}

impl Srv {
    async fn start(store: Store) -> Srv {
        Srv::start_with(store, None, |_| {}).await
    }

    async fn start_with(
        store: Store,
        public_url: Option<&str>,
        options: impl FnOnce(&mut Options),
    ) -> Srv {
        capture_logs();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let public_url = public_url.map(|u| PublicUrl::parse(u).unwrap());
        let mut o = Options::new(think(), SiteView::new(addr, public_url.as_ref()));
        o.rates = no_limits();
        // The requests below say which client they stand for in `X-Forwarded-For`, as nginx
        // on this machine would.
        o.trusted_proxies = "127.0.0.1/32".parse().unwrap();
        options(&mut o);
        let state = AppState::with_options(store, o);
        state.start_background().unwrap();
        let router = app(state.clone());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(
                listener,
                router.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
        let client = Client::builder(hyper_util::rt::TokioExecutor::new())
            .pool_max_idle_per_host(0)
            .build_http();
        Srv {
            addr,
            state,
            client,
            never: Mutex::new(Vec::new()),
            stop,
            task,
        }
    }

    /// Stops the server, and checks that nothing it logged holds a password or a hash.
    async fn stop(self) {
        let _ = self.stop.send(());
        let _ = tokio::time::timeout(Duration::from_secs(10), self.task).await;
        let log = logged();
        for secret in self.never.lock().unwrap().iter() {
            assert!(!log.contains(secret.as_str()), "the log holds {secret:?}");
        }
    }

    /// No answer may contain `text` from now on.
    fn never_shows(&self, text: &str) {
        self.never.lock().unwrap().push(text.to_string());
    }

    async fn send(&self, method: &str, path: &str, body: Option<Value>, extra: Extra<'_>) -> Resp {
        let mut req = Request::builder()
            .method(method)
            .uri(format!("http://{}{path}", self.addr));
        if method == "POST" {
            req = req.header("content-type", "application/json");
        }
        if let Some(c) = extra.cookie {
            req = req.header("cookie", format!("theme=dark; anywoli_session={c}"));
        }
        if let Some(t) = extra.csrf {
            req = req.header("x-csrf-token", t);
        }
        if let Some(ip) = extra.from {
            req = req.header("x-forwarded-for", ip);
        }
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let resp = self
            .client
            .request(req.body(Full::new(Bytes::from(body))).unwrap())
            .await
            .unwrap();
        let (parts, body) = resp.into_parts();
        let bytes = body.collect().await.unwrap().to_bytes();
        let resp = Resp {
            status: parts.status.as_u16(),
            headers: parts.headers,
            body: String::from_utf8(bytes.to_vec()).unwrap(),
        };
        for secret in self.never.lock().unwrap().iter() {
            assert!(
                !resp.body.contains(secret.as_str()),
                "{method} {path} answered {secret:?}: {}",
                resp.body
            );
            for (name, value) in &resp.headers {
                assert!(
                    !String::from_utf8_lossy(value.as_bytes()).contains(secret.as_str()),
                    "{method} {path} answered {secret:?} in {name}"
                );
            }
        }
        resp
    }

    async fn get(&self, path: &str) -> Resp {
        self.send("GET", path, None, Extra::default()).await
    }

    async fn post(&self, path: &str, body: Value) -> Resp {
        self.send("POST", path, Some(body), Extra::default()).await
    }

    /// A GET with `who`'s cookie.
    async fn get_as(&self, who: &Who, path: &str) -> Resp {
        let extra = Extra {
            cookie: Some(&who.cookie),
            ..Extra::default()
        };
        self.send("GET", path, None, extra).await
    }

    /// A POST with `who`'s cookie and CSRF token, as the page sends it.
    async fn post_as(&self, who: &Who, path: &str, body: Value) -> Resp {
        let extra = Extra {
            cookie: Some(&who.cookie),
            csrf: Some(&who.csrf),
            from: None,
        };
        self.send("POST", path, Some(body), extra).await
    }

    /// Signs `name` up (the password is never to be shown again).
    async fn signup(&self, name: &str, password: &str) -> Who {
        self.never_shows(password);
        let r = self
            .post(
                "/api/account/signup",
                json!({"name": name, "password": password}),
            )
            .await;
        who_of(&r, 201)
    }

    async fn login(&self, name: &str, password: &str) -> Who {
        self.never_shows(password);
        let r = self
            .post(
                "/api/account/login",
                json!({"name": name, "password": password}),
            )
            .await;
        who_of(&r, 200)
    }

    /// The account `who`'s cookie opens, if any (`GET /api/account`).
    async fn account_of(&self, who: &Who) -> Value {
        self.get_as(who, "/api/account").await.ok(200)["account"].clone()
    }

    async fn alive(&self, who: &Who) -> bool {
        let a = self.account_of(who).await;
        if a.is_null() {
            return false;
        }
        assert_eq!(a["name"], who.name.as_str());
        assert_eq!(a["csrf"], who.csrf.as_str());
        true
    }

    async fn game(&self, id: &str) -> Value {
        self.get(&format!("/api/games/{id}")).await.ok(200)
    }

    async fn record(&self, id: &str) -> String {
        let r = self.get(&format!("/api/games/{id}/record")).await;
        assert_eq!(r.status, 200, "{}", r.body);
        r.body
    }

    /// The ids of a list of games (`GET path`).
    async fn ids(&self, path: &str, who: Option<&Who>) -> Vec<String> {
        let r = match who {
            Some(w) => self.get_as(w, path).await,
            None => self.get(path).await,
        };
        ids_of(&r.ok(200))
    }
}

fn ids_of(list: &Value) -> Vec<String> {
    list["games"]
        .as_array()
        .unwrap_or_else(|| panic!("no games: {list}"))
        .iter()
        .map(|g| g["id"].as_str().unwrap().to_string())
        .collect()
}

/// The session a signup or login answer opened: checks the answer, the cookie and the
/// account it names.
fn who_of(r: &Resp, status: u16) -> Who {
    let v = r.ok(status);
    let (cookie, _) = r.cookie();
    assert_eq!(cookie.len(), 43, "32 bytes in base64url: {cookie}");
    let csrf = v["account"]["csrf"].as_str().unwrap().to_string();
    assert_eq!(csrf.len(), 32, "{v}");
    assert_ne!(csrf, cookie);
    Who {
        name: v["account"]["name"].as_str().unwrap().to_string(),
        cookie,
        csrf,
    }
}

/// A cookie value nobody was given: 32 random bytes, as the server's own look.
fn guessed_cookie() -> String {
    use base64::Engine;
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).unwrap();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
}

/// A game made over HTTP: (id, the maker's secret, the invite token of a friend game).
async fn new_game(srv: &Srv, who: Option<&Who>, body: Value) -> (String, String, Option<String>) {
    let r = match who {
        Some(w) => srv.post_as(w, "/api/games", body).await,
        None => srv.post("/api/games", body).await,
    };
    let v = r.ok(201);
    (
        v["game"]["id"].as_str().unwrap().to_string(),
        v["secret"].as_str().unwrap().to_string(),
        v["invite"].as_str().map(str::to_string),
    )
}

/// Joins a friend game (logged in as `who`, or anonymously): the joiner's secret.
async fn join(srv: &Srv, who: Option<&Who>, id: &str, invite: &str) -> (String, Value) {
    let path = format!("/api/games/{id}/join");
    let body = json!({ "invite": invite });
    let r = match who {
        Some(w) => srv.post_as(w, &path, body).await,
        None => srv.post(&path, body).await,
    };
    let v = r.ok(200);
    (v["secret"].as_str().unwrap().to_string(), v["game"].clone())
}

async fn play(srv: &Srv, id: &str, secret: &str, mv: &str) -> Value {
    srv.post(
        &format!("/api/games/{id}/moves"),
        json!({"move": mv, "secret": secret}),
    )
    .await
    .ok(200)["game"]
        .clone()
}

async fn resign(srv: &Srv, id: &str, secret: &str) -> Value {
    srv.post(
        &format!("/api/games/{id}/resign"),
        json!({ "secret": secret }),
    )
    .await
    .ok(200)["game"]
        .clone()
}

/// A friend game between two accounts, both logged in: (id, south's secret, north's).
async fn friend_game(
    srv: &Srv,
    south: &Who,
    north: &Who,
    clock: Option<&str>,
) -> (String, String, String) {
    let mut body = json!({"mode": "friend", "side": "south"});
    if let Some(c) = clock {
        body["clock"] = json!(c);
    }
    let (id, s, invite) = new_game(srv, Some(south), body).await;
    let (n, _) = join(srv, Some(north), &id, &invite.unwrap()).await;
    (id, s, n)
}

/// A rated game between two accounts, made the way the lobby makes one (there is no HTTP
/// request for it): both seats named, ratings as they stand (new players here).
async fn rated_game(srv: &Srv, id: &str, names: [&str; 2], clock: &str) -> (String, String) {
    let secrets = [format!("{id}-south"), format!("{id}-north")];
    let rules = Rules::from_name("anywoli", 0).unwrap();
    let game = Game::new(NewGame {
        id: id.to_string(),
        at: anywoli_server::dates::now_ms(),
        mode: Mode::Friend,
        rules,
        players: BySide::both(Player::Human),
        secrets: BySide::from(secrets.clone()).map(Some),
        start: Position::start(rules),
        hints: false,
        invite: None,
        clock: Some(TimeControl::parse(clock).unwrap()),
        people: crate::support::rated_people(names),
    });
    srv.state.rounds().create(game).await.unwrap();
    let [s, n] = secrets;
    (s, n)
}

fn close(got: &Value, want: f64, within: f64) {
    let got = got
        .as_f64()
        .unwrap_or_else(|| panic!("{got} is not a number"));
    assert!(
        (got - want).abs() <= within,
        "{got} is not {want} (within {within})"
    );
}

fn sha256_hex(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

// ---- Glicko-2, from Glickman's "Example of the Glicko-2 system", for checking the server ----

/// A rating on the Glicko scale: (r, RD, σ).
type Glicko = (f64, f64, f64);

/// Steps 2 to 8 of the paper for one player and one rating period of `games`, each the
/// opponent's (r, RD) and the player's score, with system constant `tau`.
fn glicko2(player: Glicko, games: &[((f64, f64), f64)], tau: f64) -> Glicko {
    use std::f64::consts::PI;
    const SCALE: f64 = 173.7178;
    let (r, rd, sigma) = player;
    // Step 2: onto the Glicko-2 scale.
    let mu = (r - 1500.0) / SCALE;
    let phi = rd / SCALE;
    // Steps 3 and 4: the estimated variance v and the improvement Δ.
    let g = |phi_j: f64| 1.0 / (1.0 + 3.0 * phi_j * phi_j / (PI * PI)).sqrt();
    let e = |mu_j: f64, phi_j: f64| 1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp());
    let mut v_inv = 0.0;
    let mut sum = 0.0;
    for &((r_j, rd_j), s) in games {
        let (mu_j, phi_j) = ((r_j - 1500.0) / SCALE, rd_j / SCALE);
        let (gj, ej) = (g(phi_j), e(mu_j, phi_j));
        v_inv += gj * gj * ej * (1.0 - ej);
        sum += gj * (s - ej);
    }
    let v = 1.0 / v_inv;
    let delta = v * sum;
    // Step 5: the new volatility, by the Illinois algorithm.
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex).powi(2))
            - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let (mut f_a, mut f_b) = (f(big_a), f(big_b));
    while (big_b - big_a).abs() > 1e-6 {
        let big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(big_c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = big_c;
        f_b = f_c;
    }
    let sigma_new = (big_a / 2.0).exp();
    // Step 6: the pre-period deviation.
    let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
    // Step 7: the new deviation and rating.
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = mu + phi_new * phi_new * sum;
    // Step 8: back onto the Glicko scale.
    (SCALE * mu_new + 1500.0, SCALE * phi_new, sigma_new)
}

/// τ as docs/api-players.md's rating module sets it (the middle of the paper's 0.3 to 1.2).
const TAU: f64 = 0.75;

/// Both players after one game between them (each game is a rating period of its own).
fn after_game(south: Glicko, north: Glicko, score_south: f64) -> (Glicko, Glicko) {
    (
        glicko2(south, &[((north.0, north.1), score_south)], TAU),
        glicko2(north, &[((south.0, south.1), 1.0 - score_south)], TAU),
    )
}

store_test! {
    #[test]
    fn the_glicko2_used_for_checking_is_the_papers() {
        // The paper's example: 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300, τ 0.5.
        let (r, rd, sigma) = glicko2(
            (1500.0, 200.0, 0.06),
            &[
                ((1400.0, 30.0), 1.0),
                ((1550.0, 100.0), 0.0),
                ((1700.0, 300.0), 0.0),
            ],
            0.5,
        );
        assert!((r - 1464.06).abs() < 0.01, "{r}");
        assert!((rd - 151.52).abs() < 0.01, "{rd}");
        assert!((sigma - 0.05999).abs() < 1e-5, "{sigma}");
        // Two new players: the winner about 1662.3, the loser about 1337.7, both at RD 290.3.
        let new = (1500.0, 350.0, 0.06);
        let (w, l) = after_game(new, new, 1.0);
        assert!(
            (w.0 - 1662.31).abs() < 0.01 && (l.0 - 1337.69).abs() < 0.01,
            "{w:?} {l:?}"
        );
        assert!((w.1 - 290.32).abs() < 0.01 && w.1 == l.1, "{w:?} {l:?}");
    }
}

// ---- The tests ----

store_test! {
    #[tokio::test]
    async fn signing_up_sets_a_session_cookie_and_names_are_unique() {
        let srv = Srv::start(fresh_store()).await;
        let password = "correct horse battery";
        srv.never_shows(password);
        let r = srv
            .post(
                "/api/account/signup",
                json!({"name": "Abula", "password": password}),
            )
            .await;
        let v = r.ok(201);
        assert_eq!(v["claimed"], 0);
        assert_eq!(v["account"]["name"], "Abula");
        let (cookie, attrs) = r.cookie();
        for want in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=2592000"] {
            assert!(attrs.iter().any(|a| a == want), "{want} in {attrs:?}");
        }
        assert!(
            !attrs.iter().any(|a| a.eq_ignore_ascii_case("secure")),
            "no Secure over plain http: {attrs:?}"
        );
        let me = who_of(&r, 201);
        assert!(srv.alive(&me).await);
        assert_eq!(
            srv.get("/api/account").await.ok(200),
            json!({ "account": null })
        );

        // The store keeps an Argon2id hash and the SHA-256 of the cookie, never the password or
        // the cookie itself.
        let account = srv
            .state
            .rounds()
            .db(|s| s.account("abula"))
            .await
            .unwrap()
            .unwrap();
        assert!(
            account.hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{}",
            account.hash
        );
        assert!(!account.hash.contains(password));
        srv.never_shows(&account.hash);
        assert!(srv.alive(&me).await, "GET /api/account shows no hash");
        let (raw, hashed) = (cookie.clone(), sha256_hex(&cookie));
        let stored = srv
            .state
            .rounds()
            .db(move |s| {
                let now = anywoli_server::dates::now_ms();
                Ok((s.session(&raw, now)?, s.session(&hashed, now)?))
            })
            .await
            .unwrap();
        assert!(stored.0.is_none(), "the cookie's value is not stored");
        let session = stored
            .1
            .expect("the session is kept by the cookie's SHA-256");
        assert_eq!(
            (session.name.as_str(), session.csrf.as_str()),
            ("Abula", me.csrf.as_str())
        );

        // The name is taken in any case, and the refusal changes nothing.
        srv.never_shows("another password");
        srv.post(
            "/api/account/signup",
            json!({"name": "ABULA", "password": "another password"}),
        )
        .await
        .is_error(409, "name_taken");
        srv.login("abula", password).await;
        srv.post(
            "/api/account/login",
            json!({"name": "ABULA", "password": "another password"}),
        )
        .await
        .is_error(401, "bad_login");
        // Two at once for one name: one account, and the other is told the name is taken.
        srv.never_shows("kwame's password");
        let body = |name: &str| json!({"name": name, "password": "kwame's password"});
        let (x, y) = tokio::join!(
            srv.post("/api/account/signup", body("Kwame")),
            srv.post("/api/account/signup", body("KWAME")),
        );
        let mut statuses = [x.status, y.status];
        statuses.sort();
        assert_eq!(statuses, [201, 409], "{} {}", x.body, y.body);
        let profile = srv.get("/api/players/abula").await.ok(200);
        assert_eq!(profile["name"], "Abula");
        assert!(!profile.to_string().contains("argon2"));

        for bad in [
            "a",
            "_abula",
            "-abula",
            "ab ula",
            "abula!",
            "Ābula",
            "ABCDEFGHIJKLMNOPQRSTU",
            "",
        ] {
            srv.post(
                "/api/account/signup",
                json!({"name": bad, "password": "long enough"}),
            )
            .await
            .is_error(400, "bad_name");
        }
        let long = "x".repeat(257);
        for bad in ["Zq7#kP2", "ééééééé", long.as_str()] {
            srv.never_shows(bad);
            srv.post(
                "/api/account/signup",
                json!({"name": "Okello", "password": bad}),
            )
            .await
            .is_error(400, "bad_password");
        }
        srv.get("/api/players/okello")
            .await
            .is_error(404, "unknown_player");
        // Characters are counted, not bytes: 8 two-byte letters are enough, 256 is the most.
        srv.signup("Okello", "éééééééé").await;
        srv.signup("Ama_7", &"x".repeat(256)).await;
        srv.post(
            "/api/account/signup",
            json!({"name": "Kofi", "password": "long enough", "admin": true}),
        )
        .await
        .is_error(400, "malformed");
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn cookies_are_secure_when_the_public_url_is_https() {
        for (url, secure) in [
            ("https://anywoli.example.org", true),
            ("http://anywoli.example.org", false),
        ] {
            let srv = Srv::start_with(fresh_store(), Some(url), |_| {}).await;
            let password = "twelve chars";
            srv.never_shows(password);
            let signup = srv
                .post(
                    "/api/account/signup",
                    json!({"name": "Abula", "password": password}),
                )
                .await;
            let login = srv
                .post(
                    "/api/account/login",
                    json!({"name": "Abula", "password": password}),
                )
                .await;
            let who = who_of(&login, 200);
            let logout = srv.post_as(&who, "/api/account/logout", json!({})).await;
            logout.ok(200);
            for r in [&signup, &login, &logout] {
                let (_, attrs) = r.cookie();
                assert_eq!(
                    attrs.iter().any(|a| a == "Secure"),
                    secure,
                    "{url}: {attrs:?}"
                );
                assert!(attrs.iter().any(|a| a == "HttpOnly"), "{attrs:?}");
                assert!(attrs.iter().any(|a| a == "SameSite=Lax"), "{attrs:?}");
            }
            let (cleared, attrs) = logout.cookie();
            assert_eq!(cleared, "", "logging out empties the cookie");
            assert!(attrs.iter().any(|a| a == "Max-Age=0"), "{attrs:?}");
            srv.stop().await;
        }
    }
}

store_test! {
    #[tokio::test]
    async fn logging_in_and_the_limit_on_failures_for_a_name() {
        // The usual limits per address: each attempt below comes from an address of its own, so
        // only the limit per name can refuse it.
        let srv = Srv::start_with(fresh_store(), None, |o| o.rates = RateLimits::default()).await;
        let password = "s3cret enough";
        let a = srv.signup("Abula", password).await;
        let b = srv.signup("Okello", "okello's password").await;
        srv.never_shows("wrong password");
        let mut n = 0;
        let mut login = |name: &'static str, pw: &'static str| {
            n += 1;
            let from = format!("10.0.{}.{}", n / 200, n % 200 + 1);
            let srv = &srv;
            async move {
                let body = json!({"name": name, "password": pw});
                let extra = Extra {
                    from: Some(&from),
                    ..Extra::default()
                };
                srv.send("POST", "/api/account/login", Some(body), extra)
                    .await
            }
        };

        let r = login("ABULA", password).await;
        let again = who_of(&r, 200);
        assert_eq!(again.name, "Abula", "the name as it was typed at signup");
        assert_ne!(again.cookie, a.cookie, "a session of its own");
        assert!(r.json().get("claimed").is_none(), "{}", r.body);
        assert!(srv.alive(&a).await && srv.alive(&again).await);

        // A wrong password and an unknown name are the same refusal.
        let mut refusals = Vec::new();
        for name in ["Abula", "nobody", "abula", "Nobody", "aBULA"] {
            let r = login(name, "wrong password").await;
            r.is_error(401, "bad_login");
            assert!(r.header("set-cookie").is_none());
            refusals.push(r.body);
        }
        assert!(refusals.windows(2).all(|w| w[0] == w[1]), "{refusals:?}");

        // Three failures for the name so far, and the right password still opens a session: the
        // limit counts failures, not attempts.
        who_of(&login("abula", password).await, 200);
        for name in ["abulA", "ABULA"] {
            login(name, "wrong password")
                .await
                .is_error(401, "bad_login");
        }

        // Five failures for the name, in any case, from five addresses: none of them is locked
        // out, and neither is the owner (issue 36: anybody could lock anybody out).
        who_of(&login("Abula", password).await, 200);
        // Five from one address lock that address out of that name, even with the right
        // password, and say when to try again; the owner elsewhere still logs in.
        let guesser = Extra {
            from: Some("198.51.100.66"),
            ..Extra::default()
        };
        for _ in 0..5 {
            let body = json!({"name": "abula", "password": "wrong password"});
            srv.send("POST", "/api/account/login", Some(body), guesser)
                .await
                .is_error(401, "bad_login");
        }
        let body = json!({"name": "ABULA", "password": password});
        let r = srv
            .send("POST", "/api/account/login", Some(body), guesser)
            .await;
        r.is_error(429, "rate_limited");
        assert!(r.header("set-cookie").is_none());
        let wait: u64 = r.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=15 * 60).contains(&wait), "{wait}");
        who_of(&login("abula", password).await, 200);
        // Another name is not locked (not even the unknown one that failed twice), and the
        // sessions already open go on.
        who_of(&login("okello", "okello's password").await, 200);
        login("nobody", "wrong password")
            .await
            .is_error(401, "bad_login");
        assert!(srv.alive(&a).await && srv.alive(&again).await && srv.alive(&b).await);
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn signups_and_logins_are_limited_per_address() {
        // 6 a minute: a burst of 5 at once, then one every 10 s.
        let srv = Srv::start_with(fresh_store(), None, |o| {
            o.rates = RateLimits {
                logins_per_minute: 6,
                ..no_limits()
            }
        })
        .await;
        srv.signup("Abula", "abula's password").await; // from 127.0.0.1
        srv.never_shows("a fine password");
        let from = "203.0.113.7";
        let requests = (0..8).map(|i| {
            let (path, name) = if i % 2 == 0 {
                ("/api/account/signup", format!("player{i}"))
            } else {
                ("/api/account/login", "Abula".to_string())
            };
            let srv = &srv;
            async move {
                let body = json!({"name": name, "password": "a fine password"});
                let extra = Extra {
                    from: Some(from),
                    ..Extra::default()
                };
                (name, srv.send("POST", path, Some(body), extra).await)
            }
        });
        // All at once, so that no time passes for the bucket to refill.
        let answers = futures_util::future::join_all(requests).await;
        let mut refused = 0;
        for (name, r) in &answers {
            match r.status {
                429 => {
                    refused += 1;
                    r.is_error(429, "rate_limited");
                    let wait: u64 = r.header("retry-after").unwrap().parse().unwrap();
                    assert!((1..=10).contains(&wait), "{wait}");
                    if name != "Abula" {
                        srv.get(&format!("/api/players/{name}"))
                            .await
                            .is_error(404, "unknown_player");
                    }
                }
                201 => assert_ne!(name, "Abula"),
                401 => assert_eq!(name, "Abula"),
                other => panic!("{other}: {}", r.body),
            }
        }
        assert_eq!(refused, 3, "a burst of 5 from one address");
        // Another address is not held back by the first.
        let r = srv
            .send(
                "POST",
                "/api/account/signup",
                Some(json!({"name": "Kofi", "password": "a fine password"})),
                Extra {
                    from: Some("198.51.100.9"),
                    ..Extra::default()
                },
            )
            .await;
        who_of(&r, 201);
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn every_post_the_cookie_authenticates_needs_the_sessions_csrf_token() {
        let srv = Srv::start(fresh_store()).await;
        let a = srv.signup("Abula", "abula's password").await;
        let b = srv.signup("Okello", "okello's password").await;
        let (mine, _, _) = new_game(&srv, Some(&a), json!({"mode": "computer"})).await;
        let (anon, anon_secret, _) = new_game(&srv, None, json!({"mode": "computer"})).await;
        let (open, _, invite) = new_game(&srv, None, json!({"mode": "friend"})).await;
        let mine_before = srv.get_as(&a, "/api/games?mine=true").await.ok(200)["games"].clone();
        srv.never_shows("abula's new password");
        let posts = [
            // Made or joined with the cookie, a game would be the account's (issue 36: these
            // took no token).
            ("/api/games".to_string(), json!({"mode": "computer"})),
            (
                format!("/api/games/{open}/join"),
                json!({ "invite": invite }),
            ),
            ("/api/account/logout".to_string(), json!({})),
            ("/api/account/logout-all".to_string(), json!({})),
            (
                "/api/account/password".to_string(),
                json!({"old": "abula's password", "new": "abula's new password"}),
            ),
            (
                "/api/account/claim".to_string(),
                json!({"seats": [{"game": anon, "secret": anon_secret}]}),
            ),
            (format!("/api/games/{mine}/seat"), json!({})),
        ];
        let zeros = "0".repeat(32);
        for (path, body) in &posts {
            for csrf in [None, Some(b.csrf.as_str()), Some(zeros.as_str()), Some("")] {
                let extra = Extra {
                    cookie: Some(&a.cookie),
                    csrf,
                    from: None,
                };
                let r = srv.send("POST", path, Some(body.clone()), extra).await;
                r.is_error(403, "csrf");
                assert!(r.header("set-cookie").is_none(), "{path}");
            }
            // Another session's cookie with this session's token is refused too.
            let extra = Extra {
                cookie: Some(&b.cookie),
                csrf: Some(&a.csrf),
                from: None,
            };
            srv.send("POST", path, Some(body.clone()), extra)
                .await
                .is_error(403, "csrf");
        }
        // Nothing changed: both sessions are open, the password is the old one, the anonymous
        // seat is nobody's.
        assert!(srv.alive(&a).await && srv.alive(&b).await);
        srv.login("Abula", "abula's password").await;
        srv.post(
            "/api/account/login",
            json!({"name": "Abula", "password": "abula's new password"}),
        )
        .await
        .is_error(401, "bad_login");
        assert_eq!(
            srv.game(&anon).await["seats"]["south"]["player"],
            Value::Null
        );
        assert_eq!(
            srv.game(&open).await["seats"]["north"]["player"],
            Value::Null
        );
        assert_eq!(
            srv.get_as(&a, "/api/games?mine=true").await.ok(200)["games"],
            mine_before,
            "no game was made for the account"
        );

        // With the token, each works.
        let seat = srv
            .post_as(&a, &format!("/api/games/{mine}/seat"), json!({}))
            .await
            .ok(200);
        assert_eq!(seat["seat"], "south");
        let claimed = srv
            .post_as(&a, "/api/account/claim", posts[5].1.clone())
            .await
            .ok(200);
        assert_eq!(claimed, json!({"claimed": 1}));
        assert_eq!(srv.game(&anon).await["seats"]["south"]["player"], "Abula");
        srv.post_as(&b, "/api/account/logout", json!({}))
            .await
            .ok(200);
        assert!(!srv.alive(&b).await);
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn sessions_end_as_asked_and_a_guessed_cookie_opens_none() {
        let srv = Srv::start(fresh_store()).await;
        let password = "abula's password";
        let a1 = srv.signup("Abula", password).await;
        let a2 = srv.login("Abula", password).await;
        let a3 = srv.login("abula", password).await;
        let b = srv.signup("Okello", "okello's password").await;

        // A guessed cookie (of the right shape, or not) is no session.
        let guessed = Who {
            name: "Abula".into(),
            cookie: guessed_cookie(),
            csrf: a1.csrf.clone(),
        };
        assert_eq!(guessed.cookie.len(), 43);
        assert!(!srv.alive(&guessed).await);
        for path in ["/api/account/logout-all", "/api/account/claim"] {
            srv.post_as(&guessed, path, json!({"seats": []}))
                .await
                .is_error(401, "not_logged_in");
        }
        // Logging out with a cookie that opens no session just clears it.
        let out = srv
            .post_as(&guessed, "/api/account/logout", json!({}))
            .await;
        assert_eq!(out.ok(200), json!({}));
        let (value, attrs) = out.cookie();
        assert!(
            value.is_empty() && attrs.iter().any(|a| a == "Max-Age=0"),
            "{attrs:?}"
        );
        srv.get_as(&guessed, "/api/games?mine=true")
            .await
            .is_error(401, "not_logged_in");
        let short = Who {
            cookie: a1.cookie[..42].to_string(),
            ..a1.clone()
        };
        assert!(!srv.alive(&short).await);
        // Still nobody's after all that.
        assert!(srv.alive(&a1).await);

        // Another account's session does not get my seat.
        let (g, secret, _) = new_game(&srv, Some(&a1), json!({"mode": "computer"})).await;
        let seat = format!("/api/games/{g}/seat");
        srv.post_as(&b, &seat, json!({}))
            .await
            .is_error(403, "not_your_seat");
        let got = srv.post_as(&a2, &seat, json!({})).await.ok(200);
        assert_eq!(got["secret"], secret.as_str(), "any session of the account");
        srv.post_as(&a2, "/api/games/abcdefghijkm/seat", json!({}))
            .await
            .is_error(404, "unknown_game");

        // Logging out ends that session only.
        let r = srv.post_as(&a1, "/api/account/logout", json!({})).await;
        assert_eq!(r.ok(200), json!({}));
        assert!(!srv.alive(&a1).await);
        srv.post_as(&a1, &seat, json!({}))
            .await
            .is_error(401, "not_logged_in");
        assert!(srv.alive(&a2).await && srv.alive(&a3).await && srv.alive(&b).await);

        // Logging out everywhere ends every session of the account, this one too.
        srv.post_as(&a2, "/api/account/logout-all", json!({}))
            .await
            .ok(200);
        assert!(!srv.alive(&a2).await && !srv.alive(&a3).await);
        assert!(srv.alive(&b).await, "other accounts' sessions go on");

        // A new password ends the other sessions and keeps this one; the old one no longer works.
        let s1 = srv.login("Abula", password).await;
        let s2 = srv.login("Abula", password).await;
        let new_password = "abula's better password";
        srv.never_shows(new_password);
        srv.post_as(
            &s1,
            "/api/account/password",
            json!({"old": "not the password", "new": new_password}),
        )
        .await
        .is_error(403, "bad_login");
        srv.never_shows("Zq7#kP2");
        srv.post_as(
            &s1,
            "/api/account/password",
            json!({"old": password, "new": "Zq7#kP2"}),
        )
        .await
        .is_error(400, "bad_password");
        assert!(
            srv.alive(&s1).await && srv.alive(&s2).await,
            "refusals end nothing"
        );
        let r = srv
            .post_as(
                &s1,
                "/api/account/password",
                json!({"old": password, "new": new_password}),
            )
            .await;
        assert_eq!(r.ok(200), json!({}));
        assert!(srv.alive(&s1).await, "the session that changed it goes on");
        assert!(!srv.alive(&s2).await, "the others end");
        assert!(srv.alive(&b).await);
        srv.post(
            "/api/account/login",
            json!({"name": "Abula", "password": password}),
        )
        .await
        .is_error(401, "bad_login");
        srv.login("Abula", new_password).await;
        let hash = srv
            .state
            .rounds()
            .db(|s| s.account("abula"))
            .await
            .unwrap()
            .unwrap()
            .hash;
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        srv.never_shows(&hash);
        assert!(srv.alive(&s1).await);
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn sessions_run_out_after_thirty_days() {
        use anywoli_server::store::{AccountOp, SessionRow, SESSION_MS};
        let srv = Srv::start(fresh_store()).await;
        let a = srv.signup("Abula", "abula's password").await;
        // Two sessions as the store would keep them, one made just within 30 days, one just past.
        let now = anywoli_server::dates::now_ms();
        let old = |name: &str, created: i64| {
            let who = Who {
                name: name.to_string(),
                cookie: guessed_cookie(),
                csrf: format!("{created:032}"),
            };
            let row = SessionRow {
                token: sha256_hex(&who.cookie),
                name: who.name.clone(),
                csrf: who.csrf.clone(),
                created,
            };
            (who, row)
        };
        let (recent, recent_row) = old("Abula", now - SESSION_MS + 3_600_000);
        let (stale, stale_row) = old("Abula", now - SESSION_MS - 60_000);
        let stale_created = stale_row.created;
        for row in [recent_row, stale_row] {
            srv.state
                .rounds()
                .db(move |s| s.account_op(AccountOp::AddSession(row)))
                .await
                .unwrap();
        }
        assert!(srv.alive(&recent).await);
        assert!(
            !srv.alive(&stale).await,
            "a session past 30 days opens nothing"
        );
        srv.post_as(&stale, "/api/account/logout-all", json!({}))
            .await
            .is_error(401, "not_logged_in");
        assert!(srv.alive(&a).await && srv.alive(&recent).await);
        // The store still has it until the account logs in again, which clears it out.
        let token = sha256_hex(&stale.cookie);
        let kept = |token: String| {
            let srv = &srv;
            async move {
                srv.state
                    .rounds()
                    .db(move |s| s.session(&token, stale_created + 1))
                    .await
                    .unwrap()
                    .is_some()
            }
        };
        assert!(kept(token.clone()).await);
        srv.login("abula", "abula's password").await;
        assert!(
            !kept(token).await,
            "logging in takes the account's stale sessions away"
        );
        assert!(srv.alive(&a).await && srv.alive(&recent).await);
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn seats_taken_while_logged_in_or_claimed_belong_to_the_account() {
        let srv = Srv::start(fresh_store()).await;
        let a = srv.signup("Abula", "abula's password").await;
        let b = srv.signup("Okello", "okello's password").await;

        // A game made while logged in is the account's; its secret can be fetched again.
        let (g, a_secret, invite) =
            new_game(&srv, Some(&a), json!({"mode": "friend", "side": "south"})).await;
        let view = srv.game(&g).await;
        assert_eq!(view["seats"]["south"]["player"], "Abula");
        assert_eq!(view["seats"]["north"]["player"], Value::Null);
        assert_eq!(
            (view["rated"].clone(), view["public"].clone()),
            (json!(false), json!(false))
        );
        let seat = srv
            .post_as(&a, &format!("/api/games/{g}/seat"), json!({}))
            .await
            .ok(200);
        assert_eq!(
            (seat["seat"].as_str(), seat["secret"].as_str()),
            (Some("south"), Some(a_secret.as_str()))
        );
        assert_eq!(
            srv.ids("/api/games?mine=true", Some(&a)).await,
            vec![g.clone()]
        );
        srv.get("/api/games?mine=true")
            .await
            .is_error(401, "not_logged_in");
        srv.get_as(&a, "/api/games?mine=yes")
            .await
            .is_error(400, "malformed");

        // A friend who joins while logged in is named too.
        let (b_secret, joined) = join(&srv, Some(&b), &g, &invite.unwrap()).await;
        assert_eq!(joined["seats"]["north"]["player"], "Okello");
        assert_eq!(srv.game(&g).await["seats"]["north"]["player"], "Okello");
        assert_eq!(
            srv.ids("/api/games?mine=true", Some(&b)).await,
            vec![g.clone()]
        );
        let seat = srv
            .post_as(&b, &format!("/api/games/{g}/seat"), json!({}))
            .await
            .ok(200);
        assert_eq!(
            (seat["seat"].as_str(), seat["secret"].as_str()),
            (Some("north"), Some(b_secret.as_str()))
        );
        play(&srv, &g, &a_secret, "e").await;
        let record = srv.record(&g).await;
        assert!(record.contains("[South \"Abula\"]"), "{record}");
        assert!(record.contains("[North \"Okello\"]"), "{record}");
        assert!(!record.contains("[Rated "), "{record}");

        // Seats played anonymously come along at signup, each with the secret that proves it.
        let (computer, c_secret, _) = new_game(&srv, None, json!({"mode": "computer"})).await;
        let (local, l_secret, _) = new_game(&srv, None, json!({"mode": "local"})).await;
        let (other, _, _) = new_game(&srv, None, json!({"mode": "computer"})).await;
        srv.never_shows("kofi's password");
        let r = srv
            .post(
                "/api/account/signup",
                json!({"name": "Kofi", "password": "kofi's password", "seats": [
                    {"game": computer, "secret": c_secret},
                    {"game": local, "secret": l_secret},
                    {"game": other, "secret": c_secret},
                    {"game": "abcdefghijkm", "secret": c_secret},
                    {"game": g, "secret": a_secret},
                ]}),
            )
            .await;
        assert_eq!(
            r.ok(201)["claimed"],
            3,
            "one seat and the two of one screen"
        );
        let k = who_of(&r, 201);
        let view = srv.game(&computer).await;
        assert_eq!(view["seats"]["south"]["player"], "Kofi");
        assert_eq!(
            view["seats"]["north"]["player"],
            Value::Null,
            "the computer"
        );
        let view = srv.game(&local).await;
        assert_eq!(view["seats"]["south"]["player"], "Kofi");
        assert_eq!(view["seats"]["north"]["player"], "Kofi");
        assert_eq!(
            srv.game(&other).await["seats"]["south"]["player"],
            Value::Null
        );
        assert_eq!(
            srv.game(&g).await["seats"]["south"]["player"],
            "Abula",
            "an owned seat stays"
        );
        let mut mine = srv.ids("/api/games?mine=true", Some(&k)).await;
        mine.sort();
        let mut want = vec![computer.clone(), local.clone()];
        want.sort();
        assert_eq!(mine, want);
        let record = srv.record(&computer).await;
        assert!(record.contains("[South \"Kofi\"]"), "{record}");

        // And later, with the claim request; a wrong secret claims nothing.
        let (later, later_secret, _) =
            new_game(&srv, None, json!({"mode": "computer", "side": "north"})).await;
        let claim = |secret: &str| json!({"seats": [{"game": later, "secret": secret}]});
        let r = srv
            .post_as(&k, "/api/account/claim", claim(&c_secret))
            .await;
        assert_eq!(r.ok(200), json!({"claimed": 0}));
        assert_eq!(
            srv.game(&later).await["seats"]["north"]["player"],
            Value::Null
        );
        let r = srv
            .post_as(&k, "/api/account/claim", claim(&later_secret))
            .await;
        assert_eq!(r.ok(200), json!({"claimed": 1}));
        assert_eq!(srv.game(&later).await["seats"]["north"]["player"], "Kofi");
        // Claiming it again, or into another account, moves nothing.
        let r = srv
            .post_as(&a, "/api/account/claim", claim(&later_secret))
            .await;
        assert_eq!(r.ok(200), json!({"claimed": 0}));
        assert_eq!(srv.game(&later).await["seats"]["north"]["player"], "Kofi");
        let many: Vec<Value> = (0..201)
            .map(|_| json!({"game": later, "secret": later_secret}))
            .collect();
        srv.post_as(&k, "/api/account/claim", json!({ "seats": many }))
            .await
            .is_error(400, "malformed");
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn only_public_games_are_listed_while_they_are_played() {
        let srv = Srv::start(fresh_store()).await;
        let a = srv.signup("Abula", "abula's password").await;
        let b = srv.signup("Okello", "okello's password").await;
        let (g, s, n) = friend_game(&srv, &a, &b, None).await;
        let (quiet, quiet_s, _) = friend_game(&srv, &a, &b, None).await;
        assert_eq!(srv.game(&g).await["public"], false);
        assert!(!srv.ids("/api/games", None).await.contains(&g));
        assert!(!srv.ids("/api/games?live=true", None).await.contains(&g));
        assert!(srv.ids("/api/games?mine=true", Some(&a)).await.contains(&g));

        // Only a player can make it public.
        srv.post(
            &format!("/api/games/{g}/public"),
            json!({"secret": "0".repeat(32), "public": true}),
        )
        .await
        .is_error(403, "wrong_secret");
        assert!(!srv.ids("/api/games", None).await.contains(&g));
        let r = srv
            .post(
                &format!("/api/games/{g}/public"),
                json!({"secret": n, "public": true}),
            )
            .await;
        assert_eq!(r.ok(200)["game"]["public"], true);
        assert_eq!(srv.game(&g).await["public"], true);
        assert!(srv.ids("/api/games", None).await.contains(&g));
        assert_eq!(srv.ids("/api/games?live=true", None).await, vec![g.clone()]);

        // Finished games are listed, public or not, and are no longer live.
        play(&srv, &g, &s, "e").await;
        resign(&srv, &g, &n).await;
        resign(&srv, &quiet, &quiet_s).await;
        let listed = srv.ids("/api/games", None).await;
        assert!(listed.contains(&g) && listed.contains(&quiet), "{listed:?}");
        assert_eq!(
            srv.ids("/api/games?live=true", None).await,
            Vec::<String>::new()
        );
        let list = srv.get("/api/games").await.ok(200);
        let line = list["games"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == g.as_str())
            .unwrap()
            .clone();
        assert_eq!(line["players"], json!(["Abula", "Okello"]));
        assert_eq!(line["rated"], false);
        srv.get("/api/games?live=maybe")
            .await
            .is_error(400, "malformed");
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn a_rated_game_rates_both_players_once() {
        let db = fresh_db("rated");
        let srv = Srv::start(Store::open_db(&db).unwrap()).await;
        srv.signup("Abula", "abula's password").await;
        srv.signup("Okello", "okello's password").await;
        let id = "ratedgame234";
        let (s, n) = rated_game(&srv, id, ["Abula", "Okello"], "5+3").await;
        let view = srv.game(id).await;
        assert_eq!(view["rated"], true);
        assert_eq!(view["category"], "blitz");
        assert_eq!(view["seats"]["south"]["player"], "Abula");
        assert_eq!(view["seats"]["north"]["player"], "Okello");
        assert_eq!(
            view["seats"]["south"]["rating"],
            json!({"rating": 1500.0, "provisional": true})
        );
        assert_eq!(view["rating_change"], Value::Null);
        let before = srv.get("/api/players/Abula").await.ok(200);
        assert_eq!(before["ratings"], json!([]));
        assert_eq!(before["history"], json!([]));

        // Four plies: a game resigned sooner is not rated (the next test).
        for (secret, mv) in [(&s, "e"), (&n, "F"), (&s, "a"), (&n, "A")] {
            play(&srv, id, secret, mv).await;
        }
        let over = resign(&srv, id, &n).await;
        assert_eq!(
            (over["status"].as_str(), over["result"].as_str()),
            (Some("over"), Some("1-0"))
        );

        // Two new players (1500, RD 350, σ 0.06); South won.
        let new = (1500.0, 350.0, 0.06);
        let (w, l) = after_game(new, new, 1.0);
        let change = over["rating_change"].clone();
        assert_eq!(change["south"]["before"], 1500.0);
        close(&change["south"]["after"], w.0, 1e-6);
        assert_eq!(change["south"]["diff"], 162);
        assert_eq!(change["south"]["provisional"], true);
        assert_eq!(change["north"]["before"], 1500.0);
        close(&change["north"]["after"], l.0, 1e-6);
        assert_eq!(change["north"]["diff"], -162);
        assert_eq!(srv.game(id).await["rating_change"], change);

        check_profiles(&srv, id, w, l).await;

        // The game ends once: ending it again in any way is refused and rates nothing.
        for (path, secret) in [("resign", &s), ("resign", &n), ("abort", &s), ("claim", &s)] {
            srv.post(
                &format!("/api/games/{id}/{path}"),
                json!({ "secret": secret }),
            )
            .await
            .is_error(409, "game_over");
        }
        srv.post(
            &format!("/api/games/{id}/offer"),
            json!({"secret": s, "offer": "draw"}),
        )
        .await
        .is_error(409, "game_over");
        check_profiles(&srv, id, w, l).await;

        // Nor when the game is read again from the database by a server started anew.
        srv.stop().await;
        let srv = Srv::start(Store::open_db(&db).unwrap()).await;
        srv.never_shows("abula's password");
        srv.never_shows("okello's password");
        let view = srv.game(id).await;
        assert_eq!(view["rating_change"], change);
        assert_eq!(view["status"], "over");
        srv.post(&format!("/api/games/{id}/resign"), json!({ "secret": s }))
            .await
            .is_error(409, "game_over");
        check_profiles(&srv, id, w, l).await;
        let record = srv.record(id).await;
        for tag in [
            "[South \"Abula\"]",
            "[North \"Okello\"]",
            "[SouthRating \"1500\"]",
            "[NorthRating \"1500\"]",
            "[Rated \"yes\"]",
            "[TimeControl \"5+3\"]",
        ] {
            assert!(record.contains(tag), "{tag} in {record}");
        }

        // The rematch is rated too, from the ratings as the first game left them.
        let r = srv
            .post(&format!("/api/games/{id}/rematch"), json!({ "secret": s }))
            .await;
        let next = r.ok(201)["game"].clone();
        let next_id = next["id"].as_str().unwrap().to_string();
        assert_eq!(next["rated"], true);
        assert_eq!(next["seats"]["south"]["player"], "Okello");
        assert_eq!(next["seats"]["north"]["player"], "Abula");
        close(&next["seats"]["south"]["rating"]["rating"], l.0, 1e-6);
        close(&next["seats"]["north"]["rating"]["rating"], w.0, 1e-6);
        // Okello (South now, with North's old secret) wins this one.
        for (secret, mv) in [(&n, "e"), (&s, "F"), (&n, "a"), (&s, "A")] {
            play(&srv, &next_id, secret, mv).await;
        }
        let over = resign(&srv, &next_id, &s).await;
        assert_eq!(over["result"], "1-0");
        let (l2, w2) = after_game(l, w, 1.0);
        close(&over["rating_change"]["south"]["after"], l2.0, 1e-3);
        close(&over["rating_change"]["north"]["after"], w2.0, 1e-3);
        let p = srv.get("/api/players/abula").await.ok(200);
        assert_eq!(
            p["counts"],
            json!({"games": 2, "wins": 1, "draws": 0, "losses": 1})
        );
        close(&p["ratings"][0]["rating"], w2.0, 1e-3);
        close(&p["ratings"][0]["deviation"], w2.1, 1e-3);
        assert_eq!(p["ratings"][0]["games"], 2);
        let history = p["history"].as_array().unwrap();
        assert_eq!(history.len(), 2);
        assert_eq!(
            (history[0]["game"].as_str(), history[1]["game"].as_str()),
            (Some(id), Some(next_id.as_str()))
        );
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn a_rated_game_ended_on_two_instances_is_rated_once() {
        // Server instances share games through PostgreSQL only.
        let db = fresh_db("two-instances");
        if !anywoli_server::store::is_postgres_url(&db.to_string_lossy()) {
            eprintln!("two instances need PostgreSQL: this test runs in accounts_postgres");
            return;
        }
        let one = Srv::start(Store::open_db(&db).unwrap()).await;
        let two = Srv::start(Store::open_db(&db).unwrap()).await;
        one.signup("Abula", "abula's password").await;
        two.signup("Okello", "okello's password").await;
        let id = "ratedgame235";
        let (s, n) = rated_game(&one, id, ["Abula", "Okello"], "3+2").await;
        // South's moves on the first instance, North's on the other (four plies: a game resigned
        // sooner is not rated); each instance's round falls behind the other's.
        play(&one, id, &s, "e").await;
        play(&two, id, &n, "F").await;
        play(&one, id, &s, "a").await;
        play(&two, id, &n, "A").await;
        let over = resign(&two, id, &n).await;
        assert_eq!(over["result"], "1-0");
        let change = over["rating_change"].clone();
        assert_eq!(change["south"]["diff"], 162, "{over}");
        // South resigning on the first instance finds the game over, and rates nothing again.
        one.post(&format!("/api/games/{id}/resign"), json!({ "secret": s }))
            .await
            .is_error(409, "game_over");
        for srv in [&one, &two] {
            let view = srv.game(id).await;
            assert_eq!(
                (view["status"].as_str(), view["result"].as_str()),
                (Some("over"), Some("1-0"))
            );
            assert_eq!(view["rating_change"], change);
            let new = (1500.0, 350.0, 0.06);
            let (w, l) = after_game(new, new, 1.0);
            check_profiles(srv, id, w, l).await;
        }
        two.stop().await;
        one.stop().await;
    }
}

/// Both players' profiles after the first rated game between them, South (Abula) the winner.
async fn check_profiles(srv: &Srv, id: &str, w: Glicko, l: Glicko) {
    for (name, me, wins, losses) in [("Abula", w, 1, 0), ("okello", l, 0, 1)] {
        let p = srv.get(&format!("/api/players/{name}")).await.ok(200);
        assert_eq!(
            p["counts"],
            json!({"games": 1, "wins": wins, "draws": 0, "losses": losses})
        );
        let ratings = p["ratings"].as_array().unwrap();
        assert_eq!(ratings.len(), 1, "{p}");
        let r = &ratings[0];
        assert_eq!(r["category"], "blitz");
        assert_eq!(r["rules"], "anywoli");
        close(&r["rating"], me.0, 1e-6);
        close(&r["deviation"], me.1, 1e-6);
        close(&r["volatility"], me.2, 1e-7);
        assert_eq!(r["provisional"], true);
        assert_eq!(r["games"], 1);
        let history = p["history"].as_array().unwrap();
        assert_eq!(history.len(), 1, "{p}");
        assert_eq!(history[0]["game"], id);
        assert_eq!(history[0]["category"], "blitz");
        close(&history[0]["rating"], me.0, 1e-6);
        close(&history[0]["deviation"], me.1, 1e-6);
    }
}

/// The ids of a list of games (`GET path`, as `who` or anonymously), sorted.
async fn sorted_ids(srv: &Srv, who: Option<&Who>, path: &str) -> Vec<String> {
    let mut ids = srv.ids(path, who).await;
    ids.sort();
    ids
}

store_test! {
    #[tokio::test]
    async fn profiles_and_their_lists_of_games() {
        let srv = Srv::start(fresh_store()).await;
        let a = srv.signup("Abula", "abula's password").await;
        let b = srv.signup("Okello", "okello's password").await;

        // A rated blitz win, an unrated rapid loss, a draw, and a game still going on.
        let rated = "ratedgame234";
        let (rs, rn) = rated_game(&srv, rated, ["Abula", "Okello"], "5+3").await;
        for (secret, mv) in [(&rs, "e"), (&rn, "F"), (&rs, "a"), (&rn, "A")] {
            play(&srv, rated, secret, mv).await;
        }
        resign(&srv, rated, &rn).await;
        let (rapid, rapid_s, _) = friend_game(&srv, &a, &b, Some("10+0")).await;
        resign(&srv, &rapid, &rapid_s).await;
        let (drawn, ds, dn) = friend_game(&srv, &a, &b, None).await;
        play(&srv, &drawn, &ds, "e").await;
        play(&srv, &drawn, &dn, "F").await;
        srv.post(
            &format!("/api/games/{drawn}/offer"),
            json!({"secret": ds, "offer": "draw"}),
        )
        .await
        .ok(200);
        let r = srv
            .post(
                &format!("/api/games/{drawn}/offer/accept"),
                json!({ "secret": dn }),
            )
            .await;
        assert_eq!(r.ok(200)["game"]["result"], "1/2-1/2");
        let (live, live_secret, _) =
            new_game(&srv, Some(&a), json!({"mode": "friend", "clock": "3+2"})).await;

        for name in ["Abula", "abula", "ABULA", "aBuLa"] {
            let p = srv.get(&format!("/api/players/{name}")).await.ok(200);
            assert_eq!(p["name"], "Abula");
            assert_eq!(
                p["counts"],
                json!({"games": 3, "wins": 1, "draws": 1, "losses": 1})
            );
            assert!(p["created"].as_i64().unwrap() > 0);
            assert_eq!(p["ratings"].as_array().unwrap().len(), 1);
        }
        let p = srv.get("/api/players/okello").await.ok(200);
        assert_eq!(
            p["counts"],
            json!({"games": 3, "wins": 1, "draws": 1, "losses": 1})
        );

        // The player's own view of the list: every game, the live friend game too.
        let games = |query: &str| format!("/api/players/ABULA/games{query}");
        let set = |ids: &[&String]| {
            let mut v: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
            v.sort();
            v
        };
        let rated = rated.to_string();
        assert_eq!(
            sorted_ids(&srv, Some(&a), &games("")).await,
            set(&[&rated, &rapid, &drawn, &live])
        );
        assert_eq!(
            sorted_ids(&srv, Some(&a), &games("?result=win")).await,
            set(&[&rated])
        );
        assert_eq!(
            sorted_ids(&srv, Some(&a), &games("?result=loss")).await,
            set(&[&rapid])
        );
        assert_eq!(
            sorted_ids(&srv, Some(&a), &games("?result=draw")).await,
            set(&[&drawn])
        );
        assert_eq!(
            sorted_ids(&srv, Some(&a), &games("?rated=true")).await,
            set(&[&rated])
        );
        assert_eq!(
            sorted_ids(&srv, Some(&a), &games("?rated=false")).await,
            set(&[&rapid, &drawn, &live])
        );
        assert_eq!(
            sorted_ids(&srv, Some(&a), &games("?category=blitz")).await,
            set(&[&rated, &live])
        );
        assert_eq!(
            sorted_ids(&srv, Some(&a), &games("?category=rapid")).await,
            set(&[&rapid])
        );
        assert_eq!(
            sorted_ids(&srv, Some(&a), &games("?category=blitz&rated=false")).await,
            set(&[&live])
        );
        assert_eq!(
            sorted_ids(&srv, Some(&a), &games("?result=loss&category=blitz")).await,
            Vec::<String>::new()
        );
        // Anyone else sees the finished games, and a live one only once it is public.
        let finished = set(&[&rated, &rapid, &drawn]);
        assert_eq!(sorted_ids(&srv, None, &games("")).await, finished);
        assert_eq!(sorted_ids(&srv, Some(&b), &games("")).await, finished);
        assert_eq!(
            sorted_ids(&srv, None, &games("?category=blitz")).await,
            set(&[&rated])
        );
        srv.post(
            &format!("/api/games/{live}/public"),
            json!({"secret": live_secret, "public": true}),
        )
        .await
        .ok(200);
        let everything = set(&[&rated, &rapid, &drawn, &live]);
        assert_eq!(sorted_ids(&srv, None, &games("")).await, everything);
        assert_eq!(sorted_ids(&srv, Some(&b), &games("")).await, everything);
        // Okello's side of the same games.
        let okello = sorted_ids(&srv, None, "/api/players/Okello/games?result=win").await;
        assert_eq!(okello, set(&[&rapid]));
        let okello = sorted_ids(&srv, None, "/api/players/okello/games?result=loss").await;
        assert_eq!(okello, set(&[&rated]));

        // Newest first, a page at a time.
        let all = srv.get("/api/players/Abula/games").await.ok(200);
        let lines = all["games"].as_array().unwrap();
        let updated: Vec<i64> = lines
            .iter()
            .map(|g| g["updated"].as_i64().unwrap())
            .collect();
        assert!(updated.windows(2).all(|w| w[0] >= w[1]), "{updated:?}");
        assert_eq!(
            srv.ids("/api/players/Abula/games?limit=1", None).await,
            ids_of(&all)[..1]
        );
        let newest = updated[0];
        let older: Vec<String> = lines
            .iter()
            .filter(|g| g["updated"].as_i64().unwrap() < newest)
            .map(|g| g["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            srv.ids(&format!("/api/players/Abula/games?before={newest}"), None)
                .await,
            older
        );

        for bad in [
            "?result=won",
            "?result=",
            "?rated=yes",
            "?category=fast",
            "?category=Blitz",
            "?limit=0",
            "?limit=101",
            "?before=yesterday",
            "?mine=true",
        ] {
            srv.get(&format!("/api/players/Abula/games{bad}"))
                .await
                .is_error(400, "malformed");
        }
        for path in [
            "/api/players/nobody",
            "/api/players/nobody/games",
            "/api/players/a%20b",
        ] {
            srv.get(path).await.is_error(404, "unknown_player");
        }
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn a_database_refusing_changes_makes_no_account_and_logs_no_password() {
        let srv = Srv::start(fresh_store()).await;
        let a = srv.signup("Abula", "abula's password").await;
        srv.state
            .rounds()
            .db(|s| s.set_read_only(true))
            .await
            .unwrap();
        let password = "okello's unlogged password";
        srv.never_shows(password);
        let r = srv
            .post(
                "/api/account/signup",
                json!({"name": "Okello", "password": password}),
            )
            .await;
        r.is_error(503, "busy");
        assert!(r.header("set-cookie").is_none());
        assert!(r.header("retry-after").is_some());
        srv.post(
            "/api/account/login",
            json!({"name": "Abula", "password": "abula's password"}),
        )
        .await
        .is_error(503, "busy");
        srv.post_as(
            &a,
            "/api/account/password",
            json!({"old": "abula's password", "new": password}),
        )
        .await
        .is_error(503, "busy");
        assert!(
            logged().contains("the database is unavailable"),
            "the refusals are logged"
        );
        srv.get("/api/players/okello")
            .await
            .is_error(404, "unknown_player");
        srv.state
            .rounds()
            .db(|s| s.set_read_only(false))
            .await
            .unwrap();
        // Nothing changed: the old password still works, the name is still free.
        srv.login("Abula", "abula's password").await;
        srv.signup("Okello", password).await;
        assert!(srv.alive(&a).await);
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn a_game_against_oneself_is_neither_won_nor_lost() {
        let srv = Srv::start(fresh_store()).await;
        let a = srv.signup("Abula", "abula's password").await;
        let b = srv.signup("Okello", "okello's password").await;
        // One screen, logged in: both seats are the account's.
        let (own, own_secret, _) = new_game(&srv, Some(&a), json!({"mode": "local"})).await;
        let view = resign(&srv, &own, &own_secret).await;
        assert_eq!(view["seats"]["south"]["player"], "Abula");
        assert_eq!(view["seats"]["north"]["player"], "Abula");
        assert_eq!(view["result"], "0-1");
        // And a game won against someone else.
        let (won, _, okello_secret) = friend_game(&srv, &a, &b, None).await;
        resign(&srv, &won, &okello_secret).await;
        let p = srv.get("/api/players/abula").await.ok(200);
        assert_eq!(
            p["counts"],
            json!({"games": 2, "wins": 1, "draws": 0, "losses": 0})
        );
        let games = "/api/players/abula/games";
        assert_eq!(
            srv.ids(&format!("{games}?result=win"), None).await,
            vec![won.clone()]
        );
        assert_eq!(
            srv.ids(&format!("{games}?result=loss"), None).await,
            Vec::<String>::new()
        );
        assert_eq!(sorted_ids(&srv, None, games).await, {
            let mut v = vec![own, won];
            v.sort();
            v
        });
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn an_accounts_puzzle_attempts_need_its_csrf_token_and_show_on_its_profile() {
        let srv = Srv::start(fresh_store()).await;
        let who = srv.signup("Abula", "long enough password").await;
        let puzzle = srv.get("/api/puzzles/1").await.ok(200);
        let first = srv.get("/api/puzzles/1/solution").await.ok(200)["solution"][0].clone();
        let wrong = puzzle["legal"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| **m != first)
            .unwrap()
            .clone();
        // The cookie alone rates nothing: another site could send it.
        srv.send(
            "POST",
            "/api/puzzles/1/moves",
            Some(json!({ "moves": [wrong] })),
            Extra {
                cookie: Some(&who.cookie),
                ..Default::default()
            },
        )
        .await
        .is_error(403, "csrf");
        assert_eq!(
            srv.get("/api/players/abula").await.ok(200)["puzzles"],
            Value::Null
        );
        let v = srv
            .post_as(&who, "/api/puzzles/1/moves", json!({ "moves": [wrong] }))
            .await
            .ok(200);
        assert_eq!(v["result"], "wrong");
        assert_eq!(v["rating"]["solver"]["before"], 1500, "{v}");
        let p = srv.get("/api/players/abula").await.ok(200);
        assert_eq!(p["puzzles"]["attempts"], 1, "{p}");
        assert_eq!(
            p["puzzles"]["rating"].as_f64().unwrap().round() as i64,
            v["rating"]["solver"]["after"].as_i64().unwrap()
        );
        // The account is the solver, whatever browser token the page also sends.
        let again = srv
            .post_as(
                &who,
                "/api/puzzles/1/moves",
                json!({ "moves": [wrong], "solver": "0123456789abcdef0123456789abcdef" }),
            )
            .await
            .ok(200);
        assert_eq!(again["rating"], Value::Null, "the account's second attempt");
    }
}

store_test! {
    #[tokio::test]
    async fn an_accounts_course_progress_is_kept_and_only_grows() {
        let srv = Srv::start(fresh_store()).await;
        srv.get("/api/lessons/progress")
            .await
            .is_error(401, "not_logged_in");
        let who = srv.signup("Okwier", "long enough password").await;
        assert_eq!(
            srv.get_as(&who, "/api/lessons/progress").await.ok(200),
            json!({"done": []})
        );
        // The cookie alone changes nothing: another site could send it.
        srv.send(
            "POST",
            "/api/lessons/progress",
            Some(json!({"done": ["sowing#1"]})),
            Extra {
                cookie: Some(&who.cookie),
                ..Default::default()
            },
        )
        .await
        .is_error(403, "csrf");
        let v = srv
            .post_as(
                &who,
                "/api/lessons/progress",
                json!({"done": ["sowing#1", "relay#1"]}),
            )
            .await
            .ok(200);
        assert_eq!(v["done"], json!(["relay#1", "sowing#1"]), "{v}");
        // Done again, and a new one: nothing is lost or doubled.
        let v = srv
            .post_as(
                &who,
                "/api/lessons/progress",
                json!({"done": ["relay#1", "force#1"]}),
            )
            .await
            .ok(200);
        let mut done: Vec<String> = serde_json::from_value(v["done"].clone()).unwrap();
        done.sort();
        assert_eq!(done, ["force#1", "relay#1", "sowing#1"]);
        // A key that is no exercise is named, and nothing of the request is kept.
        for bad in ["relay#2", "relay#01", "chess#1", "relay", "#1"] {
            let r = srv
                .post_as(
                    &who,
                    "/api/lessons/progress",
                    json!({"done": ["midsow#1", bad]}),
                )
                .await;
            r.is_error(400, "malformed");
            assert!(
                r.json()["message"].as_str().unwrap().contains("done[1]"),
                "{bad}: {}",
                r.json()
            );
        }
        let v = srv.get_as(&who, "/api/lessons/progress").await.ok(200);
        assert_eq!(v["done"].as_array().unwrap().len(), 3, "{v}");
        // Another account has its own.
        let other = srv.signup("Ojulu", "long enough password").await;
        assert_eq!(
            srv.get_as(&other, "/api/lessons/progress").await.ok(200)["done"],
            json!([])
        );
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn a_rated_game_ended_before_its_fourth_ply_changes_no_rating() {
        // Issue 36: two accounts of one person took one from 1500 to 1842 in ten games resigned
        // at ply 0.
        let srv = Srv::start(fresh_store()).await;
        srv.signup("Abula", "abula's password").await;
        srv.signup("Okello", "okello's password").await;
        let moves = ["e", "F", "a", "A"];
        for plies in 0..4 {
            let id = format!("quickgame{}", ["abc", "bcd", "cde", "def"][plies]);
            let (s, n) = rated_game(&srv, &id, ["Abula", "Okello"], "5+3").await;
            for (k, mv) in moves[..plies].iter().enumerate() {
                play(&srv, &id, if k % 2 == 0 { &s } else { &n }, mv).await;
            }
            let over = resign(&srv, &id, &n).await;
            assert_eq!(over["result"], "1-0", "ply {plies}: the result stands");
            assert_eq!(over["rating_change"], Value::Null, "ply {plies}: {over}");
        }
        for name in ["Abula", "Okello"] {
            let p = srv.get(&format!("/api/players/{name}")).await.ok(200);
            assert_eq!(p["ratings"], json!([]), "{p}");
            assert_eq!(p["history"], json!([]), "{p}");
        }
        srv.stop().await;
    }
}

store_test! {
    #[tokio::test]
    async fn repeated_short_wins_between_one_pair_stop_changing_ratings() {
        // Issue 36: as lichess does, the third short decisive game of a pair in a day is not
        // rated; a long game of the same pair still is, and so is a short one against another.
        let srv = Srv::start(fresh_store()).await;
        for name in ["Abula", "Okello", "Ujulu"] {
            srv.signup(name, &format!("{name}'s password")).await;
        }
        let mut changes = vec![];
        for (k, id) in ["farmgameabcd", "farmgamebcde", "farmgamecdef"]
            .iter()
            .enumerate()
        {
            // Sides swapped each game: the pair is one pair whoever is South.
            let names = if k % 2 == 0 {
                ["Abula", "Okello"]
            } else {
                ["Okello", "Abula"]
            };
            let (s, n) = rated_game(&srv, id, names, "5+3").await;
            six_plies(&srv, id, [&s, &n]).await;
            let over = resign(&srv, id, &n).await;
            assert_eq!(over["result"], "1-0");
            let south = &over["rating_change"]["south"];
            changes.push(south["after"].as_f64().unwrap() - south["before"].as_f64().unwrap());
        }
        assert!(changes[0] > 50.0 && changes[1] > 20.0, "{changes:?}");
        assert_eq!(changes[2], 0.0, "the third short win moves nothing");
        let p = srv.get("/api/players/Abula").await.ok(200);
        assert_eq!(p["history"].as_array().unwrap().len(), 2, "{p}");
        // Another opponent: rated as ever.
        let (s, n) = rated_game(&srv, "farmgamedefg", ["Abula", "Ujulu"], "5+3").await;
        six_plies(&srv, "farmgamedefg", [&s, &n]).await;
        let over = resign(&srv, "farmgamedefg", &n).await;
        let south = &over["rating_change"]["south"];
        assert!(south["after"].as_f64() > south["before"].as_f64(), "{over}");
        srv.stop().await;
    }
}

/// Six plies of game `id`, each the first legal move of the side to move.
async fn six_plies(srv: &Srv, id: &str, secrets: [&str; 2]) {
    let mut g = srv.get(&format!("/api/games/{id}")).await.ok(200);
    for _ in 0..6 {
        let seat = usize::from(g["to_move"] == "north");
        let mv = g["legal"][0].as_str().unwrap().to_string();
        g = play(srv, id, secrets[seat], &mv).await;
    }
    assert_eq!(g["ply"], 6, "{g}");
}
