//! Iterative deepening at the root: the root moves, each depth's pass over them (multi-PV
//! windows, moves another thread is on put off), and what each finished depth reports.

use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use anywoli_core::{Move, Position, Side};

use super::node::{Child, Thread};
use super::team::{Busy, Claim, DEFER_DEPTH};
use super::{gain, stores, Info, Line, SearchResult, INF, MAX_PLY};

/// One root move as the deepening keeps it.
struct Root {
    mv: Move,
    /// The position after it.
    child: Position,
    /// What it gains at once.
    gain: i32,
    /// Its value at the last depth: exact for the best `multipv`, a bound below for the others.
    value: i32,
    /// Its line, when its value is exact.
    line: Vec<Move>,
}

/// Iterative deepening from the root; `(multipv, only)`: how many best moves get exact
/// scores, and which root moves are searched (`None`: all). A `helper` skips the depths its
/// team crowds ([`super::team::Team::next_depth`]).
pub(super) fn iterate(
    t: &mut Thread<'_>,
    pos: &Position,
    max_depth: u32,
    (multipv, only): (usize, Option<&[Move]>),
    helper: bool,
    start: Instant,
    on_info: &mut dyn FnMut(&Info),
) -> SearchResult {
    let mut result = SearchResult {
        best: None,
        score: 0,
        depth: 0,
        nodes: 0,
        time: Duration::ZERO,
        pv: Vec::new(),
        root_scores: Vec::new(),
        lines: Vec::new(),
    };
    let Some(me) = pos.to_move() else {
        return result;
    };
    let stores = stores(pos, me);
    let mut root = root_moves(pos, me, only);
    if root.is_empty() {
        return result;
    }
    let multipv = multipv.clamp(1, root.len());
    // Something to answer with even if stopped at once: the best immediate capture.
    root.sort_by_key(|r| std::cmp::Reverse(r.gain));
    result.best = Some(root[0].mv);
    result.pv = vec![root[0].mv];
    result.score = stores + root[0].gain;

    let mut depth = 0;
    while depth < max_depth {
        depth += 1;
        if let Some(team) = t.team {
            if helper {
                depth = team.next_depth(depth, max_depth);
            }
            team.started[depth as usize].fetch_add(1, Relaxed);
        }
        let best_i = search_depth(t, &mut root, me, depth, multipv);
        // A move fully searched in an unfinished iteration beat the previous best at this
        // depth (the previous best is searched first), so it may be used. Not when several
        // lines are asked for: the answer is then the last finished depth's lines, and its
        // best move must be their first (a move searched with a full window to fill the
        // lines can beat the previous best's value at the new depth without being proven
        // best: the others are not all searched yet).
        if let Some(i) = best_i.filter(|_| multipv == 1 || !t.aborted) {
            result.best = Some(root[i].mv);
            result.score = stores + root[i].value;
            result.pv = root[i].line.clone();
        }
        if t.aborted {
            break;
        }
        result.depth = depth;
        if depth == max_depth {
            if let Some(team) = t.team.filter(|team| !helper || team.helpers_answer) {
                team.done.store(true, Relaxed);
            }
        }
        root.sort_by_key(|r| std::cmp::Reverse(r.value));
        report(t, &root[..], multipv, stores, start, &mut result, on_info);
        // A finished game seen to the end in every line needs no deeper look.
        if depth as usize >= MAX_PLY {
            break;
        }
    }
    result.time = start.elapsed();
    result
}

/// The root moves searched (`only`, or all), each played once.
fn root_moves(pos: &Position, me: Side, only: Option<&[Move]>) -> Vec<Root> {
    let mut root = Vec::new();
    for mv in pos.moves() {
        if only.is_some_and(|o| !o.contains(&mv)) {
            continue;
        }
        let mut child = *pos;
        if child.play_unchecked(mv).is_ok() {
            root.push(Root {
                mv,
                child,
                gain: gain(pos, &child, me),
                value: 0,
                line: Vec::new(),
            });
        }
    }
    root
}

/// One depth's pass over the root moves; the index of the move that became the best at this
/// depth, if one did.
fn search_depth(
    t: &mut Thread<'_>,
    root: &mut [Root],
    me: Side,
    depth: u32,
    multipv: usize,
) -> Option<usize> {
    // The exact values found at this depth, best first, at most `multipv`: a move must
    // beat the last of them (once there are `multipv`) to be searched exactly. With one
    // line this is the usual principal variation search.
    let mut exact: Vec<i32> = Vec::with_capacity(multipv + 1);
    let mut best_i = None;
    let busy = t.team.map(|t| &t.busy).filter(|_| depth > DEFER_DEPTH);
    // Root moves another thread is on, searched after the others (see [`Busy`]).
    let mut later = Vec::new();
    let mut todo: Vec<usize> = (0..root.len()).collect();
    let mut searched = 0;
    let mut first_pass = true;
    while !todo.is_empty() {
        for &i in &todo {
            let r = &root[i];
            let Claim::Search(mark) = Busy::claim(busy, &r.child, first_pass && searched > 0)
            else {
                later.push(i);
                continue;
            };
            let c = Child::new(me, &r.child, r.gain);
            let floor = (exact.len() == multipv).then(|| exact[multipv - 1]);
            let v = root_value(t, c, depth, floor);
            drop(mark);
            if t.aborted {
                break;
            }
            searched += 1;
            if floor.is_some_and(|f| v <= f) {
                root[i].value = floor.unwrap_or(-INF) - 1 - i as i32;
                continue;
            }
            root[i].value = v;
            let next = t.pv_len[1].max(1);
            root[i].line = std::iter::once(root[i].mv)
                .chain((1..next).map_while(|j| t.pv[1][j]))
                .collect();
            let at = exact.partition_point(|&e| e >= v);
            exact.insert(at, v);
            exact.truncate(multipv);
            if at == 0 {
                best_i = Some(i);
            }
        }
        if t.aborted {
            break;
        }
        todo = std::mem::take(&mut later);
        first_pass = false;
    }
    best_i
}

/// A root move's value: exact with a full window until there are `multipv` exact values,
/// then a null window at the last of them (`floor`), widened only when the move beats it.
#[inline]
fn root_value(t: &mut Thread<'_>, c: Child, depth: u32, floor: Option<i32>) -> i32 {
    match floor {
        None => t.child_value(c, depth - 1, -INF, INF, 0),
        Some(f) => {
            let v = t.child_value(c, depth - 1, f, f + 1, 0);
            if v > f && !t.aborted {
                t.child_value(c, depth - 1, f, INF, 0)
            } else {
                v
            }
        }
    }
}

/// A finished depth (`root` sorted best first): its scores and lines go into `result`, and
/// each line to `on_info`.
fn report(
    t: &Thread<'_>,
    root: &[Root],
    multipv: usize,
    stores: i32,
    start: Instant,
    result: &mut SearchResult,
    on_info: &mut dyn FnMut(&Info),
) {
    result.root_scores = root.iter().map(|r| (r.mv, stores + r.value)).collect();
    result.lines = root[..multipv]
        .iter()
        .map(|r| Line {
            score: stores + r.value,
            pv: r.line.clone(),
        })
        .collect();
    result.time = start.elapsed();
    result.nodes = t.shared_nodes.load(Relaxed) + (t.nodes - t.flushed);
    for (k, line) in result.lines.iter().enumerate() {
        on_info(&Info {
            multipv: k + 1,
            depth: result.depth,
            score: line.score,
            nodes: result.nodes,
            time: result.time,
            pv: line.pv.clone(),
        });
    }
}
