//! `fairaudit rtp` through the real binary: the exit status of each verdict, the loud
//! label on the example paytable, and every kind of bad paytable or claims file (exit 2,
//! one line naming the file and line).

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

fn example_paytable() -> String {
    std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/keno-paytable-example.csv"))
        .unwrap()
}

fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

/// The example paytable with line `line` (1-based) replaced, or removed when `None`.
fn paytable_with(line: usize, replacement: Option<&str>) -> String {
    let text = example_paytable();
    let mut lines: Vec<&str> = text.lines().collect();
    match replacement {
        Some(row) => lines[line - 1] = row,
        None => {
            lines.remove(line - 1);
        }
    }
    lines.join("\n") + "\n"
}

/// Asserts exit 2 and exactly one stderr line holding `FILE: line N: ` and `needle`.
fn assert_one_line_error(args: &[&str], file: &Path, line: u64, needle: &str) {
    let output = fairaudit().args(args).arg(file).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line expected, got: {stderr}");
    let location = format!("{}: line {line}: ", file.display());
    assert!(stderr.contains(&location), "{location:?} not in {stderr:?}");
    assert!(stderr.contains(needle), "{needle:?} not in {stderr:?}");
}

#[test]
fn european_claim_holds_and_exits_0() {
    fairaudit()
        .args(["rtp", "--game", "roulette-european"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("straight      37        1  35:1  97.297297"))
        .stdout(predicate::str::contains("HOLDS for all 14 bet types"))
        .stdout(predicate::str::contains("verdict: every claim holds (1 of 1)"));
}

#[test]
fn american_claim_of_97_percent_fails_on_every_bet_and_exits_1() {
    fairaudit()
        .args(["rtp", "--game", "roulette-american"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("DOES NOT HOLD for 14 of 14 bet types"))
        .stdout(predicate::str::contains(
            "top_line  92.105263%  4.894737 pp below the claim, 4.394737 pp beyond the tolerance",
        ))
        .stdout(predicate::str::contains("verdict: 1 of 1 claims DO NOT HOLD: roulette-american rtp 97%"));
}

#[test]
fn all_games_by_default_exit_1_because_of_american() {
    fairaudit()
        .arg("rtp")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("keno: exact RTP per pick count"))
        .stdout(predicate::str::contains("roulette-european: exact RTP per bet type"))
        .stdout(predicate::str::contains("roulette-american: exact RTP per bet type"));
}

#[test]
fn keno_without_a_paytable_says_loudly_that_it_is_illustrative() {
    let assert = fairaudit().args(["rtp", "--game", "keno"]).assert().code(0);
    let output = assert.get_output();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.matches("NOT THE OPERATOR'S").count() >= 3, "{stdout}");
    assert!(stdout.contains("data/keno-paytable-example.csv"));
    assert!(String::from_utf8_lossy(&output.stderr).contains("ILLUSTRATIVE"));
}

#[test]
fn keno_with_a_supplied_paytable_uses_it_and_drops_the_label() {
    let dir = tempfile::tempdir().unwrap();
    // The example with 1 pick paying 3.96 instead of 3.95: exactly 99% for 1 pick.
    let file = write(dir.path(), "operator.csv", paytable_with(3, Some("1,1,3.96")));
    let output = fairaudit().args(["rtp", "--game", "keno", "--paytable"]).arg(&file).output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(!stdout.contains("ILLUSTRATIVE"), "{stdout}");
    assert!(stdout.contains(&format!("paytable: {}\n", file.display())), "{stdout}");
    assert!(stdout.contains("picks_1       1  99.000000"), "{stdout}");
}

#[test]
fn a_paytable_below_the_claim_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "stingy.csv", paytable_with(3, Some("1,1,3.5")));
    fairaudit()
        .args(["rtp", "--game", "keno", "--paytable"])
        .arg(&file)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("picks_1   87.500000%  11.500000 pp below the claim"));
}

#[test]
fn claims_are_data_a_supplied_file_replaces_the_shipped_one() {
    let dir = tempfile::tempdir().unwrap();
    let claims = write(
        dir.path(),
        "claims.csv",
        "game,metric,figure,source\nroulette-american,rtp,94.74,house sign\nroulette-american,rtp,94.7,\n",
    );
    // 94.74 (± 0.005) holds for 13 bet types, not for the top line (92.105263%).
    fairaudit()
        .args(["rtp", "--game", "roulette-american", "--claims"])
        .arg(&claims)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("DOES NOT HOLD for 1 of 14 bet types"))
        .stdout(predicate::str::contains("verdict: 2 of 2 claims DO NOT HOLD"));
    // A file with no claim about the games shown checks nothing: exit 3, not a pass (it
    // once exited 0, as if every claim held).
    let only_european = write(dir.path(), "eu.csv", "game,metric,figure\nroulette-european,rtp,97.3\n");
    fairaudit()
        .args(["rtp", "--game", "roulette-american", "--claims"])
        .arg(&only_european)
        .assert()
        .code(3)
        .stdout(predicate::str::contains(
            "no claims about the games shown: no claim was checked (not a pass)",
        ));
}

#[test]
fn every_kind_of_bad_paytable_is_one_line_with_its_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["rtp", "--game", "keno", "--paytable"];
    let cases: [(&str, String, u64, &str); 10] = [
        ("picks.csv", paytable_with(5, Some("11,1,1.9")), 5, "picks 11 is outside 1..10"),
        ("picks0.csv", paytable_with(5, Some("0,0,1")), 5, "picks 0 is outside 1..10"),
        ("hits.csv", paytable_with(6, Some("2,3,4.5")), 6, "hits 3 is outside 0..2"),
        ("negative.csv", paytable_with(5, Some("2,1,-1.9")), 5, "multiplier '-1.9' is negative"),
        ("text.csv", paytable_with(5, Some("2,1,abc")), 5, "multiplier 'abc' is not a plain decimal"),
        ("float.csv", paytable_with(5, Some("2,1,1e3")), 5, "multiplier '1e3' is not a plain decimal"),
        ("integer.csv", paytable_with(5, Some("two,1,1.9")), 5, "picks 'two' is not a whole number"),
        (
            "duplicate.csv",
            paytable_with(5, Some("1,1,3.95")),
            5,
            "picks 1 hits 1 is given again (first on line 3)",
        ),
        ("missing.csv", paytable_with(66, None), 65, "missing rows: picks 10 hits 10"),
        ("fields.csv", paytable_with(7, Some("3,0")), 7, "2 fields where the header has 3"),
    ];
    for (name, content, line, needle) in cases {
        let file = write(dir.path(), name, content);
        assert_one_line_error(&args, &file, line, needle);
    }
    let no_column = write(dir.path(), "header.csv", "picks,hits,payout\n1,0,0\n");
    assert_one_line_error(&args, &no_column, 1, "no 'multiplier' column");
    let whole_pick = write(
        dir.path(),
        "no7.csv",
        example_paytable().lines().filter(|l| !l.starts_with("7,")).collect::<Vec<_>>().join("\n") + "\n",
    );
    assert_one_line_error(&args, &whole_pick, 58, "missing rows: picks 7 (all)");
}

#[test]
fn a_bad_claims_file_is_one_line_with_its_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["rtp", "--game", "roulette-european", "--claims"];
    for (name, row, needle) in [
        ("game.csv", "blackjack,rtp,99.5,", "unknown game 'blackjack'"),
        ("metric.csv", "keno,volatility,2,", "unknown metric 'volatility'"),
        ("figure.csv", "keno,rtp,99%,", "figure '99%' is not a plain decimal"),
        ("tolerance.csv", "keno,rtp,99,-1", "tolerance '-1' is negative"),
    ] {
        let file = write(dir.path(), name, format!("game,metric,figure,tolerance\nkeno,rtp,99,\n{row}\n"));
        assert_one_line_error(&args, &file, 3, needle);
    }
}

#[test]
fn a_missing_file_is_an_input_error() {
    fairaudit()
        .args(["rtp", "--paytable", "no-such-paytable.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no-such-paytable.csv: cannot open"));
}

#[test]
fn stake_bets_are_exact_over_the_floats_beside_the_advertised_rtp() {
    // Plinko 16 rows, high risk: sum of C(16, k) x multiplier over 2^16, with 26 two buckets
    // from each edge (Stake's table): 98.976440%, 162163/163840 exactly.
    fairaudit()
        .args(["rtp", "--scheme", "stake", "--game", "plinko", "--params", r#"{"rows":16,"risk":"high"}"#])
        .assert()
        .success()
        .stdout(
            predicate::str::is_match(
                r"(?m)^drop +1000 +21\.011353 +98\.976440 +99\.000000 +-0\.0235595703 +162163/163840$",
            )
            .unwrap(),
        );
    // Limbo by the verifier's 24-bit formula: 4,096 floats reach 1,000,000x.
    fairaudit()
        .args(["rtp", "--scheme", "stake", "--game", "limbo", "--params", r#"{"variant":"verifierform"}"#])
        .assert()
        .success()
        .stdout(predicate::str::contains("95.367432").and(predicate::str::contains("15625/16384")));
    // Roulette: 37 straight bets and 12 outside bets, each off 36/37 by its preimages.
    let output = fairaudit().args(["rtp", "--scheme", "stake", "--game", "roulette"]).output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("straight ")).count(), 37);
    assert!(text.contains("\nstraight 0     36   2.702703  97.297298     97.297297  0.0000006796"), "{text}");
    for (args, says) in [
        (vec!["--game", "dice"], "the exact RTP of dice needs its payout rule"),
        (
            vec!["--game", "mines", "--params", r#"{"mines":3}"#],
            "the exact RTP of mines needs its payout rule",
        ),
        (vec![], "one game a run"),
        (
            vec!["--game", "roulette", "--claims", "data/claims.csv"],
            "--paytable and --claims are the default scheme's",
        ),
    ] {
        fairaudit()
            .args(["rtp", "--scheme", "stake"])
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says));
    }
    fairaudit()
        .args(["rtp", "--game", "limbo"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--game limbo is a game of scheme stake; pass --scheme stake"));
}
