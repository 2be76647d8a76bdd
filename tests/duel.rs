//! Duel's dice through the scheme seam (issue 60): its published rounds reproduce in the
//! library and through `verify`, and `sweep`, `merge`, `audit` and `rtp` take it as they take
//! the HMAC-SHA256 family, against its own exact law; `certify` states its method, works
//! its round through with its own key and message, and `--check` redoes it.
//!
//! `data/vectors/duel.csv` holds 396 rounds, each with its source: the 7 test cases of
//! ProvablyFair.org's verifier (github.com/ProvablyFair-org/duel-dice, MIT per its README),
//! 55 bets of its 6,700-bet dataset recorded from Duel, and rounds computed by the
//! verifier's own `src/rng.ts` run under Node as an oracle, 21 of them at nonces whose first
//! word is rejected (docs/schemes.md).

use assert_cmd::Command;
use fairaudit::scheme::keyed::{KeyedPair, KeyedScheme};
use fairaudit::scheme::stake::StakeGame;
use fairaudit::stats::battery::Verdict;
use fairaudit::sweep::stake::sweep;
use fairaudit::tally::stake::StakeTally;
use predicates::prelude::*;
use std::path::Path;
use std::sync::atomic::AtomicBool;

const VECTORS: &str = "data/vectors/duel.csv";
const SERVER: &str = "528555039caf67c0219c9537cf6626c63cb0bfa384b72571410e522773270eb5";
const CLIENT: &str = "bRNvtSn0hp2uVFRe";

fn fairaudit() -> Command {
    let mut command = Command::cargo_bin("fairaudit").unwrap();
    command.env("SOURCE_DATE_EPOCH", "1767225600");
    command
}

/// The vectors: (line, server seed, client seed, nonce, result, commitment, source).
fn vectors() -> Vec<(u64, String, String, u64, String, String, String)> {
    let mut reader = csv::Reader::from_path(VECTORS).unwrap();
    reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            let line = record.position().unwrap().line();
            assert_eq!((&record[0], &record[1], &record[5]), ("duel", "dice", ""), "line {line}");
            let field = |i: usize| record[i].to_owned();
            (line, field(2), field(3), record[4].parse().unwrap(), field(6), field(7), field(8))
        })
        .collect()
}

fn duel(server: &str, client: &str) -> KeyedPair {
    KeyedScheme::Duel.pair(server, client).unwrap()
}

#[test]
fn every_vector_reproduces_in_the_library_rejected_words_included() {
    let (mut rejecting, mut published) = (0, 0);
    for (line, server, client, nonce, result, commitment, source) in vectors() {
        let pair = duel(&server, &client);
        let (outcome, words) = pair.round(&StakeGame::Dice, nonce).unwrap();
        assert_eq!(StakeGame::Dice.result_text(&outcome), result, "line {line}");
        assert_eq!(KeyedScheme::Duel.commitment(&server).unwrap(), commitment, "line {line}");
        assert_eq!(words > 1, source.contains("first word is rejected"), "line {line}: {words} words");
        rejecting += usize::from(words > 1);
        published += usize::from(!source.contains("oracle"));
    }
    assert!(rejecting >= 20 && published >= 60, "{rejecting} rejecting, {published} published");
}

#[test]
fn every_vector_reproduces_through_verify_rounds_and_a_changed_one_is_named() {
    fairaudit()
        .args(["verify", "--quiet", "--rounds", VECTORS])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("396 rounds checked, 0 mismatches"));
    let dir = tempfile::tempdir().unwrap();
    let changed = dir.path().join("changed.csv");
    let text = std::fs::read_to_string(VECTORS).unwrap();
    // Nonce 43503's first word is rejected: the second gives 9.36, the first would not.
    let line = text.lines().find(|l| l.contains(",43503,")).unwrap();
    assert!(line.contains(",9.36,"), "{line}");
    std::fs::write(&changed, text.replace(line, &line.replace(",9.36,", ",9.37,"))).unwrap();
    fairaudit()
        .args(["verify", "--quiet", "--rounds"])
        .arg(&changed)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("1 mismatches").and(predicate::str::contains("9.36")));
}

#[test]
fn verify_scheme_duel_shows_one_round_and_refuses_what_it_cannot_key() {
    let round = |server: &str| {
        fairaudit()
            .args(["verify", "--scheme", "duel", "--game", "dice", "--server-seed", server])
            .args(["--client-seed", CLIENT, "--nonce", "43503"])
            .assert()
    };
    let shown = round(SERVER).code(0).get_output().stdout.clone();
    let shown = String::from_utf8(shown).unwrap();
    assert!(shown.contains("result:          9.36") && shown.contains("words used:      2"), "{shown}");
    // Either case of hex is the same key (Node's Buffer.from reads both).
    round(&SERVER.to_uppercase()).code(0).stdout(predicate::str::contains("result:          9.36"));
    // What Duel's verifier would decode to another key is refused, with the reason.
    round(&SERVER[..63]).code(2).stderr(predicate::str::contains("even number of digits"));
    round(&SERVER.replace("9c", "zz")).code(2).stderr(predicate::str::contains("is hex text"));
    fairaudit()
        .args(["verify", "--scheme", "duel", "--game", "keno", "--server-seed", SERVER])
        .args(["--client-seed", CLIENT, "--nonce", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown game 'keno' of scheme duel (expected dice)"));
}

#[test]
fn the_sweep_counts_what_the_rounds_play_and_tests_them_against_the_uniform_law() {
    let pair = duel(SERVER, CLIENT);
    let stop = AtomicBool::new(false);
    let swept = sweep(&StakeGame::Dice, &pair, 0..20_000, 777, &stop, &|_| ()).unwrap();
    let mut rolls = vec![0u64; 10_001];
    for nonce in 0..20_000 {
        let (outcome, _) = pair.play(&StakeGame::Dice, nonce);
        rolls[fairaudit::scheme::stake::cells::outcome_cell(&outcome)] += 1;
    }
    assert_eq!(swept.outcomes, rolls);
    let law = fairaudit::scheme::stake::cells::outcome_law(KeyedScheme::Duel, &StakeGame::Dice);
    assert!(law.iter().all(|&p| p == 1.0 / 10_001.0), "exactly uniform over the accepted words");
    let stake_law = fairaudit::scheme::stake::cells::outcome_law(KeyedScheme::Stake, &StakeGame::Dice);
    assert_ne!(law, stake_law, "the family's floor of a float is not");
}

/// A dice tally of `rounds` rolls made by `roll` from a deterministic generator.
fn rolled(rounds: u64, roll: impl Fn(u32) -> u32) -> StakeTally {
    let mut tally = StakeTally::empty(&StakeGame::Dice);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut previous = 0;
    for n in 0..rounds {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let value = roll((state >> 32) as u32) as usize;
        tally.rounds += 1;
        tally.outcomes[value] += 1;
        let class = value * 10 / 10_001;
        if n % 2 == 1 {
            tally.pairs[previous * 10 + class] += 1;
        }
        previous = class;
    }
    tally
}

#[test]
fn the_battery_passes_fair_rolls_and_fails_rolls_that_shave_the_top() {
    let battery = |tally: StakeTally| {
        fairaudit::stats::stake::battery(KeyedScheme::Duel, &StakeGame::Dice, &[tally], 0.01).overall()
    };
    // Duel's rule: the words below 4,294,959,453, modulo 10,001.
    let fair = |word: u32| if word < 4_294_959_453 { word % 10_001 } else { word % 9_973 };
    assert_eq!(battery(rolled(200_000, fair)), Verdict::Pass);
    // An operator whose rolls above 99.00 come back one in two times as a roll below it.
    let shaved = |word: u32| match fair(word) {
        roll if roll > 9_900 && word.is_multiple_of(2) => roll - 100,
        roll => roll,
    };
    assert_eq!(battery(rolled(200_000, shaved)), Verdict::Fail);
}

fn sweep_duel(out: &Path, nonces: &str, extra: &[&str]) -> assert_cmd::assert::Assert {
    fairaudit()
        .args(["sweep", "--scheme", "duel", "--game", "dice", "--quiet", "--nonces", nonces])
        .args(["--server-seed", SERVER, "--client-seed", CLIENT])
        .args(extra)
        .arg("--out")
        .arg(out)
        .assert()
}

#[test]
fn sweeps_merge_as_the_family_does_never_with_another_scheme_and_are_certified_with_their_own_method() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    sweep_duel(&whole, "0..30001", &[]).code(0).stdout(predicate::str::contains("swept duel dice"));
    let tally = std::fs::read_to_string(whole.join("stake_tally.json")).unwrap();
    assert!(tally.contains("\"scheme\": \"duel\""), "{tally}");
    let report = std::fs::read_to_string(whole.join("report.html")).unwrap();
    assert!(report.contains("scheme duel") && report.contains("fairaudit rtp --scheme duel --game dice"));
    // Shards merged are the whole sweep, byte for byte.
    let shards = dir.path().join("shards");
    for index in ["0", "1", "2"] {
        sweep_duel(&shards, "0..30001", &["--shards", "3", "--shard-index", index]).code(0);
    }
    let merged = dir.path().join("merged");
    fairaudit().arg("merge").arg(&shards).arg("--out").arg(&merged).assert().code(0);
    // Its plan, commitments included (SHA-256 of the seed's bytes, not of its text).
    let plan = |dir: &Path| {
        let run: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("run.json")).unwrap()).unwrap();
        run["plan"].clone()
    };
    assert_eq!(plan(&whole), plan(&merged));
    assert_eq!(plan(&merged)["seed_pairs"][0][2], KeyedScheme::Duel.commitment(SERVER).unwrap().as_str());
    for file in ["stake_tally.json", "tests.csv", "outcome_counts.csv"] {
        assert_eq!(
            std::fs::read(whole.join(file)).unwrap(),
            std::fs::read(merged.join(file)).unwrap(),
            "{file}"
        );
    }
    // A sweep of the same seeds and game by the stake scheme is another sweep.
    let stake = dir.path().join("stake");
    fairaudit()
        .args(["sweep", "--scheme", "stake", "--game", "dice", "--quiet", "--nonces", "30001..40000"])
        .args(["--server-seed", SERVER, "--client-seed", CLIENT, "--out"])
        .arg(&stake)
        .assert()
        .code(0);
    let adjacent = dir.path().join("adjacent");
    fairaudit()
        .arg("merge")
        .args([&whole, &stake])
        .arg("--out")
        .arg(&adjacent)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("different plans"));
    // A gap between two sweeps is named in words that fit any keyed scheme.
    let (low, high) = (dir.path().join("low"), dir.path().join("high"));
    sweep_duel(&low, "0..100", &[]).code(0);
    sweep_duel(&high, "200..300", &[]).code(0);
    fairaudit()
        .arg("merge")
        .args([&low, &high])
        .arg("--out")
        .arg(dir.path().join("gap"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains(
                "nonces 100..200 are in no input; a merge joins sweeps of adjacent ranges",
            )
            .and(predicate::str::contains("stake").not()),
        );
    // Certified beside the stake sweep: each scheme's method is stated, Duel's round is
    // worked through with its own key and message, and the check redoes every verdict.
    let cert = dir.path().join("cert");
    fairaudit()
        .args(["certify", "--no-pdf", "--operator", "Duel", "--sweep"])
        .arg(&whole)
        .arg("--sweep")
        .arg(&merged)
        .arg("--sweep")
        .arg(&stake)
        .arg("--out")
        .arg(&cert)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("duel sweep 2 (").and(predicate::str::contains("stake sweep 3 (")));
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    let first = fairaudit::scheme::duel::DuelPair::new(SERVER, CLIENT).unwrap().digest(0);
    let hex: String = first.iter().map(|b| format!("{b:02x}")).collect();
    for said in [
        "<h3>2.1 The keyed schemes, recomputed bit for bit</h3>",
        "Duel sweep 1 (dice, 30,001 rounds",
        "Stake sweep 3 (dice, 9,999 rounds",
        "and has probability exactly 1/10,001",
        "block r of nonce n = HMAC-SHA256(key = the server seed's UTF-8 bytes",
        &format!("message = <code>{CLIENT}:0</code>) = <code>{hex}</code>"),
        "-macopt hexkey:SERVER",
        "exact over the 4,294,959,453 equally likely accepted words",
        "Games: dice (duel), dice (stake).",
    ] {
        assert!(html.contains(said), "the certificate lacks {said}");
    }
    fairaudit()
        .args(["certify", "--check"])
        .arg(&cert)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("re-swept 70001 rounds"));
}

#[test]
fn an_audit_replays_each_bet_and_names_a_changed_roll() {
    let mut csv = String::from("scheme,game,server_seed,client_seed,nonce,commitment,result,bet\n");
    let commitment = KeyedScheme::Duel.commitment(SERVER).unwrap();
    let pair = duel(SERVER, CLIENT);
    for nonce in 0..400 {
        let (outcome, _) = pair.round(&StakeGame::Dice, nonce).unwrap();
        let result = StakeGame::Dice.result_text(&outcome);
        csv += &format!("duel,dice,{SERVER},{CLIENT},{nonce},{commitment},{result},over:50.00\n");
    }
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.csv");
    std::fs::write(&history, &csv).unwrap();
    let audit = |out: &str| {
        fairaudit()
            .args(["audit", "--scheme", "duel", "--quiet", "--outcomes"])
            .arg(&history)
            .arg("--out")
            .arg(dir.path().join(out))
            .assert()
    };
    audit("fair").code(0).stdout(predicate::str::contains("400 rounds read; 400 replayed"));
    // Certified: the history's first row is worked through with Duel's key and message,
    // and the changed roll is the certificate's finding.
    let certify = |audit: &str| {
        fairaudit()
            .args(["certify", "--no-pdf", "--operator", "Duel", "--audit"])
            .arg(dir.path().join(audit))
            .arg("--out")
            .arg(dir.path().join(format!("{audit}-certificate")))
            .assert()
    };
    certify("fair").code(0).stdout(predicate::str::contains("duel bet history 1"));
    let html = std::fs::read_to_string(dir.path().join("fair-certificate/certificate.html")).unwrap();
    assert!(html.contains("Duel bet history 1: line 2 (dice at nonce 0), the first row replayed"), "{html}");
    assert!(html.contains(&format!("message = <code>{CLIENT}:0</code>")) && html.contains(": the same."));
    assert!(!html.contains("HMAC-SHA256 family"), "a Duel-only certificate names no stake family: {html}");
    let line = csv.lines().nth(8).unwrap().to_owned();
    let (kept, result) = line.rsplit_once(',').unwrap().0.rsplit_once(',').unwrap();
    let changed = if result == "1.00" { "2.00" } else { "1.00" };
    std::fs::write(&history, csv.replace(&line, &format!("{kept},{changed},over:50.00"))).unwrap();
    audit("changed").code(1).stdout(predicate::str::contains("result"));
    certify("changed").code(1).stdout(predicate::str::contains("row checks FINDINGS"));
    // Rows of another scheme are not Duel's to audit.
    std::fs::write(&history, csv.replacen("duel,dice", "stake,dice", 1)).unwrap();
    audit("other").code(2).stderr(predicate::str::contains("audited as scheme duel"));
}

#[test]
fn rtp_states_the_exact_return_of_the_published_multiplier() {
    let shown = fairaudit().args(["rtp", "--scheme", "duel", "--game", "dice"]).assert().code(0);
    let text = String::from_utf8(shown.get_output().stdout.clone()).unwrap();
    // 0.999 / chance, the chance exact: every target returns 99.9% exactly.
    assert!(text.contains("over the 4,294,959,453 accepted words"), "{text}");
    assert_eq!(text.matches("999/1000").count(), 9, "{text}");
}
