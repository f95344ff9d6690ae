//! The director's decisions on worked states (`plan`): games that ended are settled once and
//! free their players, a player who never moved loses (Swiss) or is paused (arena), rounds
//! wait for their gap, and the end names the winner.

use super::plan::{plan, Plan};
use crate::store::{EntryRow, TGameRow, TournamentRow, TournamentState, Unsettled};

fn state(system: &str, status: &str, round: i64, settings: &str) -> TournamentState {
    TournamentState {
        tournament: TournamentRow {
            id: "t".into(),
            name: "T".into(),
            system: system.into(),
            rules: "anywoli".into(),
            clock: "3+2".into(),
            rated: false,
            created_by: "ana".into(),
            created: 0,
            starts: 0,
            minutes: Some(60),
            rounds: Some(3),
            settings: settings.into(),
            status: status.into(),
            round,
            next_round: None,
            finished: None,
            winner: None,
            version: 0,
            players: 0,
        },
        entries: Vec::new(),
        games: Vec::new(),
        missed: Vec::new(),
        blocks: Vec::new(),
    }
}

fn entry(name: &str, playing: Option<&str>, since: i64) -> EntryRow {
    EntryRow {
        account: name.into(),
        joined: 0,
        rating: 1500,
        state: "active".into(),
        since,
        playing: playing.map(str::to_string),
        bot: false,
    }
}

fn tgame(id: &str, round: i64, south: &str, north: &str, result: Option<&str>) -> TGameRow {
    TGameRow {
        game: id.into(),
        round,
        south: south.into(),
        north: north.into(),
        at: round * 1000,
        result: result.map(str::to_string),
        plies: result.map(|_| 40),
        berserk: String::new(),
    }
}

fn ended(id: &str, status: &str, result: &str, no_show: Option<&str>) -> Unsettled {
    Unsettled {
        game: id.into(),
        status: status.into(),
        result: result.into(),
        plies: 0,
        no_show: no_show.map(str::to_string),
        tags: "[]".into(),
    }
}

const MINUTE: i64 = 60_000;

#[test]
fn a_swiss_no_show_loses_is_withdrawn_and_the_round_waits_its_gap() {
    let mut s = state("swiss", "running", 1, r#"{"round_gap_s": 20}"#);
    s.entries = vec![
        entry("ana", Some("g1"), 0),
        entry("ben", Some("g1"), 0),
        entry("cai", Some("g2"), 0),
        entry("dan", Some("g2"), 0),
    ];
    s.games = vec![
        tgame("g1", 1, "ana", "ben", None),
        tgame("g2", 1, "cai", "dan", None),
    ];
    // g1 still played: nothing but settling g2, where North never moved.
    let p = plan(
        &s,
        &[ended("g2", "aborted", "*", Some("dan"))],
        5_000,
        MINUTE,
    )
    .unwrap();
    assert_eq!(p.settled.len(), 1);
    assert_eq!(p.settled[0].result, "1-0", "the no-show loses");
    assert_eq!(p.states, [("dan".to_string(), "withdrawn".to_string())]);
    assert!(p.pairs.is_empty() && p.progress.is_none());

    // Once both ended, the next round is set for 20 s later, then paired without dan.
    s.games = vec![
        tgame("g1", 1, "ana", "ben", Some("1/2-1/2")),
        tgame("g2", 1, "cai", "dan", Some("1-0")),
    ];
    for e in &mut s.entries {
        e.playing = None;
    }
    s.entries[3].state = "withdrawn".into();
    let p = plan(&s, &[], 9_000, MINUTE).unwrap();
    assert_eq!(p.progress.as_ref().unwrap().next_round, Some(29_000));
    s.tournament.next_round = Some(29_000);
    assert!(plan(&s, &[], 28_999, MINUTE).unwrap().is_empty());
    let p = plan(&s, &[], 29_000, MINUTE).unwrap();
    assert_eq!(p.progress.as_ref().unwrap().round, 2);
    assert_eq!(p.pairs.len(), 1, "three left: one game and a bye: {p:?}");
    assert_eq!(p.missed.len(), 1);
    assert!(p
        .pairs
        .iter()
        .all(|(s, n, r)| *r == 2 && s != "dan" && n != "dan"));
}

#[test]
fn an_arena_no_show_is_paused_and_the_others_are_paired_again() {
    let mut s = state("arena", "running", 0, "{}");
    s.entries = vec![
        entry("ana", Some("g1"), 0),
        entry("ben", Some("g1"), 0),
        entry("cai", None, 1_000),
        entry("dan", None, 1_000),
    ];
    s.games = vec![
        tgame("g0", 0, "cai", "dan", Some("1-0")),
        tgame("g1", 0, "ana", "ben", None),
    ];
    let p: Plan = plan(
        &s,
        &[ended("g1", "aborted", "*", Some("ben"))],
        5_000,
        MINUTE,
    )
    .unwrap();
    assert_eq!(
        p.settled[0].result, "aborted",
        "an aborted arena game scores nothing"
    );
    assert_eq!(p.states, [("ben".to_string(), "paused".to_string())]);
    // ana (freed now) waits with cai and dan; cai and dan just met, so each meets ana or
    // nobody: one game, with ana.
    assert_eq!(p.pairs.len(), 1, "{p:?}");
    let (a, b, _) = &p.pairs[0];
    assert!(a == "ana" || b == "ana", "{p:?}");
}

#[test]
fn an_arena_stops_pairing_before_its_end_and_finishes_when_its_games_do() {
    let mut s = state("arena", "running", 0, "{}");
    s.entries = vec![
        entry("ana", None, 0),
        entry("ben", None, 0),
        entry("cai", Some("g1"), 0),
        entry("dan", Some("g1"), 0),
    ];
    s.games = vec![tgame("g1", 0, "cai", "dan", None)];
    let end = 60 * MINUTE;
    assert_eq!(plan(&s, &[], end - 60_000, MINUTE).unwrap().pairs.len(), 1);
    assert!(
        plan(&s, &[], end - 10_000, MINUTE).unwrap().is_empty(),
        "too late to pair"
    );
    assert!(
        plan(&s, &[], end + 1, MINUTE).unwrap().is_empty(),
        "a game still runs"
    );
    let p = plan(&s, &[ended("g1", "over", "0-1", None)], end + 5_000, MINUTE).unwrap();
    let done = p.progress.unwrap();
    assert_eq!(done.status, "finished");
    assert_eq!(done.winner.as_deref(), Some("dan"), "the only win");
}

#[test]
fn a_swiss_or_round_robin_waits_for_players_then_is_cancelled() {
    let mut s = state("round-robin", "upcoming", 0, "{}");
    s.entries = vec![entry("ana", None, 0)];
    assert!(
        plan(&s, &[], 1_000, MINUTE).unwrap().is_empty(),
        "one player: it waits"
    );
    let p = plan(&s, &[], 61 * MINUTE, MINUTE).unwrap();
    assert_eq!(p.progress.unwrap().status, "cancelled");
    s.entries.push(entry("ben", None, 0));
    s.entries.push(entry("cai", None, 0));
    let p = plan(&s, &[], 1_000, MINUTE).unwrap();
    let started = p.progress.unwrap();
    assert_eq!(
        (started.status.as_str(), started.round, started.rounds),
        ("running", 1, Some(3))
    );
    assert_eq!(
        (p.pairs.len(), p.missed.len()),
        (1, 1),
        "three: one game, one sits out"
    );
}

#[test]
fn a_schedule_makes_each_tournament_once_an_hour_ahead_and_skips_starts_missed() {
    use super::schedule::{fire_due, ScheduleRequest};
    use crate::store::{AccountOp, AccountRow, SessionRow, Store};
    let store = Store::in_memory().unwrap();
    store
        .account_op(AccountOp::Create {
            account: AccountRow {
                key: "host".into(),
                name: "host".into(),
                hash: "h".into(),
                created: 1,
            },
            session: SessionRow {
                token: "t".into(),
                name: "host".into(),
                csrf: "c".into(),
                created: 1,
            },
        })
        .unwrap();
    let now = 1_800_000_000_000;
    let hour = 60 * MINUTE;
    let request: ScheduleRequest = serde_json::from_value(serde_json::json!({
        "by": "host", "every_minutes": 60, "first_at": now + 90 * MINUTE,
        "tournament": {"name": "Hourly blitz", "system": "arena", "clock": "3+2", "minutes": 50,
                       "password": "kept"}
    }))
    .unwrap();
    store
        .add_schedule(request.into_row("s1".into(), now).unwrap())
        .unwrap();
    assert_eq!(fire_due(&store, now).unwrap(), 0, "not within the hour yet");
    assert_eq!(fire_due(&store, now + 30 * MINUTE).unwrap(), 1);
    assert_eq!(fire_due(&store, now + 31 * MINUTE).unwrap(), 0, "made once");
    let made = store.tournaments("upcoming", 10).unwrap();
    assert_eq!(made.len(), 1);
    assert_eq!(made[0].starts, now + 90 * MINUTE);
    assert_eq!(made[0].name, "Hourly blitz");
    let settings = super::Settings::of(&made[0]);
    assert!(
        settings.admits(&made[0].id, Some("kept")),
        "its password, hashed with its id"
    );
    // Another instance that read the schedule before it moved on makes nothing.
    let stale = store.tournaments("upcoming", 10).unwrap()[0].clone();
    assert!(!store
        .fire_schedule("s1", now + 90 * MINUTE, Some(now + 150 * MINUTE), stale)
        .unwrap());
    // No server for a day: the starts missed are skipped, the next to come is made.
    let later = now + 24 * hour + 10 * MINUTE;
    assert_eq!(fire_due(&store, later).unwrap(), 1);
    let next = store.schedules().unwrap()[0].next_at;
    let starts: Vec<i64> = store
        .tournaments("upcoming", 10)
        .unwrap()
        .iter()
        .map(|t| t.starts)
        .collect();
    assert!(
        starts.contains(&(now + 90 * MINUTE + 23 * hour)),
        "{starts:?}"
    );
    assert_eq!(next, now + 90 * MINUTE + 24 * hour);
    // A bad schedule is refused whole.
    let bad: ScheduleRequest = serde_json::from_value(serde_json::json!({
        "by": "host", "every_minutes": 5,
        "tournament": {"name": "Too often", "system": "arena", "clock": "3+2", "minutes": 50}
    }))
    .unwrap();
    assert!(bad.into_row("s2".into(), now).is_err());
}
