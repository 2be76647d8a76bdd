//! The conformance challenge: the rounds another implementation of the chain (an
//! operator's sampler in JavaScript, Go, Rust …) must reproduce to be bit-exact, aimed at
//! the places where implementations go wrong. This module is the default scheme's
//! challenge; [`stake`] is the HMAC-SHA256 family's, and [`ChallengeCase`] is what
//! `verify --rounds` judges answers to either by.
//!
//! [`challenge`] lists the cases: for every game, ordinary rounds, nonces at every
//! digit-count boundary up to 2^53 − 1 (with 64-character seeds, 99999 → 100000 is also
//! where `S:C:n` reaches SHA3's 136-byte block), seeds of 0, 1, 64, 135, 136, 137 and 300
//! bytes, seeds with separators, quotes, spaces and non-ASCII text; a round that takes
//! the rejection path at every `P` where one exists (from [`rejection_rounds`]), and a
//! spin per wheel whose word is the limit itself (from [`limit_word_rounds`]); the
//! pockets 0 and American 00 and every pocket no other case gives; Keno rounds until every
//! number has been drawn at every position. With every outcome in some case, a sampler
//! that swaps two outcomes fails a case (`tests/conformance_mutants.rs` shows that every
//! plausible broken sampler does). Everything is derived from fixed data, so a fairaudit
//! version always writes the same challenge (`report::challenge::challenge_table`): the implementation
//! under test fills its outcome columns and `verify --rounds` judges the answers, naming
//! each failing case by its label.
//!
//! Rejections are rare (P = 31, 33 and 36 reject 4 word values of 2^32), so those rounds
//! are shipped as data, `data/conformance-rejections.csv`, which the tests below
//! re-verify round by round: the Keno rounds were found once by a search
//! (`examples/conformance_search.rs`); the roulette round (one nonce that rejects on both
//! wheels) is the operator's own, from `rejection-rounds.csv`, because the search's
//! 3.2 × 10^9 rounds happened to contain none (its `source` column says which is which).

use crate::chain::seeds::{derive_seed_pairs, SeedPair};
use crate::chain::RoundHasher;
use crate::games::keno::{choices_at_draw, DRAWN, GRID};
use crate::games::roulette::DOUBLE_ZERO;
use crate::games::{Game, GameId, Keno, KenoRound, Roulette, Spin};
use crate::sampler::rejected_values;
use std::sync::OnceLock;

pub mod stake;

/// Where the rejection rounds live in the repository.
pub const REJECTIONS_PATH: &str = "data/conformance-rejections.csv";

/// The rejection rounds (one per game and `P`), built into the library.
pub const REJECTIONS_CSV: &str = include_str!("../../data/conformance-rejections.csv");

/// Where the limit-word rounds live in the repository.
pub const LIMIT_WORDS_PATH: &str = "data/conformance-limit-words.csv";

/// Rounds whose draw meets a word equal to its limit `floor(2^32 / P) * P` (one per
/// wheel), built into the library: only such a word tells `r >= limit` (reject) from
/// `r > limit` (accept it as 0). Keno needs none of its own: its rejection rounds
/// already meet limit words (a test of mutants shows which rounds catch what).
pub const LIMIT_WORDS_CSV: &str = include_str!("../../data/conformance-limit-words.csv");

/// The name of the file `fairaudit conformance` writes.
pub const CHALLENGE_FILE: &str = "challenge.csv";

/// The challenge's columns: SPEC §7's, in its order, then the case label. The last five
/// of SPEC §7 are left empty for the implementation under test to fill.
pub const CHALLENGE_COLUMNS: [&str; 10] = [
    "game",
    "server_seed",
    "client_seed",
    "nonce",
    "commitment",
    "round_signature",
    "draw_order",
    "result",
    "u32_used",
    "case",
];

/// The master seed from which the challenge's 64-character seed pairs are derived, as
/// `sweep --seed-pairs K --master-seed fairaudit-conformance` would derive them.
pub const MASTER_SEED: &str = "fairaudit-conformance";

/// What a case is aimed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A round with 64-character hex seeds and an unremarkable nonce.
    Ordinary,
    /// A round in which rejection sampling discards a word at a given `P`.
    Rejection,
    /// A nonce at a digit-count boundary, at the SHA3 block, or at 2^53 − 1.
    Nonce,
    /// A seed whose length in bytes sits at an edge (empty, one byte, around 136, long).
    SeedLength,
    /// A seed whose text trips up CSV readers, string handling or UTF-8 encoding.
    SeedText,
    /// A round whose result is a pocket no earlier case gives, so that every pocket of the
    /// wheel appears (0 and American 00, which implementations tend to spell wrong,
    /// always have one).
    Pocket,
    /// Keno rounds chosen so that every number appears at every draw position.
    Coverage,
}

impl Kind {
    /// Every kind, in the order the challenge lists them within a game.
    pub const ALL: [Kind; 7] = [
        Kind::Ordinary,
        Kind::Rejection,
        Kind::Nonce,
        Kind::SeedLength,
        Kind::SeedText,
        Kind::Pocket,
        Kind::Coverage,
    ];

    /// The kind's name in listings.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Ordinary => "ordinary",
            Kind::Rejection => "rejection",
            Kind::Nonce => "nonce",
            Kind::SeedLength => "seed-length",
            Kind::SeedText => "seed-text",
            Kind::Pocket => "pocket",
            Kind::Coverage => "coverage",
        }
    }
}

/// One round of the challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// What it covers, unique within the challenge ("Keno rejection at P = 37").
    pub label: String,
    /// What kind of edge it is aimed at.
    pub kind: Kind,
    /// The game.
    pub game: GameId,
    /// The server seed.
    pub server_seed: String,
    /// The client seed.
    pub client_seed: String,
    /// The nonce (at most 2^53 − 1: every case has reference behaviour).
    pub nonce: u64,
}

/// A case of a conformance challenge, as `verify --rounds` judges an answer to it: by
/// its label, or, in an answer without a `case` column, by its inputs.
pub trait ChallengeCase {
    /// The round's inputs, by which an answer without a `case` column is matched.
    type Inputs: Eq + std::hash::Hash;
    /// The case's label, unique within its challenge.
    fn label(&self) -> &str;
    /// The group the case belongs to (its game): an answer is judged on the groups it
    /// answers.
    fn group(&self) -> &'static str;
    /// The round's inputs.
    fn inputs(&self) -> Self::Inputs;
    /// The name of what the case is aimed at, in listings.
    fn kind_name(&self) -> &'static str;
    /// The round's nonce.
    fn nonce(&self) -> u64;
    /// The round's server and client seeds.
    fn seeds(&self) -> (&str, &str);
}

impl ChallengeCase for Case {
    type Inputs = (GameId, String, String, u64);

    fn label(&self) -> &str {
        &self.label
    }

    fn group(&self) -> &'static str {
        self.game.name()
    }

    fn inputs(&self) -> Self::Inputs {
        (self.game, self.server_seed.clone(), self.client_seed.clone(), self.nonce)
    }

    fn kind_name(&self) -> &'static str {
        self.kind.name()
    }

    fn nonce(&self) -> u64 {
        self.nonce
    }

    fn seeds(&self) -> (&str, &str) {
        (&self.server_seed, &self.client_seed)
    }
}

/// A round that rejects a word at one draw: one row of [`REJECTIONS_CSV`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RejectionRound {
    /// The game.
    pub game: GameId,
    /// The server seed.
    pub server_seed: String,
    /// The client seed.
    pub client_seed: String,
    /// The nonce.
    pub nonce: u64,
    /// `P`, the number of outcomes the rejecting draw samples among.
    pub outcomes: u32,
    /// The rejecting draw, from 1 (Keno: P = 41 − draw; roulette: 1).
    pub draw: usize,
    /// Words that draw rejected before accepting one.
    pub rejected_words: u32,
}

/// The built-in rejection rounds.
///
/// # Panics
/// If the built-in file is malformed (a test reads it).
pub fn rejection_rounds() -> Vec<RejectionRound> {
    built_in_rounds(REJECTIONS_CSV)
}

/// The built-in limit-word rounds, as [`RejectionRound`]s that reject one word, the limit.
///
/// # Panics
/// If the built-in file is malformed (a test reads it).
pub fn limit_word_rounds() -> Vec<RejectionRound> {
    built_in_rounds(LIMIT_WORDS_CSV)
}

/// Rows of a built-in rounds file: `game,server_seed,client_seed,nonce,outcomes,draw`, then
/// `rejected_words` (one where the file has no such column), then `source`.
fn built_in_rounds(text: &str) -> Vec<RejectionRound> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let counts_rejections =
        reader.headers().expect("a built-in header").iter().any(|h| h == "rejected_words");
    reader
        .records()
        .map(|record| {
            let record = record.expect("built-in rounds are valid CSV");
            let number = |i: usize| record[i].parse::<u64>().expect("built-in rounds hold numbers");
            RejectionRound {
                game: record[0].parse().expect("built-in rounds name known games"),
                server_seed: record[1].to_owned(),
                client_seed: record[2].to_owned(),
                nonce: number(3),
                outcomes: number(4) as u32,
                draw: number(5) as usize,
                rejected_words: if counts_rejections { number(6) as u32 } else { 1 },
            }
        })
        .collect()
}

/// The `P` at which a round of `game` can take the rejection path: Keno 40, 39, …, 31
/// except 32 (a power of two rejects nothing); roulette 37 or 38.
pub fn rejection_targets(game: GameId) -> Vec<u32> {
    match game {
        GameId::Keno => (0..DRAWN).map(choices_at_draw).filter(|&p| rejected_values(p) > 0).collect(),
        GameId::RouletteEuropean | GameId::RouletteAmerican => vec![game.outcomes_at_draw(0)],
    }
}

/// Words each draw of a round rejected, in draw order (one draw for roulette).
pub fn rejections_per_draw(game: GameId, hasher: &RoundHasher, nonce: u64) -> Vec<u32> {
    let mut words = hasher.words(nonce);
    match game {
        GameId::Keno => {
            let mut round = KenoRound::default();
            Keno.draw(&mut words, &mut round);
            round.rejected.to_vec()
        }
        GameId::RouletteEuropean | GameId::RouletteAmerican => vec![spin(game, hasher, nonce).rejected],
    }
}

fn spin(game: GameId, hasher: &RoundHasher, nonce: u64) -> Spin {
    let wheel = if game == GameId::RouletteAmerican { Roulette::AMERICAN } else { Roulette::EUROPEAN };
    let mut spin = Spin::default();
    wheel.draw(&mut hasher.words(nonce), &mut spin);
    spin
}

/// The game's name at the start of a label.
fn label_prefix(game: GameId) -> &'static str {
    match game {
        GameId::Keno => "Keno",
        GameId::RouletteEuropean => "European",
        GameId::RouletteAmerican => "American",
    }
}

/// Ordinary rounds per game.
const ORDINARY_ROUNDS: usize = 10;
/// Nonces of the ordinary rounds: one to sixteen digits, none at a boundary.
const ORDINARY_NONCES: [u64; ORDINARY_ROUNDS] = [
    1,
    42,
    777,
    31_337,
    271_828,
    3_141_592,
    27_182_818,
    1_234_567_890,
    98_765_432_101,
    4_503_599_627_370_496,
];
/// Seed pairs derived from [`MASTER_SEED`]: 0..10 for the ordinary rounds, then these.
const BOUNDARY_PAIR: usize = ORDINARY_ROUNDS;
const PARTNER_PAIR: usize = ORDINARY_ROUNDS + 1;
const POCKET_PAIR: usize = ORDINARY_ROUNDS + 2;
const COVERAGE_PAIR: usize = ORDINARY_ROUNDS + 3;
const DERIVED_PAIRS: usize = ORDINARY_ROUNDS + 4;
/// The nonces `0..COVERAGE_POOL` of the coverage pair are the rounds the Keno coverage
/// cases are chosen from (each (position, number) cell comes up about 1,250 times there).
const COVERAGE_POOL: u64 = 50_000;
/// The nonce of the seed-length and seed-text cases.
const SEED_CASE_NONCE: u64 = 7;
/// Seed lengths in bytes: empty, one byte, the usual 64, SHA3's block ± 1, long.
pub const SEED_LENGTHS: [usize; 7] = [0, 1, 64, 135, 136, 137, 300];

/// An ASCII seed of `len` bytes: hex digits from derived seeds, concatenated.
fn seed_of_length(len: usize) -> String {
    hex_seed(&format!("{MASTER_SEED}/seed-length"), len)
}

/// An ASCII seed of `len` hex digits derived from `master`.
fn hex_seed(master: &str, len: usize) -> String {
    let hex: String =
        derive_seed_pairs(master, len.div_ceil(64)).into_iter().map(|pair| pair.server_seed).collect();
    hex[..len].to_owned()
}

/// Seeds whose text is the edge: (which seed, description, text).
fn seed_texts() -> Vec<(Role, &'static str, String)> {
    vec![
        (Role::Client, "client seed with ':' inside", "a:b::c:".to_owned()),
        (Role::Client, "client seed with ',' and '\"' (CSV quoting)", "say \"hi\", twice".to_owned()),
        (Role::Client, "client seed with spaces at both ends", "  padded seed  ".to_owned()),
        (Role::Server, "server seed with 2-byte UTF-8 (café, NFC)", "café-crème".to_owned()),
        (Role::Client, "client seed decomposed (NFD, not normalised)", "cafe\u{301}".to_owned()),
        (Role::Server, "server seed with 3-byte UTF-8 (CJK)", "公平な種子".to_owned()),
        (Role::Client, "client seed with 4-byte UTF-8 (emoji)", "🎰🎲🍀".to_owned()),
        (Role::Server, "server seed of 136 UTF-8 bytes in 68 characters", "é".repeat(68)),
    ]
}

/// Which seed of a case is the edge; the other is the partner pair's.
#[derive(Clone, Copy)]
enum Role {
    Server,
    Client,
}

impl Role {
    /// (server seed, client seed) with `seed` in this role.
    fn seeds<'a>(self, seed: &'a str, partner: &'a SeedPair) -> (&'a str, &'a str) {
        match self {
            Role::Server => (seed, &partner.client_seed),
            Role::Client => (&partner.server_seed, seed),
        }
    }
}

/// How a pocket is written in `result`: American 37 as `00`.
fn pocket_name(game: GameId, pocket: u8) -> String {
    if game == GameId::RouletteAmerican && pocket == DOUBLE_ZERO {
        "00".to_owned()
    } else {
        pocket.to_string()
    }
}

/// A case's round: the Keno draw order, or the pocket as a one-element list.
fn drawn(case: &Case) -> Vec<u8> {
    let hasher = RoundHasher::new(&case.server_seed, &case.client_seed);
    match case.game {
        GameId::Keno => {
            let mut round = KenoRound::default();
            Keno.draw(&mut hasher.words(case.nonce), &mut round);
            round.order.to_vec()
        }
        game => vec![spin(game, &hasher, case.nonce).pocket],
    }
}

/// The pockets of `game`'s wheel that none of `cases` gives, in ascending order; 0 (and
/// American 00) always, for their own case. Empty for Keno.
fn missing_pockets(game: GameId, cases: &[Case]) -> Vec<u8> {
    if game == GameId::Keno {
        return Vec::new();
    }
    let mut seen = vec![false; game.outcomes_at_draw(0) as usize];
    for case in cases {
        seen[usize::from(drawn(case)[0])] = true;
    }
    let always = |pocket: u8| pocket == 0 || (game == GameId::RouletteAmerican && pocket == DOUBLE_ZERO);
    (0..seen.len() as u8).filter(|&pocket| always(pocket) || !seen[usize::from(pocket)]).collect()
}

/// Nonces of `pair`'s rounds that, with `cases`, put every Keno number at every draw
/// position: chosen greedily from nonces `0..COVERAGE_POOL`, each time the round that fills
/// the most empty (position, number) cells, the lowest nonce on a tie. Greedy set cover
/// is within a factor ln 10 + 1 of the fewest rounds; the challenge's Keno cases leave
/// about 60 of the 400 cells empty, which a handful of rounds fill.
///
/// # Panics
/// If the pool cannot fill every cell (a test checks that it does).
fn keno_coverage_nonces(cases: &[Case], pair: &SeedPair) -> Vec<u64> {
    let cell = |position: usize, number: u8| position * GRID + usize::from(number) - 1;
    let mut empty = vec![true; DRAWN * GRID];
    for case in cases {
        for (position, &number) in drawn(case).iter().enumerate() {
            empty[cell(position, number)] = false;
        }
    }
    let hasher = RoundHasher::new(&pair.server_seed, &pair.client_seed);
    let pool: Vec<Vec<usize>> = (0..COVERAGE_POOL)
        .map(|nonce| {
            let mut round = KenoRound::default();
            Keno.draw(&mut hasher.words(nonce), &mut round);
            round.order.iter().enumerate().map(|(position, &number)| cell(position, number)).collect()
        })
        .collect();
    greedy_cover(&mut empty, &pool)
}

/// Greedy set cover: the rounds (indices into `pool`, each the cells its round fills)
/// that fill every cell still `empty`, each time the round that fills the most, the
/// lowest on a tie. Greedy is within a factor ln(cells a round fills) + 1 of the fewest.
///
/// # Panics
/// If the pool cannot fill every cell (the challenges' tests check that it does).
fn greedy_cover(empty: &mut [bool], pool: &[Vec<usize>]) -> Vec<u64> {
    let mut chosen = Vec::new();
    while empty.iter().any(|&e| e) {
        let gain = |cells: &[usize]| cells.iter().filter(|&&cell| empty[cell]).count();
        let (best, filled) = pool
            .iter()
            .enumerate()
            .map(|(round, cells)| (round, gain(cells)))
            .fold((0, 0), |best, next| if next.1 > best.1 { next } else { best });
        assert!(filled > 0, "the coverage pool of {} rounds leaves a cell empty", pool.len());
        for &cell in &pool[best] {
            empty[cell] = false;
        }
        chosen.push(best as u64);
    }
    chosen
}

/// The challenge's cases for `games`, in a fixed order: per game (in the order given),
/// ordinary rounds, rejections, nonces, seed lengths, seed texts, then pockets (roulette)
/// or coverage rounds (Keno) until every outcome has appeared.
///
/// Built once per process (the Keno coverage search replays 50,000 rounds) and cloned.
pub fn challenge(games: &[GameId]) -> Vec<Case> {
    static BUILT: OnceLock<Vec<Vec<Case>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| GameId::ALL.iter().map(|&game| game_cases(game)).collect());
    games
        .iter()
        .flat_map(|game| {
            let index = GameId::ALL.iter().position(|g| g == game).expect("GameId::ALL lists every game");
            built[index].iter().cloned()
        })
        .collect()
}

/// One game's cases, in the order [`challenge`] lists them.
fn game_cases(game: GameId) -> Vec<Case> {
    let pairs = derive_seed_pairs(MASTER_SEED, DERIVED_PAIRS);
    let rejections = rejection_rounds();
    let mut cases = Vec::new();
    let prefix = label_prefix(game);
    let mut push = |kind, label: String, server: &str, client: &str, nonce| {
        cases.push(Case {
            label: format!("{prefix} {label}"),
            kind,
            game,
            server_seed: server.to_owned(),
            client_seed: client.to_owned(),
            nonce,
        });
    };

    for (i, &nonce) in ORDINARY_NONCES.iter().enumerate() {
        let pair = &pairs[i];
        push(
            Kind::Ordinary,
            format!("ordinary round {}", i + 1),
            &pair.server_seed,
            &pair.client_seed,
            nonce,
        );
    }

    for p in rejection_targets(game) {
        let round = rejections
            .iter()
            .find(|r| r.game == game && r.outcomes == p)
            .unwrap_or_else(|| panic!("{REJECTIONS_PATH} has no {game} round rejecting at P = {p}"));
        push(
            Kind::Rejection,
            format!("rejection at P = {p}"),
            &round.server_seed,
            &round.client_seed,
            round.nonce,
        );
    }
    for round in limit_word_rounds().iter().filter(|r| r.game == game) {
        push(
            Kind::Rejection,
            format!("rejection of the limit word itself (P = {})", round.outcomes),
            &round.server_seed,
            &round.client_seed,
            round.nonce,
        );
    }

    let boundary = &pairs[BOUNDARY_PAIR];
    push(Kind::Nonce, "nonce 0".to_owned(), &boundary.server_seed, &boundary.client_seed, 0);
    let mut power = 1u64;
    for digits in 1..=15 {
        power *= 10;
        // 64 + 1 + 64 + 1 = 130 bytes before the nonce: 5 digits make 135 bytes (one
        // block with its padding), 6 digits 136 (two blocks).
        let block = if digits == 5 { ", message 135 -> 136 bytes, SHA3 block" } else { "" };
        let boundary_name = format!("{} -> {power}{block}", power - 1);
        for nonce in [power - 1, power] {
            push(
                Kind::Nonce,
                format!("nonce {nonce} ({boundary_name})"),
                &boundary.server_seed,
                &boundary.client_seed,
                nonce,
            );
        }
    }
    push(
        Kind::Nonce,
        format!("nonce {} (2^53 - 1, the reference's largest)", crate::chain::REFERENCE_MAX_NONCE),
        &boundary.server_seed,
        &boundary.client_seed,
        crate::chain::REFERENCE_MAX_NONCE,
    );

    let partner = &pairs[PARTNER_PAIR];
    for (role, name) in [(Role::Server, "server"), (Role::Client, "client")] {
        for len in SEED_LENGTHS {
            let seed = seed_of_length(len);
            let (server, client) = role.seeds(&seed, partner);
            let unit = if len == 1 { "byte" } else { "bytes" };
            push(Kind::SeedLength, format!("{name} seed of {len} {unit}"), server, client, SEED_CASE_NONCE);
        }
    }

    for (role, description, seed) in seed_texts() {
        let (server, client) = role.seeds(&seed, partner);
        push(Kind::SeedText, description.to_owned(), server, client, SEED_CASE_NONCE);
    }

    let pocket_pair = &pairs[POCKET_PAIR];
    let hasher = RoundHasher::new(&pocket_pair.server_seed, &pocket_pair.client_seed);
    for pocket in missing_pockets(game, &cases) {
        let nonce = (0..).find(|&n| spin(game, &hasher, n).pocket == pocket).expect("every pocket comes up");
        cases.push(Case {
            label: format!("{prefix} pocket {}", pocket_name(game, pocket)),
            kind: Kind::Pocket,
            game,
            server_seed: pocket_pair.server_seed.clone(),
            client_seed: pocket_pair.client_seed.clone(),
            nonce,
        });
    }

    if game == GameId::Keno {
        let coverage = &pairs[COVERAGE_PAIR];
        for (i, nonce) in keno_coverage_nonces(&cases, coverage).into_iter().enumerate() {
            cases.push(Case {
                label: format!("{prefix} coverage round {}", i + 1),
                kind: Kind::Coverage,
                game,
                server_seed: coverage.server_seed.clone(),
                client_seed: coverage.client_seed.clone(),
                nonce,
            });
        }
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::WordSource;
    use std::collections::HashSet;

    // The shipped rejection rounds are what they claim: each rejects at its draw, and
    // they cover every P at which each game can reject.
    #[test]
    fn every_shipped_rejection_round_rejects_where_it_says() {
        let rounds = rejection_rounds();
        for round in &rounds {
            let hasher = RoundHasher::new(&round.server_seed, &round.client_seed);
            let rejected = rejections_per_draw(round.game, &hasher, round.nonce);
            assert_eq!(round.game.outcomes_at_draw(round.draw - 1), round.outcomes, "{round:?}");
            assert_eq!(rejected[round.draw - 1], round.rejected_words, "{round:?}");
            assert!(round.rejected_words > 0, "{round:?}");
        }
        for game in GameId::ALL {
            let covered: HashSet<u32> =
                rounds.iter().filter(|r| r.game == game).map(|r| r.outcomes).collect();
            assert_eq!(covered, rejection_targets(game).into_iter().collect(), "{game}");
        }
        assert_eq!(rejection_targets(GameId::Keno), [40, 39, 38, 37, 36, 35, 34, 33, 31]);
    }

    // Every outcome appears, so a sampler that relabels any two outcomes (a typo in a
    // lookup table) fails a case: every pocket of each wheel, every Keno number at every
    // draw position.
    #[test]
    fn every_outcome_appears_and_keno_numbers_at_every_position() {
        for game in GameId::ALL {
            let cases = challenge(&[game]);
            let rounds: Vec<Vec<u8>> = cases.iter().map(drawn).collect();
            if game == GameId::Keno {
                let cells: HashSet<(usize, u8)> =
                    rounds.iter().flat_map(|order| order.iter().copied().enumerate()).collect();
                assert_eq!(cells.len(), DRAWN * GRID);
                let coverage = cases.iter().filter(|c| c.kind == Kind::Coverage).count();
                // Greedy cover: about 60 cells are left by the other cases, and a round
                // fills at most 10 of them.
                assert!((6..=20).contains(&coverage), "{coverage} coverage rounds");
            } else {
                let pockets: HashSet<u8> = rounds.iter().map(|r| r[0]).collect();
                assert_eq!(pockets.len(), game.outcomes_at_draw(0) as usize, "{game}");
            }
        }
    }

    // Each limit-word round's draw meets exactly its limit, and each wheel has one.
    #[test]
    fn every_limit_word_round_meets_its_limit() {
        let rounds = limit_word_rounds();
        for round in &rounds {
            let hasher = RoundHasher::new(&round.server_seed, &round.client_seed);
            assert_eq!(round.game.outcomes_at_draw(round.draw - 1), round.outcomes, "{round:?}");
            // A wheel has one draw: its first word is the limit, rejected.
            assert_eq!(round.draw, 1, "{round:?}");
            let first = u64::from(hasher.words(round.nonce).next_word());
            assert_eq!(first, crate::sampler::limit(round.outcomes), "{round:?}");
            assert_eq!(rejections_per_draw(round.game, &hasher, round.nonce)[0], 1, "{round:?}");
        }
        let games: HashSet<GameId> = rounds.iter().map(|r| r.game).collect();
        assert_eq!(games, [GameId::RouletteEuropean, GameId::RouletteAmerican].into_iter().collect());
    }

    #[test]
    fn labels_are_unique_and_every_game_has_every_kind_it_can() {
        let cases = challenge(&GameId::ALL);
        let labels: HashSet<&str> = cases.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels.len(), cases.len());
        for game in GameId::ALL {
            let kinds: HashSet<Kind> = cases.iter().filter(|c| c.game == game).map(|c| c.kind).collect();
            let only = |k: Kind| match k {
                Kind::Pocket => game != GameId::Keno,
                Kind::Coverage => game == GameId::Keno,
                _ => true,
            };
            let expected = Kind::ALL.iter().filter(|&&k| only(k));
            assert_eq!(kinds, expected.copied().collect(), "{game}");
        }
    }

    #[test]
    fn cases_sit_on_the_edges_they_name() {
        let cases = challenge(&[GameId::RouletteAmerican]);
        let find = |label: &str| cases.iter().find(|c| c.label == label).unwrap_or_else(|| panic!("{label}"));
        let message_len =
            |c: &Case| c.server_seed.len() + c.client_seed.len() + 2 + c.nonce.to_string().len();
        let before = find("American nonce 99999 (99999 -> 100000, message 135 -> 136 bytes, SHA3 block)");
        let after = find("American nonce 100000 (99999 -> 100000, message 135 -> 136 bytes, SHA3 block)");
        assert_eq!((message_len(before), message_len(after)), (135, 136));
        assert_eq!(
            find("American nonce 9007199254740991 (2^53 - 1, the reference's largest)").nonce,
            (1 << 53) - 1
        );
        for len in SEED_LENGTHS {
            let unit = if len == 1 { "byte" } else { "bytes" };
            assert_eq!(find(&format!("American server seed of {len} {unit}")).server_seed.len(), len);
            assert_eq!(find(&format!("American client seed of {len} {unit}")).client_seed.len(), len);
        }
        let wide = find("American server seed of 136 UTF-8 bytes in 68 characters");
        assert_eq!((wide.server_seed.len(), wide.server_seed.chars().count()), (136, 68));
        let double_zero = find("American pocket 00");
        let hasher = RoundHasher::new(&double_zero.server_seed, &double_zero.client_seed);
        assert_eq!(spin(GameId::RouletteAmerican, &hasher, double_zero.nonce).pocket, DOUBLE_ZERO);
    }
}
