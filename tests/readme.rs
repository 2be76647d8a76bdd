//! The README's examples are real: every `$ fairaudit …` line in a ```console block is
//! run from the repository root, and its stdout must equal the lines shown under it.

use assert_cmd::Command;
use std::path::PathBuf;

struct Example {
    args: Vec<String>,
    expected_stdout: String,
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
                current = Some(Example { args: words[1..].to_vec(), expected_stdout: String::new() });
            }
        } else if let Some(example) = current.as_mut() {
            example.expected_stdout.push_str(line);
            example.expected_stdout.push('\n');
        }
    }
    found
}

/// Line by line; within a line, `[...]` stands for any text (times, rates).
fn matches_expected(actual: &str, expected: &str) -> bool {
    actual.lines().count() == expected.lines().count()
        && actual.lines().zip(expected.lines()).all(|(line, pattern)| {
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
}

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 2, "the README should show runnable examples");
    run_examples(examples);
}

/// Runs each example from the repository root and compares its stdout with the text shown.
fn run_examples(examples: Vec<Example>) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for example in examples {
        let output =
            Command::cargo_bin("fairaudit").unwrap().current_dir(&root).args(&example.args).output().unwrap();
        assert!(output.status.code().unwrap() < 2, "{:?} failed: {:?}", example.args, output);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            matches_expected(&stdout, &example.expected_stdout),
            "{:?} printed:\n{stdout}\nexpected:\n{}",
            example.args,
            example.expected_stdout
        );
    }
}

#[test]
fn docs_examples_print_what_the_docs_show() {
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&docs)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    pages.sort();
    for page in pages {
        run_examples(examples(&std::fs::read_to_string(&page).unwrap()));
    }
}
