//! What only PostgreSQL does: migrations, URLs, lost connections, instances hearing each
//! other, TLS.

use super::*;

/// Two stores opening one fresh PostgreSQL schema at once: the advisory lock lets one
/// migrate, the other finds the schema made.
#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn postgres_migrations_run_once() {
    let store = Store::test_postgres("postgres_migrations_run_once");
    store.create_game(&game("a"), &[]).unwrap();
    let url = std::env::var("ANYWOLI_TEST_POSTGRES").unwrap();
    // Reopening the same database (its public schema) twice at once, then once more.
    let opened: Vec<StoreResult<Store>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|_| s.spawn(|| Store::open_postgres(&url)))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for s in opened {
        s.unwrap();
    }
    Store::open_postgres(&url).unwrap();
}

#[test]
fn a_postgres_url_is_shown_without_its_password() {
    let label = |s: &str| db_label(Path::new(s));
    assert_eq!(
        label("postgres://me:secret@db.example:5432/games?sslmode=disable"),
        "postgres://me:***@db.example:5432/games?sslmode=disable"
    );
    assert_eq!(
        label("postgresql://me@db/games"),
        "postgresql://me@db/games"
    );
    assert_eq!(label("games.sqlite"), "games.sqlite");
    assert!(is_postgres_url("postgresql://x") && !is_postgres_url("postgres.sqlite"));
}

/// PostgreSQL restarted (here: the store's connections cut): the read that meets the loss is
/// retried on a new connection, the change fails at most once, and the ones after it work.
#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn a_lost_postgres_connection_is_made_again() {
    let store = Store::test_postgres("a_lost_postgres_connection_is_made_again");
    store.create_game(&game("a"), &[]).unwrap();
    let name = store._scratch.as_ref().unwrap().name.clone();
    let url = std::env::var("ANYWOLI_TEST_POSTGRES").unwrap();
    std::thread::spawn(move || {
        let mut c = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
        let cut = c
            .query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE application_name = $1",
                &[&name],
            )
            .unwrap();
        assert_eq!(cut.len(), 1 + pg::READERS, "the writer and the readers");
    })
    .join()
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    for _ in 0..pg::READERS + 1 {
        assert!(store.load("a").unwrap().is_some());
    }
    assert_eq!(store.recent(5).unwrap().len(), 1);
    if append(&store, "a", 1).is_err() {
        append(&store, "a", 1).unwrap();
    }
    append(&store, "a", 2).unwrap();
    assert_eq!(store.load("a").unwrap().unwrap().1, ["m1", "m2"]);
}

/// The announcement of a big batch is split under PostgreSQL's payload limit, and read back
/// whole; a line that is not an announcement is passed over.
#[test]
fn announcements_fit_postgres_payloads() {
    let changes: Vec<Heard> = (0..2_000)
        .map(|i| Heard {
            id: format!("game{i:08}"),
            revision: i,
            mv: (i % 3 != 0).then(|| HeardMove {
                ply: i + 1,
                mv: "e".to_string(),
                at: 1_796_000_000_000 + i,
                engine: (i % 2 == 0).then(|| EngineClaim {
                    owner: "0a1b2c3d4e5f".to_string(),
                    until: 1_796_000_010_000,
                }),
                clock: (i % 5 == 0).then(|| ClockRow {
                    control: "5+3".to_string(),
                    left: [299_000 - i, 300_000],
                    since: (i % 10 == 0).then_some(1_796_000_000_000 + i),
                    deadline: (i % 10 == 0).then_some(1_796_000_300_500 + i),
                }),
            }),
        })
        .collect();
    let lines: Vec<String> = changes.iter().map(Heard::line).collect();
    let payloads = pg::payloads("me", &lines);
    assert!(payloads.len() > 1);
    let mut back = Vec::new();
    for p in &payloads {
        assert!(p.len() <= 8_000, "{}", p.len());
        assert_eq!(pg::heard(p, "me"), None, "its own");
        back.extend(pg::heard(p, "other").unwrap());
    }
    assert_eq!(back, changes);
    assert_eq!(pg::heard("other\ngarbage\ng1 2", "me").unwrap().len(), 1);
}

/// TLS to PostgreSQL as the URL's `sslmode` says, with libpq's meanings: none with `disable`,
/// unchecked with `prefer` and `require`, the chain with `verify-ca`, chain and host name with
/// `verify-full`; a certificate no trusted root signed, or for another name, is refused.
#[test]
#[ignore = "needs PostgreSQL: ANYWOLI_TEST_POSTGRES"]
fn postgres_over_tls_as_sslmode_says() {
    let url = test_postgres_env("postgres_over_tls_as_sslmode_says");
    let plain = pg::tls::Target::parse(&format!("{url}?sslmode=disable")).unwrap();
    let (ssl, cert) = std::thread::spawn(move || {
        let mut c = plain.connect().unwrap();
        let ssl: String = c.query_one("SHOW ssl", &[]).unwrap().get(0);
        let cert: String = c.query_one("SHOW ssl_cert_file", &[]).unwrap().get(0);
        (ssl == "on", cert)
    })
    .join()
    .unwrap();
    assert!(
        ssl && std::fs::File::open(&cert).is_ok(),
        "this test's PostgreSQL must have TLS on with a readable certificate {cert} (Debian's has, with the snakeoil one)"
    );
    let sep = if url.contains('?') { '&' } else { '?' };
    let with = |params: &str| format!("{url}{sep}{params}");
    // Whether the connection uses TLS; Err if it could not be made.
    let tls_of = |url: String| -> Result<bool, String> {
        std::thread::spawn(move || {
            let target = pg::tls::Target::parse(&url).map_err(|e| e.to_string())?;
            let mut c = target.connect().map_err(|e| e.to_string())?;
            let row = c
                .query_one(
                    "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                    &[],
                )
                .map_err(|e| e.to_string())?;
            Ok(row.get(0))
        })
        .join()
        .unwrap()
    };
    assert_eq!(tls_of(with("sslmode=disable")), Ok(false));
    assert_eq!(tls_of(url.clone()), Ok(true), "prefer is the default");
    assert_eq!(tls_of(with("sslmode=require")), Ok(true));
    let root = format!("sslrootcert={cert}");
    assert_eq!(tls_of(with(&format!("sslmode=verify-ca&{root}"))), Ok(true));
    assert_eq!(
        tls_of(with(&format!("sslmode=require&{root}"))),
        Ok(true),
        "require with a root checks the chain"
    );
    // Another root (the first of the system's bundle) did not sign it.
    let bundle = std::fs::read_to_string("/etc/ssl/certs/ca-certificates.crt").unwrap_or_default();
    if let Some(end) = bundle.find("-----END CERTIFICATE-----") {
        let dir = scratch("tls-root");
        let other = dir.join("other.pem");
        std::fs::write(&other, &bundle[..end + 25]).unwrap();
        let refused = tls_of(with(&format!(
            "sslmode=verify-ca&sslrootcert={}",
            other.display()
        )))
        .expect_err("a root that did not sign the certificate");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(refused.contains("certificate"), "{refused}");
    }
    // Debian's certificate names a host (`localhost`, or the machine's name when the package
    // was installed), not the address: refused by address, taken by its name, reached at the
    // same address through `hostaddr`.
    if let (Some(name), true) = (certificate_name(&cert), url.contains("@127.0.0.1:")) {
        let refused = tls_of(with(&format!("sslmode=verify-full&{root}")))
            .expect_err("the certificate is not for 127.0.0.1");
        assert!(refused.contains("certificate"), "{refused}");
        let by_name = url.replacen("@127.0.0.1:", &format!("@{name}:"), 1);
        assert_eq!(
            tls_of(format!(
                "{by_name}{sep}hostaddr=127.0.0.1&sslmode=verify-full&{root}"
            )),
            Ok(true)
        );
    }
    let bad = pg::tls::Target::parse(&with("sslmode=sometimes"))
        .err()
        .unwrap()
        .to_string();
    assert!(bad.contains("sslmode \"sometimes\""), "{bad}");
    // The whole store, over TLS.
    let store = Store::open_postgres(&with("sslmode=require")).unwrap();
    assert!(store.is_shared());
    assert!(store.ids_after("", 1).is_ok());
}

/// The first DNS name of a certificate file, from `openssl` (`None` without it).
fn certificate_name(cert: &str) -> Option<String> {
    let out = std::process::Command::new("openssl")
        .args(["x509", "-noout", "-ext", "subjectAltName", "-in", cert])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let name = text
        .split([',', ' ', '\n'])
        .find_map(|w| w.trim().strip_prefix("DNS:"))?;
    Some(name.to_string())
}
