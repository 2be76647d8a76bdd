//! The machinery of the value-stability pins (`tests/value_stability.rs`,
//! `tests/certificate_stability.rs`): run fairaudit in a scratch folder with the clock
//! fixed, take out of its outputs what no test can fix, and compare what is left byte for
//! byte with the files committed under `tests/expected/NAME/`, or write them when
//! `FAIRAUDIT_BLESS` is set.
//!
//! What is taken out, and why (each value is replaced by a placeholder in angle brackets,
//! so the rest of its line is still pinned):
//!
//! - the scratch folder's path (`<tmp>`) and the repository's (`<repo>`): where the test
//!   runs;
//! - the build's source revision (`<revision>`), in `run.json`, every report's byline and
//!   the certificate: it changes with every commit;
//! - elapsed seconds (`<seconds>`) and rates (`<rate>`), on the terminal, in `run.json`
//!   and in `report.html`: they measure the machine;
//! - `run.json`'s `keccak_path` (`<keccak path>`): `auto` records the widest path the CPU
//!   has (the results do not depend on it);
//! - the binary's path, SHA-256 and size (`<binary>`, `<binary sha256>`,
//!   `<binary bytes>`), which a certificate records: they change with every build.
//!
//! Timestamps need no placeholder: every command runs with `SOURCE_DATE_EPOCH` set
//! ([`EPOCH`]), which fixes them. Threads are fixed by `--threads` where a file records
//! them. The certificates' own normalisation (the digests of the files that hold such
//! values) is in `tests/certificate_stability.rs`.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to accept a deliberate change.
pub const REGENERATE: &str =
    "FAIRAUDIT_BLESS=1 cargo test --release --test value_stability --test certificate_stability";

/// The time every pinned command runs at: 2026-01-01T00:00:00Z.
pub const EPOCH: &str = "1767225600";

/// Files larger than this are pinned by digest.
const LARGEST_COMMITTED: usize = 64 << 10;

/// The files that record the run rather than its results (the command, the build, the
/// timing, the terminal): a merge's or another thread count's differ from the sweep's,
/// while its results do not.
pub const RECORDS: [&str; 3] = ["run.json", "report.html", "terminal.txt"];

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn expected_dir(name: &str) -> PathBuf {
    repo().join("tests/expected").join(name)
}

pub fn blessing() -> bool {
    std::env::var_os("FAIRAUDIT_BLESS").is_some()
}

pub fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("fairaudit")
}

/// A scratch folder the commands run in, so that the paths they are given, and so what
/// `run.json` and the certificates record, are relative and the same on every machine.
pub struct Scratch {
    dir: tempfile::TempDir,
}

/// One command's exit status and output, as run.
pub struct Ran {
    pub args: Vec<String>,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch { dir: tempfile::tempdir().unwrap() }
    }
}

impl Scratch {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn join(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Copies `from` (a file or a folder) to `rel` in the scratch folder, writable.
    pub fn copy_in(&self, from: &Path, rel: &str) {
        copy(from, &self.join(rel));
    }

    pub fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.join(rel), text).unwrap();
    }

    /// Runs `fairaudit ARGS` here at [`EPOCH`]; panics on an exit status other than
    /// `expect`, showing stderr.
    pub fn run(&self, args: &[&str], expect: i32) -> Ran {
        let output = Command::new(binary())
            .args(args)
            .current_dir(self.path())
            .env("SOURCE_DATE_EPOCH", EPOCH)
            .env_remove("FAIRAUDIT_KECCAK")
            .output()
            .unwrap();
        let ran = Ran {
            args: args.iter().map(|a| a.to_string()).collect(),
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        };
        assert_eq!(ran.code, expect, "fairaudit {args:?}:\n{}{}", ran.stdout, ran.stderr);
        ran
    }

    /// Everything a command showed, normalised: the command, its exit status, stdout and
    /// stderr.
    pub fn terminal(&self, ran: &Ran) -> Vec<u8> {
        let text = format!(
            "$ fairaudit {}\n--- exit {}\n--- stdout\n{}--- stderr\n{}",
            shell_words::join(&ran.args),
            ran.code,
            ran.stdout,
            ran.stderr
        );
        self.normalise(&text).into_bytes()
    }

    /// The files of the output folder `rel`, with `run.json` and `report.html` normalised.
    pub fn folder(&self, rel: &str) -> BTreeMap<String, Vec<u8>> {
        read_folder(&self.join(rel))
            .into_iter()
            .map(|(name, bytes)| {
                let bytes = if name == "run.json" || name == "report.html" {
                    self.normalise(&String::from_utf8(bytes).unwrap()).into_bytes()
                } else {
                    bytes
                };
                (name, bytes)
            })
            .collect()
    }

    /// [`Scratch::folder`] with the command's terminal beside it.
    pub fn folder_and_terminal(&self, rel: &str, ran: &Ran) -> BTreeMap<String, Vec<u8>> {
        let mut files = self.folder(rel);
        files.insert("terminal.txt".into(), self.terminal(ran));
        files
    }

    /// `text` with what no test can fix replaced by placeholders (the module's docs).
    pub fn normalise(&self, text: &str) -> String {
        let mut text = text.to_owned();
        let binary = binary();
        let (bytes, sha) = binary_identity();
        let mut paths = vec![(binary.display().to_string(), "<binary>".to_owned())];
        for (path, placeholder) in [(self.path().to_owned(), "<tmp>"), (repo(), "<repo>")] {
            if let Ok(real) = path.canonicalize() {
                paths.push((real.display().to_string(), placeholder.into()));
            }
            paths.push((path.display().to_string(), placeholder.into()));
        }
        for (path, placeholder) in paths {
            text = text.replace(&path, &placeholder);
        }
        text = text.replace(&sha, "<binary sha256>").replace(&sha[..16], "<binary sha256>");
        text = text.replace(&format!("({bytes} bytes)"), "(<binary bytes> bytes)");
        let revision = fairaudit::REVISION;
        for context in ["(rev ", "revision ", "revision <code>", "_revision\": \""] {
            text = text.replace(&format!("{context}{revision}"), &format!("{context}<revision>"));
        }
        text = hide_after(&text, "\"keccak_path\": \"", &["\""], "<keccak path>", |c| c != '"');
        text = hide_number(&text, "\"elapsed_seconds\": ", &[",", "\n"], "<seconds>");
        text = hide_number(&text, "\"rounds_per_second\": ", &[",", "\n"], "<rate>");
        for (before, after) in [(" in ", " s ("), ("(", " s, "), ("(", " s)"), ("; ", " s.")] {
            text = hide_number(&text, before, &[after], "<seconds>");
        }
        for (before, after) in [(" s (", " rounds/s"), (" s (", " games/s"), (" s, ", " rounds/s")] {
            text = hide_number(&text, before, &[after], "<rate>");
        }
        text
    }
}

/// The size and SHA-256 (hex) of the fairaudit binary, which a certificate records.
pub fn binary_identity() -> (u64, String) {
    static IDENTITY: std::sync::OnceLock<(u64, String)> = std::sync::OnceLock::new();
    IDENTITY
        .get_or_init(|| {
            let bytes = std::fs::read(binary()).unwrap();
            (bytes.len() as u64, fairaudit::certify::sha256_hex(&bytes))
        })
        .clone()
}

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        // Written rather than copied, so that a read-only source gives a writable copy.
        std::fs::write(to, std::fs::read(from).unwrap()).unwrap();
    }
}

/// Every file of `dir` (not its subfolders), by name.
pub fn read_folder(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| (e.file_name().into_string().unwrap(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// `text` with every run of characters accepted by `keep` that follows `before` and is
/// followed by one of `after` replaced by `placeholder`.
pub fn hide_after(
    text: &str,
    before: &str,
    after: &[&str],
    placeholder: &str,
    keep: impl Fn(char) -> bool,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(before) {
        let start = at + before.len();
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let len = rest.find(|c: char| !keep(c)).unwrap_or(rest.len());
        if len > 0 && after.iter().any(|a| rest[len..].starts_with(a)) {
            out.push_str(placeholder);
            rest = &rest[len..];
        }
    }
    out.push_str(rest);
    out
}

/// [`hide_after`] for a decimal number.
pub fn hide_number(text: &str, before: &str, after: &[&str], placeholder: &str) -> String {
    hide_after(text, before, after, placeholder, |c| c.is_ascii_digit() || ".eE+-".contains(c))
}

/// The committed form of a pin's files: small files as they are, large ones as
/// `NAME.sha3-256` holding the hex digest.
fn committed_form(files: BTreeMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    use sha3::{Digest, Sha3_256};
    files
        .into_iter()
        .map(|(name, bytes)| {
            if bytes.len() <= LARGEST_COMMITTED {
                (name, bytes)
            } else {
                let digest: String = Sha3_256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
                (format!("{name}.sha3-256"), format!("{digest}\n").into_bytes())
            }
        })
        .collect()
}

/// Compares `actual` with the committed files of `name`, or writes them when blessing.
pub fn check(name: &str, actual: BTreeMap<String, Vec<u8>>) {
    let actual = committed_form(actual);
    let dir = expected_dir(name);
    if blessing() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (file, bytes) in &actual {
            std::fs::write(dir.join(file), bytes).unwrap();
        }
        eprintln!("note: wrote {} expected files to {}", actual.len(), dir.display());
        return;
    }
    compare(name, &actual, &read_folder(&dir));
}

/// Compares the results in `actual` (its files but [`RECORDS`]) with those committed for
/// another pin, `name`: a merge's or another thread count's results with the sweep's.
/// Blessing leaves them to `name`'s own test.
pub fn check_results_as(name: &str, actual: BTreeMap<String, Vec<u8>>) {
    if blessing() {
        return;
    }
    let results = |files: BTreeMap<String, Vec<u8>>| -> BTreeMap<String, Vec<u8>> {
        files
            .into_iter()
            .filter(|(file, _)| !RECORDS.iter().any(|r| file == r || file == &format!("{r}.sha3-256")))
            .collect()
    };
    compare(name, &results(committed_form(actual)), &results(read_folder(&expected_dir(name))));
}

fn compare(name: &str, actual: &BTreeMap<String, Vec<u8>>, expected: &BTreeMap<String, Vec<u8>>) {
    assert_eq!(
        actual.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{name}: the set of output files changed; if on purpose, run `{REGENERATE}` and review the diff"
    );
    for (file, bytes) in actual {
        if bytes != &expected[file] {
            let (new, old) = (String::from_utf8_lossy(bytes), String::from_utf8_lossy(&expected[file]));
            let line = new.lines().zip(old.lines()).position(|(a, b)| a != b).unwrap_or(0);
            panic!(
                "{name}/{file} changed (first difference at line {}):\n  expected: {}\n  actual:   {}\n\
                 If the change is on purpose, run `{REGENERATE}` and review `git diff tests/expected/`.",
                line + 1,
                old.lines().nth(line).unwrap_or("(end of file)"),
                new.lines().nth(line).unwrap_or("(end of file)"),
            );
        }
    }
}
