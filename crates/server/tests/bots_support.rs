//! What the tests of programs' API share (`bots.rs`, `bots_lobby.rs` and their PostgreSQL
//! twins): tokens made in the store, requests with a bearer token, NDJSON streams read chunk
//! by chunk, a server with three accounts.

use std::time::Duration;

use anywoli_core::{Move, Position, Rules};
use anywoli_server::account::token::new_token;
use anywoli_server::store::TokenRow;
use anywoli_server::Store;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::chat::socket::{start, Srv};

pub(crate) const PATIENCE: Duration = Duration::from_secs(30);

/// A token of `name` with `scopes`, made in the store.
pub(crate) async fn token(srv: &Srv, name: &str, scopes: &str) -> String {
    let (text, hash) = new_token();
    let row = TokenRow {
        id: anywoli_server::ids::new_id(),
        account: name.to_string(),
        description: "test".to_string(),
        scopes: scopes.to_string(),
        created: 1,
        used: None,
    };
    let minted = srv.db(move |s| s.mint_token(row, hash, 20)).await.unwrap();
    assert_eq!(minted, anywoli_server::store::Minted::New);
    text
}

/// A request with `Authorization: Bearer TOKEN` and a form body (or none): status and JSON.
pub(crate) async fn bearer(
    srv: &Srv,
    token: &str,
    method: &str,
    path: &str,
    form: &str,
) -> (u16, Value) {
    let mut s = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
         Connection: close\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: {}\r\n\r\n{form}",
        srv.addr,
        form.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let mut buf = String::new();
    s.read_to_string(&mut buf).await.unwrap();
    let (head, body) = buf.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// An open NDJSON stream, read chunk by chunk.
pub(crate) struct Stream {
    r: BufReader<tokio::net::TcpStream>,
    pending: String,
}

impl Stream {
    /// Opens `path` with `token`: the stream, or the refusal's status and body.
    pub(crate) async fn open(srv: &Srv, token: &str, path: &str) -> Result<Stream, (u16, Value)> {
        Stream::open_with(srv, token, "GET", path, "").await
    }

    /// Opens `path` by `method` with a form.
    pub(crate) async fn open_with(
        srv: &Srv,
        token: &str,
        method: &str,
        path: &str,
        form: &str,
    ) -> Result<Stream, (u16, Value)> {
        let mut s = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
            srv.addr,
            form.len()
        );
        s.write_all(head.as_bytes()).await.unwrap();
        let mut r = BufReader::new(s);
        let mut status_line = String::new();
        r.read_line(&mut status_line).await.unwrap();
        let status: u16 = status_line.split(' ').nth(1).unwrap().parse().unwrap();
        let mut length = None;
        loop {
            let mut line = String::new();
            r.read_line(&mut line).await.unwrap();
            if line == "\r\n" {
                break;
            }
            let lower = line.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse::<usize>().ok();
            }
            if status == 200 && lower.starts_with("content-type:") {
                assert!(lower.contains("application/x-ndjson"), "{line}");
            }
        }
        if status != 200 {
            let mut body = vec![0; length.unwrap_or(0)];
            r.read_exact(&mut body).await.unwrap();
            return Err((status, serde_json::from_slice(&body).unwrap_or(Value::Null)));
        }
        Ok(Stream {
            r,
            pending: String::new(),
        })
    }

    /// The next line (an empty one is a keep-alive), or `None` once the stream ended.
    pub(crate) async fn line(&mut self) -> Option<String> {
        loop {
            if let Some(i) = self.pending.find('\n') {
                let line = self.pending[..i].to_string();
                self.pending.drain(..=i);
                return Some(line);
            }
            let mut size = String::new();
            let n = tokio::time::timeout(PATIENCE, self.r.read_line(&mut size))
                .await
                .expect("a chunk in time")
                .unwrap();
            let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 || size == 0 {
                return None;
            }
            let mut chunk = vec![0; size + 2];
            self.r.read_exact(&mut chunk).await.unwrap();
            self.pending
                .push_str(std::str::from_utf8(&chunk[..size]).unwrap());
        }
    }

    /// The next object, past keep-alive lines.
    pub(crate) async fn next(&mut self) -> Value {
        loop {
            let line = self.line().await.expect("the stream is open");
            if !line.is_empty() {
                return serde_json::from_str(&line).unwrap();
            }
        }
    }

    /// The next object of type `kind`, past others.
    pub(crate) async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            let v = self.next().await;
            if v["type"] == kind {
                return v;
            }
        }
    }
}

/// A server on `store` with the accounts Robo, Ana and Okello.
pub(crate) async fn server_on(store: Store) -> Srv {
    let srv = start(store).await;
    for name in ["Robo", "Ana", "Okello"] {
        srv.account(name).await;
    }
    srv
}

/// The position after `moves` (space-separated) from the start.
pub(crate) fn position_after(moves: &str) -> Position {
    let mut p = Position::start(Rules::from_name("anywoli", 0).unwrap());
    for m in moves.split_whitespace() {
        p.play(m.parse::<Move>().unwrap()).unwrap();
    }
    p
}
