//! Finished games read page by page for exports (a player's, `GET /api/games/user/{name}`; a
//! month's rated games, `anywoli export`): newest last change first, each page found from
//! where the last one ended (the keyset `(updated, id)`), so that a page costs the same at the
//! 1,000th as at the first and an export holds one page at a time.
//!
//! A player's page is two index scans (their games as South, as North), each stopped at the
//! page's size, merged: never a sort of all their games.

use crate::store::sql::{Sql, Val};
use crate::store::StoreResult;

/// Which finished games an export holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExportFilter {
    /// One account's games (as stored); every account's when `None`.
    pub player: Option<String>,
    /// Games whose last change (their end) is at or after this, in ms since the epoch.
    pub since: Option<i64>,
    /// … and before this.
    pub until: Option<i64>,
    pub rated: Option<bool>,
    /// The rules' name.
    pub rules: Option<String>,
    /// Rating categories (`bullet`, …); any when empty.
    pub categories: Vec<String>,
}

/// Where a page ends: the last game's `(updated, id)`.
pub type Cursor = (i64, String);

/// Adds a parameter: its placeholder.
fn push(params: &mut Vec<Val>, v: Val) -> String {
    params.push(v);
    format!("${}", params.len())
}

/// Up to `limit` ids of `f`'s games after `cursor`, newest first, with their cursors.
pub(super) fn page(
    db: &mut dyn Sql,
    f: &ExportFilter,
    cursor: Option<&Cursor>,
    limit: usize,
) -> StoreResult<Vec<Cursor>> {
    let collate = db.dialect().byte_order();
    let mut params: Vec<Val> = Vec::new();
    let mut conds = vec!["g.status != 'playing'".to_string()];
    if let Some(s) = f.since {
        let p = push(&mut params, s.into());
        conds.push(format!("g.updated >= {p}"));
    }
    if let Some(u) = f.until {
        let p = push(&mut params, u.into());
        conds.push(format!("g.updated < {p}"));
    }
    if let Some(r) = f.rated {
        let p = push(&mut params, r.into());
        conds.push(format!("g.rated = {p}"));
    }
    if let Some(r) = &f.rules {
        let p = push(&mut params, r.into());
        conds.push(format!("g.rules = {p}"));
    }
    if !f.categories.is_empty() {
        let list: Vec<String> = f
            .categories
            .iter()
            .map(|c| push(&mut params, c.into()))
            .collect();
        conds.push(format!("g.category IN ({})", list.join(", ")));
    }
    if let Some((updated, id)) = cursor {
        let u = push(&mut params, (*updated).into());
        let i = push(&mut params, id.into());
        conds.push(format!(
            "(g.updated < {u} OR (g.updated = {u} AND g.id {collate} < {i}))"
        ));
    }
    let lim = push(&mut params, (limit as i64).into());
    let order = format!("ORDER BY updated DESC, id {collate} DESC LIMIT {lim}");
    let scan = |seat: Option<&str>, params: &mut Vec<Val>| {
        let mut c = conds.clone();
        if let (Some(seat), Some(p)) = (seat, &f.player) {
            let n = push(params, p.into());
            c.push(format!("g.{seat}_account = {n}"));
        }
        format!(
            "SELECT g.id AS id, g.updated AS updated FROM games g WHERE {} {order}",
            c.join(" AND ")
        )
    };
    let sql = if f.player.is_some() {
        let south = scan(Some("south"), &mut params);
        let north = scan(Some("north"), &mut params);
        format!(
            "SELECT id, updated FROM (SELECT * FROM ({south}) AS s UNION ALL \
             SELECT * FROM ({north}) AS n) AS both_seats {order}"
        )
    } else {
        scan(None, &mut params)
    };
    db.query(&sql, &params)?
        .iter()
        .map(|r| Ok((r.int("updated")?, r.text("id")?)))
        .collect()
}
