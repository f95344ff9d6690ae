//! Every error the server can answer has words on the page, in every language: the page shows
//! the translation of an error's code, never the server's English message.

use std::collections::BTreeSet;

use crate::support::{texts_of, LANGS};

/// Every error code the server can answer: the variants of `ErrorCode`, the one place a code
/// is written.
fn server_codes() -> BTreeSet<String> {
    anywoli_server::ErrorCode::ALL
        .iter()
        .map(|c| c.as_str().to_string())
        .collect()
}

/// The keys of one language's texts.
fn keys_of(lang: &str) -> BTreeSet<String> {
    texts_of(lang).keys().cloned().collect()
}

#[test]
fn every_error_code_has_words_in_every_language() {
    let codes = server_codes();
    for code in [
        "hints_off",
        "not_your_turn",
        "seat_taken",
        "stale",
        "unknown_puzzle",
    ] {
        assert!(codes.contains(code), "the scan missed {code}: {codes:?}");
    }
    let mut missing = Vec::new();
    for lang in LANGS {
        let keys = keys_of(lang);
        assert!(keys.len() > 150, "{lang}: only {} keys read", keys.len());
        for code in &codes {
            if !keys.contains(&format!("err_{code}")) {
                missing.push(format!("{lang}:err_{code}"));
            }
        }
    }
    assert!(missing.is_empty(), "no words for {missing:?}");
}

/// The page loads only the reader's language, with no English beside it to fall back on: so
/// every language has every English text (the plural forms `seeds_*` follow each language's
/// rules), and every text is a string.
#[test]
fn every_language_has_every_text() {
    let english = keys_of("en");
    assert!(english.len() > 600, "only {} English texts", english.len());
    let mut missing = Vec::new();
    for lang in LANGS {
        let texts = texts_of(lang);
        for (k, v) in &texts {
            assert!(v.is_string(), "{lang}:{k} is not a string: {v}");
        }
        for k in english.iter().filter(|k| !k.starts_with("seeds_")) {
            if !texts.contains_key(k) {
                missing.push(format!("{lang}:{k}"));
            }
        }
        assert!(texts.contains_key("seeds_other"), "{lang}:seeds_other");
    }
    assert!(
        missing.is_empty(),
        "texts missing a translation: {missing:?}"
    );
}
