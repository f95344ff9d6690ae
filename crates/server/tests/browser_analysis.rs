// Issue 13 in a real browser: a finished game opened in review (the graph appears, a blunder
// clicked shows that move and the better one), a variation explored and taken back, a
// position edited with a mistake (97 seeds) and its message, a puzzle composed that the
// solver proves (kept for the community, then solved through its link), one it refuses (two
// winning first moves, in Hindi), and the community list.
//
// `ANYWOLI_SCREENSHOTS=DIR` also saves DIR/screenshot-review.png and
// DIR/screenshot-composer.png (docs/ keeps them).

use crate::support;

use std::path::PathBuf;

use fantoccini::{Client, Locator};
use serde_json::json;
use support::*;

/// South forces the capture along d C e D f F g (7 quiet plies left).
const SEVEN_PLIES: &str = "0,0,0,1,0,0,0,0,0,0,2,2/0,0,2,0,0,0,0,0,0,1,0,0 s 44 44 - - 93 93";
/// Two first moves win (e and j).
const TWO_WINNERS: &str = "0,0,0,0,1,0,0,0,3,1,0,0/0,0,1,1,0,0,0,0,0,0,0,1 s 44 44 - - 89 89";

/// 24 plies of a match game (level 3 against greedy), North resigning: North's second move E
/// throws away 33 seeds (G was best), which the review marks a blunder.
const RECORD: &str = "[South \"level3\"]\n[North \"greedy\"]\n[Result \"1-0\"]\n[Termination \"resignation\"]\n\nd E d a C i h i c K a A g F d B b G g d I h H g 1-0\n";

fn shots() -> Option<PathBuf> {
    std::env::var_os("ANYWOLI_SCREENSHOTS").map(PathBuf::from)
}

fn editor_url(base: &str, position: &str) -> String {
    format!(
        "{base}/editor?position={}&rules=anywoli",
        position.replace(' ', "%20").replace('/', "%2F")
    )
}

/// Opens `position` in the board editor and asks the composer, until it says `state`.
async fn compose_in_editor(c: &Client, base: &str, position: &str, state: &str) {
    c.goto(&editor_url(base, position)).await.unwrap();
    wait_for(
        c,
        "document.body.dataset.editorValid === '1'",
        "the position",
    )
    .await;
    click(c, "#edit-puzzle").await;
    wait_for(
        c,
        &format!("document.body.dataset.composer === '{state}'"),
        &format!("the composer's answer ({state})"),
    )
    .await;
}

async fn review_a_blunder_and_a_variation(c: &Client, base: &str, id: &str) {
    c.goto(&format!("{base}/analysis/{id}")).await.unwrap();
    wait_for(
        c,
        "document.body.dataset.analysisReady === '1' && document.body.dataset.review === 'none'",
        "the analysis board with its review panel",
    )
    .await;
    assert_eq!(body_data(c, "analysisPly").await, "0");
    click(c, "#review-start").await;
    wait_for(
        c,
        "document.body.dataset.review === 'done' && document.querySelector('#eval-graph')",
        "the review's graph",
    )
    .await;
    let points = js(
        c,
        "return document.querySelectorAll('#eval-graph .graph-point').length",
    )
    .await;
    assert_eq!(
        points,
        json!(25),
        "a point for the start and each of 24 plies"
    );
    let accuracy = text_of(c, "#accuracy-north").await;
    assert!(accuracy.contains('%'), "North's accuracy: {accuracy}");

    // Judged by expected score, North's E at ply 2 (26 seeds) is a blunder: clicking its
    // point shows that move. Whether South's d at ply 1 is one too depends on what the
    // network makes of the start (round 7's: 7 seeds, 19 points; round 8's: not a
    // blunder), so the first blunder is at ply 1 or 2.
    let ply = js(
        c,
        "return document.querySelector('#eval-graph .graph-point.blunder').dataset.ply",
    )
    .await;
    assert!(
        ply == json!("1") || ply == json!("2"),
        "the first blunder: {ply}"
    );
    c.find(Locator::Css(
        "#eval-graph .graph-point.blunder[data-ply='2']",
    ))
    .await
    .unwrap()
    .click()
    .await
    .unwrap();
    wait_for(
        c,
        "document.body.dataset.analysisPly === '2' && !document.querySelector('#analysis-better').hidden",
        "the blunder shown, with the better move",
    )
    .await;
    let played = text_of(c, "#analysis-played").await;
    assert!(played.contains('E'), "the move played: {played}");
    // The review's own depth-10 choice (H since the selective search of session 6; G
    // before): the page must name a move of North's other than the one played.
    let better = text_of(c, "#analysis-better").await;
    let named = better
        .split("Better was ")
        .nth(1)
        .and_then(|r| r.chars().next())
        .unwrap_or_else(|| panic!("no better move named: {better}"));
    assert!(
        ('A'..='L').contains(&named) && named != 'E',
        "the better move: {better}"
    );
    assert!(
        c.current_url().await.unwrap().as_str().ends_with("?ply=2"),
        "the address follows the move shown"
    );

    // Playing the better move branches from the game's line; taking it back returns to it.
    click(c, "#play-better").await;
    wait_for(
        c,
        "document.body.dataset.analysisMainline === '0' && document.body.dataset.analysisPly === '2' && document.body.dataset.analysisReady === '1'",
        "a variation with the better move",
    )
    .await;
    let variations = js(c, "return document.querySelectorAll('#move-tree .tree-variation, #move-tree [data-node]').length").await;
    assert!(
        variations.as_u64().unwrap() > 25,
        "the tree holds the game and the variation: {variations}"
    );
    let line = text_of(c, "#analysis-line").await;
    assert!(!line.is_empty());
    // A move played on the board goes on along the variation.
    let hole = js(
        c,
        "return document.querySelector('#analysis-board .hole.playable').dataset.hole",
    )
    .await;
    let hole = hole.as_str().unwrap().to_string();
    click(
        c,
        &format!("#analysis-board .hole.playable[data-hole='{hole}']"),
    )
    .await;
    wait_for(
        c,
        "document.body.dataset.analysisPly === '3' && document.body.dataset.analysisMainline === '0'",
        "a second move of the variation",
    )
    .await;
    click(c, "#tree-prev").await;
    wait_for(
        c,
        "document.body.dataset.analysisPly === '2'",
        "a step back",
    )
    .await;
    click(c, "#tree-delete").await;
    wait_for(
        c,
        "document.body.dataset.analysisMainline === '1' && document.body.dataset.analysisPly === '1'",
        "back on the game's line after taking the variation back",
    )
    .await;
    click(c, "#tree-next").await;
    wait_for(
        c,
        "document.body.dataset.analysisPly === '2' && document.body.dataset.analysisMainline === '1'",
        "the game's own move 2 again",
    )
    .await;
}

async fn edit_and_compose(c: &Client, base: &str, shots: &Option<PathBuf>) -> String {
    // 97 seeds: the editor says what is wrong and offers no puzzle.
    c.goto(&format!("{base}/editor")).await.unwrap();
    wait_for(c, "document.body.dataset.editorValid === '1'", "the editor").await;
    let hole = c.find(Locator::Css("#edit-hole-0")).await.unwrap();
    hole.clear().await.unwrap();
    hole.send_keys("5").await.unwrap();
    wait_for(
        c,
        "document.body.dataset.editorValid === '0' && document.querySelector('#edit-validity').textContent.includes('97')",
        "the message for 97 seeds",
    )
    .await;
    let msg = text_of(c, "#edit-validity").await;
    assert!(msg.contains("96"), "{msg}");
    assert_eq!(
        js(c, "return document.querySelector('#edit-puzzle').disabled").await,
        json!(true)
    );

    // A puzzle the solver proves, kept for the community.
    compose_in_editor(c, base, SEVEN_PLIES, "proven").await;
    let status = text_of(c, "#cp-status").await;
    assert!(
        status.contains(" d "),
        "the only winning first move: {status}"
    );
    let line = js(c, "return document.querySelector('#cp-line').textContent").await;
    assert_eq!(line, json!("d C e D f F g"));
    click(c, "#cp-save").await;
    wait_for(
        c,
        "document.body.dataset.composer === 'saved'",
        "the puzzle kept",
    )
    .await;
    if shots.is_some() {
        viewport(c, 1280, 1560).await;
        js(c, "window.scrollTo(0, 0); return 1").await;
        save_screenshot(c, shots, "screenshot-composer.png").await;
        viewport(c, 1280, 800).await;
    }
    let link = js(c, "return document.querySelector('#cp-link').textContent").await;
    let link = link.as_str().unwrap().to_string();
    assert!(
        link.starts_with(&format!("{base}/puzzles/community/")),
        "{link}"
    );

    // Composing it again says it is kept already.
    compose_in_editor(c, base, SEVEN_PLIES, "exists").await;
    assert_eq!(text_of(c, "#cp-link").await, link);

    // Two winning first moves: refused, in the reader's language.
    js(c, "localStorage.setItem('anywoli.lang', 'hi'); return 1").await;
    compose_in_editor(c, base, TWO_WINNERS, "refused").await;
    let why = text_of(c, "#cp-status").await;
    assert!(why.contains("(e, j)") && why.contains("पहेली"), "{why}");
    js(c, "localStorage.setItem('anywoli.lang', 'en'); return 1").await;
    link
}

async fn solve_a_community_puzzle(c: &Client, base: &str, link: &str) {
    c.goto(link).await.unwrap();
    wait_for(
        c,
        "document.body.dataset.puzzle === 'playing' && document.body.dataset.busy === '0'",
        "the community puzzle",
    )
    .await;
    let heading = text_of(c, "#puzzle-heading").await;
    assert_eq!(heading, "Community puzzle");
    for (i, mv) in ["d", "e", "f", "g"].iter().enumerate() {
        click(c, &format!("#board .hole.playable[data-hole='{mv}']")).await;
        let want = if i == 3 { "solved" } else { "playing" };
        wait_for(
            c,
            &format!(
                "document.body.dataset.puzzle === '{want}' && document.body.dataset.busy === '0'"
            ),
            &format!("the answer to {mv}"),
        )
        .await;
    }
    let status = text_of(c, "#puzzle-status").await;
    assert!(status.starts_with("Solved!"), "{status}");
    // The browser's first attempt rated it, from a new solver's 1500.
    let rating = text_of(c, "#puzzle-rating").await;
    assert!(rating.contains("1500 → "), "{rating}");
    // The next puzzle is chosen near the new rating, and the address names it.
    click(c, "#puzzle-next").await;
    wait_for(
        c,
        "document.body.dataset.puzzle === 'playing' && location.pathname !== '/puzzles/next'",
        "the next puzzle",
    )
    .await;

    c.goto(&format!("{base}/puzzles/community")).await.unwrap();
    wait_for(
        c,
        "document.body.dataset.community === 'ready'",
        "the community list",
    )
    .await;
    assert_eq!(body_data(c, "communityCount").await, "1");
    let href = js(
        c,
        "return document.querySelector('a.community-puzzle').href",
    )
    .await;
    assert_eq!(href.as_str().unwrap(), link);
    // Filtered by a theme it does not have: none.
    c.find(Locator::Css("#community-theme"))
        .await
        .unwrap()
        .select_by_value("pass")
        .await
        .unwrap();
    wait_for(
        c,
        "document.body.dataset.community === 'ready' && document.querySelector('#community-none')",
        "the empty filtered list",
    )
    .await;
    assert!(c
        .current_url()
        .await
        .unwrap()
        .as_str()
        .ends_with("?theme=pass"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn review_variations_editor_composer_and_community_puzzles() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let server = serve_at("analysis", "127.0.0.1", None).await;
    let base = format!("http://{}", server.addr);
    let (status, v) = http_json(
        &server,
        "POST",
        "/api/import",
        Some(json!({ "record": RECORD })),
    )
    .await;
    assert_eq!(status, 201, "{v}");
    let id = v["game"]["id"].as_str().unwrap().to_string();
    let shots = shots();

    let c = browser(&driver, "analysis", &[]).await;
    c.goto(&format!("{base}/")).await.unwrap();
    js(&c, "localStorage.setItem('anywoli.speed', 'off'); localStorage.setItem('anywoli.lang', 'en'); return 1").await;
    review_a_blunder_and_a_variation(&c, &base, &id).await;
    if shots.is_some() {
        // The review at the blunder, on the game's line.
        c.goto(&format!("{base}/analysis/{id}?ply=2"))
            .await
            .unwrap();
        wait_for(&c, "document.body.dataset.review === 'done' && document.body.dataset.analysisReady === '1'", "the review").await;
        viewport(&c, 1280, 1180).await;
        save_screenshot(&c, &shots, "screenshot-review.png").await;
        viewport(&c, 1280, 800).await;
    }
    let link = edit_and_compose(&c, &base, &shots).await;
    solve_a_community_puzzle(&c, &base, &link).await;
    c.close().await.unwrap();
}
