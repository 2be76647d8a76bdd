//! `fairaudit conformance --scheme stake` and the judging of its answers by
//! `verify --rounds`, through the real binary: the challenge is deterministic, a correct
//! answer passes (of every group, or of the groups it answers), and an answer that is
//! wrong, incomplete, unlabelled or reordered is a named failure.

use assert_cmd::Command;
use fairaudit::scheme::stake::{replay, StakeGame};
use predicates::prelude::*;
use sha3::{Digest, Sha3_256};
use std::path::{Path, PathBuf};

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

/// Writes the stake challenge (for `games`, or all) into `dir` and returns its path.
fn write_challenge(dir: &Path, games: &[&str]) -> PathBuf {
    let mut command = fairaudit();
    command.args(["conformance", "--scheme", "stake", "--out"]).arg(dir);
    for game in games {
        command.args(["--game", game]);
    }
    command.assert().code(0);
    dir.join("challenge.csv")
}

/// The file's rows, as records (header first).
fn records(path: &Path) -> Vec<csv::StringRecord> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).from_path(path).unwrap();
    reader.records().map(Result::unwrap).collect()
}

fn write_records(path: &Path, records: &[csv::StringRecord]) {
    let mut writer = csv::Writer::from_path(path).unwrap();
    for record in records {
        writer.write_record(record).unwrap();
    }
    writer.flush().unwrap();
}

/// Every row's `commitment` and `result` filled from fairaudit's own replay.
fn answered(challenge: &Path) -> Vec<csv::StringRecord> {
    let mut rows = records(challenge);
    for row in rows.iter_mut().skip(1) {
        let game = StakeGame::new(&row[1], &row[5]).unwrap();
        let round = replay(&game, &row[2], &row[3], row[4].parse().unwrap());
        let mut fields: Vec<String> = row.iter().map(str::to_owned).collect();
        fields[6] = round.commitment;
        fields[7] = round.result;
        *row = csv::StringRecord::from(fields);
    }
    rows
}

fn verify(file: &Path) -> assert_cmd::assert::Assert {
    fairaudit().args(["verify", "--rounds"]).arg(file).assert()
}

/// The SHA3-256 of the whole stake challenge's bytes: a change to it is deliberate.
const CHALLENGE_SHA3: &str = "a5b99dfc3c0835251377d966d8aecb3b6ca8469c31de84efcafd378a17fa421b";

#[test]
fn the_challenge_is_the_same_bytes_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let first = std::fs::read(write_challenge(&dir.path().join("a"), &[])).unwrap();
    let second = std::fs::read(write_challenge(&dir.path().join("b"), &[])).unwrap();
    assert_eq!(first, second);
    let hash: String = Sha3_256::digest(&first).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hash, CHALLENGE_SHA3, "the challenge changed; if deliberate, update the pin");
    let text = String::from_utf8(first).unwrap();
    assert!(text.starts_with(
        "\"scheme\",\"game\",\"server_seed\",\"client_seed\",\"nonce\",\"params\",\"commitment\",\"result\",\"case\"\r\n"
    ));
}

#[test]
fn a_correct_answer_passes_every_case_and_one_group_is_judged_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &[]);
    let rows = answered(&challenge);
    let filled = dir.path().join("filled.csv");
    write_records(&filled, &rows);
    let n = rows.len() - 1;
    verify(&filled).code(0).stdout(predicate::str::ends_with(format!(
        "{n} rounds checked, 0 mismatches\nconformance challenge of fairaudit {} (dice, limbo-stake_page, \
         limbo-verifierform, limbo-fair, keno, roulette, plinko, mines): {n} of {n} cases pass\n",
        env!("CARGO_PKG_VERSION"),
    )));

    // An operator with one limbo formula answers its group only.
    let fair: Vec<csv::StringRecord> = rows
        .iter()
        .enumerate()
        .filter(|(i, row)| *i == 0 || row[8].starts_with("limbo-fair "))
        .map(|(_, r)| r.clone())
        .collect();
    write_records(&filled, &fair);
    let n = fair.len() - 1;
    verify(&filled)
        .code(0)
        .stdout(predicate::str::contains(format!("(limbo-fair): {n} of {n} cases pass")))
        .stdout(predicate::str::contains(
            "not judged (no row answers them): dice, limbo-stake_page, limbo-verifierform, keno, roulette, plinko, mines",
        ));
    // Expected to answer its formula's group, it passes; the game's name is three groups,
    // an input error naming them; a group the answer leaves out fails.
    let expect = |games: &str| {
        fairaudit().args(["verify", "--rounds"]).arg(&filled).args(["--expect-game", games]).assert()
    };
    expect("limbo-fair")
        .code(0)
        .stdout(predicate::str::contains(format!("(limbo-fair): {n} of {n} cases pass")));
    expect("limbo").code(2).stderr(predicate::str::contains(
        "'limbo' is no game of the conformance challenge this file is checked against; its games are dice, limbo-stake_page, limbo-verifierform, limbo-fair, keno",
    ));
    expect("limbo-fair,dice").code(1).stdout(predicate::str::contains("(dice, limbo-fair): ")).stdout(
        predicate::str::contains(
            "not judged (no row answers them): limbo-stake_page, limbo-verifierform, keno",
        ),
    );
    // A crash scheme has no challenge to answer.
    let crash = dir.path().join("crash.csv");
    std::fs::write(&crash, "game,server_seed,client_seed,nonce,result\n").unwrap();
    fairaudit()
        .args(["verify", "--scheme", "roobet", "--expect-game", "crash", "--rounds"])
        .arg(&crash)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("scheme roobet has no conformance challenge"));
    // Answered with another formula, it fails the cases where the formulas differ.
    let mut other = fair.clone();
    for row in other.iter_mut().skip(1) {
        let game = StakeGame::new("limbo", r#"{"variant":"verifierform"}"#).unwrap();
        let mut fields: Vec<String> = row.iter().map(str::to_owned).collect();
        fields[7] = replay(&game, &row[2], &row[3], row[4].parse().unwrap()).result;
        *row = csv::StringRecord::from(fields);
    }
    write_records(&filled, &other);
    verify(&filled).code(1).stdout(predicate::str::contains(
        "FAIL limbo-fair a round where the other two formulas differ from it: result",
    ));
}

#[test]
fn a_wrong_or_missing_answer_is_named_by_its_case() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &["roulette"]);
    let mut rows = answered(&challenge);
    let pocket_row = 3;
    let label = rows[pocket_row][8].to_owned();
    let mut fields: Vec<String> = rows[pocket_row].iter().map(str::to_owned).collect();
    fields[7] = if fields[7] == "5" { "6".into() } else { "5".into() };
    rows[pocket_row] = csv::StringRecord::from(fields);
    let dropped = rows.remove(1);
    let filled = dir.path().join("filled.csv");
    write_records(&filled, &rows);
    let total = rows.len(); // one row dropped: the header's place
    verify(&filled)
        .code(1)
        .stdout(predicate::str::contains(format!("({label}): result: file has")))
        .stdout(predicate::str::contains(format!("FAIL {label}: result")))
        .stdout(predicate::str::contains(format!("MISSING {}: no row answers it", &dropped[8])))
        .stdout(predicate::str::contains(format!("(roulette): {} of {total} cases pass, 2 fail", total - 2)));
}

#[test]
fn an_answer_without_its_case_column_is_judged_by_its_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &["mines"]);
    let rows = answered(&challenge);
    let unlabelled: Vec<csv::StringRecord> =
        rows.iter().map(|row| row.iter().take(8).collect::<csv::StringRecord>()).collect();
    let filled = dir.path().join("filled.csv");
    write_records(&filled, &unlabelled);
    let n = rows.len() - 1;
    verify(&filled).code(0).stdout(predicate::str::contains(format!("(mines): {n} of {n} cases pass")));

    // A trimmed client seed answers a round nobody asked.
    let spaced = unlabelled.iter().position(|row| row[3].starts_with(' ')).unwrap();
    let mut trimmed = unlabelled.clone();
    let mut fields: Vec<String> = trimmed[spaced].iter().map(str::to_owned).collect();
    fields[3] = fields[3].trim().to_owned();
    trimmed[spaced] = csv::StringRecord::from(fields);
    write_records(&filled, &trimmed);
    verify(&filled)
        .code(1)
        .stdout(predicate::str::contains("no case of the challenge has these inputs"))
        .stdout(predicate::str::contains("MISSING mines client seed with spaces at both ends"));

    // Rows put after one that is not the challenge's are refused, not judged as plain rounds.
    let mut reordered = unlabelled.clone();
    let plain = ["stake", "mines", "my server seed", "my client seed", "0", r#"{"mines":3}"#, "", ""];
    let game = StakeGame::new("mines", r#"{"mines":3}"#).unwrap();
    let result = replay(&game, plain[2], plain[3], 0).result;
    let mut plain: Vec<String> = plain.iter().map(|s| s.to_string()).collect();
    plain[7] = result;
    reordered.insert(1, csv::StringRecord::from(plain));
    write_records(&filled, &reordered);
    verify(&filled)
        .code(2)
        .stderr(predicate::str::contains("a seed pair of the stake conformance challenge"));
}

// The stake twin of the default challenge's test: an answer without its `case` column of
// only the cases with hand-made seeds is checked as plain rounds, and the count line says
// how much of the challenge that leaves unjudged.
#[test]
fn an_answer_of_hand_made_cases_only_is_checked_as_rounds_and_says_what_it_left_out() {
    use fairaudit::conformance::stake::{challenge, Kind, GROUPS};
    let dir = tempfile::tempdir().unwrap();
    let challenge_file = write_challenge(dir.path(), &["mines"]);
    let rows = answered(&challenge_file);
    let hand_made: Vec<String> = challenge(&GROUPS)
        .into_iter()
        .filter(|case| matches!(case.kind, Kind::KeyLength | Kind::MessageLength | Kind::SeedText))
        .map(|case| case.label)
        .collect();
    let kept: Vec<csv::StringRecord> = rows
        .iter()
        .enumerate()
        .filter(|(i, row)| *i == 0 || hand_made.iter().any(|l| l == &row[8]))
        .map(|(_, row)| row.iter().take(8).collect())
        .collect();
    let (answered, total) = (kept.len() - 1, rows.len() - 1);
    assert!(answered > 3 && answered < total, "{answered} of {total}");
    let filled = dir.path().join("filled.csv");
    write_records(&filled, &kept);
    verify(&filled)
        .code(0)
        .stdout(predicate::str::contains(format!(
            "note: every row is the round of a conformance case ({answered} of them), but the file is checked as plain rounds"
        )))
        .stdout(predicate::str::contains(format!("the {} other cases of its games are not judged", total - answered)));
    fairaudit()
        .args(["verify", "--rounds"])
        .arg(&filled)
        .args(["--expect-game", "mines"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!("(mines): {answered} of {total} cases pass")));
}

#[test]
fn a_changed_input_is_a_mismatch_and_the_case_is_judged_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &["plinko"]);
    let mut rows = answered(&challenge);
    let mut fields: Vec<String> = rows[1].iter().map(str::to_owned).collect();
    fields[5] = r#"{"rows":12,"risk":"high"}"#.to_owned();
    rows[1] = csv::StringRecord::from(fields);
    let filled = dir.path().join("filled.csv");
    write_records(&filled, &rows);
    verify(&filled).code(1).stdout(predicate::str::contains(
        r#"line 2 (plinko ordinary round 1 (HMAC blocks 0 and 1)): params: file has '{"rows":12,"risk":"high"}', the challenge has '{"rows":16,"risk":"high"}'"#,
    ));
}

#[test]
fn bad_arguments_and_labels_are_input_errors() {
    fairaudit()
        .args(["conformance", "--scheme", "stake", "--list", "--game", "craps"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("'craps' is no game of scheme stake"));
    fairaudit()
        .args(["conformance", "--list", "--game", "dice"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--game dice is a game of scheme stake; pass --scheme stake"));
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &["dice"]);
    let mut rows = answered(&challenge);
    let mut fields: Vec<String> = rows[1].iter().map(str::to_owned).collect();
    fields[8] = "my own label".to_owned();
    rows[1] = csv::StringRecord::from(fields);
    let filled = dir.path().join("filled.csv");
    write_records(&filled, &rows);
    verify(&filled).code(2).stderr(predicate::str::contains(
        "'my own label' is not a case of this fairaudit version's conformance challenge",
    ));
}
