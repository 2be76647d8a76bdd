//! Fuzzing on stable Rust: property-based mutation tests (proptest) of every reader of
//! user files: rounds (`verify --rounds`), bet histories (`audit`), paytables, claims and
//! tally files. Each case starts from a valid file of a corpus (the shared vectors, the
//! test logs, the shipped paytable and claims, tallies swept here) and applies a few
//! mutations, byte-level (replace, insert, delete, duplicate a line, truncate) or, for
//! tallies, on JSON numbers (0, 1, 2^53, u64::MAX, -1, 1e300...). The property: the reader
//! and everything a command does with what it accepts (the battery, the RTP results) never
//! panic, and every refusal is one line a terminal can show.
//!
//! The number of cases per reader is bounded for CI (`FAIRAUDIT_FUZZ_CASES`, default
//! 256); for a longer local run: `FAIRAUDIT_FUZZ_CASES=20000 cargo test --release --test
//! fuzz`. A failure prints the minimal input proptest shrank it to: add it to
//! `tests/regression.rs` with the fix.

mod common;

use fairaudit::audit::money::Money;
use fairaudit::audit::{audit_history, revealed_seeds, AuditObserver, AuditOptions, Finding, Gap};
use fairaudit::chain::seeds::SeedPair;
use fairaudit::chain::Kernel;
use fairaudit::games::GameId;
use fairaudit::results::RunResults;
use fairaudit::rtp::claims::builtin_claims;
use fairaudit::rtp::{parse_claims, Paytable, PaytableOrigin};
use fairaudit::sweep::{self, SweepControl};
use fairaudit::tally::file::{Plan, SeedSource, TallyFile};
use fairaudit::verify::RoundsChecker;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

fn cases() -> u32 {
    std::env::var("FAIRAUDIT_FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256)
}

fn runner() -> TestRunner {
    // A fixed seed per run would repeat the same cases forever; proptest's default
    // (random, with failures persisted) explores new ones on every CI run.
    TestRunner::new(Config { cases: cases(), failure_persistence: None, ..Config::default() })
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file's first `lines` lines (the corpus files are cut short to keep cases fast).
fn head(path: PathBuf, lines: usize) -> Vec<u8> {
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.split_inclusive('\n').take(lines).collect::<String>().into_bytes()
}

/// Bytes that matter to CSV and number parsers.
const INTERESTING: &[u8] = b"0123456789,;\"\n\r -+.eE:x\t\xff\xc3\x00";

#[derive(Clone, Debug)]
enum Mutation {
    Replace(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    DuplicateLine(usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let byte = prop_oneof![proptest::sample::select(INTERESTING), any::<u8>()];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(at, b)| Mutation::Replace(at, b)),
        (any::<usize>(), byte).prop_map(|(at, b)| Mutation::Insert(at, b)),
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(mut bytes: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for mutation in mutations {
        if bytes.is_empty() {
            break;
        }
        let len = bytes.len();
        match *mutation {
            Mutation::Replace(at, b) => bytes[at % len] = b,
            Mutation::Insert(at, b) => bytes.insert(at % (len + 1), b),
            Mutation::Delete(at) => {
                bytes.remove(at % len);
            }
            Mutation::DuplicateLine(at) => {
                let start = bytes[..at % len].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                let end = bytes[start..].iter().position(|&b| b == b'\n').map_or(len, |i| start + i + 1);
                let line = bytes[start..end].to_vec();
                bytes.splice(end..end, line);
            }
            Mutation::Truncate(at) => bytes.truncate(at % len),
        }
    }
    bytes
}

/// A corpus file with 1 to 4 mutations.
fn mutated(corpus: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    (proptest::sample::select(corpus), proptest::collection::vec(mutation(), 1..5))
        .prop_map(|(bytes, mutations)| apply(bytes, &mutations))
}

/// Every refusal is one line: no raw newline, a bounded length.
fn assert_one_line(error: &dyn std::fmt::Display) {
    let text = error.to_string();
    assert!(!text.contains('\n') && !text.contains('\r'), "an error over several lines: {text:?}");
    assert!(text.len() < 2000, "an error of {} bytes", text.len());
}

#[test]
fn the_rounds_reader_never_panics() {
    let corpus = vec![
        head(root().join("../shared/vectors/reference-rounds.csv"), 40),
        head(root().join("../shared/vectors/rejection-rounds.csv"), 7),
        head(root().join("tests/data/conformance-european-no-rejection.csv"), 20),
    ];
    runner()
        .run(&mutated(corpus), |bytes| {
            match RoundsChecker::new(bytes.as_slice()) {
                Ok(checker) => {
                    for row in checker {
                        if let Err(error) = row {
                            assert_one_line(&error);
                        }
                    }
                }
                Err(error) => assert_one_line(&error),
            }
            Ok(())
        })
        .unwrap();
}

struct Ignore;

impl AuditObserver for Ignore {
    fn finding(&mut self, _: &Finding) {}
    fn gap(&mut self, _: &Gap) {}
}

#[test]
fn the_history_reader_never_panics_nor_its_battery() {
    let corpus = vec![
        head(root().join("tests/data/american-log.csv"), 60),
        head(root().join("tests/data/roulette-history.csv"), 60),
        head(root().join("../shared/vectors/reference-rounds.csv"), 60),
    ];
    let games = proptest::sample::select(GameId::ALL.to_vec());
    let options = AuditOptions {
        paytable: Some(Paytable::example()),
        payout_tolerance: Money::ZERO,
        max_gap_replay: 100,
        layout: fairaudit::columns::CsvLayout::default(),
    };
    runner()
        .run(&(mutated(corpus), games), |(bytes, game)| {
            let revealed = match revealed_seeds(game, bytes.as_slice(), &options.layout) {
                Ok(revealed) => revealed,
                Err(error) => {
                    assert_one_line(&error);
                    return Ok(());
                }
            };
            match audit_history(game, bytes.as_slice(), &revealed, &options, &mut Ignore) {
                Ok(audit) => {
                    let _ = audit.battery(0.01);
                }
                Err(error) => assert_one_line(&error),
            }
            Ok(())
        })
        .unwrap();
}

/// A stake history whose seed is revealed on its last rows only, the others showing the
/// commitment: the first pass (`stake_revealed_seeds`) has seeds to find.
fn stake_revealed_below() -> Vec<u8> {
    let game = fairaudit::scheme::stake::StakeGame::new("dice", "").unwrap();
    let mut text = String::from("game,params,server_seed,client_seed,nonce,result,commitment\n");
    for nonce in 0..8u64 {
        let round = fairaudit::scheme::stake::replay(&game, "fuzz server", "fuzz client", nonce);
        let shown = if nonce >= 6 { "fuzz server" } else { "" };
        text.push_str(&format!("dice,,{shown},fuzz client,{nonce},{},{}\n", round.result, round.commitment));
    }
    text.into_bytes()
}

/// The crash history with a game given without its hash between two hashed games (the
/// link across it checks it), and with a salt column.
fn crash_variants() -> Vec<Vec<u8>> {
    let history = String::from_utf8(head(root().join("tests/data/crash-history.csv"), 13)).unwrap();
    let hashless: String = history
        .lines()
        .map(|line| match line.starts_with("alice,1273933,") || line.starts_with("bob,1273933,") {
            true => {
                let cells: Vec<&str> = line.split(',').collect();
                format!("{},{},,{}\n", cells[0], cells[1], cells[3..].join(","))
            }
            false => format!("{line}\n"),
        })
        .collect();
    let salted: String = history
        .lines()
        .enumerate()
        .map(|(i, line)| match i {
            0 => format!("{line},client_seed\n"),
            _ => format!("{line},0000000000000000000fa3b65e43e4240d71762a5bf397d5304b2596d116859c\n"),
        })
        .collect();
    vec![history.into_bytes(), hashless.into_bytes(), salted.into_bytes()]
}

// The first passes over stake and crash histories (seeds revealed further down, games
// without their hash) were added after this file was written (review L4 of stop 53).
#[test]
fn the_stake_and_crash_history_readers_never_panic_nor_their_batteries() {
    let layout = fairaudit::columns::CsvLayout::default();
    let stake_corpus = vec![head(root().join("tests/data/stake-history.csv"), 5), stake_revealed_below()];
    // The corpus reaches the passes it is for, unmutated: a seed found further down, a
    // hashless game checked through the link across it.
    let found = fairaudit::audit::stake::stake_revealed_seeds(
        stake_corpus[1].as_slice(),
        &layout,
        fairaudit::scheme::keyed::KeyedScheme::Stake,
    )
    .unwrap();
    assert_eq!(found.len(), 1);
    let crash = crash_variants();
    let audit = |bytes: &[u8], variant| {
        fairaudit::audit::crash::audit_crash_history(bytes, &layout, variant, "roobet", Money::ZERO, |_| {})
            .unwrap()
    };
    let hashless = audit(&crash[1], fairaudit::scheme::crash::CrashVariant::Roobet);
    assert_eq!(
        (hashless.derived, hashless.hashless),
        (1, 0),
        "the hashless game is checked through its link"
    );
    // The salt column is read: Roobet's published salt agrees with the hashes; one digit
    // off, every game is of another salt and replays to other crash points.
    let plain = audit(&crash[0], fairaudit::scheme::crash::CrashVariant::Roobet);
    let salted = audit(&crash[2], fairaudit::scheme::crash::CrashVariant::Roobet);
    assert_eq!((salted.replayed, salted.other_salts, &salted.findings), (plain.replayed, 0, &plain.findings));
    let other = String::from_utf8(crash[2].clone()).unwrap().replace("859c\n", "859d\n");
    let other = audit(other.as_bytes(), fairaudit::scheme::crash::CrashVariant::Roobet);
    assert_eq!(other.other_salts, other.rows, "every row states another salt");
    assert!(other.findings.get("result").is_some_and(|&n| n > 0), "{:?}", other.findings);
    runner()
        .run(&mutated(stake_corpus), |bytes| {
            let revealed = match fairaudit::audit::stake::stake_revealed_seeds(
                bytes.as_slice(),
                &layout,
                fairaudit::scheme::keyed::KeyedScheme::Stake,
            ) {
                Ok(revealed) => revealed,
                Err(error) => {
                    assert_one_line(&error);
                    return Ok(());
                }
            };
            let paytable = Paytable::example();
            let audited = fairaudit::audit::stake::audit_stake_history(
                bytes.as_slice(),
                &revealed,
                &layout,
                &fairaudit::audit::stake::StakeAuditOptions {
                    scheme: fairaudit::scheme::keyed::KeyedScheme::Stake,
                    payout_tolerance: Money::ZERO,
                    keno_paytable: Some(&paytable),
                    max_gap_replay: 10_000,
                },
                &mut Ignored,
            );
            match audited {
                Ok(audit) => {
                    let _ = audit.battery(0.01);
                }
                Err(error) => assert_one_line(&error),
            }
            Ok(())
        })
        .unwrap();
    let variants = proptest::sample::select(vec![
        (fairaudit::scheme::crash::CrashVariant::BustabitV1, "bustabit-v1"),
        (fairaudit::scheme::crash::CrashVariant::Roobet, "roobet"),
    ]);
    runner()
        .run(&(mutated(crash), variants), |(bytes, (variant, name))| {
            let audited = fairaudit::audit::crash::audit_crash_history(
                bytes.as_slice(),
                &layout,
                variant,
                name,
                Money::ZERO,
                |_| {},
            );
            match audited {
                Ok(audit) => {
                    let _ = fairaudit::stats::crash::battery(variant, &audit.tally, 0.01);
                }
                Err(error) => assert_one_line(&error),
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn the_paytable_and_claims_readers_never_panic() {
    let paytables = vec![std::fs::read(root().join("data/keno-paytable-example.csv")).unwrap()];
    runner()
        .run(&mutated(paytables), |bytes| {
            match Paytable::parse(bytes.as_slice(), PaytableOrigin::File("fuzz.csv".into())) {
                Ok(paytable) => {
                    let _ = paytable.describe();
                    let _ = fairaudit::rtp::exact_rtp(GameId::Keno, &paytable);
                }
                Err(error) => assert_one_line(&error),
            }
            Ok(())
        })
        .unwrap();
    let claims = vec![std::fs::read(root().join("data/claims.csv")).unwrap()];
    runner()
        .run(&mutated(claims), |bytes| {
            if let Err(error) = parse_claims(bytes.as_slice()) {
                assert_one_line(&error);
            }
            Ok(())
        })
        .unwrap();
}

/// Complete tallies of every game, swept once for the whole test binary.
fn tally_corpus() -> &'static Vec<Value> {
    static CORPUS: OnceLock<Vec<Value>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let never = AtomicBool::new(false);
        let quiet = |_: u64| {};
        GameId::ALL
            .into_iter()
            .map(|game| {
                let plan = Plan {
                    games: vec![game],
                    nonces: vec![(0..300).into()],
                    seed_source: SeedSource::Given,
                    seed_pairs: vec![SeedPair::new("fuzz-server", "fuzz-client")],
                };
                let control = SweepControl {
                    chunk: 100,
                    stop: &never,
                    progress: &quiet,
                    kernel: Kernel::best(),
                    device: None,
                };
                let file = sweep::run(&plan, None, &control).unwrap();
                serde_json::from_slice(&file.to_bytes()).unwrap()
            })
            .collect()
    })
}

fn interesting_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        proptest::sample::select(vec![
            0u64,
            1,
            2,
            3,
            37,
            38,
            40,
            299,
            300,
            301,
            1 << 53,
            u64::MAX,
            u64::MAX - 1
        ])
        .prop_map(Value::from),
        Just(Value::from(-1)),
        Just(serde_json::json!(1e300)),
        Just(serde_json::json!(0.5)),
        any::<u32>().prop_map(Value::from),
    ]
}

#[test]
fn the_tally_reader_never_panics_nor_what_merge_computes() {
    let corpus = tally_corpus();
    let structural =
        (0..corpus.len(), proptest::collection::vec((any::<usize>(), interesting_number()), 1..4)).prop_map(
            |(which, changes)| {
                let mut tally = corpus[which].clone();
                let mut paths = Vec::new();
                common::number_paths(&tally, &mut Vec::new(), &mut paths);
                for (pick, number) in changes {
                    *common::at(&mut tally, &paths[pick % paths.len()]) = number;
                }
                // Sealed again, so the checks behind the checksum are what is fuzzed.
                common::sealed_tally(&tally)
            },
        );
    let bytes: Vec<Vec<u8>> = corpus.iter().map(|t| serde_json::to_vec(t).unwrap()).collect();
    let strategy = prop_oneof![structural, mutated(bytes)];
    let (paytable, claims) = (Paytable::example(), builtin_claims());
    runner()
        .run(&strategy, |bytes| {
            match TallyFile::from_bytes(&bytes) {
                Ok(file) if file.complete => {
                    let _ = RunResults::compute(&file, &paytable, &claims, 0.01);
                }
                Ok(_) => {}
                Err(error) => assert_one_line(&error),
            }
            Ok(())
        })
        .unwrap();
}

/// An observer that keeps nothing: the fuzz cases only look for panics and errors.
struct Ignored;

impl fairaudit::audit::AuditObserver for Ignored {
    fn finding(&mut self, _: &fairaudit::audit::Finding) {}
    fn gap(&mut self, _: &fairaudit::audit::Gap) {}
}
