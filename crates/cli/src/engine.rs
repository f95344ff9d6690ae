//! `anywoli engine`: the line protocol of `docs/protocol.md` on stdin and stdout.

use std::io::Write;
use std::sync::Arc;

use anywoli_engine::protocol::{read_line, Flow, Output, Protocol};

use crate::common::{CmdResult, Failure};

pub fn run() -> CmdResult {
    // Every answer is one whole line, flushed at once: GUIs wait for it. A closed stdout means
    // the other side has gone, so the engine goes too.
    let out: Output = Arc::new(|line: &str| {
        let mut o = std::io::stdout().lock();
        if writeln!(o, "{line}").and_then(|()| o.flush()).is_err() {
            std::process::exit(0);
        }
    });
    let mut proto = Protocol::new(out);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    loop {
        match read_line(&mut input, &mut buf) {
            Ok(Some(line)) => {
                if proto.handle_input(line) == Flow::Quit {
                    return Ok(());
                }
            }
            Ok(None) => {
                proto.finish();
                return Ok(());
            }
            Err(e) => {
                proto.stop();
                return Err(Failure::Input(e));
            }
        }
    }
}
