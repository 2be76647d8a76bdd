//! `fairaudit conformance` and the judging of its answers by `verify --rounds`, through
//! the real binary: the challenge is deterministic, a correct answer passes, and every
//! way an answer can be incomplete or altered is a named failure.

use assert_cmd::Command;
use fairaudit::games::GameId;
use predicates::prelude::*;
use sha3::{Digest, Sha3_256};
use std::path::{Path, PathBuf};

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

/// Writes the challenge (for `games`, or all) into `dir` and returns its path.
fn write_challenge(dir: &Path, games: &[&str]) -> PathBuf {
    let mut command = fairaudit();
    command.arg("conformance").arg("--out").arg(dir);
    for game in games {
        command.args(["--game", game]);
    }
    command.assert().code(0);
    dir.join("challenge.csv")
}

/// The challenge's rows, as records (header first).
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

/// The header and every row but `game`'s: an answer that leaves the game out.
fn without_game(rows: &[csv::StringRecord], game: &str) -> Vec<csv::StringRecord> {
    rows.iter().enumerate().filter(|(i, row)| *i == 0 || &row[0] != game).map(|(_, r)| r.clone()).collect()
}

/// Fills every row's outcome columns from fairaudit's own replay: a correct answer.
fn answer(challenge: &Path, filled: &Path) -> Vec<csv::StringRecord> {
    let mut rows = records(challenge);
    for row in rows.iter_mut().skip(1) {
        let game: GameId = row[0].parse().unwrap();
        let round = fairaudit::verify::replay(game, &row[1], &row[2], row[3].parse().unwrap());
        let mut fields: Vec<String> = row.iter().map(str::to_owned).collect();
        fields[4..9].clone_from_slice(&[
            round.commitment,
            round.round_signature,
            round.draw_order,
            round.result,
            round.u32_used.to_string(),
        ]);
        *row = csv::StringRecord::from(fields);
    }
    write_records(filled, &rows);
    rows
}

/// The row of a plain rounds file for `game`'s round of these seeds and nonce, every
/// outcome column filled by fairaudit's own replay.
fn replayed_row(game: &str, server: &str, client: &str, nonce: u64) -> csv::StringRecord {
    let round = fairaudit::verify::replay(game.parse().unwrap(), server, client, nonce);
    let (nonce, used) = (nonce.to_string(), round.u32_used.to_string());
    csv::StringRecord::from(vec![
        game,
        server,
        client,
        &nonce,
        &round.commitment,
        &round.round_signature,
        &round.draw_order,
        &round.result,
        &used,
    ])
}

fn verify(file: &Path) -> assert_cmd::assert::Assert {
    fairaudit().arg("verify").arg("--rounds").arg(file).assert()
}

/// The challenge this version writes. Change it only deliberately (a new case, a new
/// fairaudit version), and say so: every implementation's CI answers it.
const CHALLENGE_SHA3: &str = "993d1e8b1ae219e057d33e43fb8c8fa85a0b4a1b741c36456634002c227f57c2";

#[test]
fn the_challenge_is_the_same_bytes_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let first = std::fs::read(write_challenge(&dir.path().join("a"), &[])).unwrap();
    let second = std::fs::read(write_challenge(&dir.path().join("b"), &[])).unwrap();
    assert_eq!(first, second);
    let hash: String = Sha3_256::digest(&first).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hash, CHALLENGE_SHA3, "the challenge changed; if deliberate, update the pin");
}

#[test]
fn an_existing_challenge_is_not_overwritten_without_force() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("challenge.csv"), "precious").unwrap();
    fairaudit()
        .arg("conformance")
        .arg("--out")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already exists"));
    assert_eq!(std::fs::read_to_string(dir.path().join("challenge.csv")).unwrap(), "precious");
    fairaudit().arg("conformance").arg("--out").arg(dir.path()).arg("--force").assert().code(0);
}

#[test]
fn a_correct_answer_passes_every_case() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &[]);
    let filled = dir.path().join("filled.csv");
    let rows = answer(&challenge, &filled);
    verify(&filled).code(0).stdout(predicate::str::ends_with(format!(
        "{n} rounds checked, 0 mismatches\nconformance challenge of fairaudit {} \
         (keno, roulette-european, roulette-american): {n} of {n} cases pass\n",
        env!("CARGO_PKG_VERSION"),
        n = rows.len() - 1,
    )));
}

#[test]
fn an_answer_that_leaves_a_game_out_names_it_and_a_file_without_rounds_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &[]);
    let filled = dir.path().join("filled.csv");
    let rows = answer(&challenge, &filled);
    // Keno's rows dropped: every case answered passes, and Keno is named as not judged
    // (exit 0: a challenge written with `conformance --game` has no Keno either).
    let no_keno = without_game(&rows, "keno");
    write_records(&filled, &no_keno);
    let n = no_keno.len() - 1;
    verify(&filled)
        .code(0)
        .stdout(predicate::str::contains(format!("{n} of {n} cases pass")))
        .stdout(predicate::str::contains("not judged (no row answers them): keno"));
    // The challenge's header alone answers no case: every case fails.
    write_records(&filled, &rows[..1]);
    verify(&filled).code(1).stdout(predicate::str::contains("0 of 232 cases pass"));
    // A rounds file with a header and no rows: nothing checked, which is no pass.
    std::fs::write(&filled, "game,server_seed,client_seed,nonce,result\n").unwrap();
    verify(&filled).code(3).stdout(predicate::str::contains(
        "0 rounds checked, 0 mismatches\nnothing checked: the file holds no rounds",
    ));
}

// An answer leaving a game out exits 0 (above): a CI job gating an adapter could not tell
// a skipped game from one the operator does not offer. `--expect-game` says which games
// the answer must hold; a game it names that no row answers then fails its cases.
#[test]
fn expected_games_must_be_answered_and_an_unknown_one_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &[]);
    let filled = dir.path().join("filled.csv");
    let rows = answer(&challenge, &filled);
    let no_keno = without_game(&rows, "keno");
    write_records(&filled, &no_keno);
    let expect = |games: &str| {
        fairaudit().arg("verify").arg("--rounds").arg(&filled).args(["--expect-game", games]).assert()
    };
    expect("roulette-european,roulette-american")
        .code(0)
        .stdout(predicate::str::contains("148 of 148 cases pass"));
    expect("keno")
        .code(1)
        .stdout(predicate::str::contains(
            "(keno, roulette-european, roulette-american): 148 of 232 cases pass, 84 fail",
        ))
        .stdout(predicate::str::contains("MISSING Keno ordinary round 1: no row answers it"))
        .stdout(predicate::str::contains("not judged").not());
    expect("craps").code(2).stderr(predicate::str::contains(
        "--expect-game: 'craps' is no game of the conformance challenge this file is checked against; its games are keno, roulette-european, roulette-american",
    ));
    // A rounds file that answers no challenge is read as an answer: each of its rows is a
    // round no case asked for, and every expected case is missing.
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/vectors/reference-rounds.csv");
    fairaudit()
        .arg("verify")
        .arg("--rounds")
        .arg(&vectors)
        .args(["--expect-game", "roulette-american"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("0 of 73 cases pass, 73 fail"));
}

#[test]
fn a_wrong_answer_is_named_by_its_case_on_the_terminal_and_in_the_out_file() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &[]);
    let filled = dir.path().join("filled.csv");
    let mut rows = answer(&challenge, &filled);
    let at = rows.iter().position(|r| &r[9] == "American pocket 00").unwrap();
    let mut fields: Vec<String> = rows[at].iter().map(str::to_owned).collect();
    // The pocket's index, not its name: not a pocket's written form, an input error that
    // names the case.
    fields[7] = "37".to_owned();
    write_records(&filled, &[rows[0].clone(), csv::StringRecord::from(fields.clone())]);
    verify(&filled).code(2).stderr(predicate::str::contains(
        "line 2: column 'result': '37' is not a pocket of this wheel (answering case American pocket 00)",
    ));
    fields[7] = "0".to_owned(); // zero for double zero: a wrong answer
    rows[at] = csv::StringRecord::from(fields);
    write_records(&filled, &rows);
    let out = dir.path().join("mismatches.csv");
    fairaudit()
        .arg("verify")
        .arg("--rounds")
        .arg(&filled)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "line {} (American pocket 00): result: file has '0', computed '00'",
            at + 1
        )))
        .stdout(predicate::str::contains(" fail:\n  FAIL American pocket 00: result\n"));
    let mut report = csv::Reader::from_path(&out).unwrap();
    assert_eq!(report.headers().unwrap(), vec!["line", "case", "field", "file_value", "computed_value"]);
    let rows: Vec<csv::StringRecord> = report.records().map(Result::unwrap).collect();
    let line = (at + 1).to_string();
    assert_eq!(
        rows,
        vec![csv::StringRecord::from(vec![line.as_str(), "American pocket 00", "result", "0", "00"])]
    );
}

// An adapter that drops rows, or writes only the header, must not pass.
#[test]
fn a_case_without_a_row_fails_and_an_empty_answer_fails_every_case() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &[]);
    let filled = dir.path().join("filled.csv");
    let mut rows = answer(&challenge, &filled);
    let dropped = rows.iter().position(|r| &r[9] == "Keno rejection at P = 37").unwrap();
    rows.remove(dropped);
    write_records(&filled, &rows);
    verify(&filled)
        .code(1)
        .stdout(predicate::str::contains("  MISSING Keno rejection at P = 37: no row answers it\n"));

    write_records(&filled, &rows[..1]);
    let total = records(&challenge).len() - 1;
    verify(&filled).code(1).stdout(predicate::str::contains(format!(
        "(keno, roulette-european, roulette-american): 0 of {total} cases pass, {total} fail:"
    )));
}

// An adapter that reads the challenge but fills nothing must not pass.
#[test]
fn an_unanswered_result_is_a_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &["roulette-european"]);
    let rows = records(&challenge);
    verify(&challenge)
        .code(1)
        .stdout(predicate::str::contains("(European ordinary round 1): result: file has '', computed '"))
        .stdout(predicate::str::contains(format!("0 of {n} cases pass, {n} fail:", n = rows.len() - 1)));
}

// A CSV reader that trims fields or normalises Unicode changes the round it answers;
// judged on the altered inputs it would pass, so inputs are compared with the challenge.
#[test]
fn an_altered_input_is_a_mismatch_and_the_case_is_judged_on_its_own_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &["keno"]);
    let filled = dir.path().join("filled.csv");
    let mut rows = answer(&challenge, &filled);
    let at = rows.iter().position(|r| &r[9] == "Keno client seed with spaces at both ends").unwrap();
    let trimmed = rows[at][2].trim().to_owned();
    let round = fairaudit::verify::replay(GameId::Keno, &rows[at][1], &trimmed, rows[at][3].parse().unwrap());
    let mut fields: Vec<String> = rows[at].iter().map(str::to_owned).collect();
    fields[2] = trimmed;
    fields[6] = round.draw_order;
    fields[7] = round.result;
    rows[at] = csv::StringRecord::from(fields);
    write_records(&filled, &rows);
    verify(&filled)
        .code(1)
        .stdout(predicate::str::contains(
            "(Keno client seed with spaces at both ends): client_seed: file has 'padded seed', the challenge has '  padded seed  '",
        ))
        .stdout(predicate::str::contains("  FAIL Keno client seed with spaces at both ends: client_seed, draw_order, result\n"))
        .stdout(predicate::str::contains("(keno): "));
}

#[test]
fn a_label_that_is_not_a_case_or_a_case_answered_twice_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &["roulette-american"]);
    let mut rows = records(&challenge);
    let mut fields: Vec<String> = rows[1].iter().map(str::to_owned).collect();
    fields[9] = "my own label".to_owned();
    rows[1] = csv::StringRecord::from(fields);
    write_records(&challenge, &rows);
    verify(&challenge).code(2).stderr(predicate::str::contains(
        "line 2: column 'case': 'my own label' is not a case of this fairaudit version's conformance challenge",
    ));

    let mut rows = records(&write_challenge(&dir.path().join("again"), &["roulette-american"]));
    rows[2] = rows[1].clone();
    write_records(&challenge, &rows);
    verify(&challenge).code(2).stderr(predicate::str::contains(
        "line 3: column 'case': 'American ordinary round 1' is answered twice (first on line 2)",
    ));
}

#[test]
fn list_shows_every_case_with_its_kind() {
    let output = fairaudit().args(["conformance", "--list", "--game", "keno"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.starts_with("kind "));
    assert!(text.contains("rejection"));
    assert!(text.lines().skip(1).all(|line| line.contains(" Keno ")), "{text}");
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(text.lines().count(), records(&write_challenge(dir.path(), &["keno"])).len());
}

// Seeds are written exactly, so none may look like a formula to a spreadsheet.
#[test]
fn a_spreadsheet_like_reader_accepts_the_challenge() {
    let dir = tempfile::tempdir().unwrap();
    write_challenge(dir.path(), &[]);
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/check_csv.py");
    let output = std::process::Command::new("python3").arg(script).arg(dir.path()).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

/// The challenge's rows without the `case` column (an adapter whose CSV writer drops or
/// renames columns it does not know).
fn without_case_column(rows: &[csv::StringRecord], rename: Option<&str>) -> Vec<csv::StringRecord> {
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            let mut fields: Vec<&str> = row.iter().take(9).collect();
            if let Some(name) = rename {
                fields.push(if i == 0 { name } else { &row[9] });
            }
            csv::StringRecord::from(fields)
        })
        .collect()
}

// Issue 31: with the `case` column dropped or renamed, an empty answer said "206 rounds
// checked, 0 mismatches" and passed, and so did an adapter that skipped rows or trimmed
// seeds. Rows are now matched to the cases by their inputs.
#[test]
fn an_answer_without_its_case_column_is_judged_by_its_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &[]);
    let total = records(&challenge).len() - 1;
    let filled = dir.path().join("filled.csv");
    let rows = answer(&challenge, &filled);

    // A complete, correct answer without the column passes, as a challenge answer.
    write_records(&filled, &without_case_column(&rows, None));
    verify(&filled).code(0).stdout(predicate::str::contains(format!("{total} of {total} cases pass")));

    // Empty outcomes, the column dropped or renamed: every case fails.
    for rename in [None, Some("Case")] {
        let empty: Vec<csv::StringRecord> = without_case_column(&records(&challenge), rename);
        write_records(&filled, &empty);
        verify(&filled)
            .code(1)
            .stdout(predicate::str::contains(format!("0 of {total} cases pass, {total} fail:")));
    }

    // Rows skipped: each is MISSING.
    let mut skipped = without_case_column(&rows, None);
    let dropped = rows.iter().position(|r| &r[9] == "European pocket 17").unwrap();
    skipped.remove(dropped);
    write_records(&filled, &skipped);
    verify(&filled)
        .code(1)
        .stdout(predicate::str::contains("  MISSING European pocket 17: no row answers it"));

    // Seeds trimmed by the adapter: the trimmed round is no case's, and the case it
    // should have answered is missing.
    let trimmed: Vec<csv::StringRecord> = without_case_column(&rows, None)
        .into_iter()
        .map(|row| {
            let fields: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(i, f)| if i == 2 { f.trim().to_owned() } else { f.to_owned() })
                .collect();
            csv::StringRecord::from(fields)
        })
        .collect();
    write_records(&filled, &trimmed);
    verify(&filled)
        .code(1)
        .stdout(predicate::str::contains("no case of the challenge has these inputs"))
        .stdout(predicate::str::contains(
            "  MISSING Keno client seed with spaces at both ends: no row answers it",
        ));

    // Every nonce shifted by one, outcomes computed for the shifted rounds: still the
    // challenge's seed pairs, so still judged as an answer, and it fails (a shifted row
    // that lands on another case, nonce 9 on nonce 10, answers that one rightly).
    let shifted: Vec<csv::StringRecord> = without_case_column(&rows, None)
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            if i == 0 {
                return row;
            }
            replayed_row(&row[0], &row[1], &row[2], row[3].parse::<u64>().unwrap() + 1)
        })
        .collect();
    write_records(&filled, &shifted);
    verify(&filled)
        .code(1)
        .stdout(predicate::str::contains("rows that answer no case"))
        .stdout(predicate::str::contains(format!("{total} of {total} cases pass")).not());

    // A row of another seed pair put first: the challenge's rows after it are refused.
    let mut prepended = without_case_column(&rows, None);
    prepended.insert(1, replayed_row("keno", "other", "pair", 1));
    write_records(&filled, &prepended);
    verify(&filled).code(2).stderr(predicate::str::contains("a seed pair of the conformance challenge"));
}

// An answer without its `case` column that holds only cases with hand-made seed pairs
// (rejection rounds, seeds of edge lengths and texts) is not recognised as an answer (one
// such pair is the operator's own vector), so it is checked as plain rounds; its rounds
// are right, but the verdict must say that most of the challenge was not judged.
#[test]
fn an_answer_of_hand_made_cases_only_is_checked_as_rounds_and_says_what_it_left_out() {
    use fairaudit::conformance::{challenge, Kind};
    let dir = tempfile::tempdir().unwrap();
    let challenge_file = write_challenge(dir.path(), &[]);
    let filled = dir.path().join("filled.csv");
    let rows = without_case_column(&answer(&challenge_file, &filled), None);
    let hand_made: Vec<String> = challenge(&GameId::ALL)
        .into_iter()
        .filter(|case| matches!(case.kind, Kind::Rejection | Kind::SeedLength | Kind::SeedText))
        .map(|case| case.label)
        .collect();
    let labels = records(&challenge_file);
    let kept: Vec<csv::StringRecord> = rows
        .iter()
        .zip(&labels)
        .enumerate()
        .filter(|(i, (_, label))| *i == 0 || hand_made.iter().any(|l| l == &label[9]))
        .map(|(_, (row, _))| row.clone())
        .collect();
    let (answered, total) = (kept.len() - 1, rows.len() - 1);
    assert!(answered > 10 && answered < total, "{answered} of {total}");
    write_records(&filled, &kept);
    verify(&filled).code(0).stdout(predicate::str::contains(format!(
        "note: every row is the round of a conformance case ({answered} of them), but the file is checked as plain rounds"
    )))
    .stdout(predicate::str::contains(format!("the {} other cases of its games are not judged", total - answered)));
    fairaudit()
        .arg("verify")
        .arg("--rounds")
        .arg(&filled)
        .args(["--expect-game", "keno,roulette-european,roulette-american"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!("{answered} of {total} cases pass")))
        .stdout(predicate::str::contains("note: every row").not());

    // One row that is no case's round, or a case's round twice: plain rounds, no note.
    for extra in [replayed_row("keno", "other", "pair", 1), kept[1].clone()] {
        let mut more = kept.clone();
        more.push(extra);
        write_records(&filled, &more);
        verify(&filled).code(0).stdout(predicate::str::contains("note: every row").not());
    }
}

// An answer must carry the draw order as well as the result: only it shows a sampler that
// draws right and reports the order wrong.
#[test]
fn an_unanswered_draw_order_is_a_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let challenge = write_challenge(dir.path(), &["keno"]);
    let filled = dir.path().join("filled.csv");
    let rows = answer(&challenge, &filled);
    let blanked: Vec<csv::StringRecord> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let fields: Vec<&str> =
                row.iter().enumerate().map(|(k, f)| if i > 0 && k == 6 { "" } else { f }).collect();
            csv::StringRecord::from(fields)
        })
        .collect();
    write_records(&filled, &blanked);
    verify(&filled)
        .code(1)
        .stdout(predicate::str::contains("(Keno ordinary round 1): draw_order: file has '', computed '"));
}

// Issue 30, case 10: a rounds file (no challenge) whose every checked cell is empty said
// "N rounds checked, 0 mismatches". A row that states nothing is a mismatch.
#[test]
fn a_rounds_file_with_nothing_filled_fails() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rounds.csv");
    std::fs::write(
        &file,
        "game,server_seed,client_seed,nonce,result,draw_order\nkeno,s,c,1,,\nroulette-european,s,c,2,,\n",
    )
    .unwrap();
    verify(&file)
        .code(1)
        .stdout(predicate::str::contains("line 2: result: file has '', computed '"))
        .stdout(predicate::str::contains("2 rounds checked, 2 mismatches"));
}
