//! `anywoli book`: the opening book's moves and scores for a position, and `book build` to
//! remake it (docs/book.md).

use std::io::Write;
use std::path::PathBuf;

use anywoli_engine::book::{self, Book, BuildOptions};
use clap::{Args, Subcommand};

use crate::analyse::seeds;
use crate::common::{parse_moves, play_all, CmdResult, Failure, Start};

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct BookArgs {
    #[command(subcommand)]
    command: Option<BookCommand>,
    #[command(flatten)]
    start: Start,
    /// Read this book file instead of the one built into the program.
    #[arg(long, value_name = "FILE")]
    book: Option<PathBuf>,
    /// Moves to play before looking the position up.
    #[arg(value_name = "MOVE")]
    moves: Vec<String>,
}

#[derive(Subcommand)]
pub enum BookCommand {
    /// Build a book from the start: every position of the first PLIES plies of good play,
    /// each searched to DEPTH with every move scored.
    Build(BuildArgs),
}

#[derive(Args)]
pub struct BuildArgs {
    /// Positions before this ply go in the book (0 is the start position).
    #[arg(long, default_value_t = 6, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=40))]
    plies: u32,
    /// Search depth of every position, in plies.
    #[arg(long, default_value_t = 14, value_name = "D", value_parser = clap::value_parser!(u32).range(1..=96))]
    depth: u32,
    /// Follow the moves (of both sides) within this many seeds of the best.
    #[arg(long, default_value_t = 2.0, value_name = "SEEDS")]
    margin: f64,
    /// Follow every move in the first this many plies.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=40))]
    full_plies: u32,
    /// Write the book here (rewritten after every ply, so a stopped build leaves a book).
    #[arg(long, default_value = "book.txt", value_name = "FILE")]
    out: PathBuf,
    /// Positions searched at once, one thread each.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = crate::common::usize_in(1, 64))]
    threads: usize,
    /// Transposition table of each search, in MiB.
    #[arg(long, default_value_t = 64, value_name = "MIB", value_parser = crate::common::usize_in(1, 4096))]
    hash: usize,
}

pub fn run(args: &BookArgs) -> CmdResult {
    match &args.command {
        Some(BookCommand::Build(b)) => build(b),
        None => show(args),
    }
}

fn show(args: &BookArgs) -> CmdResult {
    let loaded;
    let book: &Book = match &args.book {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|error| Failure::Read {
                path: path.clone(),
                error,
            })?;
            loaded = Book::parse(&text).map_err(|error| Failure::BookFile {
                path: path.clone(),
                error,
            })?;
            &loaded
        }
        None => book::shipped().map_err(Failure::ShippedBook)?,
    };
    let pos = args.start.position()?;
    let moves = parse_moves(&args.moves)?;
    let pos = play_all(pos, &moves)?.pop().unwrap_or(pos);
    let h = &book.header;
    let mut out = std::io::stdout().lock();
    writeln!(out, "position {pos}")?;
    writeln!(
        out,
        "book: rules {}, {} positions, the first {} plies of good play (every move in the first {}, then those within {} seeds of the best), depth {}",
        h.rules,
        book.len(),
        h.plies,
        h.full_plies,
        book::margin_seeds(h.margin),
        h.depth
    )?;
    let Some(me) = pos.to_move() else {
        writeln!(out, "not in the book: the game is over")?;
        return Ok(());
    };
    let Some(entry) = book.lookup(&pos) else {
        let why = if pos.rules() != h.rules {
            format!(" (the book is for rules {}, not {})", h.rules, pos.rules())
        } else {
            String::new()
        };
        writeln!(out, "not in the book{why}")?;
        return Ok(());
    };
    let stores = (pos.store(me) as i32 - pos.store(me.opponent()) as i32) * 100;
    writeln!(
        out,
        "in the book: {} moves searched to depth {}, best first; scores in seeds for {me}, the side to move (expected final store difference, {me} minus {})",
        entry.moves.len(),
        entry.depth,
        me.opponent()
    )?;
    for (i, &(mv, score)) in entry.moves.iter().enumerate() {
        let mark = if i == 0 { "  book move" } else { "" };
        writeln!(out, "{mv} {:>7}{mark}", seeds(stores + score))?;
    }
    Ok(())
}

fn build(b: &BuildArgs) -> CmdResult {
    if !(0.0..=96.0).contains(&b.margin) {
        return Err(Failure::BookMargin(b.margin));
    }
    let opts = BuildOptions {
        plies: b.plies,
        depth: b.depth,
        margin: (b.margin * 100.0).round() as i32,
        full_plies: b.full_plies,
        threads: b.threads,
        hash_mib: b.hash,
    };
    let mut err = std::io::stderr();
    let mut on_progress = |p: &book::Progress| {
        let _ = writeln!(
            err,
            "ply {}: {}/{} positions, {} in the book, {:.0} s",
            p.ply,
            p.done,
            p.of,
            p.total,
            p.elapsed.as_secs_f64()
        );
    };
    let out = &b.out;
    let mut on_ply = |book: &Book| -> std::io::Result<()> {
        // Written beside and renamed, so the file is always a whole book.
        let tmp = out.with_extension("tmp");
        std::fs::write(&tmp, book.serialise())?;
        std::fs::rename(&tmp, out)
    };
    let book =
        book::build(&opts, &mut on_progress, &mut on_ply).map_err(|error| Failure::BookWrite {
            path: out.clone(),
            error,
        })?;
    let bytes = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    writeln!(
        std::io::stdout().lock(),
        "book: {} positions, plies {}, depth {}, {} bytes in {}",
        book.len(),
        book.header.plies,
        book.header.depth,
        bytes,
        out.display()
    )?;
    Ok(())
}
