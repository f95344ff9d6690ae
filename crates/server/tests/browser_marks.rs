// Issue 38's moderator in a real browser, beside `browser_moderation.rs`: (a) a player is
// reported, the moderator mutes them on /mod, their next chat line in a game is refused on
// their page, and the log on /mod shows the mute; (b) the moderator marks a booster on /mod and
// the opponent's rating on their profile page is back to what it was before the lost games.

use crate::browser_moderation::as_admin;
use crate::browser_players::{account_forms, challenge_accepted, sign_up, type_into};
use crate::support;

use anywoli_server::store::Act;
use anywoli_server::Store;
use fantoccini::Client;
use support::*;

const PW: &str = "correct horse marks";

/// Opens the dossier of `name` on /mod.
async fn dossier(m: &Client, base: &str, name: &str) {
    m.goto(&format!("{base}/mod")).await.unwrap();
    wait_for(
        m,
        "!!document.querySelector('#mod-lookup')",
        "the /mod page",
    )
    .await;
    type_into(m, "#mod-name", name).await;
    click(m, "#mod-lookup button[type=submit]").await;
    wait_for(
        m,
        &format!("!!document.querySelector('.mod-player[data-player={name:?}]')"),
        "the dossier",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn a_muted_players_line_is_refused_in_their_game_and_the_log_shows_the_mute() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let db = fresh_db("marks-mute");
    let server = serve_on("127.0.0.1", None, db.clone()).await;
    let base = format!("http://{}", server.addr);
    let a = browser(&driver, "mute-a", &["--lang=en"]).await;
    let b = browser(&driver, "mute-b", &["--lang=en"]).await;
    let m = browser(&driver, "mute-m", &["--lang=en"]).await;
    for (who, name) in [(&a, "Abula"), (&b, "Bwana"), (&m, "Modo")] {
        account_forms(who, &base).await;
        sign_up(who, name, PW).await;
    }
    as_admin(&Store::open_db(&db).unwrap(), Act::GrantModerator, "Modo");

    // Abula reports Bwana from his profile; they are in a game together.
    a.goto(&format!("{base}/@/Bwana")).await.unwrap();
    wait_for(
        &a,
        "!!document.querySelector('#report-box details')",
        "the report form",
    )
    .await;
    click(&a, "#report-box summary").await;
    type_into(&a, "#report-text", "insults in chat").await;
    click(&a, "#report-form button[type=submit]").await;
    wait_for(
        &a,
        "!!document.querySelector('#report-sent')",
        "the report sent",
    )
    .await;
    challenge_accepted(&a, &b, "").await;
    wait_for(
        &b,
        "!!document.querySelector('#chat-input')",
        "Bwana's chat",
    )
    .await;

    // The moderator opens the report's target and mutes him for an hour.
    m.goto(&format!("{base}/mod")).await.unwrap();
    wait_for(
        &m,
        "!!document.querySelector('.mod-report')",
        "the report in the queue",
    )
    .await;
    click(&m, ".mod-report .mod-open-player").await;
    wait_for(
        &m,
        "!!document.querySelector('.mod-player[data-player=\"Bwana\"]')",
        "the dossier",
    )
    .await;
    type_into(&m, "#mod-reason", "insults").await;
    click(&m, ".mod-player button[data-action=mute]").await;
    wait_for(
        &m,
        "!!document.querySelector('#mod-log li[data-action=mute]')",
        "the mute in the log",
    )
    .await;
    let line = text_of(&m, "#mod-log li[data-action=mute]").await;
    assert!(
        line.contains("Modo")
            && line.contains("muted")
            && line.contains("Bwana")
            && line.contains("insults"),
        "{line}"
    );

    // Bwana's next line is refused on his page, with the reason.
    type_into(&b, "#chat-input", "you again").await;
    click(&b, "#chat .chat-form button[type=submit]").await;
    let muted = texts_of("en")["err_muted"].as_str().unwrap().to_string();
    wait_for(
        &b,
        &format!("(document.querySelector('#chat .error') || {{}}).textContent === {muted:?}"),
        "the muted line refused",
    )
    .await;
    assert!(!text_of(&a, "#chat").await.contains("you again"));

    for c in [a, b, m] {
        let _ = c.close().await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn a_booster_mark_gives_the_opponent_their_points_back_on_their_profile() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let db = fresh_db("marks-booster");
    // Kofi lost 30 and 35 to Boost lately, and won 20 (support/marks.rs): 1480 now.
    support::marks::worked_example(
        &Store::open_db(&db).unwrap(),
        anywoli_server::dates::now_ms(),
    );
    let server = serve_on("127.0.0.1", None, db.clone()).await;
    let base = format!("http://{}", server.addr);
    let m = browser(&driver, "booster-m", &["--lang=en"]).await;
    account_forms(&m, &base).await;
    sign_up(&m, "Modo", PW).await;
    as_admin(&Store::open_db(&db).unwrap(), Act::GrantModerator, "Modo");
    let rating_shown = "(document.querySelector('.rating-cell strong') || {}).textContent";

    m.goto(&format!("{base}/@/Kofi")).await.unwrap();
    wait_for(&m, &format!("{rating_shown} === '1480'"), "Kofi at 1480").await;

    dossier(&m, &base, "Boost").await;
    type_into(&m, "#mod-reason", "loses on purpose").await;
    click(&m, ".mod-player button[data-action=mark-booster]").await;
    wait_for(
        &m,
        "!!document.querySelector('#mod-log li[data-action=mark_booster]') && !!document.querySelector('.mod-player button[data-action=unmark-booster]')",
        "the mark in the log, and the button to lift it",
    )
    .await;
    let line = text_of(&m, "#mod-log li[data-action=mark_booster]").await;
    assert!(line.contains("3 refunds, 105 points given back"), "{line}");
    assert!(text_of(&m, ".mod-player h3").await.contains("booster"));

    // Kofi's profile: 1480 + 30 + 35.
    m.goto(&format!("{base}/@/Kofi")).await.unwrap();
    wait_for(
        &m,
        &format!("{rating_shown} === '1545'"),
        "Kofi back at 1545",
    )
    .await;
    m.goto(&format!("{base}/@/Boost")).await.unwrap();
    wait_for(
        &m,
        "!!document.querySelector('#profile-marked')",
        "Boost's profile marked",
    )
    .await;
    assert_eq!(
        text_of(&m, "#profile-marked").await,
        "This account violated the Terms of Service."
    );

    let _ = m.close().await;
    server.stop().await;
}
