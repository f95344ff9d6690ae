// The real page in headless Chromium, driven through chromedriver: a game against the
// computer played to its end (with a reload in the middle and a move by keyboard), a game
// between two browsers, and the language switch.
//
// Needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs them): it is
// `#[ignore]`d for them, and fails saying what to install where they are missing.
// `ANYWOLI_SCREENSHOTS=DIR` also saves the screenshots of docs/ into DIR.

use crate::support;

use std::path::PathBuf;

use anywoli_server::Server;
use fantoccini::{Client, Locator};
use serde_json::json;
use support::*;

async fn computer_game_to_the_end(
    driver: &Driver,
    c: &Client,
    base: &str,
    server: &Server,
    shots: &Option<PathBuf>,
) {
    // No animation: the game is about the rules and the flow here, not the timing.
    c.goto(&format!("{base}/")).await.unwrap();
    js(c, "localStorage.setItem('anywoli.speed', 'off'); return 1").await;
    new_game(c, base, "computer", "south", Some(1)).await;
    let id = c
        .current_url()
        .await
        .unwrap()
        .path()
        .trim_start_matches("/g/")
        .to_string();
    let labels = js(c, "return [...document.querySelectorAll('.row-bottom .hole')].map(b => b.getAttribute('aria-label'))").await;
    assert_eq!(labels[2], "your hole c, 4 seeds", "{labels}");
    let top = js(
        c,
        "return document.querySelector('.row-top .hole').dataset.hole",
    )
    .await;
    assert_eq!(top, "L", "South sees North's row from L to A");

    let mut mine = 0;
    let mut reloaded = false;
    while await_my_turn(c).await {
        if mine == 0 {
            // The first move by keyboard: the letter of a playable hole.
            let letter = js(
                c,
                "return document.querySelector('.hole.playable').dataset.hole",
            )
            .await;
            let letter = letter.as_str().unwrap().to_string();
            let ply = body_data(c, "ply").await;
            c.find(Locator::Css("body"))
                .await
                .unwrap()
                .send_keys(&letter)
                .await
                .unwrap();
            wait_for(
                c,
                &format!("document.body.dataset.ply !== '{ply}'"),
                "the keyboard move",
            )
            .await;
        } else if mine == 1 {
            // The second by the board's own keys (issue 36): the board is one Tab stop, Right
            // moves the focus along the near row (not through the moves), Enter plays.
            let stops = js(
                c,
                "return document.querySelectorAll('.board .hole[tabindex=\"0\"]').length",
            )
            .await;
            assert_eq!(stops, json!(1), "one Tab stop on the board");
            js(
                c,
                "document.querySelector('.board .hole[tabindex=\"0\"]').focus()",
            )
            .await;
            let focused = || js(c, "return document.activeElement.dataset.hole || ''");
            // A key pressed on the focused element, as a keyboard user does.
            let press = |key: &'static str| async move {
                c.active_element()
                    .await
                    .unwrap()
                    .send_keys(key)
                    .await
                    .unwrap();
            };
            let first = focused().await;
            assert_eq!(first, "a", "the stop starts on the near row's first hole");
            let ply = body_data(c, "ply").await;
            press("\u{E014}").await;
            assert_eq!(focused().await, "b", "Right goes to the next hole");
            while js(
                c,
                "return document.activeElement.classList.contains('playable')",
            )
            .await
                != json!(true)
            {
                let before = focused().await;
                press("\u{E014}").await;
                assert_ne!(focused().await, before, "a playable hole is further right");
            }
            assert_eq!(body_data(c, "ply").await, ply, "the arrows did not step");
            press("\u{E007}").await;
            wait_for(
                c,
                &format!("document.body.dataset.ply !== '{ply}'"),
                "the move played with Enter",
            )
            .await;
        } else {
            let holes = c.find_all(Locator::Css(".hole.playable")).await.unwrap();
            assert!(
                !holes.is_empty(),
                "it is my turn, so some hole can be played"
            );
            // Varying the choice keeps games from repeating.
            holes[mine % holes.len()].click().await.unwrap();
        }
        mine += 1;
        if mine == 3 && await_my_turn(c).await {
            // Take back: my last move and the computer's answers go, and it is my turn again.
            let before: usize = body_data(c, "ply").await.parse().unwrap();
            click(c, "#takeback").await;
            wait_for(
                c,
                &format!("Number(document.body.dataset.ply) < {before} && document.body.dataset.turn === 'mine'"),
                "the take-back",
            )
            .await;
            assert_eq!(
                moves_listed(c).await,
                body_data(c, "ply").await.parse::<usize>().unwrap()
            );
        }
        if mine == 6 && !reloaded {
            let ply = body_data(c, "ply").await;
            assert!(await_my_turn(c).await || body_data(c, "status").await == "over");
            let ply_now = body_data(c, "ply").await;
            let listed = moves_listed(c).await;
            viewport(c, 1280, 800).await;
            save_screenshot(c, shots, "screenshot-desktop.png").await;
            // The same game on a phone, in the player's seat (the seat secret copied over).
            let seats = js(c, "return localStorage.getItem('anywoli.seats')").await;
            let p = phone(driver, "phone", 390, 844).await;
            p.goto(&format!("{base}/rules")).await.unwrap();
            p.execute(
                "localStorage.setItem('anywoli.seats', arguments[0]); localStorage.setItem('anywoli.speed', 'off'); return 1",
                vec![seats],
            )
            .await
            .unwrap();
            p.goto(&format!("{base}/g/{id}")).await.unwrap();
            wait_for(&p, &format!("document.body.dataset.ply === '{ply_now}' && document.body.dataset.seat === 'south'"), "the game on the phone").await;
            let width = js(&p, "return window.innerWidth").await;
            assert_eq!(width, 390);
            let overflow = js(
                &p,
                "return document.documentElement.scrollWidth > window.innerWidth",
            )
            .await;
            assert_eq!(
                overflow,
                json!(false),
                "nothing sticks out sideways on a phone"
            );
            save_screenshot(&p, shots, "screenshot-phone.png").await;
            let _ = p.close().await;
            c.refresh().await.unwrap();
            wait_for(
                c,
                &format!("document.body.dataset.view === 'game' && document.body.dataset.ply === '{ply_now}'"),
                "the reloaded game",
            )
            .await;
            assert_eq!(
                moves_listed(c).await,
                listed,
                "the reload shows the same moves"
            );
            assert_ne!(ply, "");
            reloaded = true;
        }
        assert!(mine < 3000, "a game that never ends");
    }
    let status = js(c, "return document.querySelector('#status').textContent").await;
    let status = status.as_str().unwrap();
    assert!(
        status.contains("You win") || status.contains("You lose") || status.contains("draw"),
        "{status}"
    );
    assert!(reloaded, "the game lasted long enough to reload");
    // The server agrees, and the page lists every move.
    let g = http_get(server, &format!("/api/games/{id}")).await;
    assert_eq!(g["status"], "over");
    assert_eq!(moves_listed(c).await, g["moves"].as_array().unwrap().len());
    assert_eq!(body_data(c, "ply").await, g["ply"].to_string());
}

async fn friend_game(driver: &Driver, base: &str) {
    let a = browser(driver, "friend-a", &[]).await;
    let b = browser(driver, "friend-b", &[]).await;
    a.goto(&format!("{base}/")).await.unwrap();
    js(
        &a,
        "localStorage.setItem('anywoli.speed', 'fast'); return 1",
    )
    .await;
    new_game(&a, base, "friend", "south", None).await;
    wait_for(
        &a,
        "!document.querySelector('#invite').hidden",
        "the invitation",
    )
    .await;
    let link = js(&a, "return document.querySelector('#share').value").await;
    let link = link.as_str().unwrap().to_string();

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
    wait_for(
        &b,
        "document.body.dataset.seat === 'north' && document.body.dataset.turn === 'theirs'",
        "B seated as North",
    )
    .await;
    let bottom = js(
        &b,
        "return document.querySelector('.row-bottom .hole').dataset.hole",
    )
    .await;
    assert_eq!(bottom, "A", "North sees its own row nearest");
    // A's invitation goes away once the friend is seated (over the WebSocket).
    wait_for(
        &a,
        "document.querySelector('#invite').hidden",
        "the friend seated",
    )
    .await;

    for i in 0..6 {
        // Extra moves make one side move twice in a row: whoever may move now, moves.
        let mover = whose_turn(&a, &b).await;
        let other = if std::ptr::eq(mover, &a) { &b } else { &a };
        let before = body_data(mover, "ply").await.parse::<usize>().unwrap();
        click(mover, ".hole.playable").await;
        if i == 0 {
            // The other player sees the move sown seed by seed, with the seeds in hand shown.
            wait_for(
                other,
                "document.querySelector('.board.animating') && document.querySelector('.hand.shown')",
                "the move being sown",
            )
            .await;
        }
        let next = before + 1;
        wait_for(
            other,
            &format!(
                "Number(document.body.dataset.ply) >= {next} && document.body.dataset.busy === '0'"
            ),
            "the other browser seeing the move",
        )
        .await;
        wait_for(
            mover,
            &format!(
                "Number(document.body.dataset.ply) >= {next} && document.body.dataset.busy === '0'"
            ),
            "the mover seeing its move",
        )
        .await;
    }
    let la = js(&a, "return [...document.querySelectorAll('#movelist button')].map(b => b.textContent).join(' ')").await;
    let lb = js(&b, "return [...document.querySelectorAll('#movelist button')].map(b => b.textContent).join(' ')").await;
    assert_eq!(la, lb, "both browsers list the same moves");

    // Someone else with the link only watches.
    let c = browser(driver, "friend-c", &[]).await;
    c.goto(&link).await.unwrap();
    wait_for(
        &c,
        "document.body.dataset.view === 'game' && document.body.dataset.status === 'playing'",
        "the watcher's page",
    )
    .await;
    let status = js(&c, "return document.querySelector('#status').textContent").await;
    assert!(
        status.as_str().unwrap().starts_with("You are watching"),
        "{status}"
    );
    assert_eq!(
        js(&c, "return document.querySelector('#join').hidden").await,
        json!(true)
    );
    assert_eq!(
        js(
            &c,
            "return document.querySelectorAll('.hole.playable').length"
        )
        .await,
        json!(0)
    );
    for s in [a, b, c] {
        let _ = s.close().await;
    }
}

async fn languages(driver: &Driver, base: &str) {
    // The browser's language picks the page's.
    let c = browser(driver, "lang", &["--lang=it", "--accept-lang=it"]).await;
    c.goto(&format!("{base}/rules")).await.unwrap();
    wait_for(
        &c,
        "document.body.dataset.view === 'rules'",
        "the rules page",
    )
    .await;
    assert_eq!(js(&c, "return document.documentElement.lang").await, "it");
    // Only the reader's language was fetched (issue 37: all six, 290 KB, on every load).
    assert_eq!(
        js(
            &c,
            "return performance.getEntriesByType('resource').map(e => new URL(e.name).pathname).filter(p => p.startsWith('/assets/i18n'))"
        )
        .await,
        json!(["/assets/i18n.js", "/assets/i18n/it.json"])
    );
    assert_eq!(
        js(&c, "return document.querySelector('h1').textContent").await,
        "Come si gioca ad Anywoli"
    );
    assert!(
        js(&c, "return document.querySelectorAll('figure svg').length")
            .await
            .as_u64()
            .unwrap()
            >= 4
    );
    // The switch changes every text at once, and the choice stays after a reload.
    for (lang, nav) in [
        ("cs", "Nová hra"),
        ("nl", "Nieuw spel"),
        ("hi", "नया खेल"),
        ("tl", "Bagong laro"),
        ("en", "New game"),
    ] {
        c.find(Locator::Css("#lang-select"))
            .await
            .unwrap()
            .select_by_value(lang)
            .await
            .unwrap();
        wait_for(
            &c,
            &format!("document.documentElement.lang === '{lang}'"),
            "the language switch",
        )
        .await;
        assert_eq!(
            js(
                &c,
                "return document.querySelector(\"header nav a[href='/']\").textContent"
            )
            .await,
            nav
        );
    }
    c.find(Locator::Css("#lang-select"))
        .await
        .unwrap()
        .select_by_value("cs")
        .await
        .unwrap();
    c.refresh().await.unwrap();
    wait_for(
        &c,
        "document.body.dataset.view === 'rules'",
        "the reloaded rules page",
    )
    .await;
    assert_eq!(
        js(&c, "return document.querySelector('h1').textContent").await,
        "Jak se hraje Anywoli"
    );
    // Every language has every text.
    let missing = js(
        &c,
        "return import('/assets/i18n.js').then(m => m.missingKeys())",
    )
    .await;
    assert_eq!(missing, json!([]), "texts missing a translation");
    let _ = c.close().await;
}

async fn records_and_replay(driver: &Driver, base: &str) {
    let c = browser(driver, "records", &["--lang=en"]).await;
    c.goto(&format!("{base}/archive")).await.unwrap();
    js(&c, "localStorage.setItem('anywoli.speed', 'off'); return 1").await;
    wait_for(
        &c,
        "document.querySelector('#record-text')",
        "the import form",
    )
    .await;
    let record = "[Event \"Club\"]\n[Rules \"anywoli\"]\n\ne F a *\n";
    c.find(Locator::Css("#record-text"))
        .await
        .unwrap()
        .send_keys(record)
        .await
        .unwrap();
    click(&c, "#import-button").await;
    wait_for(
        &c,
        "document.body.dataset.view === 'game' && document.body.dataset.ply === '3'",
        "the imported game",
    )
    .await;
    let listed = js(&c, "return [...document.querySelectorAll('#movelist button')].map(b => b.textContent).join(' ')").await;
    assert_eq!(listed, "e F a");
    // Stepping back shows an earlier position, and End comes back to the game.
    let live = js(
        &c,
        "return document.querySelector('.hole[data-hole=e]').getAttribute('aria-label')",
    )
    .await;
    c.find(Locator::Css("body"))
        .await
        .unwrap()
        .send_keys("\u{E012}")
        .await
        .unwrap();
    wait_for(
        &c,
        "!document.querySelector('#history-bar').hidden",
        "the history view",
    )
    .await;
    let text = js(
        &c,
        "return document.querySelector('#history-text').textContent",
    )
    .await;
    assert_eq!(text, "Showing the position after move 2 of 3.");
    click(&c, "#first").await;
    wait_for(&c, "document.querySelector('.hole[data-hole=e]').getAttribute('aria-label').includes('4 seeds')", "the start position").await;
    click(&c, "#to-live").await;
    wait_for(
        &c,
        "document.querySelector('#history-bar').hidden",
        "back to the game",
    )
    .await;
    assert_eq!(
        js(
            &c,
            "return document.querySelector('.hole[data-hole=e]').getAttribute('aria-label')"
        )
        .await,
        live
    );
    // The archive lists the game.
    c.goto(&format!("{base}/archive")).await.unwrap();
    wait_for(
        &c,
        "document.querySelectorAll('table.archive tbody tr').length > 0",
        "the archive",
    )
    .await;
    let _ = c.close().await;
}

/// Puzzle mode: a puzzle solved by clicking South's moves while North answers on the board,
/// the streak kept across a reload, a wrong move ending it, and the puzzle of the day.
async fn puzzle_mode(driver: &Driver, base: &str, server: &Server, shots: &Option<PathBuf>) {
    let c = browser(driver, "puzzle", &["--lang=en"]).await;
    c.goto(&format!("{base}/puzzles/60")).await.unwrap();
    wait_for(
        &c,
        "document.body.dataset.puzzle === 'playing'",
        "puzzle 60",
    )
    .await;
    // No animation, so that the test waits for the answers and not for the sowing.
    js(&c, "localStorage.setItem('anywoli.speed', 'off')").await;
    c.refresh().await.unwrap();
    wait_for(
        &c,
        "document.body.dataset.puzzle === 'playing'",
        "puzzle 60 again",
    )
    .await;
    assert_eq!(
        js(&c, "return document.querySelector('h1').textContent").await,
        "Puzzle 60"
    );
    viewport(&c, 1280, 800).await;
    save_screenshot(&c, shots, "screenshot-puzzles.png").await;
    let line = http_get(server, "/api/puzzles/60/solution").await["solution"].clone();
    let south: Vec<String> = line
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .filter(|m| m.chars().all(|c| c.is_ascii_lowercase()))
        .collect();
    for (i, mv) in south.iter().enumerate() {
        wait_for(
            &c,
            "document.body.dataset.busy === '0' && document.body.dataset.puzzle !== 'loading'",
            "the puzzle's turn",
        )
        .await;
        assert_eq!(body_data(&c, "puzzle").await, "playing", "before move {i}");
        click(&c, &format!("#board button[data-hole='{mv}']")).await;
    }
    wait_for(
        &c,
        "document.body.dataset.puzzle === 'solved'",
        "the puzzle solved",
    )
    .await;
    let status = js(
        &c,
        "return document.querySelector('#puzzle-status').textContent",
    )
    .await;
    assert!(status.as_str().unwrap().starts_with("Solved!"), "{status}");
    let streak = "return document.querySelector('#puzzle-streak').textContent";
    assert_eq!(js(&c, streak).await, "Streak: 1 solved in a row (best 1)");

    // The first attempt was rated: a new solver's 1500 went up.
    let rating = text_of(&c, "#puzzle-rating").await;
    assert!(rating.contains("1500 → "), "{rating}");
    let after: i64 = body_data(&c, "puzzleRating").await.parse().unwrap();
    assert!(after > 1500, "{rating}");

    // The next puzzle, chosen near the new rating: a wrong first move fails it and ends the
    // streak; the solution shows.
    click(&c, "#puzzle-next").await;
    wait_for(
        &c,
        "document.body.dataset.puzzle === 'playing' && /^\\/puzzles\\/\\d+$/.test(location.pathname) && location.pathname !== '/puzzles/60'",
        "the next puzzle",
    )
    .await;
    let next = js(&c, "return location.pathname.slice(9)").await;
    let next = next.as_str().unwrap().to_string();
    assert_eq!(text_of(&c, "h1").await, format!("Puzzle {next}"));
    let chosen = http_get(server, &format!("/api/puzzles/{next}")).await;
    let gap = (chosen["rating"]["rating"].as_i64().unwrap() - after).abs();
    assert!(
        gap <= 300,
        "the next puzzle is near the solver's rating: {chosen}"
    );
    let first =
        http_get(server, &format!("/api/puzzles/{next}/solution")).await["solution"][0].clone();
    let legal = chosen["legal"].clone();
    let wrong = legal
        .as_array()
        .unwrap()
        .iter()
        .find(|m| **m != first)
        .expect("another legal move")
        .as_str()
        .unwrap()
        .to_string();
    click(&c, &format!("#board button[data-hole='{wrong}']")).await;
    wait_for(
        &c,
        "document.body.dataset.puzzle === 'failed'",
        "the wrong move judged",
    )
    .await;
    let status = js(
        &c,
        "return document.querySelector('#puzzle-status').textContent",
    )
    .await;
    assert!(
        status
            .as_str()
            .unwrap()
            .contains(&format!("The winning move was {}", first.as_str().unwrap())),
        "{status}"
    );
    assert_eq!(
        js(
            &c,
            "return document.querySelector('#puzzle-solution').hidden"
        )
        .await,
        json!(false)
    );
    assert_eq!(js(&c, streak).await, "Streak: 0 solved in a row (best 1)");
    // Kept in the browser across a reload.
    c.refresh().await.unwrap();
    wait_for(
        &c,
        "document.body.dataset.puzzle === 'playing'",
        "the next puzzle reloaded",
    )
    .await;
    assert_eq!(js(&c, streak).await, "Streak: 0 solved in a row (best 1)");

    // The puzzle of the day, from the menu, in Italian.
    c.find(Locator::Css("#lang-select"))
        .await
        .unwrap()
        .select_by_value("it")
        .await
        .unwrap();
    click(&c, "header nav a[href='/puzzles']").await;
    wait_for(
        &c,
        "document.body.dataset.puzzle === 'playing' && document.querySelector('h1').textContent.startsWith('Problema del giorno')",
        "the puzzle of the day",
    )
    .await;
    let _ = c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn the_page_in_a_real_browser() {
    let _slot = support::browser_slot().await;
    let db = fresh_db("server");
    let server = serve_on("127.0.0.1", None, db).await;
    let base = format!("http://{}", server.addr);
    let shots = std::env::var_os("ANYWOLI_SCREENSHOTS").map(PathBuf::from);
    let driver = driver();

    languages(&driver, &base).await;
    friend_game(&driver, &base).await;
    records_and_replay(&driver, &base).await;
    puzzle_mode(&driver, &base, &server, &shots).await;
    let c = browser(&driver, "computer", &["--lang=en"]).await;
    computer_game_to_the_end(&driver, &c, &base, &server, &shots).await;
    let _ = c.close().await;
    server.stop().await;
}
