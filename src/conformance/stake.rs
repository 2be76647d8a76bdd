//! The conformance challenge of the HMAC-SHA256 family (`conformance --scheme stake`): the
//! rounds another implementation of Stake's scheme (an operator's or a copy's verifier)
//! must reproduce to be bit-exact, aimed at the places where implementations of it go
//! wrong.
//!
//! Per game, and per limbo formula (an implementation has one: each is its own group,
//! judged on its own): ordinary rounds; nonces at every digit-count boundary up to
//! 2^53 − 1, with a client seed of 47 bytes so that 99999 → 100000 is also where
//! `client_seed:nonce:0` grows from 55 to 56 bytes, past what one SHA-256 block holds with
//! its padding; server seeds (the HMAC key) of 0, 1, 32, 63, 64, 65, 128 and 300 bytes,
//! around HMAC's 64-byte block, past which a key is hashed first; client seeds making the
//! message 55, 56, 63, 64, 119 and 120 bytes; seeds with separators, quotes, spaces and
//! non-ASCII text (a key of 66 UTF-8 bytes in 33 characters among them); every parameter
//! (plinko's 8 to 16 rows, mines' 1 to 24), each labelled with the HMAC blocks its floats
//! come from, so the cursor's move into blocks 1 and 2 is exercised; for each limbo
//! formula, a round where it differs from both others, a multiplier below 1.01 and one of
//! 100x or more; a round that a float's fourth byte decides and one that 32-bit floats
//! get wrong (where there is one); every outcome where there are few (dice 0.00 and
//! 100.00, every pocket, every plinko bucket at every row count, every mine tile) and
//! every Keno number at every draw position. A sampler that swaps two outcomes, or any plausible broken sampler,
//! fails a case (`tests/conformance_stake_mutants.rs`).
//!
//! Everything is derived from fixed data (seed pairs from the master seed
//! [`MASTER_SEED`], fixed nonces and seed texts, searches from nonce 0 up), so a fairaudit
//! version always writes the same challenge. The implementation under test fills `result`
//! (and `commitment`, checked when filled), and `verify --rounds` judges it case by case.

use super::{hex_seed, seed_texts, ChallengeCase, Role};
use crate::chain::seeds::{derive_seed_pairs, SeedPair as DerivedPair};
use crate::scheme::stake::{FloatWords, LimboFormula, Risk, SeedPair, StakeGame, StakeOutcome, UnitFloat};
use std::sync::OnceLock;

/// The master seed from which the challenge's 64-character seed pairs are derived.
pub const MASTER_SEED: &str = "fairaudit-conformance/stake";

/// The challenge's columns: those of a scheme rounds file (`verify --rounds`), then the
/// case label. `commitment` and `result` are left empty for the implementation to fill.
pub const COLUMNS: [&str; 9] =
    ["scheme", "game", "server_seed", "client_seed", "nonce", "params", "commitment", "result", "case"];

/// The groups a challenge is made of and judged by: each game, and each limbo formula
/// apart (an implementation has one of them).
pub const GROUPS: [&str; 8] =
    ["dice", "limbo-stake_page", "limbo-verifierform", "limbo-fair", "keno", "roulette", "plinko", "mines"];

/// The group of a game: its name, or `limbo-FORMULA`.
pub const fn group_of(game: &StakeGame) -> &'static str {
    match game {
        StakeGame::Limbo(LimboFormula::StakePage) => GROUPS[1],
        StakeGame::Limbo(LimboFormula::Verifierform) => GROUPS[2],
        StakeGame::Limbo(LimboFormula::Fair) => GROUPS[3],
        other => other.name(),
    }
}

/// The groups `--game NAME` selects: `limbo` is its three formulas.
pub fn groups_of_game(name: &str) -> Vec<&'static str> {
    GROUPS
        .into_iter()
        .filter(|group| *group == name || group.strip_prefix("limbo-").is_some() && name == "limbo")
        .collect()
}

/// What a case is aimed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// 64-character hex seeds, an unremarkable nonce, the game's usual parameters.
    Ordinary,
    /// One of the game's parameter settings (plinko's rows, mines' count): the HMAC blocks
    /// its floats come from.
    Params,
    /// A nonce at a digit-count boundary, at SHA-256's padding edge, or at 2^53 − 1.
    Nonce,
    /// A server seed (the HMAC key) whose length sits around HMAC's 64-byte block.
    KeyLength,
    /// A client seed that puts `client_seed:nonce:0` at a SHA-256 block edge.
    MessageLength,
    /// A seed whose text trips up CSV readers, string handling or UTF-8 encoding.
    SeedText,
    /// A limbo round where this formula differs from both others, or at an edge of it.
    Variant,
    /// A round whose outcome a float's fourth byte decides (an implementation that reads
    /// three bytes a float gets it wrong), or one that rounding the floats to 32-bit
    /// floats changes (`Math.fround`, `Float32Array`, `f32`).
    Precision,
    /// A round whose outcome no earlier case gives, so that every outcome appears.
    Outcome,
    /// Keno rounds chosen so that every number appears at every draw position.
    Coverage,
}

impl Kind {
    /// Every kind, in the order the challenge lists them within a group.
    pub const ALL: [Kind; 10] = [
        Kind::Ordinary,
        Kind::Params,
        Kind::Nonce,
        Kind::KeyLength,
        Kind::MessageLength,
        Kind::SeedText,
        Kind::Variant,
        Kind::Precision,
        Kind::Outcome,
        Kind::Coverage,
    ];

    /// The kind's name in listings.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Ordinary => "ordinary",
            Kind::Params => "params",
            Kind::Nonce => "nonce",
            Kind::KeyLength => "key-length",
            Kind::MessageLength => "message",
            Kind::SeedText => "seed-text",
            Kind::Variant => "variant",
            Kind::Precision => "precision",
            Kind::Outcome => "outcome",
            Kind::Coverage => "coverage",
        }
    }
}

/// One round of the challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StakeCase {
    /// What it covers, unique within the challenge ("keno nonce 9 (9 -> 10)").
    pub label: String,
    /// What kind of edge it is aimed at.
    pub kind: Kind,
    /// The game with its parameters.
    pub game: StakeGame,
    /// The server seed (the HMAC key).
    pub server_seed: String,
    /// The client seed.
    pub client_seed: String,
    /// The nonce (at most 2^53 − 1, so that it fits a JavaScript number).
    pub nonce: u64,
}

impl StakeCase {
    /// The case's round replayed.
    pub fn outcome(&self) -> StakeOutcome {
        let pair = SeedPair::new(&self.server_seed, &self.client_seed);
        self.game.play(&mut pair.floats(self.nonce))
    }
}

impl ChallengeCase for StakeCase {
    type Inputs = (StakeGame, String, String, u64);

    fn label(&self) -> &str {
        &self.label
    }

    fn group(&self) -> &'static str {
        group_of(&self.game)
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

/// Nonces of the ordinary rounds: one to sixteen digits, none at a boundary.
const ORDINARY_NONCES: [u64; 6] = [1, 42, 31_337, 3_141_592, 1_234_567_890, 4_503_599_627_370_496];
/// Seed pairs derived from [`MASTER_SEED`]: one per ordinary round, then these.
const PARAMS_PAIR: usize = ORDINARY_NONCES.len();
const BOUNDARY_PAIR: usize = PARAMS_PAIR + 1;
const PARTNER_PAIR: usize = PARAMS_PAIR + 2;
const OUTCOME_PAIR: usize = PARAMS_PAIR + 3;
const COVERAGE_PAIR: usize = PARAMS_PAIR + 4;
const DERIVED_PAIRS: usize = PARAMS_PAIR + 5;
/// The nonce of the seed and message cases.
const SEED_CASE_NONCE: u64 = 7;
/// Server seed (HMAC key) lengths in bytes: around HMAC-SHA256's 64-byte block.
pub const KEY_LENGTHS: [usize; 8] = [0, 1, 32, 63, 64, 65, 128, 300];
/// Lengths of `client_seed:7:0` in bytes: 55 is the most one SHA-256 block holds with its
/// padding, 64 a whole block; then the same a block later.
pub const MESSAGE_LENGTHS: [usize; 6] = [55, 56, 63, 64, 119, 120];
/// The client seed of the nonce cases: 47 bytes, so that `client_seed:nonce:0` is 55
/// bytes at nonce 99999 and 56 at 100000.
const BOUNDARY_CLIENT_LENGTH: usize = 47;
/// Where the search for roulette's single-precision round starts: no nonce below it of
/// the outcome pair is one (a search from 0 found the first at 6,136,507, past
/// [`SEARCH_LIMIT`]; starting here spares every process six million rounds).
const ROULETTE_SINGLE_PRECISION_FROM: u64 = 6_136_000;
/// Where the search for plinko's single-precision round starts: no nonce below it of the
/// outcome pair is one (a search from 0 found the first at 3,650,318; starting here spares
/// every process three and a half million rounds of 16 floats).
const PLINKO_SINGLE_PRECISION_FROM: u64 = 3_650_000;
/// The Keno coverage rounds are chosen among nonces `0..COVERAGE_POOL` of their pair.
const COVERAGE_POOL: u64 = 50_000;
/// Searches for an outcome look at nonces `0..SEARCH_LIMIT` (plinko's extreme buckets at
/// 16 rows come up once in 65,536 rounds).
const SEARCH_LIMIT: u64 = 1 << 22;

/// The seed pairs of the cases derived from [`MASTER_SEED`] (ordinary, parameter, nonce,
/// limbo, precision, outcome and coverage rounds): seeds no one else plays, so a plain
/// rounds file holding one is refused. Computed without the challenge's searches.
pub fn derived_seed_pairs() -> std::collections::HashSet<(String, String)> {
    let pairs = derive_seed_pairs(MASTER_SEED, DERIVED_PAIRS);
    let boundary = (pairs[BOUNDARY_PAIR].server_seed.clone(), boundary_client());
    pairs
        .into_iter()
        .enumerate()
        .filter(|(i, _)| *i != PARTNER_PAIR && *i != BOUNDARY_PAIR)
        .map(|(_, pair)| (pair.server_seed, pair.client_seed))
        .chain(std::iter::once(boundary))
        .collect()
}

/// The client seed of the nonce cases.
fn boundary_client() -> String {
    hex_seed(&format!("{MASTER_SEED}/boundary-client"), BOUNDARY_CLIENT_LENGTH)
}

/// The game a group is played as in its ordinary and edge cases.
fn usual_game(group: &str) -> StakeGame {
    match group {
        "dice" => StakeGame::Dice,
        "keno" => StakeGame::Keno,
        "roulette" => StakeGame::Roulette,
        "plinko" => StakeGame::Plinko { rows: 16, risk: Risk::High },
        "mines" => StakeGame::Mines { mines: 3 },
        limbo => StakeGame::Limbo(
            LimboFormula::ALL
                .into_iter()
                .find(|formula| limbo.strip_prefix("limbo-") == Some(formula.name()))
                .unwrap_or_else(|| panic!("'{limbo}' is no group of the challenge")),
        ),
    }
}

/// Every parameter setting of a group with parameters: plinko's rows (its risk levels in
/// turn: they change the payout, not the bucket) and mines' counts.
fn other_settings(group: &str) -> Vec<StakeGame> {
    let risks = [Risk::Low, Risk::Medium, Risk::High, Risk::Expert];
    match group {
        "plinko" => {
            (8..=16).map(|rows| StakeGame::Plinko { rows, risk: risks[usize::from(rows % 4)] }).collect()
        }
        "mines" => {
            (1..=crate::scheme::stake::games::MOST_MINES).map(|mines| StakeGame::Mines { mines }).collect()
        }
        _ => Vec::new(),
    }
}

/// The game of a group's precision case, where a float's fourth byte can decide an
/// outcome: not plinko's `floor(float * 2)` nor the verifierform limbo's
/// `floor(float * 2^24)`, which read the first three bytes only. Mines with 24 mines,
/// whose 24 floats make such a round likelier.
fn precision_game(group: &str) -> Option<StakeGame> {
    match usual_game(group) {
        StakeGame::Plinko { .. } | StakeGame::Limbo(LimboFormula::Verifierform) => None,
        StakeGame::Mines { .. } => Some(StakeGame::Mines { mines: crate::scheme::stake::games::MOST_MINES }),
        game => Some(game),
    }
}

/// The game of a group's single-precision case: a round that rounding each float to the
/// nearest 32-bit float changes. In plinko only a float within 2^-25 below 1/2 changes
/// (it rounds to 1/2 and turns right), about one round in four million at 16 rows.
fn single_precision_game(group: &str) -> StakeGame {
    match usual_game(group) {
        StakeGame::Mines { .. } => StakeGame::Mines { mines: crate::scheme::stake::games::MOST_MINES },
        game => game,
    }
}

/// A float rounded to the nearest 32-bit float (`Math.fround`, `as f32`), as a numerator
/// of 2^32 again (24 significant bits always are one); `None` where it rounds up to 1.
fn rounded_to_f32(float: UnitFloat) -> Option<UnitFloat> {
    let numerator = f64::from(float.value() as f32) * 4_294_967_296.0;
    (numerator < 4_294_967_296.0).then_some(UnitFloat(numerator as u32))
}

/// Floats a round of `game` takes.
fn floats_taken(game: &StakeGame) -> usize {
    match *game {
        StakeGame::Keno => 10,
        StakeGame::Plinko { rows, .. } => usize::from(rows),
        StakeGame::Mines { mines } => usize::from(mines),
        _ => 1,
    }
}

/// Which HMAC blocks `floats` floats come from (eight floats a block).
fn blocks(floats: usize) -> String {
    match floats.div_ceil(8) {
        1 => "HMAC block 0".to_owned(),
        2 => "HMAC blocks 0 and 1".to_owned(),
        n => format!("HMAC blocks 0 to {}", n - 1),
    }
}

/// The challenge's cases for `groups` ([`GROUPS`]), in a fixed order: per group (in the
/// order given), ordinary rounds, parameters, nonces, key lengths, message lengths, seed
/// texts, limbo's variant cases, then outcomes until every one has appeared and Keno's
/// coverage rounds.
///
/// Built once per process (the searches replay tens of thousands of rounds) and cloned.
///
/// # Panics
/// If a group is none of [`GROUPS`].
pub fn challenge(groups: &[&str]) -> Vec<StakeCase> {
    static BUILT: OnceLock<Vec<Vec<StakeCase>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| GROUPS.iter().map(|group| group_cases(group)).collect());
    groups
        .iter()
        .flat_map(|group| {
            let index =
                GROUPS.iter().position(|g| g == group).unwrap_or_else(|| panic!("'{group}' is no group"));
            built[index].iter().cloned()
        })
        .collect()
}

/// One group's cases, in the order [`challenge`] lists them: one helper per kind of case,
/// each on the seed pair reserved for it.
fn group_cases(group: &'static str) -> Vec<StakeCase> {
    let pairs = derive_seed_pairs(MASTER_SEED, DERIVED_PAIRS);
    let usual = usual_game(group);
    let mut cases = ordinary_cases(group, usual, &pairs);
    cases.extend(parameter_cases(group, &pairs[PARAMS_PAIR]));
    cases.extend(nonce_cases(group, usual, &pairs[BOUNDARY_PAIR]));
    cases.extend(seed_length_cases(group, usual, &pairs[PARTNER_PAIR]));
    cases.extend(seed_text_cases(group, usual, &pairs[PARTNER_PAIR]));
    // The searches skip outcomes the cases above already give, and Keno's coverage
    // rounds fill only what every case before them leaves uncovered: both read `cases`.
    let searched = searched_cases(group, usual, &pairs[OUTCOME_PAIR], &cases);
    cases.extend(searched);
    if usual == StakeGame::Keno {
        let coverage = keno_coverage_cases(group, &pairs[COVERAGE_PAIR], &cases);
        cases.extend(coverage);
    }
    cases
}

/// A case of `group`, its label prefixed with the group's name so that labels stay
/// unique across the whole challenge.
fn group_case(
    group: &str,
    kind: Kind,
    label: String,
    game: StakeGame,
    server: &str,
    client: &str,
    nonce: u64,
) -> StakeCase {
    StakeCase {
        label: format!("{group} {label}"),
        kind,
        game,
        server_seed: server.to_owned(),
        client_seed: client.to_owned(),
        nonce,
    }
}

/// Ordinary rounds of the group's usual game, one derived seed pair each: what any
/// implementation must get right before its edges matter.
fn ordinary_cases(group: &str, usual: StakeGame, pairs: &[DerivedPair]) -> Vec<StakeCase> {
    let taken = blocks(floats_taken(&usual));
    ORDINARY_NONCES
        .iter()
        .zip(pairs)
        .enumerate()
        .map(|(i, (&nonce, pair))| {
            let label = format!("ordinary round {} ({taken})", i + 1);
            group_case(group, Kind::Ordinary, label, usual, &pair.server_seed, &pair.client_seed, nonce)
        })
        .collect()
}

/// One round of every other parameter setting (plinko's rows and risks, mines' counts),
/// labelled with the HMAC blocks its floats come from: many rows or mines move the
/// float cursor into blocks 1 and 2.
fn parameter_cases(group: &str, pair: &DerivedPair) -> Vec<StakeCase> {
    other_settings(group)
        .into_iter()
        .enumerate()
        .map(|(i, game)| {
            let label = format!("{} ({})", game.params(), blocks(floats_taken(&game)));
            group_case(group, Kind::Params, label, game, &pair.server_seed, &pair.client_seed, i as u64)
        })
        .collect()
}

/// Nonces on both sides of every digit-count boundary up to 2^53 − 1, where a nonce
/// written as text grows by a byte (and, at 99999 -> 100000, the message outgrows one
/// SHA-256 block).
fn nonce_cases(group: &str, usual: StakeGame, pair: &DerivedPair) -> Vec<StakeCase> {
    let client = boundary_client();
    let case = |label: String, nonce| {
        group_case(group, Kind::Nonce, label, usual, &pair.server_seed, &client, nonce)
    };
    let mut cases = vec![case("nonce 0".to_owned(), 0)];
    let mut power = 1u64;
    for digits in 1..=15 {
        power *= 10;
        // 47 + 1 + 5 + 1 + 1 = 55 bytes at five digits: one SHA-256 block with its
        // padding; 56 bytes at six need a second block.
        let edge = if digits == 5 { ", message 55 -> 56 bytes, SHA-256 padding" } else { "" };
        for nonce in [power - 1, power] {
            cases.push(case(format!("nonce {nonce} ({} -> {power}{edge})", power - 1), nonce));
        }
    }
    let largest = crate::chain::REFERENCE_MAX_NONCE;
    cases.push(case(format!("nonce {largest} (2^53 - 1, JavaScript's largest exact integer)"), largest));
    cases
}

/// Server seeds (the HMAC key) around HMAC's 64-byte block, then client seeds making the
/// message fill one SHA-256 block and spill into the next: the lengths at which a
/// hand-written HMAC or SHA-256 goes wrong.
fn seed_length_cases(group: &str, usual: StakeGame, partner: &DerivedPair) -> Vec<StakeCase> {
    let mut cases = Vec::new();
    for len in KEY_LENGTHS {
        let key = hex_seed(&format!("{MASTER_SEED}/key-length"), len);
        let unit = if len == 1 { "byte" } else { "bytes" };
        let note = match len {
            0..=63 => " (HMAC pads it to 64)",
            64 => " (HMAC's block, used as it is)",
            _ => " (over HMAC's block: hashed first)",
        };
        let label = format!("server seed of {len} {unit}{note}");
        cases.push(group_case(
            group,
            Kind::KeyLength,
            label,
            usual,
            &key,
            &partner.client_seed,
            SEED_CASE_NONCE,
        ));
    }
    for len in MESSAGE_LENGTHS {
        // `client_seed:7:0`: three bytes of separators and digits besides the nonce's one.
        let client = hex_seed(&format!("{MASTER_SEED}/message-length"), len - 4);
        let label = format!("client seed of {} bytes (message of {len} bytes)", len - 4);
        let server = &partner.server_seed;
        cases.push(group_case(group, Kind::MessageLength, label, usual, server, &client, SEED_CASE_NONCE));
    }
    cases
}

/// Seeds with separators, quotes, spaces and non-ASCII text, plus a key of 66 UTF-8 bytes
/// in 33 characters and an empty client seed: where an implementation that handles
/// characters instead of bytes, or trims or escapes a seed, goes wrong.
fn seed_text_cases(group: &str, usual: StakeGame, partner: &DerivedPair) -> Vec<StakeCase> {
    let mut texts = seed_texts();
    texts.push((
        Role::Server,
        "server seed of 66 UTF-8 bytes in 33 characters (an HMAC key over 64 bytes)",
        "é".repeat(33),
    ));
    texts.push((Role::Client, "empty client seed", String::new()));
    texts
        .into_iter()
        .map(|(role, description, seed)| {
            let (server, client) = role.seeds(&seed, partner);
            group_case(group, Kind::SeedText, description.to_owned(), usual, server, client, SEED_CASE_NONCE)
        })
        .collect()
}

/// Rounds searched for on one seed pair, from nonce 0 up: limbo's variant cases, a round
/// a float's fourth byte decides, one that 32-bit floats get wrong, then every outcome
/// (of a game with few) that `earlier` cases do not give yet. A round found for one case
/// is not taken again (an answer without labels is matched to cases by inputs).
fn searched_cases(
    group: &str,
    usual: StakeGame,
    seeds: &DerivedPair,
    earlier: &[StakeCase],
) -> Vec<StakeCase> {
    let outcome_pair = SeedPair::new(&seeds.server_seed, &seeds.client_seed);
    let mut found: Vec<(Kind, String, StakeGame, u64)> = Vec::new();
    let mut first_from = |start: u64, kind, label: String, game: StakeGame, wanted: &dyn Fn(u64) -> bool| {
        let nonce = (start..start + SEARCH_LIMIT)
            .find(|&nonce| !found.iter().any(|f| f.2 == game && f.3 == nonce) && wanted(nonce))
            .unwrap_or_else(|| panic!("no round of {game} in {SEARCH_LIMIT} is {label}"));
        found.push((kind, label, game, nonce));
    };
    let play = |game: &StakeGame, nonce: u64| game.play(&mut outcome_pair.floats(nonce));
    if let StakeGame::Limbo(formula) = usual {
        let multiplier = |formula: LimboFormula, nonce: u64| play(&StakeGame::Limbo(formula), nonce);
        let others = || LimboFormula::ALL.into_iter().filter(move |&other| other != formula);
        let differs = |nonce| others().all(|other| multiplier(other, nonce) != multiplier(formula, nonce));
        first_from(
            0,
            Kind::Variant,
            "a round where the other two formulas differ from it".into(),
            usual,
            &differs,
        );
        let below = |nonce| matches!(play(&usual, nonce), StakeOutcome::Multiplier(Some(m)) if m < 101);
        first_from(0, Kind::Variant, "a multiplier below 1.01".into(), usual, &below);
        let high = |nonce| matches!(play(&usual, nonce), StakeOutcome::Multiplier(Some(m)) if m >= 10_000);
        first_from(0, Kind::Variant, "a multiplier of 100x or more".into(), usual, &high);
    }
    if let Some(game) = precision_game(group) {
        let three_bytes = |nonce| {
            let mut floats = outcome_pair.floats(nonce).map(|float| UnitFloat(float.0 & !0xff));
            game.play(&mut FloatWords(&mut floats)) != play(&game, nonce)
        };
        first_from(0, Kind::Precision, "a round decided by a float's fourth byte".into(), game, &three_bytes);
    }
    let game = single_precision_game(group);
    let single = |nonce| {
        let floats: Option<Vec<UnitFloat>> =
            outcome_pair.floats(nonce).take(floats_taken(&game)).map(rounded_to_f32).collect();
        floats.is_some_and(|floats| game.play(&mut FloatWords(floats.into_iter())) != play(&game, nonce))
    };
    let start = match game {
        StakeGame::Roulette => ROULETTE_SINGLE_PRECISION_FROM,
        StakeGame::Plinko { .. } => PLINKO_SINGLE_PRECISION_FROM,
        _ => 0,
    };
    first_from(start, Kind::Precision, "a round that 32-bit floats get wrong".into(), game, &single);
    for game in std::iter::once(usual).chain(other_settings(group)) {
        for (label, outcome) in missing_outcomes(&game, earlier) {
            first_from(0, Kind::Outcome, label, game, &|nonce| play(&game, nonce) == outcome);
        }
    }
    found
        .into_iter()
        .map(|(kind, label, game, nonce)| {
            group_case(group, kind, label, game, &seeds.server_seed, &seeds.client_seed, nonce)
        })
        .collect()
}

/// Keno's coverage rounds, on their own seed pair: with `earlier` cases, they put every
/// number at every draw position, so a sampler that swaps two numbers fails a case.
fn keno_coverage_cases(group: &str, pair: &DerivedPair, earlier: &[StakeCase]) -> Vec<StakeCase> {
    keno_coverage_nonces(earlier, pair)
        .into_iter()
        .enumerate()
        .map(|(i, nonce)| {
            let label = format!("coverage round {}", i + 1);
            group_case(
                group,
                Kind::Coverage,
                label,
                StakeGame::Keno,
                &pair.server_seed,
                &pair.client_seed,
                nonce,
            )
        })
        .collect()
}

/// The outcomes of `game` (with exactly these parameters) that none of `cases` gives,
/// where a game has few: dice's 0.00 and 100.00 (always), every pocket, every plinko
/// bucket; every mine tile, among all mines cases, for mines 1. Each with its case label.
fn missing_outcomes(game: &StakeGame, cases: &[StakeCase]) -> Vec<(String, StakeOutcome)> {
    let outcomes: Vec<StakeOutcome> =
        cases.iter().filter(|case| case.game == *game).map(StakeCase::outcome).collect();
    let seen = |outcome: &StakeOutcome| outcomes.contains(outcome);
    match *game {
        StakeGame::Dice => [0, 10_000]
            .into_iter()
            .map(|roll| {
                (format!("roll {}", game.result_text(&StakeOutcome::Roll(roll))), StakeOutcome::Roll(roll))
            })
            .collect(),
        StakeGame::Roulette => (0..=36)
            .map(StakeOutcome::Pocket)
            .filter(|pocket| !seen(pocket))
            .map(|pocket| (format!("pocket {}", game.result_text(&pocket)), pocket))
            .collect(),
        StakeGame::Plinko { rows, .. } => (0..=rows)
            .map(StakeOutcome::Bucket)
            .filter(|bucket| !seen(bucket))
            .map(|bucket| (format!("{} bucket {}", game.params(), game.result_text(&bucket)), bucket))
            .collect(),
        StakeGame::Mines { mines: 1 } => {
            let drawn: Vec<u8> = cases
                .iter()
                .filter(|case| matches!(case.game, StakeGame::Mines { .. }))
                .flat_map(|case| match case.outcome() {
                    StakeOutcome::Drawn(tiles) => tiles,
                    _ => Vec::new(),
                })
                .collect();
            (0..25u8)
                .filter(|tile| !drawn.contains(tile))
                .map(|tile| (format!("{} tile {tile}", game.params()), StakeOutcome::Drawn(vec![tile])))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// Nonces of `pair`'s rounds that, with `cases`, put every Keno number at every draw
/// position: greedily chosen from nonces `0..COVERAGE_POOL`, each time the round that
/// fills the most empty (position, number) cells, the lowest nonce on a tie.
///
/// # Panics
/// If the pool cannot fill every cell (a test checks that it does).
fn keno_coverage_nonces(cases: &[StakeCase], pair: &DerivedPair) -> Vec<u64> {
    const CELLS: usize = 10 * 40;
    let cell = |position: usize, number: u8| position * 40 + usize::from(number) - 1;
    let drawn = |outcome: StakeOutcome| match outcome {
        StakeOutcome::Drawn(numbers) => numbers,
        other => panic!("Keno draws numbers, not {other:?}"),
    };
    let mut empty = vec![true; CELLS];
    for case in cases.iter().filter(|case| case.game == StakeGame::Keno) {
        for (position, number) in drawn(case.outcome()).into_iter().enumerate() {
            empty[cell(position, number)] = false;
        }
    }
    let seeds = SeedPair::new(&pair.server_seed, &pair.client_seed);
    let pool: Vec<Vec<usize>> = (0..COVERAGE_POOL)
        .map(|nonce| {
            let order = drawn(StakeGame::Keno.play(&mut seeds.floats(nonce)));
            order.into_iter().enumerate().map(|(position, number)| cell(position, number)).collect()
        })
        .collect();
    super::greedy_cover(&mut empty, &pool)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn labels_are_unique_and_groups_have_their_kinds() {
        let cases = challenge(&GROUPS);
        let labels: HashSet<&str> = cases.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels.len(), cases.len());
        // No two cases are one round: an answer without labels is matched by inputs.
        let inputs: HashSet<_> = cases.iter().map(ChallengeCase::inputs).collect();
        assert_eq!(inputs.len(), cases.len());
        for group in GROUPS {
            let kinds: HashSet<Kind> = cases.iter().filter(|c| c.group() == group).map(|c| c.kind).collect();
            for kind in [Kind::Ordinary, Kind::Nonce, Kind::KeyLength, Kind::MessageLength, Kind::SeedText] {
                assert!(kinds.contains(&kind), "{group} {kind:?}");
            }
            assert_eq!(kinds.contains(&Kind::Params), matches!(group, "plinko" | "mines"), "{group}");
            assert_eq!(kinds.contains(&Kind::Variant), group.starts_with("limbo-"), "{group}");
            assert_eq!(kinds.contains(&Kind::Coverage), group == "keno", "{group}");
            let precision = cases.iter().filter(|c| c.group() == group && c.kind == Kind::Precision).count();
            // Plinko and the verifier's limbo have no round a fourth byte decides.
            let expected = match group {
                "plinko" | "limbo-verifierform" => 1,
                _ => 2,
            };
            assert_eq!(precision, expected, "{group}");
        }
        let kinds: HashSet<Kind> = cases.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, Kind::ALL.into_iter().collect());
        assert_eq!(groups_of_game("limbo"), ["limbo-stake_page", "limbo-verifierform", "limbo-fair"]);
        assert_eq!(groups_of_game("mines"), ["mines"]);
        assert!(groups_of_game("craps").is_empty());
    }

    // Every outcome where there are few appears, so a sampler that relabels two of them
    // fails a case; every Keno number at every position.
    #[test]
    fn every_outcome_appears() {
        let cases = challenge(&GROUPS);
        let outcomes = |game: &StakeGame| -> HashSet<StakeOutcome> {
            cases.iter().filter(|c| c.game == *game).map(StakeCase::outcome).collect()
        };
        assert!(outcomes(&StakeGame::Dice)
            .is_superset(&[StakeOutcome::Roll(0), StakeOutcome::Roll(10_000)].into()));
        assert_eq!(outcomes(&StakeGame::Roulette).len(), 37);
        for rows in 8..=16 {
            let buckets: HashSet<StakeOutcome> = cases
                .iter()
                .filter(|c| matches!(c.game, StakeGame::Plinko { rows: r, .. } if r == rows))
                .map(StakeCase::outcome)
                .collect();
            assert_eq!(buckets.len(), usize::from(rows) + 1, "{rows} rows");
        }
        let tiles: HashSet<u8> = cases
            .iter()
            .filter(|c| c.group() == "mines")
            .flat_map(|c| match c.outcome() {
                StakeOutcome::Drawn(tiles) => tiles,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(tiles.len(), 25);
        let cells: HashSet<(usize, u8)> = cases
            .iter()
            .filter(|c| c.game == StakeGame::Keno)
            .flat_map(|c| match c.outcome() {
                StakeOutcome::Drawn(numbers) => numbers.into_iter().enumerate().collect::<Vec<_>>(),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(cells.len(), 400);
    }

    #[test]
    fn cases_sit_on_the_edges_they_name() {
        let cases = challenge(&["dice", "limbo-fair"]);
        let find = |label: &str| cases.iter().find(|c| c.label == label).unwrap_or_else(|| panic!("{label}"));
        let message = |c: &StakeCase| c.client_seed.len() + 1 + c.nonce.to_string().len() + 2;
        let before = find("dice nonce 99999 (99999 -> 100000, message 55 -> 56 bytes, SHA-256 padding)");
        let after = find("dice nonce 100000 (99999 -> 100000, message 55 -> 56 bytes, SHA-256 padding)");
        assert_eq!((message(before), message(after)), (55, 56));
        for len in MESSAGE_LENGTHS {
            assert_eq!(
                message(find(&format!("dice client seed of {} bytes (message of {len} bytes)", len - 4))),
                len
            );
        }
        assert_eq!(
            find("dice server seed of 65 bytes (over HMAC's block: hashed first)").server_seed.len(),
            65
        );
        let wide = find("dice server seed of 66 UTF-8 bytes in 33 characters (an HMAC key over 64 bytes)");
        assert_eq!((wide.server_seed.len(), wide.server_seed.chars().count()), (66, 33));
        // The variant case: fair's multiplier differs from both other formulas'.
        let variant = find("limbo-fair a round where the other two formulas differ from it");
        let results: HashSet<StakeOutcome> = LimboFormula::ALL
            .into_iter()
            .map(|formula| StakeCase { game: StakeGame::Limbo(formula), ..variant.clone() }.outcome())
            .collect();
        assert!(
            results.len() >= 2
                && !LimboFormula::ALL.into_iter().filter(|&f| f != LimboFormula::Fair).any(|f| StakeCase {
                    game: StakeGame::Limbo(f),
                    ..variant.clone()
                }
                .outcome()
                    == variant.outcome())
        );
        assert!(
            matches!(find("limbo-fair a multiplier below 1.01").outcome(), StakeOutcome::Multiplier(Some(m)) if m < 101)
        );
        // Mines 9 takes its ninth float from block 1; 24 mines reach block 2.
        assert_eq!(blocks(9), "HMAC blocks 0 and 1");
        assert_eq!(blocks(24), "HMAC blocks 0 to 2");
        assert_eq!(blocks(16), "HMAC blocks 0 and 1");
    }

    // The pairs a plain file may not hold are exactly those of the derived cases.
    #[test]
    fn derived_pairs_are_the_derived_cases_pairs() {
        let from_cases: std::collections::HashSet<(String, String)> = challenge(&GROUPS)
            .into_iter()
            .filter(|case| !matches!(case.kind, Kind::KeyLength | Kind::MessageLength | Kind::SeedText))
            .map(|case| (case.server_seed, case.client_seed))
            .collect();
        assert_eq!(derived_seed_pairs(), from_cases);
    }

    #[test]
    fn the_challenge_is_the_same_every_time() {
        let once: Vec<StakeCase> = GROUPS.iter().flat_map(|group| group_cases(group)).collect();
        assert_eq!(once, challenge(&GROUPS));
    }
}
