// Tournaments in real browsers (issue 39): an arena, a Swiss and a round robin played to the
// end by three accounts — two people in browsers (one on a phone), who join on the
// tournament's page and are taken to each game by the page itself, and a third over HTTP. The
// arena is made with the creation form; the standings and podium are checked on the page.
// A tournament "minute" lasts 500 ms here, so the 20-minute arena takes 10 s.

use crate::support;

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

use anywoli_server::Server;
use fantoccini::Client;
use serde_json::{json, Value};
use support::*;

/// An account made over HTTP: its session cookie and CSRF token.
struct Http {
    cookie: String,
    csrf: String,
}

async fn signup_http(server: &Server, name: &str) -> Http {
    let body = json!({"name": name, "password": "correct horse battery"});
    let (s, head, v) = http_with(server, "POST", "/api/account/signup", "", Some(body)).await;
    assert_eq!(s, 201, "{v}");
    let cookie = head
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .and_then(|v| v.split(';').next())
        .unwrap_or_else(|| panic!("a session cookie: {head}"))
        .to_string();
    Http {
        cookie,
        csrf: v["account"]["csrf"].as_str().unwrap().to_string(),
    }
}

async fn as_http(
    server: &Server,
    who: &Http,
    method: &str,
    path: &str,
    body: Value,
) -> (u16, Value) {
    let headers = format!(
        "Cookie: {}\r\nX-CSRF-Token: {}\r\nOrigin: http://{}\r\n",
        who.cookie, who.csrf, server.addr
    );
    let (s, _, v) = http_with(server, method, path, &headers, Some(body)).await;
    (s, v)
}

/// A browser with an account made in its page (the cookie stays in the browser).
async fn person(c: &Client, base: &str, name: &str) {
    c.goto(&format!("{base}/rules")).await.unwrap();
    let up = format!(
        "return fetch('/api/account/signup', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{name: {name:?}, password: 'correct horse battery'}})}}).then((r) => r.status)"
    );
    assert_eq!(js(c, &up).await, json!(201));
    js(
        c,
        "localStorage.setItem('anywoli.lang', 'en'); localStorage.setItem('anywoli.speed', 'fast'); return 1",
    )
    .await;
}

/// Opens tournament `id`'s page and joins with its button.
async fn join_on_page(c: &Client, base: &str, id: &str) {
    c.goto(&format!("{base}/t/{id}")).await.unwrap();
    wait_for(c, "document.querySelector('#tm-join:not([hidden])') && !document.querySelector('#tm-join').disabled", "the Join button").await;
    click(c, "#tm-join").await;
    wait_for(
        c,
        "document.querySelector('#tm-withdraw:not([hidden])') || document.body.dataset.view === 'game'",
        "joined",
    )
    .await;
}

async fn status_of(server: &Server, id: &str) -> Value {
    let (s, v) = http_json(server, "GET", &format!("/api/tournaments/{id}"), None).await;
    assert_eq!(s, 200, "{v}");
    v
}

/// Plays tournament `id` to its end: in every game the player later in `order` loses — the
/// browser's player by the Resign button, the HTTP one by the API. Returns the games each
/// browser was taken to, in order (the page goes to each by itself).
async fn play_to_the_end(
    server: &Server,
    id: &str,
    browsers: [(&Client, &str); 2],
    http: (&Http, &str),
    order: [&str; 3],
) -> HashMap<String, Vec<String>> {
    let rank = |n: &str| order.iter().position(|o| *o == n).unwrap();
    let mut visited: HashMap<String, Vec<String>> = HashMap::new();
    let mut resigned: BTreeSet<String> = BTreeSet::new();
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if status_of(server, id).await["tournament"]["status"] == "finished" {
            return visited;
        }
        assert!(Instant::now() < deadline, "the tournament did not finish");
        let (_, games) =
            http_json(server, "GET", &format!("/api/tournaments/{id}/games"), None).await;
        let games: Vec<(String, String, String)> = games["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                let f = |k: &str| g[k].as_str().unwrap().to_string();
                (f("game"), f("south"), f("north"))
            })
            .collect();
        for (c, name) in browsers {
            let here = js(c, "return [document.body.dataset.view || '', document.body.dataset.status || '', location.pathname]").await;
            if here[0] != "game" {
                continue;
            }
            let game = here[2]
                .as_str()
                .unwrap()
                .trim_start_matches("/g/")
                .to_string();
            let seen = visited.entry(name.to_string()).or_default();
            if seen.last() != Some(&game) {
                seen.push(game.clone());
            }
            let Some((_, south, north)) = games.iter().find(|g| g.0 == game) else {
                continue;
            };
            let loser = if rank(south) > rank(north) {
                south
            } else {
                north
            };
            if loser == name && here[1] == "playing" && !resigned.contains(&game) {
                js(c, "window.confirm = () => true; return 1").await;
                wait_for(c, "document.querySelector('#resign:not([hidden])') && !document.querySelector('#resign').disabled", "the Resign button").await;
                click(c, "#resign").await;
                resigned.insert(game.clone());
            }
        }
        let (who, name) = http;
        for (game, south, north) in &games {
            let mine = south == name || north == name;
            if !mine || resigned.contains(game) {
                continue;
            }
            let other = if south == name { north } else { south };
            if rank(name) < rank(other) {
                continue;
            }
            let (s, seat) = as_http(
                server,
                who,
                "POST",
                &format!("/api/games/{game}/seat"),
                json!({}),
            )
            .await;
            assert_eq!(s, 200, "{seat}");
            let body = json!({"secret": seat["secret"]});
            let (s, v) = as_http(
                server,
                who,
                "POST",
                &format!("/api/games/{game}/resign"),
                body,
            )
            .await;
            assert!(s == 200 || v["error"] == "game_over", "{v}");
            resigned.insert(game.clone());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The podium as the tournament's page shows it, once finished.
async fn podium_on_page(c: &Client, base: &str, id: &str) -> Vec<String> {
    c.goto(&format!("{base}/t/{id}")).await.unwrap();
    wait_for(c, "document.querySelector('#tm-podium:not([hidden])') && document.querySelectorAll('#tm-podium .tm-podium-name').length > 0", "the podium").await;
    let names = js(
        c,
        "return [...document.querySelectorAll('#tm-podium .tm-podium-name')].map((a) => a.textContent.trim())",
    )
    .await;
    names
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn an_arena_a_swiss_and_a_round_robin_are_played_to_the_end_in_browsers() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let mut config = support::config("127.0.0.1", None, fresh_db("tournaments"));
    config.minute_ms = 500;
    let server = anywoli_server::start(&config).await.unwrap();
    let base = format!("http://{}", server.addr);
    let a = phone(&driver, "tournaments-a", 390, 844).await;
    let b = browser(&driver, "tournaments-b", &[]).await;
    person(&a, &base, "Ama").await;
    person(&b, &base, "Bol").await;
    let cey = signup_http(&server, "Cey").await;
    let order = ["Ama", "Bol", "Cey"];
    let shots = Some(scratch("tournament-shots"));
    eprintln!("screenshots in {}", shots.as_ref().unwrap().display());

    // The arena, made with the form on a phone.
    a.goto(&format!("{base}/tournaments")).await.unwrap();
    wait_for(
        &a,
        "document.body.dataset.view === 'tournaments' && document.querySelector('#tm-form')",
        "the creation form",
    )
    .await;
    super::browser_players::type_into(&a, "#tm-name", "Evening arena").await;
    js(&a, "const m = document.querySelector('#tm-minutes'); m.value = '20'; m.dispatchEvent(new Event('input', {bubbles: true})); document.querySelector('#tm-clock').value = '1+0'; return 1").await;
    click(&a, "#tm-submit").await;
    wait_for(
        &a,
        "location.pathname.startsWith('/t/') && document.querySelector('#tm-name')",
        "the new tournament's page",
    )
    .await;
    let arena = a
        .current_url()
        .await
        .unwrap()
        .path()
        .trim_start_matches("/t/")
        .to_string();
    let v = status_of(&server, &arena).await;
    assert_eq!(v["tournament"]["system"], "arena", "{v}");
    assert_eq!(v["tournament"]["clock"], "1+0", "{v}");
    let fits = "return document.documentElement.scrollWidth <= window.innerWidth";
    assert_eq!(
        js(&a, fits).await,
        json!(true),
        "the tournament's page fits a phone"
    );
    save_screenshot(&a, &shots, "arena-new-phone.png").await;
    // The tournament's chat: Ama writes on her phone, Bol reads it on his page.
    b.goto(&format!("{base}/t/{arena}")).await.unwrap();
    wait_for(&b, "document.querySelector('#tm-chat-input')", "Bol's chat").await;
    wait_for(&a, "document.querySelector('#tm-chat-input')", "Ama's chat").await;
    super::browser_players::type_into(&a, "#tm-chat-input", "good luck, everyone").await;
    click(&a, "#tm-chat button[type=submit]").await;
    wait_for(
        &b,
        "[...document.querySelectorAll('#tm-chat-lines li')].some((li) => li.textContent === 'Ama good luck, everyone')",
        "Ama's line on Bol's page",
    )
    .await;
    join_on_page(&a, &base, &arena).await;
    join_on_page(&b, &base, &arena).await;
    let (s, v) = as_http(
        &server,
        &cey,
        "POST",
        &format!("/api/tournaments/{arena}/join"),
        json!({}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    // The page takes Ama to her first game, where she berserks with the button.
    wait_for(
        &a,
        "document.body.dataset.view === 'game' && document.body.dataset.status === 'playing' && document.querySelector('#berserk:not([hidden])')",
        "Ama's first game, with the Berserk button",
    )
    .await;
    let first = a
        .current_url()
        .await
        .unwrap()
        .path()
        .trim_start_matches("/g/")
        .to_string();
    save_screenshot(&a, &shots, "arena-game-phone.png").await;
    click(&a, "#berserk").await;
    wait_for(
        &a,
        "document.querySelector('#berserk').hidden",
        "the button gone once used",
    )
    .await;
    let (_, g) = http_json(&server, "GET", &format!("/api/games/{first}"), None).await;
    let side = body_data(&a, "seat").await;
    assert_eq!(g["berserk"][&side], true, "{g}");
    assert_eq!(g["clock"][&side], 30_000, "half of a minute: {g}");
    let visited = play_to_the_end(
        &server,
        &arena,
        [(&a, "Ama"), (&b, "Bol")],
        (&cey, "Cey"),
        order,
    )
    .await;
    assert!(
        visited.get("Ama").map_or(0, Vec::len) >= 2,
        "the page took Ama from game to game by itself: {visited:?}"
    );
    assert_eq!(
        podium_on_page(&a, &base, &arena).await,
        order,
        "the arena's podium"
    );
    assert_eq!(
        js(&a, fits).await,
        json!(true),
        "the finished tournament fits a phone"
    );
    save_screenshot(&a, &shots, "arena-finished-phone.png").await;
    b.goto(&format!("{base}/g/{}", visited["Bol"][0]))
        .await
        .unwrap();
    wait_for(
        &b,
        "document.querySelector('#tournament-link')",
        "the game's tournament link",
    )
    .await;
    save_screenshot(&b, &shots, "arena-game-desktop.png").await;

    // A Swiss of three rounds, made over HTTP, started by its organiser's button.
    let later = anywoli_server::dates::now_ms() + 600_000;
    let body = json!({"name": "Club Swiss", "system": "swiss", "clock": "1+0", "rounds": 3,
                      "round_gap_s": 0, "starts_at": later});
    let (s, v) = as_http(&server, &cey, "POST", "/api/tournaments", body).await;
    assert_eq!(s, 201, "{v}");
    let swiss = v["tournament"]["id"].as_str().unwrap().to_string();
    join_on_page(&a, &base, &swiss).await;
    join_on_page(&b, &base, &swiss).await;
    let (s, v) = as_http(
        &server,
        &cey,
        "POST",
        &format!("/api/tournaments/{swiss}/join"),
        json!({}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = as_http(
        &server,
        &cey,
        "POST",
        &format!("/api/tournaments/{swiss}/start"),
        json!({}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    play_to_the_end(
        &server,
        &swiss,
        [(&a, "Ama"), (&b, "Bol")],
        (&cey, "Cey"),
        order,
    )
    .await;
    assert_eq!(
        podium_on_page(&b, &base, &swiss).await,
        order,
        "the Swiss's podium"
    );
    save_screenshot(&b, &shots, "swiss-finished-desktop.png").await;
    let (_, rows) = http_json(
        &server,
        "GET",
        &format!("/api/tournaments/{swiss}/standings"),
        None,
    )
    .await;
    let scores: Vec<f64> = rows["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["score"].as_f64().unwrap())
        .collect();
    assert_eq!(
        scores,
        [3.0, 2.0, 1.0],
        "a win is a point, and so is a bye: {rows}"
    );

    // A round robin, made with the form by Bol and started by his button.
    b.goto(&format!("{base}/tournaments")).await.unwrap();
    wait_for(
        &b,
        "document.querySelector('#tm-form')",
        "the creation form",
    )
    .await;
    super::browser_players::type_into(&b, "#tm-name", "Three friends").await;
    click(&b, "input[name=system][value=round-robin]").await;
    js(
        &b,
        "document.querySelector('#tm-clock').value = '1+0'; return 1",
    )
    .await;
    click(&b, "input[name=pace][value=gap]").await;
    super::browser_players::type_into(&b, "#tm-gap", "0").await;
    click(&b, "#tm-submit").await;
    wait_for(
        &b,
        "location.pathname.startsWith('/t/') && document.querySelector('#tm-name')",
        "the round robin's page",
    )
    .await;
    let robin = b
        .current_url()
        .await
        .unwrap()
        .path()
        .trim_start_matches("/t/")
        .to_string();
    join_on_page(&a, &base, &robin).await;
    let (s, v) = as_http(
        &server,
        &cey,
        "POST",
        &format!("/api/tournaments/{robin}/join"),
        json!({}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    join_on_page(&b, &base, &robin).await;
    wait_for(
        &b,
        "document.querySelector('#tm-start:not([hidden])')",
        "the organiser's Start button",
    )
    .await;
    click(&b, "#tm-start").await;
    play_to_the_end(
        &server,
        &robin,
        [(&a, "Ama"), (&b, "Bol")],
        (&cey, "Cey"),
        order,
    )
    .await;
    let v = status_of(&server, &robin).await;
    assert_eq!(v["tournament"]["rounds"], 3, "{v}");
    assert_eq!(
        podium_on_page(&a, &base, &robin).await,
        order,
        "the round robin's podium"
    );

    // A second tournament of each format, made over HTTP by Bol, won by him this time: the
    // browsers join on the pages and are taken to every game.
    let bol_order = ["Bol", "Cey", "Ama"];
    let later = anywoli_server::dates::now_ms() + 600_000;
    for body in [
        json!({"name": "Second arena", "system": "arena", "clock": "1+0", "minutes": 20,
               "starts_at": later}),
        json!({"name": "Second Swiss", "system": "swiss", "clock": "1+0", "rounds": 3,
               "round_gap_s": 0, "starts_at": later}),
        json!({"name": "Second round robin", "system": "round-robin", "clock": "1+0",
               "double": true, "round_gap_s": 0, "starts_at": later}),
    ] {
        let id = b
            .execute(
                "return fetch('/api/account').then((r) => r.json()).then((me) => fetch('/api/tournaments', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-CSRF-Token': me.account.csrf}, body: JSON.stringify(arguments[0])})).then((r) => r.json()).then((v) => v.tournament.id)",
                vec![body.clone()],
            )
            .await
            .unwrap();
        let id = id.as_str().unwrap().to_string();
        join_on_page(&a, &base, &id).await;
        let (s, v) = as_http(
            &server,
            &cey,
            "POST",
            &format!("/api/tournaments/{id}/join"),
            json!({}),
        )
        .await;
        assert_eq!(s, 200, "{v}");
        join_on_page(&b, &base, &id).await;
        wait_for(
            &b,
            "document.querySelector('#tm-start:not([hidden])')",
            "the organiser's Start button",
        )
        .await;
        click(&b, "#tm-start").await;
        play_to_the_end(
            &server,
            &id,
            [(&a, "Ama"), (&b, "Bol")],
            (&cey, "Cey"),
            bol_order,
        )
        .await;
        assert_eq!(podium_on_page(&b, &base, &id).await, bol_order, "{body}");
    }
    let (_, v) = http_json(&server, "GET", "/api/tournaments", None).await;
    assert_eq!(
        v["finished"].as_array().unwrap().len(),
        6,
        "two of each format: {v}"
    );

    let _ = a.close().await;
    let _ = b.close().await;
    server.stop().await;
}
