//! `anywoli admin`: what a host does for the community from the command line, so that hosting
//! needs no mail server (issue 38, docs/community.md). Each command takes the server's `--db`
//! (a SQLite file or a PostgreSQL URL) and works while the server runs: the server reads an
//! account's role, closed mark and sessions from the store at each request, caching none.
//! Each writes a moderation-log line whose moderator is `admin (cli)`. A name nobody has is
//! refused with exit status 1, changing nothing.

mod reports;
mod token;
mod tournaments;

use std::io::Write;
use std::path::{Path, PathBuf};

use anywoli_server::account::key_of;
use anywoli_server::account::reset::{new_reset_token, reset_link};
use anywoli_server::dates::now_ms;
use anywoli_server::store::{db_label, is_postgres_url, AccountRow, Act, Moderate, ADMIN_CLI};
use anywoli_server::Store;
use clap::{Args, Subcommand};
use serde_json::json;

use crate::common::CmdResult;
use crate::error::AdminError;

#[derive(Subcommand, Clone)]
pub enum AdminCommand {
    /// Make a player a moderator (the /mod page and /api/mod/ open to them).
    GrantModerator(NameArgs),
    /// Take the moderator role back.
    RevokeModerator(NameArgs),
    /// Close an account: its sessions end and it can no longer log in; its games stay, shown
    /// under its name marked closed.
    Close(NameArgs),
    /// Open a closed account again (its player logs in with the password they had).
    Reopen(NameArgs),
    /// Print a one-time link that sets a new password: one line, BASE/reset/TOKEN. It works
    /// for 24 hours, once; a newer link voids it.
    ResetLink(ResetLinkArgs),
    /// The open reports, oldest first, one line each (or JSON).
    Reports(reports::ReportsArgs),
    /// Recurring and scheduled tournaments: add them from a file, list, remove.
    #[command(subcommand)]
    Tournaments(tournaments::TournamentsCommand),
    /// Make a personal API token for an account and print it (one line, shown once).
    Token(token::TokenArgs),
}

#[derive(Args, Clone)]
pub struct DbArg {
    /// The server's store: a SQLite file or a PostgreSQL URL (as `serve --db`).
    #[arg(long, value_name = "PATH|URL")]
    db: PathBuf,
}

#[derive(Args, Clone)]
pub struct NameArgs {
    #[command(flatten)]
    db: DbArg,
    /// The player's name (any case).
    name: String,
    /// Why, for the moderation log.
    #[arg(long, default_value = "")]
    reason: String,
}

#[derive(Args, Clone)]
pub struct ResetLinkArgs {
    #[command(flatten)]
    who: NameArgs,
    /// The site's address, as players reach it.
    #[arg(long, default_value = "http://127.0.0.1:8080", value_name = "BASE")]
    url: String,
}

pub fn run(command: &AdminCommand) -> CmdResult {
    match command {
        AdminCommand::GrantModerator(a) => act(a, Act::GrantModerator, "is now a moderator"),
        AdminCommand::RevokeModerator(a) => {
            act(a, Act::RevokeModerator, "is no longer a moderator")
        }
        AdminCommand::Close(a) => act(a, Act::Close, "is closed; their sessions ended"),
        AdminCommand::Reopen(a) => act(a, Act::Reopen, "is open again"),
        AdminCommand::ResetLink(a) => reset(a),
        AdminCommand::Reports(a) => reports::run(a),
        AdminCommand::Tournaments(c) => tournaments::run(c),
        AdminCommand::Token(a) => token::run(a),
    }
    .map_err(Into::into)
}

/// The store `--db` names, which must exist already (a mistyped path makes no new file).
fn open(db: &DbArg) -> Result<(Store, String), AdminError> {
    let label = db_label(&db.db);
    let is_url = db.db.to_str().is_some_and(is_postgres_url);
    if !is_url && !Path::new(&db.db).exists() {
        return Err(AdminError::NoSuchFile { label });
    }
    Ok((Store::open_db(&db.db)?, label))
}

/// The store and the account `args` name.
fn find(args: &NameArgs) -> Result<(Store, AccountRow), AdminError> {
    let (store, label) = open(&args.db)?;
    let account = store
        .account(&key_of(&args.name))?
        .ok_or_else(|| AdminError::NoPlayer {
            label,
            name: args.name.clone(),
        })?;
    Ok((store, account))
}

fn moderate(store: &Store, act: Act, name: &str, reason: &str) -> Result<(), AdminError> {
    store.moderate(Moderate {
        act,
        moderator: ADMIN_CLI.to_string(),
        target: name.to_string(),
        reason: reason.to_string(),
        detail: json!({}),
        at: now_ms(),
    })?;
    Ok(())
}

fn act(args: &NameArgs, act: Act, done: &str) -> Result<(), AdminError> {
    let (store, account) = find(args)?;
    moderate(&store, act, &account.name, &args.reason)?;
    writeln!(std::io::stderr().lock(), "{} {done}", account.name)?;
    Ok(())
}

fn reset(args: &ResetLinkArgs) -> Result<(), AdminError> {
    let base = args.url.trim_end_matches('/');
    let plain = base.starts_with("http://") || base.starts_with("https://");
    if !plain || base.contains(['?', '#', ' ']) {
        return Err(AdminError::BadUrl {
            url: args.url.clone(),
        });
    }
    let (store, account) = find(&args.who)?;
    if store.standing(&account.name)?.closed.is_some() {
        return Err(AdminError::Closed { name: account.name });
    }
    let (token, hash) = new_reset_token();
    moderate(
        &store,
        Act::ResetLink { hash },
        &account.name,
        &args.who.reason,
    )?;
    writeln!(std::io::stdout().lock(), "{}", reset_link(base, &token))?;
    Ok(())
}
