//! Any UTF-8 text as a position string, under every variant: a position that is read must
//! format and read back as itself, and every one of the 24 moves must be played or refused
//! consistently.

#![no_main]

use anywoli_core::{parse_position, Hole, Move};
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for rules in common::RULES {
        let Ok(p) = parse_position(text, rules) else {
            continue;
        };
        common::check_position(&p);
        for h in Hole::all() {
            common::check_move(&p, Move::new(h), true);
        }
    }
});
