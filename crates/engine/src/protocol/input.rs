//! Reading one command line, bounded: what the engine's and the match runner's readers share.

use std::io::{self, BufRead};

use super::MAX_LINE;

/// One line read by [`read_line`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A line, without its line break.
    Line(String),
    /// A line longer than [`MAX_LINE`] bytes (its length); it was read to its end and dropped.
    TooLong(usize),
    /// A line that is not UTF-8 text.
    NotUtf8,
}

/// Reads one line (up to `\n`, a trailing `\r` removed) keeping at most [`MAX_LINE`] bytes in
/// `buf`; `None` at the end of the input. A last line without `\n` counts as a line.
pub fn read_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<Input>> {
    buf.clear();
    let mut total = 0usize;
    let mut any = false;
    loop {
        let avail = match r.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            if !any {
                return Ok(None);
            }
            break;
        }
        any = true;
        let (chunk, used, end) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (&avail[..i], i + 1, true),
            None => (avail, avail.len(), false),
        };
        total += chunk.len();
        if total <= MAX_LINE + 1 {
            // One byte beyond the limit is kept, so that a `\r` ending a line of exactly
            // MAX_LINE bytes does not make it too long.
            buf.extend_from_slice(chunk);
        }
        r.consume(used);
        if end {
            break;
        }
    }
    if buf.last() == Some(&b'\r') && total <= MAX_LINE + 1 {
        buf.pop();
        total -= 1;
    }
    if total > MAX_LINE {
        return Ok(Some(Input::TooLong(total)));
    }
    Ok(Some(match std::str::from_utf8(buf) {
        Ok(s) => Input::Line(s.to_string()),
        Err(_) => Input::NotUtf8,
    }))
}
