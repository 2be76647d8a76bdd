//! Schemes other than the default (issue 33): the HMAC-SHA256 family's golden vectors
//! reproduce through the library and through `verify --rounds` and `verify --scheme`, and a
//! changed result, a rigged float conversion and a shaved limbo multiplier are caught.
//!
//! `data/vectors/stake.csv` holds 258 rounds of the six games, each with its source: test
//! cases of the public verifiers (verifierform-stake, the `fair` crate), results scraped
//! from Stake's own calculator by a public test-data extractor, operators' worked examples,
//! and rounds computed by those verifiers' code run as an oracle (docs/schemes.md).

use assert_cmd::Command;
use fairaudit::scheme::stake::{self, StakeGame};
use predicates::prelude::*;
use std::collections::BTreeMap;

const VECTORS: &str = "data/vectors/stake.csv";

/// The vectors: (line, game, server seed, client seed, nonce, params, result).
fn vectors() -> Vec<(u64, String, String, String, u64, String, String)> {
    let mut reader = csv::Reader::from_path(VECTORS).unwrap();
    reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            let line = record.position().unwrap().line();
            assert_eq!(&record[0], "stake", "line {line}");
            let field = |i: usize| record[i].to_owned();
            (line, field(1), field(2), field(3), record[4].parse().unwrap(), field(5), field(6))
        })
        .collect()
}

#[test]
fn every_golden_vector_reproduces_in_the_library() {
    let mut per_game: BTreeMap<String, usize> = BTreeMap::new();
    for (line, name, server, client, nonce, params, result) in vectors() {
        let game = StakeGame::new(&name, &params).unwrap_or_else(|e| panic!("line {line}: {e}"));
        let round = stake::replay(&game, &server, &client, nonce);
        assert_eq!(round.result, result, "line {line}: {name} {params} nonce {nonce}");
        assert_eq!(game.read_result(&result), Ok(round.outcome), "line {line}");
        *per_game.entry(name).or_default() += 1;
    }
    // Every game, with the cursor crossing into later blocks among them (Keno's 10
    // floats, plinko's 16 rows, mines' 24).
    assert_eq!(
        per_game.keys().map(String::as_str).collect::<Vec<_>>(),
        ["dice", "keno", "limbo", "mines", "plinko", "roulette"]
    );
    assert!(per_game.values().all(|&count| count >= 8), "{per_game:?}");
    let crossing = vectors()
        .iter()
        .filter(|v| {
            let game = StakeGame::new(&v.1, &v.5).unwrap();
            stake::replay(&game, &v.2, &v.3, v.4).floats_used > 16
        })
        .count();
    assert!(crossing >= 3, "rounds reading a third block: {crossing}");
}

#[test]
fn every_golden_vector_reproduces_through_verify_rounds() {
    Command::cargo_bin("fairaudit")
        .unwrap()
        .args(["verify", "--quiet", "--rounds", VECTORS])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("258 rounds checked, 0 mismatches"));
}

#[test]
fn one_vector_per_game_through_verify_scheme_stake() {
    let mut seen = std::collections::BTreeSet::new();
    for (line, name, server, client, nonce, params, result) in vectors() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let mut command = Command::cargo_bin("fairaudit").unwrap();
        command.args(["verify", "--scheme", "stake", "--game", &name, "--server-seed", &server]);
        command.args(["--client-seed", &client, "--nonce", &nonce.to_string()]);
        if !params.is_empty() {
            command.args(["--params", &params]);
        }
        let output = command.output().unwrap();
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert_eq!(output.status.code(), Some(0), "line {line}: {stdout}");
        assert!(stdout.contains(&format!("result:          {result}\n")), "line {line}: {stdout}");
    }
    assert_eq!(seen.len(), 6);
}

/// The rounds file with `change` applied to the text of data line `line` (1 = header).
fn changed_vectors(line: usize, change: impl Fn(&str) -> String) -> tempfile::NamedTempFile {
    let text = std::fs::read_to_string(VECTORS).unwrap();
    let changed: Vec<String> =
        text.lines().enumerate().map(|(i, l)| if i + 1 == line { change(l) } else { l.to_owned() }).collect();
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), changed.join("\n") + "\n").unwrap();
    file
}

#[test]
fn a_changed_result_is_a_mismatch_and_a_malformed_one_an_input_error() {
    // Line 2 is a dice roll: one hundredth more is a finding (exit 1) naming both values.
    let (_, _, _, _, _, _, roll) = &vectors()[0];
    let (whole, cents) = roll.split_once('.').unwrap();
    let more = whole.parse::<u64>().unwrap() * 100 + cents.parse::<u64>().unwrap() + 1;
    let shaved = format!("{}.{:02}", more / 100, more % 100);
    let file = changed_vectors(2, |l| l.replacen(&format!(",{roll},"), &format!(",{shaved},"), 1));
    Command::cargo_bin("fairaudit")
        .unwrap()
        .args(["verify", "--quiet", "--rounds"])
        .arg(file.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!("line 2: result: file has '{shaved}', computed '{roll}'")))
        .stdout(predicate::str::contains("258 rounds checked, 1 mismatches"));
    // A roll with one decimal is not a displayed result: exit 2, naming line and column.
    let file = changed_vectors(2, |l| {
        l.replacen(&format!(",{roll},"), &format!(",{},", &roll[..roll.len() - 1]), 1)
    });
    Command::cargo_bin("fairaudit")
        .unwrap()
        .args(["verify", "--quiet", "--rounds"])
        .arg(file.path())
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("line 2: column 'result'").and(predicate::str::contains("two decimals")),
        );
}

/// An operator whose float conversion is biased (little-endian bytes, or a float rounded
/// up), or whose limbo multiplier is shaved by a cent, produces rounds the vectors' seeds
/// do not reproduce: `verify` flags them.
#[test]
fn rigged_conversions_and_shaved_multipliers_are_caught() {
    use fairaudit::scheme::stake::{LimboFormula, SeedPair, StakeOutcome, UnitFloat};
    let pair = SeedPair::new("rigged server seed", "player");
    let mut rows = String::from("scheme,game,server_seed,client_seed,nonce,params,result\n");
    let mut expected_mismatches = 0;
    for nonce in 0..200u64 {
        let block = pair.block(nonce, 0);
        // Little-endian instead of big-endian: a different roll on almost every round.
        let rigged = UnitFloat(u32::from_le_bytes(block[..4].try_into().unwrap()));
        let roll = StakeGame::Dice.result_text(&StakeOutcome::Roll(stake::games::dice(rigged)));
        let fair = stake::replay(&StakeGame::Dice, "rigged server seed", "player", nonce).result;
        expected_mismatches += usize::from(roll != fair);
        rows.push_str(&format!("stake,dice,rigged server seed,player,{nonce},,{roll}\n"));
        // Limbo one cent short of what the formula gives, where it gives more than 1.00.
        let limbo = StakeGame::Limbo(LimboFormula::Fair);
        let round = stake::replay(&limbo, "rigged server seed", "player", nonce);
        if let StakeOutcome::Multiplier(Some(m)) = round.outcome {
            if m > 100 {
                let shaved = limbo.result_text(&StakeOutcome::Multiplier(Some(m - 1)));
                rows.push_str(&format!("stake,limbo,rigged server seed,player,{nonce},\"{{\"\"variant\"\":\"\"fair\"\"}}\",{shaved}\n"));
                expected_mismatches += 1;
            }
        }
    }
    assert!(expected_mismatches > 300, "{expected_mismatches}");
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), rows).unwrap();
    Command::cargo_bin("fairaudit")
        .unwrap()
        .args(["verify", "--quiet", "--rounds"])
        .arg(file.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(", {expected_mismatches} mismatches")));
}
