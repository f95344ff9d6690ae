//! `anywoli admin token NAME --scope bot:play,challenge:write --db DB`: makes a personal API
//! token for an account and prints its text, one line on standard output, once (the store
//! keeps only its hash). For hosts running bots and for scripts; players make theirs on the
//! account page.

use std::io::Write;

use anywoli_server::account::token::{new_token, Scopes, TOKENS_PER_ACCOUNT};
use anywoli_server::dates::now_ms;
use anywoli_server::store::{Minted, TokenRow};
use clap::Args;

use super::{find, NameArgs};
use crate::error::AdminError;

#[derive(Args, Clone)]
pub struct TokenArgs {
    #[command(flatten)]
    who: NameArgs,
    /// The token's scopes, separated by commas: bot:play, board:play, challenge:read,
    /// challenge:write, game:read, tournament:write.
    #[arg(long, value_name = "SCOPES", required = true)]
    scope: String,
    /// What the token is for, as the account page lists it.
    #[arg(long, default_value = "made by anywoli admin token")]
    description: String,
}

pub fn run(args: &TokenArgs) -> Result<(), AdminError> {
    let scopes = Scopes::parse(args.scope.split(',')).map_err(|e| AdminError::BadScope {
        message: e.to_string(),
    })?;
    if scopes.names().is_empty() {
        return Err(AdminError::BadScope {
            message: "name at least one scope".to_string(),
        });
    }
    let (store, account) = find(&args.who)?;
    if store.standing(&account.name)?.closed.is_some() {
        return Err(AdminError::Closed { name: account.name });
    }
    let (text, hash) = new_token();
    let row = TokenRow {
        id: anywoli_server::ids::new_id(),
        account: account.name.clone(),
        description: args.description.chars().take(100).collect(),
        scopes: scopes.text(),
        created: now_ms(),
        used: None,
    };
    match store.mint_token(row, hash, TOKENS_PER_ACCOUNT)? {
        Minted::New => {}
        Minted::TooMany { max } => {
            return Err(AdminError::TooManyTokens {
                name: account.name,
                max,
            })
        }
    }
    writeln!(std::io::stdout().lock(), "{text}")?;
    writeln!(
        std::io::stderr().lock(),
        "a token of {} with {}",
        account.name,
        scopes.names().join(", ")
    )?;
    Ok(())
}
