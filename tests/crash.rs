//! Crash games played from a hash chain (schemes `bustabit-v1` and `roobet`): every
//! vector of `data/vectors/crash.csv` reproduces through the library and `verify
//! --rounds`, a changed crash point and a flipped chain link are named, one game is
//! verified step by step, and `rtp` states each cash-out's exact return.

use assert_cmd::Command;
use fairaudit::scheme::crash::{crash_point, previous_hash, CrashPoint, CrashVariant};
use predicates::prelude::*;
use std::path::Path;

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

const VECTORS: &str = "data/vectors/crash.csv";

fn vectors() -> Vec<csv::StringRecord> {
    let mut reader = csv::Reader::from_path(Path::new(env!("CARGO_MANIFEST_DIR")).join(VECTORS)).unwrap();
    reader.records().map(Result::unwrap).collect()
}

fn variant(scheme: &str) -> CrashVariant {
    match scheme {
        "bustabit-v1" => CrashVariant::BustabitV1,
        "roobet" => CrashVariant::Roobet,
        other => panic!("{other}"),
    }
}

#[test]
fn every_vector_reproduces_through_the_library() {
    let rows = vectors();
    assert_eq!(rows.len(), 53);
    let mut instant = [0, 0];
    for row in &rows {
        let variant = variant(&row[0]);
        let point = crash_point(variant, &row[2], &row[3]);
        assert_eq!(variant.shown(point), &row[6], "{row:?}");
        if point == CrashPoint::Instant {
            instant[usize::from(variant == CrashVariant::Roobet)] += 1;
        }
        // Roobet shows an instant crash and the formula's 1.00 alike; the sources say which.
        if row[7].contains("instant crash (HMAC divisible") {
            assert_eq!(point, CrashPoint::Instant, "{row:?}");
        }
        if row[7].contains("formula floor gives 100") {
            assert_eq!(point, CrashPoint::Hundredths(100), "{row:?}");
        }
        assert!(!row[7].is_empty(), "every vector names its source");
    }
    // Instant crashes of both schemes, shown 0.00 and 1.00, are among them.
    assert!(instant[0] >= 3 && instant[1] >= 3, "{instant:?}");
    // Consecutive games are linked: game n - 1's hash is SHA-256 of game n's text.
    let linked = rows
        .windows(2)
        .filter(|pair| pair[0][4].parse::<u64>().unwrap() == pair[1][4].parse::<u64>().unwrap() + 1)
        .inspect(|pair| assert_eq!(previous_hash(&pair[0][2]), &pair[1][2]))
        .count();
    assert!(linked >= 38, "{linked} links");
}

#[test]
fn every_vector_reproduces_through_verify_rounds() {
    fairaudit()
        .args(["verify", "--rounds", VECTORS, "--quiet"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .assert()
        .code(0)
        .stdout(
            "53 rounds checked, 0 mismatches\ncrash games: 39 of 53 checked against the game on the row before \
             them; the others stand alone (another chain, or more than 10000 games away)\n\
             crash games on bustabit-v1's published chain: 1 of 25, walked through its published game 999999 \
             (0 links); 24 more than 100000000 links from it, not walked\n\
             crash games on roobet's published chain: 23 of 28, walked through its published game 1 \
             (1273934 links); 5 more than 100000000 links from it, not walked\n",
        );
}

// A game far from every other row (no neighbour within 10,000 games to link to) is still
// walked to the published game: one whose hash is another game's is named by its line.
#[test]
fn a_game_far_from_its_neighbours_is_walked_to_the_published_game() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = vectors();
    let far = rows.iter().position(|row| &row[0] == "roobet" && &row[4] == "618991").unwrap();
    // Game 618,991 given the hash of the game below it (its crash point recomputed, so only
    // the walk can tell).
    rows[far] = edited(&rows[far], |fields| {
        fields[2] = fairaudit::scheme::crash::previous_hash(&fields[2]);
        fields[6] = shown(fields);
    });
    let path = write_rows(dir.path(), &rows);
    fairaudit()
        .args(["verify", "--quiet", "--rounds"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "line {}: server_seed: file has '{}', the chain link needs 'a hash on the chain through roobet's published game 1 (77b271fe12fca03c618f63dfb79d4105726ba9d4a25bb3f1964e435ccf9cb209): game 618991's is not on it'",
            far + 2,
            &rows[far][2]
        )))
        .stdout(predicate::str::contains("53 rounds checked, 1 mismatches"))
        .stdout(predicate::str::contains("crash games on roobet's published chain: 22 of 28"));
}

/// A row with its fields changed by `change` (the result recomputed by the caller).
fn edited(row: &csv::StringRecord, change: impl FnOnce(&mut Vec<String>)) -> csv::StringRecord {
    let mut fields: Vec<String> = row.iter().map(str::to_owned).collect();
    change(&mut fields);
    csv::StringRecord::from(fields)
}

/// The crash point a row's scheme shows for its hash and salt.
fn shown(fields: &[String]) -> String {
    variant(&fields[0]).shown(crash_point(variant(&fields[0]), &fields[2], &fields[3]))
}

/// Writes rounds rows (with the vectors' header) to a file in `dir`.
fn write_rows(dir: &Path, rows: &[csv::StringRecord]) -> std::path::PathBuf {
    let path = dir.join("rounds.csv");
    let mut writer = csv::Writer::from_path(&path).unwrap();
    writer
        .write_record(["scheme", "game", "server_seed", "client_seed", "nonce", "params", "result", "source"])
        .unwrap();
    for row in rows {
        writer.write_record(row).unwrap();
    }
    writer.flush().unwrap();
    path
}

// The vectors pass in any order: sorted by game number, rows of one chain are walked
// across the gaps between them, and rows of no chain stand apart.
#[test]
fn the_vectors_pass_in_any_order_and_the_summary_says_what_is_linked() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = vectors();
    rows.sort_by_key(|row| (row[0].to_owned(), row[4].parse::<u64>().unwrap()));
    let path = write_rows(dir.path(), &rows);
    fairaudit()
        .args(["verify", "--quiet", "--rounds"])
        .arg(&path)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("53 rounds checked, 0 mismatches\ncrash games: 39 of 53 checked"));
    // A gap of a few games is walked: a row of a made-up hash three games on is caught.
    let mut gapped: Vec<csv::StringRecord> =
        vectors().into_iter().filter(|row| &row[4] != "1273934" && &row[4] != "1273933").collect();
    let at = gapped.iter().position(|row| &row[4] == "1273932").unwrap();
    gapped[at] = edited(&gapped[at], |fields| {
        fields[2] = "0".repeat(64);
        fields[6] = shown(fields);
    });
    let path = write_rows(dir.path(), &gapped);
    fairaudit()
        .args(["verify", "--quiet", "--rounds"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("(game 1273935's hash, on line"));
    // A game number given twice with two hashes is named.
    let mut twice = vectors();
    let at = twice.iter().position(|row| &row[4] == "1273930").unwrap();
    twice[at] = edited(&twice[at], |fields| fields[4] = "1273931".into());
    let path = write_rows(dir.path(), &twice);
    fairaudit()
        .args(["verify", "--quiet", "--rounds"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("(game 1273931's hash on line"));
    // A salt of no seeding event is said.
    let mut salted = vectors();
    for row in salted.iter_mut() {
        *row = edited(row, |fields| {
            fields[3] = "chosen by the operator".into();
            fields[6] = shown(fields);
        });
    }
    let path = write_rows(dir.path(), &salted);
    fairaudit().args(["verify", "--quiet", "--rounds"]).arg(&path).assert().code(0).stdout(
        predicate::str::contains(
            "note: 53 crash rows use a salt that is none of the published seeding events'",
        ),
    );
}

#[test]
fn a_changed_crash_point_and_a_flipped_link_are_named_by_game() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = vectors();
    let flipped = rows.iter().position(|row| &row[4] == "1273930").unwrap();
    rows[flipped] = edited(&rows[flipped], |fields| {
        let last = if fields[2].ends_with('0') { '1' } else { '0' };
        fields[2] = format!("{}{last}", &fields[2][..63]);
    });
    let shaved = rows.iter().position(|row| &row[4] == "1273928").unwrap();
    assert_eq!(&rows[shaved][6], "81.42");
    rows[shaved] = edited(&rows[shaved], |fields| fields[6] = "81.41".into());
    let path = write_rows(dir.path(), &rows);
    let line = |index: usize| index + 2;
    fairaudit()
        .args(["verify", "--rounds"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "line {}: server_seed: file has '{}', the chain link needs",
            line(flipped),
            &rows[flipped][2]
        )))
        .stdout(predicate::str::contains("(game 1273931's hash, on line"))
        .stdout(predicate::str::contains("(game 1273930's hash, on line"))
        .stdout(predicate::str::contains(format!(
            "line {}: result: file has '81.41', computed '81.42'",
            line(shaved)
        )));
}

#[test]
fn one_game_is_shown_step_by_step() {
    let row = &vectors()[1];
    fairaudit()
        .args([
            "verify",
            "--scheme",
            "bustabit-v1",
            "--game",
            "crash",
            "--server-seed",
            &row[2],
            "--client-seed",
            &row[3],
            "--nonce",
            &row[4],
        ])
        .args(["--commitment", &previous_hash(&row[2])])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!("result:          {}\n", &row[6])))
        .stdout(predicate::str::contains("commitment check: OK"));
    // A game hash in capitals is not the chain's text: an input error, not another game.
    fairaudit()
        .args(["verify", "--scheme", "roobet", "--game", "crash", "--client-seed", "s", "--nonce", "1"])
        .args(["--server-seed", &row[2].to_uppercase()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not a game hash of scheme roobet"));
}

// One game is walked down to its chain's published game: a real Roobet game reaches game
// 1's published hash, the same hash numbered one game higher does not (exit 1), and a game
// of our own chain numbered 900 million is too far to walk.
#[test]
fn one_game_is_linked_to_the_published_game_of_its_chain() {
    let rows = vectors();
    let row = rows.iter().find(|row| &row[4] == "1273935").unwrap();
    let verify = |game: &str| {
        let mut command = fairaudit();
        command.args(["verify", "--scheme", "roobet", "--game", "crash", "--quiet", "--nonce", game]);
        command.args(["--server-seed", &row[2], "--client-seed", &row[3]]);
        command
    };
    verify("1273935").assert().code(0).stdout(predicate::str::contains(
        "chain:           reaches the published hash of game 1 (1273934 links walked)\n",
    ));
    verify("1273936").assert().code(1).stdout(predicate::str::contains(
        "chain:           MISMATCH: 1273935 links walked reach 08e1fd4b1fa8f6c142da70c00146edead85b403237c7958af6e4db9469b87d9e, not the published hash of game 1",
    ));
    verify("1")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("MISMATCH: game 1's published hash is 77b271fe"));
    verify("0").assert().code(0).stdout(predicate::str::contains("not checked (game 0 was never played"));
    let own = &rows[1];
    assert_eq!(&own[4], "900000019");
    fairaudit()
        .args(["verify", "--scheme", "bustabit-v1", "--game", "crash", "--nonce", &own[4]])
        .args(["--server-seed", &own[2], "--client-seed", &own[3]])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "chain:           not checked (899000019 links to the published game 999999, more than 100000000)",
        ));
}

#[test]
fn rtp_states_each_cash_out_and_commands_without_crash_support_refuse_it() {
    fairaudit().args(["rtp", "--scheme", "bustabit-v1"]).assert().code(0).stdout(predicate::str::contains(
        "      2.00x  2263115390638441  49.256182  98.512364      1.487636",
    ));
    fairaudit()
        .args(["rtp", "--scheme", "roobet"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("(shown 1.00: 4.000000% of the digests, to six places)"));
    fairaudit()
        .args(["conformance", "--scheme", "roobet", "--list"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("scheme roobet has no conformance challenge yet"));
}
