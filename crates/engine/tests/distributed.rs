//! The distributed build (`tablebase build --distributed`) on ranks that are threads of this
//! process: the same file as the single-process build, byte for byte, on 1 to 4 ranks; a build
//! stopped at a wave resumes from its checkpoint into the same file; the index at 16 and 20
//! seeds. The runs on MPI processes are in the CLI's tests and CI.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anywoli_core::XorShift;
use anywoli_engine::endgame::dist::{self, Comm, Event, Local, Options};
use anywoli_engine::endgame::{positions, rank, unrank, EndgameError, Table};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("anywoli-dist-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The file of the single-process 8-seed build.
fn reference(dir: &Path) -> Vec<u8> {
    let path = dir.join("reference.awtb");
    super::tablebase::eight().save(&path).unwrap();
    std::fs::read(path).unwrap()
}

/// Runs the 8-seed build on `ranks` thread ranks; returns each rank's result and rank 0's
/// events.
fn run(
    ranks: usize,
    opts: &Options,
    out: &Path,
) -> (Vec<Result<dist::Summary, EndgameError>>, Vec<Event>) {
    let events = std::sync::Mutex::new(Vec::new());
    let results = std::thread::scope(|s| {
        let hs: Vec<_> = Local::group(ranks)
            .into_iter()
            .map(|comm| {
                let events = &events;
                s.spawn(move || {
                    let say = |e: &Event| {
                        assert_eq!(comm.rank(), 0, "only rank 0 hears events");
                        events.lock().unwrap().push(e.clone());
                    };
                    dist::build(&comm, 8, None, opts, out, &say)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    (results, events.into_inner().unwrap())
}

#[test]
fn the_distributed_build_writes_the_single_process_file_on_1_to_4_ranks() {
    let dir = scratch("ranks");
    let want = reference(&dir);
    let mut sent = Vec::new();
    for ranks in 1..=4 {
        let out = dir.join(format!("on-{ranks}.awtb"));
        let (results, events) = run(ranks, &Options::default(), &out);
        let summaries: Vec<_> = results.into_iter().map(Result::unwrap).collect();
        // Every rank knows the same totals.
        assert!(
            summaries.iter().all(|s| *s == summaries[0]),
            "{summaries:?}"
        );
        let got = std::fs::read(&out).unwrap();
        assert!(got == want, "{ranks} ranks: the file differs");
        // Waves are reported in order, each with the fields settled so far, rising.
        let waves: Vec<(u32, u64)> = events
            .iter()
            .filter_map(|e| match e {
                Event::Wave { wave, settled, .. } => Some((*wave, *settled)),
                _ => None,
            })
            .collect();
        assert_eq!(waves.len() as u32, summaries[0].waves);
        assert!(waves
            .windows(2)
            .all(|w| w[1].0 == w[0].0 + 1 && w[1].1 >= w[0].1));
        assert_eq!(waves.last().unwrap().1, summaries[0].settled);
        sent.push(summaries[0].sent);
        // The table is the 8-seed one: settled fields are its won and lost positions.
        let s = super::tablebase::eight().stats();
        assert_eq!(summaries[0].settled, s.wins + s.losses);
    }
    // One rank sends nothing; more ranks send more (a predecessor's owner is more often
    // another).
    assert_eq!(sent[0], 0);
    assert!(
        sent[1] > 0 && sent[2] > sent[1] && sent[3] > sent[2],
        "{sent:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_stopped_build_resumes_from_its_checkpoint_into_the_same_file() {
    let dir = scratch("resume");
    let want = reference(&dir);
    let ckpt = dir.join("ckpt");
    let out = dir.join("resumed.awtb");
    let every_wave = Options {
        checkpoint: Some(ckpt.clone()),
        checkpoint_every: Duration::ZERO,
        stop_at: Some(9),
    };
    let (results, _) = run(3, &every_wave, &out);
    for r in results {
        assert!(matches!(r, Err(EndgameError::Stopped { wave: 9 })), "{r:?}");
    }
    assert!(!out.exists());
    let manifest = std::fs::read_to_string(ckpt.join("anywoli-8-on-3.ckpt")).unwrap();
    assert!(manifest.contains("wave 9"), "{manifest}");
    // One file a rank: the older waves' were deleted once the manifest named the newer.
    let files = std::fs::read_dir(&ckpt).unwrap().count();
    assert_eq!(files, 4);

    // A damaged checkpoint is refused with the file named, on every rank (tried on a copy).
    let copy = dir.join("damaged");
    std::fs::create_dir_all(&copy).unwrap();
    for e in std::fs::read_dir(&ckpt).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), copy.join(e.file_name())).unwrap();
    }
    let victim = copy.join("anywoli-8-on-3-rank-1-wave-9.ckpt");
    let mut bytes = std::fs::read(&victim).unwrap();
    let at = bytes.len() - 5;
    bytes[at] ^= 0x40;
    std::fs::write(&victim, bytes).unwrap();
    let damaged = Options {
        checkpoint: Some(copy),
        stop_at: None,
        ..every_wave.clone()
    };
    let (results, _) = run(3, &damaged, &dir.join("never.awtb"));
    assert!(
        matches!(&results[0], Err(EndgameError::RankFailed { rank: 1 })),
        "{:?}",
        results[0]
    );
    let msg = results[1].as_ref().unwrap_err().to_string();
    assert!(msg.contains("checksum") && msg.contains("rank-1"), "{msg}");
    assert!(!dir.join("never.awtb").exists());

    // Another number of ranks does not take these checkpoints for its own: it starts afresh.
    let resume = Options {
        stop_at: None,
        ..every_wave.clone()
    };
    let other = dir.join("other.awtb");
    let (results, events) = run(2, &resume, &other);
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert!(
        matches!(events[0], Event::Moves { done: 0, .. }),
        "{:?}",
        events[0]
    );
    assert!(std::fs::read(&other).unwrap() == want);

    // The same number resumes at wave 9 and writes the file.
    let (results, events) = run(3, &resume, &out);
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(events[0], Event::Resumed { wave: 9 });
    assert!(!events.iter().any(|e| matches!(e, Event::Moves { .. })));
    assert!(
        std::fs::read(&out).unwrap() == want,
        "the resumed file differs"
    );
    // Written whole, the builds deleted their checkpoints.
    assert_eq!(std::fs::read_dir(&ckpt).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The 16- and 20-seed layers' packed words (4 and 5 thresholds: 12-bit fields in 3 and 4
/// cells, masks of 4 and 5 bits in the messages), on the 8-seed game asked 4 and 5 times over:
/// the same file over 3 ranks as the single-process build, and through a checkpoint stopped
/// and resumed.
#[test]
fn the_wide_packings_build_the_same_file_over_ranks_and_checkpoints() {
    let dir = scratch("wide");
    let want = reference(&dir);
    let ckpt = dir.join("ckpt");
    for (k, ranks) in [(4usize, 3usize), (5, 2)] {
        let game = anywoli_engine::endgame::retro::eight_as(k);
        let layer = dist::Layer {
            game: &game,
            entry: |st| st[st.len() - 1],
        };
        let out = dir.join(format!("wide-{k}.awtb"));
        let on = |opts: &Options| -> Vec<Result<dist::Summary, EndgameError>> {
            std::thread::scope(|s| {
                let hs: Vec<_> = Local::group(ranks)
                    .into_iter()
                    .map(|comm| {
                        let layer = &layer;
                        let out = &out;
                        s.spawn(move || dist::run(&comm, layer, opts, out, &|_| {}))
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().unwrap()).collect()
            })
        };
        let stop = Options {
            checkpoint: Some(ckpt.clone()),
            checkpoint_every: Duration::ZERO,
            stop_at: Some(7),
        };
        let stopped = on(&stop);
        assert!(
            stopped
                .iter()
                .all(|r| matches!(r, Err(EndgameError::Stopped { wave: 7 }))),
            "{stopped:?}"
        );
        assert!(!out.exists());
        let resumed = on(&Options {
            stop_at: None,
            ..stop
        });
        let summaries: Vec<_> = resumed.into_iter().map(Result::unwrap).collect();
        assert!(
            std::fs::read(&out).unwrap() == want,
            "{k} thresholds: the file differs"
        );
        // Every field of every position was settled, k times the 8-seed table's.
        let s = super::tablebase::eight().stats();
        assert_eq!(summaries[0].settled, k as u64 * (s.wins + s.losses));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn layers_the_distributed_build_does_not_make_are_refused_with_the_reason() {
    let comm = Local::group(1).pop().unwrap();
    let out = std::env::temp_dir().join("anywoli-never.awtb");
    for (seeds, says) in [
        (16u8, "built from the 12-seed one"),
        (20, "built from the 16-seed one"),
        (10, "by fours"),
        (12, "8-seed"),
    ] {
        let err = dist::build(&comm, seeds, None, &Options::default(), &out, &|_| {})
            .unwrap_err()
            .to_string();
        assert!(err.contains(says), "{seeds}: {err}");
    }
    assert!(!out.exists());
}

/// Rank and unrank are inverse on 10 million random positions of the 16- and 20-seed layers
/// (both ways: a random index, and a random distribution of the seeds), and the layers have
/// C(39, 16) and C(43, 20) positions.
#[test]
fn the_index_is_a_bijection_at_16_and_20_seeds() {
    assert_eq!(positions(16), 37_711_260_990);
    assert_eq!(positions(20), 960_566_918_220);
    assert_eq!(Table::file_name(16), "anywoli-16.awtb");
    let mut rng = XorShift::new(42);
    for seeds in [16u8, 20] {
        let n = positions(seeds);
        for _ in 0..5_000_000 {
            let idx = rng.below(n);
            let holes = unrank(idx, seeds);
            assert_eq!(holes.iter().map(|&c| c as u32).sum::<u32>(), seeds as u32);
            assert_eq!(rank(&holes, seeds), idx);

            let mut holes = [0u8; 24];
            for _ in 0..seeds {
                holes[rng.below(24) as usize] += 1;
            }
            let idx = rank(&holes, seeds);
            assert!(idx < n);
            assert_eq!(unrank(idx, seeds), holes);
        }
        // The ends: all in the last hole is the first rank, all in the first the last.
        let mut h = [0u8; 24];
        h[23] = seeds;
        assert_eq!(rank(&h, seeds), 0);
        let mut h = [0u8; 24];
        h[0] = seeds;
        assert_eq!(rank(&h, seeds), n - 1);
    }
}
