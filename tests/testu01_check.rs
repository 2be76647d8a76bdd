//! `scripts/testu01-check.sh`, the CI step that runs TestU01's SmallCrush on fairaudit's
//! stream, can fail: it must reject a bad stream, and its reading of TestU01's summary must
//! turn a clearly failed statistic (and only that) into a failure.
//!
//! The summary-reading tests put a stand-in `TestU01Drv` first on PATH, so they run
//! anywhere. The bad-stream test needs the real TestU01Drv (`cargo install TestU01Drv`);
//! without it the test skips with a note, unless `FAIRAUDIT_REQUIRE_TESTU01` is set, as
//! `.ci/run` does, so that CI proves the step can fail on every run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/testu01-check.sh")
}

/// Runs the SmallCrush check on `stream`, with `path_prefix` (if any) searched first.
fn check(stream: &[&str], path_prefix: Option<&Path>) -> Output {
    let mut command = Command::new("bash");
    command.arg(script()).arg("SmallCrush").args(stream);
    if let Some(dir) = path_prefix {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![dir.to_path_buf()];
        dirs.extend(std::env::split_paths(&path));
        command.env("PATH", std::env::join_paths(dirs).unwrap());
    }
    command.output().unwrap()
}

fn report(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// The end of a SmallCrush report, as TestU01 1.2.3 prints it, with `verdict` after the
/// statistics count.
fn summary(verdict: &str) -> String {
    format!(
        "\n========= Summary results of SmallCrush =========\n\n \
         Version:          TestU01 1.2.3\n \
         Generator:        \n \
         Number of statistics:  15\n \
         Total CPU time:   00:00:06.20\n{verdict}\n\n"
    )
}

/// A table of p-values outside [0.001, 0.999], as TestU01 prints it.
fn outside(rows: &[(&str, &str)]) -> String {
    let mut table = String::from(
        " The following tests gave p-values outside [0.001, 0.9990]:\n \
         (eps  means a value < 1.0e-300):\n \
         (eps1 means a value < 1.0e-15):\n\n       \
         Test                          p-value\n \
         ----------------------------------------------\n",
    );
    for (test, p) in rows {
        table.push_str(&format!("  {test:<32}{p}\n"));
    }
    table.push_str(" ----------------------------------------------");
    table
}

/// A folder holding a stand-in `TestU01Drv` that prints `text` and exits with `status`.
fn fake_testu01(text: &str, status: i32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("report.txt"), text).unwrap();
    let program = dir.path().join("TestU01Drv");
    std::fs::write(
        &program,
        format!(
            "#!/bin/sh\ncat >/dev/null\ncat '{}'\nexit {status}\n",
            dir.path().join("report.txt").display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

#[test]
fn all_tests_passed_passes() {
    let fake = fake_testu01(&summary("\n All tests were passed\n"), 0);
    let output = check(&["true"], Some(fake.path()));
    assert_eq!(output.status.code(), Some(0), "{}", report(&output));
    assert!(report(&output).contains("all 15 statistics passed"));
}

#[test]
fn suspect_p_values_pass_and_are_listed() {
    let table = outside(&[("6  MaxOft AD", "1 - 4.2e-4"), ("9  HammingIndep", "7.1e-4")]);
    let fake = fake_testu01(&summary(&table), 0);
    let output = check(&["true"], Some(fake.path()));
    let text = report(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("SUSPECT: 6 MaxOft AD, p = 1 - 4.2e-4"), "{text}");
    assert!(text.contains("SUSPECT: 9 HammingIndep, p = 7.1e-4"), "{text}");
    assert!(text.contains("2 of 15 outside [0.001, 0.999]"), "{text}");
}

#[test]
fn one_clear_failure_fails_the_check() {
    for p in ["eps", "1 - eps1", "3.2e-9", "1 - 2.0e-7"] {
        let table = outside(&[("9  HammingIndep", "7.1e-4"), ("10  RandomWalk1 H", p)]);
        let fake = fake_testu01(&summary(&table), 0);
        let output = check(&["true"], Some(fake.path()));
        let text = report(&output);
        assert_eq!(output.status.code(), Some(1), "p = {p}: {text}");
        assert!(text.contains(&format!("FAILED: 10 RandomWalk1 H, p = {p}")), "{text}");
        assert!(text.contains("SmallCrush: FAILED: 1 of 15"), "{text}");
    }
}

#[test]
fn a_report_without_summary_or_a_failing_stream_is_not_a_pass() {
    let fake = fake_testu01("error while reading from stdin: failed to fill whole buffer\n", 1);
    let output = check(&["true"], Some(fake.path()));
    assert_eq!(output.status.code(), Some(2), "{}", report(&output));
    assert!(report(&output).contains("no summary reported"));

    let fake = fake_testu01(&summary("\n All tests were passed\n"), 0);
    let output = check(&["false"], Some(fake.path()));
    assert_eq!(output.status.code(), Some(2), "{}", report(&output));
    assert!(report(&output).contains("the stream command exited with status 1"));
}

/// Consecutive 32-bit integers 0, 1, 2, … (little-endian): as far from random as a stream
/// of distinct words can be. Perl, because Debian always has it; `or exit 0` stops the loop
/// when TestU01Drv closes the pipe.
const COUNTER: [&str; 3] =
    ["perl", "-e", "for (my $i = 0; ; $i += 4096) { print pack('V*', $i .. $i + 4095) or exit 0 }"];

#[test]
fn a_counter_stream_fails_the_real_smallcrush_check() {
    if Command::new("TestU01Drv").arg("--help").output().is_err() {
        if std::env::var_os("FAIRAUDIT_REQUIRE_TESTU01").is_some() {
            panic!("FAIRAUDIT_REQUIRE_TESTU01 is set but TestU01Drv is not installed");
        }
        eprintln!("note: TestU01Drv not installed: the check's failure on a bad stream was not tested");
        return;
    }
    let output = check(&COUNTER, None);
    let text = report(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("SmallCrush: FAILED"), "{text}");
}
