// Chat and blocks in real browsers (issue 38): two accounts chat in a game by the page's chat
// panel while a spectator's line stays in the spectators' room; then one blocks the other on
// its profile page, and the blocked account's challenge and chat line are refused, each with
// its reason on the page.

use crate::browser_players::{account_forms, challenge_accepted, sign_up, to_lobby, type_into};
use crate::support;

use fantoccini::Client;
use serde_json::json;
use support::*;

/// Says `text` in the chat panel of `c`'s game page.
async fn say_in_chat(c: &Client, text: &str) {
    type_into(c, "#chat-input", text).await;
    click(c, "#chat .chat-form button[type=submit]").await;
}

/// Waits until `c`'s chat panel shows `text` in `room`.
async fn sees(c: &Client, room: &str, text: &str, what: &str) {
    let cond = format!(
        "[...document.querySelectorAll('#chat .chat-room[data-room={room}] li')].some((li) => li.textContent.includes({text:?}))"
    );
    wait_for(c, &cond, what).await;
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver"]
async fn chat_and_blocks_in_real_browsers() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let server = serve_on("127.0.0.1", None, fresh_db("chat")).await;
    let base = format!("http://{}", server.addr);
    let a = browser(&driver, "chat-a", &["--lang=en"]).await;
    let b = browser(&driver, "chat-b", &["--lang=en"]).await;
    let c = browser(&driver, "chat-c", &["--lang=en"]).await;
    for (who, name) in [(&a, "Abula"), (&b, "Bwana"), (&c, "Cabo")] {
        account_forms(who, &base).await;
        sign_up(who, name, "correct horse chat").await;
    }

    // Two players chat; a spectator's line stays in the spectators' room.
    let (id, _, _) = challenge_accepted(&a, &b, "").await;
    c.goto(&format!("{base}/g/{id}")).await.unwrap();
    wait_for(
        &c,
        "document.querySelector('#chat-input')",
        "the spectator's chat",
    )
    .await;
    say_in_chat(&a, "<b>good luck</b>").await;
    for (who, what) in [(&a, "A"), (&b, "B"), (&c, "the spectator")] {
        sees(who, "players", "<b>good luck</b>", what).await;
    }
    assert_eq!(
        js(&b, "return document.querySelectorAll('#chat b').length").await,
        0,
        "a line is text, never markup"
    );
    say_in_chat(&c, "nice opening").await;
    sees(&c, "spectators", "nice opening", "the spectator's own line").await;
    say_in_chat(&b, "thanks").await;
    sees(&a, "players", "thanks", "B's line at A").await;
    for who in [&a, &b] {
        let shown = text_of(who, "#chat").await;
        assert!(
            !shown.contains("nice opening"),
            "players do not read spectators: {shown}"
        );
        assert!(text_of(who, "#chat .note")
            .await
            .contains("when the game ends"));
    }

    // On a phone's width the panel fits, its field usable.
    viewport(&c, 390, 800).await;
    let fits = js(
        &c,
        "const i = document.querySelector('#chat-input').getBoundingClientRect(); \
         return document.documentElement.scrollWidth <= innerWidth && i.width > 150 && i.right <= innerWidth",
    )
    .await;
    assert_eq!(fits, serde_json::json!(true), "the chat on a phone");

    // Chat off: no lines shown, and the panel says so.
    click(&c, "#chat-toggle").await;
    wait_for(&c, "document.querySelector('#chat-off')", "chat off").await;
    assert!(!text_of(&c, "#chat").await.contains("good luck"));
    click(&c, "#chat-toggle").await;
    sees(&c, "players", "thanks", "chat on again").await;

    // Once the game is over, the players read the spectators' room too.
    click(&a, "#abort").await;
    wait_for(
        &a,
        "document.body.dataset.status === 'aborted'",
        "the game called off",
    )
    .await;
    sees(
        &a,
        "spectators",
        "nice opening",
        "the spectators' line at A after the end",
    )
    .await;

    // Bwana blocks Abula on Abula's profile page, which this time learns who is logged in only
    // after it has drawn the profile (as on a slow network): the buttons appear then.
    let late = cdp(
        &driver,
        &b,
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": "const f = window.fetch; window.fetch = (u, o) => String(u).endsWith('/api/account') ? new Promise((r) => setTimeout(r, 2000)).then(() => f(u, o)) : f(u, o);"}),
    )
    .await;
    b.goto(&format!("{base}/@/Abula")).await.unwrap();
    wait_for(
        &b,
        "document.querySelector('.profile-head h1') && !document.querySelector('#block-area')",
        "the profile, drawn before the session is known",
    )
    .await;
    wait_for(
        &b,
        "document.querySelector('#block-toggle')",
        "the block button",
    )
    .await;
    cdp(
        &driver,
        &b,
        "Page.removeScriptToEvaluateOnNewDocument",
        json!({"identifier": late["identifier"]}),
    )
    .await;
    click(&b, "#block-toggle").await;
    wait_for(&b, "document.querySelector('#blocked-note')", "blocked").await;

    // Abula's chat line and challenge are refused, with the reason.
    say_in_chat(&a, "hello?").await;
    wait_for(
        &a,
        "(document.querySelector('#chat .error') || {}).textContent === 'One of you has blocked the other.'",
        "the chat refusal",
    )
    .await;
    to_lobby(&a).await;
    type_into(&a, "#ch-to", "Bwana").await;
    click(&a, "#challenge-form button[type=submit]").await;
    wait_for(
        &a,
        "document.querySelector('#challenge-error').textContent === 'One of you has blocked the other.'",
        "the challenge refusal",
    )
    .await;

    for cl in [a, b, c] {
        let _ = cl.close().await;
    }
    server.stop().await;
}
