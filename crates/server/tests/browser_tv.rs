// TV in a real browser (issue 38): /tv shows the best live game (board, names, clocks) as a
// spectator sees it, follows on to the next game when it ends, and fits a phone; the
// leaderboards page lists a category.

use crate::support;

use serde_json::json;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn tv_shows_a_live_game_and_follows_on() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    let server = serve_at("tv", "127.0.0.1", None).await;
    let base = format!("http://{}", server.addr);
    let (first, _) = public_game(&server, json!({"mode": "friend", "clock": "5+3"})).await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let (second, secret) = public_game(&server, json!({"mode": "friend", "clock": "5+3"})).await;

    let c = phone(&driver, "tv", 390, 844).await;
    c.goto(&format!("{base}/tv")).await.unwrap();
    js(&c, "localStorage.setItem('anywoli.lang', 'en'); return 1").await;
    c.refresh().await.unwrap();
    let showing = |id: &str| {
        format!(
            "document.body.dataset.view === 'tv' && document.body.dataset.tv === {id:?} \
             && document.body.dataset.status === 'playing' && document.querySelectorAll('.hole').length === 24"
        )
    };
    wait_for(&c, &showing(&second), "TV showing the latest game").await;
    assert_eq!(
        body_data(&c, "seat").await,
        "none",
        "a spectator holds no seat"
    );
    let fits = "return document.documentElement.scrollWidth <= window.innerWidth";
    assert_eq!(js(&c, fits).await, json!(true), "TV fits a phone's width");

    let resign = format!("/api/games/{second}/resign");
    let (s, r) = http_json(&server, "POST", &resign, Some(json!({"secret": secret}))).await;
    assert_eq!(s, 200, "{r}");
    wait_for(&c, &showing(&first), "TV following on to the other game").await;
    assert!(
        c.current_url().await.unwrap().path().ends_with("/tv"),
        "still on /tv"
    );

    c.goto(&format!("{base}/leaderboards?category=rapid"))
        .await
        .unwrap();
    wait_for(
        &c,
        "document.body.dataset.view === 'leaders' && document.body.dataset.leaders === '0' \
         && document.querySelector('#leaders-category').value === 'rapid'",
        "an empty rapid leaderboard",
    )
    .await;
    let _ = c.close().await;
    server.stop().await;
}
