//! Every error the server can answer has words on the page, in every language: the page shows
//! the translation of an error's code, never the server's English message.

use std::collections::BTreeSet;
use std::path::Path;

/// The error codes in the server's source: the string after `StatusCode::X,` in each
/// `ApiError::new(StatusCode::X, "code", …)`.
fn server_codes() -> BTreeSet<String> {
    let mut files = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    let mut codes = BTreeSet::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for part in flat.split("ApiError::new(").skip(1) {
            let Some(rest) = part.trim_start().strip_prefix("StatusCode::") else {
                continue;
            };
            let Some((_, after)) = rest.split_once(", \"") else {
                continue;
            };
            let code: String = after.chars().take_while(|&c| c != '"').collect();
            if !code.is_empty() && code.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                codes.insert(code);
            }
        }
        // The helpers that build the common errors.
        for helper in ["malformed", "unknown_game", "not_allowed", "storage"] {
            if flat.contains(&format!("fn {helper}(")) {
                codes.insert(helper.to_string());
            }
        }
    }
    codes
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
