//! The tally file (`tally.json`): everything a sweep counted, in a documented, versioned
//! format that `merge` and `--resume` read back.
//!
//! ```text
//! { "format": "fairaudit-tally", "version": 1,
//!   "plan": { "games": [...], "nonces": [{"start": A, "end": B}, ...],
//!             "seed_source": {...}, "seed_pairs": [{"server_seed", "client_seed", "commitment"}] },
//!   "complete": true,
//!   "entries": [ { "game": "keno", "seed_pair": 0,
//!                  "segments": [ { "start": A, "end": B, "tally": { ...counters... } } ] } ] }
//! ```
//!
//! Counter tables are flat arrays of integers whose layout is documented on the tally
//! types ([`crate::tally::KenoTally`], [`crate::tally::RouletteTally`]). Segments keep the
//! edge state (first/last outcome, open runs) that joining needs.

use crate::chain::seeds::SeedPair;
use crate::chain::RoundHasher;
use crate::games::GameId;
use crate::games::{Keno, Roulette};
use crate::tally::anchor;
pub use crate::tally::nonces::NonceRange;
use crate::tally::shards::{PartialOf, ShardOf, Sharding};
use crate::tally::{Closed, KenoTally, RouletteTally, Segments, SequenceTally, TallyError};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// The `format` field's value.
pub const FORMAT: &str = "fairaudit-tally";
/// The tally file's name in an output folder.
pub const TALLY_FILE: &str = "tally.json";
/// The version this build writes and reads. Version 2 added the lagged serial counters
/// (pairs and overlaps at lags 2..=10) and the ten-round edges they need; version 1 files
/// lack them and cannot be upgraded, only regenerated. Version 3 added the `checksum`.
pub const VERSION: u32 = 3;

/// The last field of a tally file: the SHA3-256 (lowercase hex) of the file's compact
/// JSON without it, as [`TallyFile::to_bytes`] writes it. The reader serialises what it
/// parsed again and compares, so any changed value (a flipped digit, a truncated table
/// padded back) is refused, while the JSON's spacing may change. It detects corruption,
/// not forgery: anyone can compute it (see docs/guarantees.md).
pub const CHECKSUM_FIELD: &str = "checksum";

/// SHA3-256 of `bytes`, lowercase hex.
fn checksum_of(bytes: &[u8]) -> String {
    use sha3::{Digest, Sha3_256};
    String::from_utf8(crate::chain::hex_lower(&Sha3_256::digest(bytes).into()).to_vec())
        .expect("hex is ASCII")
}

/// Where the seed pairs came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum SeedSource {
    /// The documented default pair.
    Default,
    /// Given on the command line.
    Given,
    /// Derived from a master seed.
    Derived {
        /// The master seed.
        master_seed: String,
    },
}

/// What was (or is to be) swept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// The games, in report order.
    pub games: Vec<GameId>,
    /// Disjoint nonce ranges, ascending (one for a sweep; a merge may hold several).
    pub nonces: Vec<NonceRange>,
    /// Where the seed pairs came from.
    pub seed_source: SeedSource,
    /// The seed pairs, by index.
    pub seed_pairs: Vec<SeedPair>,
}

impl Plan {
    /// Rounds per game and seed pair.
    pub fn rounds_per_sequence(&self) -> u64 {
        self.nonces.iter().map(|r| r.end - r.start).sum()
    }
}

/// The tallies of one game and seed pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "game", rename_all = "kebab-case")]
pub enum Entry {
    /// Keno.
    Keno {
        /// Index into the plan's seed pairs.
        seed_pair: usize,
        /// The segments tallied.
        segments: Segments<KenoTally>,
    },
    /// European roulette.
    RouletteEuropean {
        /// Index into the plan's seed pairs.
        seed_pair: usize,
        /// The segments tallied.
        segments: Segments<RouletteTally>,
    },
    /// American roulette.
    RouletteAmerican {
        /// Index into the plan's seed pairs.
        seed_pair: usize,
        /// The segments tallied.
        segments: Segments<RouletteTally>,
    },
}

impl Entry {
    /// An entry with no segments yet.
    pub fn empty(game: GameId, seed_pair: usize) -> Self {
        match game {
            GameId::Keno => Entry::Keno { seed_pair, segments: Segments::default() },
            GameId::RouletteEuropean => Entry::RouletteEuropean { seed_pair, segments: Segments::default() },
            GameId::RouletteAmerican => Entry::RouletteAmerican { seed_pair, segments: Segments::default() },
        }
    }

    /// The game.
    pub fn game(&self) -> GameId {
        match self {
            Entry::Keno { .. } => GameId::Keno,
            Entry::RouletteEuropean { .. } => GameId::RouletteEuropean,
            Entry::RouletteAmerican { .. } => GameId::RouletteAmerican,
        }
    }

    /// The seed pair's index.
    pub fn seed_pair(&self) -> usize {
        match self {
            Entry::Keno { seed_pair, .. }
            | Entry::RouletteEuropean { seed_pair, .. }
            | Entry::RouletteAmerican { seed_pair, .. } => *seed_pair,
        }
    }

    /// The nonce ranges covered.
    pub fn ranges(&self) -> Vec<Range<u64>> {
        match self {
            Entry::Keno { segments, .. } => segments.ranges(),
            Entry::RouletteEuropean { segments, .. } | Entry::RouletteAmerican { segments, .. } => {
                segments.ranges()
            }
        }
    }

    /// Merges another entry of the same game and seed pair (any order; overlaps refused).
    pub fn merge(self, other: Entry) -> Result<Entry, TallyError> {
        Ok(match (self, other) {
            (Entry::Keno { seed_pair, segments: a }, Entry::Keno { segments: b, .. }) => {
                Entry::Keno { seed_pair, segments: Segments::merge([a, b])? }
            }
            (
                Entry::RouletteEuropean { seed_pair, segments: a },
                Entry::RouletteEuropean { segments: b, .. },
            ) => Entry::RouletteEuropean { seed_pair, segments: Segments::merge([a, b])? },
            (
                Entry::RouletteAmerican { seed_pair, segments: a },
                Entry::RouletteAmerican { segments: b, .. },
            ) => Entry::RouletteAmerican { seed_pair, segments: Segments::merge([a, b])? },
            (a, b) => {
                return Err(TallyError::Shape(format!("cannot merge {} with {}", a.game(), b.game())));
            }
        })
    }

    /// Checks every segment: table sizes for the game, ascending disjoint ranges, and
    /// exactly one round tallied per nonce.
    pub fn validate(&self) -> Result<(), TallyError> {
        fn check<T: SequenceTally>(segments: &Segments<T>) -> Result<(), TallyError> {
            let mut previous_end = None;
            for segment in &segments.0 {
                segment.tally.validate()?;
                if segment.start >= segment.end || previous_end.is_some_and(|end| segment.start < end) {
                    return Err(TallyError::Shape(format!(
                        "segment {}..{} is empty, overlapping or out of order",
                        segment.start, segment.end
                    )));
                }
                if segment.tally.rounds() != segment.end - segment.start {
                    return Err(TallyError::Shape(format!(
                        "segment {}..{} holds {} rounds",
                        segment.start,
                        segment.end,
                        segment.tally.rounds()
                    )));
                }
                previous_end = Some(segment.end);
            }
            Ok(())
        }
        let pockets_ok = |segments: &Segments<RouletteTally>, expected: usize| match segments
            .0
            .iter()
            .find(|s| s.tally.pockets.len() != expected)
        {
            Some(s) => Err(TallyError::Shape(format!(
                "{} has {} pockets, expected {expected}",
                self.game(),
                s.tally.pockets.len()
            ))),
            None => Ok(()),
        };
        match self {
            Entry::Keno { segments, .. } => check(segments),
            Entry::RouletteEuropean { segments, .. } => {
                pockets_ok(segments, 37)?;
                check(segments)
            }
            Entry::RouletteAmerican { segments, .. } => {
                pockets_ok(segments, 38)?;
                check(segments)
            }
        }
    }
}

/// The whole tally file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TallyFile {
    /// Always [`FORMAT`].
    pub format: String,
    /// The format version, [`VERSION`].
    pub version: u32,
    /// What the sweep set out to cover.
    pub plan: Plan,
    /// Whether every entry covers the whole plan (false after an interruption).
    pub complete: bool,
    /// One entry per seed pair and game, seed pairs outer, games in plan order.
    pub entries: Vec<Entry>,
    /// For one shard of a sweep cut into shards: which one (absent otherwise, so an
    /// unsharded sweep and a complete merge of shards write the same bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardOf>,
    /// For a merge of some of a sweep's shards (`merge --allow-partial`): the shards it
    /// lacks (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialOf>,
}

/// Why a tally file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TallyFileError {
    /// Not JSON, or not the expected shape.
    #[error("not a fairaudit tally file: {0}")]
    Parse(String),
    /// A tally file of version 1, from fairaudit 0.1.
    #[error("tally file version 1 (fairaudit 0.1) lacks the lagged serial counters this version tests; re-run the sweep that made it to regenerate it")]
    VersionOne,
    /// A tally file of version 2, before the checksum.
    #[error("tally file version 2 has no checksum, so corruption in it cannot be told from data; re-run the sweep that made it (the same command reproduces it) to regenerate it")]
    VersionTwo,
    /// The content does not match its checksum.
    #[error("its content does not match its checksum: the file was changed or corrupted after it was written (re-run the sweep that made it)")]
    Checksum,
    /// A different format or version.
    #[error("unsupported tally file: format '{format}' version {version} (this fairaudit reads '{FORMAT}' version {VERSION})")]
    Version {
        /// The format found.
        format: String,
        /// The version found.
        version: u64,
    },
    /// The counters are inconsistent.
    #[error(transparent)]
    Tally(#[from] TallyError),
}

impl TallyFile {
    /// A file for `plan` holding `entries`.
    pub fn new(plan: Plan, complete: bool, entries: Vec<Entry>) -> Self {
        TallyFile {
            format: FORMAT.to_owned(),
            version: VERSION,
            plan,
            complete,
            entries,
            shard: None,
            partial: None,
        }
    }

    /// Rounds tallied in all entries.
    pub fn rounds(&self) -> u64 {
        self.entries.iter().map(|e| e.ranges().iter().map(|r| r.end - r.start).sum::<u64>()).sum()
    }

    /// Serialises as compact JSON with a final newline, sealed with its checksum
    /// ([`CHECKSUM_FIELD`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(self).expect("tallies serialise");
        let checksum = checksum_of(&bytes);
        // The body is a JSON object: the checksum goes in before its closing brace.
        debug_assert_eq!(bytes.last(), Some(&b'}'));
        bytes.pop();
        bytes.extend_from_slice(format!(",\"{CHECKSUM_FIELD}\":\"{checksum}\"}}\n").as_bytes());
        bytes
    }

    /// The checksum a tally file's content must carry: of its compact JSON without it.
    pub fn checksum(&self) -> String {
        checksum_of(&serde_json::to_vec(self).expect("tallies serialise"))
    }

    /// Parses and validates a tally file, checking the format and version first so an
    /// unknown version gets a clear message rather than a parse error.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, TallyFileError> {
        #[derive(Deserialize)]
        struct Header {
            format: Option<String>,
            version: Option<u64>,
            checksum: Option<serde_json::Value>,
        }
        let header: Header =
            serde_json::from_slice(bytes).map_err(|e| TallyFileError::Parse(e.to_string()))?;
        let (format, version) = (header.format.unwrap_or_default(), header.version.unwrap_or(0));
        if format == FORMAT && version == 1 {
            return Err(TallyFileError::VersionOne);
        }
        if format == FORMAT && version == 2 {
            return Err(TallyFileError::VersionTwo);
        }
        if format != FORMAT || version != u64::from(VERSION) {
            return Err(TallyFileError::Version { format, version });
        }
        let file: TallyFile =
            serde_json::from_slice(bytes).map_err(|e| TallyFileError::Parse(e.to_string()))?;
        let recorded = match header.checksum {
            Some(serde_json::Value::String(text)) => text,
            Some(_) => return Err(TallyFileError::Parse(format!("'{CHECKSUM_FIELD}' is not a string"))),
            None => return Err(TallyFileError::Parse(format!("no '{CHECKSUM_FIELD}' field"))),
        };
        if recorded != file.checksum() {
            return Err(TallyFileError::Checksum);
        }
        let expected = (0..file.plan.seed_pairs.len())
            .flat_map(|pair| file.plan.games.iter().map(move |&game| (game, pair)));
        if file.entries.len() != file.plan.seed_pairs.len() * file.plan.games.len()
            || !file.entries.iter().map(|e| (e.game(), e.seed_pair())).eq(expected)
        {
            return Err(TallyError::Shape(
                "entries do not list every seed pair and game in plan order".into(),
            )
            .into());
        }
        for entry in &file.entries {
            entry.validate()?;
        }
        file.validate_plan_and_coverage()?;
        file.check_edges_against_seeds()?;
        Ok(file)
    }

    /// Re-derives every segment's edge state from its seed pair ([`anchor`]).
    fn check_edges_against_seeds(&self) -> Result<(), TallyError> {
        for entry in &self.entries {
            let pair = &self.plan.seed_pairs[entry.seed_pair()];
            let hasher = RoundHasher::new(&pair.server_seed, &pair.client_seed);
            let named = |e: TallyError| match e {
                TallyError::Shape(what) => {
                    TallyError::Shape(format!("{} seed pair {}: {what}", entry.game(), entry.seed_pair()))
                }
                other => other,
            };
            match entry {
                Entry::Keno { segments, .. } => anchor::check_segments(Keno, &hasher, segments),
                Entry::RouletteEuropean { segments, .. } => {
                    anchor::check_segments(Roulette::EUROPEAN, &hasher, segments)
                }
                Entry::RouletteAmerican { segments, .. } => {
                    anchor::check_segments(Roulette::AMERICAN, &hasher, segments)
                }
            }
            .map_err(named)?;
        }
        Ok(())
    }

    /// Checks what the entries cannot: the plan itself (games once each, ranges ordered
    /// and disjoint, every commitment the hash of its server seed, derived seed pairs the
    /// derivation's), that every segment lies inside the plan, that a complete file covers
    /// it exactly, and that no sum of counters can overflow.
    fn validate_plan_and_coverage(&self) -> Result<(), TallyError> {
        let shape = |what: String| Err(TallyError::Shape(what));
        let plan = &self.plan;
        if plan.games.is_empty() || !plan.games.windows(2).all(|w| w[0] < w[1]) {
            return shape("the plan's games must be listed once each, in report order".into());
        }
        if plan.nonces.is_empty() || plan.nonces.iter().any(|r| r.start >= r.end) {
            return shape("the plan's nonce ranges must be non-empty".into());
        }
        if !plan.nonces.windows(2).all(|w| w[0].end < w[1].start) {
            return shape("the plan's nonce ranges must be ascending, disjoint and not adjacent".into());
        }
        if plan.seed_pairs.is_empty() {
            return shape("the plan has no seed pair".into());
        }
        for (i, pair) in plan.seed_pairs.iter().enumerate() {
            if crate::chain::commitment(&pair.server_seed) != pair.commitment {
                return shape(format!("seed pair {i}: its commitment is not SHA3-256 of its server seed"));
            }
        }
        let expected_pairs = match &plan.seed_source {
            SeedSource::Default => Some(vec![crate::chain::seeds::default_seed_pair()]),
            SeedSource::Derived { master_seed } => {
                Some(crate::chain::seeds::derive_seed_pairs(master_seed, plan.seed_pairs.len()))
            }
            SeedSource::Given => (plan.seed_pairs.len() != 1).then(Vec::new),
        };
        if expected_pairs.is_some_and(|pairs| pairs != plan.seed_pairs) {
            return shape("the seed pairs are not the ones their source names".into());
        }
        let mut per_game: Vec<(GameId, u128)> = Vec::new();
        for entry in &self.entries {
            let ranges = entry.ranges();
            let inside =
                ranges.iter().all(|r| plan.nonces.iter().any(|p| p.start <= r.start && r.end <= p.end));
            if !inside {
                return shape(format!(
                    "{} seed pair {}: a segment lies outside the plan",
                    entry.game(),
                    entry.seed_pair()
                ));
            }
            if self.complete && !missing_ranges(&plan.nonces, &ranges).is_empty() {
                return shape(format!(
                    "{} seed pair {}: marked complete, but its segments do not cover the plan",
                    entry.game(),
                    entry.seed_pair()
                ));
            }
            let rounds: u128 = ranges.iter().map(|r| u128::from(r.end - r.start)).sum();
            match per_game.iter_mut().find(|(g, _)| *g == entry.game()) {
                Some((_, total)) => *total += rounds,
                None => per_game.push((entry.game(), rounds)),
            }
        }
        if per_game.iter().any(|&(_, rounds)| rounds > MAX_ROUNDS) {
            return shape("more than 2^58 rounds of one game: counters could overflow when summed".into());
        }
        self.validate_shard_records()
    }

    /// Checks the shard or partial-merge record against the plan: a shard's plan is
    /// exactly its range; a partial merge's plan is exactly the ranges of the shards it
    /// does not list as missing.
    fn validate_shard_records(&self) -> Result<(), TallyError> {
        let shape = |what: &str| Err(TallyError::Shape(what.to_owned()));
        let cut = |nonces: NonceRange, count: u32| {
            Sharding::new(nonces, count).map_err(|e| TallyError::Shape(format!("shard record: {e}")))
        };
        match (&self.shard, &self.partial) {
            (None, None) => Ok(()),
            (Some(_), Some(_)) => shape("a file is either one shard or a partial merge, not both"),
            (Some(shard), None) => {
                let sharding = cut(shard.nonces, shard.count)?;
                if shard.index >= shard.count || self.plan.nonces != [sharding.range(shard.index)] {
                    return shape("the plan's nonces are not the range of the shard its record names");
                }
                Ok(())
            }
            (None, Some(partial)) => {
                let sharding = cut(partial.nonces, partial.count)?;
                if !partial.lists_its_missing_shards() {
                    return shape("a partial merge lists its missing shards once each, ascending, and lacks some but not all");
                }
                if self.plan.nonces != sharding.covered(&partial.merged()) {
                    return shape("the plan's nonces are not the ranges of the shards a partial merge holds");
                }
                Ok(())
            }
        }
    }
}

/// The parts of `wanted` not covered by `covered` (both ascending and disjoint).
pub fn missing_ranges(wanted: &[NonceRange], covered: &[Range<u64>]) -> Vec<Range<u64>> {
    let mut missing = Vec::new();
    for want in wanted {
        let mut cursor = want.start;
        for have in covered.iter().filter(|h| h.end > want.start && h.start < want.end) {
            if have.start > cursor {
                missing.push(cursor..have.start);
            }
            cursor = cursor.max(have.end);
        }
        if cursor < want.end {
            missing.push(cursor..want.end);
        }
    }
    missing
}

/// The most rounds of one game a tally file may hold, over all its seed pairs: a Keno round
/// adds 45 to the pair counters, and 45 × 2^58 still fits in 64 bits, so no sum of
/// validated counters can overflow.
pub const MAX_ROUNDS: u128 = 1 << 58;

/// Closed totals of one game: per seed pair, then `all` when there are several.
pub struct GameTotals<T> {
    /// The game.
    pub game: GameId,
    /// (`"0"`, `"1"`, …, and `"all"`), each with its closed tallies.
    pub rows: Vec<(String, Closed<T>)>,
}

fn totals<T: SequenceTally>(
    file: &TallyFile,
    game: GameId,
    pick: impl Fn(&Entry) -> Option<&Segments<T>>,
) -> GameTotals<T> {
    let mut rows: Vec<(String, Closed<T>)> = file
        .entries
        .iter()
        .filter(|e| e.game() == game)
        .filter_map(|e| Some((e.seed_pair().to_string(), pick(e)?.closed_total()?)))
        .collect();
    if rows.len() > 1 {
        let mut all = rows[0].1.clone();
        for (_, tally) in &rows[1..] {
            all.add(tally);
        }
        rows.push(("all".to_owned(), all));
    }
    GameTotals { game, rows }
}

impl TallyFile {
    /// Keno totals (per seed pair, closed; empty when the file has no Keno).
    pub fn keno_totals(&self) -> GameTotals<KenoTally> {
        totals(self, GameId::Keno, |e| match e {
            Entry::Keno { segments, .. } => Some(segments),
            _ => None,
        })
    }

    /// Roulette totals for one wheel (per seed pair, closed).
    pub fn roulette_totals(&self, game: GameId) -> GameTotals<RouletteTally> {
        totals(self, game, |e| match e {
            Entry::RouletteEuropean { segments, .. } | Entry::RouletteAmerican { segments, .. } => {
                Some(segments)
            }
            _ => None,
        })
    }
}
