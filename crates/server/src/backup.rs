//! `anywoli backup`: a consistent copy of the games database while the server keeps running.
//!
//! The copy is made with SQLite's online backup API, a few pages at a time. The source
//! connection holds one read transaction for the whole copy, so in WAL mode the copy is the
//! database exactly as it was when the backup started: every move acknowledged before then is
//! in it, and the server goes on writing (a WAL reader blocks no writer) without making the
//! backup start over, however busy it is.
//!
//! The copy is written to a hidden file beside the destination and renamed into place only
//! once it has passed `PRAGMA integrity_check`, so a failed or interrupted backup never leaves
//! a half-written file under the destination's name.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

/// Pages copied per step: 1 MiB with SQLite's default 4 KiB pages.
const PAGES_PER_STEP: i32 = 256;
/// The pause between steps, which leaves the disk to the server's fsyncs.
const PAUSE: Duration = Duration::from_millis(5);
/// How long a busy or locked destination or source is waited for before giving up.
const BUSY_LIMIT: Duration = Duration::from_secs(30);

/// What went wrong; each message names the file concerned and is one line.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("no database at {0}")]
    Missing(PathBuf),
    #[error("{0} already exists (--force overwrites it)")]
    Exists(PathBuf),
    #[error("{dest} is the database {db} itself, or one of its files")]
    SameFile { db: PathBuf, dest: PathBuf },
    #[error("cannot read the database {path}: {source}")]
    Source {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{0} is not an Anywoli games database (it has no games table)")]
    NotAnywoli(PathBuf),
    #[error("cannot write the copy {path}: {source}")]
    Dest {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("cannot write the copy {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("the database stayed locked for {0:?}; try again")]
    Busy(Duration),
    #[error("the copy failed its integrity check: {0}")]
    Integrity(String),
    #[error("the copy holds {copy} games but the database held {original} when the copy began")]
    Count { copy: i64, original: i64 },
}

/// A finished backup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackupReport {
    /// Games in the copy (`SELECT count(*) FROM games`).
    pub games: i64,
    /// Pages copied.
    pub pages: i32,
}

/// Copies the database at `db` to `dest`, checks the copy and returns what it holds.
///
/// `dest` must not exist unless `force` is set. Safe to run while a server uses `db`.
pub fn backup(db: &Path, dest: &Path, force: bool) -> Result<BackupReport, BackupError> {
    // Checked first so that a typo in --db creates nothing: SQLite would make an empty
    // database of a missing file.
    if !db.is_file() {
        return Err(BackupError::Missing(db.to_path_buf()));
    }
    if same_file_or_sidecar(db, dest) {
        return Err(BackupError::SameFile {
            db: db.to_path_buf(),
            dest: dest.to_path_buf(),
        });
    }
    if !force && dest.symlink_metadata().is_ok() {
        return Err(BackupError::Exists(dest.to_path_buf()));
    }
    let src_err = |source| BackupError::Source {
        path: db.to_path_buf(),
        source,
    };
    // Read-write without create: SQLite falls back to read-only on a file it may not write,
    // and may need to write the shared-memory index of a WAL database nobody has open.
    let src = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(src_err)?;
    src.busy_timeout(Duration::from_secs(5)).map_err(src_err)?;
    // The read transaction that pins the snapshot (see the module comment); it begins with
    // the first read, which also tells an Anywoli database from any other.
    src.execute_batch("BEGIN DEFERRED").map_err(src_err)?;
    let source_games = match count_games(&src) {
        Ok(n) => n,
        Err(rusqlite::Error::SqliteFailure(_, Some(msg))) if msg.starts_with("no such table") => {
            return Err(BackupError::NotAnywoli(db.to_path_buf()))
        }
        Err(e) => return Err(src_err(e)),
    };

    let tmp = temp_path(dest);
    let result = copy_into(&src, db, &tmp, dest, source_games);
    // Ends the snapshot; a read transaction has nothing to commit or lose.
    let _ = src.execute_batch("ROLLBACK");
    drop(src);
    let report = match result {
        Ok(report) => report,
        Err(e) => {
            remove_with_sidecars(&tmp);
            return Err(e);
        }
    };
    if let Err(e) = put_in_place(&tmp, dest, force) {
        remove_with_sidecars(&tmp);
        return Err(e);
    }
    Ok(report)
}

fn count_games(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("SELECT count(*) FROM games", [], |r| r.get(0))
}

/// Copies the snapshot `src` holds into a new database at `tmp` and checks it.
fn copy_into(
    src: &Connection,
    db: &Path,
    tmp: &Path,
    dest: &Path,
    source_games: i64,
) -> Result<BackupReport, BackupError> {
    let dest_err = |source| BackupError::Dest {
        path: dest.to_path_buf(),
        source,
    };
    let io_err = |source| BackupError::Io {
        path: dest.to_path_buf(),
        source,
    };
    remove_with_sidecars(tmp);
    // The games hold the seat secrets: the copy is made as private as the database before a
    // byte of it is written. (SQLite treats the empty file as an empty database.)
    std::fs::File::create(tmp).map_err(io_err)?;
    let permissions = std::fs::metadata(db).map_err(io_err)?.permissions();
    std::fs::set_permissions(tmp, permissions).map_err(io_err)?;
    let mut dst = Connection::open(tmp).map_err(dest_err)?;
    let pages = {
        let backup = Backup::new(src, &mut dst).map_err(dest_err)?;
        let mut busy_since: Option<Instant> = None;
        loop {
            match backup.step(PAGES_PER_STEP).map_err(dest_err)? {
                StepResult::Done => break,
                StepResult::More => busy_since = None,
                StepResult::Busy | StepResult::Locked => {
                    let since = *busy_since.get_or_insert_with(Instant::now);
                    if since.elapsed() > BUSY_LIMIT {
                        return Err(BackupError::Busy(BUSY_LIMIT));
                    }
                }
                // StepResult is non-exhaustive; anything new is treated as "not yet".
                _ => {}
            }
            std::thread::sleep(PAUSE);
        }
        backup.progress().pagecount
    };
    // The pages carry the server's WAL setting; a rollback journal makes the copy one
    // self-contained file that opens anywhere, read-only media included. The server turns WAL
    // back on when it opens a restored copy.
    dst.query_row("PRAGMA journal_mode=DELETE", [], |r| r.get::<_, String>(0))
        .map_err(dest_err)?;
    let check: Vec<String> = dst
        .prepare("PRAGMA integrity_check")
        .and_then(|mut st| {
            st.query_map([], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()
        })
        .map_err(dest_err)?;
    if check != ["ok"] {
        let first = check.into_iter().next().unwrap_or_default();
        return Err(BackupError::Integrity(first));
    }
    let games = count_games(&dst).map_err(dest_err)?;
    if games != source_games {
        return Err(BackupError::Count {
            copy: games,
            original: source_games,
        });
    }
    dst.close().map_err(|(_, e)| dest_err(e))?;
    Ok(BackupReport { games, pages })
}

/// Renames the checked copy to `dest`, refusing to replace a file unless `force` is set.
fn put_in_place(tmp: &Path, dest: &Path, force: bool) -> Result<(), BackupError> {
    let io_err = |source| BackupError::Io {
        path: dest.to_path_buf(),
        source,
    };
    sync_file(tmp).map_err(io_err)?;
    if force {
        std::fs::rename(tmp, dest).map_err(io_err)?;
    } else {
        // A hard link fails if `dest` appeared during the copy, where a rename would replace
        // it; the check at the start alone would leave that window open.
        match std::fs::hard_link(tmp, dest) {
            Ok(()) => {
                let _ = std::fs::remove_file(tmp);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(BackupError::Exists(dest.to_path_buf()))
            }
            // Some file systems have no hard links: fall back on the check and a rename.
            Err(_) if dest.symlink_metadata().is_err() => {
                std::fs::rename(tmp, dest).map_err(io_err)?
            }
            Err(_) => return Err(BackupError::Exists(dest.to_path_buf())),
        }
    }
    // The rename itself must reach the disk for the copy to survive a power cut.
    if let Ok(dir) = std::fs::File::open(parent_dir(dest)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

fn sync_file(path: &Path) -> io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)?
        .sync_all()
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The hidden file the copy is built in, beside `dest` so that the final rename stays on one
/// file system.
fn temp_path(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "backup".to_string());
    parent_dir(dest).join(format!(".{name}.partial-{}", std::process::id()))
}

fn remove_with_sidecars(path: &Path) {
    let _ = std::fs::remove_file(path);
    for suffix in ["-journal", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
}

/// Whether `dest` is the database or its `-wal`, `-shm` or `-journal` file: replacing any of
/// them under a running server would lose games.
fn same_file_or_sidecar(db: &Path, dest: &Path) -> bool {
    let Some(db) = canonical(db) else {
        return false;
    };
    let Some(dest) = canonical(dest) else {
        return false;
    };
    if db == dest {
        return true;
    }
    ["-wal", "-shm", "-journal"].iter().any(|suffix| {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        p == dest.as_os_str()
    })
}

/// The absolute path without symbolic links, also for a file that does not exist yet (its
/// folder must).
fn canonical(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let name = path.file_name()?;
    Some(parent_dir(path).canonicalize().ok()?.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("anywoli-backup-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A games database as the server leaves it: open, in WAL mode, with rows not yet
    /// checkpointed. Rows are written in SQL with the first schema's columns only, so that
    /// these tests do not follow every change of `GameRow`.
    fn database(path: &Path, games: usize) -> Store {
        let store = Store::open(path).unwrap();
        let conn = Connection::open(path).unwrap();
        for i in 0..games {
            conn.execute(
                "INSERT INTO games (id, created, updated, mode, rules, seed, start, south, north,
                    status, result) VALUES (?1, 1, 1, 'local', 'anywoli', '0', 'start',
                    'human', 'human', 'playing', '*')",
                [format!("g{i}")],
            )
            .unwrap();
            conn.execute(
                "INSERT INTO moves (game, ply, mv, at) VALUES (?1, 1, 'e', 1)",
                [format!("g{i}")],
            )
            .unwrap();
        }
        store
    }

    #[test]
    fn copies_an_open_database_and_leaves_no_temporary_file() {
        let dir = scratch("copy");
        let db = dir.join("games.sqlite");
        let store = database(&db, 3);
        // A private database gives a private copy, whatever the umask.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let dest = dir.join("copy.sqlite");
        let report = backup(&db, &dest, false).unwrap();
        assert_eq!(report.games, 3);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&dest), 0o600);
        }
        assert!(report.pages > 0);
        let copy = Connection::open(&dest).unwrap();
        let mode: String = copy
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "delete");
        let moves: String = copy
            .query_row("SELECT group_concat(game || mv, ' ') FROM moves", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(moves, "g0e g1e g2e");
        drop(copy);
        // The server opens a restored copy.
        drop(Store::open(&dest).unwrap());
        std::fs::remove_file(dir.join("copy.sqlite-wal")).ok();
        std::fs::remove_file(dir.join("copy.sqlite-shm")).ok();
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "copy.sqlite",
                "games.sqlite",
                "games.sqlite-shm",
                "games.sqlite-wal"
            ]
        );
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn refuses_what_would_lose_data() {
        let dir = scratch("refuse");
        let db = dir.join("games.sqlite");
        let store = database(&db, 1);

        let dest = dir.join("old.sqlite");
        std::fs::write(&dest, "keep me").unwrap();
        assert!(matches!(
            backup(&db, &dest, false),
            Err(BackupError::Exists(_))
        ));
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "keep me");
        assert_eq!(backup(&db, &dest, true).unwrap().games, 1);

        for same in [
            db.clone(),
            dir.join("games.sqlite-wal"),
            dir.join(".").join("games.sqlite"),
        ] {
            assert!(
                matches!(backup(&db, &same, true), Err(BackupError::SameFile { .. })),
                "{same:?}"
            );
        }
        let missing = dir.join("missing.sqlite");
        assert!(matches!(
            backup(&missing, &dir.join("x"), false),
            Err(BackupError::Missing(_))
        ));
        assert!(!missing.exists() && !dir.join("x").exists());

        let other = dir.join("other.sqlite");
        Connection::open(&other)
            .unwrap()
            .execute_batch("CREATE TABLE t(x)")
            .unwrap();
        assert!(matches!(
            backup(&other, &dir.join("y"), false),
            Err(BackupError::NotAnywoli(_))
        ));
        let text = dir.join("text.sqlite");
        std::fs::write(&text, "not a database at all, but long enough to have a header....................................................................").unwrap();
        assert!(matches!(
            backup(&text, &dir.join("z"), false),
            Err(BackupError::Source { .. })
        ));
        assert!(!dir.join("y").exists() && !dir.join("z").exists());
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
