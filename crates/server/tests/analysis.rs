//! The analysis board's engine over a WebSocket (docs/api.md, "Analysis"): the lines of each
//! completed depth for the position asked about, best first, then `done`; a new request or
//! `stop` ends the one running; bad requests are answered with errors and the socket goes on.

use std::time::Duration;

use anywoli_server::{start, Config, Think};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

const START: &str = "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0";

async fn next(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(60), ws.next())
            .await
            .expect("a message in time")
            .expect("the socket is open")
            .unwrap();
        if let Message::Text(t) = m {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// Reads until `done` for `position`: the `info` messages before it, and it.
async fn until_done(ws: &mut Ws, position: &str) -> (Vec<Value>, Value) {
    let mut infos = Vec::new();
    loop {
        let m = next(ws).await;
        match m["type"].as_str() {
            Some("info") if m["position"] == position => infos.push(m),
            Some("done") if m["position"] == position => return (infos, m),
            Some("info" | "done") => {} // of an analysis asked for before
            _ => panic!("unexpected {m}"),
        }
    }
}

#[tokio::test]
async fn lines_stream_in_as_the_engine_deepens() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("analysis-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let server = start(&Config {
        port: 0,
        db: dir.join("games.sqlite"),
        think: Think {
            movetime: Duration::from_millis(200),
            hash_mib: 1,
        },
        ..Config::default()
    })
    .await
    .unwrap();
    let (mut ws, _) =
        tokio_tungstenite::connect_async(format!("ws://{}/api/analysis", server.addr))
            .await
            .unwrap();

    send(
        &mut ws,
        json!({"type": "analyse", "position": START, "multipv": 3, "movetime": 300}),
    )
    .await;
    let (infos, done) = until_done(&mut ws, START).await;
    assert!(!infos.is_empty());
    let mut depth = 0;
    for i in &infos {
        assert!(i["depth"].as_u64().unwrap() > depth, "{i}");
        depth = i["depth"].as_u64().unwrap();
        let lines = i["lines"].as_array().unwrap();
        assert_eq!(lines.len(), 3, "{i}");
        let scores: Vec<i64> = lines.iter().map(|l| l["score"].as_i64().unwrap()).collect();
        assert!(scores[0] >= scores[1] && scores[1] >= scores[2], "{i}");
        let firsts: Vec<&Value> = lines.iter().map(|l| &l["pv"][0]).collect();
        assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    }
    let last = infos.last().unwrap();
    assert_eq!(done["best"], last["lines"][0]["pv"][0], "{done} {last}");
    assert_eq!(done["depth"], last["depth"]);

    // A long analysis stopped early still ends with `done`; a new request replaces the old.
    send(
        &mut ws,
        json!({"type": "analyse", "position": START, "movetime": 30000}),
    )
    .await;
    send(&mut ws, json!({"type": "stop"})).await;
    let (_, done) = until_done(&mut ws, START).await;
    assert!(done["best"].is_string(), "{done}");

    // Bad requests get errors, and the socket goes on.
    for bad in [
        json!({"type": "analyse", "position": "1,2,3"}),
        json!({"type": "analyse", "position": START, "rules": "chess"}),
        json!({"type": "analyse", "position": START, "multipv": 13}),
        json!({"type": "analyse", "position": START, "movetime": 30001}),
        json!({"type": "dance"}),
    ] {
        send(&mut ws, bad.clone()).await;
        let m = next(&mut ws).await;
        assert_eq!(
            (m["type"].as_str(), m["error"].as_str()),
            (Some("error"), Some("malformed")),
            "{bad}: {m}"
        );
    }
    send(&mut ws, json!({"type": "ping"})).await;
    assert_eq!(next(&mut ws).await, json!({"type": "pong"}));
    let _ = ws.close(None).await;
    server.stop().await;
}
