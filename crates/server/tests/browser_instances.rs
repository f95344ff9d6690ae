//! Two server instances on one PostgreSQL database, as two players see them in real browsers:
//! a friend game made on instance A's page, its invite link opened at instance B's address,
//! and the game played through both: every move of one player appears on the other's page,
//! sown seed by seed (the page applies the `move` events of its WebSocket, which instance B
//! hears from A through the database, and A from B), a player leaving the game and coming
//! back, another reloading, and both pages listing the same moves at the end, with no error.
//!
//! Needs chromedriver (as `browser.rs`) and `ANYWOLI_TEST_POSTGRES`, and is `#[ignore]`d for
//! them. `ANYWOLI_INSTANCE_SHOTS=DIR` saves both
//! players' pages at the end into DIR.

use crate::support;

use std::path::PathBuf;

use anywoli_server::{Server, Store};
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use support::*;

/// Installed in a page (again after each load): records, in `window.rec`, the ply at which
/// each move's sowing starts (`anims`) and at which seeds in hand are shown (`hands`), every
/// toast shown, and every API request that failed.
const RECORDER: &str = r#"
if (window.rec) return 1;
const rec = window.rec = { anims: [], hands: [], toasts: [], failed: [] };
new MutationObserver((records) => {
  for (const r of records) {
    const el = r.target;
    const was = r.oldValue || '';
    if (el.classList.contains('board') && el.classList.contains('animating') && !/\banimating\b/.test(was))
      rec.anims.push(Number(document.body.dataset.ply));
    if (el.classList.contains('hand') && el.classList.contains('shown') && !/\bshown\b/.test(was))
      rec.hands.push(Number(document.body.dataset.ply));
  }
}).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['class'], attributeOldValue: true });
const toast = document.getElementById('toast');
new MutationObserver(() => {
  if (!toast.hidden && rec.toasts[rec.toasts.length - 1] !== toast.textContent) rec.toasts.push(toast.textContent);
}).observe(toast, { attributes: true, childList: true, characterData: true, subtree: true });
const fetch0 = window.fetch.bind(window);
window.fetch = async (...args) => {
  try {
    const resp = await fetch0(...args);
    if (!resp.ok) rec.failed.push(resp.status + ' ' + String(args[0]));
    return resp;
  } catch (e) {
    rec.failed.push('network ' + String(args[0]) + ' ' + e);
    throw e;
  }
};
return 1;
"#;

/// The keys of the page's error texts (`err_...`), read from its English texts.
fn error_keys() -> Vec<String> {
    let mut keys: Vec<String> = crate::support::texts_of("en")
        .into_iter()
        .map(|(k, _)| k)
        .filter(|k| k.starts_with("err_"))
        .collect();
    keys.sort();
    keys.dedup();
    assert!(
        keys.len() > 10 && keys.contains(&"err_stale".to_string()),
        "{keys:?}"
    );
    keys
}

/// One player's browser, on one instance's address, and what its pages recorded so far.
struct Player {
    name: &'static str,
    c: Client,
    base: String,
    toasts: Vec<String>,
    failed: Vec<String>,
}

impl Player {
    async fn record(&self) {
        js(&self.c, RECORDER).await;
    }

    async fn ply(&self) -> usize {
        body_data(&self.c, "ply").await.parse().unwrap()
    }

    /// Whether the sowing of the move played at `ply`, with seeds in hand, was seen here.
    async fn saw_sown(&self, ply: usize) -> bool {
        let rec = js(&self.c, "return window.rec").await;
        let has = |k: &str| rec[k].as_array().unwrap().contains(&json!(ply));
        has("anims") && has("hands")
    }

    /// Keeps what the page recorded (before it goes away).
    async fn collect(&mut self) {
        let rec = js(&self.c, "return window.rec").await;
        let texts = |k: &str| -> Vec<String> {
            rec[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        self.toasts.extend(texts("toasts"));
        self.failed.extend(texts("failed"));
        js(
            &self.c,
            "window.rec.toasts = []; window.rec.failed = []; return 1",
        )
        .await;
    }

    async fn moves(&self) -> Value {
        js(
            &self.c,
            "return [...document.querySelectorAll('#movelist button')].map(b => b.textContent)",
        )
        .await
    }

    /// Waits until the page shows the game at `ply` or later, sowing done.
    async fn reaches(&self, ply: usize, what: &str) {
        wait_for(
            &self.c,
            &format!(
                "document.body.dataset.view === 'game' && Number(document.body.dataset.ply) >= {ply} && document.body.dataset.busy === '0'"
            ),
            &format!("{}: {what}", self.name),
        )
        .await;
    }
}

/// The index of the player whose turn it is, once they may move.
async fn whose(players: &[Player; 2]) -> usize {
    let c = whose_turn(&players[0].c, &players[1].c).await;
    if std::ptr::eq(c, &players[0].c) {
        0
    } else {
        1
    }
}

/// The mover clicks one of its playable holes (the `k`th, to vary the game); both pages then
/// show the move, and the other player's page has sown it. Returns the ply before the move.
async fn play_one(players: &[Player; 2], mover: usize, k: usize) -> usize {
    let (m, o) = (&players[mover], &players[1 - mover]);
    let before = m.ply().await;
    let holes = m.c.find_all(Locator::Css(".hole.playable")).await.unwrap();
    assert!(
        !holes.is_empty(),
        "{}: my turn, and nothing playable",
        m.name
    );
    holes[k % holes.len()].click().await.unwrap();
    o.reaches(before + 1, "the other player's move").await;
    m.reaches(before + 1, "its own move").await;
    before
}

async fn two_players_two_instances(driver: &Driver, a_server: &Server, b_server: &Server) {
    let base_a = format!("http://{}", a_server.addr);
    let base_b = format!("http://{}", b_server.addr);
    let new_player = |name: &'static str, c: Client, base: &str| Player {
        name,
        c,
        base: base.to_string(),
        toasts: Vec::new(),
        failed: Vec::new(),
    };
    let mut players = [
        new_player(
            "South on A",
            browser(driver, "instance-a", &["--lang=en"]).await,
            &base_a,
        ),
        new_player(
            "North on B",
            browser(driver, "instance-b", &["--lang=en"]).await,
            &base_b,
        ),
    ];

    // South makes the game on A's page.
    let a = &players[0];
    a.c.goto(&format!("{base_a}/")).await.unwrap();
    js(
        &a.c,
        "localStorage.setItem('anywoli.speed', 'fast'); return 1",
    )
    .await;
    new_game(&a.c, &base_a, "friend", "south", None).await;
    a.record().await;
    wait_for(
        &a.c,
        "!document.querySelector('#invite').hidden && document.querySelector('#share').value.includes('#invite=')",
        "the invitation",
    )
    .await;
    let link = js(&a.c, "return document.querySelector('#share').value").await;
    let path = link
        .as_str()
        .unwrap()
        .strip_prefix(&base_a)
        .unwrap_or_else(|| panic!("the link {link} is on A's address {base_a}"))
        .to_string();
    let id = path
        .strip_prefix("/g/")
        .and_then(|p| p.split('#').next())
        .unwrap()
        .to_string();

    // North opens the link at B's address and takes the seat there.
    let b = &players[1];
    b.c.goto(&format!("{base_b}/rules")).await.unwrap();
    js(
        &b.c,
        "localStorage.setItem('anywoli.speed', 'fast'); return 1",
    )
    .await;
    b.c.goto(&format!("{base_b}{path}")).await.unwrap();
    b.record().await;
    wait_for(
        &b.c,
        "document.querySelector('#join') && !document.querySelector('#join').hidden",
        "North on B: the seat offer",
    )
    .await;
    click(&b.c, "#join-button").await;
    wait_for(
        &b.c,
        "document.body.dataset.seat === 'north' && document.body.dataset.turn === 'theirs'",
        "North on B: seated as North",
    )
    .await;
    // A hears through the database that the friend is seated: the invitation goes.
    wait_for(
        &a.c,
        "document.querySelector('#invite').hidden && document.body.dataset.turn === 'mine'",
        "South on A: the friend seated",
    )
    .await;

    let mut played = [0usize; 2];
    let mut unseen: Option<usize> = None;
    for k in 0..16 {
        let mut mover = whose(&players).await;
        if k >= 6 && mover == 0 && unseen.is_none() {
            // North leaves the game (to the rules), South moves meanwhile, and North comes back
            // to the game's address: the move missed is there, and the game goes on.
            players[1].collect().await;
            let b = &players[1];
            b.c.goto(&format!("{}/rules", b.base)).await.unwrap();
            wait_for(
                &b.c,
                "document.body.dataset.view === 'rules'",
                "North on B: the rules page",
            )
            .await;
            let before = players[0].ply().await;
            let holes = players[0]
                .c
                .find_all(Locator::Css(".hole.playable"))
                .await
                .unwrap();
            holes[k % holes.len()].click().await.unwrap();
            players[0]
                .reaches(before + 1, "its move while North is away")
                .await;
            played[0] += 1;
            unseen = Some(before);
            let b = &players[1];
            b.c.goto(&format!("{}/g/{id}", b.base)).await.unwrap();
            b.record().await;
            b.reaches(before + 1, "the move played while away").await;
            assert_eq!(body_data(&b.c, "seat").await, "north");
            mover = whose(&players).await;
        }
        if k == 11 {
            // South reloads its page.
            players[0].collect().await;
            let a = &players[0];
            let ply = a.ply().await;
            a.c.refresh().await.unwrap();
            a.record().await;
            a.reaches(ply, "the reloaded game").await;
            assert_eq!(body_data(&a.c, "seat").await, "south");
            mover = whose(&players).await;
        }
        let before = play_one(&players, mover, k).await;
        played[mover] += 1;
        let other = &players[1 - mover];
        assert!(
            other.saw_sown(before).await,
            "{} did not see the move at ply {before} sown: {}",
            other.name,
            js(&other.c, "return window.rec").await
        );
        if body_data(&other.c, "status").await == "over" {
            break;
        }
    }
    assert!(
        played[0] >= 4 && played[1] >= 4,
        "both played several moves: {played:?}"
    );
    assert!(unseen.is_some(), "North left while South moved");

    // The same moves on both pages, and in both instances' answers.
    let ply = players[0].ply().await.max(players[1].ply().await);
    for p in &players {
        p.reaches(ply, "the last move").await;
    }
    let (ma, mb) = (players[0].moves().await, players[1].moves().await);
    assert_eq!(ma, mb, "both pages list the same moves");
    assert_eq!(ma.as_array().unwrap().len(), ply);
    for server in [a_server, b_server] {
        let g = http_get(server, &format!("/api/games/{id}")).await;
        assert_eq!(g["moves"], ma, "{}", server.addr);
    }

    // No error anywhere: no request refused, no error in a toast, both pages connected.
    for p in &mut players {
        p.collect().await;
        assert_eq!(
            body_data(&p.c, "online").await,
            "1",
            "{}: connected",
            p.name
        );
        let offline = js(
            &p.c,
            "return document.querySelector('#status').classList.contains('offline')",
        )
        .await;
        let status = text_of(&p.c, "#status").await;
        assert_eq!(offline, json!(false), "{}: {status}", p.name);
        assert!(
            p.failed.is_empty(),
            "{}: failed requests {:?}",
            p.name,
            p.failed
        );
        let errors = p
            .c
            .execute(
                "return import('/assets/i18n.js').then((m) => arguments[0].map((k) => m.t(k).split('{')[0]))",
                vec![json!(error_keys())],
            )
            .await
            .unwrap();
        let errors: Vec<String> = serde_json::from_value(errors).unwrap();
        let shown: Vec<&String> = p
            .toasts
            .iter()
            .filter(|t| errors.iter().any(|e| t.starts_with(e.as_str())))
            .collect();
        assert!(shown.is_empty(), "{}: errors shown {shown:?}", p.name);
    }
    let shots = std::env::var_os("ANYWOLI_INSTANCE_SHOTS").map(PathBuf::from);
    if let Some(dir) = &shots {
        std::fs::create_dir_all(dir).unwrap();
    }
    save_screenshot(&players[0].c, &shots, "south-on-a.png").await;
    save_screenshot(&players[1].c, &shots, "north-on-b.png").await;
    eprintln!(
        "moves ({} by South on A, {} by North on B): {}",
        played[0], played[1], ma
    );
    for p in players {
        eprintln!("{} saw the toasts {:?}", p.name, p.toasts);
        let _ = p.c.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium, chromedriver and PostgreSQL: ANYWOLI_TEST_POSTGRES"]
async fn two_instances_two_browsers() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let url = Store::test_postgres_url("browser test of two instances");
    let a = serve_on("127.0.0.1", None, PathBuf::from(&url)).await;
    let b = serve_on("127.0.0.1", None, PathBuf::from(&url)).await;
    assert_ne!(a.addr, b.addr);
    two_players_two_instances(&driver, &a, &b).await;
    b.stop().await;
    a.stop().await;
}
