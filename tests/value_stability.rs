//! Value stability, in the manner of rand's `value_stability` tests and hyperfine's export
//! snapshots: every command's output on small fixed inputs, for every scheme, is
//! byte-compared with files committed under `tests/expected/NAME/`. Any change to a
//! p-value, a count, a statistic, a note, a CSV column, a line on the terminal or a
//! number's format fails here, so it is made on purpose or not at all (issue 60: the
//! pins the scheme seam's redesign must leave unchanged). The certificates are pinned in
//! `tests/certificate_stability.rs`, with the same machinery (`tests/common/pins.rs`).
//!
//! A pin holds every file of the command's output folder, its terminal (`terminal.txt`:
//! the command, exit status, stdout and stderr) and, normalised, `run.json` and
//! `report.html`. Normalised means that what no test can fix is replaced by a placeholder:
//! the scratch folder's and the repository's paths, the build's revision, elapsed seconds
//! and rates, the Keccak path `auto` chose (`tests/common/pins.rs` says exactly what and
//! why); timestamps are fixed by running every command with `SOURCE_DATE_EPOCH` set.
//! Files over 64 KiB are pinned by their SHA3-256 digest (`NAME.sha3-256`); smaller ones
//! are committed as they are, so that a change shows in `git diff`.
//!
//! | pin (`tests/expected/…`) | command |
//! |---|---|
//! | `sweep` | `sweep` (sha3) of 3 games × 2 seed pairs × 3,000 nonces; the same results at `--threads 1` |
//! | `merge-sha3-shards` | `merge` of that sweep cut into 3 shards: the results of `sweep`; its records and a shard's |
//! | `merge-sha3-adjacent` | `merge` of the sweeps of 0..1500 and 1500..3000: the results of `sweep` |
//! | `merge-sha3-partial` | `merge --allow-partial` of 2 of 3 shards of 0..600 |
//! | `audit` | `audit` of `tests/data/roulette-history.csv` (stdout in `stdout.txt`) |
//! | `rtp` | `rtp` of the sha3 games |
//! | `verify-sha3` | `verify --rounds` of the shared vectors (`../shared/vectors`) with results swapped (`--out`), and one round of each game |
//! | `sweep-stake-GAME[-PARAMS]` | `sweep --scheme stake` of 3,000 nonces: dice (same results at `--threads 1`), each limbo variant, Keno (2 seed pairs), roulette, plinko 8 low and 16 high, mines 1, 3 and 24 |
//! | `merge-stake-shards`, `merge-stake-adjacent` | `merge` of the Keno sweep's 3 shards, and of 0..1501 and 1501..3000: the results of `sweep-stake-keno` |
//! | `merge-stake-partial` | `merge --allow-partial` of 2 of 3 shards of a roulette sweep |
//! | `sweep-roobet`, `sweep-roobet-broken`, `sweep-bustabit-v1` | `sweep` of Roobet's real chain linked to its game 1 (same results at `--threads 1`), numbered one game off, and an unanchored bustabit chain |
//! | `merge-crash` | `merge` of crash sweeps, refused |
//! | `audit-stake`, `audit-roobet`, `audit-bustabit-v1` | `audit` of `tests/data/stake-history.csv`, `tests/data/crash-history.csv`, and a bustabit history of the vectors' oracle chain |
//! | `verify-stake`, `verify-crash` | `verify --rounds` of `data/vectors/stake.csv` and `crash.csv` with results swapped, and one round of each game |
//! | `rtp-stake`, `rtp-crash` | `rtp` of Stake's roulette, limbo variants and every plinko table; of both crash schemes |
//!
//! To accept a deliberate change, regenerate the expected files and review the diff:
//!
//! ```sh
//! FAIRAUDIT_BLESS=1 cargo test --release --test value_stability --test certificate_stability
//! git diff tests/expected/
//! ```

#[path = "common/pins.rs"]
mod pins;

use pins::{check, check_results_as, repo, Ran, Scratch, RECORDS};
use std::collections::BTreeMap;

/// Roobet's salt (Bitcoin block 610546) and the hash of its game 1,273,935
/// (`data/vectors/crash.csv`).
const ROOBET_SALT: &str = "0000000000000000000fa3b65e43e4240d71762a5bf397d5304b2596d116859c";
const ROOBET_GAME_1273935: &str = "cc4a75236ecbc038c37729aa5ced461e36155319e88fa375c994933b6a42a0c4";
/// The first link of the vectors' bustabit oracle chain (game 900,000,019 there).
const BUSTABIT_ORACLE: &str = "45c7aac99b649ed50b255430e66e63e0c581e199702d3cd25f94284be3a10b29";

/// Only the records of a folder ([`RECORDS`]), each under `prefix`.
fn records(files: BTreeMap<String, Vec<u8>>, prefix: &str) -> BTreeMap<String, Vec<u8>> {
    files
        .into_iter()
        .filter(|(name, _)| RECORDS.contains(&name.as_str()))
        .map(|(name, bytes)| (format!("{prefix}{name}"), bytes))
        .collect()
}

fn args<'a>(fixed: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    fixed.iter().chain(more).copied().collect()
}

fn run_owned(scratch: &Scratch, command: &[String], more: &[&str], code: i32) -> Ran {
    let command: Vec<&str> = command.iter().map(String::as_str).chain(more.iter().copied()).collect();
    scratch.run(&command, code)
}

/// `sweep` (a command with `--nonces`) over `nonces` instead.
fn over(sweep: &[String], nonces: &str) -> Vec<String> {
    let mut command = sweep.to_vec();
    let at = command.iter().position(|a| a == "--nonces").unwrap() + 1;
    command[at] = nonces.into();
    command
}

/// Sweeps the shards `indices` of 3 of `sweep` into `shards`; the pinned records of the
/// second shard (its `run.json`, report and terminal), when it is among them.
fn sweep_shards(scratch: &Scratch, sweep: &[String], indices: &[&str]) -> BTreeMap<String, Vec<u8>> {
    let mut pinned = BTreeMap::new();
    for &index in indices {
        let ran = run_owned(scratch, sweep, &["--shards", "3", "--shard-index", index, "--out", "shards"], 0);
        if index == "1" {
            pinned = records(scratch.folder_and_terminal("shards/shard-0001-of-0003", &ran), "shard-1-");
        }
    }
    pinned
}

/// Merges `inputs` into a folder named `pin` and pins its records (beside `pinned`) as
/// `pin`, and its results as those of the sweep pinned as `sweep`: a merge writes the
/// bytes of one sweep of the whole range.
fn check_merge(
    scratch: &Scratch,
    inputs: &[&str],
    pin: &str,
    sweep: &str,
    mut pinned: BTreeMap<String, Vec<u8>>,
) {
    let ran = scratch.run(&[&["merge"], inputs, &["--quiet", "--out", pin]].concat(), 0);
    let merged = scratch.folder_and_terminal(pin, &ran);
    pinned.extend(records(merged.clone(), ""));
    check(pin, pinned);
    check_results_as(sweep, merged);
}

/// Merges the shards in `shards` with `--allow-partial` and pins the whole folder.
fn check_partial_merge(scratch: &Scratch, pin: &str) {
    let ran = scratch.run(&["merge", "shards", "--allow-partial", "--quiet", "--out", pin], 0);
    check(pin, scratch.folder_and_terminal(pin, &ran));
}

#[test]
fn the_placeholders_replace_only_the_value_between_their_neighbours() {
    let text = "x in 0.25 s (4000 rounds/s, 2 threads) (3 s) \"elapsed_seconds\": 1e-5,\n; 2.5 s. in 1 h\n\
                \"keccak_path\": \"avx2\", (rev REV)";
    let text = text.replace("REV", fairaudit::REVISION);
    assert_eq!(
        Scratch::default().normalise(&text),
        "x in <seconds> s (<rate> rounds/s, 2 threads) (<seconds> s) \"elapsed_seconds\": <seconds>,\n; \
         <seconds> s. in 1 h\n\"keccak_path\": \"<keccak path>\", (rev <revision>)"
    );
}

// ---- sha3, the default scheme ----

/// The sha3 sweep of 3 games × 2 seed pairs over `nonces` on `threads` threads.
fn sha3_sweep(nonces: &str, threads: &str) -> Vec<String> {
    ["sweep", "--nonces", nonces, "--seed-pairs", "2", "--quiet", "--threads", threads]
        .map(str::to_owned)
        .to_vec()
}

#[test]
fn a_small_sweep_of_every_game_writes_the_same_bytes_at_any_thread_count() {
    let scratch = Scratch::default();
    let ran = run_owned(&scratch, &sha3_sweep("0..3000", "2"), &["--out", "out"], 0);
    check("sweep", scratch.folder_and_terminal("out", &ran));
    run_owned(&scratch, &sha3_sweep("0..3000", "1"), &["--out", "one"], 0);
    check_results_as("sweep", scratch.folder("one"));
}

#[test]
fn merges_of_sha3_shards_and_adjacent_sweeps_write_the_sweeps_bytes() {
    let scratch = Scratch::default();
    let shard = sweep_shards(&scratch, &sha3_sweep("0..3000", "2"), &["0", "1", "2"]);
    check_merge(&scratch, &["shards"], "merge-sha3-shards", "sweep", shard);
    run_owned(&scratch, &sha3_sweep("1500..3000", "2"), &["--out", "high"], 0);
    run_owned(&scratch, &sha3_sweep("0..1500", "2"), &["--out", "low"], 0);
    check_merge(&scratch, &["high", "low"], "merge-sha3-adjacent", "sweep", BTreeMap::new());
}

#[test]
fn a_partial_merge_of_sha3_shards_writes_the_same_bytes() {
    let scratch = Scratch::default();
    sweep_shards(&scratch, &sha3_sweep("0..600", "2"), &["0", "2"]);
    check_partial_merge(&scratch, "merge-sha3-partial");
}

#[test]
fn an_audit_of_the_american_log_writes_the_same_bytes() {
    let scratch = Scratch::default();
    let out = scratch.join("out");
    let log = repo().join("tests/data/roulette-history.csv");
    let command = ["audit", "--game", "roulette-european", "--outcomes", log.to_str().unwrap(), "--out"];
    let ran = scratch.run(&args(&command, &[out.to_str().unwrap()]), 1);
    let mut files = scratch.folder(out.to_str().unwrap());
    // The terminal's report pinned too, with the temporary folder's name taken out.
    files.insert("stdout.txt".into(), ran.stdout.replace(out.to_str().unwrap(), "OUT").into_bytes());
    check("audit", files);
}

#[test]
fn the_rtp_tables_print_the_same_figures() {
    let scratch = Scratch::default();
    let mut files = BTreeMap::new();
    // American roulette's published claim does not hold (exit 1).
    for (game, code) in [("keno", 0), ("roulette-european", 0), ("roulette-american", 1)] {
        files.insert(
            format!("rtp-{game}.txt"),
            scratch.run(&["rtp", "--game", game], code).stdout.into_bytes(),
        );
    }
    check("rtp", files);
}

/// `rows` (a rounds file) with the result of every 23rd row from row 3 on replaced by
/// the next different result of a row of the same scheme, game and parameters: a
/// mismatch in the file's own format, on rows spread through it.
fn with_results_swapped(rows: &str) -> String {
    let mut reader = csv::Reader::from_reader(rows.as_bytes());
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name);
    let (result, game) = (column("result").unwrap(), column("game").unwrap());
    let kind = |row: &csv::StringRecord| {
        [column("scheme"), Some(game), column("params")].map(|c| c.map_or("", |c| &row[c]).to_owned())
    };
    let mut records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    for at in (3..records.len()).step_by(23) {
        let other = (1..records.len())
            .map(|step| &records[(at + step) % records.len()])
            .find(|other| kind(other) == kind(&records[at]) && other[result] != records[at][result])
            .map(|other| other[result].to_owned());
        if let Some(other) = other {
            let mut row: Vec<String> = records[at].iter().map(str::to_owned).collect();
            row[result] = other;
            records[at] = csv::StringRecord::from(row);
        }
    }
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(&header).unwrap();
    for record in &records {
        writer.write_record(record).unwrap();
    }
    String::from_utf8(writer.into_inner().unwrap()).unwrap()
}

/// Pins `verify --rounds` of `rows` with results swapped (its terminal and mismatches
/// file), and the terminal of each single-round `verify` of `one`, under `name`.
fn check_verify(name: &str, scratch: &Scratch, rows: &str, one: &[(&str, Vec<&str>)]) {
    scratch.write("rounds.csv", &with_results_swapped(rows));
    let ran = scratch.run(&["verify", "--rounds", "rounds.csv", "--quiet", "--out", "mismatches.csv"], 1);
    let mut files = BTreeMap::from([
        ("terminal.txt".to_owned(), scratch.terminal(&ran)),
        ("mismatches.csv".to_owned(), std::fs::read(scratch.join("mismatches.csv")).unwrap()),
    ]);
    for (label, command) in one {
        let ran = scratch.run(&args(&["verify"], command), 0);
        files.insert(format!("one-{label}.txt"), scratch.terminal(&ran));
    }
    check(name, files);
}

#[test]
fn verify_of_sha3_rounds_prints_the_same_lines() {
    let scratch = Scratch::default();
    let vectors = repo().join("../shared/vectors");
    let reference = std::fs::read_to_string(vectors.join("reference-rounds.csv")).unwrap();
    let rejection = std::fs::read_to_string(vectors.join("rejection-rounds.csv")).unwrap();
    let header_end = rejection.find('\n').unwrap() + 1;
    // Both files have the same columns; the rejection rounds are the ones whose draws
    // discard words.
    let rows = format!("{reference}{}", &rejection[header_end..]);
    let one = |game, nonce| {
        vec!["--game", game, "--server-seed", "pinned server", "--client-seed", "pinned", "--nonce", nonce]
    };
    let rejected = [
        "--game",
        "keno",
        "--server-seed",
        "3f1a9c5e7b2d4f60a8e1c3b5d7f9024681357acebdf02468ace13579bdf02468",
        "--client-seed",
        "rejection-path",
        "--nonce",
        "11907976",
    ];
    check_verify(
        "verify-sha3",
        &scratch,
        &rows,
        &[
            ("keno", one("keno", "7")),
            ("keno-rejection", rejected.to_vec()),
            ("roulette-european", one("roulette-european", "18446744073709551615")),
            ("roulette-american", one("roulette-american", "0")),
        ],
    );
}

// ---- the HMAC-SHA256 family (--scheme stake) ----

/// A Stake sweep of 3,000 nonces of the default seed pair.
fn stake_sweep(game: &str, params: Option<&str>, more: &[&str]) -> Vec<String> {
    let mut command = vec!["sweep", "--scheme", "stake", "--game", game, "--nonces", "0..3000", "--quiet"];
    if let Some(params) = params {
        command.extend(["--params", params]);
    }
    command.extend(more);
    command.into_iter().map(str::to_owned).collect()
}

#[test]
fn stake_sweeps_of_every_game_and_form_write_the_same_bytes() {
    let scratch = Scratch::default();
    let sweeps: [(&str, &str, Option<&str>, &[&str]); 12] = [
        ("sweep-stake-dice", "dice", None, &[]),
        ("sweep-stake-limbo-stake_page", "limbo", Some(r#"{"variant":"stake_page"}"#), &[]),
        ("sweep-stake-limbo-verifierform", "limbo", Some(r#"{"variant":"verifierform"}"#), &[]),
        ("sweep-stake-limbo-fair", "limbo", Some(r#"{"variant":"fair"}"#), &[]),
        ("sweep-stake-keno", "keno", None, &["--seed-pairs", "2"]),
        ("sweep-stake-roulette", "roulette", None, &[]),
        ("sweep-stake-plinko-8-low", "plinko", Some(r#"{"rows":8,"risk":"low"}"#), &[]),
        ("sweep-stake-plinko-16-high", "plinko", Some(r#"{"rows":16,"risk":"high"}"#), &[]),
        ("sweep-stake-mines-1", "mines", Some(r#"{"mines":1}"#), &[]),
        ("sweep-stake-mines-3", "mines", Some(r#"{"mines":3}"#), &[]),
        ("sweep-stake-mines-24", "mines", Some(r#"{"mines":24}"#), &[]),
        ("sweep-stake-dice", "dice", None, &[]),
    ];
    for (at, (name, game, params, more)) in sweeps.into_iter().enumerate() {
        let command = stake_sweep(game, params, more);
        if at == sweeps.len() - 1 {
            // The last is dice again, on one thread: the same results.
            run_owned(&scratch, &command, &["--threads", "1", "--out", "one-thread"], 0);
            check_results_as(name, scratch.folder("one-thread"));
        } else {
            let ran = run_owned(&scratch, &command, &["--threads", "2", "--out", name], 0);
            check(name, scratch.folder_and_terminal(name, &ran));
        }
    }
}

#[test]
fn merges_of_stake_shards_and_adjacent_sweeps_write_the_sweeps_bytes() {
    let scratch = Scratch::default();
    let keno = stake_sweep("keno", None, &["--seed-pairs", "2", "--threads", "2"]);
    let shard = sweep_shards(&scratch, &keno, &["2", "0", "1"]);
    check_merge(&scratch, &["shards"], "merge-stake-shards", "sweep-stake-keno", shard);
    // An odd boundary: the merge plays the pair (1500, 1501) that neither sweep counted.
    run_owned(&scratch, &over(&keno, "0..1501"), &["--out", "low"], 0);
    run_owned(&scratch, &over(&keno, "1501..3000"), &["--out", "high"], 0);
    check_merge(&scratch, &["low", "high"], "merge-stake-adjacent", "sweep-stake-keno", BTreeMap::new());
}

#[test]
fn a_partial_merge_of_stake_shards_writes_the_same_bytes() {
    let scratch = Scratch::default();
    sweep_shards(&scratch, &stake_sweep("roulette", None, &["--threads", "2"]), &["0", "2"]);
    check_partial_merge(&scratch, "merge-stake-partial");
}

#[test]
fn an_audit_of_a_stake_history_writes_the_same_bytes() {
    let scratch = Scratch::default();
    scratch.copy_in(&repo().join("tests/data/stake-history.csv"), "stake-history.csv");
    let ran =
        scratch.run(&["audit", "--scheme", "stake", "--outcomes", "stake-history.csv", "--out", "out"], 1);
    check("audit-stake", scratch.folder_and_terminal("out", &ran));
}

#[test]
fn verify_of_stake_rounds_prints_the_same_lines() {
    let scratch = Scratch::default();
    let rows = std::fs::read_to_string(repo().join("data/vectors/stake.csv")).unwrap();
    let one = |game, params: Option<&'static str>| {
        let mut command = vec![
            "--scheme",
            "stake",
            "--game",
            game,
            "--server-seed",
            "pinned server",
            "--client-seed",
            "pinned",
        ];
        command.extend(["--nonce", "3"]);
        if let Some(params) = params {
            command.extend(["--params", params]);
        }
        command
    };
    check_verify(
        "verify-stake",
        &scratch,
        &rows,
        &[
            ("dice", one("dice", None)),
            ("limbo-stake_page", one("limbo", Some(r#"{"variant":"stake_page"}"#))),
            ("limbo-verifierform", one("limbo", Some(r#"{"variant":"verifierform"}"#))),
            ("limbo-fair", one("limbo", Some(r#"{"variant":"fair"}"#))),
            ("keno", one("keno", None)),
            ("roulette", one("roulette", None)),
            ("plinko", one("plinko", Some(r#"{"rows":16,"risk":"high"}"#))),
            ("mines", one("mines", Some(r#"{"mines":24}"#))),
        ],
    );
}

#[test]
fn the_stake_rtp_tables_print_the_same_figures() {
    let scratch = Scratch::default();
    let mut files = BTreeMap::new();
    let stake = ["rtp", "--scheme", "stake", "--game"];
    files.insert("roulette.txt".into(), scratch.run(&args(&stake, &["roulette"]), 0).stdout.into_bytes());
    for variant in ["stake_page", "verifierform", "fair"] {
        let params = format!(r#"{{"variant":"{variant}"}}"#);
        let ran = scratch.run(&args(&stake, &["limbo", "--params", &params]), 0);
        files.insert(format!("limbo-{variant}.txt"), ran.stdout.into_bytes());
    }
    let mut plinko = String::new();
    for rows in 8..=16 {
        for risk in ["low", "medium", "high", "expert"] {
            let params = format!(r#"{{"rows":{rows},"risk":"{risk}"}}"#);
            plinko += &scratch.run(&args(&stake, &["plinko", "--params", &params]), 0).stdout;
        }
    }
    files.insert("plinko.txt".into(), plinko.into_bytes());
    check("rtp-stake", files);
}

// ---- the crash chains (--scheme bustabit-v1, roobet) ----

fn crash_sweep(scheme: &str, nonces: &str, top: &str, salt: &str) -> Vec<String> {
    [
        "sweep",
        "--scheme",
        scheme,
        "--game",
        "crash",
        "--nonces",
        nonces,
        "--server-seed",
        top,
        "--client-seed",
        salt,
    ]
    .into_iter()
    .chain(["--quiet"])
    .map(str::to_owned)
    .collect()
}

#[test]
fn crash_sweeps_of_both_chains_write_the_same_bytes_at_any_thread_count() {
    let scratch = Scratch::default();
    let linked = crash_sweep("roobet", "1273000..1273936", ROOBET_GAME_1273935, ROOBET_SALT);
    let ran = run_owned(&scratch, &linked, &["--threads", "2", "--out", "linked"], 0);
    check("sweep-roobet", scratch.folder_and_terminal("linked", &ran));
    run_owned(&scratch, &linked, &["--threads", "1", "--out", "one"], 0);
    check_results_as("sweep-roobet", scratch.folder("one"));

    let broken = crash_sweep("roobet", "1273001..1273937", ROOBET_GAME_1273935, ROOBET_SALT);
    let ran = run_owned(&scratch, &broken, &["--threads", "2", "--out", "broken"], 1);
    check("sweep-roobet-broken", scratch.folder_and_terminal("broken", &ran));

    let unanchored = crash_sweep("bustabit-v1", "0..5000", BUSTABIT_ORACLE, "fairaudit pins");
    let ran = run_owned(&scratch, &unanchored, &["--threads", "2", "--out", "bustabit"], 0);
    check("sweep-bustabit-v1", scratch.folder_and_terminal("bustabit", &ran));

    // Crash sweeps have no shards and no merge yet: the refusal is pinned.
    let ran = scratch.run(&["merge", "linked", "one", "--quiet", "--out", "merged"], 2);
    check("merge-crash", BTreeMap::from([("terminal.txt".to_owned(), scratch.terminal(&ran))]));
}

#[test]
fn audits_of_crash_histories_write_the_same_bytes() {
    let scratch = Scratch::default();
    scratch.copy_in(&repo().join("tests/data/crash-history.csv"), "crash-history.csv");
    let ran = scratch
        .run(&["audit", "--scheme", "roobet", "--outcomes", "crash-history.csv", "--out", "roobet"], 1);
    check("audit-roobet", scratch.folder_and_terminal("roobet", &ran));

    // The vectors' bustabit oracle chain (games 900,000,019 down to 900,000,000, each
    // hashing to the next), newest game first, one player cashing out at 1.50x with a
    // stake of 2, the first win's payout shaved.
    let vectors = std::fs::read_to_string(repo().join("data/vectors/crash.csv")).unwrap();
    let mut history = String::from("player,nonce,server_seed,client_seed,result,bet,stake,payout\n");
    let mut reader = csv::Reader::from_reader(vectors.as_bytes());
    let oracle = |row: &csv::StringRecord| &row[0] == "bustabit-v1" && row[4].starts_with("9000000");
    for (at, row) in reader.records().map(Result::unwrap).filter(oracle).enumerate() {
        let point: f64 = row[6].parse().unwrap();
        let payout = match (point >= 1.5, at) {
            (true, 0) => "2.9",
            (true, _) => "3",
            (false, _) => "0",
        };
        history += &format!("carol,{},{},{},{},1.50,2,{payout}\n", &row[4], &row[2], &row[3], &row[6]);
    }
    scratch.write("bustabit.csv", &history);
    let ran = scratch
        .run(&["audit", "--scheme", "bustabit-v1", "--outcomes", "bustabit.csv", "--out", "bustabit"], 1);
    let mut files = scratch.folder_and_terminal("bustabit", &ran);
    files.insert("history.csv".into(), history.into_bytes());
    check("audit-bustabit-v1", files);
}

#[test]
fn verify_of_crash_rounds_prints_the_same_lines() {
    let scratch = Scratch::default();
    let rows = std::fs::read_to_string(repo().join("data/vectors/crash.csv")).unwrap();
    let one = |scheme, hash, salt, game| {
        vec![
            "--scheme",
            scheme,
            "--game",
            "crash",
            "--server-seed",
            hash,
            "--client-seed",
            salt,
            "--nonce",
            game,
        ]
    };
    let bustabit_salt = "000000000000000007a9a31ff7f07463d91af6b5454241d5faf282e5e0fe1b3a";
    let bustabit_999999 = "c1cfa8e28fc38999eaa888487e443bad50a65e0b710f649affa6718cfbfada4d";
    check_verify(
        "verify-crash",
        &scratch,
        &rows,
        &[
            ("roobet", one("roobet", ROOBET_GAME_1273935, ROOBET_SALT, "1273935")),
            ("bustabit-v1", one("bustabit-v1", bustabit_999999, bustabit_salt, "999999")),
        ],
    );
}

#[test]
fn the_crash_rtp_tables_print_the_same_figures() {
    let scratch = Scratch::default();
    let files = ["bustabit-v1", "roobet"].map(|scheme| {
        (format!("{scheme}.txt"), scratch.run(&["rtp", "--scheme", scheme], 0).stdout.into_bytes())
    });
    check("rtp-crash", BTreeMap::from(files));
}
