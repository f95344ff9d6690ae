//! The distributed build's checkpoint files: a rank file and a manifest, read from any bytes,
//! are used or refused, never a panic, never an allocation the bytes do not back; a rank file
//! written from the bytes reads back as it was written, and with any one bit flipped is
//! refused.
#![no_main]

use std::io::Cursor;
use std::path::Path;

use anywoli_engine::endgame::dist::checkpoint::{
    decode_rank, encode_rank, parse_manifest, State, Which,
};
use anywoli_engine::endgame::dist::Slices;
use anywoli_engine::endgame::packed::{Packing, Solved};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((params, rest)) = data.split_first_chunk::<6>() else {
        return;
    };
    // A small layer cut into 1 to 4 slices, 1 to 5 thresholds a position.
    let ranks = 1 + (params[0] % 4) as usize;
    let rank = params[1] as usize % ranks;
    let thresholds = 1 + (params[2] % 5) as usize;
    let slices = Slices::new(1 + params[3] as u64 * 3, ranks);
    let which = Which {
        seeds: 8,
        slices: &slices,
        rank,
        thresholds,
        wave: 3,
    };
    let path = Path::new("fuzz.ckpt");

    // The bytes as a rank file, and as a manifest.
    let _ = decode_rank(rest, rest.len() as u64, path, &which);
    if let Ok(text) = std::str::from_utf8(rest) {
        if let Ok(wave) = parse_manifest(text, 8, ranks) {
            assert!(wave >= 1);
        }
    }

    // A rank file made from the bytes: the slice's cells and a list of its positions.
    let n = slices.len(rank) as usize;
    let cells: Vec<u16> = (0..n * Packing::of(thresholds).cells)
        .map(|i| {
            let b = |j: usize| rest.get(j % rest.len().max(1)).copied().unwrap_or(0);
            u16::from_le_bytes([b(2 * i), b(2 * i + 1)])
        })
        .collect();
    let solved = Solved::from_cells(thresholds, cells).expect("whole words");
    // A slice may be empty (more ranks than positions): then so is its list.
    let list: Vec<u32> = rest
        .iter()
        .filter(|_| n > 0)
        .map(|&b| b as u32 % n as u32)
        .collect();
    let listed = (params[4] & 1 == 1).then_some(&list[..]);
    let state = State {
        wave: 3,
        solved: &solved,
        listed,
        sent: u64::from_le_bytes([params[5]; 8]),
        settled: params[4] as u64,
    };
    let mut file = Cursor::new(Vec::new());
    encode_rank(&mut file, &which, &state).expect("writes to memory");
    let bytes = file.into_inner();
    let back = decode_rank(&bytes[..], bytes.len() as u64, path, &which).expect("reads back");
    assert_eq!(back.solved.cells(), solved.cells());
    assert_eq!(back.listed.as_deref(), listed);
    assert_eq!(
        (back.wave, back.sent, back.settled),
        (3, state.sent, state.settled)
    );

    // Any one bit flipped is refused.
    let at = (params[5] as usize * 7 + rest.len()) % bytes.len();
    let mut bad = bytes.clone();
    bad[at] ^= 1 << (params[4] % 8);
    assert!(
        decode_rank(&bad[..], bad.len() as u64, path, &which).is_err(),
        "a bit flipped at byte {at} of {} was read",
        bad.len()
    );
});
