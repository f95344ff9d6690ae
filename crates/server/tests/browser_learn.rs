// The course in a real browser, as a newcomer meets it: the first visit offers it on the
// new-game screen, every lesson is completed by playing the intended moves on the board (the
// solutions come from the engine's course), a wrong move in two lessons gets its explanation
// and a retry, the progress survives a reload, "Why?" tells a game's move lap by lap, and a
// phone shows a lesson in Tagalog.
//
// `ANYWOLI_SCREENSHOTS=DIR` also saves DIR/screenshot-lesson.png (desktop, a wrong move
// explained) and DIR/screenshot-lesson-phone.png (docs/ keeps them).

use crate::support;

use std::path::PathBuf;

use anywoli_engine::lessons;
use fantoccini::Client;
use support::*;

fn shots() -> Option<PathBuf> {
    std::env::var_os("ANYWOLI_SCREENSHOTS").map(PathBuf::from)
}

async fn press(c: &Client, hole: &str) {
    click(c, &format!("#board .hole.playable[data-hole='{hole}']")).await;
    wait_for(
        c,
        "document.body.dataset.busy === '0' && document.body.dataset.lesson !== 'loading'",
        &format!("the answer to {hole}"),
    )
    .await;
}

/// A wrong first move in the exercise shown: its explanation (saved as `shot`, when asked),
/// then a retry.
async fn miss_then_retry(c: &Client, hole: &str, needle: &str, shot: (&Option<PathBuf>, &str)) {
    press(c, hole).await;
    wait_for(c, "document.body.dataset.lesson === 'wrong'", "the miss").await;
    let why = text_of(c, "#lesson-status").await;
    assert!(why.contains(needle), "{why}");
    assert!(why.ends_with("Try again."), "{why}");
    // The move told lap by lap, open after a miss.
    let laps = js(
        c,
        "const d = document.querySelector('#lesson-trace'); return d.hidden || !d.open ? 0 : d.querySelectorAll('li').length",
    )
    .await;
    assert!(
        laps.as_u64().unwrap() >= 2,
        "the miss told lap by lap: {laps}"
    );
    if !shot.1.is_empty() {
        save_screenshot(c, shot.0, shot.1).await;
    }
    click(c, "#lesson-retry").await;
    wait_for(
        c,
        "document.body.dataset.lesson === 'playing'",
        "the exercise again",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn a_newcomer_completes_the_course() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let server = serve_at("learn", "127.0.0.1", None).await;
    let base = format!("http://{}", server.addr);
    let shots = shots();
    let c = browser(&driver, "learn", &[]).await;
    c.goto(&format!("{base}/")).await.unwrap();
    js(
        &c,
        "localStorage.clear(); localStorage.setItem('anywoli.speed', 'fast'); localStorage.setItem('anywoli.lang', 'en'); return 1",
    )
    .await;
    c.goto(&format!("{base}/")).await.unwrap();
    wait_for(
        &c,
        "document.querySelector('#course-offer')",
        "the course offered on a first visit",
    )
    .await;
    click(&c, "#offer-start").await;
    wait_for(&c, "document.body.dataset.learn === 'course'", "the course").await;
    let story = js(&c, "return document.querySelectorAll('#story p').length").await;
    assert_eq!(
        story.as_u64(),
        Some(5),
        "the game's story below the lessons"
    );
    let listed = js(
        &c,
        "return document.querySelectorAll('.lesson-item').length",
    )
    .await;
    assert_eq!(listed.as_u64().unwrap() as usize, lessons::all().len());
    click(&c, "#learn-start").await;

    for l in lessons::all() {
        wait_for(
            &c,
            &format!(
                "location.pathname === '/learn/{}' && document.body.dataset.lesson === 'playing'",
                l.id
            ),
            l.id,
        )
        .await;
        for (i, e) in l.exercises.iter().enumerate() {
            wait_for(
                &c,
                &format!(
                    "document.body.dataset.exercise === '{}' && document.body.dataset.lesson === 'playing'",
                    i + 1
                ),
                &format!("{} #{}", l.id, i + 1),
            )
            .await;
            match (l.id, i) {
                ("relay", 0) => {
                    let why = "Your last seed fell into the empty hole f";
                    miss_then_retry(&c, "e", why, (&shots, "screenshot-lesson.png")).await
                }
                ("threes", 0) => {
                    let why = "North’s L would take the four in a";
                    miss_then_retry(&c, "f", why, (&shots, "")).await
                }
                ("force", 0) => {
                    let why = "North would answer C, and then you would have nothing to capture.";
                    miss_then_retry(&c, "i", why, (&shots, "")).await
                }
                _ => {}
            }
            // The learner presses its moves; the opponent's (the defence in a forcing
            // exercise) are the page's to show.
            let mut p = e.position;
            for (k, &m) in e.solution.iter().enumerate() {
                let mine = p.to_move() == Some(e.side());
                p.play(m).unwrap();
                if !mine {
                    let status = text_of(&c, "#lesson-status").await;
                    assert_eq!(status, format!("North answers {m}. Now take your capture."));
                    continue;
                }
                press(&c, &m.to_string()).await;
                let want = if k + 1 == e.solution.len() {
                    "done"
                } else {
                    "playing"
                };
                assert_eq!(
                    body_data(&c, "lesson").await,
                    want,
                    "{} #{}: {m}",
                    l.id,
                    i + 1
                );
            }
            let status = text_of(&c, "#lesson-status").await;
            assert!(status.starts_with("Well done!"), "{status}");
            click(&c, "#lesson-next").await;
        }
        if l.id == "midsow" {
            // Halfway: the course remembers what this browser did.
            c.goto(&format!("{base}/learn")).await.unwrap();
            wait_for(&c, "document.body.dataset.learn === 'course'", "the course").await;
            let done = js(
                &c,
                "return document.querySelectorAll('.lesson-item.done').length",
            )
            .await;
            assert_eq!(done.as_u64(), Some(3));
            click(&c, "#learn-start").await;
        }
    }
    wait_for(
        &c,
        "document.body.dataset.learn === 'course' && document.querySelector('#learn-finished')",
        "the course finished",
    )
    .await;
    let done = js(
        &c,
        "return document.querySelectorAll('.lesson-item.done').length",
    )
    .await;
    assert_eq!(done.as_u64().unwrap() as usize, lessons::all().len());
    // The course ends with a game against level 1, preselected.
    click(&c, "#learn-play").await;
    wait_for(&c, "document.querySelector('#level')", "the new-game form").await;
    assert_eq!(
        js(&c, "return document.querySelector('#level').value").await,
        "1"
    );
    // No offer once the course was started; the link stays.
    c.goto(&format!("{base}/")).await.unwrap();
    wait_for(
        &c,
        "document.querySelector('#learn-link')",
        "the course's link",
    )
    .await;
    assert_eq!(
        js(&c, "return !!document.querySelector('#course-offer')").await,
        serde_json::json!(false)
    );

    // "Why?" tells a game's move lap by lap: e from the start relays four times.
    new_game(&c, &base, "local", "south", None).await;
    click(&c, "#board button[data-hole='e']").await;
    wait_for(
        &c,
        "document.body.dataset.ply === '1' && document.body.dataset.busy !== '1' && !document.querySelector('#why').hidden",
        "the first move played",
    )
    .await;
    click(&c, "#why").await;
    wait_for(
        &c,
        "document.body.dataset.why === '1'",
        "the move explained",
    )
    .await;
    let lines = js(
        &c,
        "return [...document.querySelectorAll('#why-list li')].map(li => li.textContent)",
    )
    .await;
    let lines: Vec<String> = serde_json::from_value(lines).unwrap();
    assert_eq!(
        lines.first().map(String::as_str),
        Some("South takes the 4 seeds of e and sows them one by one, counterclockwise: f g h i.")
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("The last seed fell into "))
            .count(),
        5,
        "four relays and the stop: {lines:?}"
    );
    assert_eq!(
        lines.last().map(String::as_str),
        Some("The last seed fell into the empty hole e: the move ends.")
    );
    assert_eq!(text_of(&c, "#why-heading").await, "Move 1: South played e");
    click(&c, "#why-close").await;
    wait_for(
        &c,
        "document.querySelector('#why-panel').hidden",
        "the panel closed",
    )
    .await;
    c.close().await.unwrap();

    // A lesson on a phone, in Tagalog.
    let p = phone(&driver, "learn-phone", 390, 844).await;
    p.goto(&format!("{base}/")).await.unwrap();
    js(&p, "localStorage.setItem('anywoli.lang', 'tl'); return 1").await;
    p.goto(&format!("{base}/learn/lastseed")).await.unwrap();
    wait_for(
        &p,
        "document.body.dataset.lesson === 'playing'",
        "the lesson",
    )
    .await;
    let title = text_of(&p, "#lesson-heading").await;
    assert_eq!(title, "Ang huling buto ay nagpaapat");
    let width = js(&p, "return document.documentElement.scrollWidth").await;
    assert!(
        width.as_u64().unwrap() <= 390,
        "no sideways scrolling: {width}"
    );
    save_screenshot(&p, &shots, "screenshot-lesson-phone.png").await;
    p.close().await.unwrap();

    // A logged-in reader's progress goes to the account, and comes back in another browser.
    let a = browser(&driver, "learn-account", &[]).await;
    a.goto(&format!("{base}/")).await.unwrap();
    js(
        &a,
        "localStorage.clear(); localStorage.setItem('anywoli.speed', 'fast'); localStorage.setItem('anywoli.lang', 'en'); return 1",
    )
    .await;
    let made = js(
        &a,
        "return fetch('/api/account/signup', {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({name: 'Learner', password: 'long enough password'})}).then(r => r.status)",
    )
    .await;
    assert_eq!(made.as_u64(), Some(201));
    a.goto(&format!("{base}/learn/relay")).await.unwrap();
    wait_for(&a, "document.body.dataset.lesson === 'playing'", "relay").await;
    press(&a, "c").await;
    assert_eq!(body_data(&a, "lesson").await, "done");
    let progress = "return fetch('/api/lessons/progress').then(r => r.json()).then(v => v.done)";
    // The account's copy is sent after the lesson's answer: poll for it.
    let mut kept = serde_json::Value::Null;
    for _ in 0..100 {
        kept = js(&a, progress).await;
        if kept == serde_json::json!(["relay#1"]) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(kept, serde_json::json!(["relay#1"]), "kept for the account");
    // This browser forgets; the account remembers.
    js(&a, "localStorage.removeItem('anywoli.lessons'); return 1").await;
    a.goto(&format!("{base}/learn")).await.unwrap();
    wait_for(&a, "document.body.dataset.learn === 'course'", "the course").await;
    wait_for(
        &a,
        "document.querySelector('.lesson-item.done [data-lesson=relay]')",
        "relay shown done from the account",
    )
    .await;
    let kept = js(&a, progress).await;
    assert_eq!(kept, serde_json::json!(["relay#1"]));
    a.close().await.unwrap();
}
