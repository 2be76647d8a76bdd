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

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 2, "the README should show runnable examples");
    for example in examples {
        let output =
            Command::cargo_bin("fairaudit").unwrap().current_dir(&root).args(&example.args).output().unwrap();
        assert!(output.status.code().unwrap() < 2, "{:?} failed: {:?}", example.args, output);
        assert_eq!(String::from_utf8_lossy(&output.stdout), example.expected_stdout, "{:?}", example.args);
    }
}
