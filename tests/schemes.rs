//! Schemes other than the default (issue 33): the HMAC-SHA256 family's golden vectors
//! reproduce through the library and through `verify --rounds` and `verify --scheme`, and a
//! changed result, a rigged float conversion and a shaved limbo multiplier are caught.
//!
//! `data/vectors/stake.csv` holds 258 rounds of the six games, each with its source: test
//! cases of the public verifiers (verifierform-stake, the `fair` crate), results scraped
//! from Stake's own calculator by a public test-data extractor, operators' worked examples,
//! and rounds computed by those verifiers' code run as an oracle (docs/schemes.md).

mod common;

use assert_cmd::Command;
use common::history::stake_keno_history;
use fairaudit::scheme::stake::{self, FloatWords, StakeGame};
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
        let roll = StakeGame::Dice
            .result_text(&StakeOutcome::Roll(stake::games::dice(&mut FloatWords(std::iter::once(rigged)))));
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

/// A row of a stake bet history: `game,params,commitment,server_seed,client_seed,nonce,result,bet,stake,payout`.
fn history_row(game: &StakeGame, server: &str, nonce: u64, result: &str, bet: &str, paid: &str) -> String {
    let params = game.params().replace('"', "\"\"");
    let commitment = stake::commitment(server);
    format!(
        "{},\"{params}\",{commitment},{server},player seed,{nonce},{result},{bet},10,{paid}\n",
        game.name()
    )
}

const HISTORY_HEADER: &str = "game,params,commitment,server_seed,client_seed,nonce,result,bet,stake,payout\n";

/// An honest history of 6,000 rounds of limbo, roulette and plinko (payouts by the
/// published rules), and dice, Keno and mines (results only).
fn honest_history() -> String {
    use fairaudit::rtp::stake::plinko_multipliers;
    use fairaudit::scheme::stake::{LimboFormula, Risk, StakeOutcome};
    use num_traits::ToPrimitive;
    let server = "audit server seed";
    let mut rows = String::from(HISTORY_HEADER);
    let games = [
        StakeGame::Limbo(LimboFormula::Fair),
        StakeGame::Roulette,
        StakeGame::Plinko { rows: 16, risk: Risk::High },
        StakeGame::Dice,
        StakeGame::Keno,
        StakeGame::Mines { mines: 3 },
    ];
    for nonce in 0..6_000u64 {
        let game = games[(nonce / 1_000) as usize];
        let round = stake::replay(&game, server, "player seed", nonce);
        let (bet, paid) = match (&game, &round.outcome) {
            (StakeGame::Limbo(_), StakeOutcome::Multiplier(m)) => {
                ("2.00", if m.is_none_or(|m| m >= 200) { "20" } else { "0" }.to_owned())
            }
            (StakeGame::Roulette, StakeOutcome::Pocket(p)) => {
                ("dozen:1", if (1..=12).contains(p) { "30" } else { "0" }.to_owned())
            }
            (StakeGame::Plinko { rows, risk }, StakeOutcome::Bucket(b)) => {
                let m = plinko_multipliers(*rows, *risk)[usize::from(*b)].to_f64().unwrap();
                ("", format!("{}", (m * 10.0 * 100.0).round() / 100.0))
            }
            _ => ("", "5".to_owned()),
        };
        rows.push_str(&history_row(&game, server, nonce, &round.result, bet, &paid));
    }
    rows
}

fn audit(history: &str, out: Option<&std::path::Path>) -> assert_cmd::assert::Assert {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), history).unwrap();
    let mut command = Command::cargo_bin("fairaudit").unwrap();
    command.args(["audit", "--scheme", "stake", "--quiet", "--outcomes"]).arg(file.path());
    if let Some(out) = out {
        command.arg("--out").arg(out);
    }
    command.assert()
}

#[test]
fn an_honest_stake_history_passes_with_its_payouts_checked() {
    let dir = tempfile::tempdir().unwrap();
    audit(&honest_history(), Some(&dir.path().join("audit")))
        .success()
        .stdout(predicate::str::contains(
            "6000 rounds read; 6000 replayed from their revealed seeds; 3000 payouts checked against the published tables",
        ))
        .stdout(predicate::str::contains("payouts of dice not checked on 1000 rows"))
        .stdout(predicate::str::contains("findings:").not())
        .stdout(predicate::str::contains(": PASS"));
    let tests = std::fs::read_to_string(dir.path().join("audit/tests.csv")).unwrap();
    for test in [
        "\"limbo {\"\"variant\"\":\"\"fair\"\"}\",\"log\",\"outcome_frequency\"",
        "\"keno\",\"log\",\"draw_steps\"",
        "\"mines {\"\"mines\"\":3}\",\"log\",\"pairs\"",
    ] {
        assert!(tests.contains(test), "{test} in {tests}");
    }
    let findings = std::fs::read_to_string(dir.path().join("audit/findings.csv")).unwrap();
    assert_eq!(findings.lines().count(), 1, "{findings}");
}

#[test]
fn keno_payouts_are_judged_by_the_operators_paytable_when_given() {
    let dir = tempfile::tempdir().unwrap();
    let paytable = dir.path().join("operator-keno.csv");
    std::fs::write(&paytable, fairaudit::rtp::paytable::EXAMPLE_PAYTABLE_CSV).unwrap();
    let history = dir.path().join("keno.csv");
    let audit_with = |extra: &[&std::ffi::OsStr]| {
        Command::cargo_bin("fairaudit")
            .unwrap()
            .args(["audit", "--scheme", "stake", "--quiet", "--outcomes"])
            .arg(&history)
            .args(extra)
            .assert()
    };
    std::fs::write(&history, stake_keno_history(2_000)).unwrap();
    let with_paytable = [std::ffi::OsStr::new("--paytable"), paytable.as_os_str()];
    audit_with(&with_paytable)
        .code(0)
        .stdout(predicate::str::contains(format!(
            "2000 payouts checked against the published tables (Keno's: the paytable {})",
            paytable.display()
        )))
        .stdout(predicate::str::contains("not checked").not());
    // Without it, Keno's payouts are counted as unchecked and why is said.
    audit_with(&[]).code(0).stdout(predicate::str::contains(
        "payouts of keno not checked on 2000 rows: no Keno paytable was given (--paytable FILE, the operator's)",
    ));
    // One win paid a cent short, and one paid where the table pays nothing.
    let honest = stake_keno_history(2_000);
    let mut lines: Vec<String> = honest.lines().map(str::to_owned).collect();
    let (short, loser) = {
        let paid = |l: &String| l.rsplit(',').next().unwrap().to_owned();
        let short = lines.iter().skip(1).position(|l| paid(l) != "0").unwrap() + 1;
        let loser = lines.iter().skip(1).position(|l| paid(l) == "0").unwrap() + 1;
        (short, loser)
    };
    let paid_short = {
        let (rest, paid) = lines[short].rsplit_once(',').unwrap();
        let cents: f64 = paid.parse::<f64>().unwrap() - 0.01;
        format!("{rest},{cents:.2}")
    };
    lines[short] = paid_short;
    lines[loser] = format!("{},10", lines[loser].rsplit_once(',').unwrap().0);
    std::fs::write(&history, lines.join("\n") + "\n").unwrap();
    let out = audit_with(&with_paytable).code(1);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("findings: 2 (payout 2)"), "{text}");
    assert!(text.contains(&format!("line {}: payout", short + 1)), "{text}");
    // A bet that is not the numbers picked is a bad row (exit 2), not a guess.
    let bad = honest.replacen(",1,10,", ",1 1,10,", 1);
    assert_ne!(bad, honest);
    std::fs::write(&history, bad).unwrap();
    audit_with(&with_paytable).code(2).stderr(predicate::str::contains("Keno's bet is the numbers picked"));
    // A paytable with a row missing is refused before the history is read.
    std::fs::write(&paytable, "picks,hits,multiplier\n1,0,0\n").unwrap();
    audit_with(&with_paytable).code(2).stderr(predicate::str::contains("missing rows"));
}

#[test]
fn short_payouts_changed_results_and_reused_nonces_are_findings() {
    let honest = honest_history();
    let mut lines: Vec<String> = honest.lines().map(str::to_owned).collect();
    // Plinko 16/high paying 25 where the table says 26 (buckets 2 and 14), a limbo win
    // paid as a loss, a roulette result changed, and one nonce played twice.
    let mut expected = std::collections::BTreeMap::new();
    for line in lines.iter_mut().skip(1) {
        if line.starts_with("plinko") && (line.contains(",2,,10,260") || line.contains(",14,,10,260")) {
            *line = line.replace(",10,260", ",10,250");
            *expected.entry("payout").or_insert(0) += 1;
        }
    }
    let limbo_win = lines.iter().position(|l| l.starts_with("limbo") && l.ends_with(",20")).unwrap();
    lines[limbo_win] = lines[limbo_win].replace(",2.00,10,20", ",2.00,10,0");
    let spin = lines.iter().position(|l| l.starts_with("roulette") && l.contains(",0,dozen:1")).unwrap();
    lines[spin] = lines[spin].replace(",0,dozen:1", ",1,dozen:1");
    let last = lines.last().unwrap().clone();
    lines.push(last);
    let rigged = lines.join("\n") + "\n";
    let payouts = expected.get("payout").copied().unwrap_or(0);
    assert!(payouts > 0, "some plinko rounds land two buckets from an edge");
    audit(&rigged, None)
        .code(1)
        .stdout(predicate::str::contains(format!("payout {}, ", payouts + 2)))
        .stdout(predicate::str::contains("result 1"))
        .stdout(predicate::str::contains("nonce_reused 1"))
        .stdout(predicate::str::contains("the published multiplier gives 260"));
}

#[test]
fn unrevealed_rounds_are_judged_by_the_battery_alone() {
    use fairaudit::scheme::stake::{SeedPair, StakeOutcome, UnitFloat};
    // 200,000 dice rolls from floats built of 16 bits, the server seed not revealed.
    let pair = SeedPair::new("hidden", "player seed");
    let history = |rig: bool| {
        let mut rows = String::from("game,client_seed,commitment,nonce,result\n");
        for nonce in 0..200_000u64 {
            let float = pair.floats(nonce).next().unwrap();
            let float = if rig { UnitFloat(float.0 & 0xFFFF_0000) } else { float };
            let roll = StakeGame::Dice.result_text(&StakeOutcome::Roll(stake::games::dice(&mut FloatWords(
                std::iter::once(float),
            ))));
            rows.push_str(&format!("dice,player seed,{},{nonce},{roll}\n", "ab".repeat(32)));
        }
        rows
    };
    audit(&history(false), None).success().stdout(predicate::str::contains("0 replayed"));
    audit(&history(true), None)
        .code(1)
        .stdout(predicate::str::contains("FAIL         dice log outcome_frequency"));
}

#[test]
fn bad_rows_of_a_stake_history_are_one_line_errors() {
    for (row, says) in [
        ("craps,,,s,player seed,0,1,,10,0", "unknown game 'craps' of scheme stake"),
        (
            "limbo,\"{\"\"variant\"\":\"\"fair\"\"}\",,s,player seed,0,1.50,2,10,0",
            "limbo's bet is its target multiplier with two decimals",
        ),
        ("roulette,,,s,player seed,0,7,straight:40,10,0", "not a pocket"),
        ("dice,,,s,player seed,0,50.5,,10,0", "not a dice result"),
        ("dice,,,s,player seed,0,50.50,over:50.5,10,0", "dice's bet is its direction and target"),
        ("dice,,,s,player seed,0,50.50,above:50.50,10,0", "dice's bet is its direction and target"),
        ("dice,,,s,player seed,0,50.50,,-1,0", "'-1' is negative"),
        (
            "dice,,,s,player seed,18446744073709551615,50.50,,1,0",
            "above the largest nonce a history can hold",
        ),
        (
            "limbo,\"{\"\"variant\"\":\"\"fair\"\"}\",,s,player seed,0,1.50,0002.00,10,0",
            "limbo's bet is its target",
        ),
    ] {
        audit(&format!("{HISTORY_HEADER}{row}\n"), None)
            .code(2)
            .stderr(predicate::str::contains("line 2").and(predicate::str::contains(says)));
    }
    Command::cargo_bin("fairaudit")
        .unwrap()
        .args(["audit", "--scheme", "stake", "--game", "keno", "--outcomes", "x.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--game is the default scheme's"));
    Command::cargo_bin("fairaudit")
        .unwrap()
        .args(["audit", "--outcomes", "tests/data/stake-history.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--game is required"));
}

#[test]
fn a_stake_row_showing_only_its_commitment_is_replayed_with_the_seed_revealed_elsewhere() {
    // The history (with its commitment column), its seed shown on the last row only, and
    // the limbo row's result changed (the seeds give 1.41) and its doctored payout undone.
    let original = std::fs::read_to_string("tests/data/stake-history.csv").unwrap();
    let lines: Vec<&str> = original.lines().collect();
    let mut history = format!("{}\n", lines[0]);
    for (i, line) in lines[1..].iter().enumerate() {
        let last = i == lines.len() - 2;
        let line = if last { (*line).to_owned() } else { line.replacen(",audit server,", ",,", 1) };
        let line = line.replacen(",1.41,", ",1.01,", 1).replacen("red,10,25", "red,10,20", 1);
        history.push_str(&format!("{line}\n"));
    }
    assert_eq!(history.matches(",audit server,").count(), 1, "{history}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("history.csv");
    std::fs::write(&file, &history).unwrap();
    let audit = |input: &str| {
        let mut command = Command::cargo_bin("fairaudit").unwrap();
        command.args(["audit", "--scheme", "stake", "--quiet", "--outcomes", input]);
        command.write_stdin(history.clone()).assert()
    };
    // From the file and from standard input alike: every row replayed, the rig found.
    for input in [file.to_str().unwrap(), "-"] {
        let out = String::from_utf8(audit(input).code(1).get_output().stdout.clone()).unwrap();
        assert!(out.contains("line 3: result: file has '1.01', the seeds give '1.41'"), "{out}");
        assert!(out.contains("4 rounds read; 4 replayed from their revealed seeds"), "{out}");
    }
}

#[test]
fn a_stake_audit_writes_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("audit");
    Command::cargo_bin("fairaudit")
        .unwrap()
        .args([
            "audit",
            "--scheme",
            "stake",
            "--quiet",
            "--outcomes",
            "tests/data/stake-history.csv",
            "--out",
        ])
        .arg(&out)
        .assert()
        .code(1);
    let findings = std::fs::read_to_string(out.join("findings.csv")).unwrap();
    assert_eq!(findings.lines().skip(1).collect::<Vec<_>>(), ["5,\"\",\"payout\",20,25"], "{findings}");
    for file in ["tests.csv", "summary.json", "run.json"] {
        assert!(out.join(file).exists(), "{file}");
    }
    // rtp.csv: each game's bets realised on its recorded results (none for dice, whose
    // payout rule is not sourced); report.html: the verdict, the finding, the returns.
    let rtp = std::fs::read_to_string(out.join("rtp.csv")).unwrap();
    let games: std::collections::BTreeSet<&str> =
        rtp.lines().skip(1).map(|line| line.split(',').next().unwrap()).collect();
    assert_eq!(games.len(), 3, "plinko, limbo and roulette: {games:?}");
    assert!(!rtp.contains("\"dice\""), "{rtp}");
    let red = rtp.lines().find(|line| line.contains(",\"red\",")).expect("the red bet");
    assert!(red.starts_with("\"roulette\",\"history\",\"red\",\"\",1,"), "{red}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for figure in [
        "<div id=\"verdict\" class=\"verdict FAIL\">FAIL</div>",
        "4 rows read; 4 replayed from their revealed seeds; 3 payouts checked",
        "<td class=\"num\">5</td><td></td><td>payout</td><td><code>20</code></td><td><code>25</code></td>",
        "Payouts of dice not checked on 1 row",
        "id=\"rtp-table\"",
    ] {
        assert!(html.contains(figure), "{figure}");
    }
    for forbidden in ["src=", "href=", "<script", "<link", "@import", "url("] {
        assert!(!html.contains(forbidden), "report.html contains {forbidden}");
    }
}

#[test]
fn rows_are_placed_in_seed_pairs_by_seed_or_commitment_and_commitments_are_checked() {
    let dice = |server: &str, nonce: u64| stake::replay(&StakeGame::Dice, server, "c", nonce);
    let (a, b) = (dice("seed a", 0), dice("seed b", 0));
    // Two seed pairs whose nonces both start at 0, not a reuse; seed b's nonce 0 again
    // under its commitment (in capitals): the same pair, a reuse; rows naming neither seed
    // nor commitment are in no pair (no reuse found). A wrong commitment is named.
    let upper = stake::commitment("seed b").to_uppercase();
    let history = format!(
        "game,server_seed,client_seed,commitment,nonce,result\n\
         dice,seed a,c,,0,{}\ndice,seed b,c,,0,{}\ndice,,c,{upper},0,{}\n\
         dice,,c,,0,{}\ndice,,c,,0,{}\ndice,seed a,c,{},1,{}\n",
        a.result,
        b.result,
        b.result,
        a.result,
        b.result,
        "ab".repeat(32),
        dice("seed a", 1).result,
    );
    let wrong = format!(
        "line 7: commitment: file has {}, SHA-256 of the revealed server seed is {}",
        "ab".repeat(32),
        stake::commitment("seed a")
    );
    audit(&history, None)
        .code(1)
        .stdout(predicate::str::contains("findings: 2 (commitment 1, nonce_reused 1)"))
        .stdout(predicate::str::contains("line 4: nonce_reused"))
        .stdout(predicate::str::contains(wrong));
    // The same round twice in one seed pair: reused, and counted once.
    let twice = format!(
        "game,server_seed,client_seed,commitment,nonce,result\ndice,seed a,c,{1},0,{0}\ndice,seed a,c,{1},0,{0}\n",
        a.result,
        stake::commitment("seed a")
    );
    audit(&twice, None).code(1).stdout(predicate::str::contains("findings: 1 (nonce_reused 1)"));
}
