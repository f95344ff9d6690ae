// Players in real browsers (docs/api-players.md): two people sign up and log in through the
// Account forms, meet in the lobby (a rated 1+0 seek made in one browser and accepted in the
// other), play until a flag falls, and see their ratings change by Glicko-2's amounts; then a
// challenge declined, a draw offered and agreed, a take-back asked for and refused, a game
// aborted, and a win claimed from a player who left, all by clicks; last, the profile page with
// its games and rating graph (screenshots on a desktop and a phone into a scratch folder), and
// the profile and lobby in dark colours.
//
// The server's time is moved forward for the flag and the claim delay
// (`anywoli_server::dates::shift_for_tests`) instead of waiting a minute and 40 s: it shifts for
// the whole test binary, so everything is one test, run alone.

use crate::support;

use std::f64::consts::PI;
use std::path::PathBuf;

use anywoli_server::dates::shift_for_tests;
use anywoli_server::Server;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use support::*;

const PASSWORD_A: &str = "correct horse A";
const PASSWORD_B: &str = "battery staple B";

/// Types `text` into the field `css`, as a person would.
pub(crate) async fn type_into(c: &Client, css: &str, text: &str) {
    let field = c
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"));
    field.clear().await.unwrap();
    field.send_keys(text).await.unwrap();
}

/// The name the header shows for the logged-in reader, or "".
async fn header_name(c: &Client) -> String {
    text_of(c, "#account-area .account-name span").await
}

/// Opens the Account view (fast animations, English) and waits for its forms.
pub(crate) async fn account_forms(c: &Client, base: &str) {
    c.goto(&format!("{base}/account")).await.unwrap();
    js(
        c,
        "localStorage.setItem('anywoli.speed', 'fast'); localStorage.setItem('anywoli.lang', 'en'); return 1",
    )
    .await;
    c.refresh().await.unwrap();
    wait_for(
        c,
        "document.body.dataset.view === 'account' && document.querySelector('#signup-form')",
        "the account forms",
    )
    .await;
}

pub(crate) async fn sign_up(c: &Client, name: &str, password: &str) {
    type_into(c, "#signup-user", name).await;
    type_into(c, "#signup-password", password).await;
    type_into(c, "#signup-repeat", password).await;
    click(c, "#signup-form button[type=submit]").await;
    wait_for(
        c,
        &format!("(document.querySelector('#account-area .account-name span') || {{}}).textContent === {name:?}"),
        "the header showing the new account",
    )
    .await;
}

async fn log_in(c: &Client, name: &str, password: &str) {
    wait_for(c, "document.querySelector('#login-form')", "the login form").await;
    type_into(c, "#login-user", name).await;
    type_into(c, "#login-password", password).await;
    click(c, "#login-form button[type=submit]").await;
    wait_for(
        c,
        &format!("((document.querySelector('#account-area .account-name span') || {{}}).textContent || '').toLowerCase() === {:?}", name.to_lowercase()),
        "the header showing the account logged in",
    )
    .await;
}

/// Goes to the lobby by the header's link, and waits for its connection.
pub(crate) async fn to_lobby(c: &Client) {
    click(c, "header nav a[href='/lobby']").await;
    wait_for(
        c,
        "document.body.dataset.view === 'lobby' && document.body.dataset.lobby === 'open' && document.querySelector('#seek-form')",
        "the lobby",
    )
    .await;
}

/// The id of the game shown, from the address.
async fn game_id(c: &Client) -> String {
    c.current_url()
        .await
        .unwrap()
        .path()
        .trim_start_matches("/g/")
        .to_string()
}

/// Waits until both browsers show the same game in play, each in a seat of its own; returns
/// (the game's id, A's side, B's side).
pub(crate) async fn both_in_game(a: &Client, b: &Client) -> (String, String, String) {
    let in_game = "document.body.dataset.view === 'game' && document.body.dataset.status === 'playing' && ['south', 'north'].includes(document.body.dataset.seat)";
    wait_for(a, in_game, "A's game page").await;
    wait_for(b, in_game, "B's game page").await;
    let id = game_id(a).await;
    assert_eq!(id, game_id(b).await, "both browsers are in the one game");
    let (sa, sb) = (body_data(a, "seat").await, body_data(b, "seat").await);
    assert_ne!(sa, sb, "A and B hold different seats");
    (id, sa, sb)
}

/// The player to move clicks a hole; both browsers then show the move.
async fn one_move(a: &Client, b: &Client) {
    let mover = whose_turn(a, b).await;
    let before: usize = body_data(mover, "ply").await.parse().unwrap();
    click(mover, ".hole.playable").await;
    let shown = format!(
        "Number(document.body.dataset.ply) > {before} && document.body.dataset.busy === '0'"
    );
    wait_for(a, &shown, "A seeing the move").await;
    wait_for(b, &shown, "B seeing the move").await;
}

/// Moves until each side has moved at least once (when the clocks start).
async fn both_sides_move(a: &Client, b: &Client) {
    let both = "return document.querySelectorAll('#movelist button.south').length > 0 && document.querySelectorAll('#movelist button.north').length > 0";
    while js(a, both).await != json!(true) {
        one_move(a, b).await;
    }
}

async fn game(server: &Server, id: &str) -> Value {
    let (s, g) = http_json(server, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(s, 200, "{g}");
    g
}

/// A new player's rating (1500, deviation 350, volatility 0.06) after one game against
/// another new player with `score` (1 a win, 0 a loss), by Steps 1–8 of Glickman's "Example of
/// the Glicko-2 system" with τ = 0.75: (rating, deviation, volatility).
fn glicko2_new_players(score: f64) -> (f64, f64, f64) {
    const SCALE: f64 = 173.7178;
    let tau: f64 = 0.75;
    // Step 2: to the Glicko-2 scale.
    let (mu, phi, sigma) = (0.0_f64, 350.0 / SCALE, 0.06_f64);
    let (mu_j, phi_j) = (0.0_f64, 350.0 / SCALE);
    // Step 3: the estimated variance from the one game.
    let g = 1.0 / (1.0 + 3.0 * phi_j * phi_j / (PI * PI)).sqrt();
    let e = 1.0 / (1.0 + (-g * (mu - mu_j)).exp());
    let v = 1.0 / (g * g * e * (1.0 - e));
    // Step 4: the estimated improvement.
    let delta = v * g * (score - e);
    // Step 5: the new volatility (Illinois algorithm).
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex).powi(2))
            - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let (mut fa, mut fb) = (f(big_a), f(big_b));
    while (big_b - big_a).abs() > 1e-6 {
        let c = big_a + (big_a - big_b) * fa / (fb - fa);
        let fc = f(c);
        if fc * fb <= 0.0 {
            big_a = big_b;
            fa = fb;
        } else {
            fa /= 2.0;
        }
        big_b = c;
        fb = fc;
    }
    let sigma2 = (big_a / 2.0).exp();
    // Step 6: the pre-period deviation; Step 7: the new deviation and rating.
    let phi_star = (phi * phi + sigma2 * sigma2).sqrt();
    let phi2 = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu2 = mu + phi2 * phi2 * g * (score - e);
    // Step 8: back to the Glicko scale.
    (1500.0 + SCALE * mu2, SCALE * phi2, sigma2)
}

/// How the game page shows a rating's change: a sign (a real minus) and whole points.
fn diff_text(diff: i64) -> String {
    let sign = match diff.signum() {
        1 => "+",
        -1 => "\u{2212}",
        _ => "\u{b1}",
    };
    format!("{sign}{}", diff.abs())
}

/// 1. Sign up in A; sign up, log out and log in again in B, all through the forms.
async fn accounts(a: &Client, b: &Client, base: &str) {
    account_forms(a, base).await;
    assert_eq!(header_name(a).await, "", "nobody is logged in yet");
    sign_up(a, "Abula", PASSWORD_A).await;
    assert!(
        text_of(a, "#main").await.contains("Abula"),
        "the account view greets the new player"
    );

    account_forms(b, base).await;
    sign_up(b, "Bwana", PASSWORD_B).await;
    click(b, "#logout").await;
    wait_for(
        b,
        "document.querySelector('#login-form') && !document.querySelector('#account-area .account-name')",
        "logged out",
    )
    .await;
    assert_eq!(
        text_of(b, "#account-area .login-link").await,
        "Log in",
        "the header offers to log in"
    );
    // A wrong password is refused and says so.
    type_into(b, "#login-user", "bwana").await;
    type_into(b, "#login-password", "not the password").await;
    click(b, "#login-form button[type=submit]").await;
    wait_for(
        b,
        "document.querySelector('#login-error').textContent !== ''",
        "the refusal",
    )
    .await;
    assert_eq!(header_name(b).await, "");
    // Names ignore case at login; the header shows the name as it was signed up.
    log_in(b, "bwana", PASSWORD_B).await;
    assert_eq!(header_name(b).await, "Bwana");
    // The session lasts across a reload.
    b.refresh().await.unwrap();
    wait_for(
        b,
        "(document.querySelector('#account-area .account-name span') || {}).textContent === 'Bwana'",
        "the session after a reload",
    )
    .await;
}

/// 2–4. A rated 1+0 seek made in A's lobby, accepted in B's, played to a flag; the ratings
/// change by Glicko-2's amounts. Returns the game's id.
async fn rated_game_to_a_flag(
    a: &Client,
    b: &Client,
    server: &Server,
    shots: &Option<PathBuf>,
) -> String {
    to_lobby(a).await;
    to_lobby(b).await;
    a.find(Locator::Css("#seek-clock"))
        .await
        .unwrap()
        .select_by_value("1+0")
        .await
        .unwrap();
    click(a, "#seek-rated").await;
    click(a, "#seek-submit").await;
    wait_for(
        a,
        "document.querySelector('#seeks tr.mine button[data-action=cancel]')",
        "A's own seek listed, with its cancel button",
    )
    .await;
    // B sees it arrive, with A's name and rating, and accepts it.
    wait_for(
        b,
        "document.querySelector('#seeks button[data-action=accept]')",
        "A's seek in B's lobby",
    )
    .await;
    let row = text_of(b, "#seeks tbody tr").await;
    assert!(row.contains("Abula") && row.contains("1500?"), "{row}");
    assert!(
        row.contains("1 min + 0 s") && row.contains("Rated"),
        "{row}"
    );
    // The lobby's filter (issue 36): a speed or a rating range that leaves A's seek out hides
    // it and says how many are hidden; "Show all" brings it back. Nobody's own seek is hidden.
    for (field, value) in [("#filter-speed", "blitz"), ("#filter-min", "1600")] {
        for c in [a, b] {
            js(
                c,
                &format!(
                    "document.querySelector('#seek-filter').open = true;
                     const f = document.querySelector('{field}'); f.value = '{value}';
                     f.dispatchEvent(new Event('change', {{bubbles: true}}));"
                ),
            )
            .await;
        }
        wait_for(
            b,
            "!document.querySelector('#seeks tbody tr')",
            "the seek filtered out",
        )
        .await;
        assert!(text_of(b, "#filter-hidden")
            .await
            .contains("1 open game hidden"));
        assert_eq!(
            js(
                a,
                "return document.querySelectorAll('#seeks tr.mine').length"
            )
            .await,
            json!(1),
            "A still sees A's own seek"
        );
        assert_eq!(
            js(a, "return document.querySelector('#filter-hidden').hidden").await,
            json!(true),
            "nothing hidden from A"
        );
        click(b, "#filter-clear").await;
        js(
            a,
            &format!(
                "const f = document.querySelector('{field}'); f.value = '';
                 f.dispatchEvent(new Event('change', {{bubbles: true}}));"
            ),
        )
        .await;
        wait_for(
            b,
            "document.querySelector('#seeks button[data-action=accept]')",
            "all shown again",
        )
        .await;
    }
    click(b, "#seeks button[data-action=accept]").await;
    let (id, sa, sb) = both_in_game(a, b).await;

    // The names beside the board, each reader's own below; the clocks are shown.
    assert_eq!(text_of(a, "#player-bottom .player-name").await, "Abula");
    assert_eq!(text_of(a, "#player-top .player-name").await, "Bwana");
    assert_eq!(text_of(b, "#player-bottom .player-name").await, "Bwana");
    assert_eq!(text_of(b, "#player-top .player-name").await, "Abula");
    for c in [a, b] {
        assert_eq!(
            js(c, "return document.querySelector('#clock-bottom').hidden").await,
            json!(false)
        );
    }
    let g = game(server, &id).await;
    assert_eq!(g["rated"], true);
    assert_eq!(g["clock"]["control"], "1+0");
    assert_eq!(g["seats"][&sa]["player"], "Abula");
    assert_eq!(g["seats"][&sb]["player"], "Bwana");
    assert_eq!(
        g["clock"]["running"],
        Value::Null,
        "no clock runs before both moved"
    );

    // Each side moves once: now the clock of the side to move runs...
    both_sides_move(a, b).await;
    let g = game(server, &id).await;
    let to_move = g["to_move"].as_str().unwrap().to_string();
    assert_eq!(g["clock"]["running"], json!(to_move));
    let (loser, winner) = if to_move == sa { (a, b) } else { (b, a) };
    let loser_side = to_move.clone();
    wait_for(
        loser,
        "document.body.dataset.turn === 'mine'",
        "the loser's turn",
    )
    .await;
    // ... and it runs out: the server's time goes a minute forward, and looking at the game
    // calls the flag, which both pages hear.
    shift_for_tests(61_000);
    let g = game(server, &id).await;
    assert_eq!(g["status"], "over", "{g}");
    assert_eq!(g["termination"], "time");
    let expected_result = if loser_side == "south" { "0-1" } else { "1-0" };
    assert_eq!(g["result"], expected_result);
    for (c, mine) in [(winner, "You win"), (loser, "You lose")] {
        wait_for(
            c,
            "document.body.dataset.status === 'over'",
            "the game over on the page",
        )
        .await;
        let status = text_of(c, "#status").await;
        assert!(
            status.starts_with(mine) && status.contains("ran out of time"),
            "{status}"
        );
    }
    let status = text_of(winner, "#status").await;
    let flagged = if loser_side == "south" {
        "South"
    } else {
        "North"
    };
    assert!(
        status.contains(&format!("{flagged} ran out of time")),
        "{status}"
    );

    // 4. Ratings: each changed by Glicko-2's amount for two new players, one game.
    let (win_r, win_rd, win_vol) = glicko2_new_players(1.0);
    let (lose_r, lose_rd, lose_vol) = glicko2_new_players(0.0);
    let (winner_name, loser_name) = if std::ptr::eq(winner, a) {
        ("Abula", "Bwana")
    } else {
        ("Bwana", "Abula")
    };
    for (name, r, rd, vol, games_won) in [
        (winner_name, win_r, win_rd, win_vol, 1),
        (loser_name, lose_r, lose_rd, lose_vol, 0),
    ] {
        let (s, p) = http_json(server, "GET", &format!("/api/players/{name}"), None).await;
        assert_eq!(s, 200, "{p}");
        let bullet = p["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["category"] == "bullet" && x["rules"] == "anywoli")
            .unwrap_or_else(|| panic!("a bullet rating: {p}"))
            .clone();
        let got = |k: &str| bullet[k].as_f64().unwrap();
        assert!((got("rating") - r).abs() < 0.01, "{name}: {bullet} vs {r}");
        assert!(
            (got("deviation") - rd).abs() < 0.01,
            "{name}: {bullet} vs {rd}"
        );
        assert!(
            (got("volatility") - vol).abs() < 1e-6,
            "{name}: {bullet} vs {vol}"
        );
        assert_eq!(bullet["games"], 1);
        assert_eq!(
            bullet["provisional"], true,
            "a deviation of 290 is provisional"
        );
        assert_eq!(p["counts"]["games"], 1, "{p}");
        assert_eq!(p["counts"]["wins"], games_won, "{p}");
        assert_eq!(p["history"].as_array().unwrap().len(), 1, "{p}");
        assert_eq!(p["history"][0]["game"], json!(id));
    }
    let g = game(server, &id).await;
    let win_diff = win_r.round() as i64 - 1500;
    let lose_diff = lose_r.round() as i64 - 1500;
    assert_eq!((win_diff, lose_diff), (162, -162));
    let winner_side = if loser_side == "south" {
        "north"
    } else {
        "south"
    };
    assert_eq!(g["rating_change"][winner_side]["diff"], win_diff);
    assert_eq!(g["rating_change"][&loser_side]["diff"], lose_diff);
    // Both pages show both changes, each reader's own below.
    for (c, own, theirs) in [(winner, win_diff, lose_diff), (loser, lose_diff, win_diff)] {
        wait_for(
            c,
            "document.querySelector('#player-bottom .rating-diff') && document.querySelector('#player-top .rating-diff')",
            "the rating changes",
        )
        .await;
        assert_eq!(
            text_of(c, "#player-bottom .rating-diff").await,
            diff_text(own)
        );
        assert_eq!(
            text_of(c, "#player-top .rating-diff").await,
            diff_text(theirs)
        );
        let now = js(
            c,
            "return document.querySelector('#player-bottom .rating-diff').title",
        )
        .await;
        let after = if own > 0 { win_r } else { lose_r };
        assert_eq!(now, json!(format!("Rating now: {}?", after.round())));
    }
    save_screenshot(winner, shots, "rated-game-over.png").await;
    id
}

/// 5. A challenges B by name from the lobby; B declines it from the lobby; A hears so.
async fn challenge_declined(a: &Client, b: &Client) {
    to_lobby(a).await;
    to_lobby(b).await;
    wait_for(
        a,
        "document.querySelector('#challenge-form')",
        "the challenge form",
    )
    .await;
    type_into(a, "#ch-to", "Bwana").await;
    click(a, "#challenge-form button[type=submit]").await;
    wait_for(
        a,
        "document.querySelector('#challenges li.outgoing')",
        "A's challenge waiting",
    )
    .await;
    wait_for(
        b,
        "document.querySelector('#challenges li.incoming button[data-decline]')",
        "the challenge in B's lobby",
    )
    .await;
    let text = text_of(b, "#challenges li.incoming").await;
    assert!(text.contains("Abula"), "{text}");
    click(b, "#challenges li.incoming button[data-decline]").await;
    wait_for(
        b,
        "!document.querySelector('#challenges li.incoming')",
        "the challenge gone from B's lobby",
    )
    .await;
    wait_for(
        a,
        "!document.querySelector('#challenges li.outgoing') && [...document.querySelectorAll('#live p')].some((p) => p.textContent === 'Bwana declined your challenge.')",
        "A told the challenge was declined",
    )
    .await;
}

/// A challenges B (casual, `clock` or untimed when ""); B accepts in the lobby; both go to
/// the game. Returns (id, A's side, B's side).
pub(crate) async fn challenge_accepted(
    a: &Client,
    b: &Client,
    clock: &str,
) -> (String, String, String) {
    to_lobby(a).await;
    to_lobby(b).await;
    type_into(a, "#ch-to", "Bwana").await;
    a.find(Locator::Css("#ch-clock"))
        .await
        .unwrap()
        .select_by_value(clock)
        .await
        .unwrap();
    click(a, "input[name=chside][value=south]").await;
    click(a, "#challenge-form button[type=submit]").await;
    wait_for(
        b,
        "document.querySelector('#challenges li.incoming button[data-accept]')",
        "the challenge in B's lobby",
    )
    .await;
    click(b, "#challenges li.incoming button[data-accept]").await;
    let seats = both_in_game(a, b).await;
    assert_eq!(seats.1, "south", "A chose South");
    seats
}

/// 6. A take-back asked for and refused, then a draw offered and agreed.
async fn takeback_refused_and_draw_agreed(
    a: &Client,
    b: &Client,
    server: &Server,
    shots: &Option<PathBuf>,
) {
    let (id, _, _) = challenge_accepted(a, b, "").await;
    let g = game(server, &id).await;
    assert_eq!(g["rated"], false);
    // A (South) moves first; then A asks for the move back.
    one_move(a, b).await;
    wait_for(
        a,
        "!document.querySelector('#offer-takeback').hidden",
        "the take-back button",
    )
    .await;
    let ply = body_data(a, "ply").await;
    click(a, "#offer-takeback").await;
    wait_for(
        b,
        "!document.querySelector('#offer-bar').hidden && !document.querySelector('#offer-accept').hidden",
        "the take-back request on B's page",
    )
    .await;
    let text = text_of(b, "#offer-text").await;
    assert!(text.to_lowercase().contains("take"), "{text}");
    wait_for(
        a,
        "!document.querySelector('#offer-bar').hidden && document.querySelector('#offer-accept').hidden",
        "A's request waiting",
    )
    .await;
    click(b, "#offer-decline").await;
    wait_for(
        a,
        "document.querySelector('#offer-bar').hidden && [...document.querySelectorAll('#live p')].some((p) => p.textContent === 'North said no.')",
        "A told the take-back was refused",
    )
    .await;
    wait_for(
        b,
        "document.querySelector('#offer-bar').hidden",
        "B's bar gone",
    )
    .await;
    assert_eq!(body_data(a, "ply").await, ply, "nothing was taken back");
    assert_eq!(body_data(b, "ply").await, ply);
    assert_eq!(game(server, &id).await["offer"], Value::Null);

    // B offers a draw on its own turn and then moves: the offer stands through the offerer's
    // own move (docs/api.md), so A, now to move, still sees it and agrees.
    wait_for(b, "document.body.dataset.turn === 'mine'", "B to move").await;
    click(b, "#offer-draw").await;
    let offered = "!document.querySelector('#offer-bar').hidden && !document.querySelector('#offer-accept').hidden";
    wait_for(a, offered, "the draw offer on A's page").await;
    let ply: usize = body_data(b, "ply").await.parse().unwrap();
    click(b, ".hole.playable").await;
    let moved =
        format!("Number(document.body.dataset.ply) > {ply} && document.body.dataset.busy === '0'");
    wait_for(a, &moved, "A seeing B's move").await;
    wait_for(
        a,
        offered,
        "the draw offer still on A's page after B's move",
    )
    .await;
    wait_for(
        b,
        "!document.querySelector('#offer-bar').hidden && document.querySelector('#offer-accept').hidden",
        "B's own offer still waiting",
    )
    .await;
    assert_eq!(game(server, &id).await["offer"]["kind"], json!("draw"));
    save_screenshot(a, shots, "draw-offer-after-the-offerers-move.png").await;
    click(a, "#offer-accept").await;
    for c in [a, b] {
        wait_for(c, "document.body.dataset.status === 'over'", "the draw").await;
        let status = text_of(c, "#status").await;
        assert!(status.contains("Both players agreed."), "{status}");
    }
    let g = game(server, &id).await;
    assert_eq!(
        (g["result"].clone(), g["termination"].clone()),
        (json!("1/2-1/2"), json!("agreement"))
    );
    assert_eq!(
        g["rating_change"],
        Value::Null,
        "a casual game changes no rating"
    );
}

/// 6. A fresh game called off before both sides moved.
async fn aborted(a: &Client, b: &Client, server: &Server) {
    let (id, _, _) = challenge_accepted(a, b, "5+3").await;
    wait_for(
        a,
        "!document.querySelector('#abort').hidden",
        "the abort button",
    )
    .await;
    click(a, "#abort").await;
    for c in [a, b] {
        wait_for(
            c,
            "document.body.dataset.status === 'aborted'",
            "the game called off",
        )
        .await;
        let status = text_of(c, "#status").await;
        assert!(status.contains("called off"), "{status}");
        assert_eq!(
            js(c, "return document.querySelector('#abort').hidden").await,
            json!(true)
        );
    }
    let g = game(server, &id).await;
    assert_eq!(g["status"], "aborted");
    assert_eq!(g["result"], "*");
}

/// 6. B leaves the game; after the claim delay A claims the win.
async fn claimed(a: &Client, b: &Client, server: &Server) -> String {
    let (id, sa, _) = challenge_accepted(a, b, "").await;
    both_sides_move(a, b).await;
    wait_for(a, "document.body.dataset.busy === '0'", "A's page at rest").await;
    // B goes elsewhere: its game page (and connection to the game) is gone.
    click(b, "header nav a[href='/lobby']").await;
    wait_for(
        a,
        "!document.querySelector('#away-note').hidden",
        "A told that B left",
    )
    .await;
    assert_eq!(
        js(a, "return document.querySelector('#claim').hidden").await,
        json!(true),
        "no claim before the delay"
    );
    // The claim delay (40 s untimed) passes: the server's time goes 37 s forward (instead of
    // waiting them), A's page reads the game again, and its own timer counts the last seconds
    // down and shows the button then.
    shift_for_tests(37_000);
    a.refresh().await.unwrap();
    wait_for(
        a,
        "!document.querySelector('#away-note').hidden",
        "A told again that B left",
    )
    .await;
    wait_for(
        a,
        "!document.querySelector('#claim').hidden",
        "the claim button",
    )
    .await;
    assert!(text_of(a, "#away-note")
        .await
        .contains("you can claim the win"));
    click(a, "#claim").await;
    wait_for(
        a,
        "document.body.dataset.status === 'over'",
        "the win claimed",
    )
    .await;
    let status = text_of(a, "#status").await;
    assert!(
        status.starts_with("You win") && status.contains("North left the game."),
        "{status}"
    );
    let g = game(server, &id).await;
    assert_eq!(g["termination"], "abandoned");
    assert_eq!(g["result"], if sa == "south" { "1-0" } else { "0-1" });
    id
}

/// Colours as [r, g, b] of `prop` of the first element matching `css`, or null.
async fn colour_of(c: &Client, css: &str, prop: &str) -> Value {
    js(
        c,
        &format!(
            "const e = document.querySelector({css:?}); if (!e) return null;
             return (getComputedStyle(e)[{prop:?}].match(/\\d+(\\.\\d+)?/g) || []).slice(0, 3).map(Number)"
        ),
    )
    .await
}

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
        .unwrap_or_else(|| panic!("a colour: {rgb}"))
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    0.2126 * f(v[0]) + 0.7152 * f(v[1]) + 0.0722 * f(v[2])
}

fn contrast(a: &Value, b: &Value) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Text `css` is readable (WCAG AA, 4.5) on the panel behind it.
async fn readable(c: &Client, css: &str, what: &str) {
    let ink = colour_of(c, css, "color").await;
    let panel = colour_of(c, ".panel", "backgroundColor").await;
    assert!(contrast(&ink, &panel) >= 4.5, "{what}: {ink} on {panel}");
}

/// Item 7: the profile of A, with its games (the rated one among them, and alone under
/// "rated") and the rating graph; screenshots on a desktop and a phone.
async fn profile_page(
    driver: &Driver,
    a: &Client,
    base: &str,
    rated: &str,
    claimed: &str,
    shots: &Option<PathBuf>,
) {
    viewport(a, 1280, 800).await;
    click(a, "#account-area .account-name").await;
    wait_for(
        a,
        "document.body.dataset.view === 'profile' && document.querySelector('table.player-games') && document.querySelector('svg.rating-graph')",
        "A's profile",
    )
    .await;
    assert_eq!(text_of(a, ".profile-head h1").await, "Abula You");
    let stats = js(
        a,
        "return [...document.querySelectorAll('.stats .stat-n')].map((e) => Number(e.textContent))",
    )
    .await;
    let stats: Vec<u64> = stats
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(stats[0] >= 3, "games: {stats:?}");
    assert_eq!(stats[0], stats[1] + stats[2] + stats[3], "{stats:?}");
    assert_eq!(stats[2], 1, "one draw");
    for id in [rated, claimed] {
        assert_eq!(
            js(
                a,
                &format!(
                    "return !!document.querySelector(\"table.player-games a[href='/g/{id}']\")"
                )
            )
            .await,
            json!(true),
            "the game list has {id}"
        );
    }
    let row = text_of(a, "table.ratings tbody tr").await;
    assert!(row.contains("Bullet") || row.contains("bullet"), "{row}");
    // The graph: one line with a point.
    let points = js(
        a,
        "return document.querySelector('svg.rating-graph polyline').getAttribute('points')",
    )
    .await;
    assert_eq!(points.as_str().unwrap().split(' ').count(), 1, "{points}");
    assert_eq!(
        js(
            a,
            "return document.querySelectorAll('svg.rating-graph circle.g-dot').length"
        )
        .await,
        json!(1)
    );
    save_screenshot(a, shots, "profile-desktop.png").await;
    js(
        a,
        "document.querySelector('#player-games').scrollIntoView(); return 1",
    )
    .await;
    save_screenshot(a, shots, "profile-games-desktop.png").await;
    // The rated filter leaves the rated game alone.
    a.find(Locator::Css("#f-rated"))
        .await
        .unwrap()
        .select_by_value("true")
        .await
        .unwrap();
    wait_for(
        a,
        "document.querySelectorAll('table.player-games tbody tr').length === 1",
        "the rated games",
    )
    .await;
    assert_eq!(
        js(
            a,
            &format!(
                "return !!document.querySelector(\"table.player-games a[href='/g/{rated}']\")"
            )
        )
        .await,
        json!(true)
    );
    assert!(a
        .current_url()
        .await
        .unwrap()
        .as_str()
        .ends_with("?rated=true"));

    // The same profile on a phone 360 px wide, logged in there too.
    let p = phone(driver, "players-phone", 360, 740).await;
    account_forms(&p, base).await;
    log_in(&p, "Abula", PASSWORD_A).await;
    p.goto(&format!("{base}/@/Abula")).await.unwrap();
    wait_for(
        &p,
        "document.body.dataset.view === 'profile' && document.querySelector('table.player-games') && document.querySelector('svg.rating-graph')",
        "A's profile on a phone",
    )
    .await;
    assert_eq!(js(&p, "return window.innerWidth").await, json!(360));
    assert_eq!(
        js(
            &p,
            "return document.documentElement.scrollWidth > window.innerWidth"
        )
        .await,
        json!(false),
        "nothing sticks out sideways on a phone"
    );
    let svg_width = js(
        &p,
        "return document.querySelector('svg.rating-graph').getBoundingClientRect().right",
    )
    .await;
    assert!(svg_width.as_f64().unwrap() <= 360.0, "{svg_width}");
    save_screenshot(&p, shots, "profile-phone.png").await;
    js(
        &p,
        "document.querySelector('#graph-box').scrollIntoView(); return 1",
    )
    .await;
    save_screenshot(&p, shots, "profile-graph-phone.png").await;
    let _ = p.close().await;
}

/// 8. The profile and the lobby in dark colours: dark, and readable.
async fn dark_views(driver: &Driver, base: &str, shots: &Option<PathBuf>) {
    let c = browser(driver, "players-dark", &["--lang=en", "--force-dark-mode"]).await;
    account_forms(&c, base).await;
    log_in(&c, "Bwana", PASSWORD_B).await;
    viewport(&c, 1280, 800).await;
    c.goto(&format!("{base}/@/Abula")).await.unwrap();
    wait_for(
        &c,
        "document.body.dataset.view === 'profile' && document.querySelector('table.player-games') && document.querySelector('svg.rating-graph')",
        "A's profile, dark",
    )
    .await;
    assert_eq!(
        js(&c, "return document.documentElement.dataset.theme").await,
        json!("dark")
    );
    let bg = colour_of(&c, "html", "backgroundColor").await;
    assert!(luminance(&bg) < 0.05, "a dark background: {bg}");
    readable(&c, "body", "the page's text").await;
    readable(&c, ".profile-head h1", "the name").await;
    readable(&c, ".stat-n", "the counts").await;
    readable(&c, "table.player-games td", "the game list").await;
    readable(&c, "table.ratings td", "the ratings").await;
    readable(&c, "table.player-games a", "the game list's links").await;
    // The graph's labels and line stand out from the panel.
    let panel = colour_of(&c, ".panel", "backgroundColor").await;
    let label = colour_of(&c, "svg.rating-graph .g-label", "fill").await;
    assert!(
        contrast(&label, &panel) >= 4.5,
        "graph labels: {label} on {panel}"
    );
    let line = colour_of(&c, "svg.rating-graph polyline", "stroke").await;
    assert!(
        contrast(&line, &panel) >= 3.0,
        "the graph's line: {line} on {panel}"
    );
    save_screenshot(&c, shots, "profile-dark.png").await;

    to_lobby(&c).await;
    readable(&c, "#seek-form label", "the seek form").await;
    readable(&c, "#seek-heading", "the lobby's headings").await;
    readable(&c, "#challenges-heading", "the challenges heading").await;
    let field = colour_of(&c, "#seek-clock", "backgroundColor").await;
    let field_ink = colour_of(&c, "#seek-clock", "color").await;
    assert!(
        contrast(&field, &field_ink) >= 4.5,
        "a field: {field_ink} on {field}"
    );
    let button = colour_of(&c, "#seek-submit", "backgroundColor").await;
    let button_ink = colour_of(&c, "#seek-submit", "color").await;
    assert!(
        contrast(&button, &button_ink) >= 4.5,
        "the button: {button_ink} on {button}"
    );
    save_screenshot(&c, shots, "lobby-dark.png").await;
    let _ = c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium and chromedriver"]
async fn players_in_real_browsers() {
    // Alone: its games between two browsers run on clocks, where a first move has 30 s before
    // the game is aborted (round/fairness.rs); beside another browser test on two busy cores,
    // a page once took longer than that to make it.
    let _all = support::whole_process().await;
    let driver = driver();
    let db = fresh_db("players");
    let server = serve_on("127.0.0.1", None, db).await;
    let base = format!("http://{}", server.addr);
    let a = browser(&driver, "players-a", &["--lang=en"]).await;
    let b = browser(&driver, "players-b", &["--lang=en"]).await;

    accounts(&a, &b, &base).await;
    // Screenshots for a reviewer to look at, in a scratch folder under target/tmp/.
    let shots = Some(scratch("players-shots"));
    eprintln!("screenshots in {}", shots.as_ref().unwrap().display());
    let rated = rated_game_to_a_flag(&a, &b, &server, &shots).await;
    challenge_declined(&a, &b).await;
    takeback_refused_and_draw_agreed(&a, &b, &server, &shots).await;
    aborted(&a, &b, &server).await;
    let claimed = claimed(&a, &b, &server).await;
    profile_page(&driver, &a, &base, &rated, &claimed, &shots).await;
    dark_views(&driver, &base, &shots).await;

    for c in [a, b] {
        let _ = c.close().await;
    }
    server.stop().await;
}
