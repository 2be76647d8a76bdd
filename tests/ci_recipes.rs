//! The CI recipes in `docs/ci.md` are real: the shell commands of the GitHub Actions
//! workflow and of the GitLab CI job run here, in a scratch workspace laid out like an
//! operator's repository (the Node example adapters in `ci/fairaudit/`), with the built
//! fairaudit on PATH, and must pass; the same steps with a broken sampler must fail.
//!
//! What a machine without the CI services cannot do is left out: the `uses:` actions
//! (checkout, setup-node, cache, upload-artifact) and `apt-get`; `cargo install` is
//! skipped by the recipes themselves, because fairaudit is already on PATH. The gate
//! sizes are cut to 20,000 rounds to keep the test short; `tests/node_examples.rs` runs
//! the full Keno size. Needs Node: skipped without it, unless `FAIRAUDIT_REQUIRE_NODE`
//! is set (as in `.ci/run`).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The lines after `lines[at]` indented deeper than `key_indent` (blank lines kept),
/// dedented by the first one's indentation.
fn nested(lines: &[&str], at: usize, key_indent: usize) -> Vec<String> {
    let body: Vec<&str> = lines[at + 1..]
        .iter()
        .copied()
        .take_while(|l| l.trim().is_empty() || indent(l) > key_indent)
        .collect();
    let base = body.iter().filter(|l| !l.trim().is_empty()).map(|l| indent(l)).min().unwrap_or(0);
    body.iter().map(|l| l.get(base..).unwrap_or("").to_owned()).collect()
}

/// `KEY: value # comment` lines under the first `section:` key.
fn variables(lines: &[&str], section: &str) -> BTreeMap<String, String> {
    let at = lines.iter().position(|l| l.trim() == section).unwrap_or_else(|| panic!("no {section}"));
    nested(lines, at, indent(lines[at]))
        .iter()
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.trim().to_owned(), v.split(" # ").next().unwrap().trim().to_owned()))
        .collect()
}

/// GitHub Actions: each `run:` step's script, in order.
fn github_steps(yaml: &str) -> (BTreeMap<String, String>, Vec<String>) {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut steps = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let key = line.trim_start().trim_start_matches("- ");
        if key == "run: |" {
            steps.push(nested(&lines, at, indent(line)).join("\n"));
        } else if let Some(command) = key.strip_prefix("run: ") {
            steps.push(command.to_owned());
        }
    }
    (variables(&lines, "env:"), steps)
}

/// GitLab CI: `before_script` then `script`, as one script (GitLab runs them in one shell).
fn gitlab_script(yaml: &str) -> (BTreeMap<String, String>, String) {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut script = Vec::new();
    for section in ["before_script:", "script:"] {
        let at = lines.iter().position(|l| l.trim() == section).unwrap();
        let items = nested(&lines, at, indent(lines[at]));
        let mut i = 0;
        while i < items.len() {
            let item = items[i].strip_prefix("- ").unwrap_or(&items[i]).to_owned();
            if item == "|" {
                let block: Vec<&str> = items[i + 1..]
                    .iter()
                    .map(String::as_str)
                    .take_while(|l| l.starts_with(' ') || l.is_empty())
                    .collect();
                i += block.len();
                script.push(block.iter().map(|l| l.trim_start_matches("  ")).collect::<Vec<_>>().join("\n"));
            } else if !item.starts_with("apt-get ") && !item.is_empty() {
                script.push(item);
            }
            i += 1;
        }
    }
    (variables(&lines, "variables:"), script.join("\n"))
}

fn yaml_blocks(markdown: &str) -> Vec<String> {
    markdown.split("```yaml\n").skip(1).map(|rest| rest.split("```").next().unwrap().to_owned()).collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().map(Result::unwrap) {
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// A workspace like an operator's repository: the adapters in `ci/fairaudit/`.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("examples/node"), &dir.path().join("ci/fairaudit"));
    dir
}

/// Runs `script` with bash (options as the CI runs it) in `dir`, with `vars` and the
/// built fairaudit first on PATH; returns the exit status and the output.
fn run(dir: &Path, bash_options: &[&str], script: &str, vars: &BTreeMap<String, String>) -> (i32, String) {
    let bin = assert_cmd::cargo::cargo_bin("fairaudit");
    let path = std::env::join_paths(
        std::iter::once(bin.parent().unwrap().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let mut command = Command::new("bash");
    command
        .args(["--noprofile", "--norc"])
        .args(bash_options)
        .args(["-c", script])
        .current_dir(dir)
        .env("PATH", path);
    for (key, value) in vars {
        command.env(key, value);
    }
    // The gate sizes, cut for the test's time.
    command.env("KENO_ROUNDS", "20000").env("SPINS", "20000").env("CI_PROJECT_DIR", dir);
    let output = command.output().unwrap();
    let text =
        format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output.status.code().unwrap_or(-1), text)
}

fn assert_reports_kept(dir: &Path) {
    let reports = dir.join("fairaudit-reports");
    for file in ["challenge.csv", "filled.csv", "conformance.txt", "mismatches.csv", "gate-keno.txt"] {
        assert!(reports.join(file).is_file(), "{file} not kept");
    }
    for game in ["keno", "roulette-european", "roulette-american"] {
        assert!(reports.join(format!("gate-{game}/tests.csv")).is_file(), "{game} gate report not kept");
    }
    let verdict = std::fs::read_to_string(reports.join("conformance.txt")).unwrap();
    assert!(verdict.contains(" cases pass\n"), "{verdict}");
}

fn docs() -> String {
    std::fs::read_to_string(root().join("docs/ci.md")).unwrap()
}

#[test]
fn the_github_actions_workflow_runs_and_fails_on_a_broken_sampler() {
    if !common::node_available("the CI recipes") {
        return;
    }
    let blocks = yaml_blocks(&docs());
    let yaml = blocks.iter().find(|b| b.contains("jobs:")).expect("a GitHub Actions block");
    let (mut vars, steps) = github_steps(yaml);
    assert_eq!(steps.len(), 3, "install, conformance, statistics: {steps:?}");
    let dir = workspace();
    for step in &steps {
        let (status, output) = run(dir.path(), &["-e", "-o", "pipefail"], step, &vars);
        assert_eq!(status, 0, "step failed:\n{step}\n{output}");
    }
    assert_reports_kept(dir.path());

    vars.insert(
        "FILL_CHALLENGE".into(),
        "node ci/fairaudit/fill-challenge.js --sampler ci/fairaudit/broken/no-rejection.js".into(),
    );
    let (status, output) = run(dir.path(), &["-e", "-o", "pipefail"], &steps[1], &vars);
    assert_eq!(status, 1, "{output}");
    assert!(output.contains("  FAIL Keno rejection at P = 31: "), "{output}");
}

#[test]
fn the_gitlab_job_runs_and_fails_on_a_broken_sampler() {
    if !common::node_available("the CI recipes") {
        return;
    }
    let blocks = yaml_blocks(&docs());
    let yaml = blocks.iter().find(|b| b.contains("before_script:")).expect("a GitLab CI block");
    let (mut vars, script) = gitlab_script(yaml);
    let dir = workspace();
    let (status, output) = run(dir.path(), &["-e"], &script, &vars);
    assert_eq!(status, 0, "job failed:\n{script}\n{output}");
    assert_reports_kept(dir.path());

    vars.insert(
        "FILL_CHALLENGE".into(),
        "node ci/fairaudit/fill-challenge.js --sampler ci/fairaudit/broken/swap-removal.js".into(),
    );
    let (status, output) = run(dir.path(), &["-e"], &script, &vars);
    assert_eq!(status, 1, "{output}");
    assert!(output.contains("  FAIL Keno ordinary round 1: "), "{output}");
}
