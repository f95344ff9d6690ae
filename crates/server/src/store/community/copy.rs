//! Chat lines, blocks and mutes copied from one store to another (`anywoli db migrate`).

use super::{BlockRow, ChatLine, MuteRow};
use crate::store::sql::Sql;
use crate::store::writer::Change;
use crate::store::{Conn, Store, StoreResult};

/// Everything of the community's tables, for `anywoli db migrate`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommunityDump {
    pub lines: Vec<ChatLine>,
    pub blocks: Vec<BlockRow>,
    pub mutes: Vec<MuteRow>,
}

fn dump(db: &mut dyn Sql) -> StoreResult<CommunityDump> {
    Ok(CommunityDump {
        lines: db.rows(
            "SELECT id, game, room, author, side, text, preset, at FROM chat_lines ORDER BY at, id",
            &[],
        )?,
        blocks: db.rows(
            "SELECT blocker, blocked, at FROM blocks ORDER BY blocker, blocked",
            &[],
        )?,
        mutes: db.rows(
            "SELECT account, until, by_account, reason, at FROM mutes ORDER BY account",
            &[],
        )?,
    })
}

/// Writes the rows not there yet: how many.
struct Import(CommunityDump);

impl Change for Import {
    type Out = u64;

    fn apply(&self, c: &mut dyn Conn) -> StoreResult<u64> {
        let db = c.sql();
        let mut n = 0;
        for l in &self.0.lines {
            n += super::chat::insert_line(db, l, "ON CONFLICT DO NOTHING")?;
        }
        for b in &self.0.blocks {
            n += db.execute(
                "INSERT INTO blocks (blocker, blocked, at) VALUES ($1, $2, $3)
                 ON CONFLICT DO NOTHING",
                &[(&b.blocker).into(), (&b.blocked).into(), b.at.into()],
            )?;
        }
        for m in &self.0.mutes {
            n += db.execute(
                "INSERT INTO mutes (account, until, by_account, reason, at)
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                &[
                    (&m.account).into(),
                    m.until.into(),
                    (&m.by).into(),
                    (&m.reason).into(),
                    m.at.into(),
                ],
            )?;
        }
        Ok(n)
    }
}

/// Copying the community's tables.
impl Store {
    /// Every chat line, block and mute (`anywoli db migrate`).
    pub fn community_dump(&self) -> StoreResult<CommunityDump> {
        self.readers.sql(dump)
    }

    /// Writes the rows of `dump` not there yet: how many.
    pub fn import_community(&self, dump: CommunityDump) -> StoreResult<u64> {
        self.writer.call(Import(dump))
    }
}
