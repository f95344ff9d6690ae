//! Database files (`.awtb` and `.awtbz`) from any bytes: loaded, mapped or refused, never a
//! panic, never an allocation the file does not back; a table that opens answers every probe
//! of an index it holds (a damaged compact block answers "not a position").
#![no_main]

use anywoli_engine::endgame::{Compact, Table};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir();
    let path = dir.join(format!("anywoli-fuzz-{}.awtb", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Ok(t) = Table::load(&path) {
        assert_eq!(
            t.len() as u64,
            anywoli_engine::endgame::positions(t.seeds())
        );
    }
    if let Ok(t) = Table::map_plain(&path) {
        let n = t.len() as u64;
        for i in [0, n / 2, n - 1] {
            let _ = t.entry_at(i);
        }
    }
    if let Ok(c) = Compact::open(&path, |_| 0xffff) {
        let n = c.len();
        for i in [0, n / 3, n - 1] {
            let _ = c.try_entry_at(i);
        }
    }
    let _ = std::fs::remove_file(&path);
});
