//! `fairaudit verify` through the real binary: each exit status and each bad input.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

const SERVER: &str = "8bdb7cce7efe5ba8a8dd893183969eeba617859f9f3a88ce728cb444b81f1aaa";
const CLIENT: &str = "b26c22997bc0d401463f6ea875385de1e534f2fee48e11ef6bcbb549093d8503";
const COMMITMENT: &str = "1d789ce1876371c504c85672c645249ddf904fc9bbb384d8249a80868629f663";
const HEADER: &str =
    "game,server_seed,client_seed,nonce,commitment,round_signature,draw_order,result,u32_used";

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

fn vectors(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/vectors").join(name)
}

fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

/// Runs `verify --rounds FILE` and asserts exit 2 with exactly one line on stderr that
/// contains every one of `needles`.
fn assert_input_error(file: &Path, needles: &[&str]) {
    let output = fairaudit().arg("verify").arg("--rounds").arg(file).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line expected, got: {stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} not in {stderr:?}");
    }
}

#[test]
fn single_round_prints_the_round_and_exits_0() {
    fairaudit()
        .args(["verify", "--game", "keno", "--server-seed", SERVER, "--client-seed", CLIENT])
        .args(["--nonce", "112", "--commitment", COMMITMENT])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("draw order:      31 25 30 23 10 29 8 20 32 12"))
        .stdout(predicate::str::contains("result:          8 10 12 20 23 25 29 30 31 32"))
        .stdout(predicate::str::contains("u32 used:        10"))
        .stdout(predicate::str::contains("commitment check: OK"));
}

#[test]
fn commitment_mismatch_exits_1() {
    let wrong = COMMITMENT.replace('1', "2");
    fairaudit()
        .args(["verify", "--game", "keno", "--server-seed", SERVER, "--client-seed", CLIENT])
        .args(["--nonce", "112", "--commitment", &wrong])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("MISMATCH"));
}

#[test]
fn malformed_commitment_is_an_input_error() {
    fairaudit()
        .args(["verify", "--game", "keno", "--server-seed", "s", "--client-seed", "c"])
        .args(["--nonce", "1", "--commitment", "xyz"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("64 hex characters"));
}

#[test]
fn hyphen_leading_seeds_are_seeds_not_flags() {
    fairaudit()
        .args(["verify", "--game", "roulette-american", "--server-seed", "-s", "--client-seed", "--x"])
        .args(["--nonce", "0"])
        .assert()
        .code(0);
}

#[test]
fn whole_vector_files_check_out() {
    for (name, rows) in [("reference-rounds.csv", 756), ("rejection-rounds.csv", 6)] {
        fairaudit()
            .arg("verify")
            .arg("--rounds")
            .arg(vectors(name))
            .assert()
            .code(0)
            .stdout(predicate::str::ends_with(format!("{rows} rounds checked, 0 mismatches\n")));
    }
}

#[test]
fn rounds_from_stdin() {
    fairaudit()
        .args(["verify", "--rounds", "-"])
        .pipe_stdin(vectors("rejection-rounds.csv"))
        .unwrap()
        .assert()
        .code(0)
        .stdout(predicate::str::contains("6 rounds checked, 0 mismatches"));
}

fn tampered_history(dir: &Path) -> PathBuf {
    let original = std::fs::read_to_string(vectors("reference-rounds.csv")).unwrap();
    let mut lines: Vec<String> = original.lines().map(str::to_owned).collect();
    // Line 2 is a Keno round whose result is "8 10 12 20 23 25 29 30 31 32": move one number.
    lines[1] = lines[1].replace(",8 10 12 20", ",7 10 12 20");
    // Line 4 is an American spin: claim a different pocket.
    lines[3] = lines[3].replace(",29,29,1", ",29,30,1");
    write(dir, "history.csv", lines.join("\n") + "\n")
}

#[test]
fn mismatches_are_listed_with_line_field_and_both_values_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let history = tampered_history(dir.path());
    fairaudit()
        .arg("verify")
        .arg("--rounds")
        .arg(&history)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "line 2: result: file has '7 10 12 20 23 25 29 30 31 32', computed '8 10 12 20 23 25 29 30 31 32'",
        ))
        .stdout(predicate::str::contains("line 4: result: file has '30', computed '29'"))
        .stdout(predicate::str::contains("756 rounds checked, 2 mismatches"));
}

/// A value not in its written form (a formula, a pocket `05`) states no round: an input
/// error naming the line and column, as in `audit` (tests/regression.rs, issue 30 case 8).
#[test]
fn a_result_not_in_its_written_form_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(vectors("reference-rounds.csv")).unwrap();
    let mut lines: Vec<String> = original.lines().map(str::to_owned).collect();
    lines[3] = lines[3].replace(",29,29,1", ",29,=1+1,1");
    let history = write(dir.path(), "history.csv", lines.join("\n") + "\n");
    fairaudit()
        .arg("verify")
        .arg("--rounds")
        .arg(&history)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("line 4: column 'result': '=1+1' is not a pocket of this wheel"));
}

#[test]
fn out_writes_mismatch_csv_and_never_overwrites_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let history = tampered_history(dir.path());
    let out = dir.path().join("mismatches.csv");
    let run = |extra: &[&str]| {
        fairaudit().arg("verify").arg("--rounds").arg(&history).arg("--out").arg(&out).args(extra).assert()
    };
    run(&[]).code(1);
    let mut reader = csv::Reader::from_path(&out).unwrap();
    assert_eq!(reader.headers().unwrap(), vec!["line", "field", "file_value", "computed_value"]);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!((&rows[1][1], &rows[1][2], &rows[1][3]), ("result", "30", "29"));

    std::fs::write(&out, "precious").unwrap();
    run(&[]).code(2).stderr(predicate::str::contains("already exists"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
    run(&["--force"]).code(1);
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("\"line\",\"field\""));
}

#[test]
fn nonce_beyond_2_pow_53_is_accepted_with_a_note() {
    fairaudit()
        .args(["verify", "--game", "keno", "--server-seed", "s", "--client-seed", "c"])
        .args(["--nonce", "9007199254740992"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("no reference behaviour"));
}

#[test]
fn bad_nonce_arguments_exit_2() {
    for nonce in ["abc", "-1", "+1", "1e3", "18446744073709551616"] {
        fairaudit()
            .args(["verify", "--game", "keno", "--server-seed", "s", "--client-seed", "c"])
            .args(["--nonce", nonce])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("nonce"));
    }
}

#[test]
fn unknown_game_argument_exits_2() {
    fairaudit()
        .args(["verify", "--game", "blackjack", "--server-seed", "s", "--client-seed", "c", "--nonce", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown game 'blackjack'"));
}

#[test]
fn missing_file_exits_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    assert_input_error(&dir.path().join("nope.csv"), &["nope.csv", "cannot open"]);
}

#[test]
fn missing_column_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "f.csv", "game,server_seed,nonce\nkeno,s,1\n");
    assert_input_error(&file, &["f.csv", "missing required column 'client_seed'"]);
}

#[test]
fn unknown_game_in_file_exits_2_with_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "f.csv", format!("{HEADER}\nkeno,s,c,1,,,,,\npoker,s,c,1,,,,,\n"));
    assert_input_error(&file, &["f.csv", "line 3", "unknown game 'poker'"]);
}

#[test]
fn non_numeric_and_out_of_range_nonces_in_file_exit_2_with_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "f.csv", format!("{HEADER}\nkeno,s,c,twelve,,,,,\n"));
    assert_input_error(&file, &["line 2", "nonce 'twelve'"]);
    let file = write(dir.path(), "g.csv", format!("{HEADER}\nkeno,s,c,99999999999999999999,,,,,\n"));
    assert_input_error(&file, &["line 2", "larger than"]);
}

#[test]
fn invalid_utf8_exits_2_with_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = format!("{HEADER}\nkeno,s,c,1,,,,,\nkeno,").into_bytes();
    bytes.extend_from_slice(&[0xff, 0xfe]);
    bytes.extend_from_slice(b",c,2,,,,,\n");
    let file = write(dir.path(), "f.csv", bytes);
    assert_input_error(&file, &["f.csv", "line 3", "invalid UTF-8"]);
}

#[test]
fn truncated_row_exits_2_with_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "f.csv", format!("{HEADER}\nkeno,s,c,1,,,,,\nkeno,s,c"));
    assert_input_error(&file, &["f.csv", "line 3", "3 fields"]);
}

#[test]
fn non_numeric_u32_used_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "f.csv", format!("{HEADER}\nkeno,s,c,1,,,,,ten\n"));
    assert_input_error(&file, &["line 2", "u32_used"]);
}

#[test]
fn optional_columns_may_be_absent_but_not_all_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "f.csv",
        "nonce,game,client_seed,server_seed,u32_used\n5,roulette-european,c,s,1\n",
    );
    fairaudit()
        .arg("verify")
        .arg("--rounds")
        .arg(file)
        .assert()
        .code(0)
        .stdout("1 rounds checked, 0 mismatches\n");
    // A file of inputs only states no round: nothing would be checked (issue 30, case 10).
    let file = write(dir.path(), "g.csv", "nonce,game,client_seed,server_seed\n5,roulette-european,c,s\n");
    assert_input_error(&file, &["nothing to check"]);
}
