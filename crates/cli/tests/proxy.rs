//! docs/hosting/nginx.conf, as written, in front of `anywoli serve`: the page, the API, a large
//! import, the WebSocket of a game and the redirect from plain HTTP, all through nginx over
//! TLS on 127.0.0.1.
//!
//! Only the file's placeholders change: the certificate paths (a self-signed certificate made
//! here with `openssl`), the listen ports (free ones on 127.0.0.1; the `[::]` lines go, since a
//! test machine may have no IPv6) and the upstream port. The file is included in a minimal
//! main configuration that keeps nginx's pid, logs and temporary files in a scratch folder,
//! so nginx runs as any user.
//!
//! HTTP goes through `curl`; the WebSocket through `openssl s_client`, which carries the bytes
//! of tungstenite's client over TLS. Both check the certificate against the one made here.
//! The tests are `#[ignore]`d for nginx, openssl and curl (.ci/run installs them).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support;

const HOST: &str = "anywoli.example.org";
const SITE: &str = include_str!("../../../docs/hosting/nginx.conf");
const INSTANCES: &str = include_str!("../../../docs/hosting/nginx-instances.conf");

fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    // nginx lives in /usr/sbin, which is not on every user's PATH.
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("proxy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A child process that is stopped when the test ends, passed or failed.
struct Running {
    child: Child,
    /// Signalled first, so that nginx's master stops its workers too (SIGKILL would orphan
    /// them, still holding the ports).
    signal: Option<&'static str>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(sig) = self.signal {
            let _ = Command::new("kill")
                .args([sig, &self.child.id().to_string()])
                .status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `anywoli serve` as the guide runs it behind nginx, on a free port, with its games in `db`.
fn start_anywoli(db: &std::ffi::OsStr, dir: &Path) -> (Running, u16) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_anywoli"))
        .current_dir(dir)
        .args(["serve", "--addr", "127.0.0.1", "--port", "0", "--db"])
        .arg(db)
        .args(["--public-url", &format!("https://{HOST}")])
        .args(["--trusted-proxy", "127.0.0.1/32"])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    let port = line
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    (
        Running {
            child,
            signal: None,
        },
        port,
    )
}

/// A port nobody listens on now; nginx may still lose it to someone else, hence the retries
/// in [`start_nginx`].
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Replaces `from`, which must occur exactly once: a placeholder that moved or vanished from
/// the documented file must fail the test, not leave the file's own value in place.
fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "docs/hosting/nginx.conf should hold `{from}` exactly once"
    );
    text.replacen(from, to, 1)
}

/// docs/hosting/nginx.conf's upstream block, for one instance on `ports[0]`, or replaced by
/// docs/hosting/nginx-instances.conf's for two.
fn upstream_config(site: &str, ports: &[u16]) -> String {
    match ports {
        [one] => replace_once(
            site,
            "server 127.0.0.1:8080;",
            &format!("server 127.0.0.1:{one};"),
        ),
        [first, second] => {
            let block = |text: &str| -> (usize, usize) {
                let start = text.find("upstream anywoli {").expect("an upstream block");
                let end = start + text[start..].find("\n}\n").expect("its end") + 3;
                (start, end)
            };
            let (s, e) = block(INSTANCES);
            let ours = replace_once(
                &INSTANCES[s..e],
                "127.0.0.1:8080",
                &format!("127.0.0.1:{first}"),
            );
            let ours = replace_once(&ours, "127.0.0.1:8081", &format!("127.0.0.1:{second}"));
            let (s, e) = block(site);
            format!("{}{ours}{}", &site[..s], &site[e..])
        }
        _ => panic!("one or two instances"),
    }
}

/// docs/hosting/nginx.conf with its placeholders filled in for this machine.
fn site_config(ports: &Ports, cert: &Path, key: &Path) -> String {
    let mut text = String::new();
    let mut ipv6 = 0;
    for line in SITE.lines() {
        if matches!(line.trim(), "listen [::]:80;" | "listen [::]:443 ssl;") {
            ipv6 += 1;
            continue;
        }
        text.push_str(line);
        text.push('\n');
    }
    assert_eq!(ipv6, 2, "the two IPv6 listen lines");
    let text = replace_once(
        &text,
        "listen 80;",
        &format!("listen 127.0.0.1:{};", ports.http),
    );
    let text = replace_once(
        &text,
        "listen 443 ssl;",
        &format!("listen 127.0.0.1:{} ssl;", ports.https),
    );
    let text = upstream_config(&text, &ports.upstream);
    let text = replace_once(
        &text,
        "/etc/letsencrypt/live/anywoli.example.org/fullchain.pem",
        cert.to_str().unwrap(),
    );
    let text = replace_once(
        &text,
        "/etc/letsencrypt/live/anywoli.example.org/privkey.pem",
        key.to_str().unwrap(),
    );
    assert!(
        text.lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .all(|l| !l.contains("/etc/")),
        "a path the test did not replace"
    );
    text
}

struct Ports {
    http: u16,
    https: u16,
    upstream: Vec<u16>,
}

/// Runs nginx on the site configuration in `dir`, in the foreground, as whoever runs the test.
fn start_nginx(
    nginx: &Path,
    dir: &Path,
    upstream: &[u16],
    cert: &Path,
    key: &Path,
) -> (Running, Ports) {
    let d = dir.display();
    // Started as root, nginx runs its workers as `nobody`, who may not reach the scratch
    // folder (a checkout under /root): they would fail to buffer the large import there.
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    let user = if root { "user root;\n" } else { "" };
    let main = format!(
        "daemon off;
{user}worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log info;
events {{ worker_connections 64; }}
http {{
    access_log {d}/access.log;
    client_body_temp_path {d}/client_body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    include {d}/anywoli.conf;
}}
"
    );
    std::fs::write(dir.join("nginx.conf"), main).unwrap();
    for _attempt in 0..5 {
        let ports = Ports {
            http: free_port(),
            https: free_port(),
            upstream: upstream.to_vec(),
        };
        if ports.http == ports.https {
            continue;
        }
        std::fs::write(dir.join("anywoli.conf"), site_config(&ports, cert, key)).unwrap();
        let _ = std::fs::remove_file(dir.join("error.log"));
        let child = Command::new(nginx)
            .arg("-p")
            .arg(dir)
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            // The log for what goes wrong before the configuration is read.
            .arg("-e")
            .arg(dir.join("error.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut nginx = Running {
            child,
            signal: Some("-TERM"),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = nginx.child.try_wait().unwrap() {
                let log = std::fs::read_to_string(dir.join("error.log")).unwrap_or_default();
                if log.contains("Address already in use") {
                    break;
                }
                panic!("nginx stopped ({status}):\n{log}");
            }
            let up = |p| TcpStream::connect(("127.0.0.1", p)).is_ok();
            if up(ports.http) && up(ports.https) {
                return (nginx, ports);
            }
            assert!(Instant::now() < deadline, "nginx did not start listening");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    panic!("no free ports for nginx after 5 tries");
}

/// An answer through the proxy: status, headers (lower-cased names) and body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:.300}", self.body))
    }
}

/// `curl` to `https://anywoli.example.org:PORT/...` (or `http://`), resolved to 127.0.0.1 and
/// checked against the test's certificate.
fn curl(ca: &Path, port: u16, url: &str, post: Option<&[u8]>) -> Answer {
    curl_with(ca, port, url, post, &[])
}

/// [`curl`] with more request headers (a session's cookie and CSRF token).
fn curl_with(ca: &Path, port: u16, url: &str, post: Option<&[u8]>, headers: &[String]) -> Answer {
    let mut cmd = Command::new("curl");
    cmd.args(["-sS", "-i", "--max-time", "30", "--cacert"])
        .arg(ca)
        .args(["--resolve", &format!("{HOST}:{port}:127.0.0.1")]);
    for h in headers {
        cmd.args(["-H", h]);
    }
    if post.is_some() {
        // No `Expect: 100-continue` for large bodies: one answer per request.
        cmd.args([
            "-X",
            "POST",
            "-H",
            "Content-Type: application/json",
            "-H",
            "Expect:",
        ])
        .args(["--data-binary", "@-"]);
    }
    let out = support::output_with_input(cmd.arg(url), post.unwrap_or_default());
    assert!(
        out.status.success(),
        "curl {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

/// `openssl s_client`'s standard input and output: a TLS connection as a byte stream.
struct Tunnel {
    from: ChildStdout,
    to: ChildStdin,
}

impl Read for Tunnel {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.from.read(buf)
    }
}

impl Write for Tunnel {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.to.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.to.flush()
    }
}

/// A WebSocket to `path` through nginx over TLS (`openssl s_client` carrying
/// tungstenite's bytes). A pipe has no read timeout: a watchdog kills the tunnel after 60 s,
/// which fails a read that hangs.
struct Watch {
    ws: tungstenite::WebSocket<Tunnel>,
    tls: Running,
    done: Option<mpsc::Sender<()>>,
}

impl Watch {
    fn open(port: u16, cert: &Path, path: &str) -> Watch {
        assert!(path.starts_with('/'), "a path, not a game id: {path}");
        let mut tls = Command::new("openssl")
            .args(["s_client", "-connect", &format!("127.0.0.1:{port}")])
            .args(["-servername", HOST, "-verify_hostname", HOST, "-CAfile"])
            .arg(cert)
            // -nocommands: a WebSocket frame may start a line with the letter of a command.
            .args(["-verify_return_error", "-quiet", "-nocommands"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let tunnel = Tunnel {
            from: tls.stdout.take().unwrap(),
            to: tls.stdin.take().unwrap(),
        };
        let tls = Running {
            child: tls,
            signal: None,
        };
        let (done, watch) = mpsc::channel::<()>();
        let pid = tls.child.id().to_string();
        std::thread::spawn(move || {
            if watch.recv_timeout(Duration::from_secs(60)) == Err(mpsc::RecvTimeoutError::Timeout) {
                let _ = Command::new("kill").args(["-KILL", &pid]).status();
            }
        });
        let (ws, answer) = tungstenite::client(format!("wss://{HOST}{path}"), tunnel)
            .expect("the WebSocket handshake through nginx");
        assert_eq!(answer.status().as_u16(), 101);
        Watch {
            ws,
            tls,
            done: Some(done),
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // The tunnel goes first (its Running is dropped after this), then the watchdog ends.
        let _ = self.tls.child.kill();
        let _ = self.tls.child.wait();
        if let Some(done) = self.done.take() {
            let _ = done.send(());
        }
    }
}

fn next_json(ws: &mut tungstenite::WebSocket<Tunnel>) -> Value {
    loop {
        match ws.read().expect("a WebSocket message through the proxy") {
            tungstenite::Message::Text(t) => return serde_json::from_str(t.as_str()).unwrap(),
            tungstenite::Message::Ping(_) | tungstenite::Message::Pong(_) => continue,
            other => panic!("unexpected WebSocket message {other:?}"),
        }
    }
}

/// nginx's path; a failure that says what to install when nginx, openssl or curl is missing
/// (the tests that call it are `#[ignore]`d for them).
fn tools() -> PathBuf {
    let missing: Vec<&str> = ["nginx", "openssl", "curl"]
        .into_iter()
        .filter(|t| find_in_path(t).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "the reverse-proxy tests need {}: apt-get install nginx-light openssl curl",
        missing.join(", ")
    );
    find_in_path("nginx").unwrap()
}

/// A self-signed certificate for [`HOST`] in `dir`: (certificate, key).
fn certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    run(Command::new("openssl")
        .args(["req", "-x509", "-nodes", "-days", "2", "-newkey", "ec"])
        .args(["-pkeyopt", "ec_paramgen_curve:prime256v1", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .args(["-subj", &format!("/CN={HOST}")])
        .args(["-addext", &format!("subjectAltName=DNS:{HOST}")]));
    (cert, key)
}

#[test]
#[ignore = "needs nginx, openssl and curl"]
fn the_documented_nginx_configuration_serves_the_app_over_tls() {
    let nginx = tools();
    let dir = scratch("tls");
    let (cert, key) = certificate(&dir);

    let (anywoli, upstream) = start_anywoli(dir.join("games.sqlite").as_os_str(), &dir);
    let (nginx, ports) = start_nginx(&nginx, &dir, &[upstream], &cert, &key);
    let base = format!("https://{HOST}:{}", ports.https);
    let get = |path: &str| curl(&cert, ports.https, &format!("{base}{path}"), None);
    let post =
        |path: &str, body: &[u8]| curl(&cert, ports.https, &format!("{base}{path}"), Some(body));

    // The page.
    let page = get("/");
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert!(
        page.body.starts_with("<!doctype html>"),
        "{:.200}",
        page.body
    );
    assert!(page.body.contains("<title>Anywoli</title>"));
    assert_eq!(
        page.header("strict-transport-security"),
        Some("max-age=31536000")
    );
    // The app knows the address people use (--public-url), whatever nginx's upstream is.
    let site = get("/api/site");
    assert_eq!(site.status, 200, "{}", site.body);
    assert_eq!(site.json()["public_url"], json!(format!("https://{HOST}")));

    // A game and a move.
    let created = post("/api/games", br#"{"mode":"local"}"#);
    assert_eq!(created.status, 201, "{}", created.body);
    let created = created.json();
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let secret = created["secret"].as_str().unwrap().to_string();
    let moved = post(
        &format!("/api/games/{id}/moves"),
        json!({"move": "e", "secret": secret, "ply": 0})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(moved.status, 200, "{}", moved.body);
    assert_eq!(moved.json()["game"]["moves"], json!(["e"]));

    // An import over nginx's default 1 MiB: a record of 0.8 MB whose backslashes double in
    // JSON, 1.6 MB in all. nginx's own refusal would be an HTML 413.
    let record = format!("[Event \"{}\"]\n\ne *\n", "\\\\".repeat(400_000));
    let body = json!({ "record": record }).to_string();
    assert!(body.len() > 1_500_000);
    let imported = post("/api/import", body.as_bytes());
    assert_eq!(imported.status, 201, "{:.300}", imported.body);
    assert_eq!(imported.json()["game"]["moves"], json!(["e"]));

    // The game's events over a WebSocket through the proxy.
    let mut watch = Watch::open(ports.https, &cert, &format!("/api/games/{id}/events"));
    let ws = &mut watch.ws;
    let first = next_json(ws);
    assert_eq!(first["type"], "state", "{first}");
    assert_eq!(first["game"]["id"], json!(id));
    assert_eq!(first["game"]["moves"], json!(["e"]));
    // A move made over HTTP arrives as an event...
    let reply = first["game"]["legal"][0].as_str().unwrap().to_string();
    let moved = post(
        &format!("/api/games/{id}/moves"),
        json!({"move": reply, "secret": secret, "ply": 1})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(moved.status, 200, "{}", moved.body);
    let event = next_json(ws);
    assert_eq!(event["type"], "move", "{event}");
    assert_eq!(event["game"]["moves"], json!(["e", reply]));
    // ... and the client's messages reach the server.
    ws.send(tungstenite::Message::text(r#"{"type":"ping"}"#))
        .unwrap();
    assert_eq!(next_json(ws), json!({"type": "pong"}));
    let _ = ws.close(None);
    drop(watch);

    // Every other WebSocket of the app, each through the long-timeout location (issue 36:
    // the lobby and the analysis board failed through the proxy).
    assert_eq!(
        nginx_socket_routes(),
        anywoli_server::WEBSOCKET_ROUTES
            .iter()
            .map(|r| r.to_string())
            .collect::<std::collections::BTreeSet<_>>(),
        "nginx.conf's WebSocket location lists every WebSocket route of the app"
    );
    every_socket_through(ports.https, &cert, &id);

    // Plain HTTP sends everything to HTTPS, path and query kept.
    let url = format!("http://{HOST}:{}/g/{id}?x=1", ports.http);
    let redirect = curl(&cert, ports.http, &url, None);
    assert_eq!(redirect.status, 301);
    assert_eq!(
        redirect.header("location"),
        Some(format!("https://{HOST}/g/{id}?x=1").as_str())
    );
    let redirect = curl(&cert, ports.http, &url, Some(b"{}"));
    assert_eq!(
        redirect.status, 301,
        "nothing reaches the app over plain HTTP"
    );

    drop(nginx);
    drop(anywoli);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A new account's tournament, made through the proxy: its id.
fn tournament_through(https: u16, cert: &Path) -> String {
    let base = format!("https://{HOST}:{https}");
    let name = format!("org{}", std::process::id() % 100_000);
    let signup = curl(
        cert,
        https,
        &format!("{base}/api/account/signup"),
        Some(
            json!({"name": name, "password": "a long enough password"})
                .to_string()
                .as_bytes(),
        ),
    );
    let signup = if signup.status == 409 {
        curl(
            cert,
            https,
            &format!("{base}/api/account/login"),
            Some(
                json!({"name": name, "password": "a long enough password"})
                    .to_string()
                    .as_bytes(),
            ),
        )
    } else {
        signup
    };
    assert!(signup.status < 300, "{}", signup.body);
    let cookie = signup
        .header("set-cookie")
        .and_then(|c| c.split(';').next())
        .expect("a session cookie")
        .to_string();
    let csrf = signup.json()["account"]["csrf"]
        .as_str()
        .unwrap()
        .to_string();
    let tomorrow = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
        + 86_400_000;
    let made = curl_with(
        cert,
        https,
        &format!("{base}/api/tournaments"),
        Some(
            json!({"name": "Proxy arena", "system": "arena", "clock": "3+2", "minutes": 20,
                   "starts_at": tomorrow})
            .to_string()
            .as_bytes(),
        ),
        &[format!("Cookie: {cookie}"), format!("X-CSRF-Token: {csrf}")],
    );
    assert_eq!(made.status, 201, "{}", made.body);
    made.json()["tournament"]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Opens every WebSocket route of the app through the proxy on `https` and checks that each
/// answers as it should (a game's state, a seek, an analysis line, a tournament's version) and
/// keeps its connection.
fn every_socket_through(https: u16, cert: &Path, id: &str) {
    let tournament = tournament_through(https, cert);
    for route in anywoli_server::WEBSOCKET_ROUTES {
        let path = if route.starts_with("/api/tournaments/") {
            route.replace("{id}", &tournament)
        } else {
            route.replace("{id}", id)
        };
        let mut watch = Watch::open(https, cert, &path);
        let ws = &mut watch.ws;
        match route {
            "/api/games/{id}/events" => assert_eq!(next_json(ws)["type"], "state"),
            "/api/lobby" => {
                let hello = next_json(ws);
                assert_eq!(hello["type"], "lobby", "{hello}");
                ws.send(tungstenite::Message::text(
                    r#"{"type":"seek","clock":"5+3","rules":"anywoli"}"#,
                ))
                .unwrap();
                let seeking = next_json(ws);
                assert_eq!(seeking["type"], "seeking", "{seeking}");
            }
            "/api/analysis" => {
                ws.send(tungstenite::Message::text(
                    json!({"type": "analyse", "position": START, "movetime": 200}).to_string(),
                ))
                .unwrap();
                let info = next_json(ws);
                assert_eq!(info["type"], "info", "{info}");
            }
            "/api/tv/events" => assert_eq!(next_json(ws)["type"], "tv"),
            "/api/tournaments/{id}/events" => assert_eq!(next_json(ws)["type"], "changed"),
            other => panic!("a WebSocket route this test does not know: {other}"),
        }
        ws.send(tungstenite::Message::text(r#"{"type":"ping"}"#))
            .unwrap();
        loop {
            let m = next_json(ws);
            if m["type"] == "pong" {
                break;
            }
        }
        let _ = ws.close(None);
    }
}

const START: &str = "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0";

/// The routes nginx.conf's WebSocket location matches, written as the app's routes are.
fn nginx_socket_routes() -> std::collections::BTreeSet<String> {
    let line = SITE
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("location ~ ^/api/("))
        .expect("a WebSocket location in nginx.conf");
    let inner = line
        .strip_prefix("location ~ ^/api/(")
        .and_then(|l| l.strip_suffix(")$ {"))
        .unwrap_or_else(|| panic!("the WebSocket location reads: {line}"));
    inner
        .split('|')
        .map(|alt| format!("/api/{}", alt.replace("[^/]+", "{id}")))
        .collect()
}

/// An instance's count of moves it stored, from its own `/metrics`.
fn moves_stored(port: u16) -> u64 {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("anywoli_moves_stored_total "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no move count in /metrics: {text:.300}"))
}

/// docs/hosting/nginx-instances.conf in nginx.conf, in front of two instances on one
/// PostgreSQL database. The watcher's WebSocket holds a connection to one instance, so
/// `least_conn` sends the moves to the other: the watcher hears them across instances. Then a
/// `kill -9` of the instance that stored them, and the game goes on through the other, the
/// watcher (reconnecting if it was on the dead one) seeing every move.
#[test]
#[ignore = "needs nginx, openssl, curl and PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn two_instances_behind_the_documented_balancer_outlive_a_kill() {
    let _alone = crate::support::one_failover_at_a_time();
    let nginx = tools();
    let url = anywoli_server::Store::test_postgres_url("two instances behind nginx");
    let dir = scratch("balancer");
    let (cert, key) = certificate(&dir);
    let (a, port_a) = start_anywoli(std::ffi::OsStr::new(&url), &dir);
    let (b, port_b) = start_anywoli(std::ffi::OsStr::new(&url), &dir);
    let mut instances = [Some(a), Some(b)];
    let (nginx, ports) = start_nginx(&nginx, &dir, &[port_a, port_b], &cert, &key);
    let base = format!("https://{HOST}:{}", ports.https);
    let post = |path: &str, body: Value| {
        curl(
            &cert,
            ports.https,
            &format!("{base}{path}"),
            Some(body.to_string().as_bytes()),
        )
    };

    let created = post("/api/games", json!({"mode": "local"}));
    assert_eq!(created.status, 201, "{}", created.body);
    let created = created.json();
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let secret = created["secret"].clone();
    let mut watch = Some(Watch::open(
        ports.https,
        &cert,
        &format!("/api/games/{id}/events"),
    ));
    assert_eq!(next_json(&mut watch.as_mut().unwrap().ws)["type"], "state");

    let mut game = created["game"].clone();
    let mut played: Vec<String> = Vec::new();
    for turn in 0..12 {
        if turn == 6 {
            let (a, b) = (moves_stored(port_a), moves_stored(port_b));
            assert_eq!(a + b, 6, "each move stored once");
            // SIGKILL of the instance that stored the moves: no goodbye to nginx, the
            // database or anyone.
            drop(instances[usize::from(a < b)].take());
        }
        if game["status"] != "playing" {
            break;
        }
        let mv = game["legal"][0].as_str().unwrap().to_string();
        let ply = played.len();
        let moved = post(
            &format!("/api/games/{id}/moves"),
            json!({"move": mv, "secret": secret, "ply": ply}),
        );
        assert_eq!(
            moved.status,
            200,
            "move {} after the kill: {}",
            ply + 1,
            moved.body
        );
        played.push(mv);
        game = moved.json()["game"].clone();
        // The watcher hears the move; if it was on the dead instance, it reconnects through
        // nginx and gets the whole state instead, as the page does.
        let w = watch.as_mut().unwrap();
        let seen = loop {
            match w.ws.read() {
                Ok(tungstenite::Message::Text(t)) => {
                    let ev: Value = serde_json::from_str(t.as_str()).unwrap();
                    if ev["game"]["ply"].as_u64() == Some(played.len() as u64) {
                        break ev;
                    }
                }
                Ok(_) => {}
                Err(_) => {
                    assert!(turn >= 6, "the watcher lost its socket before the kill");
                    watch = Some(Watch::open(
                        ports.https,
                        &cert,
                        &format!("/api/games/{id}/events"),
                    ));
                    let state = next_json(&mut watch.as_mut().unwrap().ws);
                    assert_eq!(state["type"], "state");
                    break state;
                }
            }
        };
        assert_eq!(seen["game"]["moves"], json!(played));
    }
    assert!(played.len() > 6, "the game went on after the kill");
    let got = curl(&cert, ports.https, &format!("{base}/api/games/{id}"), None);
    assert_eq!(
        got.json()["moves"],
        json!(played),
        "every acknowledged move is stored"
    );
    // Every WebSocket route through nginx-instances.conf, with one instance dead (nginx
    // passes the upgrade on to the living one).
    every_socket_through(ports.https, &cert, &id);
    drop(watch);
    drop(nginx);
    drop(instances);
    let _ = std::fs::remove_dir_all(&dir);
}
