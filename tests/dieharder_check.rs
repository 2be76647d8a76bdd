//! `scripts/dieharder-check.sh`, the CI step that runs dieharder on fairaudit's stream, can
//! fail: it must reject a bad stream, and its reading of dieharder's report must turn a
//! FAILED line (and only that) into a failure.
//!
//! The report-reading tests put a stand-in `dieharder` first on PATH, so they run anywhere.
//! The bad-stream test needs the real dieharder; without it the test skips with a note,
//! unless `FAIRAUDIT_REQUIRE_DIEHARDER` is set, as `.ci/run` does, so that CI proves the
//! step can fail on every run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/dieharder-check.sh")
}

/// Runs the check on `stream`, with `path_prefix` (if any) searched first for `dieharder`.
fn check(stream: &[&str], path_prefix: Option<&Path>) -> Output {
    let mut command = Command::new("bash");
    command.arg(script()).args(stream);
    if let Some(dir) = path_prefix {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![dir.to_path_buf()];
        dirs.extend(std::env::split_paths(&path));
        command.env("PATH", std::env::join_paths(dirs).unwrap());
    }
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const HEADER: &str = "\
#=============================================================================#
#            dieharder version 3.31.1 Copyright 2003 Robert G. Brown          #
#=============================================================================#
   rng_name    |rands/second|   Seed   |
stdin_input_raw|  3.16e+07  |         1|
#=============================================================================#
        test_name   |ntup| tsamples |psamples|  p-value |Assessment
#=============================================================================#
";

/// A folder holding a stand-in `dieharder` that prints `HEADER` + `results` and exits
/// with `status`, whatever it is asked.
fn fake_dieharder(results: &str, status: i32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("report.txt"), format!("{HEADER}{results}")).unwrap();
    let program = dir.path().join("dieharder");
    std::fs::write(
        &program,
        format!("#!/bin/sh\ncat '{}'\nexit {status}\n", dir.path().join("report.txt").display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

#[test]
fn passed_and_weak_assessments_pass() {
    let fake = fake_dieharder(
        "   diehard_birthdays|   0|       100|     100|0.66815466|  PASSED  \n\
         \x20       sts_serial|   3|    100000|     100|0.99712345|   WEAK   \n",
        0,
    );
    let output = check(&["true"], Some(fake.path()));
    assert_eq!(output.status.code(), Some(0), "{}{}", text(&output.stdout), text(&output.stderr));
    assert!(text(&output.stdout).contains("no FAILED assessment"));
}

#[test]
fn one_failed_assessment_fails_the_check() {
    let fake = fake_dieharder(
        "   diehard_birthdays|   0|       100|     100|0.66815466|  PASSED  \n\
         \x20      sts_serial|  16|    100000|     100|0.00000000|  FAILED  \n",
        0,
    );
    let output = check(&["true"], Some(fake.path()));
    assert_eq!(output.status.code(), Some(1), "{}{}", text(&output.stdout), text(&output.stderr));
    assert!(text(&output.stdout).contains("dieharder: FAILED"));
}

#[test]
fn a_report_without_assessments_is_not_a_pass() {
    let fake = fake_dieharder("# stdin_input_raw(): Error: EOF\n", 0);
    let output = check(&["true"], Some(fake.path()));
    assert_eq!(output.status.code(), Some(2), "{}{}", text(&output.stdout), text(&output.stderr));
    assert!(text(&output.stderr).contains("no assessment reported"));
}

#[test]
fn a_failing_stream_command_is_not_a_pass() {
    let fake = fake_dieharder("   diehard_birthdays|   0|       100|     100|0.66815466|  PASSED  \n", 0);
    let output = check(&["false"], Some(fake.path()));
    assert_eq!(output.status.code(), Some(2), "{}{}", text(&output.stdout), text(&output.stderr));
    assert!(text(&output.stderr).contains("the stream command exited with status 1"));
}

/// Consecutive 32-bit integers 0, 1, 2, … (little-endian, as dieharder reads them): as far
/// from random as a stream of distinct words can be. Perl, because Debian always has it.
/// `or exit 0`: when dieharder closes the pipe, a print fails rather than the process dying
/// if SIGPIPE is ignored, and the loop must not go on writing into nothing.
const COUNTER: [&str; 3] =
    ["perl", "-e", "for (my $i = 0; ; $i += 4096) { print pack('V*', $i .. $i + 4095) or exit 0 }"];

#[test]
fn a_counter_stream_fails_the_real_dieharder_check() {
    if Command::new("dieharder").arg("-l").output().is_err() {
        if std::env::var_os("FAIRAUDIT_REQUIRE_DIEHARDER").is_some() {
            panic!("FAIRAUDIT_REQUIRE_DIEHARDER is set but dieharder is not installed");
        }
        eprintln!("note: dieharder not installed: the check's failure on a bad stream was not tested");
        return;
    }
    let output = check(&COUNTER, None);
    let report = format!("{}{}", text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "{report}");
    assert!(report.contains("FAILED"), "{report}");
}
