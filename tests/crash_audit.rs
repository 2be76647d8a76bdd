//! `audit --scheme roobet|bustabit-v1`: a bet history of Roobet's real games 1,273,915 to
//! 1,273,935 (`data/vectors/crash.csv`) passes, and every way of tampering with it is a
//! finding on its line: a crash point changed, a hash from another game, a shaved payout,
//! a bet paid that the crash beat, a game out of order; games skipped are named, and bad
//! input is one line and exit 2.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::Path;

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

/// Roobet's games 1,273,935 down to 1,273,915: (game, hash, crash point shown).
fn games() -> Vec<(u64, String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/vectors/crash.csv");
    let mut reader = csv::Reader::from_path(path).unwrap();
    let mut games: Vec<_> = reader
        .records()
        .map(Result::unwrap)
        .filter(|row| &row[0] == "roobet")
        .map(|row| (row[4].parse::<u64>().unwrap(), row[2].to_owned(), row[6].to_owned()))
        .filter(|(game, ..)| (1_273_915..=1_273_935).contains(game))
        .collect();
    games.sort_by_key(|game| std::cmp::Reverse(game.0));
    assert_eq!(games.len(), 21);
    games
}

/// Two bets a game, newest game first: alice cashes out at 2.00 (stake 1), bob at 1.50
/// (stake 2.50); each paid by the rule.
fn history() -> Vec<[String; 7]> {
    let mut rows = Vec::new();
    for (game, hash, shown) in games() {
        let point: f64 = shown.parse().unwrap();
        // Every game here is a real one: a 1.00 among them is an instant crash or 1.00x,
        // and both lose a 1.50 or 2.00 target.
        let pays = |target: f64, stake: f64| {
            if target <= point {
                format!("{}", target * stake)
            } else {
                "0".into()
            }
        };
        for (player, bet, stake) in [("alice", "2.00", "1"), ("bob", "1.50", "2.50")] {
            let payout = pays(bet.parse().unwrap(), stake.parse().unwrap());
            rows.push([player, &game.to_string(), &hash, &shown, bet, stake, &payout].map(str::to_owned));
        }
    }
    rows
}

fn write(dir: &Path, rows: &[[String; 7]]) -> std::path::PathBuf {
    let path = dir.join("bets.csv");
    let mut writer = csv::Writer::from_path(&path).unwrap();
    writer.write_record(["player", "nonce", "server_seed", "result", "bet", "stake", "payout"]).unwrap();
    for row in rows {
        writer.write_record(row).unwrap();
    }
    writer.flush().unwrap();
    path
}

fn audit(path: &Path) -> Command {
    let mut command = fairaudit();
    command.args(["audit", "--scheme", "roobet", "--quiet", "--outcomes"]).arg(path);
    command
}

#[test]
fn a_real_history_passes() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), &history());
    audit(&path).assert().code(0).stdout(predicate::str::contains(
        "42 bets on 21 games read; 21 games replayed from their hashes, 20 links between consecutive games walked; 42 payouts checked\n",
    ));
}

#[test]
fn every_tampering_is_a_finding_on_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = history();
    // Line 2 is game 1,273,935's first bet: its crash point shown higher.
    rows[0][3] = "9.99".into();
    // Lines 4 and 5: game 1,273,934 given game 1,273,933's hash (both rows, so they agree).
    let other = rows[4][2].clone();
    rows[2][2] = other.clone();
    rows[3][2] = other;
    // A shaved payout on a bet that won (alice at 2.00 on the first game that reached it).
    // (Both after the games above and before the one dropped below, so lines stay put.)
    let after =
        |player: &str, payout: &str| (6..20).find(|&i| rows[i][0] == player && rows[i][6] == payout).unwrap();
    let won = after("alice", "2");
    // A bet paid that the crash beat (bob at 1.50 on the first game below it).
    let lost = after("bob", "0");
    rows[won][6] = "1.9".into();
    rows[lost][6] = "3.75".into();
    // Game 1,273,925's two bets dropped: a game missing.
    rows.retain(|r| r[1] != "1273925");
    let path = write(dir.path(), &rows);
    let out = dir.path().join("out");
    audit(&path)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "line 2 (player alice): result: file has '9.99', the game's hash gives '2.15'",
        ))
        .stdout(predicate::str::contains("line 4 (player alice): result:"))
        .stdout(predicate::str::contains("line 4 (player alice): link: file has"))
        .stdout(predicate::str::contains(format!(
            "line {} (player alice): payout: file has 1.9, the cash-out rule gives 2",
            won + 2
        )))
        .stdout(predicate::str::contains(format!(
            "line {} (player bob): payout: file has 3.75, the cash-out rule gives 0",
            lost + 2
        )))
        .stdout(predicate::str::contains("games missing between the first and the last: 1 (1273925)"));
    let findings = std::fs::read_to_string(out.join("findings.csv")).unwrap();
    assert!(findings.contains("\"payout\""), "{findings}");
    // The summary's verdict is the audit's, findings included, whatever the battery says.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["verdict"], "FAIL", "{summary}");
    // Two shaved or paid bets, and the two bets on the game given another game's hash.
    assert_eq!(summary["findings"]["payout"], 4, "{summary}");
    assert!(out.join("tests.csv").exists());
}

#[test]
fn a_salt_changed_for_one_game_is_a_finding_on_its_rows() {
    // Written with a client_seed column: Roobet's published salt on every row (as an empty
    // one would be), but game 1,273,933's, whose crash point the operator picked with
    // another salt (its hash is genuine: the links still join).
    let rows = history();
    let write_salted = |path: &Path, salt_of: &dyn Fn(&str) -> String| {
        let mut writer = csv::Writer::from_path(path).unwrap();
        writer
            .write_record([
                "player",
                "nonce",
                "server_seed",
                "result",
                "bet",
                "stake",
                "payout",
                "client_seed",
            ])
            .unwrap();
        for row in &rows {
            writer.write_record(row.iter().cloned().chain([salt_of(&row[1])])).unwrap();
        }
        writer.flush().unwrap();
    };
    let published = fairaudit::scheme::crash::CrashVariant::Roobet.salt().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("salted.csv");
    write_salted(&path, &|_| published.clone());
    audit(&path).assert().code(0);
    write_salted(&path, &|game| if game == "1273933" { "x".into() } else { published.clone() });
    let line = rows.iter().position(|r| r[1] == "1273933").unwrap() + 2;
    audit(&path).assert().code(1).stdout(predicate::str::contains(format!(
        "line {line} (player alice): salt: file has x, expected {published}, the salt of line 2"
    )));
    // Two published seeding events (a reseed) are not a finding between them, once; a
    // game moved to the other published salt and back is.
    let reseed = fairaudit::scheme::crash::CrashVariant::Roobet.published_salts()[1].to_owned();
    write_salted(&path, &|game| if game == "1273915" { reseed.clone() } else { published.clone() });
    let out = String::from_utf8(audit(&path).assert().get_output().stdout.clone()).unwrap();
    assert!(!out.contains("salt:"), "{out}");
    write_salted(&path, &|game| if game == "1273925" { reseed.clone() } else { published.clone() });
    let back = rows.iter().position(|r| r[1] == "1273924").unwrap() + 2;
    audit(&path).assert().code(1).stdout(predicate::str::contains(format!(
        "line {back} (player alice): salt: file has {published}, expected {reseed}"
    )));
}

#[test]
fn a_game_out_of_order_and_rows_of_one_game_that_disagree_are_findings() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = history();
    // bob's bet on the first game records another crash point than alice's.
    rows[1][3] = "2.16".into();
    rows[1][2] = String::new();
    // The third game's rows moved to the end: the history falls, then rises.
    let moved: Vec<_> = rows.drain(4..6).collect();
    rows.extend(moved);
    let path = write(dir.path(), &rows);
    audit(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("line 3 (player bob): game_result: file has 2.16, expected 2.15 (game 1273935 on line 2)"))
        .stdout(predicate::str::contains("line 42 (player alice): game_order: game 1273933 where the history's order needs a game below game 1273915"));
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    for (column, value, message) in [
        (3, "2.5", "is not a crash point"),
        (4, "1.00", "a crash bet is its cash-out target with two decimals, from 1.01"),
        (2, "CC4A", "is not a game hash"),
    ] {
        let mut rows = history();
        rows[0][column] = value.into();
        let path = write(dir.path(), &rows);
        audit(&path)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message))
            .stderr(predicate::str::contains("line 2"));
    }
    fairaudit()
        .args(["audit", "--scheme", "roobet", "--game", "keno", "--outcomes", "x.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("an audit of scheme roobet is of its one game, crash"));
}

// Hashes are linked to the last game that had one, across games without: a game from
// another chain spliced in between two real ones is a link finding, though every row
// replays; a salt that is not the operator's is said; the walk is within one salt.
#[test]
fn a_spliced_chain_is_caught_across_games_without_hashes() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = history();
    // Game 1,273,934 without its hash (both bets): 1,273,935 links to 1,273,933.
    rows[2][2] = String::new();
    rows[3][2] = String::new();
    let path = write(dir.path(), &rows);
    audit(&path).assert().code(0).stdout(predicate::str::contains(
        "42 bets on 21 games read; 20 games replayed from their hashes, 19 links between consecutive games walked",
    )).stdout(predicate::str::contains(
        "games given without their hash, checked through the link across them (its walk gives their hashes): 1",
    ));
    // Game 1,273,930 replaced by a game of our own chain (hash and crash point both its).
    let own = "45c7aac99b649ed50b255430e66e63e0c581e199702d3cd25f94284be3a10b29";
    let shown = fairaudit::scheme::crash::CrashVariant::Roobet.shown(fairaudit::scheme::crash::crash_point(
        fairaudit::scheme::crash::CrashVariant::Roobet,
        own,
        fairaudit::scheme::crash::CrashVariant::Roobet.salt(),
    ));
    let mut spliced = history();
    for row in spliced.iter_mut().filter(|row| row[1] == "1273930") {
        row[2] = own.to_owned();
        row[3] = shown.clone();
        row[6] = "0".to_owned();
    }
    let path = write(dir.path(), &spliced);
    audit(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("line 12 (player alice): link: file has 45c7aac9"));
}

// A game far from every other (no `link` reaches it) whose hash is the game below's, its
// crash point and payouts recomputed so that only the walk to Roobet's published game 1
// can tell: a `published` finding on its line.
#[test]
fn a_far_game_off_the_published_chain_is_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/vectors/crash.csv");
    let mut reader = csv::Reader::from_path(path).unwrap();
    let real =
        reader.records().map(Result::unwrap).find(|row| &row[0] == "roobet" && &row[4] == "618991").unwrap();
    let below = fairaudit::scheme::crash::previous_hash(&real[2]);
    let variant = fairaudit::scheme::crash::CrashVariant::Roobet;
    let shown = variant.shown(fairaudit::scheme::crash::crash_point(variant, &below, variant.salt()));
    let mut rows = history();
    // A bet without a cash-out target pays nothing, whatever the crash point.
    rows.push(["carol", "618991", &below, &shown, "", "1", "0"].map(str::to_owned));
    let bets = write(dir.path(), &rows);
    let line = rows.len() + 1;
    fairaudit()
        .args(["audit", "--scheme", "roobet", "--quiet", "--outcomes"])
        .arg(&bets)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!("line {line}: published: file has {below}")))
        .stdout(predicate::str::contains("game 618991 is not on it"))
        .stdout(predicate::str::contains("published chain: 21 games walked to their chain's published game"))
        .stdout(predicate::str::contains("findings: 1 (published 1)"));
    // The real hash of game 618,991 is on the chain: no finding.
    rows.pop();
    let real_shown = variant.shown(fairaudit::scheme::crash::crash_point(variant, &real[2], variant.salt()));
    rows.push(["carol", "618991", &real[2], &real_shown, "", "1", "0"].map(str::to_owned));
    let bets = write(dir.path(), &rows);
    fairaudit()
        .args(["audit", "--scheme", "roobet", "--quiet", "--outcomes"])
        .arg(&bets)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("published chain: 22 games walked to their chain's published game"));
}

/// A chain the operator built after play: its own terminating hash, walked down game by
/// game, with the crash points its hashes give under `salt` (so every row replays and
/// links). Rows `(game, hash, shown)`, highest game first.
fn own_chain(
    top: u64,
    games: u64,
    salt: &str,
    variant: fairaudit::scheme::crash::CrashVariant,
) -> Vec<[String; 4]> {
    use fairaudit::scheme::crash::{crash_point, previous_hash};
    let mut hash = "5d41402abc4b2a76b9719d911017c592ae5d41402abc4b2a76b9719d911017c5".to_owned();
    let mut rows = Vec::new();
    for game in (top + 1 - games..=top).rev() {
        rows.push([
            game.to_string(),
            hash.clone(),
            salt.to_owned(),
            variant.shown(crash_point(variant, &hash, salt)),
        ]);
        hash = previous_hash(&hash);
    }
    rows
}

fn audit_rows(
    dir: &Path,
    case: usize,
    scheme: &str,
    rows: &[[String; 4]],
) -> (i32, String, serde_json::Value) {
    let path = dir.join(format!("own-{case}.csv"));
    let mut text = String::from("nonce,server_seed,client_seed,result\n");
    for row in rows {
        text.push_str(&row.join(","));
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    let out = dir.join(format!("out-{case}"));
    let output = fairaudit()
        .args(["audit", "--scheme", scheme, "--quiet", "--outcomes"])
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap() + &String::from_utf8(output.stderr).unwrap();
    let summary = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap_or_default())
        .unwrap_or_default();
    (output.status.code().unwrap(), stdout, summary)
}

// Issue 59, rig 1: an operator builds its own chain after play and exports a history of
// it. Every row replays and links, so before, the walk to the published hash (the only
// tie to a commitment) was skipped without a finding and the audit said PASS. Now each way
// of escaping that walk is an `uncommitted` finding: exit 1, FAIL in summary.json.
#[test]
fn games_not_tied_to_a_commitment_are_a_finding_never_a_pass() {
    use fairaudit::scheme::crash::CrashVariant::{BustabitV1, Roobet};
    let dir = tempfile::tempdir().unwrap();
    let roobet = Roobet.salt();
    let second = Roobet.published_salts()[1];
    let bustabit = BustabitV1.salt();
    let cases: Vec<(&str, Vec<[String; 4]>, &str)> = vec![
        // Game numbers more than 10^8 games from Roobet's published game 1.
        (
            "roobet",
            own_chain(300_000_010, 10, roobet, Roobet),
            "10 games not walked to game 1's published hash",
        ),
        ("bustabit-v1", own_chain(900_000_010, 10, bustabit, BustabitV1), "not walked to game 999999's"),
        // A salt the operator chose.
        (
            "roobet",
            own_chain(1_000, 10, "our own salt", Roobet),
            "10 games on salt our own salt (none of the published seeding events')",
        ),
        // Roobet's second published salt, whose chain's published hash fairaudit does not hold.
        (
            "roobet",
            own_chain(1_000, 10, second, Roobet),
            "but fairaudit holds no published hash of its chain",
        ),
        // bustabit games below its first game: no such game was played.
        (
            "bustabit-v1",
            own_chain(999_990, 10, bustabit, BustabitV1),
            "below game 1000000, the first game played",
        ),
    ];
    for (case, (scheme, rows, says)) in cases.into_iter().enumerate() {
        let (code, stdout, summary) = audit_rows(dir.path(), case, scheme, &rows);
        assert_eq!(code, 1, "{scheme} {says}: {stdout}");
        assert!(stdout.contains("uncommitted: ") && stdout.contains(says), "{says}: {stdout}");
        assert_eq!(summary["verdict"], "FAIL", "{says}");
        assert_eq!(
            summary["findings"]["uncommitted"], 1,
            "one finding for the chain, not one a game: {summary}"
        );
    }
    // Two forged stretches of Roobet games 10^7 apart (each within 10^8 of game 1, so not
    // too far): walking both down to game 1 costs more links than a file of 6 rows may
    // (review of this change: the games left when the budget is spent were counted as not
    // walked but found nothing, and the history PASSed).
    let mut rows = own_chain(60_000_002, 3, roobet, Roobet);
    rows.extend(own_chain(50_000_002, 3, roobet, Roobet));
    let (code, stdout, summary) = audit_rows(dir.path(), 99, "roobet", &rows);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("uncommitted: ") && stdout.contains("beyond the links a file of its size may walk"),
        "{stdout}"
    );
    assert_eq!(summary["findings"]["uncommitted"], 1, "{summary}");
    // And certify says FINDINGS of it (it audits the history again), never PASS.
    let cert = dir.path().join("cert");
    let output = fairaudit()
        .args(["certify", "--no-pdf", "--operator", "Roobet", "--audit"])
        .arg(dir.path().join("out-0"))
        .arg("--out")
        .arg(&cert)
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("certificate for Roobet: FINDINGS"), "{text}");
    // A history without a single hash checks only payouts: its games are tied to nothing.
    let mut rows = history();
    for row in &mut rows {
        row[2] = String::new();
    }
    let path = write(dir.path(), &rows);
    audit(&path).assert().code(1).stdout(predicate::str::contains(
        "uncommitted: 21 games without their hash, not checked through a link",
    ));
}
