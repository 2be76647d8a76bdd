//! Mutation completeness of the stake conformance challenge: every implementation of the
//! HMAC-SHA256 family a human could plausibly get wrong, written here independently from
//! the published algorithm (with the `hmac` and `sha2` crates and `f64` floats, as the
//! operators' JavaScript computes them; not fairaudit's scheme module), answers the
//! challenge, and `verify --rounds`' checker must fail each one on the challenge alone.
//! The test names every survivor.
//!
//! Each mutant changes one group (a game, or one limbo formula) and answers the others
//! correctly, so each group's own cases must catch it. Mutants:
//!
//! - the stream: an HMAC key over 64 bytes cut to 64 instead of hashed, a hex server seed
//!   decoded to bytes, key and message swapped, the message as `nonce:client:round`,
//!   little-endian floats, a float from three bytes (where the fourth can matter), floats
//!   held as 32-bit floats (plinko included, where that changes one round in millions), the
//!   nonce from 1, the round from 1, the cursor staying in block 0 (games of several
//!   floats), seeds trimmed;
//! - dice: rounded instead of floored, scaled by 10,000;
//! - limbo: each formula answered by each other one, rounded instead of truncated, no 1%
//!   edge, the operator's page without its floor at 1.00;
//! - Keno: every transposition of two numbers (780), removal by swap-remove, picking
//!   from the end, numbers 0-based, the draw sorted;
//! - roulette: every transposition of two pockets (666), scaled by 36 or 38;
//! - plinko: every transposition of two buckets at every row count (732), left and right
//!   swapped, one row too few;
//! - mines: every transposition of two tiles (300), swap-remove, tiles 1-based, column-
//!   major, the draw sorted.

use fairaudit::columns::CsvLayout;
use fairaudit::conformance::stake::{challenge, group_of, StakeCase, COLUMNS, GROUPS};
use fairaudit::scheme::stake::{LimboFormula, StakeGame};
use fairaudit::verify::Rounds;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// What a mutant gets wrong.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    None,
    KeyCutTo64,
    HexKeyDecoded,
    KeyMessageSwapped,
    NonceFirst,
    LittleEndian,
    ThreeByteFloat,
    SinglePrecision,
    NonceFromOne,
    RoundFromOne,
    CursorStaysInBlock0,
    TrimmedSeeds,
    /// Outcomes `a` and `b` swapped (Keno numbers, pockets, buckets at this many rows, tiles).
    Transpose(u8, u8, u8),
    Rounded,
    Scale(u32),
    Formula(LimboFormula),
    NoEdge,
    NoFloorAtOne,
    SwapRemove,
    PickFromEnd,
    ZeroBased,
    OneBased,
    Sorted,
    DirectionsSwapped,
    RowTooFew,
    ColumnMajor,
}

struct Mutant {
    group: &'static str,
    fault: Fault,
}

/// The float stream as the mutant computes it: HMAC-SHA256 blocks, four bytes a float.
fn floats(case: &StakeCase, fault: Fault) -> impl Iterator<Item = f64> {
    let (server, client) = match fault {
        Fault::TrimmedSeeds => (case.server_seed.trim().to_owned(), case.client_seed.trim().to_owned()),
        _ => (case.server_seed.clone(), case.client_seed.clone()),
    };
    let nonce = if fault == Fault::NonceFromOne { case.nonce + 1 } else { case.nonce };
    let key: Vec<u8> = match fault {
        Fault::KeyCutTo64 => server.as_bytes()[..server.len().min(64)].to_vec(),
        Fault::HexKeyDecoded if server.len() % 2 == 0 && server.bytes().all(|b| b.is_ascii_hexdigit()) => (0
            ..server.len() / 2)
            .map(|i| u8::from_str_radix(&server[2 * i..2 * i + 2], 16).unwrap())
            .collect(),
        _ => server.clone().into_bytes(),
    };
    let block = move |round: u64| -> Vec<u8> {
        let round = match fault {
            Fault::RoundFromOne => round + 1,
            Fault::CursorStaysInBlock0 => 0,
            _ => round,
        };
        let message = match fault {
            Fault::NonceFirst => format!("{nonce}:{client}:{round}"),
            _ => format!("{client}:{nonce}:{round}"),
        };
        let (key, message) = match fault {
            Fault::KeyMessageSwapped => (message.into_bytes(), key.clone()),
            _ => (key.clone(), message.into_bytes()),
        };
        let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
        mac.update(&message);
        mac.finalize().into_bytes().to_vec()
    };
    (0u64..).flat_map(move |round| {
        let bytes = block(round);
        (0..8)
            .map(|i| {
                let mut four: Vec<u8> = bytes[4 * i..4 * i + 4].to_vec();
                if fault == Fault::LittleEndian {
                    four.reverse();
                }
                let used = if fault == Fault::ThreeByteFloat { 3 } else { 4 };
                let float: f64 = four[..used]
                    .iter()
                    .enumerate()
                    .map(|(j, &b)| f64::from(b) / 256f64.powi(j as i32 + 1))
                    .sum();
                // `Math.fround`, a `Float32Array` or an `f32` holding the float.
                if fault == Fault::SinglePrecision {
                    f64::from(float as f32)
                } else {
                    float
                }
            })
            .collect::<Vec<f64>>()
    })
}

/// Draws `take` of `pool` without replacement, or the mutant's way.
fn draw(floats: &mut impl Iterator<Item = f64>, mut pool: Vec<u8>, take: usize, fault: Fault) -> Vec<u8> {
    (0..take)
        .map(|_| {
            let at = (floats.next().unwrap() * pool.len() as f64).floor() as usize;
            match fault {
                Fault::SwapRemove => pool.swap_remove(at),
                Fault::PickFromEnd => pool.remove(pool.len() - 1 - at),
                _ => pool.remove(at),
            }
        })
        .collect()
}

fn swap(value: u8, fault: Fault, rows: u8) -> u8 {
    match fault {
        Fault::Transpose(r, a, b) if r == rows && value == a => b,
        Fault::Transpose(r, a, b) if r == rows && value == b => a,
        _ => value,
    }
}

fn list(values: &[u8]) -> String {
    values.iter().map(u8::to_string).collect::<Vec<_>>().join(" ")
}

fn hundredths(value: u64) -> String {
    format!("{}.{:02}", value / 100, value % 100)
}

/// Limbo's multiplier by a formula, in hundredths (`None`: division by zero).
fn limbo(f: f64, formula: LimboFormula, fault: Fault) -> Option<u64> {
    let edge = if fault == Fault::NoEdge { 1.0 } else { 0.99 };
    let cut = |x: f64| if fault == Fault::Rounded { x.round() } else { x.floor() };
    let m = match formula {
        LimboFormula::StakePage => {
            let m = cut(1e8 / (f * 1e8) * edge * 100.0) / 100.0;
            if fault == Fault::NoFloorAtOne {
                m
            } else {
                m.max(1.0)
            }
        }
        LimboFormula::Verifierform => {
            cut(16_777_216.0 / ((f * 16_777_216.0).floor() + 1.0) * edge * 100.0) / 100.0
        }
        LimboFormula::Fair => cut(1e8 / ((f * 1e8).floor() + 1.0) * edge * 100.0) / 100.0,
    };
    m.is_finite().then(|| (m * 100.0).round() as u64)
}

/// The result a mutant shows for a case (correct for cases of other groups).
fn result(case: &StakeCase, mutant: &Mutant) -> String {
    let fault = if group_of(&case.game) == mutant.group { mutant.fault } else { Fault::None };
    let mut floats = floats(case, fault);
    match case.game {
        StakeGame::Dice => {
            let scaled =
                floats.next().unwrap() * if let Fault::Scale(n) = fault { f64::from(n) } else { 10_001.0 };
            hundredths(if fault == Fault::Rounded { scaled.round() } else { scaled.floor() } as u64)
        }
        StakeGame::Limbo(formula) => {
            let formula = if let Fault::Formula(other) = fault { other } else { formula };
            limbo(floats.next().unwrap(), formula, fault).map_or("Infinity".to_owned(), hundredths)
        }
        StakeGame::Roulette => {
            let n = if let Fault::Scale(n) = fault { f64::from(n) } else { 37.0 };
            swap((floats.next().unwrap() * n).floor() as u8, fault, 0).to_string()
        }
        StakeGame::Keno => {
            let mut numbers: Vec<u8> = draw(&mut floats, (1..=40).collect(), 10, fault)
                .into_iter()
                .map(|n| if fault == Fault::ZeroBased { n - 1 } else { swap(n, fault, 0) })
                .collect();
            if fault == Fault::Sorted {
                numbers.sort_unstable();
            }
            list(&numbers)
        }
        StakeGame::Plinko { rows, .. } => {
            let played = if fault == Fault::RowTooFew { rows - 1 } else { rows };
            let rights: u8 = (0..played).map(|_| (floats.next().unwrap() * 2.0).floor() as u8).sum();
            let bucket = if fault == Fault::DirectionsSwapped { rows - rights } else { rights };
            swap(bucket, fault, rows).to_string()
        }
        StakeGame::Mines { mines } => {
            let mut tiles: Vec<u8> = draw(&mut floats, (0..25).collect(), usize::from(mines), fault)
                .into_iter()
                .map(|t| match fault {
                    Fault::OneBased => t + 1,
                    Fault::ColumnMajor => (t % 5) * 5 + t / 5,
                    _ => swap(t, fault, 0),
                })
                .collect();
            if fault == Fault::Sorted {
                tiles.sort_unstable();
            }
            list(&tiles)
        }
    }
}

/// The challenge answered by `mutant`, as the CSV an adapter writes (`result` filled,
/// and `commitment` where `with_commitment`).
fn answered(cases: &[StakeCase], mutant: &Mutant, with_commitment: bool) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(COLUMNS).unwrap();
    for case in cases {
        let commitment = match with_commitment {
            true => Sha256::digest(case.server_seed.as_bytes()).iter().map(|b| format!("{b:02x}")).collect(),
            false => String::new(),
        };
        let nonce = case.nonce.to_string();
        let params = case.game.params();
        let result = result(case, mutant);
        let row = [
            "stake",
            case.game.name(),
            &case.server_seed,
            &case.client_seed,
            &nonce,
            &params,
            &commitment,
            &result,
            &case.label,
        ];
        writer.write_record(row).unwrap();
    }
    writer.into_inner().unwrap()
}

/// Whether the checker passes the answer: no mismatch, no case unanswered, no error.
fn passes(file: &[u8]) -> bool {
    let mut checker =
        Rounds::open(file, &CsvLayout::default(), None).expect("the answer has the challenge's header");
    let mut clean = true;
    for row in checker.by_ref() {
        match row {
            Ok(row) => clean &= row.mismatches.is_empty() && row.case.is_some(),
            Err(_) => return false,
        }
    }
    clean && checker.is_challenge() && checker.unanswered().is_empty()
}

fn mutants() -> Vec<Mutant> {
    let mut mutants = Vec::new();
    for group in GROUPS {
        let mut push = |fault| mutants.push(Mutant { group, fault });
        for fault in [
            Fault::KeyCutTo64,
            Fault::HexKeyDecoded,
            Fault::KeyMessageSwapped,
            Fault::NonceFirst,
            Fault::LittleEndian,
            Fault::NonceFromOne,
            Fault::RoundFromOne,
            Fault::TrimmedSeeds,
        ] {
            push(fault);
        }
        // Equivalent mutants left out: a game of one float never leaves block 0; plinko's
        // floor(f * 2) and the verifierform limbo's floor(f * 2^24) read three bytes only.
        if matches!(group, "keno" | "plinko" | "mines") {
            push(Fault::CursorStaysInBlock0);
        }
        if !matches!(group, "plinko" | "limbo-verifierform") {
            push(Fault::ThreeByteFloat);
        }
        push(Fault::SinglePrecision);
        let transpose_all = |push: &mut dyn FnMut(Fault), rows: u8, low: u8, high: u8| {
            for a in low..=high {
                for b in a + 1..=high {
                    push(Fault::Transpose(rows, a, b));
                }
            }
        };
        match group {
            "dice" => {
                push(Fault::Rounded);
                push(Fault::Scale(10_000));
            }
            "keno" => {
                transpose_all(&mut push, 0, 1, 40);
                for fault in [Fault::SwapRemove, Fault::PickFromEnd, Fault::ZeroBased, Fault::Sorted] {
                    push(fault);
                }
            }
            "roulette" => {
                transpose_all(&mut push, 0, 0, 36);
                push(Fault::Scale(36));
                push(Fault::Scale(38));
            }
            "plinko" => {
                for rows in 8..=16 {
                    transpose_all(&mut push, rows, 0, rows);
                }
                push(Fault::DirectionsSwapped);
                push(Fault::RowTooFew);
            }
            "mines" => {
                transpose_all(&mut push, 0, 0, 24);
                for fault in [Fault::SwapRemove, Fault::OneBased, Fault::ColumnMajor, Fault::Sorted] {
                    push(fault);
                }
            }
            limbo => {
                let own =
                    LimboFormula::ALL.into_iter().find(|f| limbo == format!("limbo-{}", f.name())).unwrap();
                for other in LimboFormula::ALL.into_iter().filter(|&other| other != own) {
                    push(Fault::Formula(other));
                }
                push(Fault::Rounded);
                push(Fault::NoEdge);
                if own == LimboFormula::StakePage {
                    push(Fault::NoFloorAtOne);
                }
            }
        }
    }
    mutants
}

#[test]
fn the_correct_implementation_passes_and_every_mutant_fails_the_challenge_alone() {
    let cases = challenge(&GROUPS);
    for with_commitment in [true, false] {
        let correct = Mutant { group: "dice", fault: Fault::None };
        assert!(passes(&answered(&cases, &correct, with_commitment)), "the correct implementation must pass");
    }
    let mutants = mutants();
    let survivors: Vec<String> = mutants
        .iter()
        .filter(|mutant| passes(&answered(&cases, mutant, false)))
        .map(|mutant| format!("{} {:?}", mutant.group, mutant.fault))
        .collect();
    assert!(
        survivors.is_empty(),
        "{} of {} mutants pass the challenge: {survivors:#?}",
        survivors.len(),
        mutants.len()
    );
    let per_group: Vec<usize> =
        GROUPS.iter().map(|group| mutants.iter().filter(|m| m.group == *group).count()).collect();
    assert_eq!(per_group, [12, 15, 13, 14, 795, 678, 744, 315], "docs/schemes.md gives these counts");
}
