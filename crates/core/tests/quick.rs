use anywoli_core::*;
#[test]
fn quick() {
    let mut p = Position::start(Rules::Anywoli);
    p.play("e".parse().unwrap()).unwrap();
    assert_eq!(
        p.to_string(),
        "5,5,5,5,1,5,5,5,0,5,5,5/5,0,5,5,5,5,0,5,5,5,5,0 n 0 0 - - 1 1"
    );
    let s = Position::start(Rules::Anywoli);
    let v: Vec<u64> = (1..=5).map(|d| perft(&s, d)).collect();
    println!("{v:?}");
    assert_eq!(&v[..3], &[12, 116, 1214]);
}
