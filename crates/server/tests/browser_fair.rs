// Fair play and correct words, as a player sees them in a real browser: scores read from the
// reader's side (North too, on a phone, in every language), no secret hints between friends,
// the lottery's draw shown from the first move, long move lists, mistyped links, the status
// while a move is sown, take-back only when there is something to take back, the puzzle by
// keyboard, and phone layouts in long languages.

use crate::support;

use anywoli_core::{Position, Rules};
use anywoli_server::Server;
use fantoccini::{Client, Locator};
use serde_json::json;
use support::*;

/// North wins by the quiet rule once South plays `a`: North 48 + 7 in its row, South 40 + 1.
const NORTH_WINS: &str = "1,0,0,0,0,0,0,0,0,0,0,0/3,0,3,0,1,0,0,0,0,0,0,0 s 40 48 - - 99 150";
/// North loses the same way: South 48 + 7, North 40 + 1.
const NORTH_LOSES: &str = "3,0,0,0,0,3,0,1,0,0,0,0/1,0,0,0,0,0,0,0,0,0,0,0 s 48 40 - - 99 150";

const LANGS: [&str; 6] = ["en", "tl", "cs", "nl", "hi", "it"];

/// A friend game from `position` created through the API as South: (id, South's secret, the
/// invite token).
async fn friend_game_from(
    server: &Server,
    position: &str,
    hints: bool,
) -> (String, String, String) {
    let (s, v) = http_json(
        server,
        "POST",
        "/api/games",
        Some(json!({"mode": "friend", "side": "south", "position": position, "hints": hints})),
    )
    .await;
    assert_eq!(s, 201, "{v}");
    (
        v["game"]["id"].as_str().unwrap().to_string(),
        v["secret"].as_str().unwrap().to_string(),
        v["invite"].as_str().unwrap().to_string(),
    )
}

/// Opens the game's invite link in `c` and takes the free seat (North).
async fn join_as_north(c: &Client, base: &str, id: &str, invite: &str) {
    c.goto(&format!("{base}/g/{id}#invite={invite}"))
        .await
        .unwrap();
    js(c, "localStorage.setItem('anywoli.speed', 'off'); return 1").await;
    wait_for(
        c,
        "document.querySelector('#join') && !document.querySelector('#join').hidden",
        "the seat offer",
    )
    .await;
    click(c, "#join-button").await;
    wait_for(
        c,
        "document.body.dataset.seat === 'north'",
        "seated as North",
    )
    .await;
}

/// The status, once the game is over.
async fn final_status(c: &Client) -> String {
    wait_for(
        c,
        "document.body.dataset.status === 'over' && document.body.dataset.busy === '0'",
        "the end of the game",
    )
    .await;
    text_of(c, "#status").await
}

/// In every language, the reader's own score comes first: `mine` before `theirs`.
async fn scores_read_from_my_side(c: &Client, mine: &str, theirs: &str) {
    for lang in LANGS {
        js(
            c,
            &format!("localStorage.setItem('anywoli.lang', '{lang}'); return 1"),
        )
        .await;
        c.refresh().await.unwrap();
        let status = final_status(c).await;
        let (m, t) = (status.find(mine), status.find(theirs));
        assert!(
            m.is_some() && t.is_some() && m < t,
            "{lang}: '{status}' should read {mine} before {theirs}"
        );
    }
    js(c, "localStorage.setItem('anywoli.lang', 'en'); return 1").await;
}

async fn north_reads_its_own_score(driver: &Driver, server: &Server, base: &str) {
    // On a phone: the layout that shows the result there is the one to check.
    let c = phone(driver, "north-phone", 390, 844).await;
    c.goto(&format!("{base}/")).await.unwrap();
    js(&c, "localStorage.setItem('anywoli.lang', 'en'); return 1").await;

    let (id, south, invite) = friend_game_from(server, NORTH_WINS, false).await;
    join_as_north(&c, base, &id, &invite).await;
    let (s, v) = http_json(
        server,
        "POST",
        &format!("/api/games/{id}/moves"),
        Some(json!({"move": "a", "secret": south, "ply": 0})),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["game"]["stores"], json!([41, 55]));
    let status = final_status(&c).await;
    assert!(status.starts_with("You win, 55 to 41"), "{status}");
    scores_read_from_my_side(&c, "55", "41").await;

    let (id, south, invite) = friend_game_from(server, NORTH_LOSES, false).await;
    join_as_north(&c, base, &id, &invite).await;
    let (s, v) = http_json(
        server,
        "POST",
        &format!("/api/games/{id}/moves"),
        Some(json!({"move": "a", "secret": south, "ply": 0})),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let status = final_status(&c).await;
    assert!(status.starts_with("You lose, 41 to 55"), "{status}");
    scores_read_from_my_side(&c, "41", "55").await;

    // Resigning: the scores as they stand, still from North's side.
    let (id, _, invite) = friend_game_from(server, NORTH_WINS, false).await;
    join_as_north(&c, base, &id, &invite).await;
    js(&c, "window.confirm = () => true; return 1").await;
    click(&c, "#resign").await;
    let status = final_status(&c).await;
    assert!(
        status.starts_with("You lose, 48 to 40") && status.contains("North resigned"),
        "{status}"
    );
    let _ = c.close().await;
}

async fn no_secret_hints_between_friends(driver: &Driver, server: &Server, base: &str) {
    let a = browser(driver, "hints-a", &["--lang=en"]).await;
    let b = browser(driver, "hints-b", &["--lang=en"]).await;
    for allowed in [false, true] {
        a.goto(&format!("{base}/")).await.unwrap();
        wait_for(&a, "document.querySelector('#new-form')", "the form").await;
        click(&a, "input[name=mode][value=friend]").await;
        assert_eq!(
            js(&a, "return document.querySelector('#hints').checked").await,
            json!(false),
            "hints are off unless chosen"
        );
        if allowed {
            click(&a, "#hints").await;
        }
        click(&a, "#start").await;
        wait_for(
            &a,
            "document.body.dataset.view === 'game' && document.body.dataset.status === 'playing'",
            "the game",
        )
        .await;
        wait_for(
            &a,
            "!document.querySelector('#invite').hidden",
            "the invitation",
        )
        .await;
        let link = js(&a, "return document.querySelector('#share').value").await;
        let link = link.as_str().unwrap().to_string();
        let id = js(&a, "return location.pathname.split('/').pop()").await;
        let id = id.as_str().unwrap().to_string();
        let invite = link
            .split("#invite=")
            .nth(1)
            .expect("the link carries the invite");
        join_as_north(&b, base, &id, invite).await;
        assert!(await_my_turn(&a).await);
        for (c, who) in [(&a, "South"), (&b, "North")] {
            let meta = text_of(c, "#meta").await;
            let hint_hidden = js(c, "return document.querySelector('#hint').hidden").await;
            if allowed {
                assert!(
                    meta.contains("Hints allowed for both players"),
                    "{who}: {meta}"
                );
                assert_eq!(hint_hidden, json!(false), "{who} has a hint button");
            } else {
                assert!(meta.contains("No hints for either player"), "{who}: {meta}");
                assert_eq!(hint_hidden, json!(true), "{who} has no hint button");
            }
        }
        // Nor does the API give one to a page that asks anyway.
        let south_secret = js(
            &a,
            &format!("return JSON.parse(localStorage.getItem('anywoli.seats'))['{id}'].secret"),
        )
        .await;
        let (s, v) = http_json(
            server,
            "POST",
            &format!("/api/games/{id}/hint"),
            Some(json!({"secret": south_secret})),
        )
        .await;
        if allowed {
            assert_eq!(s, 200, "{v}");
            click(&a, "#hint").await;
            wait_for(
                &a,
                "document.querySelector('.hole.hinted')",
                "the hint shown",
            )
            .await;
        } else {
            assert_eq!((s, v["error"].clone()), (403, json!("hints_off")), "{v}");
        }
    }
    for c in [a, b] {
        let _ = c.close().await;
    }
}

async fn lottery_draw_shown(driver: &Driver, server: &Server, base: &str) {
    let c = browser(driver, "lottery", &["--lang=en"]).await;
    c.goto(&format!("{base}/")).await.unwrap();
    js(&c, "localStorage.setItem('anywoli.speed', 'off'); return 1").await;
    wait_for(&c, "document.querySelector('#new-form')", "the form").await;
    click(&c, "input[name=mode][value=local]").await;
    c.find(Locator::Css("#rules"))
        .await
        .unwrap()
        .select_by_value("anywoli-lottery")
        .await
        .unwrap();
    click(&c, "#start").await;
    wait_for(
        &c,
        "document.body.dataset.view === 'game' && document.body.dataset.status === 'playing'",
        "the game",
    )
    .await;
    let id = js(&c, "return location.pathname.split('/').pop()").await;
    let (_, g) = http_json(
        server,
        "GET",
        &format!("/api/games/{}", id.as_str().unwrap()),
        None,
    )
    .await;
    let side = match g["last_seeds_to"].as_str().unwrap() {
        "south" => "South",
        _ => "North",
    };
    for ply in 0..2 {
        wait_for(
            &c,
            "!document.querySelector('#last-seeds').hidden",
            "the draw shown",
        )
        .await;
        let text = text_of(&c, "#last-seeds").await;
        assert!(
            text.contains("Drawn by lot") && text.contains(&format!("go to {side}")),
            "at ply {ply}: {text}"
        );
        if ply == 0 {
            click(&c, ".hole.playable").await;
            wait_for(
                &c,
                "Number(document.body.dataset.ply) >= 1 && document.body.dataset.busy === '0'",
                "the first move",
            )
            .await;
        }
    }
    let _ = c.close().await;
}

/// A record of a random game of at least `plies` plies (a fixed sequence, so the same game
/// every run).
fn long_record(plies: usize) -> String {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    loop {
        let mut pos = Position::start(Rules::Anywoli);
        let mut moves = Vec::new();
        while !pos.is_over() && moves.len() < plies + 20 {
            let legal: Vec<_> = pos.moves().collect();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mv = legal[(state % legal.len() as u64) as usize];
            pos.play(mv).unwrap();
            moves.push(mv.to_string());
        }
        if moves.len() >= plies {
            return format!("[Rules \"anywoli\"]\n\n{} *\n", moves.join(" "));
        }
    }
}

async fn long_move_lists(driver: &Driver, server: &Server, base: &str) {
    let (s, v) = http_json(
        server,
        "POST",
        "/api/import",
        Some(json!({"record": long_record(110)})),
    )
    .await;
    assert_eq!(s, 201, "{v}");
    let id = v["game"]["id"].as_str().unwrap().to_string();
    let plies = v["game"]["ply"].as_u64().unwrap();
    assert!(plies >= 110, "{plies}");
    let check = r#"
        const ol = document.querySelector('#movelist').getBoundingClientRect();
        const bad = [];
        for (const li of document.querySelectorAll('#movelist li')) {
          const n = li.querySelector('.n');
          const b = li.querySelector('button');
          const nr = n.getBoundingClientRect(), br = b.getBoundingClientRect();
          if (n.scrollWidth > n.clientWidth + 1 || nr.left < ol.left - 1 || br.right > ol.right + 1 || nr.right > br.left + 1)
            bad.push(n.textContent + b.textContent);
        }
        return [document.querySelectorAll('#movelist li').length, bad.slice(0, 5), document.querySelector('#movelist li:nth-child(100) .n').textContent];
    "#;
    for (name, phone_size) in [("moves-desktop", None), ("moves-phone", Some((360, 740)))] {
        let c = match phone_size {
            None => browser(driver, name, &["--lang=en"]).await,
            Some((w, h)) => phone(driver, name, w, h).await,
        };
        c.goto(&format!("{base}/g/{id}")).await.unwrap();
        wait_for(
            &c,
            "document.querySelectorAll('#movelist li').length >= 110",
            "the move list",
        )
        .await;
        let got = js(&c, check).await;
        assert_eq!(got[0], json!(plies), "{name}");
        assert_eq!(got[1], json!([]), "{name}: move numbers cut off");
        assert_eq!(got[2], json!("100."), "{name}");
        let _ = c.close().await;
    }
}

async fn mistyped_links(driver: &Driver, base: &str) {
    let c = browser(driver, "missing", &["--lang=en"]).await;
    for (path, heading) in [
        ("/g/abcdefghijkm/", "There is no such game."),
        ("/g/abcdefghijkm", "There is no such game."),
        ("/g/nosuchgame", "There is no such game."),
        ("/g/", "There is no such page."),
        ("/nothing/here", "There is no such page."),
    ] {
        c.goto(&format!("{base}{path}")).await.unwrap();
        wait_for(&c, "document.querySelector('#missing-heading')", path).await;
        assert_eq!(text_of(&c, "#missing-heading").await, heading, "{path}");
        let body = text_of(&c, "main").await;
        assert!(
            !body.trim_start().starts_with('{'),
            "{path}: raw JSON {body}"
        );
        assert_eq!(body_data(&c, "view").await, "missing", "{path}");
    }
    js(&c, "localStorage.setItem('anywoli.lang', 'it'); return 1").await;
    c.goto(&format!("{base}/g/abcdefghijkm/")).await.unwrap();
    wait_for(&c, "document.querySelector('#missing-heading')", "Italian").await;
    assert_eq!(
        text_of(&c, "#missing-heading").await,
        "Questa partita non esiste."
    );
    let _ = c.close().await;
}

/// Against the computer as North: nothing to take back until North has moved, and the status
/// never says "Your move" while a move is still being sown.
async fn status_and_takeback(driver: &Driver, base: &str) {
    let c = browser(driver, "takeback", &["--lang=en"]).await;
    c.goto(&format!("{base}/")).await.unwrap();
    // Sowing at the normal speed (150 ms a seed) is long enough to watch at 20 ms; at the slow
    // one a long relay of the computer's took half a minute of the test.
    js(
        &c,
        "localStorage.setItem('anywoli.speed', 'normal'); return 1",
    )
    .await;
    new_game(&c, base, "computer", "north", Some(1)).await;
    assert!(await_my_turn(&c).await);
    assert!(body_data(&c, "ply").await.parse::<u32>().unwrap() >= 1);
    assert_eq!(
        js(&c, "return document.querySelector('#takeback').disabled").await,
        json!(true),
        "only the computer has moved"
    );
    // Watch the status during the sowing of North's own move.
    js(
        &c,
        r#"window.seen = [];
           window.watcher = setInterval(() => {
             if (document.querySelector('.board.animating')) window.seen.push(document.querySelector('#status').textContent);
           }, 20);
           return 1"#,
    )
    .await;
    click(&c, ".hole.playable").await;
    wait_for(&c, "window.seen.length > 3", "the sowing watched").await;
    assert!(await_my_turn(&c).await);
    let seen: Vec<String> =
        serde_json::from_value(js(&c, "clearInterval(window.watcher); return window.seen").await)
            .unwrap();
    assert!(seen.iter().all(|s| !s.contains("Your move")), "{seen:?}");
    assert!(seen.iter().any(|s| s.contains("is sowing")), "{seen:?}");
    assert_eq!(
        js(&c, "return document.querySelector('#takeback').disabled").await,
        json!(false),
        "North's move can be taken back"
    );
    let _ = c.close().await;
}

async fn puzzle_by_keyboard(driver: &Driver, server: &Server, base: &str) {
    let (_, sol) = http_json(server, "GET", "/api/puzzles/1/solution", None).await;
    let first = sol["solution"][0].as_str().unwrap().to_string();
    let c = browser(driver, "puzzle-keys", &["--lang=en"]).await;
    c.goto(&format!("{base}/puzzles/1")).await.unwrap();
    js(&c, "localStorage.setItem('anywoli.speed', 'off'); return 1").await;
    wait_for(
        &c,
        "document.body.dataset.puzzle === 'playing'",
        "the puzzle",
    )
    .await;
    let before = text_of(&c, "#puzzle-status").await;
    c.find(Locator::Css("body"))
        .await
        .unwrap()
        .send_keys(&first.to_uppercase())
        .await
        .unwrap();
    wait_for(
        &c,
        &format!(
            "document.body.dataset.busy === '0' && document.querySelector('#puzzle-status').textContent !== {before:?}"
        ),
        "the keyed move judged",
    )
    .await;
    let state = body_data(&c, "puzzle").await;
    assert!(state == "playing" || state == "solved", "{state}");
    assert!(text_of(&c, "#puzzle-status")
        .await
        .starts_with(if state == "solved" { "Solved" } else { "Right" }));
    let _ = c.close().await;
}

/// Phones: the header in long languages and the archive's links fit the screen's width.
async fn phone_layouts(driver: &Driver, server: &Server, base: &str) {
    for _ in 0..3 {
        http_json(server, "POST", "/api/games", Some(json!({"mode": "local"}))).await;
    }
    let c = phone(driver, "phone-layout", 360, 740).await;
    let fits = r#"
        const w = window.innerWidth;
        const out = [...document.querySelectorAll('header *, .archive a')]
          .filter((e) => e.getBoundingClientRect().right > w + 1)
          .map((e) => e.tagName + ':' + e.textContent.trim().slice(0, 20));
        return [document.documentElement.scrollWidth <= w, out];
    "#;
    for lang in ["tl", "hi", "cs"] {
        c.goto(&format!("{base}/archive")).await.unwrap();
        js(
            &c,
            &format!("localStorage.setItem('anywoli.lang', '{lang}'); return 1"),
        )
        .await;
        c.refresh().await.unwrap();
        wait_for(
            &c,
            "document.querySelectorAll('.archive a.open-game').length >= 3",
            "the archive",
        )
        .await;
        let got = js(&c, fits).await;
        assert_eq!(got, json!([true, []]), "{lang}: {got}");
    }
    let _ = c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn fair_play_and_correct_words() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let db = fresh_db("fair");
    let server = serve_on("127.0.0.1", None, db).await;
    let base = format!("http://{}", server.addr);
    mistyped_links(&driver, &base).await;
    north_reads_its_own_score(&driver, &server, &base).await;
    no_secret_hints_between_friends(&driver, &server, &base).await;
    lottery_draw_shown(&driver, &server, &base).await;
    long_move_lists(&driver, &server, &base).await;
    status_and_takeback(&driver, &base).await;
    puzzle_by_keyboard(&driver, &server, &base).await;
    phone_layouts(&driver, &server, &base).await;
    server.stop().await;
}
