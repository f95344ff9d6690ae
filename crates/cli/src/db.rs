//! `anywoli db migrate`: copy every account (with its ratings), every game, every community
//! puzzle and the puzzle ratings from one store
//! to another (SQLite or PostgreSQL, either way), verifying each copy (docs/hosting.md).
//! Sessions are not copied: players log in again on the new store.

use std::io::Write;
use std::path::{Path, PathBuf};

use anywoli_server::store::{db_label, is_postgres_url, AccountOp, PuzzleRow};
use anywoli_server::Store;
use clap::{Args, Subcommand};

use crate::common::{CmdResult, Failure};
use crate::error::DbError;

#[derive(Subcommand, Clone)]
pub enum DbCommand {
    /// Set a player's password (read from standard input, one line), for a player who forgot
    /// theirs; every session of the account ends. The server may be running.
    ResetPassword(ResetArgs),
    /// Copy every account (its password hash, ratings and rating history) and every game (its
    /// row and all its moves) from one store to another, e.g. from SQLite to PostgreSQL; each
    /// game is read back from the target and compared. Players log in again afterwards.
    Migrate(MigrateArgs),
    /// The opening explorer's counts recounted from the stored games: --check compares,
    /// --rebuild replaces them (docs/api-bots.md, "Opening explorer").
    Explorer(crate::explorer::ExplorerArgs),
}

#[derive(Args, Clone)]
pub struct MigrateArgs {
    /// The store to copy from: a SQLite file or a PostgreSQL URL (as `serve --db`).
    #[arg(long, value_name = "PATH|URL")]
    from: PathBuf,
    /// The store to copy to (created if missing): a SQLite file or a PostgreSQL URL.
    #[arg(long, value_name = "PATH|URL")]
    to: PathBuf,
    /// Skip the games the target already holds instead of refusing to start.
    #[arg(long)]
    skip_existing: bool,
}

#[derive(Args, Clone)]
pub struct ResetArgs {
    /// The store: a SQLite file or a PostgreSQL URL (as `serve --db`).
    #[arg(long, value_name = "PATH|URL")]
    db: PathBuf,
    /// The player's name (any case).
    name: String,
}

/// Games listed at a time.
const PAGE: usize = 500;
/// Progress is printed every this many games.
const PROGRESS: u64 = 1000;

pub fn run(command: &DbCommand) -> CmdResult {
    match command {
        DbCommand::Migrate(args) => migrate(args),
        DbCommand::Explorer(args) => crate::explorer::run(args),
        DbCommand::ResetPassword(args) => reset_password(args),
    }
}

fn reset_password(args: &ResetArgs) -> CmdResult {
    use anywoli_server::account::{check_password, key_of, password};
    let label = db_label(&args.db);
    let is_url = args.db.to_str().is_some_and(is_postgres_url);
    if !is_url && !args.db.exists() {
        return Err(DbError::NoSuchFile { label }.into());
    }
    let store = Store::open_db(&args.db)?;
    let account = store
        .account(&key_of(&args.name))?
        .ok_or_else(|| DbError::NoPlayer {
            label: label.clone(),
            name: args.name.clone(),
        })?;
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    let new = line.trim_end_matches(['\r', '\n']);
    check_password(new).map_err(|e| DbError::Password(e.message))?;
    let hash = password::hash_now(new).map_err(DbError::PasswordHash)?;
    store
        .account_op(AccountOp::SetPassword {
            name: account.name.clone(),
            hash,
        })
        .and_then(|_| {
            store.account_op(AccountOp::EndSessions {
                name: account.name.clone(),
                except: None,
            })
        })?;
    writeln!(
        std::io::stderr().lock(),
        "set a new password for {} in {label}; their sessions ended",
        account.name
    )?;
    Ok(())
}

fn same_store(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    let is_url = |p: &Path| p.to_str().is_some_and(is_postgres_url);
    if is_url(a) || is_url(b) {
        return false;
    }
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Calls `f` with every game id of `store`, a page at a time, in byte order.
fn each_id(store: &Store, mut f: impl FnMut(&str) -> CmdResult) -> CmdResult {
    let mut after = String::new();
    loop {
        let page = store.ids_after(&after, PAGE)?;
        for id in &page {
            f(id)?;
        }
        match page.last() {
            Some(last) if page.len() == PAGE => after = last.clone(),
            _ => return Ok(()),
        }
    }
}

fn migrate(args: &MigrateArgs) -> CmdResult {
    let (from, to) = (db_label(&args.from), db_label(&args.to));
    if same_store(&args.from, &args.to) {
        return Err(DbError::SameStore { from }.into());
    }
    let is_url = args.from.to_str().is_some_and(is_postgres_url);
    if !is_url && !args.from.exists() {
        return Err(DbError::NoSuchFile { label: from }.into());
    }
    let source = Store::open_db(&args.from)?;
    let target = Store::open_db(&args.to)?;
    if !args.skip_existing {
        refuse_what_is_there(&source, &target, &from, &to)?;
    }
    let (accounts, accounts_skipped) = copy_accounts(&source, &target, args.skip_existing, &to)?;
    let (games, moves, skipped) = copy_games(&source, &target, args.skip_existing, &from, &to)?;
    let (puzzles, puzzles_skipped) = copy_puzzles(&source, &target, &to)?;
    let ratings = target.import_puzzle_ratings(source.puzzle_ratings_dump()?)?;
    let progress = target.import_lesson_progress(source.lesson_progress_dump()?)?;
    let follows = target.import_follows(source.follows_dump()?)?;
    let community = target.import_community(source.community_dump()?)?;
    let moderation = target.import_moderation(source.moderation_dump()?)?;
    let skipped = match skipped + accounts_skipped + puzzles_skipped {
        0 => String::new(),
        n => format!(", skipped {n} already there"),
    };
    writeln!(
        std::io::stderr().lock(),
        "copied {accounts} accounts and {games} games ({moves} moves) from {from} to {to}{skipped}"
    )?;
    writeln!(
        std::io::stderr().lock(),
        "copied {puzzles} community puzzles and {ratings} rows of puzzle ratings and attempts"
    )?;
    writeln!(
        std::io::stderr().lock(),
        "copied {progress} exercises of the accounts' course progress"
    )?;
    writeln!(std::io::stderr().lock(), "copied {follows} follows")?;
    writeln!(
        std::io::stderr().lock(),
        "copied {community} chat lines, blocks and mutes"
    )?;
    writeln!(
        std::io::stderr().lock(),
        "copied {moderation} rows of moderation: moderators and closed accounts, the log, reports, marks, refunds, offences"
    )?;
    Ok(())
}

/// Before copying anything, without `--skip-existing`: refuses when the target holds a game,
/// an account or a community puzzle of the source already.
fn refuse_what_is_there(source: &Store, target: &Store, from: &str, to: &str) -> CmdResult {
    let mut existing = 0u64;
    let mut first_existing = None;
    each_id(source, |id| {
        if target.load(id)?.is_some() {
            existing += 1;
            first_existing.get_or_insert_with(|| id.to_string());
        }
        Ok(())
    })?;
    if existing > 0 {
        return Err(DbError::GamesThere {
            to: to.to_string(),
            existing,
            from: from.to_string(),
            first: first_existing.unwrap_or_default(),
        }
        .into());
    }
    if let Some(name) = first_account_there(source, target)? {
        let to = to.to_string();
        return Err(DbError::AccountThere { to, name }.into());
    }
    if let Some(id) = first_puzzle_there(source, target)? {
        return Err(DbError::PuzzleThere {
            to: to.to_string(),
            id,
        }
        .into());
    }
    Ok(())
}

/// Copies every game with its moves, each checked as read back; with `skip`, those the target
/// holds are skipped. How many games and moves were copied, and games skipped.
fn copy_games(
    source: &Store,
    target: &Store,
    skip: bool,
    from: &str,
    to: &str,
) -> Result<(u64, u64, u64), Failure> {
    let (mut games, mut moves, mut skipped) = (0u64, 0u64, 0u64);
    each_id(source, |id| {
        let Some((row, game_moves)) = source.load(id)? else {
            return Ok(()); // deleted since it was listed
        };
        if skip && target.load(id)?.is_some() {
            skipped += 1;
            return Ok(());
        }
        target
            .create_game(&row, &game_moves)
            .map_err(|error| DbError::CopyGame {
                id: id.to_string(),
                error,
            })?;
        match target.load(id)? {
            Some((r, m)) if r == row && m == game_moves => {}
            _ => {
                return Err(DbError::GameDiffers {
                    id: id.to_string(),
                    to: to.to_string(),
                    from: from.to_string(),
                }
                .into())
            }
        }
        games += 1;
        moves += game_moves.len() as u64;
        if games % PROGRESS == 0 {
            eprintln!("copied {games} games ({moves} moves)...");
        }
        Ok(())
    })?;
    Ok((games, moves, skipped))
}

/// Every community puzzle of `store`, a page at a time.
fn each_puzzle(store: &Store, mut f: impl FnMut(PuzzleRow) -> CmdResult) -> CmdResult {
    let mut offset = 0;
    loop {
        let (page, _) = store.puzzles(None, PAGE as i64, offset)?;
        let n = page.len();
        for p in page {
            f(p)?;
        }
        if n < PAGE {
            return Ok(());
        }
        offset += n as i64;
    }
}

/// The id of the first community puzzle of `source` that `target` has too, if any.
fn first_puzzle_there(source: &Store, target: &Store) -> Result<Option<String>, Failure> {
    let mut found = None;
    each_puzzle(source, |p| {
        if found.is_none() && target.puzzle(&p.id)?.is_some() {
            found = Some(p.id);
        }
        Ok(())
    })?;
    Ok(found)
}

/// Copies every community puzzle, each checked as read back; those the target has (by id, or
/// the same position) are skipped. How many were copied, and skipped.
fn copy_puzzles(source: &Store, target: &Store, to: &str) -> Result<(u64, u64), Failure> {
    let (mut copied, mut skipped) = (0u64, 0u64);
    each_puzzle(source, |p| {
        let id = p.id.clone();
        if !target.save_puzzle(p.clone())? {
            skipped += 1;
            return Ok(());
        }
        if target.puzzle(&id)?.as_ref() != Some(&p) {
            let to = to.to_string();
            return Err(DbError::PuzzleDiffers { id, to }.into());
        }
        copied += 1;
        Ok(())
    })?;
    Ok((copied, skipped))
}

/// The name of the first account of `source` that `target` has too, if any.
fn first_account_there(source: &Store, target: &Store) -> Result<Option<String>, Failure> {
    let mut after = String::new();
    loop {
        let page = source.accounts_after(&after, PAGE)?;
        for a in &page {
            if target.account(&a.key)?.is_some() {
                return Ok(Some(a.name.clone()));
            }
        }
        match page.last() {
            Some(last) if page.len() == PAGE => after = last.key.clone(),
            _ => return Ok(None),
        }
    }
}

/// Copies every account with its ratings and their history; an account whose name the target
/// has already is refused, or skipped with `--skip-existing`. How many were copied, and
/// skipped.
fn copy_accounts(
    source: &Store,
    target: &Store,
    skip: bool,
    to: &str,
) -> Result<(u64, u64), Failure> {
    let (mut copied, mut skipped) = (0u64, 0u64);
    let mut after = String::new();
    loop {
        let page = source.accounts_after(&after, PAGE)?;
        for account in &page {
            let ratings = source.ratings(&account.name)?;
            let history = source.rating_history(&account.name, usize::MAX >> 1)?;
            let op = AccountOp::Import {
                account: account.clone(),
                ratings,
                history,
            };
            if target.account_op(op)? {
                copied += 1;
            } else if skip {
                skipped += 1;
            } else {
                return Err(DbError::AccountMadeMeanwhile {
                    to: to.to_string(),
                    name: account.name.clone(),
                }
                .into());
            }
        }
        match page.last() {
            Some(last) if page.len() == PAGE => after = last.key.clone(),
            _ => return Ok((copied, skipped)),
        }
    }
}
