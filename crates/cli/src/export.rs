//! `anywoli export --month YYYY-MM --db DB`: the rated games of a month, a monthly open
//! database (docs/api-bots.md, "Monthly database"): every rated game that ended in the month
//! (UTC), as records (docs/record-format.md), newest first, each followed by an empty line,
//! gzip-compressed, beside a SHA-256 checksum file in `sha256sum`'s format.
//! `anywoli export --check FILE` verifies the checksum and reads every record back.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anywoli_core::Record;
use anywoli_server::dates::days_from_civil;
use anywoli_server::exports::{each_game, Format};
use anywoli_server::store::ExportFilter;
use anywoli_server::Store;
use clap::Args;
use sha2::{Digest, Sha256};

use crate::common::CmdResult;
use crate::error::{ExportError, Failure};

#[derive(Args, Clone)]
pub struct ExportArgs {
    /// The month, as YYYY-MM (UTC).
    #[arg(long, value_name = "YYYY-MM", required_unless_present = "check")]
    month: Option<String>,
    /// The server's store: a SQLite file or a PostgreSQL URL (as `serve --db`).
    #[arg(long, value_name = "PATH|URL", required_unless_present = "check")]
    db: Option<PathBuf>,
    /// The folder the files go to.
    #[arg(long, value_name = "DIR", default_value = ".")]
    out: PathBuf,
    /// Verify a dump instead: its checksum file, and every record in it.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["month", "db"])]
    check: Option<PathBuf>,
}

pub fn run(args: &ExportArgs) -> CmdResult {
    match &args.check {
        Some(file) => check(file).map(|_| ()),
        None => dump(args),
    }
    .map_err(Failure::from)
}

/// The first millisecond of `YYYY-MM` and of the month after.
pub fn month_bounds(month: &str) -> Result<(i64, i64), ExportError> {
    let bad = || ExportError::Month(month.chars().take(20).collect());
    let (y, m) = month.split_once('-').ok_or_else(bad)?;
    let (y, m): (i64, i64) = (y.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
    if !(1970..=9999).contains(&y) || !(1..=12).contains(&m) || month.len() != 7 {
        return Err(bad());
    }
    let next = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    let day = 86_400_000;
    Ok((
        days_from_civil(y, m, 1) * day,
        days_from_civil(next.0, next.1, 1) * day,
    ))
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> ExportError + '_ {
    move |source| ExportError::File {
        path: path.display().to_string(),
        source,
    }
}

fn dump(args: &ExportArgs) -> Result<(), ExportError> {
    let month = args.month.clone().unwrap_or_default();
    let (since, until) = month_bounds(&month)?;
    let db = args.db.clone().unwrap_or_default();
    let store = Store::open_db(&db)?;
    let name = format!("anywoli-rated-{month}.anywoli.gz");
    let path = args.out.join(&name);
    let partial = args.out.join(format!("{name}.partial"));
    let file = std::fs::File::create(&partial).map_err(io(&partial))?;
    let hashing = HashingWriter {
        inner: std::io::BufWriter::new(file),
        hash: Sha256::new(),
        bytes: 0,
    };
    // mtime 0 and no file name in the header: the same games make the same bytes.
    let mut gz = flate2::GzBuilder::new()
        .mtime(0)
        .write(hashing, flate2::Compression::default());
    let filter = ExportFilter {
        since: Some(since),
        until: Some(until),
        rated: Some(true),
        ..ExportFilter::default()
    };
    let mut failed = None;
    let games = each_game(&store, &filter, usize::MAX, |g| {
        match gz.write_all(Format::Record.write(&g).as_bytes()) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    })?;
    if let Some(e) = failed {
        return Err(io(&partial)(e));
    }
    let mut hashing = gz.finish().map_err(io(&partial))?;
    hashing.inner.flush().map_err(io(&partial))?;
    let digest = hex(&hashing.hash.finalize());
    std::fs::rename(&partial, &path).map_err(io(&path))?;
    let sum = args.out.join(format!("{name}.sha256"));
    std::fs::write(&sum, format!("{digest}  {name}\n")).map_err(io(&sum))?;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "{games} rated games of {month}: {} ({} bytes), sha256 {digest}",
        path.display(),
        hashing.bytes
    );
    Ok(())
}

/// A writer that hashes and counts what goes through it.
struct HashingWriter<W: Write> {
    inner: W,
    hash: Sha256,
    bytes: u64,
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Verifies `file` against its `.sha256` and reads every record: the records.
pub fn check(file: &Path) -> Result<Vec<Record>, ExportError> {
    let bytes = std::fs::read(file).map_err(io(file))?;
    let sum_path = PathBuf::from(format!("{}.sha256", file.display()));
    let sum = std::fs::read_to_string(&sum_path).map_err(io(&sum_path))?;
    let expected = sum.split_whitespace().next().unwrap_or("").to_string();
    let actual = hex(&Sha256::digest(&bytes));
    if expected != actual {
        return Err(ExportError::Checksum {
            path: file.display().to_string(),
            expected,
            actual,
        });
    }
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_string(&mut text)
        .map_err(io(file))?;
    let records = split_records(&text)
        .iter()
        .enumerate()
        .map(|(i, r)| {
            Record::parse(r).map_err(|e| ExportError::Record {
                path: file.display().to_string(),
                number: i + 1,
                message: e.to_string(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let _ = writeln!(
        std::io::stderr().lock(),
        "{}: checksum right, {} records read",
        file.display(),
        records.len()
    );
    Ok(records)
}

/// The records of a dump's text: each begins at a tag line that follows moves.
pub fn split_records(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut moves_seen = false;
    for line in text.lines() {
        let tag = line.starts_with('[');
        if tag && moves_seen {
            out.push(std::mem::take(&mut current));
            moves_seen = false;
        }
        if !tag && !line.trim().is_empty() {
            moves_seen = true;
        }
        current.push_str(line);
        current.push('\n');
    }
    if !current.trim().is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_are_their_first_and_last_milliseconds() {
        let (a, b) = month_bounds("2026-12").unwrap();
        assert_eq!(anywoli_server::dates::record_date(a), "2026.12.01");
        assert_eq!(anywoli_server::dates::record_date(b), "2027.01.01");
        assert_eq!(anywoli_server::dates::record_date(b - 1), "2026.12.31");
        let (a, b) = month_bounds("2024-02").unwrap();
        assert_eq!((b - a) / 86_400_000, 29);
        for bad in ["2026-13", "2026-1", "26-01", "2026/01", "", "1969-12"] {
            assert!(month_bounds(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn records_split_where_the_next_one_begins() {
        let text = "[A \"1\"]\n[B \"2\"]\n\ne F 1-0\n\n[A \"3\"]\n\na *\n\n";
        let r = split_records(text);
        assert_eq!(r.len(), 2, "{r:?}");
        assert!(r[0].starts_with("[A \"1\"]") && r[0].contains("e F 1-0"));
        assert!(r[1].starts_with("[A \"3\"]") && r[1].contains("a *"));
        assert!(split_records("").is_empty());
    }
}
