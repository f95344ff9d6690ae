//! Bytes as moves: from the start and from a position built from the bytes (and read through
//! the parser), each byte a move, legal or not, with the invariants checked after each; the
//! games written as records and read back. The bytes are also read as record text.

#![no_main]

use anywoli_core::{parse_position, Position, Rules};
use libfuzzer_sys::fuzz_target;

mod common;

/// A valid position from bytes: seeds in play, where they lie, how the stores split, who moves
/// and the counters. Goes through the position string parser. Returns it and the bytes left.
fn position_from_bytes(rules: Rules, bytes: &[u8]) -> Option<(Position, &[u8])> {
    let (&[k, split, flags, quiet, ply_lo, ply_hi], rest) = bytes.split_first_chunk::<6>()?;
    let threshold = rules.end_threshold() as usize;
    let in_play = if flags & 0x30 == 0x30 {
        0
    } else {
        (4 * (1 + k as usize % 24)).max(threshold + 4)
    };
    if rest.is_empty() {
        return None;
    }
    let (places, rest) = rest.split_at(rest.len().min(in_play));
    let mut holes = [0u32; 24];
    for i in 0..in_play {
        holes[places[i % places.len()] as usize % 24] += 1;
    }
    let left = 96 - in_play as u32;
    let south = split as u32 * (left + 1) / 256;
    let row = |s: usize| holes[s * 12..s * 12 + 12].iter().sum::<u32>();
    let to_move = if in_play == 0 {
        'x'
    } else if (flags & 1 == 1 && row(1) > 0) || row(0) == 0 {
        'n'
    } else {
        's'
    };
    let who = |b: u8| ['-', 's', 'n'][b as usize % 3];
    let ply = u16::from_le_bytes([ply_lo, ply_hi]) as u32;
    let ply = if flags & 0x40 != 0 {
        u32::MAX - ply
    } else {
        ply
    };
    let quiet = (quiet as u32 % 100).min(ply);
    let list = |r: &[u32]| {
        r.iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let text = format!(
        "{}/{} {to_move} {south} {} {} {} {quiet} {ply}",
        list(&holes[..12]),
        list(&holes[12..]),
        left - south,
        who(flags >> 1),
        who(flags >> 3),
    );
    let p = parse_position(&text, rules).unwrap_or_else(|e| panic!("{text}: {e}"));
    Some((p, rest))
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let rules = common::RULES[first as usize % common::RULES.len()];

    let start = Position::start(rules);
    common::check_position(&start);
    let (_, moves) = common::play_bytes(start, rest);
    common::check_record_of(start, &moves);

    if let Some((p, rest)) = position_from_bytes(rules, rest) {
        common::check_position(&p);
        let (_, moves) = common::play_bytes(p, rest);
        common::check_record_of(p, &moves);
    }

    if let Ok(text) = std::str::from_utf8(data) {
        common::check_record_text(text);
    }
});
