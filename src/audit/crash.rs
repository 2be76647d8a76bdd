//! Auditing a bet history of a crash game (`audit --scheme bustabit-v1|roobet`), in one
//! streaming pass. A row is one bet on one game: the game's number (`nonce`), its crash
//! point as shown (`result`), and where the history has them the game's hash
//! (`server_seed`), the salt (`client_seed`, the scheme's published one when empty), the
//! player, the cash-out target (`bet`, empty for a bet that never cashed out), `stake`
//! and `payout`.
//!
//! * **row checks** ([`Finding`]s with their lines): the crash point against the game
//!   replayed from its hash; every row of a game giving the same hash and crash point;
//!   consecutive games' hashes linked (the higher hashes down to the lower, across gaps of
//!   up to [`MAX_WALK`] games); the games in one order (rising or falling: a history lists
//!   a game's bets together); the payout against stake × target when the target is at or
//!   below the crash point (and the game did not crash at once), else nothing; every
//!   row's salt the chain's, set by the first row stating one and moved once at most, at
//!   a reseed between two published seeding events' salts (`salt`: a salt chosen per game
//!   could give any crash point from a genuine hash); a game without its hash between two
//!   linked ones against the hash the link's walk gives it (`result`).
//! * **games missing**: every stretch of game numbers the history skips between its first
//!   and last game, named (a full game log has none; a player's history skips the games
//!   they sat out).
//! * **the battery** on the games' crash points, one count per game, against the exact
//!   law ([`crate::stats::crash`]); runs of instant crashes only on an unbroken range.
//!   A Roobet game without its hash is not counted: its instant crash and a 1.00x crash
//!   are both shown 1.00.
//!
//! * **the published game**: after the last row, the games with hashes of each chain whose
//!   published game fairaudit holds are walked to it once ([`walk_rows`]); a game not on
//!   the chain through the published hash is a `published` finding on its first line.
//!
//! Memory is bounded: the current game, the one before, the stretches of games missing,
//! one hash per game of a published chain (48 bytes, up to [`MAX_ROWS`] games), and the
//! games without a hash since the last one with a hash (up to [`MAX_WALK`] games and
//! [`UNHASHED_BYTES`] of their player ids and salts).

use super::money::Money;
use super::Finding;
use crate::columns::CsvLayout;
use crate::fields::{parse_nonce, Excerpt};
use crate::scheme::crash::{self, CrashPoint, CrashVariant};
use crate::sweep::crash::MAX_LINK_WALK;
use crate::tally::crash::CrashTally;
use crate::verify::published::MAX_WALK;
use crate::verify::published::{walk_rows, ChainRow, MAX_ROWS};
use crate::verify::RoundsError;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::ops::RangeInclusive;

/// The fields a crash history may have, by their names in `docs/audit.md`.
pub const FIELDS: [&str; 10] =
    ["scheme", "game", "result", "nonce", "server_seed", "client_seed", "player", "bet", "stake", "payout"];

/// Stretches of missing games named one by one, at most; the rest are counted.
pub const MISSING_NAMED: usize = 100;

/// What an audit of a crash history found.
#[derive(Clone, Debug, Default)]
pub struct CrashAudit {
    /// Rows (bets) read.
    pub rows: u64,
    /// Distinct games.
    pub games: u64,
    /// Games replayed from their hashes.
    pub replayed: u64,
    /// Links walked between consecutive games with hashes (each game's hash, walked down,
    /// must give the next lower one's).
    pub linked: u64,
    /// Consecutive games with hashes not linked: another salt, or more than [`MAX_WALK`]
    /// games apart.
    pub unlinked: u64,
    /// Games without a hash: neither replayed nor linked.
    pub hashless: u64,
    /// Games without a hash between two linked games with hashes: the link's walk gave
    /// their hashes, and their crash points were checked against them (not counted in
    /// `hashless`).
    pub derived: u64,
    /// Rows whose salt is none of the scheme's published seeding events'.
    pub other_salts: u64,
    /// Payouts checked.
    pub payouts_checked: u64,
    /// Findings per check (each one went to `on_finding` as it was made).
    pub findings: BTreeMap<&'static str, u64>,
    /// The first [`MISSING_NAMED`] stretches of games the history skips.
    pub missing: Vec<RangeInclusive<u64>>,
    /// Games missing in all.
    pub missing_games: u64,
    /// The games' crash points, counted once per game.
    pub tally: CrashTally,
    /// Games not counted: Roobet games without their hash.
    pub uncounted: u64,
    /// Games with hashes on the chain through their published game, walked to it.
    pub on_published: u64,
    /// Games with hashes of a published chain that were not walked to its published game:
    /// more than 10^8 links from it, beyond the disagreeing hashes followed, beyond the
    /// walk's budget for a file of its size, or beyond [`MAX_ROWS`] games kept.
    pub not_walked: u64,
    /// Links walked to the published games.
    pub published_steps: u64,
    /// Games the audit could not tie to a commitment (each cause is one `uncommitted`
    /// finding, see [`Untied`]): without their hash and not checked through a link, on a
    /// salt whose chain has no published hash fairaudit holds, not walked to the published
    /// game, or below the first game played on its chain.
    pub untied: u64,
    /// The first game given with its hash: its number, hash and salt (a certificate
    /// works it through).
    pub first_hashed: Option<(u64, String, String)>,
}

impl CrashAudit {
    /// Whether any game was replayed from its hash, linked to the next one or to the
    /// published game, or had a payout checked (see [`super::Audit::has_row_checks`]).
    pub fn has_row_checks(&self) -> bool {
        self.replayed > 0
            || self.linked > 0
            || self.derived > 0
            || self.on_published > 0
            || self.payouts_checked > 0
    }
}

/// The game whose rows are being read.
struct Game {
    number: u64,
    hash: Option<String>,
    shown: u64,
    line: u64,
}

/// A game given without its hash since the last game with one: its hash is known once the
/// next game with one is linked across it.
struct Unhashed {
    number: u64,
    shown: u64,
    /// Its salt, where its row states one (else the link's).
    salt: Option<String>,
    line: u64,
    player: String,
}

/// The games without a hash kept at once, by the bytes of their player ids and salts: a
/// hostile file's megabyte-long ids cannot make the buffer grow past this (a game not kept
/// stays unchecked, as it was before links gave hashes).
const UNHASHED_BYTES: usize = 16 << 20;

/// The salt of the history's chain, the line that set it, and whether it has moved once
/// from one published seeding event's to another's.
struct ChainSalt {
    salt: String,
    line: u64,
    reseeded: bool,
}

/// The last game whose hash the history gave: the one the next hash is linked to.
struct Hashed {
    number: u64,
    hash: String,
    salt: String,
    line: u64,
}

/// Reads a crash history of `variant` (a header row; `nonce` and `result` required) and
/// audits it; `on_finding` sees each finding as it is made.
///
/// # Errors
/// A malformed row (another scheme or game, a game hash that is not 64 lowercase hex
/// digits, a crash point or target not written with two decimals, a bad amount) stops the
/// audit with its line and column.
pub fn audit_crash_history<R: Read>(
    input: R,
    layout: &CsvLayout,
    variant: CrashVariant,
    scheme: &'static str,
    payout_tolerance: Money,
    on_finding: impl FnMut(&Finding),
) -> Result<CrashAudit, RoundsError> {
    let mut reader = layout.reader(input);
    let headers = reader.headers()?.clone();
    let columns = crash_columns(layout, &headers)?;
    let mut auditor = CrashAuditor::new(variant, scheme, payout_tolerance, on_finding);
    let mut record = csv::StringRecord::new();
    while reader.read_record(&mut record)? {
        auditor.audit.rows += 1;
        let line = record.position().map_or(0, csv::Position::line);
        auditor.audit_row(&Row { line, record: &record, columns: &columns })?;
    }
    Ok(auditor.finish())
}

/// The columns of a crash history, by field: `nonce` and `result` required, `stake` and
/// `payout` both or neither (a payout cannot be judged without its stake).
fn crash_columns(
    layout: &CsvLayout,
    headers: &csv::StringRecord,
) -> Result<HashMap<&'static str, usize>, RoundsError> {
    let found = layout.columns.locate(headers, &FIELDS)?;
    let columns: HashMap<&str, usize> = FIELDS.iter().filter_map(|&f| found.get(f).map(|i| (f, i))).collect();
    for required in ["nonce", "result"] {
        columns.get(required).ok_or(RoundsError::MissingColumn(required))?;
    }
    if columns.contains_key("stake") != columns.contains_key("payout") {
        return Err(RoundsError::MissingColumn(if columns.contains_key("stake") {
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
    columns: &'r HashMap<&'static str, usize>,
}

impl<'r> Row<'r> {
    /// The cell of `name`, empty where the history has no such column.
    fn field(&self, name: &str) -> &'r str {
        self.columns.get(name).and_then(|&i| self.record.get(i)).unwrap_or("")
    }

    /// The error that stops the audit at this row's `column`.
    fn bad(&self, column: &'static str, problem: String) -> RoundsError {
        RoundsError::BadField { line: self.line, column, problem }
    }
}

/// What a row says of its game, read and validated before any check.
struct RowGame<'r> {
    number: u64,
    shown: u64,
    hash: Option<String>,
    /// The salt the row is played with: its own, else the scheme's published one.
    salt: &'r str,
}

/// Passes each finding on as it is made and counts it per check (the counts become
/// [`CrashAudit::findings`] at the end). Apart from the audit so that a check can report
/// while it holds the game it is checking.
struct Reporter<F> {
    on_finding: F,
    counts: BTreeMap<&'static str, u64>,
}

impl<F: FnMut(&Finding)> Reporter<F> {
    fn report(&mut self, finding: &Finding) {
        (self.on_finding)(finding);
        *self.counts.entry(finding.check).or_default() += 1;
    }

    /// A finding on `row`, named by its player.
    fn found(&mut self, row: &Row, check: &'static str, expected: String, found: String) {
        self.report(&Finding {
            line: row.line,
            player: row.field("player").to_owned(),
            check,
            expected,
            found,
        });
    }
}

/// The state of one audit of a crash history between its rows: what has been counted, the
/// game being read, the links so far, and the games kept to walk to the published game.
struct CrashAuditor<F> {
    variant: CrashVariant,
    scheme: &'static str,
    payout_tolerance: Money,
    report: Reporter<F>,
    audit: CrashAudit,
    current: Option<Game>,
    links: Links,
    /// The chain's salt, from the first row that states one.
    chain_salt: Option<ChainSalt>,
    /// Rising (true) or falling, once two games have been seen.
    rising: Option<bool>,
    /// The games with hashes of each published chain, by salt, to walk after the last row.
    published: BTreeMap<String, Vec<ChainRow>>,
    /// Games with hashes whose chain has no published hash fairaudit holds, per salt.
    unpublished: BTreeMap<String, Untied>,
    /// The first game given without its hash (the games not checked through a link are
    /// one `uncommitted` finding, named by it).
    first_hashless: Option<u64>,
    /// Games of a published chain beyond the [`MAX_ROWS`] kept to walk.
    unkept: Untied,
}

impl<F: FnMut(&Finding)> CrashAuditor<F> {
    fn new(variant: CrashVariant, scheme: &'static str, payout_tolerance: Money, on_finding: F) -> Self {
        CrashAuditor {
            variant,
            scheme,
            payout_tolerance,
            report: Reporter { on_finding, counts: BTreeMap::new() },
            audit: CrashAudit { tally: CrashTally::new(), ..CrashAudit::default() },
            current: None,
            links: Links::default(),
            chain_salt: None,
            rising: None,
            published: BTreeMap::new(),
            unpublished: BTreeMap::new(),
            first_hashless: None,
            unkept: Untied::default(),
        }
    }

    /// Every check of one row, in the order its findings are reported.
    fn audit_row(&mut self, row: &Row) -> Result<(), RoundsError> {
        let game = self.read_game(row)?;
        self.audit.other_salts += u64::from(!self.variant.published_salts().contains(&game.salt));
        self.check_salt(row, &game);
        let point = self.replay(row, &game);
        match self.current.as_ref() {
            Some(current) if current.number == game.number => self.same_game(row, &game),
            _ => {
                if !self.new_game(row, &game, point) {
                    return Ok(());
                }
            }
        }
        self.check_payout(row, &game, point)?;
        self.report_late();
        Ok(())
    }

    /// The row's scheme, game, number, crash point shown, hash and salt.
    fn read_game<'r>(&self, row: &Row<'r>) -> Result<RowGame<'r>, RoundsError> {
        let scheme = self.scheme;
        let given_scheme = row.field("scheme");
        if !given_scheme.is_empty() && given_scheme != scheme {
            return Err(row.bad(
                "scheme",
                format!("'{}' in a history audited as scheme {scheme}", Excerpt(given_scheme)),
            ));
        }
        if !matches!(row.field("game"), "" | "crash") {
            return Err(row.bad(
                "game",
                format!("'{}' is not a game of scheme {scheme} (expected crash)", Excerpt(row.field("game"))),
            ));
        }
        let number = parse_nonce(row.field("nonce")).map_err(|e| row.bad("nonce", e.to_string()))?;
        let shown = crash::read_shown(row.field("result")).map_err(|p| row.bad("result", p))?;
        let hash = match row.field("server_seed") {
            "" => None,
            text if crash::is_game_hash(text) => Some(text.to_owned()),
            text => {
                return Err(row.bad(
                    "server_seed",
                    format!("'{}' is not a game hash: 64 lowercase hex digits", Excerpt(text)),
                ))
            }
        };
        let salt = match row.field("client_seed") {
            "" => self.variant.salt(),
            salt => salt,
        };
        Ok(RowGame { number, shown, hash, salt })
    }

    /// One history, one chain, one salt: a salt chosen per game could give any crash
    /// point from a genuine hash, so a row whose salt differs from the chain's is a
    /// finding (and is replayed with its own salt, as the operator claims). The one
    /// change allowed is a reseed: once, from one published seeding event's salt to
    /// another's. A row without a hash and with an empty salt cell states no salt.
    fn check_salt(&mut self, row: &Row, game: &RowGame) {
        if game.hash.is_none() && row.field("client_seed").is_empty() {
            return;
        }
        let (salt, line) = (game.salt, row.line);
        let is_published = |salt: &str| self.variant.published_salts().contains(&salt);
        match &mut self.chain_salt {
            None => self.chain_salt = Some(ChainSalt { salt: salt.to_owned(), line, reseeded: false }),
            Some(chain) if chain.salt == salt => {}
            Some(chain) if !chain.reseeded && is_published(&chain.salt) && is_published(salt) => {
                *chain = ChainSalt { salt: salt.to_owned(), line, reseeded: true };
            }
            Some(chain) => self.report.found(
                row,
                "salt",
                format!(
                    "{}, the salt of line {}: the games of a history share one salt (or move once, at a reseed, from one published seeding event's to another's)",
                    chain.salt, chain.line
                ),
                salt.to_owned(),
            ),
        }
    }

    /// The game replayed from its hash, where the row gives it: its crash point.
    fn replay(&mut self, row: &Row, game: &RowGame) -> Option<CrashPoint> {
        let hash = game.hash.as_ref()?;
        let point = crash::crash_point(self.variant, hash, game.salt);
        if self.variant.shown_hundredths(point) != game.shown {
            self.report.found(row, "result", self.variant.shown(point), row.field("result").to_owned());
        }
        Some(point)
    }

    /// Another row of the game being read: it must agree with the first on the crash point
    /// and the hash (and may give the hash the earlier rows left out).
    fn same_game(&mut self, row: &Row, now: &RowGame) {
        let number = now.number;
        let game = self.current.as_mut().expect("the game being read");
        if game.shown != now.shown {
            let expected =
                format!("{} (game {number} on line {})", crash::hundredths_text(game.shown), game.line);
            self.report.found(row, "game_result", expected, row.field("result").to_owned());
        }
        match (&game.hash, &now.hash) {
            (Some(before), Some(hash)) if before != hash => {
                let expected = format!("{before} (game {number} on line {})", game.line);
                self.report.found(row, "game_hash", expected, hash.clone());
            }
            (None, Some(hash)) => {
                game.hash = Some(hash.clone());
                self.audit.hashless -= 1;
                self.links.unhashed.pop_if(|game| game.number == number);
                self.link(row, number, hash, now.salt);
            }
            _ => {}
        }
    }

    /// The first row of a new game: its order against the game before, the games skipped
    /// between them, its link or its place among the games without a hash, and its count.
    /// `false` when it is out of order: the rest of the row is not checked, and the game
    /// before stays the current one.
    fn new_game(&mut self, row: &Row, now: &RowGame, point: Option<CrashPoint>) -> bool {
        let number = now.number;
        let game = Game { number, hash: now.hash.clone(), shown: now.shown, line: row.line };
        if let Some(before) = self.current.replace(game) {
            if !self.follows(row, number, &before) {
                self.current = Some(before);
                return false;
            }
        }
        self.audit.games += 1;
        match &now.hash {
            Some(hash) => self.link(row, number, hash, now.salt),
            None => self.keep_unhashed(row, now),
        }
        self.count(now, point);
        true
    }

    /// Whether game `number` comes after `before` in the history's order (rising or
    /// falling, set by the first two games), else a `game_order` finding; the games it
    /// skips are counted missing.
    fn follows(&mut self, row: &Row, number: u64, before: &Game) -> bool {
        let up = number > before.number;
        if *self.rising.get_or_insert(up) != up {
            self.report.found(
                row,
                "game_order",
                format!(
                    "a game {} game {} (line {})",
                    if up { "below" } else { "above" },
                    before.number,
                    before.line
                ),
                number.to_string(),
            );
            return false;
        }
        let steps = number.abs_diff(before.number);
        if steps > 1 {
            self.audit.tally.gap();
            self.audit.missing_games += steps - 1;
            if self.audit.missing.len() < MISSING_NAMED {
                let (low, high) = (number.min(before.number), number.max(before.number));
                self.audit.missing.push(low + 1..=high - 1);
            }
        }
        true
    }

    /// Game `number`'s hash, given on `row`: linked to the last game given with one (a
    /// `link` finding where they do not join), and kept to walk to the published game.
    fn link(&mut self, row: &Row, number: u64, hash: &str, salt: &str) {
        let before = self.links.linked;
        let broken = self.links.hashed(self.variant, number, hash, salt, row.line);
        self.keep(number, hash, salt, row.line, self.links.linked > before);
        if let Some(expected) = broken {
            self.report.found(row, "link", expected, hash.to_owned());
        }
    }

    /// Keeps a game's hash to walk to its chain's published game after the last row.
    /// `linked`: the game's hash walks down to the last game given with one (a game of a
    /// run of linked games is tied wherever one of the run is walked to the published game).
    fn keep(&mut self, number: u64, hash: &str, salt: &str, line: u64, linked: bool) {
        if self.variant.published_game(salt).is_none() {
            self.unpublished.entry(salt.to_owned()).or_default().add(line);
            return;
        }
        let kept: usize = self.published.values().map(Vec::len).sum();
        match crash::hash_bytes(hash) {
            Some(hash) if kept < MAX_ROWS => {
                self.published.entry(salt.to_owned()).or_default().push(ChainRow { game: number, hash, line })
            }
            _ => {
                self.audit.not_walked += 1;
                if !linked {
                    self.unkept.add(line);
                }
            }
        }
    }

    /// A new game without its hash, kept (within [`MAX_WALK`] games and
    /// [`UNHASHED_BYTES`]) to be checked when the next link across it is walked.
    fn keep_unhashed(&mut self, row: &Row, now: &RowGame) {
        self.audit.hashless += 1;
        self.first_hashless.get_or_insert(row.line);
        let (player, stated) = (row.field("player"), row.field("client_seed"));
        let bytes = self.links.unhashed_bytes + player.len() + stated.len();
        if self.links.unhashed.len() < MAX_WALK as usize && bytes <= UNHASHED_BYTES {
            self.links.unhashed_bytes = bytes;
            self.links.unhashed.push(Unhashed {
                number: now.number,
                shown: now.shown,
                salt: (!stated.is_empty()).then(|| stated.to_owned()),
                line: row.line,
                player: player.to_owned(),
            });
        }
    }

    /// A new game's crash point counted for the battery: replayed where it has its hash,
    /// else as shown (not at all for Roobet, whose instant crash and 1.00x look alike).
    fn count(&mut self, now: &RowGame, point: Option<CrashPoint>) {
        match point {
            Some(point) => {
                self.audit.replayed += 1;
                self.audit.tally.add(point);
            }
            None if self.variant == CrashVariant::Roobet => {
                self.audit.uncounted += 1;
                self.audit.tally.gap();
            }
            None => self.audit.tally.add(if now.shown == self.variant.instant_shown() {
                CrashPoint::Instant
            } else {
                CrashPoint::Hundredths(now.shown)
            }),
        }
    }

    /// The payout: stake × target when the target is at or below the crash point.
    fn check_payout(
        &mut self,
        row: &Row,
        game: &RowGame,
        point: Option<CrashPoint>,
    ) -> Result<(), RoundsError> {
        let (stake_text, payout_text) = (row.field("stake"), row.field("payout"));
        if stake_text.is_empty() && payout_text.is_empty() {
            return Ok(());
        }
        let amount =
            |column: &'static str, text: &str| Money::parse(text).map_err(|e| row.bad(column, e.to_string()));
        let (wager, paid) = (amount("stake", stake_text)?, amount("payout", payout_text)?);
        let reached = |target: u64| match point {
            Some(CrashPoint::Instant) => false,
            Some(CrashPoint::Hundredths(h)) => target <= h,
            // Without the hash, the shown point (an instant crash shows below any target).
            None => target <= game.shown,
        };
        let multiplier = match row.field("bet") {
            "" => Money::whole(0),
            bet => {
                let target = crash::read_shown(bet)
                    .ok()
                    .filter(|&t| t >= 101)
                    .ok_or_else(|| row.bad("bet", format!("a crash bet is its cash-out target with two decimals, from 1.01 (e.g. 2.00), not '{}'", Excerpt(bet))))?;
                if reached(target) {
                    Money::parse(bet).expect("a target is an amount")
                } else {
                    Money::whole(0)
                }
            }
        };
        self.audit.payouts_checked += 1;
        let expected = wager.times(multiplier).ok_or_else(|| row.bad("stake", "too large".into()))?;
        let off = expected.distance(paid).ok_or_else(|| row.bad("payout", "too large".into()))?;
        if off.compare(self.payout_tolerance).ok_or_else(|| row.bad("payout", "too large".into()))?
            == std::cmp::Ordering::Greater
        {
            self.report.found(row, "payout", expected.to_string(), payout_text.to_owned());
        }
        Ok(())
    }

    /// Reports the findings made on earlier games ([`check_unhashed`]), counting them.
    fn report_late(&mut self) {
        for finding in self.links.late.drain(..) {
            self.report.report(&finding);
        }
    }

    /// After the last row: the links' counts, the walks to the published games, and one
    /// `uncommitted` finding per cause of games not tied to a commitment.
    fn finish(mut self) -> CrashAudit {
        self.report_late();
        let Self {
            variant,
            mut report,
            mut audit,
            links,
            published,
            unpublished,
            first_hashless,
            unkept,
            ..
        } = self;
        audit.findings = report.counts;
        let on_finding = &mut report.on_finding;
        (audit.linked, audit.unlinked, audit.derived) = (links.linked, links.unlinked, links.derived);
        audit.first_hashed = links.first;
        // The games checked through a link are no longer "neither replayed nor linked".
        audit.hashless -= audit.derived;
        let mut not_tied = walk_to_published(&mut audit, variant, published, on_finding);
        if unkept.games > 0 {
            not_tied.push((
                format!(
                    "{} beyond the {MAX_ROWS} games an audit keeps to walk to the published game, not linked to a game before them: not walked",
                    games_text(unkept.games)
                ),
                unkept,
            ));
        }
        report_untied(&mut audit, variant, unpublished, not_tied, first_hashless, on_finding);
        audit
    }
}

/// The `uncommitted` findings, one per cause: games on a salt without a published hash
/// fairaudit holds, games of a published chain not tied to it (`not_tied`), and the games
/// without their hash not checked through a link (named by `first_hashless`).
fn report_untied(
    audit: &mut CrashAudit,
    variant: CrashVariant,
    unpublished: BTreeMap<String, Untied>,
    not_tied: Vec<(String, Untied)>,
    first_hashless: Option<u64>,
    on_finding: &mut impl FnMut(&Finding),
) {
    let mut untied = |audit: &mut CrashAudit, what: String, count: Untied| {
        audit.untied += count.games;
        let finding = Finding {
            line: count.first_line,
            player: String::new(),
            check: "uncommitted",
            expected: "games tied to the operator's commitment: given with their hash, on the chain through its published hash".to_owned(),
            found: what,
        };
        on_finding(&finding);
        *audit.findings.entry("uncommitted").or_default() += 1;
    };
    for (salt, count) in unpublished {
        let why = if variant.published_salts().contains(&salt.as_str()) {
            "a published seeding event's, but fairaudit holds no published hash of its chain"
        } else {
            "none of the published seeding events'"
        };
        untied(
            audit,
            format!(
                "{} on salt {salt} ({why}): nothing ties their chain to a commitment",
                games_text(count.games)
            ),
            count,
        );
    }
    for (what, count) in not_tied {
        untied(audit, what, count);
    }
    if let (Some(first_line), true) = (first_hashless, audit.hashless > 0) {
        let count = Untied { games: audit.hashless, first_line };
        let what = if count.games == 1 {
            "1 game without its hash, not checked through a link across it: its crash point is tied to nothing".to_owned()
        } else {
            format!("{} games without their hash, not checked through a link across them: their crash points are tied to nothing", count.games)
        };
        untied(audit, what, count);
    }
}

/// Games the audit could not tie to a commitment for one cause: how many, and the line of
/// the first. Each cause is one `uncommitted` finding, not one per game: a history on an
/// operator's own chain is one fact, however long.
#[derive(Clone, Copy, Debug, Default)]
struct Untied {
    games: u64,
    first_line: u64,
}

impl Untied {
    fn add(&mut self, line: u64) {
        if self.games == 0 || line < self.first_line {
            self.first_line = line;
        }
        self.games += 1;
    }
}

/// `1 game`, `N games`.
fn games_text(games: u64) -> String {
    if games == 1 {
        "1 game".to_owned()
    } else {
        format!("{games} games")
    }
}

/// Walks each published chain's games to its published game; a game not on the chain
/// through it is a `published` finding (the player of its first row is not known here:
/// the finding names the game and its line). Returns the games that could not be tied to
/// the published game, per cause: below the first game played on the chain (on the
/// committed chain or not, no such game was played), or not walked to it (too far from
/// it, among hashes disagreeing with too many others, or beyond the walk's budget).
fn walk_to_published(
    audit: &mut CrashAudit,
    variant: CrashVariant,
    chains: BTreeMap<String, Vec<ChainRow>>,
    on_finding: &mut impl FnMut(&Finding),
) -> Vec<(String, Untied)> {
    let never = std::sync::atomic::AtomicBool::new(false);
    let mut not_tied = Vec::new();
    for (salt, rows) in chains {
        let published = variant.published_game(&salt).expect("kept for its published game");
        let (below, mut rows): (Vec<ChainRow>, Vec<ChainRow>) =
            rows.into_iter().partition(|row| row.game < published.first_played);
        if !below.is_empty() {
            let mut count = Untied::default();
            below.iter().for_each(|row| count.add(row.line));
            not_tied.push((
                format!(
                    "{} below game {}, the first game played on the chain of salt {salt}: no such game was played",
                    games_text(count.games),
                    published.first_played
                ),
                count,
            ));
        }
        let mut far = Untied::default();
        rows.iter()
            .filter(|row| row.game.abs_diff(published.game) > MAX_LINK_WALK)
            .for_each(|row| far.add(row.line));
        let walk = walk_rows(published, &mut rows, &never, &|_| {}).expect("never stopped");
        audit.on_published += walk.linked;
        let unwalked = walk.too_far + walk.unfollowed + walk.over_budget;
        audit.not_walked += unwalked;
        audit.published_steps += walk.steps;
        if unwalked > 0 {
            let mut count = far;
            count.games = unwalked;
            if far.games == 0 {
                count.first_line = rows.iter().map(|row| row.line).min().unwrap_or(0);
            }
            not_tied.push((
                format!(
                    "{} not walked to game {}'s published hash {}: more than {MAX_LINK_WALK} games from it (numbers no real chain reaches), among hashes disagreeing with too many others, or beyond the links a file of its size may walk",
                    games_text(count.games),
                    published.game,
                    published.hash
                ),
                count,
            ));
        }
        for row in &walk.off {
            let finding = Finding {
                line: row.line,
                player: String::new(),
                check: "published",
                expected: format!(
                    "a hash on the chain through game {}'s published hash {} (game {} is not on it)",
                    published.game, published.hash, row.game
                ),
                found: crash::hash_text(&row.hash),
            };
            on_finding(&finding);
            *audit.findings.entry("published").or_default() += 1;
        }
    }
    not_tied
}

/// The links between the games the history gives with hashes, as it is read.
#[derive(Default)]
struct Links {
    /// The last game given with its hash: the next one is linked to it.
    last: Option<Hashed>,
    /// The games without a hash since then (at most [`MAX_WALK`]: a link further apart is
    /// not walked), and the bytes of their player ids and salts.
    unhashed: Vec<Unhashed>,
    unhashed_bytes: usize,
    /// Findings on those games, made when the link across them is walked: reported after
    /// the row that walked it.
    late: Vec<Finding>,
    /// [`CrashAudit::linked`], [`CrashAudit::unlinked`], [`CrashAudit::derived`] and
    /// [`CrashAudit::first_hashed`], so far.
    linked: u64,
    unlinked: u64,
    derived: u64,
    first: Option<(u64, String, String)>,
}

impl Links {
    /// Game `number` is given with its hash: links it to the last game given with one,
    /// checking the games without a hash in between through the walk. What the link needs
    /// where it is broken.
    fn hashed(
        &mut self,
        variant: CrashVariant,
        number: u64,
        hash: &str,
        salt: &str,
        line: u64,
    ) -> Option<String> {
        self.first.get_or_insert_with(|| (number, hash.to_owned(), salt.to_owned()));
        let link = link_hash(number, hash, salt, line, &mut self.last, &self.unhashed);
        self.late.extend(check_unhashed(variant, &link, salt, &self.unhashed, &mut self.derived));
        self.unhashed.clear();
        self.unhashed_bytes = 0;
        count_link(link, &mut self.linked, &mut self.unlinked)
    }
}

/// What linking a game's hash to the last game with one found.
enum Link {
    /// The first hash of the history.
    First,
    /// Walked: `None` when the hashes join, else what the link needs; with the hashes
    /// the walk gave of the games without one in between (number, hash), which are
    /// theirs only where the hashes join.
    Walked(Option<String>, Vec<(u64, String)>),
    /// Not walked: another salt (another chain), or more than [`MAX_WALK`] games apart.
    Not,
}

/// Counts a link walked or not; what the link needs where it is broken.
fn count_link(link: Link, linked: &mut u64, unlinked: &mut u64) -> Option<String> {
    match link {
        Link::First => None,
        Link::Not => {
            *unlinked += 1;
            None
        }
        Link::Walked(needs, _) => {
            *linked += 1;
            needs
        }
    }
}

/// Links game `number`'s hash to the last game whose hash the history gave (the higher
/// one's hash, walked down, must give the lower one's), then makes it the last. The walk
/// passes through the hashes of the games in between: those of `unhashed` are kept.
fn link_hash(
    number: u64,
    hash: &str,
    salt: &str,
    line: u64,
    last: &mut Option<Hashed>,
    unhashed: &[Unhashed],
) -> Link {
    let this = Hashed { number, hash: hash.to_owned(), salt: salt.to_owned(), line };
    let Some(earlier) = last.replace(this) else { return Link::First };
    let steps = number.abs_diff(earlier.number);
    if earlier.salt != salt || steps > MAX_WALK || steps == 0 {
        return Link::Not;
    }
    let wanted: std::collections::HashSet<u64> = unhashed.iter().map(|game| game.number).collect();
    let mut between = Vec::new();
    let mut walk = |from: &str, top: u64| {
        (1..=steps).fold(from.to_owned(), |h, step| {
            let below = crash::previous_hash(&h);
            if step < steps && wanted.contains(&(top - step)) {
                between.push((top - step, below.clone()));
            }
            below
        })
    };
    let needs = if number > earlier.number {
        (walk(hash, number) != earlier.hash).then(|| {
            format!(
                "a hash that reaches game {}'s, {} (line {}), in {steps} link(s)",
                earlier.number, earlier.hash, earlier.line
            )
        })
    } else {
        let reached = walk(&earlier.hash, earlier.number);
        (reached != hash).then(|| {
            format!(
                "{reached} (game {}'s hash, on line {}, hashed {steps} time(s))",
                earlier.number, earlier.line
            )
        })
    };
    Link::Walked(needs, between)
}

/// The games given without their hash across a link that joined: each one's crash point
/// shown against the one its hash (from the link's walk) gives; the findings for those
/// that differ. A link that did not join says nothing of the games in between.
fn check_unhashed(
    variant: CrashVariant,
    link: &Link,
    link_salt: &str,
    unhashed: &[Unhashed],
    derived: &mut u64,
) -> Vec<Finding> {
    let Link::Walked(None, between) = link else { return Vec::new() };
    let index: HashMap<u64, &Unhashed> = unhashed.iter().map(|game| (game.number, game)).collect();
    let mut findings = Vec::new();
    for (number, hash) in between {
        let Some(game) = index.get(number) else { continue };
        let point = crash::crash_point(variant, hash, game.salt.as_deref().unwrap_or(link_salt));
        *derived += 1;
        if variant.shown_hundredths(point) != game.shown {
            findings.push(Finding {
                line: game.line,
                player: game.player.clone(),
                check: "result",
                expected: format!(
                    "{} (from its hash {hash}, which the link across it gives)",
                    variant.shown(point)
                ),
                found: crash::hundredths_text(game.shown),
            });
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn audited(variant: CrashVariant, scheme: &'static str, file: &str) -> (CrashAudit, Vec<Finding>) {
        let mut findings = Vec::new();
        let audit = audit_crash_history(
            file.as_bytes(),
            &CsvLayout::default(),
            variant,
            scheme,
            Money::whole(0),
            |f| findings.push(f.clone()),
        )
        .unwrap();
        (audit, findings)
    }

    #[test]
    fn games_without_hashes_are_judged_by_the_point_shown() {
        // bustabit shows its instant crash as 0.00: it beats a 1.01 target, and is counted
        // as an instant crash; the 1.00 after it is the formula's, which 1.01 does not reach.
        let file = "nonce,result,bet,stake,payout\n\
                    1000003,0.00,1.01,1,0\n1000002,1.00,1.01,1,0\n1000001,1.01,1.01,1,1.01\n1000001,1.01,,1,1\n";
        let (audit, findings) = audited(CrashVariant::BustabitV1, "bustabit-v1", file);
        assert_eq!((audit.rows, audit.games, audit.replayed, audit.payouts_checked), (4, 3, 0, 4));
        assert_eq!(audit.tally.cells[0], 1, "one instant crash");
        assert_eq!(audit.tally.games, 3);
        // The last bet never cashed out: it returns nothing, not its stake. And no game is
        // tied to the operator's commitment: one `uncommitted` finding for the three.
        assert_eq!(findings.len(), 2, "{findings:?}");
        assert_eq!((findings[0].line, findings[0].check, findings[0].expected.as_str()), (5, "payout", "0"));
        assert_eq!((findings[1].line, findings[1].check), (2, "uncommitted"));
        assert!(findings[1].found.starts_with("3 games without their hash"), "{findings:?}");
        assert_eq!(audit.untied, 3);
        // Roobet shows both as 1.00: without their hashes no game is counted, not even a
        // 2.00 (leaving out only the 1.00s would bias the counts against the law).
        let (audit, findings) = audited(CrashVariant::Roobet, "roobet", "nonce,result\n7,1.00\n6,2.00\n");
        assert_eq!(findings.iter().map(|f| f.check).collect::<Vec<_>>(), ["uncommitted"]);
        assert_eq!((audit.games, audit.uncounted, audit.tally.games), (2, 2, 0));
    }

    #[test]
    fn games_of_another_salt_are_counted_apart_not_linked_and_found() {
        // Roobet's games 1,273,935 and 1,273,934 (`data/vectors/crash.csv`): linked under
        // the published salt; under another salt for the second, not linked, counted, and
        // a `salt` finding (one history, one salt), and an `uncommitted` one (nothing ties
        // a chain of another salt to the operator's commitment).
        let (high, low) = (
            "cc4a75236ecbc038c37729aa5ced461e36155319e88fa375c994933b6a42a0c4",
            "fa0bd7818e238aa613426eba7422ca364369c0ec55767c8e023ba6d3ba161aeb",
        );
        let shown = |hash: &str, salt: &str| {
            CrashVariant::Roobet.shown(crash::crash_point(CrashVariant::Roobet, hash, salt))
        };
        let salt = CrashVariant::Roobet.salt();
        let file = format!(
            "nonce,server_seed,client_seed,result\n1273935,{high},,2.15\n1273934,{low},{salt},{}\n",
            shown(low, salt)
        );
        let (audit, findings) = audited(CrashVariant::Roobet, "roobet", &file);
        assert!(findings.is_empty(), "{findings:?}");
        assert_eq!((audit.linked, audit.unlinked, audit.other_salts), (1, 0, 0));
        let file = format!(
            "nonce,server_seed,client_seed,result\n1273935,{high},,2.15\n1273934,{low},a clone's salt,{}\n",
            shown(low, "a clone's salt")
        );
        let (audit, findings) = audited(CrashVariant::Roobet, "roobet", &file);
        let checks: Vec<(u64, &str)> = findings.iter().map(|f| (f.line, f.check)).collect();
        assert_eq!(checks, [(3, "salt"), (3, "uncommitted")], "{findings:?}");
        assert_eq!((audit.linked, audit.unlinked, audit.other_salts), (0, 1, 1));
    }

    #[test]
    fn a_game_without_its_hash_is_checked_through_the_link_across_it() {
        // Roobet's games 1,273,935 down to 1,273,932, game 1,273,933 given without its hash:
        // the link from 1,273,934 to 1,273,932 walks through it. In both orders.
        let hashes = [
            (1_273_935u64, "cc4a75236ecbc038c37729aa5ced461e36155319e88fa375c994933b6a42a0c4"),
            (1_273_934, "fa0bd7818e238aa613426eba7422ca364369c0ec55767c8e023ba6d3ba161aeb"),
        ];
        let salt = CrashVariant::Roobet.salt();
        // The chain below game 1,273,934, walked here.
        let g933 = crash::previous_hash(hashes[1].1);
        let g932 = crash::previous_hash(&g933);
        let shown =
            |hash: &str| CrashVariant::Roobet.shown(crash::crash_point(CrashVariant::Roobet, hash, salt));
        let rows = |shown_933: &str| {
            [
                format!("{},{},{}", hashes[0].0, hashes[0].1, shown(hashes[0].1)),
                format!("{},{},{}", hashes[1].0, hashes[1].1, shown(hashes[1].1)),
                format!("1273933,,{shown_933}"),
                format!("1273932,{g932},{}", shown(&g932)),
            ]
        };
        // A clone's chain: its salt stated on the rows with a hash, the cell left empty on
        // the one without: that game is judged with the link's salt.
        let clone_shown = |hash: &str| {
            CrashVariant::Roobet.shown(crash::crash_point(CrashVariant::Roobet, hash, "clone salt"))
        };
        let file = format!(
            "nonce,server_seed,client_seed,result\n1273934,{},clone salt,{}\n1273933,,,{}\n1273932,{g932},clone salt,{}\n",
            hashes[1].1,
            clone_shown(hashes[1].1),
            clone_shown(&g933),
            clone_shown(&g932)
        );
        // Linked and checked, but on a chain nothing ties to the operator's commitment.
        let (audit, findings) = audited(CrashVariant::Roobet, "roobet", &file);
        assert_eq!(findings.iter().map(|f| (f.line, f.check)).collect::<Vec<_>>(), [(2, "uncommitted")]);
        assert_eq!((audit.derived, audit.untied), (1, 2));
        for rising in [false, true] {
            let file = |shown_933: &str| {
                let mut rows = rows(shown_933).to_vec();
                if rising {
                    rows.reverse();
                }
                format!("nonce,server_seed,result\n{}\n", rows.join("\n"))
            };
            let (audit, findings) = audited(CrashVariant::Roobet, "roobet", &file(&shown(&g933)));
            assert!(findings.is_empty(), "{findings:?}");
            assert_eq!((audit.derived, audit.hashless, audit.linked), (1, 0, 2));
            // Shown other than its hash gives: a finding on its line.
            let (audit, findings) = audited(CrashVariant::Roobet, "roobet", &file("1.50"));
            let line = if rising { 3 } else { 4 };
            let checks: Vec<(u64, &str, &str)> =
                findings.iter().map(|f| (f.line, f.check, f.found.as_str())).collect();
            assert_eq!(checks, [(line, "result", "1.50")], "{findings:?}");
            assert_eq!(audit.findings.get("result"), Some(&1));
        }
    }
}
