//! The streaming pass of [`super::audit_history`], one step per job: reading a row
//! ([`Auditor::read`]), the money ([`Auditor::check_payout`]), the seed pair and its
//! commitment ([`Auditor::seed_pair`]), the nonces and their gaps
//! ([`Auditor::check_nonce`], replaying the skipped rounds), the replay against the chain
//! ([`Auditor::replay`]) and the counters ([`Auditor::count`]); [`Auditor::finish`] makes
//! the [`Audit`]. The state lives in the [`Auditor`] between rows.

use super::bets::{Outcome, Payouts, PlacedBet};
use super::money::Money;
use super::revealed::RevealedSeeds;
use super::{
    find_columns, insert_nonce, replay_outcome_of, Audit, AuditObserver, AuditOptions, Columns, Finding, Gap,
    NonceIntegrity, OutcomeTallies, PairState, PlayerAudit, PlayerState, SeedPairScope, PARALLEL_GAP,
    WARNINGS_LISTED,
};
use crate::chain::seeds::{seeds_are_ambiguous, AMBIGUOUS_SEEDS};
use crate::chain::{commitment, RoundHasher};
use crate::fields::{parse_digest, Excerpt};
use crate::games::{parse, Game, GameId, Keno, KenoRound, Roulette, Spin};
use crate::rtp::paytable::Paytable;
use crate::tally::bets::BetTally;
use crate::tally::{Closed, KenoTally, RouletteTally, SequenceTally};
use crate::verify::{parse_nonce, replay_outcome, RoundsError};
use rayon::prelude::*;
use std::collections::HashMap;

/// One row as read: every cell parsed, nothing checked yet.
pub(super) struct Row<'r> {
    line: u64,
    result_text: &'r str,
    order_text: Option<&'r str>,
    keno_round: Option<KenoRound>,
    spin: Option<Spin>,
    outcome: Outcome,
    player_name: &'r str,
    bet: Option<PlacedBet>,
    money: Option<(Money, Money)>,
    server_seed: &'r str,
    client_seed: &'r str,
    given_commitment: &'r str,
    nonce: Option<u64>,
}

impl Row<'_> {
    /// A finding on this row.
    fn finding(&self, check: &'static str, expected: String, found: String) -> Finding {
        Finding { line: self.line, player: self.player_name.to_owned(), check, expected, found }
    }

    /// An input error on this row.
    fn bad(&self, column: &'static str, problem: String) -> RoundsError {
        RoundsError::BadField { line: self.line, column, problem }
    }
}

/// Whether a bet returning `multiplier` per unit stake won.
fn wins(multiplier: Money) -> bool {
    multiplier.compare(Money::whole(1)) == Some(std::cmp::Ordering::Greater)
}

/// The audit's state between rows.
pub(super) struct Auditor<'o> {
    game: GameId,
    options: &'o AuditOptions,
    /// The seeds the history reveals anywhere, for rows that show only the commitment.
    revealed: &'o RevealedSeeds,
    columns: Columns,
    payouts: Payouts,
    wheel: Roulette,
    players: Vec<PlayerState>,
    player_index: HashMap<String, usize>,
    pairs: Vec<PairState>,
    pair_index: HashMap<(String, String), usize>,
    /// Commitments players rotated away from, with the line where they did.
    rotated: HashMap<String, u64>,
    /// SHA3-256 of each revealed server seed seen.
    seed_commitments: HashMap<String, String>,
    rotations: u64,
    /// Without a `player` column: how many `commitment_reused` findings, and the first one's
    /// line (the log is one player's; if it is several players', it says how to tell).
    returns: Option<(u64, u64)>,
    rounds: u64,
    verified: u64,
    mismatches: u64,
    with_order: u64,
    counts: Vec<(&'static str, u64)>,
    integrity: NonceIntegrity,
    ambiguous: usize,
    warnings: Vec<String>,
}

impl<'o> Auditor<'o> {
    /// The auditor of a history of `game` whose header is `headers`.
    pub(super) fn new(
        game: GameId,
        headers: &csv::StringRecord,
        revealed: &'o RevealedSeeds,
        options: &'o AuditOptions,
    ) -> Result<Self, RoundsError> {
        let columns = find_columns(headers, game, &options.layout)?;
        if game == GameId::Keno && columns.payout.is_some() && options.paytable.is_none() {
            return Err(RoundsError::PaytableRequired);
        }
        let paytable = options.paytable.clone().unwrap_or_else(Paytable::example);
        let payouts =
            Payouts::new(game, &paytable).map_err(|problem| RoundsError::Malformed { line: 1, problem })?;
        let wheel = if game == GameId::RouletteAmerican { Roulette::AMERICAN } else { Roulette::EUROPEAN };
        Ok(Auditor {
            game,
            options,
            revealed,
            columns,
            payouts,
            wheel,
            players: Vec::new(),
            player_index: HashMap::new(),
            pairs: Vec::new(),
            pair_index: HashMap::new(),
            rotated: HashMap::new(),
            seed_commitments: HashMap::new(),
            rotations: 0,
            returns: None,
            rounds: 0,
            verified: 0,
            mismatches: 0,
            with_order: 0,
            counts: Vec::new(),
            integrity: NonceIntegrity::default(),
            ambiguous: 0,
            warnings: Vec::new(),
        })
    }

    /// Audits one row: read, checked, replayed, counted; its findings go to `observer`.
    pub(super) fn audit_row(
        &mut self,
        record: &csv::StringRecord,
        observer: &mut dyn AuditObserver,
    ) -> Result<(), RoundsError> {
        let row = self.read(record)?;
        let player = self.player(row.player_name);
        let mut found = Vec::new();
        self.check_payout(&row, player, &mut found)?;
        if let Some(pair) = self.seed_pair(&row, player, &mut found) {
            if let Some(nonce) = row.nonce {
                self.check_nonce(&row, nonce, pair, player, &mut found, observer);
                self.replay(&row, nonce, pair, &mut found);
            }
        }
        for finding in found {
            self.players[player].findings += 1;
            match self.counts.iter_mut().find(|(check, _)| *check == finding.check) {
                Some((_, n)) => *n += 1,
                None => self.counts.push((finding.check, 1)),
            }
            observer.finding(&finding);
        }
        self.count(&row, player);
        Ok(())
    }

    /// Reads a row's cells, as written (seeds may hold spaces, and a number with spaces
    /// around it is not a number: see [`crate::fields`]).
    fn read<'r>(&mut self, record: &'r csv::StringRecord) -> Result<Row<'r>, RoundsError> {
        let line = record.position().map_or(0, csv::Position::line);
        let bad = |column: &'static str, problem: String| RoundsError::BadField { line, column, problem };
        let cell = |i: Option<usize>| i.map_or("", |i| record.get(i).unwrap_or(""));
        let columns = &self.columns;
        if let Some(g) = columns.game {
            let name = record.get(g).unwrap_or("");
            if name != self.game.name() {
                return Err(bad("game", format!("'{}' in a {} audit", Excerpt(name), self.game.name())));
            }
        }
        // The outcome, as recorded.
        let result_text = cell(Some(columns.result));
        let order_text = Some(cell(columns.draw_order)).filter(|t| !t.is_empty());
        self.with_order += u64::from(order_text.is_some());
        let (keno_round, spin) = match self.game {
            GameId::Keno => {
                (Some(parse::keno_round(result_text, order_text).map_err(|(c, p)| bad(c, p))?), None)
            }
            _ => (None, Some(parse::spin(self.wheel, result_text, order_text).map_err(|(c, p)| bad(c, p))?)),
        };
        let outcome = match (&keno_round, spin) {
            (Some(round), _) => Outcome::Keno(round.mask()),
            (None, Some(spin)) => Outcome::Roulette(spin.pocket),
            (None, None) => unreachable!("one of the two is parsed"),
        };
        // The bet and the money.
        let bet = match cell(columns.bet) {
            "" => None,
            text => Some(match self.game {
                GameId::Keno => PlacedBet::parse_keno(text).map_err(|p| bad("picks", p))?,
                _ => PlacedBet::parse_roulette(self.wheel.wheel, text).map_err(|p| bad("bet", p))?,
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
                if self.game == GameId::Keno { "picks" } else { "bet" },
                "a payout without its bet".into(),
            ));
        }
        // The seed pair and the nonce.
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
        if nonce == Some(u64::MAX) {
            // Nonces are kept as half-open ranges, which end at 2^64 - 1 at most.
            return Err(bad(
                "nonce",
                "2^64 - 1 is above the largest nonce a history can hold (2^64 - 2)".into(),
            ));
        }
        Ok(Row {
            line,
            result_text,
            order_text,
            keno_round,
            spin,
            outcome,
            player_name: cell(columns.player),
            bet,
            money,
            server_seed: cell(columns.server_seed),
            client_seed: cell(columns.client_seed),
            given_commitment,
            nonce,
        })
    }

    /// The player's index, added on their first row.
    fn player(&mut self, name: &str) -> usize {
        if let Some(&i) = self.player_index.get(name) {
            return i;
        }
        self.player_index.insert(name.to_owned(), self.players.len());
        self.players.push(PlayerState {
            name: name.to_owned(),
            rounds: 0,
            findings: 0,
            seed_pairs: 0,
            keno: KenoTally::new(Keno),
            roulette: RouletteTally::new(self.wheel),
            bets: BetTally::new(),
            current: None,
            last_pair: None,
        });
        self.players.len() - 1
    }

    /// The payout against stake × the bet's multiplier for the recorded outcome; the
    /// money counters of the bet tests.
    fn check_payout(
        &mut self,
        row: &Row<'_>,
        player: usize,
        found: &mut Vec<Finding>,
    ) -> Result<(), RoundsError> {
        let (Some(bet), Some((stake, payout))) = (row.bet, row.money) else {
            return Ok(());
        };
        let multiplier = self.payouts.multiplier(&bet, row.outcome);
        let expected = stake
            .times(multiplier)
            .ok_or_else(|| row.bad("stake", "stake x multiplier is too large".into()))?;
        let off =
            expected.distance(payout).ok_or_else(|| row.bad("payout", "too large to compare".into()))?;
        // Beyond 128 bits at the tolerance's places is an input error, as in the other
        // schemes' audits: read as "within tolerance", a payout of 0 passed.
        let over = off
            .compare(self.options.payout_tolerance)
            .ok_or_else(|| row.bad("payout", "too large to compare with --payout-tolerance".into()))?;
        if over == std::cmp::Ordering::Greater {
            found.push(row.finding(
                "payout",
                format!("{expected} ({stake} x {multiplier})"),
                payout.to_string(),
            ));
        }
        let (mean, variance) = self.payouts.moments(&bet);
        let bets = &mut self.players[player].bets;
        bets.money(stake.to_f64(), payout.to_f64(), mean, variance);
        bets.payable(stake.to_f64() * self.payouts.multiplier_step(&bet));
        Ok(())
    }

    /// The row's seed pair (`None` when the row does not identify one): found or added,
    /// the player's rotations followed (a commitment left reveals its seed, so using it
    /// again is a finding), and a newly revealed server seed checked against the
    /// commitment and prepared for replay.
    fn seed_pair(&mut self, row: &Row<'_>, player: usize, found: &mut Vec<Finding>) -> Option<usize> {
        let (server_seed, client_seed, given) = (row.server_seed, row.client_seed, row.given_commitment);
        let identified = self.columns.client_seed.is_some() && !(given.is_empty() && server_seed.is_empty());
        if !identified {
            return None;
        }
        // The player's last seed pair, unless a rotation happened since: the common case,
        // with no allocation.
        let same = |pair: &PairState, commitment: &str| {
            if given.is_empty() {
                pair.checked_seed.as_deref() == Some(server_seed)
            } else {
                commitment.eq_ignore_ascii_case(given)
            }
        };
        let cached = match &self.players[player].last_pair {
            Some((commitment, client, i, epoch))
                if *epoch == self.rotations && client == client_seed && same(&self.pairs[*i], commitment) =>
            {
                Some(*i)
            }
            _ => None,
        };
        let pair = match cached {
            Some(i) => i,
            None => self.look_up_pair(row, player, found),
        };
        let state = &mut self.pairs[pair];
        if !server_seed.is_empty() && state.checked_seed.as_deref() != Some(server_seed) {
            let actual = commitment(server_seed);
            if !given.is_empty() && !actual.eq_ignore_ascii_case(given) {
                found.push(row.finding("commitment", actual, given.to_owned()));
            }
            state.checked_seed = Some(server_seed.to_owned());
            state.hasher = Some(RoundHasher::new(server_seed, client_seed));
        }
        Some(pair)
    }

    /// [`Auditor::seed_pair`] off the player's cached pair: by commitment and client seed.
    fn look_up_pair(&mut self, row: &Row<'_>, player: usize, found: &mut Vec<Finding>) -> usize {
        let (server_seed, client_seed, given) = (row.server_seed, row.client_seed, row.given_commitment);
        let pair_commitment = if given.is_empty() {
            self.seed_commitments
                .entry(server_seed.to_owned())
                .or_insert_with(|| commitment(server_seed))
                .clone()
        } else {
            given.to_ascii_lowercase()
        };
        let key = (pair_commitment.clone(), client_seed.to_owned());
        let i = match self.pair_index.get(&key) {
            Some(&i) => i,
            None => {
                // A pair shown by its commitment alone is replayed with the seed the
                // history reveals for it, on rows above the reveal as below it.
                let seed = self.revealed.seed_of(&pair_commitment).filter(|_| server_seed.is_empty());
                self.pairs.push(PairState {
                    played: Vec::new(),
                    last_nonce: None,
                    descending: None,
                    last_bet: None,
                    hasher: seed.map(|seed| RoundHasher::new(seed, client_seed)),
                    checked_seed: seed.map(str::to_owned),
                });
                self.players[player].seed_pairs += 1;
                self.integrity.seed_pairs += 1;
                if seeds_are_ambiguous(server_seed, client_seed) {
                    self.ambiguous += 1;
                    if self.ambiguous <= WARNINGS_LISTED {
                        self.warnings.push(format!(
                            "line {}: seed pair {}/{} {AMBIGUOUS_SEEDS}",
                            row.line,
                            Excerpt(server_seed),
                            Excerpt(client_seed)
                        ));
                    }
                }
                self.pair_index.insert(key, self.pairs.len() - 1);
                self.pairs.len() - 1
            }
        };
        // Rotation: the player moving to another commitment reveals the one left.
        let current = &mut self.players[player].current;
        if current.as_deref() != Some(pair_commitment.as_str()) {
            if let Some(left) = current.replace(pair_commitment.clone()) {
                self.rotated.entry(left).or_insert(row.line);
                self.rotations += 1;
            }
        }
        if let Some(&at) = self.rotated.get(&pair_commitment) {
            found.push(row.finding(
                "commitment_reused",
                format!("a fresh commitment (this one was left at line {at}, its seed then revealed)"),
                pair_commitment.clone(),
            ));
            if self.columns.player.is_none() {
                let (times, _) = self.returns.get_or_insert((0, row.line));
                *times += 1;
            }
        }
        self.players[player].last_pair = Some((pair_commitment, client_seed.to_owned(), i, self.rotations));
        i
    }

    /// The nonce against the seed pair's: played before, out of order, or after a gap
    /// (reported to `observer`; where the server seed is revealed and the gap is short
    /// enough, its rounds replayed with the row's bet for the skipped-rounds test).
    fn check_nonce(
        &mut self,
        row: &Row<'_>,
        nonce: u64,
        pair: usize,
        player: usize,
        found: &mut Vec<Finding>,
        observer: &mut dyn AuditObserver,
    ) {
        let state = &mut self.pairs[pair];
        if state.played.iter().any(|r| r.contains(&nonce)) {
            found.push(row.finding(
                "nonce_reused",
                "a nonce not yet played with this seed pair".into(),
                nonce.to_string(),
            ));
            return;
        }
        // Gaps between the nonces seen; nonces before a seed pair's first round in the
        // file (after it, newest first) are not a gap (a history may start anywhere).
        let Some(last) = state.last_nonce else {
            insert_nonce(&mut state.played, nonce);
            state.last_nonce = Some(nonce);
            state.last_bet = row.bet;
            return;
        };
        let descending = *state.descending.get_or_insert(nonce < last);
        if descending != (nonce < last) {
            let expected = if descending {
                format!("a nonce below {last}, the lowest so far (this seed pair's rows run newest first)")
            } else {
                format!("a nonce above {last}, the highest so far")
            };
            found.push(row.finding("nonce_order", expected, nonce.to_string()));
            insert_nonce(&mut state.played, nonce);
            return;
        }
        insert_nonce(&mut state.played, nonce);
        state.last_nonce = Some(nonce);
        // The skipped rounds are replayed with the bet of the round played next (the row
        // read before this one, newest first).
        let next_bet = if descending { state.last_bet } else { row.bet };
        state.last_bet = row.bet;
        let gap = if descending { nonce + 1..last } else { last + 1..nonce };
        if gap.is_empty() {
            return;
        }
        let count = gap.end - gap.start;
        self.integrity.gaps += 1;
        // Saturating: three pairs at nonces 0 and 2^64 - 2 miss more than a u64 counts.
        self.integrity.missing_nonces = self.integrity.missing_nonces.saturating_add(count);
        let replay = match (&self.pairs[pair].hasher, next_bet) {
            (Some(hasher), Some(bet)) if count <= self.options.max_gap_replay => Some((hasher.clone(), bet)),
            _ => None,
        };
        let mut would_have_won = 0;
        if let Some((hasher, bet)) = &replay {
            would_have_won = self.wins_in(hasher, bet, gap.clone());
            self.players[player].bets.skipped_rounds(
                self.payouts.paying_probability(bet),
                count,
                would_have_won,
            );
            self.integrity.replayed += count;
        }
        observer.gap(&Gap {
            line: row.line,
            player: row.player_name.to_owned(),
            commitment: self.players[player]
                .last_pair
                .as_ref()
                .map_or_else(String::new, |(commitment, ..)| commitment.clone()),
            client_seed: row.client_seed.to_owned(),
            nonces: gap,
            replayed: replay.is_some(),
            would_have_won,
        });
    }

    /// How many of the rounds at `nonces` the bet would have won. A history with long
    /// gaps replays far more rounds than it holds (10,000-nonce gaps: 18 s on one
    /// thread): long gaps run on every thread of rayon's global pool.
    fn wins_in(&self, hasher: &RoundHasher, bet: &PlacedBet, nonces: std::ops::Range<u64>) -> u64 {
        let won = |skipped: u64| {
            u64::from(wins(self.payouts.multiplier(bet, replay_outcome_of(self.game, hasher, skipped))))
        };
        if nonces.end - nonces.start < PARALLEL_GAP {
            return nonces.map(won).sum();
        }
        let chunks = (nonces.end - nonces.start).div_ceil(PARALLEL_GAP);
        (0..chunks)
            .into_par_iter()
            .map(|chunk| {
                let start = nonces.start + chunk * PARALLEL_GAP;
                (start..(start + PARALLEL_GAP).min(nonces.end)).map(won).sum::<u64>()
            })
            .sum()
    }

    /// The recorded outcome against the chain's, when the server seed is revealed: the
    /// outcomes themselves are compared; their text is only formatted for a finding.
    fn replay(&mut self, row: &Row<'_>, nonce: u64, pair: usize, found: &mut Vec<Finding>) {
        let Some(hasher) = &self.pairs[pair].hasher else {
            return;
        };
        self.verified += 1;
        let (result_differs, order_differs) = match (&row.keno_round, row.spin) {
            (Some(recorded), _) => {
                let mut round = KenoRound::default();
                Keno.draw(&mut hasher.words(nonce), &mut round);
                (round.mask() != recorded.mask(), row.order_text.is_some() && round.order != recorded.order)
            }
            (None, Some(recorded)) => {
                let mut spin = Spin::default();
                self.wheel.draw(&mut hasher.words(nonce), &mut spin);
                (spin.pocket != recorded.pocket, false)
            }
            (None, None) => (false, false),
        };
        if result_differs || order_differs {
            let (order, result, _) = replay_outcome(self.game, hasher, nonce);
            if result_differs {
                found.push(row.finding("result", result, row.result_text.to_owned()));
            }
            if let (true, Some(text)) = (order_differs, row.order_text) {
                found.push(row.finding("draw_order", order, text.to_owned()));
            }
        }
        self.mismatches += u64::from(result_differs || order_differs);
    }

    /// The player's counters: the outcome tallies and the bet counters.
    fn count(&mut self, row: &Row<'_>, player: usize) {
        let state = &mut self.players[player];
        state.rounds += 1;
        self.rounds += 1;
        match (&row.keno_round, row.spin) {
            (Some(round), _) => state.keno.record(round),
            (None, Some(spin)) => state.roulette.record(&spin),
            (None, None) => {}
        }
        if let Some(bet) = row.bet {
            match row.outcome {
                Outcome::Keno(drawn) => state.bets.keno(bet.pick_count(), bet.hits(drawn)),
                Outcome::Roulette(pocket) => state.bets.roulette(bet.pick_count(), bet.covers(pocket)),
            }
        }
    }

    /// The audit of every row read.
    pub(super) fn finish(self) -> Audit {
        let Auditor {
            game,
            columns,
            players,
            mut pairs,
            pair_index,
            rounds,
            verified,
            mismatches,
            with_order,
            counts,
            integrity,
            ambiguous,
            returns,
            mut warnings,
            ..
        } = self;
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
        let mut keys: Vec<((String, String), usize)> = pair_index.into_iter().collect();
        keys.sort_by_key(|(_, i)| *i);
        let scope = keys
            .into_iter()
            .map(|((commitment, client_seed), i)| SeedPairScope {
                commitment,
                client_seed,
                nonces: std::mem::take(&mut pairs[i].played),
            })
            .collect();
        if ambiguous > WARNINGS_LISTED {
            warnings.push(format!("{} more seed pairs {AMBIGUOUS_SEEDS}", ambiguous - WARNINGS_LISTED));
        }
        if let Some((found, line)) = returns {
            let times = if found == 1 { "once".to_owned() } else { format!("{found} times") };
            warnings.push(format!("commitment_reused found {times} (first on line {line}) in a log without a player column, read as one player's history: if it holds several players' rows, their seed pairs interleave and each return is another player's row; name the column that says whose row it is (--column player=HEADER)"));
        }
        Audit {
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
            scope,
            warnings,
        }
    }
}
