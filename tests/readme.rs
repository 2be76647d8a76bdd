//! The README's and the reference manual's examples are real: every `$ fairaudit …` line
//! in a ```console block of `README.md` or `docs/*.md` is run from the repository root,
//! and its stdout must equal the lines shown under it. Within a line `[...]` stands for any
//! text; a last line that is only `[...]` stands for any further lines, a first line that
//! is only `[...]` for any lines before. A line `[exit N]` after the output states the
//! command's exit status; without one it must be 0 or 1 (a verdict the page shows), so an
//! example that drifts to 3 (judged nothing), 2 (an error) or 130 is caught.

use assert_cmd::Command;
use std::path::PathBuf;

struct Example {
    args: Vec<String>,
    expected_stdout: String,
    /// The exit status a `[exit N]` line states.
    expected_status: Option<i32>,
}

fn examples(readme: &str) -> Vec<Example> {
    let mut found = Vec::new();
    let mut in_console = false;
    let mut current: Option<Example> = None;
    for line in readme.lines() {
        if line.starts_with("```") {
            if let Some(example) = current.take() {
                found.push(example);
            }
            in_console = !in_console && line.trim() == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            if let Some(example) = current.take() {
                found.push(example);
            }
            let words = shell_words::split(command).expect("README command parses");
            if words.first().map(String::as_str) == Some("fairaudit") {
                current = Some(Example {
                    args: words[1..].to_vec(),
                    expected_stdout: String::new(),
                    expected_status: None,
                });
            }
        } else if let Some(status) = line.strip_prefix("[exit ").and_then(|rest| rest.strip_suffix(']')) {
            let example = current.as_mut().expect("an [exit N] line follows a command");
            example.expected_status = Some(status.parse().expect("[exit N] holds a number"));
        } else if let Some(example) = current.as_mut() {
            example.expected_stdout.push_str(line);
            example.expected_stdout.push('\n');
        }
    }
    found
}

/// Line by line; within a line, `[...]` stands for any text (times, rates); a last line of
/// only `[...]` for any number of further lines, a first line of only `[...]` for any number
/// of lines before.
fn matches_expected(actual: &str, expected: &str) -> bool {
    if let Some(tail) = expected.strip_prefix("[...]\n") {
        let wanted = tail.lines().count();
        let lines: Vec<&str> = actual.lines().collect();
        return lines.len() >= wanted && matches_lines(&lines[lines.len() - wanted..].join("\n"), tail);
    }
    let (expected, open_ended) = match expected.strip_suffix("[...]\n") {
        Some(head) if head.is_empty() || head.ends_with('\n') => (head, true),
        _ => (expected, false),
    };
    let (actual_lines, expected_lines) = (actual.lines().count(), expected.lines().count());
    (actual_lines == expected_lines || open_ended && actual_lines >= expected_lines)
        && matches_lines(actual, expected)
}

/// The lines of `actual` against the patterns of `expected`, pairwise.
fn matches_lines(actual: &str, expected: &str) -> bool {
    actual.lines().zip(expected.lines()).all(|(line, pattern)| {
        let mut pieces = pattern.split("[...]");
        let first = pieces.next().unwrap_or("");
        let Some(mut rest) = line.strip_prefix(first) else { return false };
        let pieces: Vec<&str> = pieces.collect();
        for (i, piece) in pieces.iter().enumerate() {
            if i == pieces.len() - 1 {
                return rest.ends_with(piece);
            }
            match rest.find(piece) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => return false,
            }
        }
        rest.is_empty()
    })
}

#[test]
fn the_wildcard_matches_only_what_it_should() {
    assert!(matches_expected("in 1.2 s (5 threads)\n", "in [...] threads)\n"));
    assert!(!matches_expected("in 1.2 s (5 cores)\n", "in [...] threads)\n"));
    assert!(!matches_expected("a\nb\n", "a\n"));
    assert!(matches_expected("exact\n", "exact\n"));
    assert!(!matches_expected("exact!\n", "exact\n"));
    assert!(matches_expected("a\nb\nc\n", "a\n[...]\n"));
    assert!(!matches_expected("x\nb\n", "a\n[...]\n"));
    assert!(matches_expected("a\nb\nc\n", "[...]\nc\n"));
    assert!(!matches_expected("a\nb\nc\n", "[...]\nb\n"));
}

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 2, "the README should show runnable examples");
    run_examples(examples);
}

#[test]
fn reference_manual_examples_print_what_the_manual_shows() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    let mut total = 0;
    for page in pages {
        let examples = examples(&std::fs::read_to_string(&page).unwrap());
        total += examples.len();
        run_examples(examples);
    }
    assert!(total >= 1, "the manual should show runnable examples");
}

/// Runs each example from the repository root and compares its stdout with the text shown.
fn run_examples(examples: Vec<Example>) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for example in examples {
        let output =
            Command::cargo_bin("fairaudit").unwrap().current_dir(&root).args(&example.args).output().unwrap();
        match example.expected_status {
            Some(status) => {
                assert_eq!(output.status.code(), Some(status), "{:?}: {:?}", example.args, output)
            }
            None => assert!(output.status.code().unwrap() < 2, "{:?} failed: {:?}", example.args, output),
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            matches_expected(&stdout, &example.expected_stdout),
            "{:?} printed:\n{stdout}\nexpected:\n{}",
            example.args,
            example.expected_stdout
        );
    }
}
