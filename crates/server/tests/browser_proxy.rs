//! The page through docs/hosting/nginx.conf, as written, with TLS, in headless Chromium (issue
//! 36: behind the shipped proxy the lobby and the analysis board did not work). Two browsers
//! meet in the lobby (a seek made in one, accepted in the other), play a move each way, and
//! one opens the analysis board and gets the engine's lines: every WebSocket of the page
//! through nginx, which believes the forwarded client (`--trusted-proxy 127.0.0.1/32`).
//!
//! The nginx file changes only where crates/cli/tests/proxy.rs changes it (certificate paths,
//! listen ports, upstream port, no IPv6 lines); Chromium reaches `anywoli.example.org` at
//! 127.0.0.1 (`--host-resolver-rules`) and accepts the certificate made here. The test is
//! `#[ignore]`d for nginx and openssl as well as Chromium.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use support::*;

const HOST: &str = "anywoli.example.org";
const SITE: &str = include_str!("../../../docs/hosting/nginx.conf");

/// nginx, stopped with SIGTERM when dropped (its master then stops its workers).
struct Nginx(Child);

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
    }
}

fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "nginx.conf holds `{from}` once"
    );
    text.replacen(from, to, 1)
}

/// nginx on the documented site file, HTTPS on a free port in front of `upstream`.
fn start_nginx(dir: &Path, upstream: u16, cert: &Path, key: &Path) -> (Nginx, u16) {
    let nginx = find_in_path("nginx").expect("nginx");
    let d = dir.display();
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    let user = if root { "user root;\n" } else { "" };
    std::fs::write(
        dir.join("nginx.conf"),
        format!(
            "daemon off;\n{user}worker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log info;\n\
             events {{ worker_connections 256; }}\nhttp {{\n access_log {d}/access.log;\n\
             client_body_temp_path {d}/client_body;\n proxy_temp_path {d}/proxy;\n\
             fastcgi_temp_path {d}/fastcgi;\n uwsgi_temp_path {d}/uwsgi;\n scgi_temp_path {d}/scgi;\n\
             include {d}/anywoli.conf;\n}}\n"
        ),
    )
    .unwrap();
    for _attempt in 0..5 {
        let (http, https) = (free_port(), free_port());
        if http == https {
            continue;
        }
        let site: String = SITE
            .lines()
            .filter(|l| !matches!(l.trim(), "listen [::]:80;" | "listen [::]:443 ssl;"))
            .map(|l| format!("{l}\n"))
            .collect();
        let site = replace_once(&site, "listen 80;", &format!("listen 127.0.0.1:{http};"));
        let site = replace_once(
            &site,
            "listen 443 ssl;",
            &format!("listen 127.0.0.1:{https} ssl;"),
        );
        let site = replace_once(
            &site,
            "server 127.0.0.1:8080;",
            &format!("server 127.0.0.1:{upstream};"),
        );
        let site = replace_once(
            &site,
            "/etc/letsencrypt/live/anywoli.example.org/fullchain.pem",
            cert.to_str().unwrap(),
        );
        let site = replace_once(
            &site,
            "/etc/letsencrypt/live/anywoli.example.org/privkey.pem",
            key.to_str().unwrap(),
        );
        std::fs::write(dir.join("anywoli.conf"), site).unwrap();
        let _ = std::fs::remove_file(dir.join("error.log"));
        let mut child = Nginx(
            Command::new(&nginx)
                .arg("-p")
                .arg(dir)
                .arg("-c")
                .arg(dir.join("nginx.conf"))
                .arg("-e")
                .arg(dir.join("error.log"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let deadline = Instant::now() + Duration::from_secs(20);
        let listening = loop {
            if let Some(status) = child.0.try_wait().unwrap() {
                let log = std::fs::read_to_string(dir.join("error.log")).unwrap_or_default();
                if log.contains("Address already in use") {
                    break false;
                }
                panic!("nginx stopped ({status}):\n{log}");
            }
            if std::net::TcpStream::connect(("127.0.0.1", https)).is_ok() {
                break true;
            }
            assert!(Instant::now() < deadline, "nginx did not start listening");
            std::thread::sleep(Duration::from_millis(20));
        };
        if listening {
            return (child, https);
        }
    }
    panic!("no free ports for nginx after 5 tries");
}

/// A self-signed certificate for [`HOST`]: (certificate, key).
fn certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let out = Command::new("openssl")
        .args(["req", "-x509", "-nodes", "-days", "2", "-newkey", "ec"])
        .args(["-pkeyopt", "ec_paramgen_curve:prime256v1", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .args(["-subj", &format!("/CN={HOST}")])
        .args(["-addext", &format!("subjectAltName=DNS:{HOST}")])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (cert, key)
}

/// Says what to install when nginx or openssl is missing (the test is `#[ignore]`d for them).
fn tools() {
    let missing: Vec<&str> = ["nginx", "openssl"]
        .into_iter()
        .filter(|t| find_in_path(t).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "the page through nginx needs {}: apt-get install nginx-light openssl",
        missing.join(", ")
    );
}

async fn through_proxy(driver: &Driver, name: &str) -> Client {
    let rules = format!("--host-resolver-rules=MAP {HOST} 127.0.0.1");
    browser(
        driver,
        name,
        &["--lang=en", &rules, "--ignore-certificate-errors"],
    )
    .await
}

async fn to_lobby(c: &Client, base: &str) {
    c.goto(&format!("{base}/lobby")).await.unwrap();
    wait_for(
        c,
        "document.body.dataset.view === 'lobby' && document.body.dataset.lobby === 'open' && document.querySelector('#seek-form')",
        "the lobby connected through nginx",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium, chromedriver, nginx and openssl"]
async fn the_page_works_through_the_documented_nginx_with_tls() {
    let _slot = support::browser_slot().await;
    let driver = driver();
    tools();
    let dir = scratch("browser-proxy");
    let (cert, key) = certificate(&dir);
    let mut config = support::config(
        "127.0.0.1",
        Some(&format!("https://{HOST}")),
        sqlite_db("browser-proxy"),
    );
    config.trusted_proxies = "127.0.0.1/32".parse().unwrap();
    let server = anywoli_server::start(&config).await.unwrap();
    let (_nginx, https) = start_nginx(&dir, server.addr.port(), &cert, &key);
    let base = format!("https://{HOST}:{https}");

    let a = through_proxy(&driver, "proxy-a").await;
    let b = through_proxy(&driver, "proxy-b").await;
    // The lobby's socket: A seeks, B sees the seek arrive and accepts it.
    to_lobby(&a, &base).await;
    to_lobby(&b, &base).await;
    a.find(Locator::Css("#seek-clock"))
        .await
        .unwrap()
        .select_by_value("5+3")
        .await
        .unwrap();
    click(&a, "#seek-submit").await;
    wait_for(
        &b,
        "document.querySelector('#seeks button[data-action=accept]')",
        "A's seek in B's lobby, through nginx",
    )
    .await;
    click(&b, "#seeks button[data-action=accept]").await;
    // The game's socket: both in the game, and a move each way reaches the other.
    let in_game = "document.body.dataset.view === 'game' && document.body.dataset.status === 'playing' && ['south', 'north'].includes(document.body.dataset.seat)";
    wait_for(&a, in_game, "A's game page").await;
    wait_for(&b, in_game, "B's game page").await;
    for _ in 0..2 {
        let mover = whose_turn(&a, &b).await;
        let before: usize = body_data(mover, "ply").await.parse().unwrap();
        click(mover, ".hole.playable").await;
        let shown = format!(
            "Number(document.body.dataset.ply) > {before} && document.body.dataset.busy === '0'"
        );
        wait_for(&a, &shown, "A seeing the move").await;
        wait_for(&b, &shown, "B seeing the move").await;
    }
    // The analysis board's socket: the engine's lines arrive.
    let start = "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0";
    let url = format!(
        "{base}/analysis?position={}",
        start.replace(' ', "%20").replace('/', "%2F")
    );
    a.goto(&url).await.unwrap();
    wait_for(
        &a,
        "document.querySelectorAll('#engine-lines li').length > 0",
        "the engine's lines on the analysis board, through nginx",
    )
    .await;
    let shots = std::env::var_os("ANYWOLI_SCREENSHOTS").map(PathBuf::from);
    save_screenshot(&a, &shots, "screenshot-analysis-proxy.png").await;
    for c in [a, b] {
        let _ = c.close().await;
    }
    server.stop().await;
    let _ = std::fs::remove_dir_all(dir);
}
