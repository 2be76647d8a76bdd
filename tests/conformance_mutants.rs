//! Mutation completeness of the conformance challenge: every sampler a human could
//! plausibly get wrong, written here independently from SPEC.md (with the `sha3` crate,
//! not fairaudit's chain), answers the challenge, and `verify --rounds`' checker must fail
//! each one on the challenge alone, with no statistics. The test names every survivor.
//!
//! Each mutant changes one game's sampler and answers the other games correctly, so each
//! game's own cases must catch it. Mutants:
//!
//! - every transposition of two outcomes (a typo in a lookup table): 666 European pairs,
//!   703 American, 780 Keno numbers;
//! - every constant offset of the outcome (36, 37 and 39);
//! - the sampling rule: no rejection (`r % P`), rejection at `>` instead of `>=`,
//!   modulus P − 1 and P + 1;
//! - the chain: little-endian words, the stream fed the signature's hex in upper case, the
//!   nonce with a leading zero or in exponent form, seeds trimmed;
//! - the games: Keno removal by swap-remove instead of splice, numbers 0-based, the draw
//!   order sorted, the result in draw order; American 0 and 00 mapped the other way, 00
//!   written as 37.
//!
//! Each mutant is judged twice: with all five outcome columns filled, and with only the two
//! every answer must fill (`result`, `draw_order`): the required cells alone catch it.

use fairaudit::conformance::{challenge, Case, CHALLENGE_COLUMNS};
use fairaudit::games::GameId;
use fairaudit::verify::RoundsChecker;
use sha3::digest::{ExtendableOutput, Update, XofReader};
use sha3::{Digest, Sha3_256, Shake256};

/// What a mutant gets wrong.
#[derive(Clone, Debug, PartialEq)]
enum Fault {
    None,
    /// Outcomes `a` and `b` swapped (Keno numbers 1..=40, pockets 0..=37).
    Transpose(u8, u8),
    /// Every outcome moved by `c` (Keno numbers cyclically within 1..=40).
    Offset(u8),
    NoRejection,
    RejectAboveLimit,
    /// Sampling among P − 1 or P + 1.
    Modulus(i32),
    LittleEndian,
    UpperHexStream,
    NonceLeadingZero,
    NonceExponent,
    TrimmedSeeds,
    SwapRemove,
    ZeroBased,
    SortedDrawOrder,
    ResultInDrawOrder,
    DoubleZeroAs37,
}

struct Mutant {
    game: GameId,
    fault: Fault,
}

impl Mutant {
    fn name(&self) -> String {
        format!("{} {:?}", self.game.name(), self.fault)
    }
}

/// SHAKE256 words, big- or little-endian, counting those read.
struct Words {
    reader: <Shake256 as ExtendableOutput>::Reader,
    little_endian: bool,
    used: u32,
}

impl Words {
    fn next(&mut self) -> u32 {
        let mut bytes = [0u8; 4];
        self.reader.read(&mut bytes);
        self.used += 1;
        if self.little_endian {
            u32::from_le_bytes(bytes)
        } else {
            u32::from_be_bytes(bytes)
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SPEC §3, or the mutant's rule.
fn sample(words: &mut Words, outcomes: u32, fault: &Fault) -> u32 {
    let p = match fault {
        Fault::Modulus(delta) => (outcomes as i32 + delta) as u64,
        _ => u64::from(outcomes),
    };
    let limit = (1u64 << 32) / p * p;
    loop {
        let word = u64::from(words.next());
        let accept = match fault {
            Fault::NoRejection => true,
            Fault::RejectAboveLimit => word <= limit,
            _ => word < limit,
        };
        if accept {
            return (word % p) as u32;
        }
    }
}

/// The five outcome cells of a case as the mutant's implementation computes them:
/// commitment, round signature, draw order, result, u32 used.
fn answer(case: &Case, mutant: &Mutant) -> [String; 5] {
    let fault = if case.game == mutant.game { mutant.fault.clone() } else { Fault::None };
    let (server, client) = match fault {
        Fault::TrimmedSeeds => (case.server_seed.trim(), case.client_seed.trim()),
        _ => (case.server_seed.as_str(), case.client_seed.as_str()),
    };
    let nonce = match fault {
        Fault::NonceLeadingZero => format!("0{}", case.nonce),
        Fault::NonceExponent => format!("{:e}", case.nonce),
        _ => case.nonce.to_string(),
    };
    let commitment = hex(&Sha3_256::digest(server.as_bytes()));
    let signature = hex(&Sha3_256::digest(format!("{server}:{client}:{nonce}").as_bytes()));
    let streamed = if fault == Fault::UpperHexStream { signature.to_uppercase() } else { signature.clone() };
    let mut shake = Shake256::default();
    shake.update(streamed.as_bytes());
    let mut words =
        Words { reader: shake.finalize_xof(), little_endian: fault == Fault::LittleEndian, used: 0 };

    let (draw_order, result) = match case.game {
        GameId::Keno => {
            let mut remaining: Vec<u8> = (1..=40).collect();
            let mut order = Vec::new();
            for _ in 0..10 {
                let i = sample(&mut words, remaining.len() as u32, &fault) as usize;
                // An index past the list (modulus P + 1) reads nothing: 0, as `undefined`
                // would be written by many languages' number formatting.
                let number = remaining.get(i).copied().unwrap_or(0);
                if i < remaining.len() {
                    if fault == Fault::SwapRemove {
                        remaining.swap_remove(i);
                    } else {
                        remaining.remove(i);
                    }
                }
                order.push(number);
            }
            let order: Vec<u8> = order
                .into_iter()
                .map(|n| match fault {
                    Fault::Transpose(a, b) if n == a => b,
                    Fault::Transpose(a, b) if n == b => a,
                    Fault::Offset(c) if n > 0 => (n - 1 + c) % 40 + 1,
                    Fault::ZeroBased => n.wrapping_sub(1),
                    _ => n,
                })
                .collect();
            let mut sorted = order.clone();
            sorted.sort_unstable();
            let list = |numbers: &[u8]| numbers.iter().map(u8::to_string).collect::<Vec<_>>().join(" ");
            let shown_order = if fault == Fault::SortedDrawOrder { &sorted } else { &order };
            let shown_result = if fault == Fault::ResultInDrawOrder { &order } else { &sorted };
            (list(shown_order), list(shown_result))
        }
        game => {
            let outcomes = if game == GameId::RouletteAmerican { 38 } else { 37 };
            let pocket = sample(&mut words, outcomes, &fault) as u8;
            let pocket = match fault {
                Fault::Transpose(a, b) if pocket == a => b,
                Fault::Transpose(a, b) if pocket == b => a,
                Fault::Offset(c) => (pocket + c) % outcomes as u8,
                _ => pocket,
            };
            let shown = if game == GameId::RouletteAmerican && pocket == 37 && fault != Fault::DoubleZeroAs37
            {
                "00".to_owned()
            } else {
                pocket.to_string()
            };
            (pocket.to_string(), shown)
        }
    };
    [commitment, signature, draw_order, result, words.used.to_string()]
}

/// The challenge answered by `mutant`, as the CSV an adapter writes; with `all_cells`
/// false only `draw_order` and `result` are filled.
fn answered_challenge(cases: &[Case], mutant: &Mutant, all_cells: bool) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(CHALLENGE_COLUMNS).unwrap();
    for case in cases {
        let [commitment, signature, order, result, used] = answer(case, mutant);
        let keep = |cell: String| if all_cells { cell } else { String::new() };
        let nonce = case.nonce.to_string();
        writer
            .write_record([
                case.game.name(),
                &case.server_seed,
                &case.client_seed,
                &nonce,
                &keep(commitment),
                &keep(signature),
                &order,
                &result,
                &keep(used),
                &case.label,
            ])
            .unwrap();
    }
    writer.into_inner().unwrap()
}

/// Whether the checker passes the answer: no mismatch, no case unanswered, no error.
fn passes(file: &[u8]) -> bool {
    let mut checker = RoundsChecker::new(file).expect("the answer has the challenge's header");
    let mut clean = true;
    for row in checker.by_ref() {
        match row {
            Ok(row) => clean &= row.mismatches.is_empty(),
            Err(_) => return false,
        }
    }
    clean && checker.unanswered().is_empty()
}

fn mutants() -> Vec<Mutant> {
    let mut mutants = Vec::new();
    for game in GameId::ALL {
        let mut push = |fault| mutants.push(Mutant { game, fault });
        let (low, high): (u8, u8) = match game {
            GameId::Keno => (1, 40),
            GameId::RouletteEuropean => (0, 36),
            GameId::RouletteAmerican => (0, 37),
        };
        for a in low..=high {
            for b in a + 1..=high {
                push(Fault::Transpose(a, b));
            }
        }
        for c in 1..=high - low {
            push(Fault::Offset(c));
        }
        for fault in [
            Fault::NoRejection,
            Fault::RejectAboveLimit,
            Fault::Modulus(-1),
            Fault::Modulus(1),
            Fault::LittleEndian,
            Fault::UpperHexStream,
            Fault::NonceLeadingZero,
            Fault::NonceExponent,
            Fault::TrimmedSeeds,
        ] {
            push(fault);
        }
        match game {
            GameId::Keno => {
                for fault in
                    [Fault::SwapRemove, Fault::ZeroBased, Fault::SortedDrawOrder, Fault::ResultInDrawOrder]
                {
                    push(fault);
                }
            }
            GameId::RouletteAmerican => push(Fault::DoubleZeroAs37),
            GameId::RouletteEuropean => {}
        }
    }
    mutants
}

#[test]
fn the_correct_sampler_passes_and_every_mutant_fails_the_challenge_alone() {
    let cases = challenge(&GameId::ALL);
    for all_cells in [true, false] {
        let correct = Mutant { game: GameId::Keno, fault: Fault::None };
        assert!(passes(&answered_challenge(&cases, &correct, all_cells)), "the correct sampler must pass");
    }
    let mutants = mutants();
    let transpositions =
        |game| mutants.iter().filter(|m| m.game == game && matches!(m.fault, Fault::Transpose(..))).count();
    assert_eq!(
        [
            transpositions(GameId::RouletteEuropean),
            transpositions(GameId::RouletteAmerican),
            transpositions(GameId::Keno)
        ],
        [666, 703, 780]
    );
    let cases = &cases;
    let survivors: Vec<String> = mutants
        .iter()
        .flat_map(|mutant| {
            [true, false].into_iter().filter_map(move |all_cells| {
                let cells = if all_cells { "all cells" } else { "result and draw_order only" };
                passes(&answered_challenge(cases, mutant, all_cells))
                    .then(|| format!("{} ({cells})", mutant.name()))
            })
        })
        .collect();
    assert!(survivors.is_empty(), "{} mutants pass the challenge: {survivors:#?}", survivors.len());
    let per_game = |game| mutants.iter().filter(|m| m.game == game).count();
    assert_eq!(
        [per_game(GameId::RouletteEuropean), per_game(GameId::RouletteAmerican), per_game(GameId::Keno)],
        [711, 750, 832],
        "docs/conformance.md gives these counts"
    );
}
