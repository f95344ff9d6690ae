// The reader's preferences in a real browser: dark colours that follow the device's setting,
// the switch that overrides it (and lasts across reloads), the move sounds and their switch,
// the tab title on the reader's move, and the notification that is asked for only when the
// reader switches it on.
//
// `ANYWOLI_SCREENSHOTS=DIR` also saves the game page in dark colours, on a desktop and on a
// phone, as DIR/dark-desktop.png and DIR/dark-phone.png (docs/ keeps them). The other views in
// dark colours go to a scratch folder under target/tmp/ every run, for a reviewer to look at.

use crate::support;

use std::path::PathBuf;

use anywoli_server::Server;
use fantoccini::Client;
use serde_json::{json, Value};
use support::*;

/// The page's background and text colours, as [r, g, b] each: the root's background, the
/// body's text, and a panel's background when there is one.
async fn colours(c: &Client) -> Value {
    js(
        c,
        "const rgb = (s) => (s.match(/\\d+(\\.\\d+)?/g) || []).slice(0, 3).map(Number);
         const panel = document.querySelector('.panel, .side-panel');
         return {
           bg: rgb(getComputedStyle(document.documentElement).backgroundColor),
           ink: rgb(getComputedStyle(document.body).color),
           panel: panel ? rgb(getComputedStyle(panel).backgroundColor) : null,
           theme: document.documentElement.dataset.theme,
         }",
    )
    .await
}

/// Relative luminance (WCAG) of [r, g, b].
fn luminance(rgb: &Value) -> f64 {
    let f = |c: f64| {
        let c = c / 255.0;
        if c <= 0.03928 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let v: Vec<f64> = rgb
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    0.2126 * f(v[0]) + 0.7152 * f(v[1]) + 0.0722 * f(v[2])
}

fn contrast(a: &Value, b: &Value) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Asserts the page is in `theme` colours, with text readable on them (WCAG AA: 4.5).
async fn assert_theme(c: &Client, theme: &str, what: &str) {
    let v = colours(c).await;
    assert_eq!(v["theme"], json!(theme), "{what}: {v}");
    let bg = luminance(&v["bg"]);
    if theme == "dark" {
        assert!(bg < 0.05, "{what}: a dark background {v}");
    } else {
        assert!(bg > 0.7, "{what}: a light background {v}");
    }
    assert!(contrast(&v["bg"], &v["ink"]) >= 4.5, "{what}: {v}");
    if !v["panel"].is_null() {
        assert!(contrast(&v["panel"], &v["ink"]) >= 4.5, "{what}: {v}");
    }
}

/// Opens the settings menu and picks `css` in it.
async fn pick(c: &Client, css: &str) {
    if js(c, "return document.getElementById('prefs').open").await != json!(true) {
        click(c, "#prefs > summary").await;
    }
    // The menu's panel is laid out a frame after it opens (Chromium 156 refuses a click on a
    // choice before that: "element not interactable").
    let shown = format!(
        "(() => {{ const e = document.querySelector({css:?}); const r = e && e.getBoundingClientRect(); \
         return !!r && r.width > 0 && r.height > 0; }})()"
    );
    wait_for(c, &shown, "the menu's choice laid out").await;
    // Its label, as a person clicks it: Chromium 156's WebDriver refuses a click on the radio
    // itself in the open menu ("element not interactable"), which 156.0.8078.73 took.
    click(c, &format!("label:has({css})")).await;
}

async fn dark_follows_the_device(driver: &Driver, base: &str) {
    let c = browser(driver, "dark-device", &["--lang=en", "--force-dark-mode"]).await;
    c.goto(&format!("{base}/")).await.unwrap();
    wait_for(
        &c,
        "document.querySelector('#new-form')",
        "the new game form",
    )
    .await;
    assert_theme(&c, "dark", "a dark device, no choice made").await;
    // The colours are set by a plain script before the style sheet: no flash of light colours.
    let order = js(
        &c,
        "const h = [...document.head.children];
         return h.findIndex((e) => e.src && e.src.endsWith('/assets/theme.js') && !e.type)
           < h.findIndex((e) => e.rel === 'stylesheet')",
    )
    .await;
    assert_eq!(order, json!(true), "theme.js runs before the style sheet");
    assert_eq!(
        js(
            &c,
            "return document.querySelector('input[name=theme]:checked').value"
        )
        .await,
        json!("system")
    );

    // The switch overrides the device, and lasts.
    pick(&c, "input[name=theme][value=light]").await;
    assert_theme(&c, "light", "light chosen on a dark device").await;
    c.refresh().await.unwrap();
    wait_for(
        &c,
        "document.querySelector('#new-form')",
        "the reloaded form",
    )
    .await;
    assert_theme(&c, "light", "light chosen, after a reload").await;
    assert_eq!(
        js(
            &c,
            "return document.querySelector('input[name=theme]:checked').value"
        )
        .await,
        json!("light")
    );
    // The menu closes with Escape and by a click elsewhere.
    pick(&c, "input[name=theme][value=system]").await;
    assert_theme(&c, "dark", "back to the device's colours").await;
    assert_eq!(
        js(&c, "return localStorage.getItem('anywoli.theme')").await,
        Value::Null
    );
    click(&c, "#new-form legend").await;
    assert_eq!(
        js(&c, "return document.getElementById('prefs').open").await,
        json!(false),
        "a click elsewhere closes the menu"
    );
    let _ = c.close().await;

    // A light device: light until the reader picks dark, which lasts across pages and reloads.
    let c = browser(driver, "light-device", &["--lang=en"]).await;
    c.goto(&format!("{base}/rules")).await.unwrap();
    wait_for(&c, "document.querySelector('.rules')", "the rules").await;
    assert_theme(&c, "light", "a light device").await;
    pick(&c, "input[name=theme][value=dark]").await;
    assert_theme(&c, "dark", "dark chosen").await;
    // The diagrams' arrows follow the colours too.
    let arrow = js(
        &c,
        "return getComputedStyle(document.querySelector('.dg-arrow')).stroke",
    )
    .await;
    assert_eq!(arrow, json!("rgb(255, 138, 125)"));
    c.refresh().await.unwrap();
    wait_for(&c, "document.querySelector('.rules')", "the reloaded rules").await;
    assert_theme(&c, "dark", "dark chosen, after a reload").await;
    click(&c, "header nav a[href='/puzzles']").await;
    wait_for(
        &c,
        "document.body.dataset.puzzle === 'playing'",
        "the puzzle",
    )
    .await;
    assert_theme(&c, "dark", "the puzzle page").await;
    let _ = c.close().await;
}

async fn sounds(driver: &Driver, base: &str) {
    let c = browser(driver, "sounds", &["--lang=en"]).await;
    c.goto(&format!("{base}/")).await.unwrap();
    js(
        &c,
        "localStorage.setItem('anywoli.speed', 'fast'); return 1",
    )
    .await;
    c.refresh().await.unwrap();
    // On unless switched off.
    assert_eq!(
        js(&c, "return document.getElementById('pref-sound').checked").await,
        json!(true)
    );
    new_game(&c, base, "local", "south", None).await;
    js(
        &c,
        "window.__errors = [];
         addEventListener('error', (e) => __errors.push(String(e.message)));
         addEventListener('unhandledrejection', (e) => __errors.push(String(e.reason)));
         return 1",
    )
    .await;
    for n in 1..=3 {
        await_my_turn(&c).await;
        click(&c, ".hole.playable").await;
        wait_for(
            &c,
            &format!(
                "Number(document.body.dataset.ply) >= {n} && document.body.dataset.busy === '0'"
            ),
            "the move sown",
        )
        .await;
    }
    let counts = js(&c, "return window.__anywoliSounds").await;
    assert!(
        counts["move"].as_u64().unwrap() >= 3,
        "one sound per move: {counts}"
    );
    assert_eq!(counts["failed"], json!(0), "{counts}");
    assert_eq!(js(&c, "return window.__errors").await, json!([]));
    // The clocks' warning, for later: it plays (or, without audio, does nothing) and never throws.
    let low = js(
        &c,
        "return import('/assets/prefs.js').then((m) => { m.sound.lowTime(); return window.__anywoliSounds.lowTime; })",
    )
    .await;
    assert_eq!(low, json!(1));
    eprintln!("sounds asked for and played with audio on: {counts}");

    // Switched off: remembered, and no sound is made.
    pick(&c, "#pref-sound").await;
    assert_eq!(
        js(&c, "return localStorage.getItem('anywoli.sound')").await,
        json!("off")
    );
    c.refresh().await.unwrap();
    wait_for(
        &c,
        "document.body.dataset.status === 'playing'",
        "the game again",
    )
    .await;
    assert_eq!(
        js(&c, "return document.getElementById('pref-sound').checked").await,
        json!(false)
    );
    let ply: usize = body_data(&c, "ply").await.parse().unwrap();
    await_my_turn(&c).await;
    click(&c, ".hole.playable").await;
    wait_for(
        &c,
        &format!("Number(document.body.dataset.ply) > {ply} && document.body.dataset.busy === '0'"),
        "the silent move",
    )
    .await;
    assert_eq!(
        js(&c, "return window.__anywoliSounds.move").await,
        json!(0),
        "no sound when switched off"
    );
    // And on again.
    pick(&c, "#pref-sound").await;
    assert_eq!(
        js(&c, "return localStorage.getItem('anywoli.sound')").await,
        json!("on")
    );
    let _ = c.close().await;
}

/// A stand-in for the browser's notifications, in place before the page's own scripts run:
/// it records every permission request and every notification shown, and answers a request
/// with `window.__notifyAnswer`.
const FAKE_NOTIFICATIONS: &str = "
  window.__notes = { requests: 0, shown: [] };
  window.__notifyAnswer = 'granted';
  class FakeNotification {
    constructor(title, options) { window.__notes.shown.push({ title, body: options && options.body }); }
    close() {}
  }
  FakeNotification.permission = 'default';
  FakeNotification.requestPermission = () => {
    window.__notes.requests += 1;
    FakeNotification.permission = window.__notifyAnswer;
    return Promise.resolve(window.__notifyAnswer);
  };
  Object.defineProperty(window, 'Notification', { value: FakeNotification, configurable: true, writable: true });
";

/// A friend game created through the API as South: (id, South's secret, the invite token).
async fn friend_game(server: &Server) -> (String, String, String) {
    let (s, v) = http_json(
        server,
        "POST",
        "/api/games",
        Some(json!({"mode": "friend", "side": "south"})),
    )
    .await;
    assert_eq!(s, 201, "{v}");
    (
        v["game"]["id"].as_str().unwrap().to_string(),
        v["secret"].as_str().unwrap().to_string(),
        v["invite"].as_str().unwrap().to_string(),
    )
}

/// South's move through the API: the first legal one.
async fn south_moves(server: &Server, id: &str, secret: &str) -> String {
    let g = http_get(server, &format!("/api/games/{id}")).await;
    assert_eq!(g["to_move"], "south", "{g}");
    let m = g["legal"][0].as_str().unwrap().to_string();
    let (s, v) = http_json(
        server,
        "POST",
        &format!("/api/games/{id}/moves"),
        Some(json!({"move": m, "secret": secret, "ply": g["ply"]})),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    m
}

/// Plays moves for whoever is to move until it is `side`'s turn (an extra move keeps the
/// turn): South through the API, North by clicking in `c`.
async fn until_turn_of(c: &Client, server: &Server, id: &str, secret: &str, side: &str) {
    for _ in 0..20 {
        let g = http_get(server, &format!("/api/games/{id}")).await;
        if g["to_move"] == side {
            return;
        }
        if g["to_move"] == "south" {
            south_moves(server, id, secret).await;
        } else {
            await_my_turn(c).await;
            click(c, ".hole.playable").await;
        }
        let ply = g["ply"].as_u64().unwrap();
        wait_for(
            c,
            &format!(
                "Number(document.body.dataset.ply) > {ply} && document.body.dataset.busy === '0'"
            ),
            "the move shown",
        )
        .await;
    }
    panic!("{side} never got the turn");
}

async fn title_and_notifications(driver: &Driver, server: &Server, base: &str) {
    let c = browser(driver, "notify", &["--lang=en"]).await;
    cdp(
        driver,
        &c,
        "Page.addScriptToEvaluateOnNewDocument",
        json!({ "source": FAKE_NOTIFICATIONS }),
    )
    .await;
    let (id, south, invite) = friend_game(server).await;
    c.goto(&format!("{base}/g/{id}#invite={invite}"))
        .await
        .unwrap();
    js(&c, "localStorage.setItem('anywoli.speed', 'off'); return 1").await;
    wait_for(
        &c,
        "document.querySelector('#join') && !document.querySelector('#join').hidden",
        "the seat offer",
    )
    .await;
    click(&c, "#join-button").await;
    wait_for(
        &c,
        "document.body.dataset.seat === 'north'",
        "seated as North",
    )
    .await;
    // Nobody asked on load.
    assert_eq!(js(&c, "return window.__notes.requests").await, json!(0));
    assert_eq!(
        js(&c, "return document.getElementById('pref-notify').checked").await,
        json!(false)
    );
    // South to move: the title says whose move it is, as before.
    let title = c.title().await.unwrap();
    assert_eq!(title, "Anywoli — South to move.");

    // Refused: the setting stays off, and says where to allow it.
    js(&c, "window.__notifyAnswer = 'denied'; return 1").await;
    pick(&c, "#pref-notify").await;
    wait_for(
        &c,
        "document.getElementById('notify-note').dataset.state === 'notify_denied'",
        "the refusal shown",
    )
    .await;
    assert_eq!(
        js(&c, "return [window.__notes.requests, document.getElementById('pref-notify').checked, localStorage.getItem('anywoli.notify')]").await,
        json!([1, false, "off"])
    );
    assert!(text_of(&c, "#notify-note")
        .await
        .contains("blocks notifications"));
    // Allowed (the reader changed the site's settings): on.
    js(
        &c,
        "Notification.permission = 'default'; window.__notifyAnswer = 'granted'; return 1",
    )
    .await;
    click(&c, "label:has(#pref-notify)").await;
    wait_for(
        &c,
        "document.getElementById('pref-notify').checked && localStorage.getItem('anywoli.notify') === 'on'",
        "notifications on",
    )
    .await;
    assert_eq!(js(&c, "return window.__notes.requests").await, json!(2));
    click(&c, "#prefs > summary").await;

    // South moves while North looks at the page: the title says so, no notification.
    until_turn_of(&c, server, &id, &south, "north").await;
    wait_for(&c, "document.body.dataset.turn === 'mine'", "North's turn").await;
    assert_eq!(c.title().await.unwrap(), "● Your move — Anywoli");
    assert_eq!(js(&c, "return window.__notes.shown.length").await, json!(0));
    // North moves (again, after an extra move) until South is to move: the title is back to
    // normal.
    until_turn_of(&c, server, &id, &south, "south").await;
    wait_for(
        &c,
        "document.body.dataset.turn === 'theirs'",
        "South's turn",
    )
    .await;
    assert_eq!(c.title().await.unwrap(), "Anywoli — South to move.");

    // The tab hidden: South's move makes a notification.
    js(
        &c,
        "Object.defineProperty(document, 'hidden', { get: () => true, configurable: true }); return 1",
    )
    .await;
    let m = south_moves(server, &id, &south).await;
    let g = http_get(server, &format!("/api/games/{id}")).await;
    if g["to_move"] == "north" {
        wait_for(&c, "window.__notes.shown.length === 1", "the notification").await;
        let shown = js(&c, "return window.__notes.shown[0]").await;
        assert_eq!(
            shown,
            json!({"title": "Anywoli", "body": format!("Your friend played {m}. It is your move.")})
        );
        assert_eq!(c.title().await.unwrap(), "● Your move — Anywoli");
    } else {
        // An extra move: South moves again, and North is told once its turn comes.
        until_turn_of(&c, server, &id, &south, "north").await;
        wait_for(&c, "window.__notes.shown.length === 1", "the notification").await;
    }
    // In the page's language.
    c.find(fantoccini::Locator::Css("#lang-select"))
        .await
        .unwrap()
        .select_by_value("it")
        .await
        .unwrap();
    wait_for(
        &c,
        "document.title.startsWith('● Tocca a te')",
        "the Italian title",
    )
    .await;
    assert!(text_of(&c, "#notify-note")
        .await
        .contains("in secondo piano"));
    js(&c, "localStorage.setItem('anywoli.lang', 'en'); return 1").await;
    let _ = c.close().await;
}

/// The game page in dark colours, on a desktop (the device's setting) and on a phone (the
/// reader's choice), mid-game against the computer.
async fn dark_screenshots(driver: &Driver, base: &str, shots: &Option<PathBuf>) {
    let views = Some(scratch("dark-views"));
    let c = browser(driver, "dark-shots", &["--lang=en", "--force-dark-mode"]).await;
    c.goto(&format!("{base}/")).await.unwrap();
    js(&c, "localStorage.setItem('anywoli.speed', 'off'); return 1").await;
    // The new game form, with the settings menu open.
    viewport(&c, 1280, 800).await;
    c.refresh().await.unwrap();
    wait_for(
        &c,
        "document.querySelector('#new-form')",
        "the new game form",
    )
    .await;
    click(&c, "#prefs > summary").await;
    save_screenshot(&c, &views, "new-menu.png").await;
    click(&c, "#prefs > summary").await;
    new_game(&c, base, "computer", "south", Some(1)).await;
    for _ in 0..5 {
        if !await_my_turn(&c).await {
            break;
        }
        let ply = body_data(&c, "ply").await;
        click(&c, ".hole.playable").await;
        wait_for(
            &c,
            &format!("document.body.dataset.ply !== '{ply}'"),
            "my move",
        )
        .await;
    }
    await_my_turn(&c).await;
    assert_theme(&c, "dark", "the game page").await;
    // The move list's current move stays readable.
    let readable = js(
        &c,
        "const rgb = (s) => s.match(/\\d+/g).slice(0, 3).map(Number);
         const cur = document.querySelector('#movelist .current');
         return [rgb(getComputedStyle(cur).color), rgb(getComputedStyle(cur).backgroundColor)]",
    )
    .await;
    assert!(
        contrast(&readable[0], &readable[1]) >= 4.5,
        "the current move: {readable}"
    );
    save_screenshot(&c, shots, "dark-desktop.png").await;
    save_screenshot(&c, &views, "game-desktop.png").await;
    // A toast and the seeds in hand, which usually pass too quickly to be seen; then the same
    // in light colours.
    let show_passing = "const t = document.getElementById('toast'); t.textContent = 'South captures 4 from E.'; t.hidden = false;
         const h = document.querySelector('.hand'); h.textContent = '5 in hand'; h.classList.add('shown'); return 1";
    js(&c, show_passing).await;
    let png = c.screenshot().await.unwrap();
    std::fs::write(views.as_ref().unwrap().join("passing-dark.png"), png).unwrap();
    pick(&c, "input[name=theme][value=light]").await;
    click(&c, "#prefs > summary").await;
    js(&c, show_passing).await;
    let png = c.screenshot().await.unwrap();
    std::fs::write(views.as_ref().unwrap().join("passing-light.png"), png).unwrap();
    pick(&c, "input[name=theme][value=system]").await;
    click(&c, "#prefs > summary").await;
    js(
        &c,
        "document.getElementById('toast').hidden = true; document.querySelector('.hand').classList.remove('shown'); return 1",
    )
    .await;
    let seats = js(&c, "return localStorage.getItem('anywoli.seats')").await;
    let id = c
        .current_url()
        .await
        .unwrap()
        .path()
        .trim_start_matches("/g/")
        .to_string();
    let ply = body_data(&c, "ply").await;

    let p = phone(driver, "dark-phone", 390, 844).await;
    p.goto(&format!("{base}/rules")).await.unwrap();
    p.execute(
        "localStorage.setItem('anywoli.seats', arguments[0]); localStorage.setItem('anywoli.speed', 'off');
         localStorage.setItem('anywoli.theme', 'dark'); localStorage.setItem('anywoli.lang', 'en'); return 1",
        vec![seats],
    )
    .await
    .unwrap();
    p.refresh().await.unwrap();
    wait_for(
        &p,
        "document.querySelector('.rules')",
        "the rules on a phone",
    )
    .await;
    save_screenshot(&p, &views, "rules-phone.png").await;
    p.goto(&format!("{base}/g/{id}")).await.unwrap();
    wait_for(
        &p,
        &format!("document.body.dataset.ply === '{ply}' && document.body.dataset.seat === 'south'"),
        "the game on the phone",
    )
    .await;
    assert_theme(&p, "dark", "the game on a phone").await;
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
    save_screenshot(&p, shots, "dark-phone.png").await;
    save_screenshot(&p, &views, "game-phone.png").await;
    // The settings menu on a phone: inside the screen.
    click(&p, "#prefs > summary").await;
    let inside = js(
        &p,
        "const r = document.querySelector('.prefs-panel').getBoundingClientRect();
         return r.left >= 0 && r.right <= window.innerWidth",
    )
    .await;
    assert_eq!(inside, json!(true), "the settings menu fits a phone");
    save_screenshot(&p, &views, "menu-phone.png").await;
    eprintln!(
        "the dark views are in {}",
        views.as_ref().unwrap().display()
    );
    let _ = p.close().await;
    let _ = c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn preferences_in_a_real_browser() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let server = serve_at("prefs", "127.0.0.1", None).await;
    let base = format!("http://{}", server.addr);
    let shots = std::env::var_os("ANYWOLI_SCREENSHOTS").map(PathBuf::from);
    dark_follows_the_device(&driver, &base).await;
    sounds(&driver, &base).await;
    title_and_notifications(&driver, &server, &base).await;
    dark_screenshots(&driver, &base, &shots).await;
    server.stop().await;
}
