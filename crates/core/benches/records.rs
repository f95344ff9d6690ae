//! Criterion benchmarks: reading and writing big records (issue 10). A text of
//! `MAX_RECORD_LEN`, whatever it holds, must be read and written in milliseconds.

use anywoli_core::record::{parse_all, MAX_RECORD_LEN};
use anywoli_core::{Position, Record, Rules, XorShift};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

/// 64,000 distinct free tags and a short game: about 0.8 MB.
fn many_tags() -> String {
    let mut text = String::new();
    for i in 0..64_000 {
        text.push_str(&format!("[t{i} \"{}\"]\n", i % 10));
    }
    text.push_str("\ne F j D g e A i d B\n");
    text
}

/// Whole games from a fixed line of play, one after the other, as many as fit in a mebibyte
/// (one game cannot be that long: the quiet rule ends it).
fn mebibyte_of_moves() -> String {
    let mut text = String::new();
    let mut rng = XorShift::new(0x2545_f491);
    loop {
        let mut p = Position::start(Rules::Anywoli);
        let mut rec = Record::new(p);
        while !p.is_over() {
            let ms = p.moves();
            let m = ms.nth(rng.below(ms.len() as u64) as usize).unwrap();
            p.play(m).unwrap();
            rec.moves.push(m);
        }
        rec.set_result_from_play();
        let t = rec.to_string();
        if text.len() + t.len() > MAX_RECORD_LEN {
            return text;
        }
        text.push_str(&t);
    }
}

fn bench_records(c: &mut Criterion) {
    let tags = many_tags();
    let tags_rec = Record::parse(&tags).unwrap();
    c.bench_function("parse 64k tags", |b| {
        b.iter(|| Record::parse(black_box(&tags)).unwrap())
    });
    c.bench_function("display 64k tags", |b| {
        b.iter(|| black_box(&tags_rec).to_string())
    });
    // What the server does to export a stored game: every tag set on a new record.
    c.bench_function("set_tags 64k tags", |b| {
        b.iter(|| {
            let mut r = Record::new(Position::start(Rules::Anywoli));
            r.set_tags(black_box(&tags_rec.tags).iter().cloned());
            r
        })
    });
    let moves = mebibyte_of_moves();
    let games = parse_all(&moves).unwrap();
    c.bench_function("parse 1 MiB of moves", |b| {
        b.iter(|| parse_all(black_box(&moves)).unwrap())
    });
    c.bench_function("display 1 MiB of moves", |b| {
        b.iter(|| {
            black_box(&games)
                .iter()
                .map(|g| g.to_string())
                .collect::<String>()
        })
    });
}

criterion_group!(benches, bench_records);
criterion_main!(benches);
