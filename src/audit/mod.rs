//! Auditing an operator's bet history: outcomes, bets, payouts and the seed chain, read
//! row by row in a streaming pass (after a light one for the seeds it reveals: [`revealed`]).
//!
//! Every row's outcome is tallied for the same battery a sweep runs (per player, their sum
//! `all`, and across players); rows that carry a nonce and both seeds are replayed against
//! the chain. On top of that the history is checked as the players experienced it:
//!
//! * **row checks** (each disagreement is a [`Finding`] with its line): the payout against
//!   stake × the multiplier of the bet for the recorded outcome; the commitment against
//!   SHA3-256 of the revealed server seed; no nonce used twice for a seed pair; nonces
//!   increasing within a seed pair; no commitment used again after the player rotated
//!   away from it (its seed is then revealed).
//! * **nonce integrity**: per seed pair, every gap in its nonces ([`Gap`]); where the
//!   server seed is revealed, the rounds at the skipped nonces are replayed with the bet
//!   of the next round played, for the skipped-rounds test.
//! * **bet-conditional counters** ([`crate::tally::bets::BetTally`]): hits on the picks,
//!   wins on the bets, money returned, for the tests of [`crate::stats::bets`].
//!
//! Memory is bounded by the players and seed pairs, not the rows: a seed pair keeps its
//! nonce ranges (one per gap), a player their counters.

pub mod bets;
pub mod crash;
mod history;
pub mod money;
pub mod revealed;
mod skipped;
pub mod stake;

use crate::chain::RoundHasher;
use crate::columns::CsvLayout;
use crate::games::{Game, GameId, Keno, KenoRound, Roulette, Spin};
use crate::rtp::paytable::Paytable;
use crate::stats::battery::{assess, keno_tests, roulette_tests, with_across, Battery};
use crate::stats::bets::{bet_return, keno_bet_hits, roulette_bet_wins, skipped_wins};
use crate::stats::outcome::TestOutcome;
use crate::tally::bets::BetTally;
use crate::tally::{Closed, KenoTally, RouletteTally};
use crate::verify::RoundsError;
use bets::Outcome;
use money::Money;
use revealed::RevealedSeeds;
use std::io::Read;
use std::ops::Range;

/// How the history is judged.
#[derive(Clone, Debug)]
pub struct AuditOptions {
    /// The Keno paytable payouts are judged against: required for a Keno history with
    /// payouts (judging them against the illustrative example would report false
    /// findings).
    pub paytable: Option<Paytable>,
    /// A payout within this amount of stake × multiplier is not a finding (0: exact).
    pub payout_tolerance: Money,
    /// Gaps of at most this many nonces are replayed for the skipped-rounds test; longer
    /// ones (a counter shared with other games, say) are reported only.
    pub max_gap_replay: u64,
    /// The file's delimiter and the fields it names its own way ([`fields`] lists ours).
    pub layout: CsvLayout,
}

/// What a row check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// 1-based line of the row.
    pub line: u64,
    /// The player (empty when the history has no `player` column).
    pub player: String,
    /// What was checked: `result`, `draw_order`, `payout`, `commitment`, `nonce_reused`,
    /// `nonce_order` or `commitment_reused`.
    pub check: &'static str,
    /// What it should be.
    pub expected: String,
    /// What the file has.
    pub found: String,
}

/// A gap in a seed pair's nonces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap {
    /// The line of the round after the gap.
    pub line: u64,
    /// The player.
    pub player: String,
    /// The seed pair: the commitment (or the server seed's) and the client seed.
    pub commitment: String,
    /// The client seed.
    pub client_seed: String,
    /// The missing nonces.
    pub nonces: Range<u64>,
    /// Whether the rounds were replayed (seed revealed, gap short enough, bet known).
    pub replayed: bool,
    /// Of the replayed rounds, those that would have paid more than the stake.
    pub would_have_won: u64,
}

/// Receives findings and gaps as the stream is read.
pub trait AuditObserver {
    /// A row check that failed.
    fn finding(&mut self, finding: &Finding);
    /// A gap in a seed pair's nonces.
    fn gap(&mut self, gap: &Gap);
}

/// The outcome tallies of one group.
#[derive(Clone, Debug)]
pub enum OutcomeTallies {
    /// Keno rounds.
    Keno(Closed<KenoTally>),
    /// Roulette spins.
    Roulette(Closed<RouletteTally>),
}

/// One player's rounds (or the whole log's, without a `player` column).
#[derive(Clone, Debug)]
pub struct PlayerAudit {
    /// The player, or `log`.
    pub player: String,
    /// Rounds read.
    pub rounds: u64,
    /// Seed pairs seen.
    pub seed_pairs: u64,
    /// Findings on this player's rows.
    pub findings: u64,
    /// The outcome tallies.
    pub outcomes: OutcomeTallies,
    /// The bet counters.
    pub bets: BetTally,
}

/// What an audit found.
#[derive(Clone, Debug)]
pub struct Audit {
    /// The game.
    pub game: GameId,
    /// Rounds read.
    pub rounds: u64,
    /// Rounds replayed against the chain (those with nonce and both seeds).
    pub verified: u64,
    /// Rows whose recorded outcome differs from the chain's.
    pub mismatches: u64,
    /// Findings of every row check, by check.
    pub findings: Vec<(&'static str, u64)>,
    /// Whether the draw order was recorded on every row (enables the position tests; a
    /// row without it cannot be placed, and reading its sorted result as the order would
    /// fake a position bias).
    pub has_draw_order: bool,
    /// Rows that recorded a draw order.
    pub rows_with_draw_order: u64,
    /// Whether bets were recorded (enables the bet-conditional tests).
    pub has_bets: bool,
    /// Whether stakes and payouts were recorded.
    pub has_money: bool,
    /// Seed pairs seen, gaps found and rounds at skipped nonces replayed.
    pub nonce_integrity: NonceIntegrity,
    /// Per player, in order of first appearance; one group `log` without a `player` column.
    pub players: Vec<PlayerAudit>,
    /// Whether the history has a `player` column.
    pub has_players: bool,
    /// Warnings every output repeats: seed pairs holding `:` (the first
    /// [`WARNINGS_LISTED`], then a count).
    pub warnings: Vec<String>,
    /// The audit's scope: each seed pair seen, in order of first appearance, with the
    /// nonces played under it.
    pub scope: Vec<SeedPairScope>,
}

/// One seed pair of a history and the nonces played under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedPairScope {
    /// The commitment (given, or computed from the revealed server seed).
    pub commitment: String,
    /// The client seed.
    pub client_seed: String,
    /// The nonces played, as disjoint ascending ranges.
    pub nonces: Vec<Range<u64>>,
}

/// How many seed pairs holding `:` the warnings name one by one.
pub const WARNINGS_LISTED: usize = 5;

/// Totals of the nonce checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NonceIntegrity {
    /// Seed pairs seen.
    pub seed_pairs: u64,
    /// Gaps in their nonces.
    pub gaps: u64,
    /// Nonces missing in those gaps (2^64 - 1 where more are: a count that saturates).
    pub missing_nonces: u64,
    /// Rounds at skipped nonces replayed.
    pub replayed: u64,
}

/// The history's columns.
struct Columns {
    result: usize,
    draw_order: Option<usize>,
    game: Option<usize>,
    nonce: Option<usize>,
    server_seed: Option<usize>,
    client_seed: Option<usize>,
    commitment: Option<usize>,
    player: Option<usize>,
    bet: Option<usize>,
    stake: Option<usize>,
    payout: Option<usize>,
}

/// A seed pair's state while the stream is read.
struct PairState {
    /// Nonces played, as disjoint ascending ranges.
    played: Vec<Range<u64>>,
    last_nonce: Option<u64>,
    /// Whether the pair's rows run newest first, as exports often list them: set by its
    /// first two nonces, the order every later row is held to.
    descending: Option<bool>,
    /// The bet of the row at `last_nonce`: newest first, the round played after a gap
    /// found on the next row, whose bet the skipped rounds are replayed with.
    last_bet: Option<bets::PlacedBet>,
    /// The revealed server seed's hasher, once a row reveals it.
    hasher: Option<RoundHasher>,
    /// The server seed already checked against the commitment.
    checked_seed: Option<String>,
}

/// A player's state while the stream is read.
struct PlayerState {
    name: String,
    rounds: u64,
    findings: u64,
    seed_pairs: u64,
    keno: KenoTally,
    roulette: RouletteTally,
    bets: BetTally,
    /// The commitment of the seed pair the player is on.
    current: Option<String>,
    /// The player's last seed pair: commitment, client seed, index, and the number of
    /// rotations seen when it was looked up (a later rotation may have revealed it).
    last_pair: Option<(String, String, usize, u64)>,
}

/// The fields a history of `game` may have, by their names in `docs/audit.md`: what a
/// column map may map ([`crate::columns`]).
pub fn fields(game: GameId) -> [&'static str; 11] {
    [
        "result",
        "draw_order",
        "game",
        "nonce",
        "server_seed",
        "client_seed",
        "commitment",
        "player",
        bet_field(game),
        "stake",
        "payout",
    ]
}

/// The bet's field: Keno's `picks` or roulette's `bet`.
fn bet_field(game: GameId) -> &'static str {
    if game == GameId::Keno {
        "picks"
    } else {
        "bet"
    }
}

fn find_columns(
    headers: &csv::StringRecord,
    game: GameId,
    layout: &CsvLayout,
) -> Result<Columns, RoundsError> {
    let found = layout.columns.locate(headers, &fields(game))?;
    let find = |name: &str| found.get(name);
    let bet_column = bet_field(game);
    let columns = Columns {
        result: find("result").ok_or(RoundsError::MissingColumn("result"))?,
        draw_order: find("draw_order"),
        game: find("game"),
        nonce: find("nonce"),
        server_seed: find("server_seed"),
        client_seed: find("client_seed"),
        commitment: find("commitment"),
        player: find("player"),
        bet: find(bet_column),
        stake: find("stake"),
        payout: find("payout"),
    };
    if columns.stake.is_some() != columns.payout.is_some() {
        return Err(RoundsError::MissingColumn(if columns.stake.is_some() { "payout" } else { "stake" }));
    }
    if columns.payout.is_some() && columns.bet.is_none() {
        return Err(RoundsError::MissingColumn(bet_column));
    }
    Ok(columns)
}

/// Reads a bet history (header row; `result` required; the other columns optional, see
/// the module docs and `docs/audit.md`) and audits it, reporting findings and gaps to
/// `observer` as they are found.
///
/// # Errors
/// A malformed row (unknown bet, a selection that is not that bet on the wheel, picks
/// out of range or repeated, a negative stake, …) stops the audit with its line.
pub fn audit_history<R: Read>(
    game: GameId,
    input: R,
    revealed: &RevealedSeeds,
    options: &AuditOptions,
    observer: &mut dyn AuditObserver,
) -> Result<Audit, RoundsError> {
    let mut reader = options.layout.reader(input);
    let headers = reader.headers()?.clone();
    let mut auditor = history::Auditor::new(game, &headers, revealed, options)?;
    let mut record = csv::StringRecord::new();
    while reader.read_record(&mut record)? {
        auditor.audit_row(&record, observer)?;
    }
    Ok(auditor.finish())
}

/// The server seeds a history of `game` reveals anywhere in it ([`RevealedSeeds`]): the
/// first of the two passes of [`audit_history`], over the same history.
///
/// # Errors
/// The header names a field twice, or a row cannot be read as CSV.
pub fn revealed_seeds<R: Read>(
    game: GameId,
    input: R,
    layout: &CsvLayout,
) -> Result<RevealedSeeds, RoundsError> {
    RevealedSeeds::scan(input, layout, &fields(game), crate::chain::commitment)
}

/// Adds `nonce` to disjoint ascending ranges, joining neighbours.
fn insert_nonce(ranges: &mut Vec<Range<u64>>, nonce: u64) {
    let at = ranges.partition_point(|r| r.end <= nonce);
    let joins_left = at > 0 && ranges[at - 1].end == nonce;
    let joins_right = at < ranges.len() && ranges[at].start == nonce + 1;
    match (joins_left, joins_right) {
        (true, true) => {
            ranges[at - 1].end = ranges[at].end;
            ranges.remove(at);
        }
        (true, false) => ranges[at - 1].end = nonce + 1,
        (false, true) => ranges[at].start = nonce,
        (false, false) => ranges.insert(at, nonce..nonce + 1),
    }
}

/// Gaps of at least this many nonces are replayed in parallel, in chunks of this many;
/// shorter ones cost less than handing them out.
const PARALLEL_GAP: u64 = 4096;

fn replay_outcome_of(game: GameId, hasher: &RoundHasher, nonce: u64) -> Outcome {
    let mut words = hasher.words(nonce);
    match game {
        GameId::Keno => {
            let mut round = KenoRound::default();
            Keno.draw(&mut words, &mut round);
            Outcome::Keno(round.mask())
        }
        GameId::RouletteEuropean | GameId::RouletteAmerican => {
            let wheel =
                if game == GameId::RouletteEuropean { Roulette::EUROPEAN } else { Roulette::AMERICAN };
            let mut spin = Spin::default();
            wheel.draw(&mut words, &mut spin);
            Outcome::Roulette(spin.pocket)
        }
    }
}

impl Audit {
    /// Whether any row was checked on its own: replayed against the chain, or its payout
    /// checked against the bet's multiplier. An audit is judged by its rows, so one with
    /// row checks has judged something even when its battery could not.
    pub fn has_row_checks(&self) -> bool {
        self.verified > 0 || self.players.iter().any(|p| p.bets.staked_rounds > 0)
    }

    /// The battery on this history: per player (or the whole log), their sum `all` and the
    /// tests across players, each with the outcome tests and, where bets were recorded,
    /// the bet-conditional ones.
    pub fn battery(&self, alpha: f64) -> Battery {
        let any_skipped = self.nonce_integrity.replayed > 0;
        let tests = |outcomes: &OutcomeTallies, bets: &BetTally| -> Vec<TestOutcome> {
            let mut tests = match outcomes {
                OutcomeTallies::Keno(closed) => keno_tests(closed, self.has_draw_order, false),
                OutcomeTallies::Roulette(closed) => roulette_tests(closed, false),
            };
            if self.has_bets {
                tests.push(match outcomes {
                    OutcomeTallies::Keno(_) => keno_bet_hits(bets),
                    OutcomeTallies::Roulette(closed) => {
                        roulette_bet_wins(bets, closed.tally.pockets.len() as u32)
                    }
                });
            }
            if self.has_money {
                tests.push(bet_return(bets));
            }
            if any_skipped {
                tests.push(skipped_wins(bets));
            }
            tests
        };
        let label = |p: &PlayerAudit| {
            if self.has_players {
                format!("player:{}", p.player)
            } else {
                p.player.clone()
            }
        };
        let mut groups: Vec<(String, Vec<TestOutcome>)> =
            self.players.iter().map(|p| (label(p), tests(&p.outcomes, &p.bets))).collect();
        if self.players.len() > 1 {
            let (outcomes, bets) = self.total();
            groups.push(("all".to_owned(), tests(&outcomes, &bets)));
        }
        assess(with_across(self.game, groups, alpha), alpha)
    }

    /// Every player's tallies summed.
    pub fn total(&self) -> (OutcomeTallies, BetTally) {
        let mut bets = BetTally::new();
        let mut outcomes = self.players[0].outcomes.clone();
        bets.add(&self.players[0].bets);
        for player in &self.players[1..] {
            bets.add(&player.bets);
            match (&mut outcomes, &player.outcomes) {
                (OutcomeTallies::Keno(total), OutcomeTallies::Keno(more)) => total.add(more),
                (OutcomeTallies::Roulette(total), OutcomeTallies::Roulette(more)) => total.add(more),
                _ => unreachable!("one game per audit"),
            }
        }
        (outcomes, bets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonce_ranges_join_and_stay_disjoint() {
        let mut ranges = Vec::new();
        for nonce in [5, 7, 6, 0, 2, 1, 9] {
            insert_nonce(&mut ranges, nonce);
        }
        assert_eq!(ranges, vec![0..3, 5..8, 9..10]);
    }
}
