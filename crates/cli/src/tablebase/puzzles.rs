//! `anywoli tablebase puzzles`: the puzzle collection made from the 8-seed database.

use std::path::Path;

use anywoli_engine::endgame::Table;
use anywoli_engine::puzzles;

use super::place::{folder, missing, open};
use crate::common::{CmdResult, Failure};

pub fn make_puzzles(
    dir: Option<&Path>,
    per_grade: usize,
    seed: u64,
    out: Option<&Path>,
) -> CmdResult {
    let tb = open(dir)?;
    if tb.table(8).is_none() {
        let path = folder(dir).join(Table::file_name(8));
        return Err(missing(&path, ""));
    }
    let list = puzzles::generate(&tb, per_grade, seed);
    let text = puzzles::format_collection(&list);
    match out {
        Some(path) => {
            std::fs::write(path, &text)
                .map_err(|e| Failure::Says(format!("cannot write {}: {e}", path.display())))?;
            let mut grades = [0usize; 5];
            for p in &list {
                grades[p.grade as usize - 1] += 1;
            }
            println!(
                "{} puzzles written to {} (by grade 1..5: {:?})",
                list.len(),
                path.display(),
                grades
            );
        }
        None => print!("{text}"),
    }
    Ok(())
}
