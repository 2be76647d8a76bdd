//! Auditing a bet history of the HMAC-SHA256 family (`audit --scheme stake`), in one
//! streaming pass: each row names its game (and its parameters), and is checked as the
//! player experienced it.
//!
//! * **row checks** ([`Finding`]s with their lines): the result against the round replayed
//!   from its seeds (rows whose server seed is revealed, on the row or on any other row of
//!   its commitment, in a history with client seeds);
//!   the commitment against SHA-256 of the revealed server seed; no nonce used twice for a
//!   seed pair (a row names its pair by the revealed server seed or the commitment, with
//!   the client seed; a row naming neither is in no pair, and a repeated round is not
//!   counted again); the payout against
//!   stake × the published multiplier of the bet for the recorded result, for the games
//!   whose payout rule is sourced ([`crate::rtp::stake`]): plinko (its table for the
//!   bucket), limbo (the target in `bet`, paid when the multiplier reaches it) and
//!   roulette (`bet` as in the default scheme's audit: `straight:17`, `red`, `dozen:2`,
//!   returning 36 over the pockets covered); and Keno against the operator's paytable
//!   when the auditor supplies it (`--paytable`: Stake publishes no Keno table outside the
//!   game, so there is no built-in one; `bet` is the numbers picked). Dice and mines
//!   payouts, and Keno's without a paytable, are counted as unchecked, never judged by a
//!   guessed rule.
//! * **the battery** on the recorded results, per game, against the exact laws
//!   ([`crate::stats::stake`]): the outcomes, the draw steps (recovered from Keno's and
//!   mines' draws in draw order; plinko's rows are not in its result, so it has none),
//!   and pairs of rounds at nonces 2k and 2k + 1 of one seed pair and game, recorded one
//!   after the other (in either order), the second round's class given the first's
//!   ([`crate::stats::stake::pairs_given_first`]: the player chose whether round 2k + 1
//!   is in the history after seeing round 2k, which filters the first rounds). Rows with unrevealed seeds are tested too: the
//!   battery is then the only check of their fairness.
//!
//! Memory is bounded by the seed pairs, games, players and gaps in the nonces, not the rows
//! (a hostile history with a gap at every other nonce keeps one a row). Rounds at skipped
//! nonces are replayed one by one, at most `--max-gap-replay` a gap.

use super::bets::{Payouts, PlacedBet};
use super::money::Money;
use super::revealed::RevealedSeeds;
use super::skipped::{PlayedNonces, RoundAfter};
use super::{AuditObserver, Finding, Gap};
use crate::columns::CsvLayout;
use crate::fields::{parse_digest, parse_nonce, Excerpt};
use crate::games::roulette::Wheel;
use crate::games::GameId;
use crate::rtp::stake::plinko_multipliers;
use crate::rtp::Paytable;
use crate::scheme::keyed::{KeyedPair, KeyedScheme};
use crate::scheme::stake::cells::{coarse_cell, coarse_cells, draw_indices, outcome_cell};
use crate::scheme::stake::exact::{dice_winning, limbo_reaching, FLOATS};
use crate::scheme::stake::{StakeGame, StakeOutcome};
use crate::tally::bets::{common_step, BetTally};
use crate::tally::stake::StakeTally;
use crate::verify::RoundsError;
use num_traits::ToPrimitive;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;

/// The fields a history may have, by their names in `docs/audit.md`.
pub const FIELDS: [&str; 12] = [
    "scheme",
    "game",
    "params",
    "result",
    "nonce",
    "server_seed",
    "client_seed",
    "commitment",
    "player",
    "bet",
    "stake",
    "payout",
];

/// What an audit of a history of the family found.
#[derive(Clone, Debug)]
pub struct StakeAudit {
    /// The keyed scheme the rounds were replayed and judged by.
    pub scheme: KeyedScheme,
    /// Rows read.
    pub rows: u64,
    /// Rows replayed from their revealed seeds.
    pub replayed: u64,
    /// Payouts judged against the published rules (and Keno's against the paytable).
    pub payouts_checked: u64,
    /// The operator's Keno paytable Keno payouts were judged against, as it was named
    /// ([`Paytable::describe`]); `None` when none was given.
    pub keno_paytable: Option<String>,
    /// Rows with a payout whose game has no sourced payout rule, per game.
    pub payouts_unchecked: BTreeMap<&'static str, u64>,
    /// Findings per check (each one went to the observer as it was made).
    pub findings: BTreeMap<&'static str, u64>,
    /// The recorded results counted per game, in the order the games first appear.
    pub tallies: Vec<(StakeGame, StakeTally)>,
    /// The bets as placed, per game of `tallies` (in its order): roulette's wins on the
    /// pockets covered, and the money of every bet whose return has an exact law (for the
    /// bet tests of [`crate::stats::bets`]).
    pub bets: Vec<BetTally>,
    /// The first row replayed from the server seed it shows itself (a certificate works it
    /// through).
    pub first_replayed: Option<ReplayedRow>,
    /// The gaps in the seed pairs' nonces, and the rounds at skipped nonces replayed (see
    /// [`super::skipped`]).
    pub nonce_gaps: NonceGaps,
    /// In a history with a `player` column: each player's bets, per game of `tallies` (in
    /// its order; a player's list is as long as the games seen when they last bet), in the
    /// order the players first appear. Their tests are the battery's per-player rows.
    pub players: Vec<(String, Vec<BetTally>)>,
}

/// The gaps in a history's seed pairs' nonces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NonceGaps {
    /// Seed pairs seen.
    pub seed_pairs: u64,
    /// Gaps between the nonces a seed pair played.
    pub gaps: u64,
    /// Nonces in them.
    pub missing: u64,
    /// Of them, rounds replayed for the skipped-rounds test (seed revealed, the gap at most
    /// `max_gap_replay` long, the bet after it one whose chance of paying is exact).
    pub replayed: u64,
}

/// How a history of the family is audited, beside its rows.
#[derive(Clone, Copy, Debug)]
pub struct StakeAuditOptions<'a> {
    /// The keyed scheme the history's rounds are played by.
    pub scheme: KeyedScheme,
    /// How far a payout may be from the published rule's without a finding.
    pub payout_tolerance: Money,
    /// The operator's Keno paytable, which Keno payouts are judged against.
    pub keno_paytable: Option<&'a Paytable>,
    /// Gaps longer than this are named but not replayed.
    pub max_gap_replay: u64,
}

impl StakeAudit {
    /// Whether any row was replayed from its revealed seeds or had its payout checked
    /// (see [`super::Audit::has_row_checks`]).
    pub fn has_row_checks(&self) -> bool {
        self.replayed > 0 || self.payouts_checked > 0
    }

    /// The battery on this history ([`crate::stats::stake::log_battery`]): each game's tests,
    /// and where the history names its players, each player's bet tests and the tests
    /// across players.
    pub fn battery(&self, alpha: f64) -> crate::stats::battery::Battery<StakeGame> {
        crate::stats::stake::log_battery(self.scheme, &self.tallies, &self.bets, &self.players, alpha)
    }

    /// What the payouts checked were judged against, as the reports say it.
    pub fn payouts_judged_by(&self) -> String {
        match &self.keno_paytable {
            Some(name) => format!("the published tables (Keno's: the paytable {name})"),
            None => "the published tables".to_owned(),
        }
    }
}

/// Why the payouts of `game` (its name) of `scheme` went unchecked, as the reports say it.
pub fn why_unchecked(scheme: KeyedScheme, game: &str) -> &'static str {
    match (scheme, game) {
        (_, "keno") => "no Keno paytable was given (--paytable FILE, the operator's)",
        (KeyedScheme::Duel, "dice") => {
            "Duel publishes its multiplier (0.999 / chance) but not how its page rounds it, so rows are not checked against it yet (rtp --scheme duel states each target's exact return; docs/audit.md)"
        }
        (KeyedScheme::Stake | KeyedScheme::Duel, _) => {
            "its payout rule is not taken from a primary source yet (docs/schemes.md)"
        }
    }
}

/// A row of a history replayed from its revealed seeds, as it was recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayedRow {
    /// Its line in the file.
    pub line: u64,
    /// Its game and parameters.
    pub game: StakeGame,
    /// The revealed server seed.
    pub server_seed: String,
    /// The client seed.
    pub client_seed: String,
    /// The nonce.
    pub nonce: u64,
    /// The result as the row records it.
    pub result: String,
}

/// The columns found, by field.
struct Columns {
    get: HashMap<&'static str, usize>,
}

impl Columns {
    fn of(&self, name: &str) -> Option<usize> {
        self.get.get(name).copied()
    }
}

/// A seed pair as the history names it: the revealed server seed, else the commitment,
/// with the client seed.
type PairKey = (String, String);

/// The server seeds a history of the family reveals anywhere in it ([`RevealedSeeds`],
/// by SHA-256): the first of the two passes of [`audit_stake_history`], over the same
/// history.
///
/// # Errors
/// The header names a field twice, or a row cannot be read as CSV.
pub fn stake_revealed_seeds<R: Read>(
    input: R,
    layout: &CsvLayout,
    scheme: KeyedScheme,
) -> Result<RevealedSeeds, RoundsError> {
    // A seed the scheme cannot read commits to nothing (its own rows say why).
    RevealedSeeds::scan(input, layout, &FIELDS, |seed| scheme.commitment(seed).unwrap_or_default())
}

/// Reads a bet history of the family (a header row; `game`, `nonce` and `result`
/// required, the rest optional) and audits it; `observer` sees each finding as it is
/// made (the terminal, a CSV file).
///
/// # Errors
/// A malformed row (an unknown game, parameters that are not the game's, a result not in
/// its written form, a bad amount or bet) stops the audit with its line and column.
///
/// `keno_paytable` is the operator's Keno paytable (the table of the risk level the
/// history's Keno rounds were played at), which Keno payouts are judged against; without
/// it they are unchecked. `revealed` holds the seeds the history reveals
/// ([`stake_revealed_seeds`] of it): a row showing only its commitment is replayed with
/// the seed revealed for it, wherever in the history that is.
pub fn audit_stake_history<R: Read>(
    input: R,
    revealed: &RevealedSeeds,
    layout: &CsvLayout,
    options: &StakeAuditOptions,
    observer: &mut impl AuditObserver,
) -> Result<StakeAudit, RoundsError> {
    // Keno's chance of paying more than the stake, per pick count, from the paytable.
    let keno_payouts = options
        .keno_paytable
        .map(|paytable| Payouts::new(GameId::Keno, paytable))
        .transpose()
        .map_err(|problem| RoundsError::BadField { line: 1, column: "paytable", problem })?;
    let mut reader = layout.reader(input);
    let headers = reader.headers()?.clone();
    let columns = stake_columns(layout, &headers)?;
    let mut auditor = StakeAuditor::new(revealed, options, &columns, observer);
    let mut record = csv::StringRecord::new();
    while reader.read_record(&mut record)? {
        auditor.audit.rows += 1;
        let line = record.position().map_or(0, csv::Position::line);
        auditor.audit_row(&Row { line, record: &record, columns: &columns })?;
    }
    auditor.finish(keno_payouts.as_ref())
}

/// The columns of a history of the family, by field: `game`, `nonce` and `result`
/// required, `stake` and `payout` both or neither (a payout cannot be judged without its
/// stake).
fn stake_columns(layout: &CsvLayout, headers: &csv::StringRecord) -> Result<Columns, RoundsError> {
    let found = layout.columns.locate(headers, &FIELDS)?;
    let columns = Columns { get: FIELDS.iter().filter_map(|&f| found.get(f).map(|i| (f, i))).collect() };
    for required in ["game", "nonce", "result"] {
        columns.of(required).ok_or(RoundsError::MissingColumn(required))?;
    }
    if columns.of("stake").is_some() != columns.of("payout").is_some() {
        return Err(RoundsError::MissingColumn(if columns.of("stake").is_some() {
            "payout"
        } else {
            "stake"
        }));
    }
    Ok(columns)
}

/// One row of the history as it is read: its line and its cells by field.
struct Row<'r> {
    line: u64,
    record: &'r csv::StringRecord,
    columns: &'r Columns,
}

impl<'r> Row<'r> {
    /// The cell of `name`, empty where the history has no such column.
    fn field(&self, name: &str) -> &'r str {
        self.columns.of(name).and_then(|i| self.record.get(i)).unwrap_or("")
    }

    /// The error that stops the audit at this row's `column`.
    fn bad(&self, column: &'static str, problem: String) -> RoundsError {
        RoundsError::BadField { line: self.line, column, problem }
    }
}

/// What a row says of its round, read and validated before any check.
struct RowRound<'r> {
    game: StakeGame,
    nonce: u64,
    recorded: StakeOutcome,
    /// The commitment the row shows.
    given: Option<String>,
    /// The server seed: the row's, else the one the history reveals for its commitment
    /// (empty when neither).
    server: &'r str,
    client: &'r str,
}

/// Passes each finding on to the observer as it is made and counts it per check (the
/// counts become [`StakeAudit::findings`] at the end). Apart from the audit so that a
/// check can report while it holds the seed pair it is replaying.
struct Reporter<'o, O> {
    observer: &'o mut O,
    counts: BTreeMap<&'static str, u64>,
}

impl<O: AuditObserver> Reporter<'_, O> {
    fn report(&mut self, finding: &Finding) {
        self.observer.finding(finding);
        *self.counts.entry(finding.check).or_default() += 1;
    }

    /// A finding on `row`, named by its player.
    fn found(&mut self, row: &Row, check: &'static str, expected: String, found: &str) {
        self.report(&Finding {
            line: row.line,
            player: row.field("player").to_owned(),
            check,
            expected,
            found: found.to_owned(),
        });
    }
}

/// The state of one audit of a history of the family between its rows: what has been
/// counted, and per seed pair the nonces played, the last round (for the pairs) and
/// whether its commitment was shown.
struct StakeAuditor<'a, O> {
    revealed: &'a RevealedSeeds,
    options: StakeAuditOptions<'a>,
    has_client_column: bool,
    has_players: bool,
    report: Reporter<'a, O>,
    audit: StakeAudit,
    player_index: HashMap<String, usize>,
    /// Per seed pair: the nonces played, and the revealed server seed where there is one.
    nonces: HashMap<PairKey, (PlayedNonces, Option<String>)>,
    /// Per seed pair and game: the last row's nonce and coarse class, for the pairs.
    last_round: HashMap<(PairKey, StakeGame), (u64, usize)>,
    /// The last seed pair replayed (server seed, client seed, the pair, its commitment):
    /// consecutive rows of one pair are prepared once.
    prepared: Option<(String, String, KeyedPair, String)>,
    /// Per server seed replayed (by its commitment): whether some row showed its
    /// commitment, and the first line that replayed it (with its player).
    committed: HashMap<String, (bool, u64, String)>,
}

impl<'a, O: AuditObserver> StakeAuditor<'a, O> {
    fn new(
        revealed: &'a RevealedSeeds,
        options: &StakeAuditOptions<'a>,
        columns: &Columns,
        observer: &'a mut O,
    ) -> Self {
        let audit = StakeAudit {
            scheme: options.scheme,
            rows: 0,
            replayed: 0,
            payouts_checked: 0,
            keno_paytable: options.keno_paytable.map(Paytable::describe),
            payouts_unchecked: BTreeMap::new(),
            findings: BTreeMap::new(),
            tallies: Vec::new(),
            bets: Vec::new(),
            first_replayed: None,
            nonce_gaps: NonceGaps::default(),
            players: Vec::new(),
        };
        StakeAuditor {
            revealed,
            options: *options,
            has_client_column: columns.of("client_seed").is_some(),
            has_players: columns.of("player").is_some(),
            report: Reporter { observer, counts: BTreeMap::new() },
            audit,
            player_index: HashMap::new(),
            nonces: HashMap::new(),
            last_round: HashMap::new(),
            prepared: None,
            committed: HashMap::new(),
        }
    }

    /// Every check of one row, in the order its findings are reported; a repeated round
    /// is checked but not counted again.
    fn audit_row(&mut self, row: &Row) -> Result<(), RoundsError> {
        let round = self.read_round(row)?;
        let key = self.seed_pair(row, &round)?;
        let reused = self.check_nonce(row, &round, key.as_ref());
        let money = self.check_payout(row, &round)?;
        if reused {
            return Ok(());
        }
        self.count(row, &round, key, money)
    }

    /// The row's scheme, game, nonce, result, commitment and seeds.
    fn read_round<'r>(&self, row: &Row<'r>) -> Result<RowRound<'r>, RoundsError>
    where
        'a: 'r,
    {
        let scheme = self.options.scheme;
        if !["", scheme.name()].contains(&row.field("scheme")) {
            return Err(row.bad(
                "scheme",
                format!("'{}' in a history audited as scheme {scheme}", Excerpt(row.field("scheme"))),
            ));
        }
        let name = row.field("game").trim();
        let game = scheme
            .game(name, row.field("params"))
            .map_err(|p| row.bad(if scheme.games().contains(&name) { "params" } else { "game" }, p))?;
        let nonce = parse_nonce(row.field("nonce")).map_err(|e| row.bad("nonce", e.to_string()))?;
        if nonce == u64::MAX {
            // Nonces are kept as half-open ranges, which end at 2^64 - 1 at most.
            return Err(
                row.bad("nonce", "2^64 - 1 is above the largest nonce a history can hold (2^64 - 2)".into())
            );
        }
        let recorded = game.read_result(row.field("result")).map_err(|p| row.bad("result", p))?;
        let given = match row.field("commitment") {
            "" => None,
            text => Some(
                parse_digest(text, "a commitment (SHA-256 of the server seed)")
                    .map_err(|p| row.bad("commitment", p))?,
            ),
        };
        // A row showing only the commitment is replayed with the seed the history reveals
        // for it anywhere (above or below it), as if the row showed it.
        let server = match (row.field("server_seed"), &given) {
            ("", Some(given)) => self.revealed.seed_of(given).unwrap_or(""),
            (server, _) => server,
        };
        Ok(RowRound { game, nonce, recorded, given, server, client: row.field("client_seed") })
    }

    /// The seed pair: its commitment (computed from the revealed server seed, else as
    /// given) and the client seed. A row naming neither seed nor commitment, or in a
    /// history without client seeds, is not placed in any seed pair. A row whose server
    /// seed is revealed is replayed here.
    fn seed_pair(&mut self, row: &Row, round: &RowRound) -> Result<Option<PairKey>, RoundsError> {
        let (server, client) = (round.server, round.client);
        let identified = self.has_client_column && (!server.is_empty() || round.given.is_some());
        if !identified {
            return Ok(None);
        }
        if server.is_empty() {
            return Ok(round.given.clone().map(|commitment| (commitment, client.to_owned())));
        }
        let cached = matches!(&self.prepared, Some((s, c, _, _)) if s == server && c == client);
        if !cached {
            let scheme = self.options.scheme;
            let seed = |problem: String| row.bad("server_seed", problem);
            self.prepared = Some((
                server.to_owned(),
                client.to_owned(),
                scheme.pair(server, client).map_err(seed)?,
                scheme.commitment(server).map_err(seed)?,
            ));
        }
        let (_, _, pair, commitment) = self.prepared.as_ref().expect("prepared above");
        // The result and the commitment, the server seed being revealed.
        let (outcome, _) =
            pair.round(&round.game, round.nonce).map_err(|problem| row.bad("nonce", problem))?;
        // The worked row shows its seed on its own line (a row replayed with a seed
        // revealed on another is not the one to work through).
        if self.audit.first_replayed.is_none() && !row.field("server_seed").is_empty() {
            self.audit.first_replayed = Some(ReplayedRow {
                line: row.line,
                game: round.game,
                server_seed: server.to_owned(),
                client_seed: client.to_owned(),
                nonce: round.nonce,
                result: row.field("result").to_owned(),
            });
        }
        self.audit.replayed += 1;
        if outcome != round.recorded {
            self.report.found(row, "result", round.game.result_text(&outcome), row.field("result"));
        }
        if round.given.as_ref().is_some_and(|given| given != commitment) {
            self.report.found(row, "commitment", commitment.clone(), row.field("commitment"));
        }
        self.committed
            .entry(commitment.clone())
            .or_insert_with(|| (false, row.line, row.field("player").to_owned()))
            .0 |= round.given.is_some();
        Ok(Some((commitment.clone(), client.to_owned())))
    }

    /// A nonce is played once per seed pair (the family's nonce counts every bet of a
    /// seed pair, whatever the game): whether this row's was played before (a finding).
    fn check_nonce(&mut self, row: &Row, round: &RowRound, key: Option<&PairKey>) -> bool {
        let Some(key) = key else { return false };
        let (played, seed) = self.nonces.entry(key.clone()).or_default();
        if played.contains(round.nonce) {
            self.report.found(
                row,
                "nonce_reused",
                "a nonce not played before with this seed pair".into(),
                row.field("nonce"),
            );
            return true;
        }
        played.insert(round.nonce, || RoundAfter {
            game: round.game,
            bet: row.field("bet").to_owned(),
            line: row.line,
            player: row.field("player").to_owned(),
        });
        if seed.is_none() && !round.server.is_empty() {
            *seed = Some(round.server.to_owned());
        }
        false
    }

    /// The payout, where the game's rule is sourced: the stake and payout (as floats, for
    /// the bet tests) of a row whose payout was checked.
    fn check_payout(&mut self, row: &Row, round: &RowRound) -> Result<Option<(f64, f64)>, RoundsError> {
        let (stake_text, payout_text) = (row.field("stake"), row.field("payout"));
        if stake_text.is_empty() && payout_text.is_empty() {
            return Ok(None);
        }
        let amount =
            |column: &'static str, text: &str| Money::parse(text).map_err(|e| row.bad(column, e.to_string()));
        let (wager, paid) = (amount("stake", stake_text)?, amount("payout", payout_text)?);
        let rule = multiplier(&round.game, &round.recorded, row.field("bet"), self.options.keno_paytable)
            .map_err(|p| row.bad("bet", p))?;
        let Some(multiplier) = rule else {
            *self.audit.payouts_unchecked.entry(round.game.name()).or_default() += 1;
            return Ok(None);
        };
        self.audit.payouts_checked += 1;
        let expected = wager.times(multiplier).ok_or_else(|| row.bad("stake", "too large".into()))?;
        let off = expected.distance(paid).ok_or_else(|| row.bad("payout", "too large".into()))?;
        let over = off
            .compare(self.options.payout_tolerance)
            .ok_or_else(|| row.bad("payout", "too large".into()))?;
        if over == std::cmp::Ordering::Greater {
            self.report.found(row, "payout", expected.to_string(), payout_text);
        }
        Ok(Some((wager.to_f64(), paid.to_f64())))
    }

    /// The recorded result counted for the battery: the bet as placed (where its law is
    /// exact), the outcome or draw steps, and the pair it completes.
    fn count(
        &mut self,
        row: &Row,
        round: &RowRound,
        key: Option<PairKey>,
        money: Option<(f64, f64)>,
    ) -> Result<(), RoundsError> {
        let (game, recorded) = (round.game, &round.recorded);
        let index = game_index(&mut self.audit, game);
        // The bet as placed, where its law is exact: a bet read here was read above.
        if let Some(law) =
            bet_law(self.options.scheme, &game, recorded, row.field("bet")).map_err(|p| row.bad("bet", p))?
        {
            law.record(&mut self.audit.bets[index], money);
            if self.has_players {
                law.record(
                    player_bets(&mut self.audit, &mut self.player_index, row.field("player"), index),
                    money,
                );
            }
        }
        let tally = &mut self.audit.tallies[index].1;
        tally.rounds += 1;
        match recorded {
            StakeOutcome::Drawn(drawn) => {
                let first = if game == StakeGame::Keno { 1 } else { 0 };
                for (step, index) in tally.steps.iter_mut().zip(draw_indices(drawn, first)) {
                    step[index] += 1;
                }
            }
            outcome => tally.outcomes[outcome_cell(outcome)] += 1,
        }
        // Rounds 2k and 2k + 1 of one seed pair and game, recorded one after the other (in
        // either order: exports often list the newest first).
        let Some(key) = key else { return Ok(()) };
        let (nonce, class) = (round.nonce, coarse_cell(&game, recorded));
        if let Some((previous, previous_class)) = self.last_round.insert((key, game), (nonce, class)) {
            if previous != nonce && previous / 2 == nonce / 2 {
                let (first, second) =
                    if previous < nonce { (previous_class, class) } else { (class, previous_class) };
                tally.pairs[first * coarse_cells(&game) + second] += 1;
            }
        }
        Ok(())
    }

    /// After the last row: an `uncommitted` finding per server seed revealed without its
    /// commitment, then the gaps in the nonces named and the short ones replayed.
    fn finish(self, keno_payouts: Option<&Payouts>) -> Result<StakeAudit, RoundsError> {
        let Self { options, has_players, mut report, mut audit, mut player_index, nonces, committed, .. } =
            self;
        // A server seed revealed without its commitment on any row is tied to nothing shown
        // before play: a seed ground after play until the large bets lose replays as well as
        // a fair one. One finding per such seed, on the first line that replayed it.
        let mut untied: Vec<(u64, String, String)> = committed
            .into_iter()
            .filter(|(_, (shown, _, _))| !shown)
            .map(|(commitment, (_, line, player))| (line, commitment, player))
            .collect();
        untied.sort_unstable();
        for (line, commitment, player) in untied {
            report.report(&Finding {
                line,
                player,
                check: "uncommitted",
                expected: format!("the seed's commitment {commitment} shown on a row (a `commitment` column): the SHA-256 shown before play"),
                found: "a server seed revealed without its commitment on any row: tied to nothing shown before play".to_owned(),
            });
        }
        audit.findings = report.counts;
        let players = has_players.then_some(&mut player_index);
        let StakeAuditOptions { max_gap_replay, keno_paytable, .. } = options;
        replay_gaps(
            &mut audit,
            nonces,
            max_gap_replay,
            keno_payouts,
            keno_paytable,
            players,
            report.observer,
        )
        .map_err(|(line, problem)| RoundsError::BadField { line, column: "bet", problem })?;
        Ok(audit)
    }
}

/// Names every gap in the seed pairs' nonces (to `observer`, by the line of the round
/// after it) and replays the short ones of revealed seeds with the bet of the round after
/// them, for the skipped-rounds test of that round's game (see [`super::skipped`]).
fn replay_gaps(
    audit: &mut StakeAudit,
    nonces: HashMap<PairKey, (PlayedNonces, Option<String>)>,
    max_gap_replay: u64,
    keno_payouts: Option<&Payouts>,
    keno_paytable: Option<&Paytable>,
    mut player_index: Option<&mut HashMap<String, usize>>,
    observer: &mut impl AuditObserver,
) -> Result<(), (u64, String)> {
    let scheme = audit.scheme;
    audit.nonce_gaps.seed_pairs = nonces.len() as u64;
    // The pairs in a fixed order (they are held by hash), each seed prepared once; every
    // gap replayed here, and counted below in the order of the history's lines.
    let mut pairs: Vec<_> = nonces.into_iter().collect();
    pairs.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut gaps: Vec<(Gap, Option<(RoundAfter, f64)>)> = Vec::new();
    for ((commitment, client), (played, seed)) in pairs {
        // A seed the scheme cannot play was refused on its row.
        let pair = seed.as_deref().and_then(|seed| scheme.pair(seed, &client).ok());
        for gap in played.gaps() {
            let after = gap.after;
            let mut named = Gap {
                line: after.line,
                player: after.player.clone(),
                commitment: commitment.clone(),
                client_seed: client.clone(),
                nonces: gap.nonces.clone(),
                replayed: false,
                would_have_won: 0,
            };
            let mut replayed = None;
            if let Some(pair) = pair.as_ref().filter(|_| gap.nonces.end - gap.nonces.start <= max_gap_replay)
            {
                let line = after.line;
                if let Some(chance) =
                    paying_chance(scheme, &after.game, &after.bet, keno_payouts).map_err(|p| (line, p))?
                {
                    for nonce in gap.nonces.clone() {
                        // A round without a result (its words all rejected) pays nothing.
                        let pays = match pair.round(&after.game, nonce) {
                            Ok((outcome, _)) => {
                                pays_more(scheme, &after.game, &outcome, &after.bet, keno_paytable)
                            }
                            Err(_) => Ok(false),
                        };
                        named.would_have_won += u64::from(pays.map_err(|p| (line, p))?);
                    }
                    named.replayed = true;
                    replayed = Some((after.clone(), chance));
                }
            }
            gaps.push((named, replayed));
        }
    }
    gaps.sort_by_key(|(gap, _)| (gap.line, gap.nonces.start));
    for (gap, replayed) in gaps {
        let count = gap.nonces.end - gap.nonces.start;
        audit.nonce_gaps.gaps += 1;
        audit.nonce_gaps.missing = audit.nonce_gaps.missing.saturating_add(count);
        if let Some((after, chance)) = replayed {
            let index = game_index(audit, after.game);
            audit.bets[index].skipped_rounds(chance, count, gap.would_have_won);
            if let Some(index_of) = player_index.as_deref_mut() {
                player_bets(audit, index_of, &after.player, index).skipped_rounds(
                    chance,
                    count,
                    gap.would_have_won,
                );
            }
            audit.nonce_gaps.replayed += count;
        }
        observer.gap(&gap);
    }
    Ok(())
}

/// The exact chance that `bet` on `game` pays more than its stake on a fair round, where
/// it follows from the bet alone (Keno's from the paytable, `keno_payouts`): roulette (a
/// bet covering `c` of 37 pockets, paying 36/c), limbo (the chance of reaching the target),
/// plinko (its table's buckets above 1x, `Binomial(rows, 1/2)`) and Keno with a paytable.
/// `None` for dice and mines (no bet or payout rule read yet) and a bet left empty.
fn paying_chance(
    scheme: KeyedScheme,
    game: &StakeGame,
    bet: &str,
    keno_payouts: Option<&Payouts>,
) -> Result<Option<f64>, String> {
    Ok(match game {
        StakeGame::Roulette if !bet.is_empty() => {
            let covered = PlacedBet::parse_roulette(Wheel::European, bet)?.pick_count();
            Some(if covered < 36 { covered as f64 / 37.0 } else { 0.0 })
        }
        StakeGame::Limbo(formula) if !bet.is_empty() => {
            Some(limbo_reaching(*formula, limbo_target(game, bet)?) as f64 / FLOATS as f64)
        }
        StakeGame::Plinko { rows, risk } => {
            let paying = plinko_multipliers(*rows, *risk)
                .iter()
                .enumerate()
                .filter(|(_, m)| m.to_f64().is_some_and(|m| m > 1.0))
                .map(|(bucket, _)| binomial_half(u32::from(*rows), bucket as u32))
                .sum();
            Some(paying)
        }
        StakeGame::Dice if !bet.is_empty() => {
            let bet = DiceBet::parse(bet)?;
            Some(if bet.pays_when_won(scheme) { bet.chance(scheme) } else { 0.0 })
        }
        StakeGame::Keno if !bet.is_empty() => match keno_payouts {
            Some(payouts) => Some(payouts.keno_paying_probability(keno_picks(bet)?.len())),
            None => None,
        },
        _ => None,
    })
}

/// Whether `bet` on `game` pays more than its stake on `outcome`: a dice bet when it wins
/// (below [`DICE_PAYING_BELOW`]), any other by its published multiplier.
fn pays_more(
    scheme: KeyedScheme,
    game: &StakeGame,
    outcome: &StakeOutcome,
    bet: &str,
    keno_paytable: Option<&Paytable>,
) -> Result<bool, String> {
    if let (StakeGame::Dice, StakeOutcome::Roll(roll)) = (game, outcome) {
        let bet = DiceBet::parse(bet)?;
        return Ok(bet.pays_when_won(scheme) && bet.wins(*roll));
    }
    let paid = multiplier(game, outcome, bet, keno_paytable)?;
    Ok(paid.is_some_and(|m| m.compare(Money::whole(1)) == Some(std::cmp::Ordering::Greater)))
}

/// `C(n, k) / 2^n`: a plinko ball's chance of landing in bucket `k` of `n` rows.
fn binomial_half(n: u32, k: u32) -> f64 {
    let mut chance = 1.0 / f64::from(1u32 << n);
    for i in 0..k {
        chance = chance * f64::from(n - i) / f64::from(i + 1);
    }
    chance
}

/// The bets of `player` on the game at `index` of the audit's tallies (the player added
/// when new, their games when the audit has more).
fn player_bets<'a>(
    audit: &'a mut StakeAudit,
    index_of: &mut HashMap<String, usize>,
    player: &str,
    index: usize,
) -> &'a mut BetTally {
    let at = *index_of.entry(player.to_owned()).or_insert_with(|| {
        audit.players.push((player.to_owned(), Vec::new()));
        audit.players.len() - 1
    });
    let games = &mut audit.players[at].1;
    if games.len() <= index {
        games.resize_with(index + 1, BetTally::new);
    }
    &mut games[index]
}

/// The position of `game` in the audit's tallies (and bets), added when new.
fn game_index(audit: &mut StakeAudit, game: StakeGame) -> usize {
    match audit.tallies.iter().position(|(g, _)| *g == game) {
        Some(index) => index,
        None => {
            let mut tally = StakeTally::empty(&game);
            if let StakeGame::Plinko { .. } = game {
                tally.steps.clear();
            }
            audit.tallies.push((game, tally));
            audit.bets.push(BetTally::new());
            audit.tallies.len() - 1
        }
    }
}

/// What a bet returns per unit stake for the recorded outcome, by the game's published
/// rule (Keno: by `keno_paytable`); `None` where fairaudit has no sourced rule for the game.
fn multiplier(
    game: &StakeGame,
    outcome: &StakeOutcome,
    bet: &str,
    keno_paytable: Option<&Paytable>,
) -> Result<Option<Money>, String> {
    Ok(Some(match (game, outcome) {
        (StakeGame::Keno, StakeOutcome::Drawn(drawn)) => {
            let Some(paytable) = keno_paytable else { return Ok(None) };
            let picks = keno_picks(bet)?;
            let hits = picks.iter().filter(|pick| drawn.contains(pick)).count();
            Money::from_ratio(paytable.multiplier(picks.len(), hits)).ok_or("a multiplier beyond amounts")?
        }
        (StakeGame::Plinko { rows, risk }, StakeOutcome::Bucket(bucket)) => {
            let table = plinko_multipliers(*rows, *risk);
            let value = &table[usize::from(*bucket)];
            Money::from_ratio(value).ok_or("a multiplier beyond amounts")?
        }
        (StakeGame::Limbo(_), StakeOutcome::Multiplier(multiplier)) => {
            let target = limbo_target(game, bet)?;
            if multiplier.is_none_or(|m| m >= target) {
                Money::parse(bet).expect("a target is an amount")
            } else {
                Money::whole(0)
            }
        }
        (StakeGame::Roulette, StakeOutcome::Pocket(pocket)) => {
            let placed = PlacedBet::parse_roulette(Wheel::European, bet)?;
            if placed.covers(*pocket) {
                Money::whole(36 / placed.pick_count() as u64)
            } else {
                Money::whole(0)
            }
        }
        _ => return Ok(None),
    }))
}

/// A limbo bet's target in hundredths: written as results are (two decimals, no leading
/// zeros), from 1.01x to 1,000,000.00x, Stake's range.
fn limbo_target(game: &StakeGame, bet: &str) -> Result<u64, String> {
    match game.read_result(bet) {
        Ok(StakeOutcome::Multiplier(Some(target))) if (101..=100_000_000).contains(&target) => Ok(target),
        _ => Err(format!(
            "limbo's bet is its target multiplier with two decimals, 1.01 to 1000000.00 (e.g. 2.00), not '{}'",
            Excerpt(bet)
        )),
    }
}

/// What the bet tests read of a bet: its exact law under fairness, and how it fared.
#[derive(Clone, Copy, Debug, PartialEq)]
struct BetLaw {
    /// The return per unit stake, where its law is exact from the bet alone.
    returns: Option<ReturnLaw>,
    /// Roulette: the pockets covered, and whether the recorded pocket is one of them.
    roulette: Option<(usize, bool)>,
    /// Keno: how many numbers were picked, and how many of them were drawn (hypergeometric
    /// under fairness, whatever the numbers).
    keno: Option<(usize, u32)>,
    /// Dice, and limbo below about 1.98x: the words the bet wins on, of the words its pick
    /// accepts (2^32 floats for stake's), and whether it won (`bet_wins` on their exact law).
    chance: Option<((u64, u64), bool)>,
}

impl BetLaw {
    /// Counts the bet in `bets`, with its `money` (stake and payout) where recorded.
    fn record(&self, bets: &mut BetTally, money: Option<(f64, f64)>) {
        if let Some((covered, won)) = self.roulette {
            bets.roulette(covered, won);
        }
        if let Some((picks, hits)) = self.keno {
            bets.keno(picks, hits);
        }
        if let Some((winning, won)) = self.chance {
            bets.chance_bet(winning, won);
        }
        if let (Some((wager, paid)), Some(returns)) = (money, self.returns) {
            bets.money(wager, paid, returns.mean, returns.variance);
            bets.payable(wager * returns.step);
        }
    }
}

/// A bet's return per unit stake under fairness.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ReturnLaw {
    /// The mean return.
    mean: f64,
    /// Its variance.
    variance: f64,
    /// The common divisor of what the bet can return (the lattice of the return test).
    step: f64,
}

/// The law of the bet `bet` on `game` (with the recorded `outcome`), where fairaudit knows
/// it exactly from the bet alone: roulette (a bet covering `c` of 37 pockets returns
/// `36/c` with chance `c/37`), limbo (the target `t` with the chance that the multiplier
/// reaches it, counted over the 2^32 floats, where that chance is at most 1/2) and plinko
/// (its table, `Binomial(rows, 1/2)` buckets), and Keno's hits on the numbers picked (its return needs the operator's
/// paytable, so it has none here). `None` for the other games, and for a roulette, limbo
/// or Keno row without a bet. Dice's wins (`over:T`, `under:T`) and limbo's below about
/// 1.98x (left out of the return) have the exact chance of the bet ([`BetLaw::chance`]).
/// Mines' payout rule is not sourced.
fn bet_law(
    scheme: KeyedScheme,
    game: &StakeGame,
    outcome: &StakeOutcome,
    bet: &str,
) -> Result<Option<BetLaw>, String> {
    // `bet_return` reads the normal lower tail, which is conservative for returns skewed
    // to the right (rare large prizes) and liberal for returns skewed to the left: a bet
    // that wins more often than not (limbo below about 2x) loses rarely, and a fair player
    // whose 1.01x bets lost 4 of 30 FAILed at p 7e-5 (exact 0.0018). So only bets whose
    // return has no left skew enter it.
    let two_point = |pays: f64, chance: f64| {
        (chance <= 0.5).then_some(ReturnLaw {
            mean: pays * chance,
            variance: pays * pays * chance * (1.0 - chance),
            step: pays,
        })
    };
    Ok(Some(match (game, outcome) {
        (StakeGame::Roulette, StakeOutcome::Pocket(pocket)) if !bet.is_empty() => {
            let placed = PlacedBet::parse_roulette(Wheel::European, bet)?;
            let covered = placed.pick_count();
            let returns = two_point(36.0 / covered as f64, covered as f64 / 37.0);
            BetLaw { returns, roulette: Some((covered, placed.covers(*pocket))), keno: None, chance: None }
        }
        (StakeGame::Limbo(formula), StakeOutcome::Multiplier(multiplier)) if !bet.is_empty() => {
            let target = limbo_target(game, bet)?;
            let reaching = limbo_reaching(*formula, target);
            let returns = two_point(target as f64 / 100.0, reaching as f64 / FLOATS as f64);
            // A bet left out of `bet_return` (it wins more often than not) is judged by its wins.
            let chance =
                returns.is_none().then(|| ((reaching, FLOATS), multiplier.is_none_or(|m| m >= target)));
            BetLaw { returns, roulette: None, keno: None, chance }
        }
        (StakeGame::Dice, StakeOutcome::Roll(roll)) if !bet.is_empty() => {
            let bet = DiceBet::parse(bet)?;
            BetLaw {
                returns: None,
                roulette: None,
                keno: None,
                chance: Some((bet.winning(scheme), bet.wins(*roll))),
            }
        }
        (StakeGame::Plinko { rows, risk }, StakeOutcome::Bucket(_)) => {
            let table: Vec<f64> = plinko_multipliers(*rows, *risk)
                .iter()
                .map(|m| m.to_f64().expect("a small decimal"))
                .collect();
            let chances: Vec<f64> =
                (0..table.len() as u32).map(|bucket| binomial_half(u32::from(*rows), bucket)).collect();
            let moment = |power: i32, about: f64| -> f64 {
                chances.iter().zip(&table).map(|(c, m)| c * (m - about).powi(power)).sum()
            };
            let mean = moment(1, 0.0);
            let step = table.iter().fold(0.0, |step, &m| common_step(step, m));
            // Every published table pays most at its edges (right skew); checked all the same.
            let returns =
                (moment(3, mean) >= 0.0).then(|| ReturnLaw { mean, variance: moment(2, mean), step });
            BetLaw { returns, roulette: None, keno: None, chance: None }
        }
        (StakeGame::Keno, StakeOutcome::Drawn(drawn)) if !bet.is_empty() => {
            let picks = keno_picks(bet)?;
            let hits = picks.iter().filter(|pick| drawn.contains(pick)).count() as u32;
            BetLaw { returns: None, roulette: None, keno: Some((picks.len(), hits)), chance: None }
        }
        _ => return Ok(None),
    }))
}

/// A dice bet: `over:T` wins on a roll above the target `T`, `under:T` on one below it,
/// `T` written as rolls are (two decimals, 0.00 to 100.00), kept in hundredths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DiceBet {
    over: bool,
    target: u32,
}

/// A winning dice bet pays more than its stake below this chance. Dice's payout rule is not
/// taken from a primary source yet (its payouts are not judged), so only this much of it is
/// assumed: a win returns about `(1 − edge) / chance` times the stake with an edge of a few
/// percent at most, which is above 1 for every chance below 0.99 (the operators of the
/// family offer at most 98%).
const DICE_PAYING_BELOW: f64 = 0.99;

impl DiceBet {
    fn parse(bet: &str) -> Result<DiceBet, String> {
        let parsed = bet.split_once(':').and_then(|(direction, target)| {
            let over = match direction {
                "over" => true,
                "under" => false,
                _ => return None,
            };
            match StakeGame::Dice.read_result(target) {
                Ok(StakeOutcome::Roll(target)) => Some(DiceBet { over, target }),
                _ => None,
            }
        });
        parsed.ok_or_else(|| {
            format!(
                "dice's bet is its direction and target, over:T or under:T with T written as rolls are (e.g. over:50.50), not '{}'",
                Excerpt(bet)
            )
        })
    }

    /// Whether it wins on `roll` (hundredths): above the target when over, below it when under.
    fn wins(self, roll: u32) -> bool {
        if self.over {
            roll > self.target
        } else {
            roll < self.target
        }
    }

    /// The words it wins on, of the words a roll's pick by `scheme` accepts.
    fn winning(self, scheme: KeyedScheme) -> (u64, u64) {
        (dice_winning(scheme, self.target, self.over), scheme.words_of_law(crate::games::dice::ROLLS))
    }

    /// Its exact chance of winning.
    fn chance(self, scheme: KeyedScheme) -> f64 {
        let (winning, of) = self.winning(scheme);
        winning as f64 / of as f64
    }

    /// Whether a win pays more than the stake: below the published return where the scheme
    /// publishes its dice rule (a win pays return / chance), else [`DICE_PAYING_BELOW`].
    fn pays_when_won(self, scheme: KeyedScheme) -> bool {
        let below = scheme.dice_returns().map_or(DICE_PAYING_BELOW, |(num, den)| num as f64 / den as f64);
        self.chance(scheme) < below
    }
}

/// The numbers a Keno bet picks: 1 to 10 different numbers of 1 to 40, one space apart
/// (written as results are, in any order).
fn keno_picks(bet: &str) -> Result<Vec<u8>, String> {
    match crate::scheme::stake::read_numbers(bet, 1, 40) {
        Some(picks) if (1..=10).contains(&picks.len()) => Ok(picks),
        _ => Err(format!(
            "Keno's bet is the numbers picked: 1 to 10 different numbers of 1 to 40, one space apart (e.g. 3 17 40), not '{}'",
            Excerpt(bet)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::stake::{LimboFormula, Risk};

    #[test]
    fn why_a_payout_went_unchecked_names_the_scheme_s_rule() {
        assert!(why_unchecked(KeyedScheme::Stake, "dice").contains("not taken from a primary source"));
        let duel = why_unchecked(KeyedScheme::Duel, "dice");
        assert!(
            duel.contains("0.999 / chance") && !duel.contains("not taken from a primary source"),
            "{duel}"
        );
        assert!(why_unchecked(KeyedScheme::Duel, "keno").contains("--paytable"));
    }

    #[test]
    fn multipliers_follow_the_published_rules() {
        let limbo = StakeGame::Limbo(LimboFormula::Fair);
        let pays = |game: &StakeGame, outcome: StakeOutcome, bet: &str| {
            multiplier(game, &outcome, bet, None).map(|m| m.map(|m| m.to_string()))
        };
        // Infinity reaches every target; a multiplier reaches a target equal to it.
        assert_eq!(pays(&limbo, StakeOutcome::Multiplier(None), "1000000.00"), Ok(Some("1000000".into())));
        assert_eq!(pays(&limbo, StakeOutcome::Multiplier(Some(200)), "2.00"), Ok(Some("2".into())));
        assert_eq!(pays(&limbo, StakeOutcome::Multiplier(Some(199)), "2.00"), Ok(Some("0".into())));
        for bad in ["2", "0002.00", "1.00", "1000000.01", "2.5"] {
            assert!(pays(&limbo, StakeOutcome::Multiplier(Some(300)), bad).is_err(), "{bad}");
        }
        let plinko = StakeGame::Plinko { rows: 16, risk: Risk::High };
        assert_eq!(pays(&plinko, StakeOutcome::Bucket(2), ""), Ok(Some("26".into())));
        assert_eq!(pays(&plinko, StakeOutcome::Bucket(8), ""), Ok(Some("0.2".into())));
        assert_eq!(pays(&StakeGame::Roulette, StakeOutcome::Pocket(0), "straight:0"), Ok(Some("36".into())));
        assert_eq!(pays(&StakeGame::Roulette, StakeOutcome::Pocket(1), "split:1-2"), Ok(Some("18".into())));
        assert_eq!(pays(&StakeGame::Roulette, StakeOutcome::Pocket(0), "red"), Ok(Some("0".into())));
        assert_eq!(pays(&StakeGame::Dice, StakeOutcome::Roll(5000), ""), Ok(None));
        // Keno without a paytable is unchecked, whatever its bet.
        let drawn = StakeOutcome::Drawn(vec![3, 17, 40, 1, 2, 4, 5, 6, 7, 8]);
        assert_eq!(pays(&StakeGame::Keno, drawn, "3 9"), Ok(None));
    }

    #[test]
    fn keno_pays_the_paytable_for_the_hits_of_the_numbers_picked() {
        let paytable = Paytable::example();
        let pays = |bet: &str| {
            let drawn = StakeOutcome::Drawn(vec![3, 17, 40, 1, 2, 4, 5, 6, 7, 8]);
            multiplier(&StakeGame::Keno, &drawn, bet, Some(&paytable)).map(|m| m.map(|m| m.to_string()))
        };
        let row = |picks: usize, hits: usize| {
            Money::from_ratio(paytable.multiplier(picks, hits)).map(|m| m.to_string())
        };
        // Picks in any order; the hits are the picks among the ten drawn.
        assert_eq!(pays("40 3"), Ok(row(2, 2)));
        assert_eq!(pays("9"), Ok(row(1, 0)));
        assert_eq!(pays("3 9 10 11 12 13 14 15 16 17"), Ok(row(10, 2)));
        for bad in ["", "0", "41", "3 3", "03", "3  9", "1 2 3 4 5 6 7 8 9 10 11", "a"] {
            assert!(pays(bad).unwrap_err().starts_with("Keno's bet is the numbers picked"), "{bad:?}");
        }
    }
}
