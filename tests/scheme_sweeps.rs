//! Sweeps of the HMAC-SHA256 family (issue 33): every game swept passes its battery
//! against its exact laws and writes its files; the results do not depend on the threads;
//! the p-values are calibrated at the shapes users run (one long sequence, many short seed
//! pairs, the far tail Holm reads); and rigged games FAIL: a float built from 16 bits,
//! rounds that repeat the one before, a Keno step that never picks its last number, a
//! plinko ball leaning right, a shaved limbo multiplier.

mod common;

use assert_cmd::Command;
use common::stake_tally::tally_of;
use fairaudit::chain::seeds::derive_seed_pairs;
use fairaudit::scheme::keyed::{KeyedPair, KeyedScheme};
use fairaudit::scheme::stake::cells::{outcome_cells, step_sizes};
use fairaudit::scheme::stake::games::{self, LimboFormula};
use fairaudit::scheme::stake::{
    FloatWords, FloorOfFloat, Risk, SeedPair, StakeGame, StakeOutcome, UnitFloat,
};
use fairaudit::stats::battery::Verdict;
use fairaudit::stats::stake::{battery, tests};
use fairaudit::sweep::stake::sweep;
use fairaudit::tally::stake::StakeTally;
use std::sync::atomic::AtomicBool;

/// Each game with the parameters the tests sweep it with (`--game`, `--params`).
const GAMES: [(&str, &str); 6] = [
    ("dice", ""),
    ("roulette", ""),
    ("keno", ""),
    ("limbo", r#"{"variant":"fair"}"#),
    ("plinko", r#"{"rows":16,"risk":"high"}"#),
    ("mines", r#"{"mines":3}"#),
];

fn game(name: &str, params: &str) -> StakeGame {
    StakeGame::new(name, params).unwrap()
}

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

#[test]
fn every_game_swept_a_million_rounds_passes_and_writes_its_files() {
    let dir = tempfile::tempdir().unwrap();
    for (name, params) in GAMES {
        let out = dir.path().join(name);
        let mut command = fairaudit();
        command.args(["sweep", "--scheme", "stake", "--game", name, "--nonces", "0..1000000", "--quiet"]);
        if !params.is_empty() {
            command.args(["--params", params]);
        }
        command.arg("--out").arg(&out).assert().success().stdout(predicates::str::contains(": PASS"));
        let mut tests_csv = csv::Reader::from_path(out.join("tests.csv")).unwrap();
        let verdicts: Vec<String> = tests_csv.records().map(|row| row.unwrap()[7].to_owned()).collect();
        assert!(verdicts.len() >= 2 && verdicts.iter().all(|v| v == "PASS"), "{name}: {verdicts:?}");
        let mut counts = csv::Reader::from_path(out.join("outcome_counts.csv")).unwrap();
        let header: Vec<String> = counts.headers().unwrap().iter().map(str::to_owned).collect();
        assert_eq!(header, ["seed_pair", "view", "cell", "observed", "expected", "exact_probability"]);
        let mut per_view: std::collections::BTreeMap<String, u64> = Default::default();
        for row in counts.records().map(|row| row.unwrap()) {
            *per_view.entry(row[1].to_owned()).or_default() += row[3].parse::<u64>().unwrap();
        }
        for (view, total) in &per_view {
            // Every round in one cell of each view; half of them in a pair.
            let rounds = if view == "pairs" { 500_000 } else { 1_000_000 };
            assert_eq!(*total, rounds, "{name} {view}");
        }
        let run: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
        assert_eq!(run["plan"]["scheme"], "stake");
        assert_eq!(run["plan"]["game"], name);
        assert_eq!(run["plan"]["params"], game(name, params).params());
        assert_eq!(run["rounds"], 1_000_000);
        // report.html: self-contained, the verdict first, then each view the game has.
        let html = std::fs::read_to_string(out.join("report.html")).unwrap();
        for forbidden in ["src=", "href=", "<script", "<link", "@import", "url(", "xmlns="] {
            assert!(!html.contains(forbidden), "{name}: report.html contains {forbidden}");
        }
        assert!(html.contains("<div id=\"verdict\" class=\"verdict PASS\">PASS</div>"), "{name}");
        let g = game(name, params);
        let mut sections = vec!["id=\"verdict\""];
        if outcome_cells(&g) > 0 {
            sections.push("id=\"outcomes\"");
        }
        if !step_sizes(&g).is_empty() {
            sections.push("id=\"steps\"");
        }
        sections.extend(["id=\"pairs\"", "id=\"tests\"", "id=\"rtp\"", "id=\"reproduce\""]);
        let at: Vec<usize> =
            sections.iter().map(|s| html.find(s).unwrap_or_else(|| panic!("{name}: no {s}"))).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{name}: sections out of order {sections:?} {at:?}");
        assert_eq!(html.matches("<svg").count(), sections.len() - 4, "{name}: one chart per view");
        // rtp.csv: every bet whose return the outcomes give, realised near its exact RTP
        // (a million rounds; none for the games whose payout rule is not sourced).
        let mut rtp = csv::Reader::from_path(out.join("rtp.csv")).unwrap();
        let rows: Vec<csv::StringRecord> = rtp.records().map(|row| row.unwrap()).collect();
        let expected_rows = match name {
            "roulette" => 37 + 12,
            "limbo" => 10,
            "plinko" => 1,
            _ => 0,
        };
        assert_eq!(rows.len(), expected_rows, "{name}");
        for row in &rows {
            let p: f64 = row[11].parse().unwrap();
            assert!(p > 1e-4, "{name} {}: realised RTP far from exact (p = {p})", &row[3]);
            assert!(
                html.contains(&format!("<td>{} {}</td>", &row[2], &row[3]))
                    || html.contains(&format!("<td>{}</td>", &row[2])),
                "{name}: {row:?} in report.html"
            );
        }
    }
}

#[test]
fn the_files_do_not_depend_on_threads_or_chunks_and_a_rerun_reproduces_them() {
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &str, threads: &str, chunk: &str| {
        fairaudit()
            .args([
                "sweep",
                "--scheme",
                "stake",
                "--game",
                "keno",
                "--nonces",
                "3..200001",
                "--seed-pairs",
                "2",
            ])
            .args(["--threads", threads, "--chunk-size", chunk, "--quiet", "--out"])
            .arg(dir.path().join(out))
            .assert()
            .success();
        ["tests.csv", "outcome_counts.csv", "summary.json", "stake_tally.json", "rtp.csv"]
            .map(|file| std::fs::read(dir.path().join(out).join(file)).unwrap())
    };
    let one = run("one", "1", "65536");
    assert_eq!(one, run("three", "3", "999"));
    // The same sweep into the same folder replaces it without --force.
    assert_eq!(one, run("one", "2", "4096"));
}

#[test]
fn options_the_stake_sweep_lacks_and_bad_ones_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    for (extra, says) in [
        (vec!["--game", "dice", "--resume"], "nothing to resume"),
        (vec!["--game", "dice", "--shards", "4"], "--shards 4 needs the shard to sweep"),
        (vec!["--game", "dice", "--shards", "11"], "11 shards of 10 nonces would leave some shards empty"),
        (vec!["--game", "dice", "--paytable", "data/paytable.csv"], "--paytable is not available"),
        (vec!["--game", "dice", "--claims", "data/claims.csv"], "--claims is not available"),
        (vec![], "--scheme stake sweeps one game"),
        (vec!["--game", "dice", "--game", "keno"], "one game per run"),
        (vec!["--game", "mines"], "mines needs its mines"),
        (vec!["--game", "keno-european"], "unknown game 'keno-european' of scheme stake"),
    ] {
        fairaudit()
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env_remove("JOB_COMPLETION_INDEX")
            .args(["sweep", "--scheme", "stake", "--nonces", "0..10"])
            .args(extra)
            .arg("--out")
            .arg(dir.path().join("x"))
            .assert()
            .code(2)
            .stderr(predicates::str::contains(says));
    }
    // A stake game without --scheme stake, and --params with the default scheme.
    fairaudit()
        .args(["sweep", "--game", "dice", "--nonces", "0..10", "--out"])
        .arg(dir.path().join("y"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--game dice is a game of scheme stake; pass --scheme stake"));
    fairaudit()
        .args(["sweep", "--game", "keno", "--params", "{}", "--nonces", "0..10", "--out"])
        .arg(dir.path().join("y"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--params gives a game's parameters in scheme stake"));
    // Another run's folder is not replaced without --force.
    let other = dir.path().join("other");
    let sweep_into = |game: &str| {
        fairaudit()
            .args(["sweep", "--scheme", "stake", "--game", game, "--nonces", "0..1000", "--quiet", "--out"])
            .arg(&other)
            .assert()
    };
    sweep_into("dice").success();
    sweep_into("roulette").code(2).stderr(predicates::str::contains("pass --force to replace it"));
    // A sweep of the default scheme into it says what is there.
    fairaudit()
        .args(["sweep", "--game", "keno", "--nonces", "0..100", "--quiet", "--out"])
        .arg(&other)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "holds a sweep of scheme stake; choose another --out, or pass --force",
        ));
}

/// The tests' p-values of `pairs` seed pairs of `rounds` rounds each, per test name.
fn p_values(game: &StakeGame, pairs: usize, rounds: u64) -> std::collections::BTreeMap<String, Vec<f64>> {
    let stop = AtomicBool::new(false);
    let mut by_test: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    for pair in derive_seed_pairs(&format!("calibration {game}"), pairs) {
        let keyed = KeyedScheme::Stake.pair(&pair.server_seed, &pair.client_seed).unwrap();
        let tally = sweep(game, &keyed, 0..rounds, 1 << 14, &stop, &|_| ()).unwrap();
        // The exact tests (`rarest_outcomes`) are discrete and their counts small: their
        // p-values are conservative, not uniform (tests/stake_sparse_tails.rs checks them).
        for test in tests(KeyedScheme::Stake, game, &tally).into_iter().filter(|test| !test.exact) {
            let p = test.p_value.unwrap_or_else(|| panic!("{game} {}: {}", test.test, test.note));
            by_test.entry(test.test).or_default().push(p);
        }
    }
    by_test
}

#[test]
fn p_values_of_many_short_seed_pairs_are_uniform() {
    // 1,000 pairs of 4,000 rounds: the count below 0.5, 0.05 and 0.01 of each test within
    // 3 standard deviations of its level (the seeds are fixed, so this passes or fails
    // the same every time): 450 to 550, 30 to 70, 1 to 19. A test rejecting twice as often
    // as it should at 0.01, 1.5 times at 0.05, or never, fails.
    for (name, params) in GAMES {
        let game = game(name, params);
        for (test, ps) in p_values(&game, 1_000, 4_000) {
            for level in [0.5, 0.05, 0.01] {
                let below = ps.iter().filter(|&&p| p < level).count() as f64;
                let (mean, sd) = (level * 1_000.0, (level * (1.0 - level) * 1_000.0).sqrt());
                assert!((below - mean).abs() <= 3.0 * sd, "{game} {test}: {below} below {level}");
            }
        }
    }
}

#[test]
fn the_far_tail_of_the_draw_steps_and_pairs_is_calibrated() {
    // Holm's first threshold is alpha over the tests (1e-3 to 5e-4 here): 20,000 Keno
    // sequences of 500 rounds (each step's cells expect 12.5 to 16) and 20,000 plinko
    // sequences of 200, counted below 1e-3: 20 expected, 7 to 33 accepted (3 sd), so a
    // tail 1.7 times too heavy, or a third as heavy, fails.
    for (game, rounds) in [(StakeGame::Keno, 500), (StakeGame::Plinko { rows: 16, risk: Risk::Low }, 200)] {
        for (test, ps) in p_values(&game, 20_000, rounds) {
            let below = ps.iter().filter(|&&p| p < 1e-3).count();
            assert!((7..=33).contains(&below), "{game} {test}: {below} of 20,000 below 1e-3");
        }
    }
}

/// The floats of one nonce, each passed through `rig`.
fn floats(
    pair: &SeedPair,
    nonce: u64,
    rig: fn(UnitFloat) -> UnitFloat,
) -> impl Iterator<Item = UnitFloat> + '_ {
    pair.floats(nonce).map(rig)
}

/// The battery's verdict per test on one tally.
fn verdicts(game: &StakeGame, tally: &StakeTally) -> Vec<(String, Verdict)> {
    battery(KeyedScheme::Stake, game, std::slice::from_ref(tally), 0.01)
        .results
        .into_iter()
        .map(|r| (r.outcome.test, r.verdict))
        .collect()
}

#[test]
fn rigged_games_fail_and_the_same_games_played_fair_pass() {
    let pair = SeedPair::new("rig server", "rig client");
    let stop = AtomicBool::new(false);
    fn fair(f: UnitFloat) -> UnitFloat {
        f
    }
    /// A float from its first two bytes only.
    fn sixteen_bits(f: UnitFloat) -> UnitFloat {
        UnitFloat(f.0 & 0xFFFF_0000)
    }
    /// A float pulled down by 2^-10: plinko's rows go left 0.1% more often.
    fn leaning(f: UnitFloat) -> UnitFloat {
        UnitFloat(f.0.saturating_sub(1 << 22))
    }

    // Each rig, with what it breaks, played both ways from the same floats.
    type Play = Box<dyn Fn(u64, bool) -> (StakeOutcome, Vec<usize>)>;
    let dice_play: Play = {
        let pair = pair.clone();
        Box::new(move |nonce, rigged| {
            let rig: fn(UnitFloat) -> UnitFloat = if rigged { sixteen_bits } else { fair };
            (StakeOutcome::Roll(games::dice(&mut FloatWords(floats(&pair, nonce, rig)))), vec![])
        })
    };
    let roulette_play: Play = {
        let pair = pair.clone();
        // Round 2k+1 repeats round 2k's pocket one time in 50.
        Box::new(move |nonce, rigged| {
            let pocket = |n: u64| games::roulette::<FloorOfFloat, _>(&mut pair.floats(n));
            let copy = rigged && nonce % 2 == 1 && pair.floats(nonce).nth(1).unwrap().scale(50) == 0;
            (StakeOutcome::Pocket(pocket(if copy { nonce - 1 } else { nonce })), vec![])
        })
    };
    let keno_play: Play = {
        let pair = pair.clone();
        // The first pick never takes the last of the 40.
        Box::new(move |nonce, rigged| {
            let sizes = step_sizes(&StakeGame::Keno);
            let mut indices: Vec<usize> =
                pair.floats(nonce).zip(&sizes).map(|(f, &n)| f.scale(n) as usize).collect();
            if rigged {
                indices[0] = pair.floats(nonce).next().unwrap().scale(39) as usize;
            }
            let mut pool: Vec<u8> = (1..=40).collect();
            let drawn = indices.iter().map(|&i| pool.remove(i)).collect();
            (StakeOutcome::Drawn(drawn), indices)
        })
    };
    let plinko_play: Play = {
        let pair = pair.clone();
        Box::new(move |nonce, rigged| {
            let rig: fn(UnitFloat) -> UnitFloat = if rigged { leaning } else { fair };
            let rights: Vec<usize> =
                floats(&pair, nonce, rig).take(16).map(|f| f.scale(2) as usize).collect();
            (StakeOutcome::Bucket(rights.iter().sum::<usize>() as u8), rights)
        })
    };
    let limbo_play: Play = {
        let pair = pair.clone();
        // Two cents shaved off every multiplier from 2.00 up.
        Box::new(move |nonce, rigged| {
            let multiplier = games::limbo(pair.floats(nonce).next().unwrap(), LimboFormula::Fair);
            let shaved = multiplier.map(|m| if rigged && m >= 200 { m - 2 } else { m });
            (StakeOutcome::Multiplier(shaved), vec![])
        })
    };
    let cases: [(StakeGame, Play, &str); 5] = [
        (StakeGame::Dice, dice_play, "outcome_frequency"),
        (StakeGame::Roulette, roulette_play, "pairs"),
        (StakeGame::Keno, keno_play, "draw_steps"),
        (StakeGame::Plinko { rows: 16, risk: Risk::Medium }, plinko_play, "draw_steps"),
        (StakeGame::Limbo(LimboFormula::Fair), limbo_play, "outcome_frequency"),
    ];
    for (game, play, caught_by) in cases {
        let honest = tally_of(&game, 1_000_000, |nonce| play(nonce, false));
        // Played fair, the hand-built tally is the sweep's and passes.
        assert_eq!(
            Some(&honest),
            sweep(&game, &KeyedPair::Stake(pair.clone()), 0..1_000_000, 1 << 16, &stop, &|_| ()).as_ref()
        );
        let honest = verdicts(&game, &honest);
        // (Dice's honest rolls are WEAK at these seeds: p 0.0099 happens one time in 100.)
        assert!(honest.iter().all(|(_, v)| *v != Verdict::Fail), "{game}: {honest:?}");
        let rigged = verdicts(&game, &tally_of(&game, 1_000_000, |nonce| play(nonce, true)));
        assert!(rigged.contains(&(caught_by.to_owned(), Verdict::Fail)), "{game}: {rigged:?}");
    }
}
