//! Rounds files that name their scheme: rows `scheme,game,server_seed,client_seed,nonce,
//! params,result` (and optionally `commitment`), each replayed in its scheme and its
//! `result` judged as the operator displays it. A file without a `scheme` column is read
//! here too when the command names another scheme than the default (`--scheme stake`):
//! every row is then of that scheme.
//!
//! `params` is the game's parameters as compact JSON, empty where there are none
//! ([`crate::scheme::stake::StakeGame::new`]); rows of the default scheme take none. A
//! value not in its written form (a result, a commitment, a nonce) is an input error
//! ([`RoundsError::BadField`]), as in the SPEC §7 checker, not a mismatch.

use super::answers::{Answers, OnlyCases, PlainCases};
use super::published::{ChainRow, MAX_ROWS, MAX_WALK};
use super::{mismatch, replay_outcome, Mismatch, RoundsError, RowCheck, CASE_COLUMN};
use crate::chain::{beyond_reference, RoundHasher};
use crate::columns::{LfLines, Located};
use crate::conformance::stake::{challenge as stake_challenge, StakeCase, GROUPS as STAKE_GROUPS};
use crate::fields::{parse_digest, parse_nonce, Excerpt};
use crate::games::{parse, GameId};
use crate::scheme::crash::{self, CrashVariant};
use crate::scheme::keyed::{KeyedPair, KeyedScheme};
use crate::scheme::stake::StakeGame;
use crate::scheme::SchemeId;
use std::io::Read;

/// The column naming a row's scheme.
pub const SCHEME_COLUMN: &str = "scheme";
/// The column of a row's game parameters (compact JSON).
pub const PARAMS_COLUMN: &str = "params";

/// The columns a row needs (`scheme` too, unless the command names the scheme).
const REQUIRED: [&str; 5] = ["game", "server_seed", "client_seed", "nonce", "result"];

/// A seed pair prepared for one scheme: bet histories repeat seed pairs.
enum Prepared {
    Sha3(RoundHasher),
    Keyed(KeyedPair),
    Crash(CrashVariant),
}

/// Streams a rounds file whose rows name their scheme (or are all of the scheme given),
/// checking each row's `result` and, where the column is filled, its `commitment`.
///
/// A file with a `case` column, or whose first row has a seed pair derived for the stake
/// conformance challenge ([`crate::conformance::stake`]), answers that challenge, and is
/// judged case by case as [`super::RoundsChecker`] judges answers to the default
/// scheme's: each case once, the row's inputs the case's, `result` filled, the cases no
/// row answered listed at the end ([`SchemeRoundsChecker::unanswered`]).
pub struct SchemeRoundsChecker<R: Read> {
    reader: csv::Reader<LfLines<R>>,
    /// `game, server_seed, client_seed, nonce, result`.
    required: [usize; 5],
    scheme_column: Option<usize>,
    params_column: Option<usize>,
    commitment_column: Option<usize>,
    /// The scheme the command names, if it names one.
    given: Option<SchemeId>,
    record: csv::StringRecord,
    /// The first row, read ahead to tell whether a file without a `case` column answers
    /// the stake challenge, and not yet checked; or the error reading it.
    read_ahead: Option<Result<(), csv::Error>>,
    /// The stake challenge this file answers, if it answers it.
    answers: Option<Answers<StakeCase>>,
    /// The seed pairs only the conformance challenges play: answered in their own format.
    sha3_challenge_pairs: std::collections::HashSet<(String, String)>,
    /// The same for the stake challenge.
    stake_challenge_pairs: std::collections::HashSet<(String, String)>,
    /// Of a file read as plain rounds: whether its rows are all the stake challenge's
    /// rounds.
    plain_cases: Option<PlainCases<StakeCase>>,
    /// The last seed pair: its scheme, seeds, prepared state and commitment.
    cached: Option<(SchemeId, String, String, Prepared, String)>,
    /// The chain links between crash rows.
    links: ChainLinks,
}

impl<R: Read> SchemeRoundsChecker<R> {
    /// The checker of a file whose header was read and its columns found; `given` is the
    /// scheme the command names (every row's, where the file has no `scheme` column).
    pub(super) fn from_located(
        reader: csv::Reader<LfLines<R>>,
        found: &Located,
        given: Option<SchemeId>,
    ) -> Result<Self, RoundsError> {
        let mut required = [0; 5];
        for (slot, name) in required.iter_mut().zip(REQUIRED) {
            *slot = found.get(name).ok_or(RoundsError::MissingColumn(name))?;
        }
        let scheme_column = found.get(SCHEME_COLUMN);
        if scheme_column.is_none() && given.is_none() {
            return Err(RoundsError::MissingColumn(SCHEME_COLUMN));
        }
        // Columns this checker does not judge are refused rather than passed over: a
        // wrong signature must not read as "0 mismatches".
        for column in ["round_signature", "draw_order", "u32_used"] {
            if found.get(column).is_some() {
                return Err(RoundsError::NotInSchemeFiles(column));
            }
        }
        let stake_cases = || stake_challenge(&STAKE_GROUPS);
        let mut checker = Self {
            reader,
            required,
            scheme_column,
            params_column: found.get(PARAMS_COLUMN),
            commitment_column: found.get("commitment"),
            given,
            record: csv::StringRecord::new(),
            read_ahead: None,
            answers: found.get(CASE_COLUMN).map(|column| Answers::new(Some(column), stake_cases())),
            sha3_challenge_pairs: super::derived_pairs(),
            stake_challenge_pairs: crate::conformance::stake::derived_seed_pairs(),
            plain_cases: None,
            cached: None,
            links: ChainLinks::default(),
        };
        if checker.answers.is_none() {
            checker.read_ahead = super::read_row(&mut checker.reader, &mut checker.record);
            if matches!(checker.read_ahead, Some(Ok(()))) {
                let field = |i: usize| checker.record.get(i).unwrap_or("").to_owned();
                let seeds = (field(checker.required[1]), field(checker.required[2]));
                if checker.stake_challenge_pairs.contains(&seeds) {
                    checker.answers = Some(Answers::new(None, stake_cases()));
                }
            }
            if checker.answers.is_none() {
                checker.plain_cases = Some(PlainCases::new(stake_cases()));
            }
        }
        Ok(checker)
    }

    /// Whether the file answers the stake conformance challenge, or is expected to
    /// ([`super::Rounds::expect_games`]).
    pub fn is_challenge(&self) -> bool {
        self.answers.is_some()
    }

    /// The answers to the stake challenge, begun (matched by inputs) when the file was not
    /// read as one: it is expected to be one ([`super::Rounds::expect_games`]).
    pub(super) fn answers_expected(&mut self) -> Result<&mut Answers<StakeCase>, RoundsError> {
        if let Some(scheme) = self.given.filter(|scheme| scheme.crash_variant().is_some()) {
            return Err(RoundsError::NoChallenge(scheme));
        }
        self.plain_cases = None;
        Ok(self.answers.get_or_insert_with(|| Answers::new(None, stake_challenge(&STAKE_GROUPS))))
    }

    /// Of a file read as plain rounds, when every row is the round of a case of the stake
    /// challenge, each once ([`PlainCases`]). Complete once every row has been read.
    pub fn only_cases(&self) -> Option<OnlyCases> {
        self.plain_cases.as_ref().and_then(PlainCases::only_cases)
    }

    /// The cases of the stake challenge no row answered, among the groups the file
    /// answers (every case when it answers none); empty for other files. Complete once
    /// every row has been read.
    pub fn unanswered(&self) -> Vec<&StakeCase> {
        self.answers.as_ref().map(Answers::unanswered).unwrap_or_default()
    }

    /// The chain links between the file's crash rows.
    pub fn chain_links(&self) -> &ChainLinks {
        &self.links
    }

    /// The crash games read, per chain whose published game fairaudit holds.
    pub fn take_published_chains(&mut self) -> Vec<PublishedChain> {
        std::mem::take(&mut self.links.published)
            .into_iter()
            .map(|((scheme, salt), rows)| PublishedChain { scheme, salt, rows })
            .collect()
    }

    /// The groups of the stake challenge an answer is judged on; empty for other files.
    pub fn answered_groups(&self) -> Vec<&'static str> {
        self.answers.as_ref().map(Answers::groups).unwrap_or_default()
    }

    /// The groups of the stake challenge no row answers (not judged); empty for other
    /// files and for answers that answer none.
    pub fn unjudged_groups(&self) -> Vec<&'static str> {
        self.answers.as_ref().map(Answers::unjudged).unwrap_or_default()
    }

    fn check_record(&mut self) -> Result<RowCheck, RoundsError> {
        // The row is taken out of the checker while it is checked, so that its fields can
        // be read while the checker's state changes; it is put back for the next read.
        let record = std::mem::take(&mut self.record);
        let line = record.position().map_or(0, csv::Position::line);
        let checked = self.check_row(&Row { record: &record, line });
        self.record = record;
        checked
    }

    /// One row checked: its scheme, the challenge case it answers (if any), its result
    /// replayed and its commitment.
    fn check_row(&mut self, row: &Row) -> Result<RowCheck, RoundsError> {
        let line = row.line;
        let field = |i: usize| row.field(i);
        let optional = |column: Option<usize>| column.map_or("", field);
        let bad = |column: &'static str, problem: String| row.bad(column, problem);
        let [game_col, server_col, client_col, nonce_col, result_col] = self.required;

        let scheme = match self.scheme_column {
            Some(column) => {
                let named: SchemeId = field(column)
                    .parse()
                    .map_err(|e: crate::scheme::UnknownScheme| bad(SCHEME_COLUMN, e.to_string()))?;
                if let Some(given) = self.given.filter(|&given| given != named) {
                    return Err(bad(SCHEME_COLUMN, format!("'{named}', but --scheme {given} was given")));
                }
                named
            }
            None => self.given.expect("a file without a scheme column has a given scheme"),
        };
        let mut nonce = parse_nonce(field(nonce_col)).map_err(|e| bad("nonce", e.to_string()))?;
        let (server, client) = (field(server_col), field(client_col));
        let (game_name, params) = (field(game_col).trim(), optional(self.params_column));

        let mut mismatches = Vec::new();
        let seeds = (server, client, nonce);
        let answered = self.answered_case(row, scheme, game_name, params, seeds, &mut mismatches)?;
        let case_label = answered.as_ref().map(|case| case.label.clone());
        // An answer is judged on the case's inputs, whatever the row says it answered.
        let (server, client) = match &answered {
            Some(case) => {
                nonce = case.nonce;
                (case.server_seed.as_str(), case.client_seed.as_str())
            }
            None => (server, client),
        };

        let cache_hit =
            matches!(&self.cached, Some((sc, s, c, _, _)) if *sc == scheme && s == server && c == client);
        if !cache_hit {
            let (prepared, commitment) = match (KeyedScheme::of(scheme), scheme.crash_variant()) {
                (Some(keyed), _) => {
                    let seed = |problem: String| bad("server_seed", problem);
                    let pair = keyed.pair(server, client).map_err(seed)?;
                    (Prepared::Keyed(pair), keyed.commitment(server).map_err(seed)?)
                }
                (None, Some(variant)) => {
                    if !crash::is_game_hash(server) {
                        return Err(bad(
                            "server_seed",
                            format!("'{}' is not a game hash of scheme {scheme}: 64 lowercase hex digits, as the chain writes them", Excerpt(server)),
                        ));
                    }
                    (Prepared::Crash(variant), crash::previous_hash(server))
                }
                (None, None) => {
                    (Prepared::Sha3(RoundHasher::new(server, client)), crate::chain::commitment(server))
                }
            };
            self.cached = Some((scheme, server.to_owned(), client.to_owned(), prepared, commitment));
        }

        let replayed = (server, client, nonce);
        let given = (game_name, params, answered.as_ref(), case_label.as_deref());
        let computed = self.replay(row, scheme, given, replayed, &mut mismatches)?;
        let (_, _, _, _, commitment) = self.cached.as_ref().expect("filled above");
        let given_result = field(result_col);
        let in_case = |problem: String| match &case_label {
            Some(label) => format!("{problem} (answering case {})", crate::fields::Excerpt(label)),
            None => problem,
        };
        // A row must state something: an empty result is a wrong one.
        if given_result.is_empty() {
            mismatches.push(mismatch(line, "result", "", &computed));
        }
        let given_commitment = optional(self.commitment_column);
        if !given_commitment.is_empty() {
            let what = match (KeyedScheme::of(scheme), scheme.crash_variant()) {
                (Some(keyed), _) => keyed.commitment_text(),
                (None, Some(_)) => "a commitment (the previous game's hash: SHA-256 of the game hash's text)",
                (None, None) => "a commitment (SHA3-256 of the server seed)",
            };
            if parse_digest(given_commitment, what).map_err(|p| bad("commitment", in_case(p)))? != *commitment
            {
                mismatches.push(mismatch(line, "commitment", given_commitment, commitment));
            }
        }
        // A crash game's nonce is its number in the chain, not a JavaScript nonce.
        let beyond = beyond_reference(nonce) && scheme.crash_variant().is_none();
        Ok(RowCheck { line, mismatches, beyond_reference: beyond, case: case_label })
    }

    /// The challenge case the row answers, if the file answers the stake challenge (the
    /// row's inputs that are not the case's go into `mismatches`); a row of plain rounds
    /// is refused when its seed pair is a challenge's, and noted for [`PlainCases`].
    fn answered_case(
        &mut self,
        row: &Row,
        scheme: SchemeId,
        game_name: &str,
        params: &str,
        (server, client, nonce): (&str, &str, u64),
        mismatches: &mut Vec<Mismatch>,
    ) -> Result<Option<StakeCase>, RoundsError> {
        let (line, field) = (row.line, |i: usize| row.field(i));
        let bad = |column: &'static str, problem: String| row.bad(column, problem);
        let [game_col, _, _, nonce_col, _] = self.required;
        let stake_game = || keyed_game(KeyedScheme::Stake, game_name, params).map_err(|(c, p)| bad(c, p));
        if let Some(answers) = self.answers.as_mut() {
            if scheme != SchemeId::Stake {
                return Err(bad(
                    SCHEME_COLUMN,
                    format!("'{scheme}' in an answer to the conformance challenge of scheme stake (the default scheme's challenge has its own format, without a scheme column)"),
                ));
            }
            let game = stake_game()?;
            let case = match answers.column {
                Some(column) => Some(answers.answer(field(column).trim(), line)?),
                None => match answers.case_of(&(game, server.to_owned(), client.to_owned(), nonce)) {
                    Some(index) => Some(answers.answer_index(index, line)?),
                    None => None,
                },
            };
            match case {
                Some(case) => {
                    let given_game = field(game_col).trim();
                    let inputs = [
                        ("game", given_game != case.game.name(), given_game, case.game.name().to_owned()),
                        (
                            PARAMS_COLUMN,
                            game != case.game && given_game == case.game.name(),
                            params,
                            case.game.params(),
                        ),
                        ("server_seed", server != case.server_seed, server, case.server_seed.clone()),
                        ("client_seed", client != case.client_seed, client, case.client_seed.clone()),
                        ("nonce", nonce != case.nonce, field(nonce_col), case.nonce.to_string()),
                    ];
                    for (column, differs, given, expected) in inputs {
                        if differs {
                            mismatches.push(mismatch(line, column, given, &expected));
                        }
                    }
                    return Ok(Some(case.clone()));
                }
                // Matched by inputs: a row that is no case's round answers nothing.
                None => mismatches.push(mismatch(line, CASE_COLUMN, "", super::NO_CASE)),
            }
        } else {
            let pair = (server.to_owned(), client.to_owned());
            let challenge = match scheme {
                SchemeId::Sha3 => Some((&self.sha3_challenge_pairs, "the conformance challenge: answer the challenge in its own format (SPEC §7 columns, no scheme column)")),
                SchemeId::Stake => Some((&self.stake_challenge_pairs, "the stake conformance challenge, in a file whose first row is not one: answer the challenge in its own order (keep its `case` column)")),
                _ => None,
            };
            if let Some((_, challenge)) = challenge.filter(|(pairs, _)| pairs.contains(&pair)) {
                return Err(bad("server_seed", format!("a seed pair of {challenge}")));
            }
            if let Some(plain) = self.plain_cases.as_mut() {
                let (server, client) = pair;
                plain.row(|| {
                    let game = (scheme == SchemeId::Stake).then(stake_game).and_then(Result::ok)?;
                    Some((game, server, client, nonce))
                });
            }
        }
        Ok(None)
    }

    /// The row's round replayed from the seed pair prepared for it: the result as the
    /// operator shows it. A given result that differs goes into `mismatches`, and so does
    /// a crash game that does not link to the row before it.
    fn replay(
        &mut self,
        row: &Row,
        scheme: SchemeId,
        (game_name, params, answered, case_label): (&str, &str, Option<&StakeCase>, Option<&str>),
        (server, client, nonce): (&str, &str, u64),
        mismatches: &mut Vec<Mismatch>,
    ) -> Result<String, RoundsError> {
        let (line, field) = (row.line, |i: usize| row.field(i));
        let bad = |column: &'static str, problem: String| row.bad(column, problem);
        let result_col = self.required[4];
        let given_result = field(result_col);
        let in_case = |problem: String| match case_label {
            Some(label) => format!("{problem} (answering case {})", crate::fields::Excerpt(label)),
            None => problem,
        };
        let Some((_, _, _, prepared, _)) = &self.cached else { unreachable!("prepared before the replay") };
        let computed = match prepared {
            Prepared::Sha3(hasher) => {
                let game: GameId = game_name
                    .parse()
                    .map_err(|e: crate::games::UnknownGame| bad("game", format!("{e} of scheme sha3")))?;
                if !params.is_empty() {
                    return Err(bad(
                        PARAMS_COLUMN,
                        format!("{game} of scheme sha3 takes no parameters, got '{}'", Excerpt(params)),
                    ));
                }
                let (_, result, _) = replay_outcome(game, hasher, nonce);
                if !given_result.is_empty() {
                    let read = parse::outcome_column(game, "result", given_result)
                        .map_err(|(_, p)| bad("result", p))?;
                    if read != result {
                        mismatches.push(mismatch(line, "result", given_result, &result));
                    }
                }
                result
            }
            Prepared::Keyed(pair) => {
                let game = match answered {
                    Some(case) => case.game,
                    None => keyed_game(pair.scheme(), game_name, params).map_err(|(c, p)| bad(c, p))?,
                };
                let (outcome, _) = pair.round(&game, nonce).map_err(|problem| bad("nonce", problem))?;
                let result = game.result_text(&outcome);
                if !given_result.is_empty() {
                    let read =
                        game.read_result(given_result).map_err(|problem| bad("result", in_case(problem)))?;
                    if read != outcome {
                        mismatches.push(mismatch(line, "result", given_result, &result));
                    }
                }
                result
            }
            Prepared::Crash(variant) => {
                if !crash::GAMES.contains(&game_name) {
                    return Err(bad(
                        "game",
                        format!("unknown game '{}' of scheme {scheme} (expected crash)", Excerpt(game_name)),
                    ));
                }
                if !params.is_empty() {
                    return Err(bad(
                        PARAMS_COLUMN,
                        format!("crash of scheme {scheme} takes no parameters, got '{}'", Excerpt(params)),
                    ));
                }
                let point = crash::crash_point(*variant, server, client);
                if !given_result.is_empty() {
                    let read = crash::read_shown(given_result).map_err(|problem| bad("result", problem))?;
                    if read != variant.shown_hundredths(point) {
                        mismatches.push(mismatch(line, "result", given_result, &variant.shown(point)));
                    }
                }
                mismatches.extend(self.links.check(scheme, line, server, client, nonce));
                variant.shown(point)
            }
        };
        Ok(computed)
    }
}

/// A row's game of a keyed scheme, or the column to blame and why not: its parameters
/// where the scheme has the game, else the game.
fn keyed_game(scheme: KeyedScheme, name: &str, params: &str) -> Result<StakeGame, (&'static str, String)> {
    scheme
        .game(name, params)
        .map_err(|problem| (if scheme.games().contains(&name) { PARAMS_COLUMN } else { "game" }, problem))
}

/// One row of a rounds file as it is checked: its fields, and its line for errors.
struct Row<'r> {
    record: &'r csv::StringRecord,
    line: u64,
}

impl<'r> Row<'r> {
    /// Field `i` (empty where the row is short).
    fn field(&self, i: usize) -> &'r str {
        self.record.get(i).unwrap_or("")
    }

    /// A malformed `column` on this row.
    fn bad(&self, column: &'static str, problem: String) -> RoundsError {
        RoundsError::BadField { line: self.line, column, problem }
    }
}

/// The chain links of a rounds file's crash games: each game is checked against the crash
/// game on the row before it when both are of one chain (the same scheme and salt) and
/// their numbers are at most [`MAX_WALK`] apart, by walking from the higher game down
/// (game n - 1's hash is SHA-256 of game n's text). A game number given twice with two
/// hashes is a mismatch too. Rows that meet neither condition stand alone, and are
/// counted, so that the summary says how much of the file the links cover.
#[derive(Debug, Default)]
pub struct ChainLinks {
    /// The last crash row: its scheme, salt, game number, hash and line.
    last: Option<(SchemeId, String, u64, String, u64)>,
    /// Crash rows read.
    pub rows: u64,
    /// Crash rows checked against the row before them.
    pub linked: u64,
    /// Crash rows whose salt is none of the scheme's published seeding events'.
    pub other_salts: u64,
    /// The games of each chain whose published game fairaudit holds, by scheme and salt
    /// (at most [`MAX_ROWS`] in all), to walk to it after the last row.
    published: std::collections::BTreeMap<(SchemeId, String), Vec<ChainRow>>,
    /// Games of such chains beyond [`MAX_ROWS`], not kept.
    pub not_kept: u64,
}

/// The games of one chain of a rounds file whose published game fairaudit holds.
#[derive(Debug)]
pub struct PublishedChain {
    /// The scheme.
    pub scheme: SchemeId,
    /// The salt.
    pub salt: String,
    /// Its games, in the file's order.
    pub rows: Vec<ChainRow>,
}

impl ChainLinks {
    fn check(&mut self, scheme: SchemeId, line: u64, hash: &str, salt: &str, game: u64) -> Option<Mismatch> {
        self.rows += 1;
        let variant = scheme.crash_variant().expect("a crash scheme");
        self.other_salts += u64::from(!variant.published_salts().contains(&salt));
        if variant.published_game(salt).is_some() {
            let kept: usize = self.published.values().map(Vec::len).sum();
            match crash::hash_bytes(hash) {
                Some(bytes) if kept < MAX_ROWS => self
                    .published
                    .entry((scheme, salt.to_owned()))
                    .or_default()
                    .push(ChainRow { game, hash: bytes, line }),
                _ => self.not_kept += 1,
            }
        }
        let last = self.last.replace((scheme, salt.to_owned(), game, hash.to_owned(), line));
        let (_, _, last_game, last_hash, last_line) = last.filter(|(s, t, ..)| *s == scheme && t == salt)?;
        let named = |computed: String| Some(mismatch(line, "server_seed", hash, &computed));
        if game == last_game {
            self.linked += 1;
            return (hash != last_hash)
                .then(|| format!("{last_hash} (game {game}'s hash on line {last_line})"))
                .and_then(named);
        }
        let steps = game.abs_diff(last_game);
        if steps > MAX_WALK {
            return None;
        }
        self.linked += 1;
        if game < last_game {
            // This game is below the last one: the walk from it must reach this hash.
            let expected = (0..steps).fold(last_hash, |h, _| crash::previous_hash(&h));
            (expected != hash)
                .then(|| {
                    format!(
                        "{expected} (game {last_game}'s hash, on line {last_line}, hashed {steps} time(s))"
                    )
                })
                .and_then(named)
        } else {
            let reached = (0..steps).fold(hash.to_owned(), |h, _| crash::previous_hash(&h));
            (reached != last_hash).then(|| format!("a hash that reaches game {last_game}'s, {last_hash} (line {last_line}), in {steps} hash(es)")).and_then(named)
        }
    }
}

impl<R: Read> Iterator for SchemeRoundsChecker<R> {
    type Item = Result<RowCheck, RoundsError>;

    fn next(&mut self) -> Option<Self::Item> {
        match super::next_row(&mut self.read_ahead, &mut self.reader, &mut self.record)? {
            Ok(()) => Some(self.check_record()),
            Err(error) => Some(Err(error.into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Rounds;
    use super::*;
    use crate::columns::CsvLayout;

    fn check(file: &str, scheme: Option<SchemeId>) -> Vec<Result<RowCheck, RoundsError>> {
        Rounds::open(file.as_bytes(), &CsvLayout::default(), scheme).unwrap().collect()
    }

    #[test]
    fn rows_of_both_schemes_are_replayed_in_their_own() {
        let sha3 = crate::verify::replay(GameId::RouletteEuropean, "s", "c", 1).result;
        let dice = crate::scheme::stake::replay(&StakeGame::Dice, "s", "c", 1).result;
        let file = format!(
            "scheme,game,server_seed,client_seed,nonce,params,result\n\
             sha3,roulette-european,s,c,1,,{sha3}\nstake,dice,s,c,1,,{dice}\nstake,dice,s,c,1,,{sha3}.00\n"
        );
        let rows = check(&file, None);
        assert!(rows[0].as_ref().unwrap().mismatches.is_empty());
        assert!(rows[1].as_ref().unwrap().mismatches.is_empty());
        let wrong = &rows[2].as_ref().unwrap().mismatches;
        if format!("{sha3}.00") != dice {
            assert_eq!(wrong, &vec![mismatch(4, "result", &format!("{sha3}.00"), &dice)]);
        }
    }

    #[test]
    fn a_file_without_the_scheme_column_takes_the_scheme_given() {
        let dice = crate::scheme::stake::replay(&StakeGame::Dice, "s", "c", 0).result;
        let file = format!("game,server_seed,client_seed,nonce,result\ndice,s,c,0,{dice}\n");
        assert!(check(&file, Some(SchemeId::Stake))[0].as_ref().unwrap().mismatches.is_empty());
        // Read as the default scheme's file, dice is no game of it.
        let error = check(&file, None).remove(0).unwrap_err().to_string();
        assert!(error.contains("unknown game 'dice'"), "{error}");
    }

    #[test]
    fn bad_values_are_input_errors_naming_their_column() {
        for (row, column, says) in [
            ("stake,mines,s,c,0,,1 2 3", "params", "mines needs its mines"),
            ("stake,mines,s,c,0,{\"mines\":3},1 2", "result", "not a mines result"),
            ("stake,craps,s,c,0,,1", "game", "unknown game 'craps' of scheme stake"),
            ("sha3,keno,s,c,0,{\"x\":1},1", "params", "takes no parameters"),
            ("bcgame,dice,s,c,0,,1.00", "scheme", "unknown scheme 'bcgame'"),
        ] {
            let file = format!("scheme,game,server_seed,client_seed,nonce,params,result\n{row}\n");
            match check(&file, None).remove(0) {
                Err(RoundsError::BadField { column: named, problem, .. }) => {
                    assert_eq!(named, column, "{row}");
                    assert!(problem.contains(says), "{row}: {problem}");
                }
                other => panic!("{row}: {other:?}"),
            }
        }
        let file = "scheme,game,server_seed,client_seed,nonce,params,result\nsha3,keno,s,c,0,,1\n";
        let error = check(file, Some(SchemeId::Stake)).remove(0).unwrap_err().to_string();
        assert!(error.contains("'sha3', but --scheme stake was given"), "{error}");
    }

    /// A column this checker does not judge (a round signature) must not pass unjudged:
    /// the file is refused, naming it. A `case` column makes the file an answer to the
    /// stake challenge, whose rows are judged against its cases.
    #[test]
    fn columns_only_spec_files_are_checked_on_are_refused() {
        for column in ["round_signature", "draw_order", "u32_used"] {
            let file =
                format!("scheme,game,server_seed,client_seed,nonce,result,{column}\nsha3,keno,s,c,0,1,x\n");
            let error = Rounds::open(file.as_bytes(), &CsvLayout::default(), None).err().unwrap().to_string();
            assert!(error.contains(&format!("column '{column}' is checked in SPEC")), "{error}");
        }
        let file = "scheme,game,server_seed,client_seed,nonce,result,case\nsha3,keno,s,c,0,1,x\n";
        let error = check(file, None).remove(0).unwrap_err().to_string();
        assert!(
            error.contains("'sha3' in an answer to the conformance challenge of scheme stake"),
            "{error}"
        );
        // A challenge's seed pair in a scheme file is refused too.
        let cases = crate::conformance::challenge(&GameId::ALL);
        let case = cases.iter().find(|case| matches!(case.kind, crate::conformance::Kind::Ordinary)).unwrap();
        let file = format!(
            "scheme,game,server_seed,client_seed,nonce,result\nsha3,{},{},{},{},1\n",
            case.game, case.server_seed, case.client_seed, case.nonce
        );
        let error = check(&file, None).remove(0).unwrap_err().to_string();
        assert!(error.contains("a seed pair of the conformance challenge"), "{error}");
    }
}
