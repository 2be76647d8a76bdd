//! Auditing an operator's bet history: outcomes, bets, payouts and the seed chain, read
//! row by row in one streaming pass.
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
pub mod money;
pub mod stake;

use crate::chain::seeds::{seeds_are_ambiguous, AMBIGUOUS_SEEDS};
use crate::chain::{commitment, RoundHasher};
use crate::columns::CsvLayout;
use crate::fields::{parse_digest, Excerpt};
use crate::games::{parse, Game, GameId, Keno, KenoRound, Roulette, Spin};
use crate::rtp::paytable::Paytable;
use crate::stats::battery::{assess, keno_tests, roulette_tests, with_across, Battery};
use crate::stats::bets::{bet_return, keno_bet_hits, roulette_bet_wins, skipped_wins};
use crate::stats::outcome::TestOutcome;
use crate::tally::bets::BetTally;
use crate::tally::{Closed, KenoTally, RouletteTally, SequenceTally};
use crate::verify::{parse_nonce, replay_outcome, RoundsError};
use bets::{Outcome, Payouts, PlacedBet};
use money::Money;
use rayon::prelude::*;
use std::collections::HashMap;
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
    /// Nonces missing in those gaps.
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
    options: &AuditOptions,
    observer: &mut dyn AuditObserver,
) -> Result<Audit, RoundsError> {
    let mut reader = options.layout.reader(input);
    let headers = reader.headers()?.clone();
    let columns = find_columns(&headers, game, &options.layout)?;
    if game == GameId::Keno && columns.payout.is_some() && options.paytable.is_none() {
        return Err(RoundsError::PaytableRequired);
    }
    let paytable = options.paytable.clone().unwrap_or_else(Paytable::example);
    let payouts =
        Payouts::new(game, &paytable).map_err(|problem| RoundsError::Malformed { line: 1, problem })?;
    let wheel = if game == GameId::RouletteAmerican { Roulette::AMERICAN } else { Roulette::EUROPEAN };

    let mut players: Vec<PlayerState> = Vec::new();
    let mut player_index: HashMap<String, usize> = HashMap::new();
    let mut pairs: Vec<PairState> = Vec::new();
    let mut pair_index: HashMap<(String, String), usize> = HashMap::new();
    let mut rotated: HashMap<String, u64> = HashMap::new();
    let mut seed_commitments: HashMap<String, String> = HashMap::new();
    let mut rotations = 0u64;
    let (mut rounds, mut verified, mut mismatches, mut with_order) = (0u64, 0u64, 0u64, 0u64);
    let mut counts: Vec<(&'static str, u64)> = Vec::new();
    let mut integrity = NonceIntegrity::default();
    let (mut ambiguous, mut warnings) = (0usize, Vec::new());
    let mut record = csv::StringRecord::new();

    while reader.read_record(&mut record)? {
        let line = record.position().map_or(0, csv::Position::line);
        let bad = |column: &'static str, problem: String| RoundsError::BadField { line, column, problem };
        // Cells are taken as written: seeds may hold spaces, and a number with spaces
        // around it is not a number (see `crate::fields`).
        let cell = |i: Option<usize>| i.map_or("", |i| record.get(i).unwrap_or(""));
        if let Some(g) = columns.game {
            let name = record.get(g).unwrap_or("");
            if name != game.name() {
                return Err(bad("game", format!("'{}' in a {} audit", Excerpt(name), game.name())));
            }
        }
        // The outcome, as recorded.
        let result_text = cell(Some(columns.result));
        let order_text = Some(cell(columns.draw_order)).filter(|t| !t.is_empty());
        with_order += u64::from(order_text.is_some());
        let (keno_round, spin) = match game {
            GameId::Keno => {
                (Some(parse::keno_round(result_text, order_text).map_err(|(c, p)| bad(c, p))?), None)
            }
            _ => (None, Some(parse::spin(wheel, result_text, order_text).map_err(|(c, p)| bad(c, p))?)),
        };
        let outcome = match (&keno_round, spin) {
            (Some(round), _) => Outcome::Keno(round.mask()),
            (None, Some(spin)) => Outcome::Roulette(spin.pocket),
            (None, None) => unreachable!("one of the two is parsed"),
        };
        // The player.
        let player_name = cell(columns.player);
        let player = match player_index.get(player_name) {
            Some(&i) => i,
            None => {
                player_index.insert(player_name.to_owned(), players.len());
                players.push(PlayerState {
                    name: player_name.to_owned(),
                    rounds: 0,
                    findings: 0,
                    seed_pairs: 0,
                    keno: KenoTally::new(Keno),
                    roulette: RouletteTally::new(wheel),
                    bets: BetTally::new(),
                    current: None,
                    last_pair: None,
                });
                players.len() - 1
            }
        };
        let mut found: Vec<Finding> = Vec::new();
        let finding = |check: &'static str, expected: String, found: String| Finding {
            line,
            player: player_name.to_owned(),
            check,
            expected,
            found,
        };
        // The bet and the money.
        let bet = match cell(columns.bet) {
            "" => None,
            text => Some(match game {
                GameId::Keno => PlacedBet::parse_keno(text).map_err(|p| bad("picks", p))?,
                _ => PlacedBet::parse_roulette(wheel.wheel, text).map_err(|p| bad("bet", p))?,
            }),
        };
        let money = match (cell(columns.stake), cell(columns.payout)) {
            ("", "") => None,
            (stake, payout) => {
                let stake = Money::parse(stake).map_err(|e| bad("stake", e.to_string()))?;
                let payout = Money::parse(payout).map_err(|e| bad("payout", e.to_string()))?;
                Some((stake, payout))
            }
        };
        if money.is_some() && bet.is_none() {
            return Err(bad(
                if game == GameId::Keno { "picks" } else { "bet" },
                "a payout without its bet".into(),
            ));
        }
        let multiplier = bet.map(|b| payouts.multiplier(&b, outcome));
        if let (Some(bet), Some((stake, payout)), Some(multiplier)) = (bet, money, multiplier) {
            let expected = stake
                .times(multiplier)
                .ok_or_else(|| bad("stake", "stake x multiplier is too large".into()))?;
            let off =
                expected.distance(payout).ok_or_else(|| bad("payout", "too large to compare".into()))?;
            if off.compare(options.payout_tolerance) == Some(std::cmp::Ordering::Greater) {
                found.push(finding(
                    "payout",
                    format!("{expected} ({stake} x {multiplier})"),
                    payout.to_string(),
                ));
            }
            let (mean, variance) = payouts.moments(&bet);
            let bets = &mut players[player].bets;
            bets.money(stake.to_f64(), payout.to_f64(), mean, variance);
            bets.payable(stake.to_f64() * payouts.multiplier_step(&bet));
        }
        let wins =
            |multiplier: Money| multiplier.compare(Money::whole(1)) == Some(std::cmp::Ordering::Greater);

        // The seed pair, its commitment, its nonces.
        let server_seed = cell(columns.server_seed);
        let client_seed = cell(columns.client_seed);
        let given_commitment = match cell(columns.commitment) {
            "" => "",
            text => {
                parse_digest(text, "a commitment").map_err(|p| bad("commitment", p))?;
                text
            }
        };
        let nonce = match cell(columns.nonce) {
            "" => None,
            text => Some(parse_nonce(text).map_err(|e| bad("nonce", e.to_string()))?),
        };
        let identified =
            columns.client_seed.is_some() && !(given_commitment.is_empty() && server_seed.is_empty());
        if identified {
            // The player's last seed pair, unless a rotation happened since: the common
            // case, with no allocation.
            let same = |pair: &PairState, commitment: &str| {
                if given_commitment.is_empty() {
                    pair.checked_seed.as_deref() == Some(server_seed)
                } else {
                    commitment.eq_ignore_ascii_case(given_commitment)
                }
            };
            let cached = match &players[player].last_pair {
                Some((commitment, client, i, epoch))
                    if *epoch == rotations && client == client_seed && same(&pairs[*i], commitment) =>
                {
                    Some(*i)
                }
                _ => None,
            };
            let pair = match cached {
                Some(i) => i,
                None => {
                    let pair_commitment = if given_commitment.is_empty() {
                        seed_commitments
                            .entry(server_seed.to_owned())
                            .or_insert_with(|| commitment(server_seed))
                            .clone()
                    } else {
                        given_commitment.to_ascii_lowercase()
                    };
                    let key = (pair_commitment.clone(), client_seed.to_owned());
                    let i = *pair_index.entry(key).or_insert_with(|| {
                        pairs.push(PairState {
                            played: Vec::new(),
                            last_nonce: None,
                            hasher: None,
                            checked_seed: None,
                        });
                        players[player].seed_pairs += 1;
                        integrity.seed_pairs += 1;
                        if seeds_are_ambiguous(server_seed, client_seed) {
                            ambiguous += 1;
                            if ambiguous <= WARNINGS_LISTED {
                                warnings.push(format!(
                                    "line {line}: seed pair {}/{} {AMBIGUOUS_SEEDS}",
                                    Excerpt(server_seed),
                                    Excerpt(client_seed)
                                ));
                            }
                        }
                        pairs.len() - 1
                    });
                    // Rotation: the player moving to another commitment reveals the one left.
                    let current = &mut players[player].current;
                    if current.as_deref() != Some(pair_commitment.as_str()) {
                        if let Some(left) = current.replace(pair_commitment.clone()) {
                            rotated.entry(left).or_insert(line);
                            rotations += 1;
                        }
                    }
                    if let Some(&at) = rotated.get(&pair_commitment) {
                        found.push(finding(
                            "commitment_reused",
                            format!(
                                "a fresh commitment (this one was left at line {at}, its seed then revealed)"
                            ),
                            pair_commitment.clone(),
                        ));
                    }
                    players[player].last_pair = Some((pair_commitment, client_seed.to_owned(), i, rotations));
                    i
                }
            };
            let state = &mut pairs[pair];
            if !server_seed.is_empty() && state.checked_seed.as_deref() != Some(server_seed) {
                let actual = commitment(server_seed);
                if !given_commitment.is_empty() && !actual.eq_ignore_ascii_case(given_commitment) {
                    found.push(finding("commitment", actual, given_commitment.to_owned()));
                }
                state.checked_seed = Some(server_seed.to_owned());
                state.hasher = Some(RoundHasher::new(server_seed, client_seed));
            }
            if let Some(nonce) = nonce {
                let state = &mut pairs[pair];
                if state.played.iter().any(|r| r.contains(&nonce)) {
                    found.push(finding(
                        "nonce_reused",
                        "a nonce not yet played with this seed pair".into(),
                        nonce.to_string(),
                    ));
                } else if state.last_nonce.is_some_and(|last| nonce < last) {
                    let last = state.last_nonce.expect("checked");
                    found.push(finding(
                        "nonce_order",
                        format!("a nonce above {last}, the previous one"),
                        nonce.to_string(),
                    ));
                    insert_nonce(&mut state.played, nonce);
                } else {
                    // Gaps between the nonces seen; nonces before a seed pair's first
                    // round in the file are not a gap (a history may start anywhere).
                    let from = state.last_nonce.map_or(nonce, |last| last + 1);
                    if nonce > from {
                        let gap = from..nonce;
                        integrity.gaps += 1;
                        integrity.missing_nonces += nonce - from;
                        let replay = match (&state.hasher, bet) {
                            (Some(hasher), Some(bet)) if nonce - from <= options.max_gap_replay => {
                                Some((hasher.clone(), bet))
                            }
                            _ => None,
                        };
                        let mut would_have_won = 0;
                        if let Some((hasher, bet)) = &replay {
                            let won = |skipped: u64| {
                                u64::from(wins(
                                    payouts.multiplier(bet, replay_outcome_of(game, hasher, skipped)),
                                ))
                            };
                            // A history with long gaps replays far more rounds than it
                            // holds (10,000-nonce gaps: 18 s on one thread): long gaps on
                            // every thread of rayon's global pool.
                            would_have_won = if gap.end - gap.start >= PARALLEL_GAP {
                                let chunks = (gap.end - gap.start).div_ceil(PARALLEL_GAP);
                                (0..chunks)
                                    .into_par_iter()
                                    .map(|chunk| {
                                        let start = gap.start + chunk * PARALLEL_GAP;
                                        (start..(start + PARALLEL_GAP).min(gap.end)).map(won).sum::<u64>()
                                    })
                                    .sum()
                            } else {
                                gap.clone().map(won).sum()
                            };
                            let count = nonce - from;
                            players[player].bets.skipped_rounds(
                                payouts.paying_probability(bet),
                                count,
                                would_have_won,
                            );
                            integrity.replayed += count;
                        }
                        observer.gap(&Gap {
                            line,
                            player: player_name.to_owned(),
                            commitment: players[player]
                                .last_pair
                                .as_ref()
                                .map_or_else(String::new, |(commitment, ..)| commitment.clone()),
                            client_seed: client_seed.to_owned(),
                            nonces: gap,
                            replayed: replay.is_some(),
                            would_have_won,
                        });
                    }
                    insert_nonce(&mut state.played, nonce);
                    state.last_nonce = Some(nonce);
                }
                // Replay against the chain when the seeds are revealed.
                // Replay against the chain when the seeds are revealed, comparing the
                // outcomes themselves; their text is only formatted for a finding.
                if let Some(hasher) = &state.hasher {
                    verified += 1;
                    let (result_differs, order_differs) = match (&keno_round, spin) {
                        (Some(recorded), _) => {
                            let mut round = KenoRound::default();
                            Keno.draw(&mut hasher.words(nonce), &mut round);
                            (
                                round.mask() != recorded.mask(),
                                order_text.is_some() && round.order != recorded.order,
                            )
                        }
                        (None, Some(recorded)) => {
                            let mut spin = Spin::default();
                            wheel.draw(&mut hasher.words(nonce), &mut spin);
                            (spin.pocket != recorded.pocket, false)
                        }
                        (None, None) => (false, false),
                    };
                    if result_differs || order_differs {
                        let (order, result, _) = replay_outcome(game, hasher, nonce);
                        if result_differs {
                            found.push(finding("result", result, result_text.to_owned()));
                        }
                        if let (true, Some(text)) = (order_differs, order_text) {
                            found.push(finding("draw_order", order, text.to_owned()));
                        }
                    }
                    mismatches += u64::from(result_differs || order_differs);
                }
            }
        }

        for finding in found {
            players[player].findings += 1;
            match counts.iter_mut().find(|(check, _)| *check == finding.check) {
                Some((_, n)) => *n += 1,
                None => counts.push((finding.check, 1)),
            }
            observer.finding(&finding);
        }

        // The counters.
        let state = &mut players[player];
        state.rounds += 1;
        rounds += 1;
        match (&keno_round, spin) {
            (Some(round), _) => state.keno.record(round),
            (None, Some(spin)) => state.roulette.record(&spin),
            (None, None) => {}
        }
        if let Some(bet) = bet {
            match outcome {
                Outcome::Keno(drawn) => state.bets.keno(bet.pick_count(), bet.hits(drawn)),
                Outcome::Roulette(pocket) => state.bets.roulette(bet.pick_count(), bet.covers(pocket)),
            }
        }
    }

    let players = players
        .into_iter()
        .map(|p| PlayerAudit {
            player: if columns.player.is_some() { p.name } else { "log".to_owned() },
            rounds: p.rounds,
            seed_pairs: p.seed_pairs,
            findings: p.findings,
            outcomes: match game {
                GameId::Keno => OutcomeTallies::Keno(Closed::sequence(p.keno)),
                _ => OutcomeTallies::Roulette(Closed::sequence(p.roulette)),
            },
            bets: p.bets,
        })
        .collect();
    Ok(Audit {
        game,
        rounds,
        verified,
        mismatches,
        findings: counts,
        has_draw_order: rounds > 0 && with_order == rounds,
        rows_with_draw_order: with_order,
        has_bets: columns.bet.is_some(),
        has_money: columns.payout.is_some(),
        nonce_integrity: integrity,
        players,
        has_players: columns.player.is_some(),
        scope: {
            let mut keys: Vec<((String, String), usize)> = pair_index.into_iter().collect();
            keys.sort_by_key(|(_, i)| *i);
            keys.into_iter()
                .map(|((commitment, client_seed), i)| SeedPairScope {
                    commitment,
                    client_seed,
                    nonces: std::mem::take(&mut pairs[i].played),
                })
                .collect()
        },
        warnings: {
            if ambiguous > WARNINGS_LISTED {
                warnings.push(format!("{} more seed pairs {AMBIGUOUS_SEEDS}", ambiguous - WARNINGS_LISTED));
            }
            warnings
        },
    })
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
