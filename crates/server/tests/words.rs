//! Every error the server can answer has words on the page, in every language: the page shows
//! the translation of an error's code, never the server's English message.

use std::collections::BTreeSet;
use std::path::Path;

/// Every error code the server can answer: the variants of `ErrorCode`, the one place a code
/// is written.
fn server_codes() -> BTreeSet<String> {
    anywoli_server::ErrorCode::ALL
        .iter()
        .map(|c| c.as_str().to_string())
        .collect()
}

/// The keys of one language's block of web/i18n.js.
fn keys_of(js: &str, lang: &str) -> BTreeSet<String> {
    let start = js
        .find(&format!("const {lang} = {{\n"))
        .unwrap_or_else(|| panic!("no block for {lang}"));
    let end = start + js[start..].find("\n};\n").unwrap();
    js[start..end]
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let key: String = l
                .trim_start_matches('\'')
                .chars()
                .take_while(|&c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                .collect();
            (!key.is_empty() && l[key.len()..].trim_start_matches('\'').starts_with(':'))
                .then_some(key)
        })
        .collect()
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
    let js =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("web/i18n.js")).unwrap();
    let mut missing = Vec::new();
    for lang in ["en", "tl", "cs", "nl", "hi", "it"] {
        let keys = keys_of(&js, lang);
        assert!(keys.len() > 150, "{lang}: only {} keys read", keys.len());
        for code in &codes {
            if !keys.contains(&format!("err_{code}")) {
                missing.push(format!("{lang}:err_{code}"));
            }
        }
    }
    assert!(missing.is_empty(), "no words for {missing:?}");
}
