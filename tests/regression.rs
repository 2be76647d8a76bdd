//! Regression tests, in the manner of ripgrep's `tests/regression.rs`: each bug that was
//! fixed has a test named for what broke, with a comment pointing at its story. New bugs
//! get their test here.
//!
//! Index of the hardening issue's cases (issue 12, "Nothing false, nothing lost, no
//! panic"), case number → test:
//!
//! | case | what broke                                   | test                                                        |
//! |------|----------------------------------------------|-------------------------------------------------------------|
//! | 1    | empty `draw_order` cells faked a position bias | `cli_audit.rs::empty_draw_order_cells_do_not_fake_a_position_bias`, `a_column_of_empty_draw_order_cells_disables_the_position_tests` |
//! | 2    | closed pipe / full disk panicked               | `a_closed_pipe_ends_quietly_after_writing_the_files`, `a_full_disk_on_stdout_is_exit_2`, `a_closed_stdout_is_exit_2_not_silent_success` |
//! | 3    | out-of-range tally fields panicked             | `every_mutated_tally_field_is_refused_with_one_line`, `resume_refuses_a_mutated_tally_before_sweeping` |
//! | 4    | a 32,773-digit multiplier panicked             | `a_huge_multiplier_is_refused_not_formatted`                 |
//! | 5    | unbounded threads, spawn failure panicked      | `absurd_thread_counts_are_refused`, `a_process_limit_is_exit_2_not_a_panic` |
//! | 6    | `/dev/zero` read until the allocation failed   | `an_endless_line_is_refused_by_every_reader`                 |
//! | 7    | inconsistent tallies accepted by `merge`       | `every_mutated_tally_field_is_refused_with_one_line` (plans, coverage, overflow, commitments) |
//! | 8    | forced sweep + SIGTERM mixed two runs          | `a_forced_sweep_interrupted_leaves_only_its_own_files`       |
//! | 9    | SIGKILL while writing mixed two runs           | `sigkill_at_any_instant_leaves_one_whole_run`                |
//! | 10   | two writers on one folder                      | `a_second_writer_on_the_same_folder_is_refused`              |
//! | 11   | `sweep`/`merge` replaced an audit's files       | `a_sweep_or_merge_never_replaces_an_audit_without_force`     |
//! | 12   | run facts read from the progress bar           | `an_interrupted_run_reports_the_rounds_its_tally_holds`       |
//! | 13   | an unwritable `--out` checked after the work   | `an_unwritable_out_is_refused_before_any_work`               |
//! | 14   | a garbage tally could not be replaced          | `sweep_force_replaces_a_garbage_or_foreign_tally`             |
//! | 15   | raw newlines, 1 MB fields, escapes in errors   | `errors_quote_a_short_escaped_excerpt_on_one_line`           |
//! | 16   | spreadsheet injection past the first character | `seeds_a_spreadsheet_would_run_are_neutralised`, `the_csv_checker_sees_what_a_spreadsheet_sees` |
//! | 17   | number parsing differed between readers        | `nonces_are_parsed_alike_by_audit_and_verify`, `paytable_picks_refuse_signs_spaces_and_leading_zeros`, `sigterm_during_verify_out_leaves_no_temporary_file` |
//! | 18   | `:` in seeds made two seed pairs one           | `colons_in_seeds_are_warned_about_everywhere`                |
//! | 19   | a percentage scaled twice in report.html       | `report_html_figures_equal_the_csv_figures`                  |
//!
//! Index of the second hardening issue's cases (issue 30, "Nothing injected, nothing
//! corrupted accepted, nothing overwritten"), case number → test (cases not listed are
//! all fixed):
//!
//! | case | what broke                                   | test                                                        |
//! |------|----------------------------------------------|-------------------------------------------------------------|
//! | 1    | player ids raw in `rtp.csv`, `tests.csv`       | `hostile_text_in_every_user_field_runs_in_no_csv`            |
//! | 2    | formulas after a line break (`;` imports)      | `hostile_text_in_every_user_field_runs_in_no_csv`, `the_csv_checker_sees_what_a_spreadsheet_sees` |
//! | 3    | corrupted tallies accepted by `merge`          | `every_changed_number_of_a_tally_is_refused_by_its_checksum`, `a_changed_tally_sealed_again_is_refused_or_merges_identically`, `tally::anchor::tests` (a forgery of several counters: docs/guarantees.md) |
//! | 4    | CRLF inside a quoted seed rewritten to LF      | `a_crlf_inside_a_quoted_seed_is_kept_on_every_path`, `columns.rs::crlf_files_number_their_lines_as_lf_files_do` |
//! | 5    | `--out` links, locks by name, links copied deep | `output_folders_and_links_neither_follow_nor_pile_up`        |
//! | 6    | a tally linked to /dev/zero or a FIFO          | `a_tally_that_is_not_a_regular_file_is_refused_at_once`      |
//! | 7    | ESC sequences from files redrew the terminal   | `file_text_on_the_terminal_acts_on_nothing`                  |
//! | 8    | `0x`, spaces, `05`, `+5`, `5.0`, `５`, Keno results in draw order read two ways | `verify_and_audit_read_every_value_alike`, `games::parse::tests`, `fields::tests::digests_are_64_hex_digits_and_nothing_else` |
//! | 9    | `merge` killed by SIGTERM with 143             | `sigterm_stops_a_merge_with_130_and_leaves_nothing`          |
//! | 10   | `verify --rounds` with every cell empty "checked"; lock files piling up; skipped nonces replayed on one thread; merged report "0 rounds/s"; `--delimiter $'\r'` raw | `cli_conformance.rs::a_rounds_file_with_nothing_filled_fails`, `output_folders_and_links_neither_follow_nor_pile_up`, `sigterm_stops_a_merge_with_130_and_leaves_nothing`, `long_gaps_are_replayed_alike_on_every_thread`, `a_merged_report_says_it_swept_nothing`, `a_raw_delimiter_value_is_shown_escaped` |
//!
//! Index of issue 59's output-folder cases (a hostile review), case number → test:
//!
//! | case | what broke                                   | test                                                        |
//! |------|----------------------------------------------|-------------------------------------------------------------|
//! | 7    | a run deleted the user's `inputs/` and `manifest.json` in `--out` | `a_users_inputs_and_manifest_in_out_survive_the_runs_into_it` |
//! | 8    | folders carried over lost mode, owner, times | `folders_in_out_keep_their_mode_and_times_and_out_keeps_its_mode` |
//! | 12   | `--out` echoed raw (ESC, BEL, RLO)            | `an_out_path_is_shown_escaped_by_every_command`              |
//!
//! Found while fixing them (same issue, same session):
//! - rayon's global pool panicked under a process limit: `a_process_limit_is_exit_2_not_a_panic`.
//! - SIGTERM was ignored while `verify --rounds -` waited on an idle pipe:
//!   `sigterm_during_verify_out_leaves_no_temporary_file`.
//! - `a;=1+1;b` was quoted but a spreadsheet set to `;` ignores a `,` file's quotes and
//!   ran `=1+1`: `seeds_a_spreadsheet_would_run_are_neutralised`.
//! - `stream >&-` and `rtp >&-` exited 0 (Rust reopens a closed fd 1 on /dev/null before
//!   `main`): `a_closed_stdout_is_exit_2_not_silent_success`.

mod common;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("fairaudit")
}

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

fn vectors(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/vectors").join(name)
}

/// Asserts the error contract: exit 2, exactly one line on stderr starting `error:`,
/// containing `needle`, no panic. Returns the line.
fn assert_one_line_error(output: &Output, needle: &str) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "exit status; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "a panic: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr:?}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains(needle), "{needle:?} not in {stderr:?}");
    stderr
}

fn run(args: &[&str]) -> Output {
    fairaudit().args(args).output().unwrap()
}

/// Waits for `child`, killing it and failing when it outlives `limit` (a process that
/// ignores a signal must fail the test, not hang it).
fn exit_code_within(child: &mut std::process::Child, limit: Duration) -> Option<i32> {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the process did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn send(signal: &str, pid: u32) {
    std::process::Command::new("kill").args([signal, &pid.to_string()]).status().unwrap();
}

/// Every file of an output folder, by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().into_string().unwrap(), std::fs::read(e.path()).unwrap()))
        .collect()
}

fn names(dir: &Path) -> Vec<String> {
    files(dir).into_keys().collect()
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Rounds a tally file holds: the sum of its segments' lengths.
fn tallied_rounds(tally: &Value) -> u64 {
    tally["entries"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|entry| entry["segments"].as_array().unwrap())
        .map(|segment| segment["end"].as_u64().unwrap() - segment["start"].as_u64().unwrap())
        .sum()
}

// ---------------------------------------------------------------------------------------
// Case 1: false findings from empty cells.

/// Case 1, second form: a `draw_order` column present but empty on every row was read as
/// "drawn in sorted order" and FAILed `position_by_number` at p < 1e-300.
#[test]
fn a_column_of_empty_draw_order_cells_disables_the_position_tests() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("nonce,draw_order,result\n");
    for nonce in 0..1000u64 {
        let round = fairaudit::verify::replay(fairaudit::games::GameId::Keno, "s", "c", nonce);
        text.push_str(&format!("{nonce},,{}\n", round.result));
    }
    let file = write(dir.path(), "no-order.csv", text);
    fairaudit()
        .args(["audit", "--game", "keno", "--outcomes"])
        .arg(&file)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("position_by_number").not())
        .stdout(predicate::str::contains("PASS"));
}

// ---------------------------------------------------------------------------------------
// Case 2: closed pipes and full disks.

/// Runs `args` with stdout on a pipe whose reading end is closed before the process
/// starts, so its first write fails with EPIPE (`fairaudit rtp | head -0`, deterministic).
fn with_closed_pipe(args: &[&str], cwd: &Path) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    std::process::Command::new(bin()).args(args).current_dir(cwd).stdout(writer).output().unwrap()
}

fn assert_quiet_success(output: &Output) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("error"), "{stderr}");
}

/// Case 2: `fairaudit rtp | head -1` panicked "failed printing to stdout", and with
/// `--out` the files were never written. A closed pipe now ends printing quietly (exit 0)
/// after every file asked for is written.
#[test]
fn a_closed_pipe_ends_quietly_after_writing_the_files() {
    let dir = tempfile::tempdir().unwrap();
    assert_quiet_success(&with_closed_pipe(&["rtp"], dir.path()));

    let rounds = vectors("reference-rounds.csv");
    let rounds = rounds.to_str().unwrap();
    let output = with_closed_pipe(&["verify", "--rounds", rounds, "--out", "m.csv"], dir.path());
    assert_quiet_success(&output);
    assert!(dir.path().join("m.csv").is_file(), "verify --out wrote its file");

    let log = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/american-log.csv");
    let output = with_closed_pipe(
        &["audit", "--game", "roulette-american", "--outcomes", log.to_str().unwrap(), "--out", "D"],
        dir.path(),
    );
    assert_quiet_success(&output);
    for name in ["summary.json", "tests.csv", "report.html", "run.json"] {
        assert!(dir.path().join("D").join(name).is_file(), "audit --out wrote {name}");
    }
}

/// Case 2: `fairaudit rtp > /dev/full` panicked. A full disk is exit 2, naming where.
#[test]
fn a_full_disk_on_stdout_is_exit_2() {
    let full = std::fs::File::options().write(true).open("/dev/full").unwrap();
    let output = std::process::Command::new(bin())
        .args(["rtp", "--game", "roulette-european"])
        .stdout(full)
        .output()
        .unwrap();
    assert_one_line_error(&output, "standard output");
}

/// Found with case 17: `stream --bytes 1000 >&-` exited 0 having written nothing, because
/// Rust's runtime reopens a closed fd 1 on /dev/null before `main`. A closed stdout is
/// now seen before that, and is exit 2.
#[test]
fn a_closed_stdout_is_exit_2_not_silent_success() {
    for command in ["stream --bytes 1000", "rtp"] {
        let output = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("exec '{}' {command} >&-", bin().display()))
            .output()
            .unwrap();
        assert_one_line_error(&output, "standard output is closed");
    }
}

// ---------------------------------------------------------------------------------------
// Cases 3 and 7: tallies validated as a whole.

type Mutation = (&'static str, fn(&mut Value));

fn segment(tally: &mut Value) -> &mut Value {
    &mut tally["entries"][0]["segments"][0]["tally"]
}

const MAX: u64 = u64::MAX;

/// Mutations of a complete European roulette tally of nonces 0..2000 (the hostile-user
/// study's list), each of which must be refused, even sealed again with a valid checksum
/// (as a forger would).
const ROULETTE_MUTATIONS: &[Mutation] = &[
    ("colour runs cap 0", |t| segment(t)["colour_runs"]["cap"] = 0.into()),
    ("colour runs cap huge", |t| segment(t)["colour_runs"]["cap"] = 1_000_000_000u64.into()),
    ("colour runs symbols 0", |t| segment(t)["colour_runs"]["symbols"] = 0.into()),
    ("colour runs symbols 1000", |t| segment(t)["colour_runs"]["symbols"] = 1000.into()),
    ("open run first symbol", |t| segment(t)["colour_runs"]["open"]["first"] = 7.into()),
    ("open run last symbol", |t| segment(t)["colour_runs"]["open"]["last"] = 7.into()),
    ("open run prefix", |t| segment(t)["colour_runs"]["open"]["prefix"] = 5000.into()),
    ("open run length", |t| segment(t)["colour_runs"]["open"]["len"] = 5000.into()),
    ("open run prefix 0", |t| segment(t)["colour_runs"]["open"]["prefix"] = 0.into()),
    ("run histogram short", |t| segment(t)["colour_runs"]["hist"] = serde_json::json!([0, 0, 0])),
    ("run histogram u64::MAX", |t| segment(t)["colour_runs"]["hist"][0] = MAX.into()),
    ("gaps outcomes 0", |t| segment(t)["gaps"]["outcomes"] = 0.into()),
    ("gaps cap 0", |t| segment(t)["gaps"]["cap"] = 0.into()),
    ("gaps cap huge", |t| segment(t)["gaps"]["cap"] = 1_000_000_000_000u64.into()),
    ("gaps first position", |t| segment(t)["gaps"]["first"][0] = 1_000_000.into()),
    ("gaps last position", |t| segment(t)["gaps"]["last"][0] = 1_000_000.into()),
    ("gaps length", |t| segment(t)["gaps"]["len"] = 1.into()),
    ("edges too long", |t| segment(t)["edges"]["head"].as_array_mut().unwrap().push(3.into())),
    ("edge pocket out of range", |t| segment(t)["edges"]["head"][0] = 99.into()),
    ("edges empty", |t| segment(t)["edges"]["head"] = serde_json::json!([])),
    ("pocket count u64::MAX", |t| segment(t)["pockets"][0] = MAX.into()),
    ("pockets short", |t| {
        segment(t)["pockets"].as_array_mut().unwrap().pop();
    }),
    ("pairs not summing to rounds - 1", |t| {
        let pairs = &mut segment(t)["pairs"][0];
        *pairs = (pairs.as_u64().unwrap() + 1).into();
    }),
    ("lag pairs u64::MAX", |t| segment(t)["lag_pairs"][0] = MAX.into()),
    ("stream rounds", |t| segment(t)["stream"]["rounds"] = 5.into()),
    ("stream rejections u64::MAX", |t| segment(t)["stream"]["rejections"] = serde_json::json!([MAX])),
    ("stream words", |t| segment(t)["stream"]["words"] = 1.into()),
    ("complete with no segments", |t| t["entries"][0]["segments"] = serde_json::json!([])),
    ("plan backwards", |t| t["plan"]["nonces"][0] = serde_json::json!({"start": 5000, "end": 0})),
    ("plan bigger than its data", |t| t["plan"]["nonces"][0]["end"] = 10_000.into()),
    ("wrong commitment", |t| t["plan"]["seed_pairs"][0]["commitment"] = "0".repeat(64).into()),
    ("segment outside the plan", |t| {
        t["entries"][0]["segments"][0]["start"] = 1.into();
        t["entries"][0]["segments"][0]["end"] = 2001.into();
    }),
    ("version 1", |t| t["version"] = 1.into()),
    ("version 2, before checksums", |t| t["version"] = 2.into()),
    ("version 4", |t| t["version"] = 4.into()),
    ("game not in the plan", |t| t["entries"][0]["game"] = "keno".into()),
    ("seed pair index", |t| t["entries"][0]["seed_pair"] = 5.into()),
    ("no entries", |t| t["entries"] = serde_json::json!([])),
    ("server seed not the default's", |t| t["plan"]["seed_pairs"][0]["server_seed"] = "x".into()),
];

fn sweep_into(out: &Path, game: &str, nonces: &str) {
    fairaudit()
        .args(["sweep", "--game", game, "--nonces", nonces, "--quiet", "--out"])
        .arg(out)
        .assert()
        .code(0);
}

/// Cases 3 and 7: `merge` panicked in `tally/runs.rs`, `tally/gaps.rs`, `tally/roulette.rs`
/// and `stats/distributions.rs` on out-of-range fields, and accepted empty complete
/// tallies, backwards plans, plans bigger than their data, u64::MAX counters that wrap
/// and wrong commitments. Every one is now exit 2 with one line naming the problem.
#[test]
fn every_mutated_tally_field_is_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (roulette, keno) = (dir.path().join("roulette"), dir.path().join("keno"));
    sweep_into(&roulette, "roulette-european", "0..2000");
    sweep_into(&keno, "keno", "0..2000");
    // The unmutated files merge: the refusals below are the mutations' doing.
    for input in [&roulette, &keno] {
        fairaudit()
            .arg("merge")
            .arg("--out")
            .arg(dir.path().join("ok"))
            .arg(input)
            .arg("--force")
            .assert()
            .code(0);
    }

    let mut cases: Vec<(String, Value)> = Vec::new();
    let base = json(&roulette.join("tally.json"));
    for (name, mutate) in ROULETTE_MUTATIONS {
        let mut tally = base.clone();
        mutate(&mut tally);
        cases.push((name.to_string(), tally));
    }
    // Keno: every counter array at u64::MAX and one short, every edge or stream field
    // out of range.
    let base = json(&keno.join("tally.json"));
    let counters = base["entries"][0]["segments"][0]["tally"].as_object().unwrap().clone();
    for (key, value) in &counters {
        if let Some(array) = value.as_array().filter(|a| a.first().is_some_and(Value::is_u64)) {
            let mut tally = base.clone();
            segment(&mut tally)[key][0] = MAX.into();
            cases.push((format!("keno {key} u64::MAX"), tally));
            let mut tally = base.clone();
            segment(&mut tally)[key] = Value::from(array[..array.len() - 1].to_vec());
            cases.push((format!("keno {key} short"), tally));
        } else if let Some(fields) = value.as_object() {
            for (field, inner) in fields {
                let mut tally = base.clone();
                if inner.is_u64() {
                    segment(&mut tally)[key][field] = 1_000_000_000u64.into();
                } else if inner.as_array().is_some_and(|a| a.first().is_some_and(Value::is_u64)) {
                    segment(&mut tally)[key][field][0] = 200.into();
                } else {
                    continue;
                }
                cases.push((format!("keno {key}.{field}"), tally));
            }
        }
    }
    assert!(cases.len() > 50, "the study's ~57 mutations: {}", cases.len());
    for (name, tally) in cases {
        let input = dir.path().join("mutated");
        std::fs::create_dir_all(&input).unwrap();
        write(&input, "tally.json", common::sealed_tally(&tally));
        let output =
            fairaudit().arg("merge").arg("--out").arg(dir.path().join("out")).arg(&input).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.code() == Some(2) && stderr.lines().count() == 1 && !stderr.contains("panicked"),
            "mutation {name:?}: exit {:?}, stderr {stderr}",
            output.status.code()
        );
        assert!(!dir.path().join("out").exists(), "mutation {name:?}: nothing written");
    }
}

/// A long one-thread sweep into `out`, started and given 300 ms to claim the folder.
fn long_sweep_writing(out: &Path) -> std::process::Child {
    let child = std::process::Command::new(bin())
        .args(["sweep", "--nonces", "0..8000000", "--game", "roulette-american", "--threads", "1", "--quiet"])
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    child
}

/// Starts a long one-thread sweep into `out` and stops it with SIGTERM after `wait`.
fn interrupted_sweep(out: &Path, extra: &[&str], wait: Duration) {
    let mut child = std::process::Command::new(bin())
        .args(["sweep", "--nonces", "0..8000000", "--game", "roulette-american", "--threads", "1"])
        .args(["--chunk-size", "4096", "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(wait);
    send("-TERM", child.id());
    assert_eq!(
        exit_code_within(&mut child, Duration::from_secs(30)),
        Some(130),
        "interrupted sweeps exit 130"
    );
}

/// Case 3: `sweep --resume` on a tally with out-of-range fields panicked after doing the
/// sweep's work. It is now refused before any work.
#[test]
fn resume_refuses_a_mutated_tally_before_sweeping() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    interrupted_sweep(&out, &[], Duration::from_millis(400));
    let mut tally = json(&out.join("tally.json"));
    assert_eq!(tally["complete"], false);
    tally["entries"][0]["segments"][0]["tally"]["colour_runs"]["cap"] = 0.into();
    write(&out, "tally.json", common::sealed_tally(&tally));
    let output = fairaudit()
        .args(["sweep", "--nonces", "0..8000000", "--game", "roulette-american", "--threads", "1"])
        .args(["--chunk-size", "4096", "--quiet", "--resume", "--out"])
        .arg(&out)
        // Were the sweep run first, 8 million rounds on one thread would outlast this.
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_one_line_error(&output, "tally.json");
}

// ---------------------------------------------------------------------------------------
// Cases 4 to 6: limits.

/// Case 4: a multiplier of 32,773 or more digits panicked in `cli/rtp.rs` ("Formatting
/// argument out of range"), after 20 s of arithmetic at 70 KB. Decimals are capped.
#[test]
fn a_huge_multiplier_is_refused_not_formatted() {
    let dir = tempfile::tempdir().unwrap();
    let example = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/keno-paytable-example.csv"),
    )
    .unwrap();
    let huge = format!("1.{}", "9".repeat(40_000));
    let text = example.replacen("1,1,3.95", &format!("1,1,{huge}"), 1);
    assert_ne!(text, example);
    let paytable = write(dir.path(), "paytable.csv", text);
    let output = run(&["rtp", "--game", "keno", "--paytable", paytable.to_str().unwrap()]);
    let line = assert_one_line_error(&output, "digits");
    assert!(line.len() < 400, "a short excerpt, not the whole number: {} bytes", line.len());
}

/// Case 5: `stream --threads 4294967295` spawned 9,357 threads before it was stopped, and
/// `sweep --threads 5000` on 100 nonces took 27 s. Thread counts are capped at 512.
#[test]
fn absurd_thread_counts_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for threads in ["4294967295", "5000", "513", "0"] {
        assert_one_line_error(&run(&["stream", "--bytes", "100", "--threads", threads]), "--threads");
        let output = fairaudit()
            .args(["sweep", "--nonces", "0..100", "--quiet", "--threads", threads, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert_one_line_error(&output, "--threads");
    }
}

/// Case 5: under a process limit, `--threads 64` panicked "failed to spawn thread" (and
/// rayon's global pool panicked even without `--threads`). Spawning failures are exit 2.
/// Needs root to drop to another user whose process count the limit binds (root is
/// exempt from RLIMIT_NPROC); skips with a note otherwise.
#[test]
fn a_process_limit_is_exit_2_not_a_panic() {
    if unsafe { libc::geteuid() } != 0
        || std::process::Command::new("setpriv").arg("--help").output().is_err()
    {
        eprintln!("note: not root or no setpriv; skipping the process-limit regression test");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let copy = dir.path().join("fairaudit");
    std::fs::copy(bin(), &copy).unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Six processes or threads for the user: enough to start, not for 64 workers.
    for command in
        ["stream --bytes 100000 --threads 64", "sweep --nonces 0..100000 --threads 64 --quiet --out out"]
    {
        let output = std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "bash", "-c"])
            .arg(format!(
                "ulimit -u 6; cd '{}' && exec ./fairaudit {command} >/dev/null",
                dir.path().display()
            ))
            .output()
            .unwrap();
        assert_one_line_error(&output, "thread");
    }
}

/// Case 6: `audit --outcomes /dev/zero` (and `verify`, `rtp`) read one endless line until
/// the allocation failed (abort, exit 134). Lines are capped at 1 MiB.
#[test]
fn an_endless_line_is_refused_by_every_reader() {
    for args in [
        &["audit", "--game", "keno", "--outcomes", "/dev/zero"][..],
        &["verify", "--rounds", "/dev/zero"],
        &["rtp", "--game", "keno", "--paytable", "/dev/zero"],
        &["rtp", "--claims", "/dev/zero"],
    ] {
        assert_one_line_error(&run(args), "longer than");
    }
}

// ---------------------------------------------------------------------------------------
// Cases 8 to 14: output folders.

/// Case 8: a different sweep with `--force` into a folder, then SIGTERM: the folder held
/// the new interrupted `tally.json` beside the old run's `report.html`, `tests.csv` and a
/// PASS `summary.json`. Now it holds the interrupted run's files only.
#[test]
fn a_forced_sweep_interrupted_leaves_only_its_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    sweep_into(&out, "keno", "0..1000");
    assert!(out.join("summary.json").is_file());
    interrupted_sweep(&out, &["--force"], Duration::from_millis(400));
    assert_eq!(names(&out), ["run.json", "tally.json"]);
    assert_eq!(json(&out.join("tally.json"))["plan"]["games"][0], "roulette-american");
}

/// Case 12: SIGTERM half a second into a 6M-round sweep printed "6000000 of 6000000
/// rounds tallied" and `run.json` said so, while the tally held 327,680: the facts came
/// from the progress bar. They now come from the tally.
#[test]
fn an_interrupted_run_reports_the_rounds_its_tally_holds() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    interrupted_sweep(&out, &[], Duration::from_millis(400));
    let (tally, run) = (json(&out.join("tally.json")), json(&out.join("run.json")));
    let held = tallied_rounds(&tally);
    assert!(held < 8_000_000, "the sweep was interrupted: {held}");
    assert_eq!(run["rounds_this_run"].as_u64(), Some(held));
    assert_eq!(run["complete"], false);
}

/// Case 9: SIGKILL during the write phase left the new `tally.json` and `run.json` with
/// the old `tests.csv` and `report.html` in 13 of 20 runs, plus a temp file. Killed at
/// any instant, the folder now holds exactly the old run or exactly the new one, and the
/// next run removes what the killed one left beside it.
#[test]
fn sigkill_at_any_instant_leaves_one_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new, out) = (dir.path().join("old"), dir.path().join("new"), dir.path().join("out"));
    let new_args = ["sweep", "--game", "keno", "--nonces", "0..60000", "--quiet", "--force", "--out"];
    sweep_into(&old, "keno", "0..1000");
    fairaudit().args(new_args).arg(&new).assert().code(0);
    // run.json records timing, report.html the command line: compared by kind below.
    let comparable = |dir: &Path| {
        let mut files = files(dir);
        files.remove("report.html");
        let run = files.remove("run.json").map(|bytes| serde_json::from_slice::<Value>(&bytes).unwrap());
        (files, run.map(|run| run["nonces"].clone()))
    };
    let (old_files, new_files) = (comparable(&old), comparable(&new));
    let mut seen_new = false;
    for attempt in 0..12u64 {
        let _ = std::fs::remove_dir_all(&out);
        sweep_into(&out, "keno", "0..1000");
        let child =
            std::process::Command::new(bin()).args(new_args).arg(&out).stdout(Stdio::null()).spawn().unwrap();
        // Kill from early in the sweep to after the write, spread over the attempts.
        std::thread::sleep(Duration::from_millis(15 * attempt * attempt));
        send("-KILL", child.id());
        let _ = child.wait_with_output();
        let now = comparable(&out);
        assert!(now == old_files || now == new_files, "attempt {attempt}: a mixed folder {:?}", names(&out));
        seen_new |= now == new_files;
        assert!(out.join("report.html").is_file());
        // The next run cleans up whatever the killed one left beside the folder.
        fairaudit().args(new_args).arg(&out).assert().code(0);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.contains("fairaudit-new") || name.contains("fairaudit-old"))
            .collect();
        assert!(leftovers.is_empty(), "attempt {attempt}: {leftovers:?}");
    }
    // Not asserted: whether some kill landed after the swap depends on the machine's speed.
    eprintln!("note: a kill after the swap was {}observed", if seen_new { "" } else { "not " });
}

/// Case 10: two sweeps on the same `--out` at once had no lock: one silently replaced the
/// other, and one trial in 8 left a mixed folder. The second writer is now refused.
#[test]
fn a_second_writer_on_the_same_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut first = long_sweep_writing(&out);
    let second = fairaudit()
        .args(["sweep", "--nonces", "0..100", "--game", "keno", "--quiet", "--force", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_one_line_error(&second, "another fairaudit run is writing");
    send("-TERM", first.id());
    assert_eq!(first.wait().unwrap().code(), Some(130));
    assert_eq!(
        json(&out.join("tally.json"))["plan"]["games"][0],
        "roulette-american",
        "the first run's files"
    );
}

/// Case 11: `audit --out D`, then `sweep --out D` (or `merge`) replaced `tests.csv`,
/// `summary.json` and `rtp.csv` without `--force`.
#[test]
fn a_sweep_or_merge_never_replaces_an_audit_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let (audit, tallies) = (dir.path().join("audit"), dir.path().join("tallies"));
    let log = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/american-log.csv");
    fairaudit()
        .args(["audit", "--game", "roulette-american", "--outcomes"])
        .arg(&log)
        .arg("--out")
        .arg(&audit)
        .assert()
        .code(0);
    sweep_into(&tallies, "keno", "0..100");
    let before = files(&audit);
    let sweep =
        fairaudit().args(["sweep", "--nonces", "0..100", "--quiet", "--out"]).arg(&audit).output().unwrap();
    assert_one_line_error(&sweep, "--force");
    let merge = fairaudit().arg("merge").arg("--out").arg(&audit).arg(&tallies).output().unwrap();
    assert_one_line_error(&merge, "--force");
    assert!(files(&audit) == before, "the audit's files are unchanged");
}

/// Case 13: `sweep --out` on a regular file or an unwritable place ran the whole sweep,
/// then exited 2 ("work lost"). Writability is now checked before the work: a sweep of
/// 10^12 nonces would not end within the timeout.
#[test]
fn an_unwritable_out_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "a-file", "mine");
    for out in [file.as_path(), Path::new("/proc/fairaudit-cannot-write-here")] {
        let output = fairaudit()
            .args(["sweep", "--nonces", "0..1000000000000", "--quiet", "--out"])
            .arg(out)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        assert_one_line_error(&output, "");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

/// Case 14: a garbage or old-version `tally.json` could not be replaced by `sweep --force`
/// (exit 2), though `merge --force` could.
#[test]
fn sweep_force_replaces_a_garbage_or_foreign_tally() {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in [("garbage", "not json at all"), ("old", "{\"version\": 1}")] {
        let out = dir.path().join(name);
        std::fs::create_dir(&out).unwrap();
        write(&out, "tally.json", content);
        let plain =
            fairaudit().args(["sweep", "--nonces", "0..100", "--quiet", "--out"]).arg(&out).output().unwrap();
        assert_one_line_error(&plain, "--force");
        fairaudit()
            .args(["sweep", "--nonces", "0..100", "--quiet", "--force", "--out"])
            .arg(&out)
            .assert()
            .code(0);
        assert_eq!(json(&out.join("tally.json"))["complete"], true);
    }
}

// ---------------------------------------------------------------------------------------
// Cases 15 to 18: input hygiene.

/// Case 15: cells with newlines were echoed raw (an error over several lines), a 1 MB
/// field was echoed whole, and control characters reached the terminal. Errors now quote a
/// short, escaped excerpt on one line.
#[test]
fn errors_quote_a_short_escaped_excerpt_on_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for (name, cell) in [
        ("newline", "\"7\nFAKE: all tests PASS\"".to_string()),
        ("escape", "\u{1b}[2J\u{1b}[31m7".to_string()),
        ("big", "x".repeat(900_000)),
    ] {
        let file = write(dir.path(), &format!("{name}.csv"), format!("nonce,result\n0,{cell}\n"));
        let output = run(&["audit", "--game", "roulette-european", "--outcomes", file.to_str().unwrap()]);
        let line = assert_one_line_error(&output, "");
        assert!(line.len() < 400, "{name}: {} bytes", line.len());
        assert!(!line.contains('\u{1b}'), "{name}: a raw escape reached the terminal");
    }
}

/// Case 16: client seeds ` =1+1`, `\u200b=1+1`, `\ufeff=1+1` and `a;=1+1;b` were written
/// raw into CSV, where a spreadsheet runs them (it trims spaces and ignores invisible
/// characters; set to `;` it splits the last one). They are now quoted text, and the
/// checker that passed them reads as a spreadsheet does.
#[test]
fn seeds_a_spreadsheet_would_run_are_neutralised() {
    let dir = tempfile::tempdir().unwrap();
    for (index, seed) in [" =1+1", "\u{200b}=1+1", "\u{feff}=1+1", "a;=1+1;b"].iter().enumerate() {
        let out = dir.path().join(format!("out{index}"));
        fairaudit()
            .args([
                "sweep",
                "--game",
                "keno",
                "--nonces",
                "0..200",
                "--quiet",
                "--server-seed",
                "s",
                "--client-seed",
                seed,
            ])
            .arg("--out")
            .arg(&out)
            .assert()
            .code(0);
        let output = std::process::Command::new("python3")
            .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/check_csv.py"))
            .arg(&out)
            .output()
            .unwrap();
        assert!(output.status.success(), "{seed:?}: {}", String::from_utf8_lossy(&output.stderr));
        // Exact in JSON: the neutralising is a CSV matter only.
        assert_eq!(json(&out.join("run.json"))["seed_pairs"][0]["client_seed"], *seed);
    }
}

/// Case 16: the checker itself must catch each of those seeds written raw.
#[test]
fn the_csv_checker_sees_what_a_spreadsheet_sees() {
    for seed in
        [" =1+1", "\u{200b}=1+1", "\u{feff}=1+1", "a;=1+1;b", "\"a\n=1+1\"", "\"a\r+1\"", "\"a,=1+1\""]
    {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "raw.csv", format!("seed,count\n{seed},2\n"));
        let output = std::process::Command::new("python3")
            .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/check_csv.py"))
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(!output.status.success(), "{seed:?} passed the checker");
        assert!(String::from_utf8_lossy(&output.stderr).contains("formula"), "{seed:?}");
    }
}

/// Case 17: `audit` accepted `+5` and `01` but refused `07`; a rounds file accepted a
/// nonce ` 1` although the README says spaces are errors. One parser now reads nonces
/// everywhere: digits only (leading zeros allowed, documented), no sign, no space, no
/// other numeral.
#[test]
fn nonces_are_parsed_alike_by_audit_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let game = fairaudit::games::GameId::RouletteEuropean;
    let round = |nonce| fairaudit::verify::replay(game, "s", "c", nonce);
    for bad in ["+5", " 1", "1 ", "0x1", "-1", "\u{ff11}", "1.0", "1e3"] {
        let audit = write(
            dir.path(),
            "audit.csv",
            format!("nonce,server_seed,client_seed,result\n\"{bad}\",s,c,{}\n", round(1).result),
        );
        assert_one_line_error(
            &run(&["audit", "--game", "roulette-european", "--outcomes", audit.to_str().unwrap()]),
            "nonce",
        );
        let rounds = write(
            dir.path(),
            "rounds.csv",
            format!(
                "game,server_seed,client_seed,nonce,result\nroulette-european,s,c,\"{bad}\",{}\n",
                round(1).result
            ),
        );
        assert_one_line_error(&run(&["verify", "--rounds", rounds.to_str().unwrap()]), "nonce");
    }
    for (text, nonce) in [("07", 7), ("01", 1), ("0", 0)] {
        let expected = round(nonce).result;
        let audit = write(
            dir.path(),
            "audit.csv",
            format!("nonce,server_seed,client_seed,result\n{text},s,c,{expected}\n"),
        );
        fairaudit()
            .args(["audit", "--game", "roulette-european", "--outcomes"])
            .arg(&audit)
            .assert()
            .code(0)
            .stdout(predicate::str::contains("0 mismatches"));
        let rounds = write(
            dir.path(),
            "rounds.csv",
            format!("game,server_seed,client_seed,nonce,result\nroulette-european,s,c,{text},{expected}\n"),
        );
        fairaudit().args(["verify", "--rounds"]).arg(&rounds).assert().code(0);
    }
}

/// Case 17: a paytable accepted picks `+1`.
#[test]
fn paytable_picks_refuse_signs_spaces_and_leading_zeros() {
    let dir = tempfile::tempdir().unwrap();
    let example = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/keno-paytable-example.csv"),
    )
    .unwrap();
    for bad in ["+1", "\" 1\"", "01", "1.0"] {
        let text = example.replacen("1,1,3.95", &format!("{bad},1,3.95"), 1);
        assert_ne!(text, example);
        let paytable = write(dir.path(), "paytable.csv", text);
        assert_one_line_error(
            &run(&["rtp", "--game", "keno", "--paytable", paytable.to_str().unwrap()]),
            "picks",
        );
    }
}

/// Case 17: SIGTERM during `verify --out` left a 4.9 MB temporary file. The run stops
/// (exit 130) and removes its temporary file; nothing else appears in the folder.
/// Found while writing this test: with `--rounds -` waiting on an idle pipe, SIGTERM was
/// ignored until more input came (the read restarted after the handler); the input is now
/// polled, so the signal is seen within 100 ms.
#[test]
fn sigterm_during_verify_out_leaves_no_temporary_file() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(bin())
        .args(["verify", "--rounds", "-", "--out", "m.csv"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let rounds = std::fs::read(vectors("reference-rounds.csv")).unwrap();
    stdin.write_all(&rounds).unwrap();
    stdin.flush().unwrap();
    // stdin stays open: the run is mid-input when the signal comes.
    std::thread::sleep(Duration::from_millis(500));
    send("-TERM", child.id());
    assert_eq!(exit_code_within(&mut child, Duration::from_secs(30)), Some(130));
    drop(stdin);
    assert_eq!(names(dir.path()), Vec::<String>::new(), "no temporary or partial file");
}

/// Case 18: server `a:b` with client `c`, and server `a` with client `b:c`, make the same
/// message and so the same rounds: two seed pairs an auditor may think distinct. The chain
/// is the operator's, so fairaudit keeps it and warns on stderr, in summary.json and in
/// report.html, for sweeps and audits.
#[test]
fn colons_in_seeds_are_warned_about_everywhere() {
    for game in fairaudit::games::GameId::ALL {
        for nonce in 0..50 {
            let (left, right) = (
                fairaudit::verify::replay(game, "a:b", "c", nonce),
                fairaudit::verify::replay(game, "a", "b:c", nonce),
            );
            assert_eq!((left.result, left.draw_order), (right.result, right.draw_order));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let sweep = dir.path().join("sweep");
    let output = fairaudit()
        .args([
            "sweep",
            "--game",
            "keno",
            "--nonces",
            "0..200",
            "--quiet",
            "--server-seed",
            "a:b",
            "--client-seed",
            "c",
        ])
        .arg("--out")
        .arg(&sweep)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let mut audit_text = String::from("nonce,server_seed,client_seed,result\n");
    for nonce in 0..300 {
        let round = fairaudit::verify::replay(fairaudit::games::GameId::RouletteEuropean, "a", "b:c", nonce);
        audit_text.push_str(&format!("{nonce},a,b:c,{}\n", round.result));
    }
    let log = write(dir.path(), "log.csv", audit_text);
    let audit = dir.path().join("audit");
    let audit_output = fairaudit()
        .args(["audit", "--game", "roulette-european", "--outcomes"])
        .arg(&log)
        .arg("--out")
        .arg(&audit)
        .output()
        .unwrap();
    assert_eq!(audit_output.status.code(), Some(0), "{}", String::from_utf8_lossy(&audit_output.stderr));
    for (folder, output) in [(&sweep, &output), (&audit, &audit_output)] {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("warning") && stderr.contains("':'"), "{stderr}");
        let warnings = &json(&folder.join("summary.json"))["warnings"];
        assert!(warnings.as_array().is_some_and(|w| !w.is_empty()), "summary.json: {warnings}");
        let html = std::fs::read_to_string(folder.join("report.html")).unwrap();
        assert!(html.contains("<p class=\"warning\">"), "report.html of {}", folder.display());
    }
}

// ---------------------------------------------------------------------------------------
// Case 19: one source for every figure.

/// Whether `shown` (as a report prints it: fixed or scientific, optionally with `%`) is
/// `exact` rounded to the digits shown.
fn shows(shown: &str, exact: f64) -> bool {
    let (text, scale) = match shown.strip_suffix('%') {
        Some(text) => (text, 100.0),
        None => (shown, 1.0),
    };
    let Ok(value) = text.parse::<f64>() else { return false };
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap()),
        None => (text, 0),
    };
    let decimals = mantissa.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
    let tolerance = 0.5 * 10f64.powi(exponent - decimals) * (1.0 + 1e-9);
    (value - exact * scale).abs() <= tolerance.max(f64::MIN_POSITIVE)
}

/// The cells of each row of the HTML table with id `id`, header row excluded.
fn html_table(html: &str, id: &str) -> Vec<Vec<String>> {
    let start = html.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("no table {id}"));
    let table = &html[start..start + html[start..].find("</table>").unwrap()];
    table
        .split("<tr")
        .skip(2)
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| {
                    let cell = &cell[cell.find('>').unwrap() + 1..];
                    cell[..cell.find("</td>").unwrap()].to_string()
                })
                .collect()
        })
        .collect()
}

fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| header.iter().map(str::to_owned).zip(r.unwrap().iter().map(str::to_owned)).collect())
        .collect()
}

fn number(row: &BTreeMap<String, String>, key: &str) -> f64 {
    row[key].parse().unwrap_or_else(|_| panic!("{key}: {:?}", row[key]))
}

/// Case 19: `report.html` printed the American claim's failing bet types at 9473.6842%
/// (a percentage scaled twice) while the terminal said 94.736842%. Every figure of the
/// report's tests, RTP and rejection tables and of its claim lines is read back and
/// compared with the CSVs, to the digits shown.
#[test]
fn report_html_figures_equal_the_csv_figures() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    fairaudit()
        .args(["sweep", "--nonces", "0..20000", "--seed-pairs", "2", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .code(0);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();

    let tests = csv_rows(&out.join("tests.csv"));
    let shown = html_table(&html, "tests-table");
    assert_eq!(shown.len(), tests.len(), "one HTML row per tests.csv row");
    for (cells, row) in shown.iter().zip(&tests) {
        assert_eq!((&cells[0], &cells[2], &cells[7]), (&row["game"], &row["test"], &row["verdict"]));
        for (index, key) in [(3, "statistic"), (5, "p_value"), (6, "adjusted_p"), (8, "detectable_bias")] {
            if row[key].is_empty() {
                continue;
            }
            assert!(
                shows(&cells[index], number(row, key)),
                "{} {key}: html {} csv {}",
                row["test"],
                cells[index],
                row[key]
            );
        }
    }

    let rtp = csv_rows(&out.join("rtp.csv"));
    let exact = |game: &str, bet: &str| {
        let row =
            rtp.iter().find(|r| r["game"] == game && r["bet_type"] == bet).expect("bet type in rtp.csv");
        number(row, "exact_rtp_percent")
    };
    let shown = html_table(&html, "rtp-table");
    assert!(!shown.is_empty());
    for cells in &shown {
        let percent = exact(&cells[0], &cells[1]);
        assert!(shows(&cells[3], percent), "{} {}: html {} csv {percent}", cells[0], cells[1], cells[3]);
        assert!(shows(&cells[4], 100.0 - percent), "house edge of {} {}", cells[0], cells[1]);
    }
    // Claim lines list failing bet types with their RTP: "straight (94.736842%)".
    let claims: Vec<&str> =
        html.split("<p class=\"claim").skip(1).map(|p| &p[..p.find("</p>").unwrap()]).collect();
    let american = claims.iter().find(|c| c.contains("roulette-american")).expect("the American claim line");
    let mut listed = 0;
    for item in american.split("; outside: ").nth(1).expect("failing bet types listed").split(", ") {
        let (bet, figure) = item.split_once(" (").unwrap();
        let figure = figure.trim_end_matches(')');
        let value: f64 = figure.trim_end_matches('%').parse().unwrap();
        let precision = figure.split_once('.').map_or(0, |(_, d)| d.len() - 1) as i32;
        assert!(
            (value - exact("roulette-american", bet)).abs() <= 0.5 * 10f64.powi(-precision) * 1.000001,
            "claim line {bet}: {figure}"
        );
        listed += 1;
    }
    assert!(listed > 10, "every American bet type is below 97%");

    let rejections = csv_rows(&out.join("rejections.csv"));
    let shown = html_table(&html, "rejection-table");
    assert_eq!(shown.len(), rejections.len());
    for (cells, row) in shown.iter().zip(&rejections) {
        assert_eq!(
            (&cells[0], &cells[1], &cells[2], &cells[3], &cells[4]),
            (&row["game"], &row["seed_pair"], &row["outcomes_p"], &row["draws"], &row["rejected_words"])
        );
        assert!(
            shows(&cells[5], number(row, "expected_rejected_words")),
            "expected: {} vs {}",
            cells[5],
            row["expected_rejected_words"]
        );
    }
}

/// Issue 30, cases 1 and 2: player ids reached `rtp.csv` and `tests.csv` raw, and text
/// after a line break (a new row under a `;` import that ignores quotes) was not
/// neutralised in any file. Hostile text goes through every user-controlled field of
/// `audit` (player ids, with a finding and a nonce gap of their own), `sweep` (server and
/// client seed) and `verify --out` (a result cell), and every CSV written passes the
/// checker, which reads each file with `,`, with `;`, and split at every break.
#[test]
fn hostile_text_in_every_user_field_runs_in_no_csv() {
    // Issue 59: `a,=cmd…` reached the files as is (a `,` was not a break).
    let hostile = ["=1+1", "a\n=1+1", "a,=cmd|' /C calc'!A0", "b\r\n+2;-3\t@4"];
    let dir = tempfile::tempdir().unwrap();
    let check = |folder: &Path| {
        let output = std::process::Command::new("python3")
            .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/check_csv.py"))
            .arg(folder)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}: {}", folder.display(), String::from_utf8_lossy(&output.stderr));
    };

    // audit: the worked history with its three players renamed, one row of the third
    // dropped (a nonce gap).
    let history = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/roulette-history.csv"),
    )
    .unwrap();
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut reader = csv::Reader::from_reader(history.as_bytes());
    writer.write_record(reader.headers().unwrap()).unwrap();
    let mut dropped = false;
    for record in reader.records() {
        let record = record.unwrap();
        let player = match &record[0] {
            "p0" => hostile[0],
            "p1" => hostile[1],
            _ => hostile[2],
        };
        if player == hostile[2] && &record[4] == "50" && !dropped {
            dropped = true;
            continue;
        }
        let mut fields: Vec<&str> = record.iter().collect();
        fields[0] = player;
        writer.write_record(&fields).unwrap();
    }
    assert!(dropped);
    let file = write(dir.path(), "history.csv", writer.into_inner().unwrap());
    let out = dir.path().join("audit");
    let output = fairaudit()
        .args(["audit", "--game", "roulette-european", "--outcomes"])
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    for (name, neutralised) in [
        ("tests.csv", "player:a\n'=1+1"),
        ("rtp.csv", "\"'=1+1\""),
        ("findings.csv", "\"a,'=cmd"),
        ("nonce_gaps.csv", "\"a,'=cmd"),
    ] {
        let text = std::fs::read_to_string(out.join(name)).unwrap();
        assert!(text.contains(neutralised), "{name} names a player, neutralised: {text}");
    }
    check(&out);

    // sweep: seeds with line breaks.
    let out = dir.path().join("sweep");
    fairaudit()
        .args(["sweep", "--game", "keno", "--nonces", "0..100", "--quiet", "--server-seed", hostile[3]])
        .args(["--client-seed", hostile[1], "--out"])
        .arg(&out)
        .assert()
        .code(predicate::in_iter([0, 1]));
    check(&out);

    // verify --out: a challenge answered with hostile seeds (an outcome cell of hostile
    // text is an input error, case 8: the seeds are what a mismatch can quote).
    let mut rounds = csv::Writer::from_writer(Vec::new());
    rounds.write_record(["case", "game", "server_seed", "client_seed", "nonce", "result"]).unwrap();
    let cases = fairaudit::conformance::challenge(&fairaudit::games::GameId::ALL);
    for (case, text) in cases.iter().zip(hostile) {
        let result =
            fairaudit::verify::replay(case.game, &case.server_seed, &case.client_seed, case.nonce).result;
        rounds
            .write_record([&case.label, case.game.name(), text, text, &case.nonce.to_string(), &result])
            .unwrap();
    }
    let file = write(dir.path(), "rounds.csv", rounds.into_inner().unwrap());
    let out = dir.path().join("verify");
    std::fs::create_dir(&out).unwrap();
    fairaudit()
        .args(["verify", "--rounds"])
        .arg(&file)
        .arg("--out")
        .arg(out.join("mismatches.csv"))
        .assert()
        .code(1);
    check(&out);
}

/// Issue 30, case 4: a CRLF inside a quoted seed was rewritten to LF by the line-end
/// reader, so fair rounds of the client seed `line1\r\nline2` were mismatches in `audit`
/// and `verify --rounds` (while `verify --client-seed` computed them right). The bytes of
/// a quoted field are kept exactly, in files with CRLF and with LF line ends.
#[test]
fn a_crlf_inside_a_quoted_seed_is_kept_on_every_path() {
    let dir = tempfile::tempdir().unwrap();
    let (server, client) = ("operator-seed", "line1\r\nline2");
    for line_end in ["\r\n", "\n"] {
        let mut log = format!("nonce,server_seed,client_seed,result{line_end}");
        let mut rounds = format!("game,nonce,server_seed,client_seed,result{line_end}");
        for nonce in 1..=6u64 {
            let round =
                fairaudit::verify::replay(fairaudit::games::GameId::RouletteEuropean, server, client, nonce);
            let row = format!("{nonce},{server},\"{client}\",{}{line_end}", round.result);
            log.push_str(&row);
            rounds.push_str(&format!("roulette-european,{row}"));
        }
        let log = write(dir.path(), "log.csv", &log);
        let output = run(&["audit", "--game", "roulette-european", "--outcomes", log.to_str().unwrap()]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.contains("6 replayed against the chain, 0 mismatches"), "{line_end:?}: {stdout}");

        let file = write(dir.path(), "rounds.csv", &rounds);
        let output = run(&["verify", "--rounds", file.to_str().unwrap()]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{line_end:?}: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        assert!(String::from_utf8_lossy(&output.stdout).contains("6 rounds checked, 0 mismatches"));
    }
}

/// Issue 30, case 3: 26 of 1,200 single-field mutations of a shard tally were accepted by
/// `merge` and changed its output, some into a FAIL (`colour_runs.hist[1]` 325 → 1 gave
/// `runs_colour` p 4e-13). Every number of a roulette and a Keno tally is changed by one,
/// in turn: each changed file is refused by its checksum, naming it.
#[test]
fn every_changed_number_of_a_tally_is_refused_by_its_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let mut changed = 0;
    for game in ["roulette-european", "keno"] {
        let out = dir.path().join(game);
        sweep_into(&out, game, "0..1000");
        let base = json(&out.join("tally.json"));
        let mut paths = Vec::new();
        common::number_paths(&base, &mut Vec::new(), &mut paths);
        assert!(paths.len() > 1000, "{game}: {} numbers", paths.len());
        for path in &paths {
            let mut tally = base.clone();
            let leaf = common::at(&mut tally, path);
            let Some(number) = leaf.as_u64() else { continue };
            *leaf = (number ^ 1).into();
            let refused = fairaudit::tally::file::TallyFile::from_bytes(&serde_json::to_vec(&tally).unwrap());
            let message = refused.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(message.contains("checksum"), "{game} {path:?}: {message:?}");
            changed += 1;
        }
    }
    // One through the command line: one line, exit 2, nothing written.
    let input = dir.path().join("changed");
    std::fs::create_dir(&input).unwrap();
    let mut tally = json(&dir.path().join("keno").join("tally.json"));
    tally["entries"][0]["segments"][0]["tally"]["numbers"][0] = 1.into();
    write(&input, "tally.json", serde_json::to_vec(&tally).unwrap());
    let output =
        fairaudit().arg("merge").arg("--out").arg(dir.path().join("out")).arg(&input).output().unwrap();
    assert_one_line_error(&output, "does not match its checksum");
    assert!(!dir.path().join("out").exists());
    assert!(changed > 2000, "{changed}");
}

/// Issue 30, case 7: findings and mismatch lines printed file text raw, so a `result` of
/// `"\033[2K\r1 rounds checked, 0 mismatches\033[8m"` redrew the terminal line as a fake
/// "0 mismatches". Control characters, invisible characters and bidirectional overrides
/// from files are shown escaped: in `verify`'s mismatch lines, in `audit`'s findings and
/// in the battery lines that name players.
#[test]
fn file_text_on_the_terminal_acts_on_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let fake = "\u{1b}[2K\r1 rounds checked, 0 mismatches\u{1b}[8m\u{202e}";
    // A result of it is an input error (case 8), quoted escaped.
    let mut rounds = csv::Writer::from_writer(Vec::new());
    rounds.write_record(["game", "server_seed", "client_seed", "nonce", "result"]).unwrap();
    rounds.write_record(["roulette-european", "s", "c", "1", fake]).unwrap();
    let file = write(dir.path(), "rounds.csv", rounds.into_inner().unwrap());
    let output = run(&["verify", "--rounds", file.to_str().unwrap()]);
    assert_one_line_error(&output, r"'\u{1b}[2K\r1 rounds checked, 0 mismatches\u{1b}[8m\u{202e}'");
    // A challenge answered with it as the seed: a mismatch line quoting it, escaped.
    let case = &fairaudit::conformance::challenge(&[fairaudit::games::GameId::RouletteEuropean])[0];
    let result =
        fairaudit::verify::replay(case.game, &case.server_seed, &case.client_seed, case.nonce).result;
    let mut rounds = csv::Writer::from_writer(Vec::new());
    rounds.write_record(["case", "game", "server_seed", "client_seed", "nonce", "result"]).unwrap();
    rounds
        .write_record([
            &case.label,
            case.game.name(),
            fake,
            &case.client_seed,
            &case.nonce.to_string(),
            &result,
        ])
        .unwrap();
    let file = write(dir.path(), "rounds.csv", rounds.into_inner().unwrap());
    let output = run(&["verify", "--rounds", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains(r"file has '\u{1b}[2K\r1 rounds checked, 0 mismatches\u{1b}[8m\u{202e}'"),
        "{stdout}"
    );

    // A nonce played twice: a finding naming the player.
    let mut log = csv::Writer::from_writer(Vec::new());
    log.write_record(["player", "nonce", "server_seed", "client_seed", "result"]).unwrap();
    let result = fairaudit::verify::replay(fairaudit::games::GameId::RouletteEuropean, "s", "c", 1).result;
    log.write_record([fake, "1", "s", "c", &result]).unwrap();
    log.write_record([fake, "1", "s", "c", &result]).unwrap();
    let file = write(dir.path(), "log.csv", log.into_inner().unwrap());
    let output = run(&["audit", "--game", "roulette-european", "--outcomes", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    for stream in [&output.stdout, &output.stderr] {
        let text = String::from_utf8_lossy(stream);
        assert!(!text.contains(['\u{1b}', '\r', '\u{202e}']), "{text}");
    }
    assert!(String::from_utf8_lossy(&output.stdout).contains(r"(player \u{1b}[2K\r1 rounds"));
}

/// Issue 30, case 6: `merge` read a shard's `tally.json` linked to `/dev/zero` until memory
/// ran out, and hung on a FIFO. Only regular files are read (a link to one is followed),
/// with a size bound: each is refused at once, in one line.
#[test]
fn a_tally_that_is_not_a_regular_file_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let shard = dir.path().join("shard");
    std::fs::create_dir(&shard).unwrap();
    std::os::unix::fs::symlink("/dev/zero", shard.join("tally.json")).unwrap();
    let merge = || {
        fairaudit()
            .arg("merge")
            .arg(&shard)
            .arg("--out")
            .arg(dir.path().join("out"))
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap()
    };
    assert_one_line_error(&merge(), "not a regular file");
    std::fs::remove_file(shard.join("tally.json")).unwrap();
    let status = std::process::Command::new("mkfifo").arg(shard.join("tally.json")).status().unwrap();
    assert!(status.success());
    assert_one_line_error(&merge(), "not a regular file");
    // A link to a real tally is followed.
    std::fs::remove_file(shard.join("tally.json")).unwrap();
    let real = dir.path().join("real");
    sweep_into(&real, "keno", "0..200");
    std::os::unix::fs::symlink(real.join("tally.json"), shard.join("tally.json")).unwrap();
    assert_eq!(merge().status.code(), Some(0));
}

/// Issue 30, case 9: `merge` had no SIGTERM handler: 26 of 28 SIGTERMs killed it with 143
/// (not the promised 130) and left a staging folder. It now stops between its steps,
/// exits 130 and leaves nothing behind. The merge here takes over a second (3,000 seed
/// pairs), and SIGTERM comes at several instants inside it.
#[test]
fn sigterm_stops_a_merge_with_130_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("sweep");
    fairaudit()
        .args(["sweep", "--game", "keno", "--seed-pairs", "3000", "--nonces", "0..50", "--quiet", "--out"])
        .arg(&input)
        .assert()
        .code(0);
    for wait in [100, 300, 600] {
        let mut child = std::process::Command::new(bin())
            .args(["merge", "--quiet", "--out"])
            .arg(dir.path().join("merged"))
            .arg(&input)
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(wait));
        send("-TERM", child.id());
        let code = exit_code_within(&mut child, Duration::from_secs(30));
        assert_eq!(code, Some(130), "SIGTERM after {wait} ms");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("sweep")], "after {wait} ms: {left:?}");
    }
}

/// Issue 30, cases 5 and 10: `--out link` replaced the link by a real folder (the linked
/// folder never got the output); the lock was keyed by the name, so a writer through a
/// linked parent folder was not refused; links inside an output folder were carried over
/// as deep copies (`loop -> .` became 737 entries 42 levels deep); lock files piled up.
/// Now a linked `--out` is refused, saying where it points (so one folder has one lock
/// name, in one directory whatever path names it); links are carried over as links; the
/// lock file goes with its run.
#[test]
fn output_folders_and_links_neither_follow_nor_pile_up() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let output =
        run(&["sweep", "--nonces", "0..100", "--game", "keno", "--quiet", "--out", link.to_str().unwrap()]);
    assert_one_line_error(&output, "is a symbolic link (to ");
    for spelled in [format!("{}/", link.display()), format!("{}/.", link.display())] {
        let output = run(&["sweep", "--nonces", "0..100", "--game", "keno", "--quiet", "--out", &spelled]);
        assert_one_line_error(&output, "is a symbolic link (to ");
    }
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is left as it was");

    // A writer through a linked parent folder is the same folder's second writer.
    let out = real.join("out");
    let mut first = long_sweep_writing(&out);
    let small_sweep = |out: &Path| {
        run(&[
            "sweep",
            "--nonces",
            "0..100",
            "--game",
            "keno",
            "--quiet",
            "--force",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let second = small_sweep(&link.join("out"));
    assert_one_line_error(&second, "another fairaudit run is writing");
    send("-TERM", first.id());
    assert_eq!(first.wait().unwrap().code(), Some(130));

    // A link inside the folder, to the folder itself, survives a forced run as a link.
    std::os::unix::fs::symlink(".", out.join("loop")).unwrap();
    let rerun = small_sweep(&out);
    assert_eq!(rerun.status.code(), Some(0), "{}", String::from_utf8_lossy(&rerun.stderr));
    let kept = std::fs::symlink_metadata(out.join("loop")).unwrap();
    assert!(kept.file_type().is_symlink(), "carried over as a link");
    assert_eq!(std::fs::read_link(out.join("loop")).unwrap(), PathBuf::from("."));

    // No lock or staging file is left beside the folders.
    let left: Vec<String> = std::fs::read_dir(&real)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, vec!["out".to_owned()], "{left:?}");
}

/// Issue 30, case 3, the forger's side: a changed tally sealed again with its checksum
/// (anyone can compute it). Single numbers of two adjacent sweeps' tallies (all three
/// games) are changed, each file is sealed again, and each change must be refused or
/// leave the merge byte-identical: the counters' relations and the edge state re-derived
/// from the seeds leave no number free. `FAIRAUDIT_FUZZ_CASES` sets how many (CI: 1,200;
/// the issue asks 10,000 locally).
#[test]
fn a_changed_tally_sealed_again_is_refused_or_merges_identically() {
    use fairaudit::tally::file::TallyFile;
    let cases: usize =
        std::env::var("FAIRAUDIT_FUZZ_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(1_200);
    let dir = tempfile::tempdir().unwrap();
    let (left, right) = (dir.path().join("left"), dir.path().join("right"));
    // Long enough for every pocket's gaps to reach the last bucket, so that the gaps'
    // positions are not pinned by the sums alone.
    for (out, nonces) in [(&left, "0..6000"), (&right, "6000..12000")] {
        fairaudit().args(["sweep", "--nonces", nonces, "--quiet", "--out"]).arg(out).assert().code(0);
    }
    let files = [json(&left.join("tally.json")), json(&right.join("tally.json"))];
    let parse = |value: &Value| TallyFile::from_bytes(&common::sealed_tally(value));
    let merged = |a: TallyFile, b: TallyFile| fairaudit::sweep::merge(vec![a, b]).map(|m| m.to_bytes());
    let baseline = merged(parse(&files[0]).unwrap(), parse(&files[1]).unwrap()).unwrap();

    // Every number's path, grouped by its field (indices dropped), so that each field is
    // changed about as often as any other, however long its table.
    /// Which file (0 left, 1 right) and the number's path in it.
    type Place = (usize, Vec<Value>);
    let mut fields: BTreeMap<String, Vec<Place>> = BTreeMap::new();
    for (side, file) in files.iter().enumerate() {
        let mut paths = Vec::new();
        common::number_paths(file, &mut Vec::new(), &mut paths);
        for path in paths {
            let game =
                file["entries"][path.get(1).and_then(Value::as_u64).unwrap_or(0) as usize]["game"].clone();
            let name: Vec<String> = path.iter().filter_map(|key| key.as_str().map(str::to_owned)).collect();
            let field = format!("{} {}", game.as_str().unwrap_or("-"), name.join("."));
            fields.entry(field).or_default().push((side, path));
        }
    }
    let fields: Vec<(String, Vec<Place>)> = fields.into_iter().collect();
    assert!(fields.len() > 40, "{} fields", fields.len());
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut refused, mut identical, mut escaped) = (0, 0, Vec::new());
    for case in 0..cases {
        let (field, paths) = &fields[case % fields.len()];
        let (side, path) = &paths[(next() % paths.len() as u64) as usize];
        let mut changed = files[*side].clone();
        let leaf = common::at(&mut changed, path);
        let Some(number) = leaf.as_u64() else { continue };
        let new = match next() % 7 {
            0 => number.wrapping_add(1),
            1 => number.wrapping_sub(1),
            2 => 0,
            3 => number.wrapping_mul(2),
            4 => number.wrapping_add(1 + next() % 1000),
            5 => number ^ (1 << (next() % 64)),
            _ => u64::MAX,
        };
        if new == number {
            continue;
        }
        *leaf = new.into();
        let other = parse(&files[1 - side]).unwrap();
        let outcome = parse(&changed).map_err(|e| e.to_string()).and_then(|changed| {
            let pair = if *side == 0 { (changed, other) } else { (other, changed) };
            merged(pair.0, pair.1).map_err(|e| e.to_string())
        });
        match outcome {
            Err(_) => refused += 1,
            Ok(bytes) if bytes == baseline => identical += 1,
            Ok(_) => escaped.push(format!("{field} {path:?}: {number} -> {new}")),
        }
    }
    assert!(
        escaped.is_empty(),
        "{} of {cases} changes merged into other output: {escaped:#?}",
        escaped.len()
    );
    assert!(refused > cases * 9 / 10, "refused {refused}, identical {identical} of {cases}");
}

/// Issue 30, case 8: a commitment written `0x…` or with a space after it was a finding in
/// `audit` (exit 1) and accepted (space) or a mismatch (`0x`) in `verify`; a Keno result in
/// draw order, `05`, `+5`, `5.0` and `５` were mismatches in `verify` and input errors in
/// `audit`. Both now read every value with the same parser: one reading, one verdict (an
/// input error naming the column, exit 2), and the written forms pass in both.
#[test]
fn verify_and_audit_read_every_value_alike() {
    use fairaudit::games::GameId;
    let dir = tempfile::tempdir().unwrap();
    let (server, client) = ("parity-server", "parity-client");
    let commitment = fairaudit::chain::commitment(server);
    let row = |game: GameId, nonce: u64, result: &str, commitment: &str| {
        let mut rounds = csv::Writer::from_writer(Vec::new());
        rounds.write_record(["game", "server_seed", "client_seed", "nonce", "result", "commitment"]).unwrap();
        rounds.write_record([game.name(), server, client, &nonce.to_string(), result, commitment]).unwrap();
        let rounds = write(dir.path(), "rounds.csv", rounds.into_inner().unwrap());
        let mut log = csv::Writer::from_writer(Vec::new());
        log.write_record(["player", "nonce", "server_seed", "client_seed", "result", "commitment"]).unwrap();
        log.write_record(["p", &nonce.to_string(), server, client, result, commitment]).unwrap();
        let log = write(dir.path(), "log.csv", log.into_inner().unwrap());
        let verify = run(&["verify", "--rounds", rounds.to_str().unwrap()]);
        let audit = run(&["audit", "--game", game.name(), "--outcomes", log.to_str().unwrap()]);
        (verify, audit)
    };
    // A European nonce whose pocket has one digit, and the Keno round of nonce 1.
    let nonce = (0..)
        .find(|&n| fairaudit::verify::replay(GameId::RouletteEuropean, server, client, n).result.len() == 1)
        .unwrap();
    let pocket = fairaudit::verify::replay(GameId::RouletteEuropean, server, client, nonce).result;
    let keno = fairaudit::verify::replay(GameId::Keno, server, client, 1);
    let in_draw_order = keno.draw_order.clone();
    assert_ne!(in_draw_order, keno.result, "the round's draw order is not ascending");

    // Written forms: both pass (a commitment in capitals is the same digest).
    for (game, nonce, result) in
        [(GameId::RouletteEuropean, nonce, pocket.as_str()), (GameId::Keno, 1, keno.result.as_str())]
    {
        let (verify, audit) = row(game, nonce, result, &commitment.to_ascii_uppercase());
        assert_eq!(
            verify.status.code(),
            Some(0),
            "verify {game:?}: {}",
            String::from_utf8_lossy(&verify.stdout)
        );
        assert_ne!(
            audit.status.code(),
            Some(2),
            "audit {game:?}: {}",
            String::from_utf8_lossy(&audit.stderr)
        );
    }
    let cases = [
        ("commitment", GameId::RouletteEuropean, pocket.clone(), format!("0x{commitment}")),
        ("commitment", GameId::RouletteEuropean, pocket.clone(), format!("{commitment} ")),
        ("result", GameId::Keno, in_draw_order, commitment.clone()),
        ("result", GameId::RouletteEuropean, format!("0{pocket}"), commitment.clone()),
        ("result", GameId::RouletteEuropean, format!("+{pocket}"), commitment.clone()),
        ("result", GameId::RouletteEuropean, format!("{pocket}.0"), commitment.clone()),
        (
            "result",
            GameId::RouletteEuropean,
            char::from_u32(0xFF10 + pocket.parse::<u32>().unwrap()).unwrap().to_string(),
            commitment.clone(),
        ),
        ("result", GameId::RouletteEuropean, format!("{pocket} "), commitment.clone()),
    ];
    for (column, game, result, given_commitment) in cases {
        let (verify, audit) =
            row(game, if game == GameId::Keno { 1 } else { nonce }, &result, &given_commitment);
        for (command, output) in [("verify", &verify), ("audit", &audit)] {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                output.status.code() == Some(2) && stderr.lines().count() == 1 && stderr.contains(column),
                "{command} {game:?} result {result:?} commitment {given_commitment:?}: exit {:?}, {stderr}",
                output.status.code()
            );
        }
    }
}

/// Issue 30, case 10: the merged report.html said "Threads: -. (0.0 s, 0 rounds/s)", as
/// if a sweep had run at no speed. A merge says it swept nothing.
#[test]
fn a_merged_report_says_it_swept_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let swept = dir.path().join("swept");
    sweep_into(&swept, "keno", "0..500");
    let sweep_html = std::fs::read_to_string(swept.join("report.html")).unwrap();
    assert!(
        sweep_html.contains("Threads: ") && sweep_html.contains(" rounds/s)"),
        "a sweep states its speed"
    );
    let merged = dir.path().join("merged");
    fairaudit().arg("merge").arg(&swept).arg("--out").arg(&merged).assert().code(0);
    let html = std::fs::read_to_string(merged.join("report.html")).unwrap();
    assert!(html.contains("Merged from tally files: no rounds swept by this run."), "merge says so");
    assert!(!html.contains("rounds/s") && !html.contains("Threads: -"), "no speed for a merge");
}

/// Issue 30, case 10: `--delimiter $'\n'` gave a two-line error, and clap quotes the raw
/// value: a carriage return in it would redraw the line. The value is shown escaped, on
/// one line.
#[test]
fn a_raw_delimiter_value_is_shown_escaped() {
    for raw in ["\n", "\r", "\u{1b}[2K"] {
        let output = run(&["audit", "--game", "keno", "--outcomes", "x.csv", "--delimiter", raw]);
        let stderr = assert_one_line_error(&output, "a delimiter is one ASCII character");
        assert!(!stderr.trim_end_matches('\n').contains(['\n', '\r', '\u{1b}']), "{stderr:?}");
    }
}

/// Red team of stop 54, F2: `merge --out M` replaced, without --force, an earlier partial
/// merge in M of another sweep cut the same way (same range, same shard count): only the
/// cut was compared. A partial merge is replaced only by the merge of more shards of the
/// same sweep.
#[test]
fn a_partial_merge_of_another_sweep_is_not_replaced_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let shard = |out: &Path, index: &str, extra: &[&str]| {
        fairaudit()
            .args([
                "sweep",
                "--nonces",
                "0..4000",
                "--shards",
                "2",
                "--shard-index",
                index,
                "--quiet",
                "--out",
            ])
            .arg(out)
            .args(extra)
            .assert()
            .code(predicate::in_iter([0, 1]));
    };
    let (a, b, merged) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("m"));
    shard(&a, "0", &["--game", "roulette-european"]);
    fairaudit()
        .arg("merge")
        .arg(&a)
        .args(["--allow-partial", "--quiet", "--out"])
        .arg(&merged)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let before = std::fs::read(merged.join("tally.json")).unwrap();
    for index in ["0", "1"] {
        shard(&b, index, &["--game", "keno", "--seed-pairs", "2", "--master-seed", "other"]);
    }
    fairaudit()
        .arg("merge")
        .arg(&b)
        .args(["--quiet", "--out"])
        .arg(&merged)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds the output of a different run"));
    assert_eq!(std::fs::read(merged.join("tally.json")).unwrap(), before, "the partial merge is left alone");
    // A merge of the same sweep's other shard alone would lose the one merged: refused too.
    let other_shard = dir.path().join("a1");
    shard(&other_shard, "1", &["--game", "roulette-european"]);
    fairaudit()
        .arg("merge")
        .arg(&other_shard)
        .args(["--allow-partial", "--quiet", "--out"])
        .arg(&merged)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("holds the output of a different run"));
    assert_eq!(std::fs::read(merged.join("tally.json")).unwrap(), before);
    // The same sweep's missing shard done, its merge replaces the partial one.
    shard(&a, "1", &["--game", "roulette-european"]);
    fairaudit()
        .arg("merge")
        .arg(&a)
        .args(["--quiet", "--out"])
        .arg(&merged)
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert_ne!(std::fs::read(merged.join("tally.json")).unwrap(), before);
}

// ---------------------------------------------------------------------------------------
// Issue 59: output folders hold what the user put there.

/// Issue 59, case 7: `inputs` and `manifest.json` are names fairaudit gives a certificate's
/// files, so an audit of `OUT/inputs/history.csv` into `OUT` was refused as "the output of
/// an earlier run", and with `--force` deleted the history it had just audited (and a
/// user's `manifest.json`). Only files a fairaudit record in the folder vouches for are
/// replaced now.
#[test]
fn a_users_inputs_and_manifest_in_out_survive_the_runs_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir_all(out.join("inputs")).unwrap();
    let history = out.join("inputs/history.csv");
    let data =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/roulette-history.csv")).unwrap();
    std::fs::write(&history, &data).unwrap();
    let manifest = write(&out, "manifest.json", r#"{"name": "my web app"}"#);
    let audit = |force: bool| {
        let mut command = fairaudit();
        command.args(["audit", "--game", "roulette-european", "--quiet", "--outcomes"]).arg(&history);
        command.arg("--out").arg(&out);
        if force {
            command.arg("--force");
        }
        command.output().unwrap()
    };
    let first = audit(false);
    assert_ne!(first.status.code(), Some(2), "{}", String::from_utf8_lossy(&first.stderr));
    assert!(out.join("run.json").is_file());
    // Again: the audit's own files need --force, and are the only ones replaced.
    assert_one_line_error(&audit(false), "holds the output of a fairaudit audit");
    assert_ne!(audit(true).status.code(), Some(2));
    // A sweep with --force into the folder replaces the audit's files, not the user's.
    fairaudit()
        .args(["sweep", "--nonces", "0..1000", "--quiet", "--force", "--out"])
        .arg(&out)
        .assert()
        .code(0);
    assert!(!out.join("findings.csv").exists(), "the audit's files are gone");
    assert_eq!(std::fs::read(&history).unwrap(), data, "the audited history is kept");
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), r#"{"name": "my web app"}"#);
}

/// Issue 59, case 8: a run made carried-over folders again with mode 0755 and new times,
/// and set `--out` itself to 0755: a 0700 folder became world-readable, a shared 1777
/// one lost its sticky bit. Their mode, owner and times are kept now.
#[test]
fn folders_in_out_keep_their_mode_and_times_and_out_keeps_its_mode() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let past = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    for out_mode in [0o700, 0o1777] {
        let out = dir.path().join(format!("out-{out_mode:o}"));
        let private = out.join("private");
        std::fs::create_dir_all(&private).unwrap();
        write(&private, "notes.txt", "mine");
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
        let times = std::fs::FileTimes::new().set_accessed(past).set_modified(past);
        std::fs::File::open(&private).unwrap().set_times(times).unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(out_mode)).unwrap();
        for _ in 0..2 {
            fairaudit().args(["sweep", "--nonces", "0..1000", "--quiet", "--out"]).arg(&out).assert().code(0);
            let mode = |path: &Path| std::fs::metadata(path).unwrap().mode() & 0o7777;
            assert_eq!(mode(&out), out_mode, "--out keeps its mode");
            assert_eq!(mode(&private), 0o700, "a folder in it keeps its mode");
            assert_eq!(std::fs::metadata(&private).unwrap().modified().unwrap(), past, "and its times");
            assert_eq!(std::fs::read_to_string(private.join("notes.txt")).unwrap(), "mine");
        }
    }
}

/// Issue 59, case 12: `sweep`, `merge`, `conformance` and `certify` printed their `--out`
/// raw, so a folder named with ESC sequences or a right-to-left override redrew or
/// reordered the terminal's lines. Printed paths are escaped now (`certify` prints its
/// through the same `ShownPath`; the three commands here are the quick ones to run).
#[test]
fn an_out_path_is_shown_escaped_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = "out\u{1b}[2J\u{7}\u{202e}";
    let escaped = r"out\u{1b}[2J\u{7}\u{202e}";
    let swept = dir.path().join(hostile);
    let merged = dir.path().join(format!("merged-{hostile}"));
    let challenge = dir.path().join(format!("challenge-{hostile}"));
    let outputs = [
        fairaudit().args(["sweep", "--nonces", "0..1000", "--quiet", "--out"]).arg(&swept).output().unwrap(),
        fairaudit().args(["merge", "--quiet", "--out"]).arg(&merged).arg(&swept).output().unwrap(),
        fairaudit().arg("conformance").arg("--out").arg(&challenge).output().unwrap(),
    ];
    for output in outputs {
        assert_ne!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
        let printed =
            format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(printed.contains(escaped), "{printed}");
        assert!(!printed.contains(['\u{1b}', '\u{7}', '\u{202e}']), "{printed}");
    }
}
