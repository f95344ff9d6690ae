//! docs/rules.md stays true: every `$ anywoli ...` line of its ```console blocks is run, and its
//! stdout must be the lines that follow it, up to the next `$ ` line or the end of the block.
//!
//! Lines are compared with trailing white space removed (the board diagrams end some lines with
//! a space, which an editor may strip); everything else, every number and letter, must match.

use std::path::PathBuf;

use assert_cmd::Command;

/// One `$ anywoli ...` line of the document and the output written under it.
struct Example {
    /// Line number of the command in docs/rules.md, from 1.
    line: usize,
    command: String,
    expected: Vec<String>,
}

fn doc_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules.md")
}

fn read_doc() -> String {
    let path = doc_path();
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The commands of every ```console block, each with the lines that follow it.
fn examples(doc: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    let mut current: Option<Example> = None;
    for (i, line) in doc.lines().enumerate() {
        let fence = line.trim();
        if !in_console {
            if fence == "```console" {
                in_console = true;
            }
            continue;
        }
        if fence == "```" {
            out.extend(current.take());
            in_console = false;
        } else if let Some(command) = line.strip_prefix("$ ") {
            out.extend(current.take());
            current = Some(Example {
                line: i + 1,
                command: command.to_string(),
                expected: Vec::new(),
            });
        } else if let Some(ex) = current.as_mut() {
            ex.expected.push(line.to_string());
        } else {
            panic!(
                "docs/rules.md line {}: a console block must start with a `$ ` line",
                i + 1
            );
        }
    }
    assert!(
        !in_console,
        "docs/rules.md: a ```console block is not closed"
    );
    out
}

/// Splits a command line as a shell would for the commands of the document: words separated by
/// spaces, double quotes group words (and are removed), a backslash inside double quotes escapes
/// `"` and `\`.
fn split_args(line: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quoted = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            '\\' if quoted => match chars.next() {
                Some(n @ ('"' | '\\')) => word.push(n),
                Some(n) => {
                    word.push('\\');
                    word.push(n);
                }
                None => word.push('\\'),
            },
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    args.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    assert!(!quoted, "unbalanced double quote in {line:?}");
    if in_word {
        args.push(word);
    }
    args
}

fn trimmed(lines: impl IntoIterator<Item = impl AsRef<str>>) -> Vec<String> {
    lines
        .into_iter()
        .map(|l| l.as_ref().trim_end().to_string())
        .collect()
}

/// Runs one example; `Err` says what differs.
fn check(ex: &Example) -> Result<(), String> {
    let args = split_args(&ex.command);
    if args.first().map(String::as_str) != Some("anywoli") {
        return Err(format!(
            "line {}: `$ {}` does not run anywoli",
            ex.line, ex.command
        ));
    }
    let out = Command::new(env!("CARGO_BIN_EXE_anywoli"))
        .args(&args[1..])
        .output()
        .map_err(|e| format!("line {}: {e}", ex.line))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "line {}: `$ {}` failed ({}): {}",
            ex.line,
            ex.command,
            out.status,
            String::from_utf8_lossy(&out.stderr).trim_end()
        ));
    }
    let got = trimmed(stdout.lines());
    let mut want = trimmed(&ex.expected);
    // A blank line may separate the output from the closing fence or the next command.
    while want.last().is_some_and(|l| l.is_empty()) {
        want.pop();
    }
    if got == want {
        return Ok(());
    }
    let mut msg = format!(
        "line {}: `$ {}` printed something else",
        ex.line, ex.command
    );
    for i in 0..got.len().max(want.len()) {
        let (g, w) = (got.get(i), want.get(i));
        if g != w {
            msg.push_str(&format!(
                "\n  first difference at output line {} (docs/rules.md line {}):\n    document: {}\n    program:  {}",
                i + 1,
                ex.line + 1 + i,
                w.map_or("(nothing)", String::as_str),
                g.map_or("(nothing)", String::as_str)
            ));
            break;
        }
    }
    msg.push_str("\n  the program's whole output:\n");
    msg.push_str(&stdout);
    Err(msg)
}

#[test]
fn every_console_example_prints_what_the_document_says() {
    let doc = read_doc();
    let examples = examples(&doc);
    assert!(
        examples.len() >= 4,
        "docs/rules.md has {} `$ anywoli` commands in console blocks, expected at least 4",
        examples.len()
    );
    let failures: Vec<String> = examples.iter().filter_map(|ex| check(ex).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} examples of docs/rules.md differ from the program:\n{}",
        failures.len(),
        examples.len(),
        failures.join("\n")
    );
}

#[test]
fn the_document_names_every_variant() {
    let doc = read_doc();
    for (name, _) in anywoli_core::VARIANTS {
        assert!(
            doc.contains(&format!("`{name}`")),
            "docs/rules.md does not mention the variant `{name}`"
        );
    }
}

#[test]
fn the_checker_itself_reads_blocks_and_quotes_as_intended() {
    assert_eq!(
        split_args(r#"anywoli trace --position "4,4/4 s 0 0 - - 0 0" e"#),
        ["anywoli", "trace", "--position", "4,4/4 s 0 0 - - 0 0", "e"]
    );
    assert_eq!(split_args(r#"a "" b\c "x\"y""#), ["a", "", r"b\c", "x\"y"]);
    let doc = "text\n```console\n$ anywoli a\none\n\n$ anywoli b\n```\n```text\n$ anywoli c\n```\n";
    let ex = examples(doc);
    assert_eq!(ex.len(), 2);
    assert_eq!((ex[0].line, ex[0].command.as_str()), (3, "anywoli a"));
    assert_eq!(ex[0].expected, ["one", ""]);
    assert_eq!(ex[1].command, "anywoli b");
    assert!(ex[1].expected.is_empty());
}

#[test]
fn a_changed_number_in_a_diagram_fails() {
    let doc = read_doc();
    let mut ex = examples(&doc)
        .into_iter()
        .find(|ex| ex.command.starts_with("anywoli show"))
        .expect("docs/rules.md has an `anywoli show` example");
    assert!(check(&ex).is_ok(), "the unchanged example passes");
    let row = ex
        .expected
        .iter()
        .position(|l| l.contains('|') && l.chars().any(|c| c.is_ascii_digit()))
        .expect("a row of hole counts");
    let digit = ex.expected[row].find(|c: char| c.is_ascii_digit()).unwrap();
    let old = ex.expected[row].as_bytes()[digit];
    let new = if old == b'9' { '8' } else { (old + 1) as char };
    ex.expected[row].replace_range(digit..digit + 1, &new.to_string());
    assert!(check(&ex).is_err(), "a changed count went unnoticed");
}
