//! Perft: the number of move sequences of exactly `depth` plies (a pass is not a ply, an extra
//! move is; a game that ends sooner is not counted).

use anywoli_core::*;

/// The published values from the start of `anywoli`.
#[test]
fn perft_from_start_anywoli() {
    let p = Position::start(Rules::Anywoli);
    let got: Vec<u64> = (1..=5).map(|d| perft(&p, d)).collect();
    assert_eq!(got, [12, 116, 1214, 12377, 120458]);
    assert_eq!(perft(&p, 0), 1);
}

#[test]
fn divide_from_start() {
    let p = Position::start(Rules::Anywoli);
    let d = divide(&p, 3);
    let letters: String = d.iter().map(|(m, _)| m.letter()).collect();
    assert_eq!(letters, "abcdefghijkl");
    assert_eq!(d.iter().map(|(_, n)| n).sum::<u64>(), 1214);
    // The worked example's move `e` leads to a position whose perft(2) is divide's entry.
    let mut after_e = p;
    after_e.play(Move::from_letter('e').unwrap()).unwrap();
    assert_eq!(d[4].1, perft(&after_e, 2));
}

/// Walks the tree to `depth`: (perft, games that ended on the way or at the leaves, South's
/// store summed over those ended games). The last two tell the variants apart, which perft
/// alone cannot (the variants differ only in who gets the last seeds).
fn census(p: &Position, depth: u32) -> (u64, u64, u64) {
    fn walk(p: &Position, depth: u32, acc: &mut (u64, u64, u64)) {
        if p.is_over() {
            acc.1 += 1;
            acc.2 += p.store(Side::South) as u64;
            return;
        }
        if depth == 0 {
            return;
        }
        for mv in p.moves() {
            let mut q = *p;
            if q.play_unchecked(mv).is_ok() {
                if depth == 1 {
                    acc.0 += 1;
                }
                walk(&q, depth - 1, acc);
            }
        }
    }
    let mut acc = (0, 0, 0);
    walk(p, depth, &mut acc);
    assert_eq!(acc.0, perft(p, depth));
    acc
}

const VARIANTS_TESTED: [Rules; 5] = [
    Rules::Anywoli,
    Rules::FirstFinal,
    Rules::Lottery { seed: 0 },
    Rules::Lottery { seed: 3 },
    Rules::It,
];

fn table(p: &str) -> Vec<String> {
    VARIANTS_TESTED
        .iter()
        .map(|&rules| {
            let pos = parse_position(p, rules).unwrap();
            let row: Vec<String> = (1..=4)
                .map(|d| {
                    let (n, ended, south) = census(&pos, d);
                    format!("{n}/{ended}/{south}")
                })
                .collect();
            format!("{rules:?}: {}", row.join(" "))
        })
        .collect()
}

fn check_table(p: &str, want: &[&str]) {
    let got = table(p);
    assert_eq!(got, want, "{p}\nnew values:\n{got:#?}");
}

/// REGRESSION VALUES, computed by this engine (not independently checked): depths 1-4 from
/// the start in every variant, as perft/ended/south-store-sum. From the start no game ends
/// within 4 plies, so all variants but `anywoli-it` agree.
#[test]
fn regression_start_all_variants() {
    check_table(
        "4,4,4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4,4,4 s 0 0 - - 0 0",
        &[
            "Anywoli: 12/0/0 116/0/0 1214/0/0 12377/0/0",
            "FirstFinal: 12/0/0 116/0/0 1214/0/0 12377/0/0",
            "Lottery { seed: 0 }: 12/0/0 116/0/0 1214/0/0 12377/0/0",
            "Lottery { seed: 3 }: 12/0/0 116/0/0 1214/0/0 12377/0/0",
            "It: 12/0/0 116/0/0 1223/0/0 12429/0/0",
        ],
    );
}

/// REGRESSION VALUES, computed by this engine: endings with 12 seeds in play, where games end
/// within a few plies and the variants give the last seeds to different players.
#[test]
fn regression_endings_all_variants() {
    check_table(
        "1,3,0,0,0,0,0,0,0,0,0,0/0,1,1,1,0,0,0,1,1,3,0,0 s 13 71 n - 0 10",
        &[
            "Anywoli: 2/0/0 12/2/34 42/9/153 178/28/476",
            "FirstFinal: 2/0/0 12/2/42 42/9/189 178/28/588",
            "Lottery { seed: 0 }: 2/0/0 12/2/34 42/9/153 178/28/476",
            "Lottery { seed: 3 }: 2/0/0 12/2/42 42/9/189 178/28/588",
            "It: 2/1/25 6/3/67 16/3/67 96/31/655",
        ],
    );
    check_table(
        "1,3,0,0,0,0,0,0,0,0,0,0/0,1,1,1,0,0,0,1,1,3,0,0 s 13 71 n n 0 10",
        &[
            "Anywoli: 2/0/0 12/2/34 42/9/153 178/28/476",
            "FirstFinal: 2/0/0 12/2/34 42/9/153 178/28/476",
            "Lottery { seed: 0 }: 2/0/0 12/2/34 42/9/153 178/28/476",
            "Lottery { seed: 3 }: 2/0/0 12/2/42 42/9/189 178/28/588",
            "It: 2/1/25 6/3/67 16/3/67 96/31/655",
        ],
    );
    check_table(
        "1,2,3,3,0,0,0,0,1,0,0,1/0,0,0,0,0,0,0,0,0,0,1,0 s 45 39 n s 0 10",
        &[
            "Anywoli: 6/2/114 5/2/114 30/8/456 33/8/456",
            "FirstFinal: 6/2/114 5/2/114 30/8/456 33/8/456",
            "Lottery { seed: 0 }: 6/2/106 5/2/106 30/8/424 33/8/424",
            "Lottery { seed: 3 }: 6/2/114 5/2/114 30/8/456 33/8/456",
            "It: 6/3/171 4/3/171 24/14/798 19/24/1328",
        ],
    );
}
