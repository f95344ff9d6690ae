//! Standings from the games played: every format's scores, tie-breaks, performance and score
//! sheets are a function of the entrants and their games, so the server never keeps a score it
//! could not recompute from what it stored.

use std::collections::HashMap;

use anywoli_core::Side;
use serde::Serialize;

use crate::arena::{self, Outcome, ScoringRules};
use crate::Sides;

/// How games score and ties are broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum System {
    /// Arena points ([`arena::points`]): streaks and berserk; ties by performance.
    Arena(ScoringRules),
    /// 1, ½, 0; byes as given; ties by Buchholz, Sonneborn–Berger, direct encounter.
    Swiss,
    /// As Swiss.
    RoundRobin,
}

/// How a game ended, as the tournament counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameResult {
    /// South won (on the board, on time, by resignation, or because North never moved).
    South,
    /// North won.
    North,
    /// A draw.
    Draw,
    /// Ended before both had moved: not scored, not counted as a game.
    Aborted,
}

/// A tournament game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// The game's id.
    pub game: String,
    /// The round (Swiss, round robin); arena games count their waves from 1.
    pub round: u32,
    /// When it started (ms): arena streaks follow this order.
    pub at: i64,
    /// South's player.
    pub south: String,
    /// North's player.
    pub north: String,
    /// `None` while it is played.
    pub result: Option<GameResult>,
    /// Plies played (arena thresholds).
    pub plies: u32,
    /// Whether South and North berserked.
    pub berserk: [bool; 2],
}

/// A round a player scored without a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Absence {
    /// The pairing's bye (a point in Swiss).
    Bye,
    /// A round missed, joining late or withdrawn (half a point for a missed first round).
    Absent,
}

/// A round without a game, with the points it gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Missed {
    /// Whose.
    pub player: String,
    /// Which round.
    pub round: u32,
    /// Why.
    pub kind: Absence,
    /// Points it gave.
    pub points: f64,
}

/// An entrant: who, and their rating as they joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entrant {
    /// The player's id.
    pub id: String,
    /// Rating at entry.
    pub rating: i32,
}

/// A line of a player's score sheet.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Line {
    /// The game, if one was played.
    pub game: Option<String>,
    /// The round.
    pub round: u32,
    /// The opponent, if any.
    pub opponent: Option<String>,
    /// The side played, `south` or `north`.
    #[serde(serialize_with = "side_name")]
    pub side: Option<Side>,
    /// `win`, `draw`, `loss`, `bye`, `absent`, or null while played.
    pub result: Option<&'static str>,
    /// Points it gave.
    pub points: f64,
    /// Whether the player berserked.
    pub berserk: bool,
}

fn side_name<S: serde::Serializer>(side: &Option<Side>, s: S) -> Result<S::Ok, S::Error> {
    match side {
        Some(Side::South) => s.serialize_str("south"),
        Some(Side::North) => s.serialize_str("north"),
        None => s.serialize_none(),
    }
}

/// One player's place.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// The player.
    pub id: String,
    /// 1 = the leader; players tied on every criterion share a rank.
    pub rank: u32,
    /// Rating at entry.
    pub rating: i32,
    /// Points.
    pub score: f64,
    /// Games finished and scored (aborted ones and byes are not games).
    pub games: u32,
    /// Wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// Performance rating: the opponents' mean rating + 400 × (wins − losses) / games.
    pub performance: Option<i32>,
    /// The sum of the opponents' scores.
    pub buchholz: f64,
    /// The scores of the opponents beaten, and half of those drawn with.
    pub sonneborn_berger: f64,
    /// Arena: the next win scores double.
    pub streak: bool,
    /// Every round or game, in order.
    pub sheet: Vec<Line>,
    /// Sides played, one per round (Swiss: `-` for a round without a game).
    pub sides: Sides,
    /// Opponents met in games that were played (not aborted).
    pub opponents: Vec<String>,
    /// The opponent of the latest game, aborted ones included (arena: no immediate rematch).
    pub last_opponent: Option<String>,
    /// Byes had.
    pub byes: u32,
    /// The game being played, if any.
    pub playing: Option<String>,
}

/// The standings of `entrants` after `games` (in the order they started) and `missed`.
/// Games of players who are not entrants are ignored.
pub fn standings(
    system: System,
    entrants: &[Entrant],
    games: &[Played],
    missed: &[Missed],
) -> Vec<Standing> {
    let index: HashMap<&str, usize> = entrants
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.as_str(), i))
        .collect();
    let mut rows: Vec<Standing> = entrants.iter().map(empty).collect();
    let mut results: Vec<Vec<Outcome>> = vec![Vec::new(); entrants.len()];
    // (round, line) per player, sorted by round afterwards so that byes fall in place.
    let mut lines: Vec<Vec<(u32, i64, Line)>> = vec![Vec::new(); entrants.len()];
    let mut order: Vec<&Played> = games.iter().collect();
    order.sort_by_key(|g| (g.at, g.round));
    for g in order {
        let (Some(&s), Some(&n)) = (index.get(g.south.as_str()), index.get(g.north.as_str()))
        else {
            continue;
        };
        for (me, them, side) in [(s, n, Side::South), (n, s, Side::North)] {
            let berserk = g.berserk[side as usize];
            let outcome = g.result.and_then(|r| outcome_for(r, side));
            let points = match (system, outcome) {
                (_, None) => 0.0,
                (System::Arena(rules), Some(o)) => f64::from(arena::points(
                    o,
                    arena::on_streak(&results[me]),
                    berserk,
                    g.plies,
                    rules,
                )),
                (_, Some(Outcome::Win)) => 1.0,
                (_, Some(Outcome::Draw)) => 0.5,
                (_, Some(Outcome::Loss)) => 0.0,
            };
            let row = &mut rows[me];
            row.last_opponent = Some(entrants[them].id.clone());
            match g.result {
                None => row.playing = Some(g.game.clone()),
                Some(GameResult::Aborted) => {}
                Some(_) => {
                    row.opponents.push(entrants[them].id.clone());
                    row.sides.push(Some(side));
                }
            }
            if let Some(o) = outcome {
                results[me].push(o);
                row.games += 1;
                row.score += points;
                match o {
                    Outcome::Win => row.wins += 1,
                    Outcome::Draw => row.draws += 1,
                    Outcome::Loss => row.losses += 1,
                }
            }
            let result = match (g.result, outcome) {
                (None, _) => None,
                (_, Some(o)) => Some(outcome_name(o)),
                (Some(_), None) => Some("aborted"),
            };
            lines[me].push((
                g.round,
                g.at,
                Line {
                    game: Some(g.game.clone()),
                    round: g.round,
                    opponent: Some(entrants[them].id.clone()),
                    side: Some(side),
                    result,
                    points,
                    berserk,
                },
            ));
        }
    }
    for m in missed {
        let Some(&me) = index.get(m.player.as_str()) else {
            continue;
        };
        rows[me].score += m.points;
        if m.kind == Absence::Bye {
            rows[me].byes += 1;
        }
        lines[me].push((
            m.round,
            i64::MIN,
            Line {
                game: None,
                round: m.round,
                opponent: None,
                side: None,
                result: Some(match m.kind {
                    Absence::Bye => "bye",
                    Absence::Absent => "absent",
                }),
                points: m.points,
                berserk: false,
            },
        ));
    }
    let by_round = !matches!(system, System::Arena(_));
    for (i, row) in rows.iter_mut().enumerate() {
        lines[i].sort_by_key(|(round, at, _)| (*round, *at));
        if by_round {
            // Swiss sides list one entry per round, a round without a game as `-`.
            let mut sides = Sides::default();
            for (_, _, l) in &lines[i] {
                match (l.result, l.side) {
                    (Some("win" | "draw" | "loss"), side) => sides.push(side),
                    (Some("bye" | "absent"), _) => sides.push(None),
                    _ => {}
                }
            }
            row.sides = sides;
        }
        row.sheet = lines[i].drain(..).map(|(_, _, l)| l).collect();
        row.streak = matches!(system, System::Arena(_)) && arena::on_streak(&results[i]);
    }
    tie_breaks(&mut rows, entrants, games, &index);
    rank(system, &mut rows, games);
    rows
}

fn empty(e: &Entrant) -> Standing {
    Standing {
        id: e.id.clone(),
        rank: 0,
        rating: e.rating,
        score: 0.0,
        games: 0,
        wins: 0,
        draws: 0,
        losses: 0,
        performance: None,
        buchholz: 0.0,
        sonneborn_berger: 0.0,
        streak: false,
        sheet: Vec::new(),
        sides: Sides::default(),
        opponents: Vec::new(),
        last_opponent: None,
        byes: 0,
        playing: None,
    }
}

fn outcome_for(r: GameResult, side: Side) -> Option<Outcome> {
    match (r, side) {
        (GameResult::Aborted, _) => None,
        (GameResult::Draw, _) => Some(Outcome::Draw),
        (GameResult::South, Side::South) | (GameResult::North, Side::North) => Some(Outcome::Win),
        _ => Some(Outcome::Loss),
    }
}

fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Win => "win",
        Outcome::Draw => "draw",
        Outcome::Loss => "loss",
    }
}

/// Buchholz, Sonneborn–Berger and performance, once every score is known.
fn tie_breaks(
    rows: &mut [Standing],
    entrants: &[Entrant],
    games: &[Played],
    index: &HashMap<&str, usize>,
) {
    let scores: Vec<f64> = rows.iter().map(|r| r.score).collect();
    let mut opp_ratings: Vec<(i64, u32)> = vec![(0, 0); rows.len()];
    for g in games {
        let (Some(&s), Some(&n)) = (index.get(g.south.as_str()), index.get(g.north.as_str()))
        else {
            continue;
        };
        let Some(r) = g.result.filter(|r| *r != GameResult::Aborted) else {
            continue;
        };
        for (me, them, side) in [(s, n, Side::South), (n, s, Side::North)] {
            rows[me].buchholz += scores[them];
            rows[me].sonneborn_berger += match outcome_for(r, side) {
                Some(Outcome::Win) => scores[them],
                Some(Outcome::Draw) => scores[them] / 2.0,
                _ => 0.0,
            };
            opp_ratings[me].0 += i64::from(entrants[them].rating);
            opp_ratings[me].1 += 1;
        }
    }
    for (row, (sum, n)) in rows.iter_mut().zip(opp_ratings) {
        if n > 0 {
            let n = i64::from(n);
            let wl = i64::from(row.wins) - i64::from(row.losses);
            row.performance = Some(((sum + 400 * wl) as f64 / n as f64).round() as i32);
        }
    }
}

/// Sorts and ranks: by score, then Buchholz, Sonneborn–Berger and direct encounter (Swiss,
/// round robin) or performance (arena); rating and name only order players who share a rank.
fn rank(system: System, rows: &mut [Standing], games: &[Played]) {
    let key = |r: &Standing| -> [f64; 3] {
        match system {
            System::Arena(_) => [r.score, f64::from(r.performance.unwrap_or(i32::MIN)), 0.0],
            _ => [r.score, r.buchholz, r.sonneborn_berger],
        }
    };
    rows.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        kb.iter()
            .zip(&ka)
            .map(|(x, y)| x.total_cmp(y))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    // Within each group tied on the key, direct encounter (the points they scored against
    // each other) decides in Swiss and round robin.
    let mut start = 0;
    while start < rows.len() {
        let mut end = start + 1;
        while end < rows.len() && key(&rows[end]) == key(&rows[start]) {
            end += 1;
        }
        let group = &mut rows[start..end];
        let direct: HashMap<String, f64> = if matches!(system, System::Arena(_)) {
            HashMap::new()
        } else {
            direct_scores(group, games)
        };
        let d = |r: &Standing| direct.get(&r.id).copied().unwrap_or(0.0);
        group.sort_by(|a, b| {
            d(b).total_cmp(&d(a))
                .then(b.rating.cmp(&a.rating))
                .then(a.id.cmp(&b.id))
        });
        let mut rank = start as u32 + 1;
        for i in 0..group.len() {
            if i > 0 && d(&group[i]) != d(&group[i - 1]) {
                rank = start as u32 + 1 + i as u32;
            }
            group[i].rank = rank;
        }
        start = end;
    }
}

/// Points each member of `group` scored against the others in it.
fn direct_scores(group: &[Standing], games: &[Played]) -> HashMap<String, f64> {
    let mut out: HashMap<String, f64> = group.iter().map(|r| (r.id.clone(), 0.0)).collect();
    if group.len() < 2 {
        return out;
    }
    for g in games {
        if !(out.contains_key(&g.south) && out.contains_key(&g.north)) {
            continue;
        }
        let (s, n) = match g.result {
            Some(GameResult::South) => (1.0, 0.0),
            Some(GameResult::North) => (0.0, 1.0),
            Some(GameResult::Draw) => (0.5, 0.5),
            _ => continue,
        };
        *out.entry(g.south.clone()).or_default() += s;
        *out.entry(g.north.clone()).or_default() += n;
    }
    out
}
