//! Building a book: from the start, ply by ply, every position good play reaches is searched to
//! the book's depth with every move scored exactly (docs/book.md, "How it is built").

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anywoli_core::{Position, Rules};

use super::{Book, Entry, Header, Key};
use crate::search::{Engine, Limits, MAX_MULTIPV};

/// What `anywoli book build` was given.
#[derive(Clone, Copy, Debug)]
pub struct BuildOptions {
    /// Positions before this ply go in the book.
    pub plies: u32,
    /// The depth each position is searched to.
    pub depth: u32,
    /// From a position after the first `full_plies`, the moves within this many centiseeds of
    /// the best are followed (both sides alike).
    pub margin: i32,
    /// In the first this many plies every move is followed, so the book answers any first
    /// move when it plays North.
    pub full_plies: u32,
    /// Positions searched at once, one search thread each.
    pub threads: usize,
    /// Each search's table, in MiB.
    pub hash_mib: usize,
}

/// One searched position, as the builder reports it.
pub struct Progress {
    /// The ply being built (0 is the start position).
    pub ply: u32,
    /// Positions done at this ply, and how many it has.
    pub done: usize,
    /// See `done`.
    pub of: usize,
    /// Positions in the book so far, this one included.
    pub total: usize,
    /// Time since the build started.
    pub elapsed: Duration,
}

/// Builds the book of `opts`. `on_ply` gets the book after each complete ply (a book that
/// stops there), so a long build can be cut short and still leave a book; `on_progress`
/// hears every position searched.
pub fn build(
    opts: &BuildOptions,
    on_progress: &mut dyn FnMut(&Progress),
    on_ply: &mut dyn FnMut(&Book) -> std::io::Result<()>,
) -> std::io::Result<Book> {
    let start = Instant::now();
    let mut header = Header {
        rules: Rules::Anywoli,
        plies: 0,
        depth: opts.depth,
        margin: opts.margin,
        full_plies: opts.full_plies,
    };
    let mut book = Book::new(header);
    let mut seen: HashSet<Key> = HashSet::new();
    let mut frontier = vec![Position::start(Rules::Anywoli)];
    seen.extend(Key::of(&frontier[0]));
    for ply in 0..opts.plies {
        if frontier.is_empty() {
            break;
        }
        let entries = search_all(&frontier, opts, &mut |done| {
            on_progress(&Progress {
                ply,
                done,
                of: frontier.len(),
                total: book.len() + done,
                elapsed: start.elapsed(),
            })
        });
        let mut next = Vec::new();
        for (pos, entry) in frontier.iter().zip(entries) {
            let best = entry.moves.first().map_or(0, |m| m.1);
            for &(mv, score) in &entry.moves {
                if ply >= opts.full_plies && score < best - opts.margin {
                    continue;
                }
                let mut child = *pos;
                if child.play(mv).is_err() {
                    continue;
                }
                if let Some(k) = Key::of(&child) {
                    if seen.insert(k) {
                        next.push(child);
                    }
                }
            }
            book.insert(Key::of(pos).expect("book positions are in play"), entry);
        }
        header.plies = ply + 1;
        book.header = header;
        on_ply(&book)?;
        frontier = next;
    }
    Ok(book)
}

/// Every position's entry, in the order given; `opts.threads` positions at a time.
fn search_all(
    positions: &[Position],
    opts: &BuildOptions,
    on_done: &mut dyn FnMut(usize),
) -> Vec<Entry> {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    let mut out: Vec<Option<Entry>> = vec![None; positions.len()];
    std::thread::scope(|scope| {
        for _ in 0..opts.threads.clamp(1, 64) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                let mut engine = Engine::new(opts.hash_mib, 1);
                engine.set_multipv(MAX_MULTIPV);
                loop {
                    let i = next.fetch_add(1, Relaxed);
                    let Some(pos) = positions.get(i) else {
                        break;
                    };
                    // A fresh table for each position: the same book whatever the threads
                    // and the order they take positions in.
                    engine.clear();
                    if tx.send((i, entry(&engine, pos, opts.depth))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (done, (i, e)) in rx.iter().enumerate() {
            out[i] = Some(e);
            on_done(done + 1);
        }
    });
    out.into_iter()
        .map(|e| e.expect("every position is searched"))
        .collect()
}

/// One position searched to `depth`, every move scored exactly (multi-PV over all of them).
pub(crate) fn entry(engine: &Engine, pos: &Position, depth: u32) -> Entry {
    let me = pos.to_move().expect("book positions are in play");
    let stores = (pos.store(me) as i32 - pos.store(me.opponent()) as i32) * 100;
    let r = engine.search(
        pos,
        &Limits::depth(depth),
        &AtomicBool::new(false),
        &mut |_| {},
    );
    let mut moves: Vec<_> = r
        .root_scores
        .iter()
        .map(|&(m, s)| (m, s - stores))
        .collect();
    moves.sort_by_key(|&(m, s)| (std::cmp::Reverse(s), m.hole().index()));
    Entry {
        depth: r.depth,
        moves,
    }
}
