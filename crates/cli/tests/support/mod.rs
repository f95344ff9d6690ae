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

/// The distributed 8-seed build's arguments, up to its folder.
pub const BUILD8: [&str; 6] = [
    "tablebase",
    "build",
    "--seeds",
    "8",
    "--distributed",
    "--dir",
];

/// An empty folder of this test run's own, `NAME-PID` under Cargo's test scratch space.
pub fn scratch(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Where [`scratch`] put folder `name` (without emptying it).
pub fn scratch_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()))
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

/// What one run of the binary left: its exit code and both outputs.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `anywoli ARGS…` to its end with `input` on stdin, without `ANYWOLI_TABLEBASES` (a
/// tester's own databases must not change an answer).
pub fn run_in(args: &[&str], input: &str) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_anywoli"));
    cmd.args(args).env_remove("ANYWOLI_TABLEBASES");
    let out = output_with_input(&mut cmd, input.as_bytes());
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// Runs `cmd` to its end with `input` on stdin. The input is written from a thread of its
/// own, so that a program that answers before reading all of it cannot block the test on a
/// full pipe; one that exits without reading it closes the pipe, which is not the test's
/// error (its exit status says what happened).
pub fn output_with_input(cmd: &mut Command, input: &[u8]) -> std::process::Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    out
}

/// Runs `anywoli ARGS…` with nothing on stdin.
pub fn run(args: &[&str]) -> Run {
    run_in(args, "")
}

/// Exit status 2, nothing on stdout, one line on stderr containing every `needles`.
pub fn assert_fails(args: &[&str], needles: &[&str]) {
    let r = run(args);
    assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
    assert_eq!(r.stdout, "", "{args:?} printed on stdout");
    assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {:?}", r.stderr);
    for n in needles {
        assert!(r.stderr.contains(n), "{args:?}: {:?} lacks {n:?}", r.stderr);
    }
}

/// `GET path` on a connection of its own: (status, body as text).
pub fn http_text(addr: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, rest.to_string())
}

/// Held by the tests that kill a server instance and time how the other goes on: one at a
/// time, so that one's load (20 engines, two servers, a load test) does not starve another's
/// instances of the CPU their messages to each other need (two such tests at once made the
/// survivor answer before it had heard the last moves).
pub fn one_failover_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}
