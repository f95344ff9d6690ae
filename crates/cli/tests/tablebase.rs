//! `anywoli tablebase`, `solve` and `puzzle` as a person or a script uses them: a database
//! built and verified in a temporary folder (about 10 s), solving with and without it, a
//! puzzle solved through a pipe, and one-line errors.

use assert_cmd::Command;

use crate::support;

use support::{run, run_in};

fn anywoli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_anywoli"))
}

fn assert_fails(args: &[&str], needle: &str) {
    support::assert_fails(args, &[needle]);
}

/// South forces the capture in 5 plies with e (its only winning move); h loses.
const WIN_IN_5: &str = "0,0,0,0,1,0,0,3,0,0,0,0/0,0,1,0,0,1,0,0,2,0,0,0 s 44 44 - - 0 0";

#[test]
fn build_verify_and_solve_with_the_database() {
    let dir = std::env::temp_dir().join(format!("anywoli-cli-tb-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let r = run(&["tablebase", "build", "--seeds", "8", "--dir", d]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("7888725 positions, 15.8 MB"),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains("unforced (neither side can force a capture): 0"));
    assert!(r.stdout.contains("longest forced capture: 104 plies"));
    assert!(r
        .stdout
        .contains("longer than the quiet rule's 100 plies: 178"));
    assert!(r.stdout.contains(
        "without a hole of 4 (play never leaves 4 in a hole): 7466565 forced captures, the longest 93 plies, 0 longer than 100"
    ));

    let r = run(&["tablebase", "verify", "--dir", d]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("every entry agrees"), "{}", r.stdout);

    // The distributed build, started without mpirun, is one rank: the same file, byte for
    // byte, having checkpointed the forward pass.
    let one = dir.join("one-rank");
    let ckpt = dir.join("ckpt");
    let (o, k) = (one.to_str().unwrap(), ckpt.to_str().unwrap());
    let r = run(&[
        "tablebase",
        "build",
        "--seeds",
        "8",
        "--dir",
        o,
        "--distributed",
        "--checkpoint",
        k,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("on 1 ranks"), "{}", r.stdout);
    assert!(r.stdout.contains("105 waves, 0.0 MB sent"), "{}", r.stdout);
    assert!(r.stderr.contains("checkpoint of wave 1"), "{}", r.stderr);
    let same = std::fs::read(one.join("anywoli-8.awtb")).unwrap()
        == std::fs::read(dir.join("anywoli-8.awtb")).unwrap();
    assert!(same, "the distributed build's file differs");
    let r = run(&["tablebase", "verify", "--dir", o]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("every entry agrees"), "{}", r.stdout);
    // Written whole, the build deleted its checkpoints.
    assert_eq!(std::fs::read_dir(&ckpt).unwrap().count(), 0);

    let r = run(&["solve", "--tablebases", d, "--position", WIN_IN_5]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("database: South forces the next capture in 5 plies, within the 100 plies"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("result: South wins 52-44"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("winning moves: e\n"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("every move (seeds won from here, net): e +8, h -8"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("line: e C f D g"), "{}", r.stdout);

    // With 4 quiet plies left the forced capture comes too late: the database says so and
    // the exact search decides (h then keeps the row split).
    let late = WIN_IN_5.replace(" 0 0", " 96 96");
    let r = run(&["solve", "--tablebases", d, "--position", &late]);
    assert!(
        r.stdout.contains("the capture does not count"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("result: "), "{}", r.stdout);

    // The engine finds the databases through ANYWOLI_TABLEBASES as well.
    let out = anywoli()
        .args(["solve", "--position", WIN_IN_5])
        .env("ANYWOLI_TABLEBASES", d)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("database: South forces"));

    // The compact file: made, compared with the .awtb entry by entry, then used alone.
    let r = run(&["tablebase", "compact", "--dir", d]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("anywoli-8.awtbz in "), "{}", r.stdout);
    let r = run(&["tablebase", "compare", "--dir", d, "--samples", "20000"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("all 7888725 entries agree"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("probed 20000 random positions through each, all agree"),
        "{}",
        r.stdout
    );
    let plain = dir.join("anywoli-8.awtb");
    let aside = dir.join("aside.awtb");
    std::fs::rename(&plain, &aside).unwrap();
    let r = run(&["solve", "--tablebases", d, "--position", WIN_IN_5]);
    assert!(r.stdout.contains("line: e C f D g"), "{}", r.stdout);
    let r = run(&["tablebase", "verify", "--dir", d]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("every entry agrees"), "{}", r.stdout);

    let compact = dir.join("anywoli-8.awtbz");
    let mut bytes = std::fs::read(&compact).unwrap();
    bytes[70] ^= 0xff;
    std::fs::write(&compact, &bytes).unwrap();
    assert_fails(
        &["solve", "--tablebases", d, "--position", WIN_IN_5],
        "checksum mismatch in its header or index",
    );
    std::fs::remove_file(&compact).unwrap();
    std::fs::rename(&aside, &plain).unwrap();

    // A damaged file is refused with one line.
    let path = dir.join("anywoli-8.awtb");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[40] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    assert_fails(&["tablebase", "verify", "--dir", d], "checksum");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn solve_without_databases_proves_small_endings_or_says_it_cannot() {
    let r = run(&[
        "solve",
        "--tablebases",
        "/nonexistent-anywoli",
        "--position",
        WIN_IN_5,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("databases: none found"), "{}", r.stdout);
    assert!(
        r.stdout.contains("result: South wins 52-44"),
        "{}",
        r.stdout
    );

    let r = run(&[
        "solve",
        "--tablebases",
        "/nonexistent-anywoli",
        "--nodes",
        "1000",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("result: not proven"), "{}", r.stdout);
    assert!(r
        .stdout
        .contains("cannot prove the result within the limit of 1000 nodes"));
}

#[test]
fn errors_are_one_line() {
    assert_fails(
        &[
            "tablebase",
            "build",
            "--seeds",
            "12",
            "--dir",
            "/nonexistent-anywoli",
        ],
        "run `anywoli tablebase build --seeds 8` first",
    );
    assert_fails(
        &["tablebase", "build", "--seeds", "7"],
        "no database of 7 seeds",
    );
    assert_fails(
        &["tablebase", "build", "--checkpoint", "/tmp/x"],
        "--distributed",
    );
    assert_fails(
        &[
            "tablebase",
            "build",
            "--seeds",
            "16",
            "--distributed",
            "--dir",
            "/nonexistent-anywoli",
        ],
        "the 16-seed layer needs at least 9 ranks",
    );
    assert_fails(
        &["tablebase", "build", "--seeds", "16"],
        "build it with --distributed on a cluster",
    );
    assert_fails(
        &["tablebase", "stats", "--seeds", "20"],
        "reads a whole table into memory",
    );
    assert_fails(
        &["tablebase", "verify", "--dir", "/nonexistent-anywoli"],
        "anywoli tablebase build",
    );
    assert_fails(
        &["tablebase", "stats", "--dir", "/nonexistent-anywoli"],
        "no database at",
    );
    assert_fails(&["solve", "--position", "1,2,3"], "position");
    assert_fails(&["solve", "--nodes", "0"], "--nodes");
    assert_fails(&["puzzle", "--id", "100000"], "no puzzle 100000");
    assert_fails(&["puzzle", "--date", "2026-02-40"], "bad date");
}

/// A binary without MPI that mpirun starts as several ranks refuses (each rank would build the
/// whole database and write the same file) and says how to build one with MPI.
#[cfg(not(feature = "mpi"))]
#[test]
fn without_mpi_several_ranks_are_refused() {
    let dir = std::env::temp_dir().join(format!("anywoli-cli-nompi-{}", std::process::id()));
    let out = anywoli()
        .args(support::BUILD8)
        .arg(&dir)
        .env("OMPI_COMM_WORLD_SIZE", "2")
        .output()
        .unwrap();
    // Status 2, as every failing command but `admin` exits.
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--features mpi"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!dir.exists(), "nothing is written");
}

#[test]
fn a_puzzle_solved_through_a_pipe() {
    // Puzzle 1's solution is in the collection; play South's moves of it.
    let text = include_str!("../../engine/puzzles.txt");
    let first = text.lines().find(|l| l.starts_with("1|")).unwrap();
    let line: Vec<&str> = first.rsplit('|').next().unwrap().split(' ').collect();
    let south: Vec<&str> = line
        .iter()
        .copied()
        .filter(|m| m.chars().all(|c| c.is_ascii_lowercase()))
        .collect();
    let input = format!("x\n{}\n", south.join("\n"));
    let r = run_in(&["puzzle", "--id", "1"], &input);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r
        .stdout
        .contains("Puzzle 1 (grade 1 of 5): South to play and force the win"));
    assert!(
        r.stdout.contains("error: "),
        "a bad move gets an error and the question again"
    );
    assert!(
        r.stdout
            .contains("Solved: South takes the last seeds and wins 52-44"),
        "{}",
        r.stdout
    );

    // A wrong first move: the answer names the only winning move.
    let wrong = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]
        .into_iter()
        .find(|m| *m != south[0] && first.split('|').nth(4).is_some());
    let r = run_in(&["puzzle", "--id", "1"], &format!("{}\n", wrong.unwrap()));
    assert!(
        r.stdout
            .contains(&format!("The only winning move was {}", south[0]))
            || r.stdout.contains("error: "),
        "{}",
        r.stdout
    );

    let r = run(&["puzzle", "--list"]);
    assert_eq!(r.stdout.lines().count(), 120);
    let r = run_in(&["puzzle", "--date", "2026-11-30"], "solution\n");
    assert!(r.stdout.contains("solution: "), "{}", r.stdout);
}
