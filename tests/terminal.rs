//! The progress bar as a user sees it. Each long command (`sweep`, `merge`, `audit`,
//! `verify --rounds`, `stream --bytes`) runs under a pseudo-terminal (util-linux `script`),
//! and what it wrote to the terminal is replayed through a terminal emulator (`vt100`):
//! the bar must have been drawn, and the screen left at the end must hold no trace of it.
//! Run with standard error piped instead, the same command must print nothing there: only
//! the result, on standard output.
//!
//! Without `script` the tests skip with a note, unless `CI` or `FAIRAUDIT_REQUIRE_SCRIPT`
//! is set (as `.ci/run` sets it; util-linux is part of every Debian install, so CI must run
//! them).

use assert_cmd::Command;
use std::num::NonZeroU16;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_fairaudit");
const ROWS: NonZeroU16 = NonZeroU16::new(200).unwrap();
const COLS: NonZeroU16 = NonZeroU16::new(120).unwrap();

/// Whether `script` can run; without it, a note (or, in CI, a failure).
fn script_available() -> bool {
    let found =
        std::process::Command::new("script").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        let required =
            ["CI", "FAIRAUDIT_REQUIRE_SCRIPT"].into_iter().find(|name| std::env::var_os(name).is_some());
        assert!(required.is_none(), "{required:?} is set but util-linux `script` cannot run");
        eprintln!("note: util-linux `script` not found; skipping the pseudo-terminal tests");
    }
    found
}

/// What a command wrote on the terminal: every byte, and the screen they leave.
struct Terminal {
    raw: String,
    screen: String,
    status: i32,
}

/// Runs `fairaudit ARGS` (then `> STDOUT_FILE` when given) in `dir` under a pseudo-terminal
/// of ROWS x COLS.
fn on_terminal(dir: &Path, args: &[&str], stdout_file: Option<&Path>) -> Terminal {
    let mut command = shell_words::join(std::iter::once(BIN).chain(args.iter().copied()));
    if let Some(file) = stdout_file {
        command = format!("{command} > {}", shell_words::quote(&file.to_string_lossy()));
    }
    let output = std::process::Command::new("script")
        .args(["-qfec", &format!("stty rows {ROWS} cols {COLS}; {command}"), "/dev/null"])
        .current_dir(dir)
        .env("SHELL", "/bin/sh")
        .env("TERM", "xterm")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script runs");
    let mut parser = vt100::Parser::new(ROWS, COLS, 0);
    parser.process(&output.stdout);
    Terminal {
        raw: String::from_utf8_lossy(&output.stdout).into_owned(),
        screen: parser.screen().contents(),
        status: output.status.code().unwrap_or(-1),
    }
}

/// The same command with every stream piped: (status, stdout, stderr).
fn piped(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::cargo_bin("fairaudit").unwrap().current_dir(dir).args(args).output().unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

/// Whether `text` shows a bar of a known total: the share done and the time left, as the
/// one style of `cli/progress.rs` draws them.
fn shows_bar(text: &str) -> bool {
    text.contains("% ") && text.contains("/s, ETA ")
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One long command, three ways: on a terminal with its result sent to a file (the bar is
/// drawn, then cleared: the screen ends blank, the result is in the file), with `--quiet`
/// (no bar at all), and piped (nothing on stderr; the same result on stdout).
fn check_command(dir: &Path, args: &[&str], result: &str) {
    // Beside the test's own files, never in the repository (audit and verify run there).
    let scratch = TempDir::new().unwrap();
    let out = scratch.path().join("stdout.txt");
    let shown = on_terminal(dir, args, Some(&out));
    assert!(shown.status < 2, "{args:?} on a terminal exited {}: {}", shown.status, shown.raw);
    assert!(shows_bar(&shown.raw), "{args:?}: no bar on the terminal:\n{}", shown.raw);
    assert_eq!(shown.screen.trim(), "", "{args:?}: the bar was not cleared:\n{}", shown.raw);
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains(result) && !written.contains('\u{1b}'), "{args:?} printed:\n{written}");

    let quiet: Vec<&str> = args.iter().copied().chain(["--quiet"]).collect();
    let hushed = on_terminal(dir, &quiet, Some(&out));
    assert!(
        hushed.status < 2 && hushed.raw.trim().is_empty(),
        "{quiet:?} drew on the terminal:\n{}",
        hushed.raw
    );

    let (status, stdout, stderr) = piped(dir, args);
    assert!(status < 2, "{args:?} piped exited {status}: {stderr}");
    assert_eq!(stderr, "", "{args:?}: piped, stderr holds more than the result");
    assert!(stdout.contains(result) && !stdout.contains('\u{1b}'), "{args:?} piped printed:\n{stdout}");
}

#[test]
fn sweep_shows_progress_on_a_terminal_only() {
    if !script_available() {
        return;
    }
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("run");
    let out = out.to_str().unwrap();
    let args = ["sweep", "--game", "roulette-european", "--nonces", "0..2000000", "--out", out, "--force"];
    check_command(dir.path(), &args, "battery at alpha 0.01");
}

#[test]
fn merge_shows_progress_on_a_terminal_only() {
    if !script_available() {
        return;
    }
    let dir = TempDir::new().unwrap();
    let mut inputs = Vec::new();
    for (i, range) in ["0..100000", "100000..200000", "200000..300000"].into_iter().enumerate() {
        let shard = dir.path().join(format!("shard{i}"));
        let shard = shard.to_str().unwrap().to_owned();
        let args = ["sweep", "--game", "keno", "--nonces", range, "--quiet", "--out", &shard];
        Command::cargo_bin("fairaudit").unwrap().args(args).assert().success();
        inputs.push(shard);
    }
    let merged = dir.path().join("merged");
    let mut args = vec!["merge", "--out", merged.to_str().unwrap(), "--force"];
    args.extend(inputs.iter().map(String::as_str));
    check_command(dir.path(), &args, "battery at alpha 0.01");
}

#[test]
fn audit_and_verify_show_progress_on_a_terminal_only() {
    if !script_available() {
        return;
    }
    let root = repo();
    let audit = [
        "audit",
        "--game",
        "roulette-european",
        "--outcomes",
        "tests/data/operator-export.csv",
        "--columns",
        "tests/data/operator-export.columns",
        "--delimiter",
        ";",
    ];
    check_command(&root, &audit, "601 rounds read; 601 replayed against the chain, 0 mismatches");
    let verify = ["verify", "--rounds", "../shared/vectors/reference-rounds.csv"];
    check_command(&root, &verify, "rounds checked, 0 mismatches");
}

#[test]
fn stream_shows_progress_on_a_terminal_only_with_a_length() {
    if !script_available() {
        return;
    }
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("stream.bin");
    let args = ["stream", "--bytes", "100000000", "--threads", "2"];
    let shown = on_terminal(dir.path(), &args, Some(&out));
    assert_eq!(shown.status, 0, "{}", shown.raw);
    assert!(shows_bar(&shown.raw), "no bar on the terminal:\n{}", shown.raw);
    assert_eq!(shown.screen.trim(), "", "the bar was not cleared:\n{}", shown.raw);
    assert_eq!(std::fs::metadata(&out).unwrap().len(), 100_000_000, "the bar is not in the bytes");

    let quiet = on_terminal(dir.path(), &["stream", "--bytes", "1000000", "--quiet"], Some(&out));
    assert!(quiet.status == 0 && quiet.raw.trim().is_empty(), "--quiet drew:\n{}", quiet.raw);
}

/// With the result on the terminal too, lines printed while the bar is up (the audit's
/// findings) come out whole, and the screen at the end is exactly what a pipe receives.
#[test]
fn lines_printed_under_the_bar_come_out_whole() {
    if !script_available() {
        return;
    }
    let root = repo();
    let args = [
        "audit",
        "--game",
        "roulette-european",
        "--outcomes",
        "tests/data/operator-export.csv",
        "--columns",
        "tests/data/operator-export.columns",
        "--delimiter",
        ";",
    ];
    let shown = on_terminal(&root, &args, None);
    assert!(shows_bar(&shown.raw), "no bar on the terminal:\n{}", shown.raw);
    let (_, stdout, _) = piped(&root, &args);
    assert!(stdout.contains("line 230 (player p1): payout"), "{stdout}");
    assert_eq!(shown.screen.trim_end(), stdout.trim_end(), "the screen at the end differs from the result");
}
