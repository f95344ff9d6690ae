//! What the command line's tests share: a scratch folder, `anywoli serve` as a process, and a
//! one-request HTTP client for its API.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// An empty folder of this test run's own, `NAME-PID` under Cargo's test scratch space.
pub fn scratch(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Starts the binary in `dir` and returns it with the first line it writes on stderr.
pub fn spawn<S: AsRef<OsStr>>(args: &[S], dir: &Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_anywoli"))
        .args(args)
        .current_dir(dir)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    err.read_line(&mut line).unwrap();
    // Keep draining stderr so that the server never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    (child, line)
}

/// `anywoli serve --port 0 --db DB ARGS…` in the database's folder: the process and the
/// `HOST:PORT` it serves on.
pub fn serve<S: AsRef<OsStr>>(db: &Path, args: &[S]) -> (Child, String) {
    let mut all: Vec<&OsStr> = vec![
        OsStr::new("serve"),
        OsStr::new("--port"),
        OsStr::new("0"),
        OsStr::new("--db"),
        db.as_os_str(),
    ];
    all.extend(args.iter().map(AsRef::as_ref));
    let (child, line) = spawn(&all, db.parent().unwrap());
    (child, address(&line))
}

/// The `HOST:PORT` of the server's first line ("anywoli: serving on http://HOST:PORT …").
pub fn address(line: &str) -> String {
    line.split("http://")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string()
}

/// One request with a JSON body on a connection of its own: (status, JSON answer).
pub fn http(addr: &str, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(rest).unwrap_or(Value::Null))
}
