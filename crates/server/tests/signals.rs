// Fair-play signals through the server (issue 38's done-when): a bot account whose 10 rated
// games are level-10 engine moves ranks above ten accounts playing level-3 moves on
// `GET /api/mod/signals`; a game without a review is reviewed through the engine queue within
// the request's budget; only moderators see any of it.
// (Plain comments: `signals_postgres.rs` includes this file.)

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anywoli_engine::arena::{openings, play_game};
use anywoli_engine::core::{BySide, Move, Outcome, Position, Rules, Side};
use anywoli_engine::review::review;
use anywoli_engine::{level_spec, Engine, LevelPlayer, LevelSpec, Limits};
use anywoli_server::account::session::{new_session, token_of};
use anywoli_server::dates::now_ms;
use anywoli_server::round::clock::TimeControl;
use anywoli_server::round::game::{Game, Mode, NewGame, Player};
use anywoli_server::round::status::Status;
use anywoli_server::round::termination::Termination;
use anywoli_server::store::{AccountOp, AccountRow, Act, Moderate, ReviewRow, ADMIN_CLI};
use anywoli_server::Store;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

#[allow(unused_imports)]
use sqlite_store::*;
#[allow(dead_code)]
mod sqlite_store {
    pub fn fresh_store() -> anywoli_server::Store {
        anywoli_server::Store::in_memory().unwrap()
    }
}

/// The depth the test's own reviews use (the site's is deeper): quick, and enough to tell.
const TEST_REVIEW_DEPTH: u32 = 5;

/// An account and a session of it: (cookie, CSRF token).
fn account(store: &Store, name: &str) -> (String, String) {
    let (cookie, mut session) = new_session(name, now_ms());
    session.token = token_of(&cookie);
    let csrf = session.csrf.clone();
    let op = AccountOp::Create {
        account: AccountRow {
            key: name.to_lowercase(),
            name: name.to_string(),
            hash: "not-a-hash".to_string(),
            created: now_ms(),
        },
        session,
    };
    assert!(store.account_op(op).unwrap());
    (cookie, csrf)
}

/// Modo, made a moderator as `anywoli admin grant-moderator` does: its session.
fn moderator(store: &Store) -> (String, String) {
    let modo = account(store, "Modo");
    let m = Moderate {
        act: Act::GrantModerator,
        moderator: ADMIN_CLI.into(),
        target: "Modo".into(),
        reason: String::new(),
        detail: json!({}),
        at: now_ms(),
    };
    assert!(store.moderate(m).unwrap());
    modo
}

async fn get(app: &Router, uri: &str, who: &(String, String)) -> (StatusCode, Value) {
    let r = Request::builder()
        .uri(uri)
        .header("cookie", format!("anywoli_session={}", who.0))
        .header("x-csrf-token", &who.1)
        .body(Body::empty())
        .unwrap();
    let resp = app.clone().oneshot(r).await.unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// A rated game over, stored with its moves: `names` (South, North) played `moves` from
/// `start` and South scored `south`.
fn store_game(
    store: &Store,
    id: &str,
    names: [&str; 2],
    start: Position,
    moves: &[Move],
    south: f64,
) {
    let rules = Rules::from_name("anywoli", 0).unwrap();
    let mut g = Game::new(NewGame {
        id: id.to_string(),
        at: now_ms(),
        mode: Mode::Friend,
        rules,
        players: BySide::both(Player::Human),
        secrets: BySide::from([format!("{id}-s"), format!("{id}-n")]).map(Some),
        start,
        hints: false,
        invite: None,
        clock: Some(TimeControl::parse("5+3").unwrap()),
        people: crate::support::rated_people(names),
    });
    let mut pos = start;
    for &mv in moves {
        pos.play(mv).unwrap();
    }
    g.moves = moves.to_vec();
    g.pos = pos;
    let outcome = if south == 1.0 {
        Outcome::Win(Side::South)
    } else if south == 0.0 {
        Outcome::Win(Side::North)
    } else {
        Outcome::Draw
    };
    g.status = Status::Over {
        outcome,
        termination: Some(Termination::LastSeeds),
    };
    let texts: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    store.create_game(&g.to_row(), &texts).unwrap();
}

/// Stores a short rated game (four moves from the start) and its review; South scores `south`.
fn short_reviewed(store: &Store, id: &str, names: [&str; 2], seed: u64, south: f64) {
    let start = Position::start(Rules::Anywoli);
    let moves = openings(&start, 1, 4, seed).remove(0);
    store_game(store, id, names, start, &moves, south);
    save_review_of(store, id, start, &moves);
}

fn save_review_of(store: &Store, id: &str, start: Position, moves: &[Move]) {
    let mut engine = Engine::new(8, 1);
    let limits = Limits::depth(TEST_REVIEW_DEPTH);
    let stop = AtomicBool::new(false);
    let r = review(&mut engine, &start, moves, &limits, &stop, &mut |_, _| {}).unwrap();
    let texts: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    let row = ReviewRow {
        game: id.to_string(),
        moves: texts.join(" "),
        body: serde_json::to_string(&r).unwrap(),
        at: now_ms(),
    };
    store.save_review(row).unwrap();
}

/// The player of `level`, the same moves at any load: level 10's search to depth 9 rather than
/// for 5 ms, which played weaker moves when CI's release build took CPU time (the other levels
/// search to fixed depths already).
fn steady(level: u8, seed: u64) -> LevelPlayer {
    if level == 10 {
        let spec = LevelSpec {
            depth: Some(9),
            ..level_spec(10).unwrap()
        };
        LevelPlayer::with_spec(spec, seed, 1, 1)
    } else {
        LevelPlayer::new(level, seed, 1, 1).unwrap()
    }
}

/// Plays a game of `levels` (South, North) from an opening, stores it and its review.
fn played_and_reviewed(
    store: &Store,
    id: &str,
    names: [&str; 2],
    levels: [u8; 2],
    opening: &[Move],
    seed: u64,
) {
    let mut start = Position::start(Rules::Anywoli);
    for &mv in opening {
        start.play(mv).unwrap();
    }
    let mut south = steady(levels[0], seed);
    let mut north = steady(levels[1], seed + 1000);
    // Time enough that each level's depth decides, however busy the machine is.
    let g = play_game([&mut south, &mut north], start, Duration::from_secs(60));
    store_game(store, id, names, g.start, &g.moves, g.south_score());
    save_review_of(store, id, g.start, &g.moves);
}

/// The accounts (a moderator's and Eve's sessions are answered) and their games: the bot's 10
/// games, one against each of ten people, sides taken in turn; a level-3 game of each person
/// against the next; a short game of two more without a review.
fn setup(store: &Store) -> ((String, String), (String, String)) {
    let modo = moderator(store);
    let eve = account(store, "Eve");
    account(store, "Bot");
    let names: Vec<String> = (0..10).map(|i| format!("P{i}")).collect();
    for p in &names {
        account(store, p);
    }
    let start = Position::start(Rules::Anywoli);
    let opens = openings(&start, 30, 2, 7);
    for (i, p) in names.iter().enumerate() {
        let (who, levels) = if i % 2 == 0 {
            (["Bot", p], [10, 3])
        } else {
            ([p, "Bot"], [3, 10])
        };
        played_and_reviewed(store, &format!("bot{i}"), who, levels, &opens[i], i as u64);
    }
    for (i, p) in names.iter().enumerate() {
        let next = &names[(i + 1) % names.len()];
        played_and_reviewed(
            store,
            &format!("p{i}"),
            [p, next],
            [3, 3],
            &opens[10 + i],
            50 + i as u64,
        );
    }
    account(store, "Q1");
    account(store, "Q2");
    let short: Vec<Move> = openings(&start, 1, 4, 99).remove(0);
    store_game(store, "short", ["Q1", "Q2"], start, &short, 0.5);
    (modo, eve)
}

store_test! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_bot_of_level_10_moves_ranks_above_ten_players_of_level_3_moves() {
        let state = anywoli_server::AppState::new(fresh_store(), crate::oneshot::think());
        let store = state.store().clone();
        let app = anywoli_server::app(state);
        let made = store.clone();
        let (modo, eve) = tokio::task::spawn_blocking(move || setup(&made)).await.unwrap();
        let people: Vec<String> = (0..10).map(|i| format!("P{i}")).collect();

        let (s, v) = get(&app, "/api/mod/signals", &modo).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let ranked = v["players"].as_array().unwrap();
        let rank = |n: &str| ranked.iter().position(|p| p["name"] == n).unwrap_or_else(|| panic!("{n} in {v}"));
        let bot = &ranked[rank("Bot")];
        assert_eq!(rank("Bot"), 0, "{v}");
        assert_eq!((bot["games"].as_u64(), bot["pending"].as_u64()), (Some(10), Some(0)), "{bot}");
        let bot_figure = bot["engine_likeness"].as_f64().expect("the bot has enough moves");
        let mut with_figure = 0;
        for p in &people {
            let person = &ranked[rank(p)];
            // Its game with the bot, its own second game and its neighbour's.
            assert_eq!(person["games"], 3, "{person}");
            assert!(bot["first_choice"].as_f64() > person["first_choice"].as_f64(), "{bot} {person}");
            assert!(bot["mean_loss"].as_f64() < person["mean_loss"].as_f64(), "{bot} {person}");
            if let Some(f) = person["engine_likeness"].as_f64() {
                assert!(bot_figure > f, "{bot} {person}");
                with_figure += 1;
            }
        }
        assert!(with_figure >= 5, "most people have enough moves to be ranked on: {v}");
        assert_eq!(v["games"], 21);
        assert_eq!(v["pending"], 0, "the short game was reviewed within the budget: {v}");
        let made = store.clone();
        let short = tokio::task::spawn_blocking(move || made.review("short").unwrap()).await.unwrap();
        assert!(short.is_some(), "and its review stored");
        assert_eq!(ranked[rank("Q1")]["games"], 1);

        let (s, one) = get(&app, "/api/mod/signals?player=bot", &modo).await;
        assert_eq!(s, StatusCode::OK, "{one}");
        assert_eq!((one["player"]["name"].as_str(), one["player"]["games"].as_u64()), (Some("Bot"), Some(10)));
        assert_eq!(one["player"]["first_choice"], bot["first_choice"]);
        let (_, d) = get(&app, "/api/mod/players/Bot", &modo).await;
        assert_eq!(d["signals"]["games"], 10, "the dossier shows them too");
        let (s, _) = get(&app, "/api/mod/signals?player=nobody", &modo).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = get(&app, "/api/mod/signals?who=Bot", &modo).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);

        // Nobody else sees them.
        for uri in ["/api/mod/signals", "/api/mod/signals?player=Bot"] {
            let (s, v) = get(&app, uri, &eve).await;
            assert_eq!((s, v["error"].as_str()), (StatusCode::FORBIDDEN, Some("not_moderator")), "{uri}");
        }
    }
}

store_test! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn wins_from_accounts_of_one_address_count_as_wins_from_one() {
        let state = anywoli_server::AppState::new(fresh_store(), crate::oneshot::think());
        let store = state.store().clone();
        let app = anywoli_server::app(state);
        let made = store.clone();
        let modo = tokio::task::spawn_blocking(move || {
            let store = &made;
            let modo = moderator(store);
            for n in ["Farm", "A1", "A2", "A3", "Solo", "B1", "B2", "B3"] {
                account(store, n);
            }
            // A1, A2 and A3 log in from one address; B1, B2 and B3 from three.
            for (i, n) in ["A1", "A2", "A3"].iter().enumerate() {
                store.seen_from(n, "198.51.100.7", now_ms() + i as i64).unwrap();
            }
            for (i, n) in ["B1", "B2", "B3"].iter().enumerate() {
                store.seen_from(n, &format!("192.0.2.{i}"), now_ms()).unwrap();
            }
            for (i, n) in ["A1", "A2", "A3"].iter().enumerate() {
                short_reviewed(store, &format!("farm{i}"), ["Farm", n], i as u64, 1.0);
            }
            for (i, n) in ["B1", "B2", "B3"].iter().enumerate() {
                short_reviewed(store, &format!("solo{i}"), [n, "Solo"], 10 + i as u64, 0.0);
            }
            modo
        })
        .await
        .unwrap();
        let (s, farm) = get(&app, "/api/mod/signals?player=Farm", &modo).await;
        assert_eq!(s, StatusCode::OK, "{farm}");
        assert_eq!(farm["player"]["games"], 3);
        assert_eq!(farm["player"]["wins_from_one"], 1.0, "{farm}");
        let (_, solo) = get(&app, "/api/mod/signals?player=Solo", &modo).await;
        let share = solo["player"]["wins_from_one"].as_f64().unwrap();
        assert!((share - 1.0 / 3.0).abs() < 1e-9, "{solo}");
        // Four moves a game is too few to rank on: the figures are there, the rank is not.
        assert!(solo["player"]["engine_likeness"].is_null(), "{solo}");
    }
}
