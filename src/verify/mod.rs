//! Replaying recorded rounds against the chain: one round ([`replay`]) or a whole bet
//! history in the vector format of SPEC §7 ([`RoundsChecker`]), streamed row by row so
//! files of any size run in constant memory.
//!
//! A file with a `case` column is an answer to the conformance challenge
//! ([`crate::conformance`]): each row is judged against the challenge's case of that
//! label, so an implementation is named by what it gets wrong, and a row that was
//! dropped, left unanswered or whose inputs were altered on the way counts as a failure.

use crate::chain::{beyond_reference, commitment, RoundHasher};
use crate::columns::CsvLayout;
use crate::conformance::{challenge, Case};
use crate::fields::parse_digest;
use crate::games::{parse, Game, GameId, Keno, Roulette};
use crate::scheme::SchemeId;
use std::io::Read;

mod answers;
pub mod published;
pub mod schemes;

pub use answers::OnlyCases;
use answers::{Answers, PlainCases};

pub use schemes::SchemeRoundsChecker;

/// Everything the chain says about one round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// The game.
    pub game: GameId,
    /// The nonce.
    pub nonce: u64,
    /// Lowercase hex SHA3-256 of the server seed.
    pub commitment: String,
    /// Lowercase hex SHA3-256 of `server:client:nonce`.
    pub round_signature: String,
    /// Draw order as the vectors spell it.
    pub draw_order: String,
    /// Result as the operator shows it.
    pub result: String,
    /// 32-bit words the round consumed from its stream.
    pub u32_used: u64,
}

/// Replays one round from its seeds and nonce.
pub fn replay(game: GameId, server_seed: &str, client_seed: &str, nonce: u64) -> Replayed {
    replay_with(game, &RoundHasher::new(server_seed, client_seed), commitment(server_seed), nonce)
}

/// The draw order, result and words used of one round, from a seed pair's hasher.
pub fn replay_outcome(game: GameId, hasher: &RoundHasher, nonce: u64) -> (String, String, u64) {
    fn texts<G: Game>(game: G, hasher: &RoundHasher, nonce: u64) -> (String, String, u64) {
        let mut words = hasher.words(nonce);
        let mut round = G::Outcome::default();
        game.draw(&mut words, &mut round);
        (game.draw_order_text(&round), game.result_text(&round), words.words_used())
    }
    match game {
        GameId::Keno => texts(Keno, hasher, nonce),
        GameId::RouletteEuropean => texts(Roulette::EUROPEAN, hasher, nonce),
        GameId::RouletteAmerican => texts(Roulette::AMERICAN, hasher, nonce),
    }
}

fn replay_with(game: GameId, hasher: &RoundHasher, commitment: String, nonce: u64) -> Replayed {
    let (draw_order, result, u32_used) = replay_outcome(game, hasher, nonce);
    Replayed {
        game,
        nonce,
        commitment,
        round_signature: hasher.signature_string(nonce),
        draw_order,
        result,
        u32_used,
    }
}

pub use crate::fields::{parse_nonce, NonceError};

/// A problem with a rounds file that stops the check (exit status 2 at the CLI).
#[derive(Debug, thiserror::Error)]
pub enum RoundsError {
    /// The file could not be read.
    /// (Its message is the source's, which error chains print after this one.)
    #[error("cannot read")]
    Io(#[from] std::io::Error),
    /// A required column is absent from the header.
    #[error("missing required column '{0}' in the header")]
    MissingColumn(&'static str),
    /// The header has none of the columns a round is checked on.
    #[error("nothing to check: the header has none of the columns commitment, round_signature, draw_order, result, u32_used")]
    NothingToCheck,
    /// The column map does not fit the file (see [`crate::columns`]).
    #[error(transparent)]
    Columns(#[from] crate::columns::ColumnError),
    /// The CSV itself is malformed at a line (invalid UTF-8, a truncated row, …).
    #[error("line {line}: {problem}")]
    Malformed {
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        problem: String,
    },
    /// A Keno history with payouts, audited without the operator's paytable: its payouts
    /// cannot be judged (the illustrative paytable would make every row a finding).
    #[error("Keno payouts are judged against the operator's paytable, and none was given")]
    PaytableRequired,
    /// A file that names its rows' schemes has a column only SPEC §7 files are checked on.
    #[error("column '{0}' is checked in SPEC §7 rounds files, which have no scheme column; a file with a scheme column (or read with --scheme stake) is checked on result and commitment: leave the column out, or the scheme column")]
    NotInSchemeFiles(&'static str),
    /// Answers to a conformance challenge expected of a file of a scheme that has none
    /// (the crash schemes).
    #[error("scheme {0} has no conformance challenge: a file of its rounds answers none")]
    NoChallenge(SchemeId),
    /// A game the answer is expected to answer ([`Rounds::expect_games`]) that the
    /// conformance challenge it is checked against does not have.
    #[error("'{name}' is no game of the conformance challenge this file is checked against; its games are {groups}")]
    UnknownGroup {
        /// The name given.
        name: String,
        /// The challenge's games (groups), listed.
        groups: String,
    },
    /// A field holds a value that cannot be used.
    #[error("line {line}: column '{column}': {problem}")]
    BadField {
        /// 1-based line number.
        line: u64,
        /// The column.
        column: &'static str,
        /// What is wrong.
        problem: String,
    },
}

impl From<csv::Error> for RoundsError {
    fn from(error: csv::Error) -> Self {
        let line = error.position().map_or(0, csv::Position::line);
        match error.into_kind() {
            csv::ErrorKind::Io(io) => RoundsError::Io(io),
            csv::ErrorKind::Utf8 { err, .. } => RoundsError::Malformed {
                line,
                problem: format!("invalid UTF-8 in field {}", err.field() + 1),
            },
            csv::ErrorKind::UnequalLengths { expected_len, len, .. } => RoundsError::Malformed {
                line,
                problem: format!("row has {len} fields, the header has {expected_len}"),
            },
            other => RoundsError::Malformed { line, problem: format!("{other:?}") },
        }
    }
}

/// One field of one row that disagrees with the chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// 1-based line number of the row in the file.
    pub line: u64,
    /// The column that disagrees.
    pub field: &'static str,
    /// What the file says.
    pub file_value: String,
    /// What fairaudit computed.
    pub computed_value: String,
}

/// The outcome of checking one row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowCheck {
    /// 1-based line number.
    pub line: u64,
    /// Fields that disagree (empty when the row checks out).
    pub mismatches: Vec<Mismatch>,
    /// The nonce is above 2^53 − 1, where the reference has no behaviour.
    pub beyond_reference: bool,
    /// The conformance case the row answers, when the file answers the challenge.
    pub case: Option<String>,
}

/// The columns every rounds file must have: the round's inputs.
pub const REQUIRED: [&str; 4] = ["game", "server_seed", "client_seed", "nonce"];
const CHECKED: [&str; 5] = ["commitment", "round_signature", "draw_order", "result", "u32_used"];

/// The column that makes a rounds file an answer to the conformance challenge.
pub const CASE_COLUMN: &str = "case";

/// Every field a rounds file may have: what a column map may map ([`crate::columns`]).
pub const FIELDS: [&str; 10] = [
    REQUIRED[0],
    REQUIRED[1],
    REQUIRED[2],
    REQUIRED[3],
    CHECKED[0],
    CHECKED[1],
    CHECKED[2],
    CHECKED[3],
    CHECKED[4],
    CASE_COLUMN,
];

/// Streams a rounds file and checks every row against the chain.
///
/// Required columns: `game, server_seed, client_seed, nonce`. Each of `commitment,
/// round_signature, draw_order, result, u32_used` is checked where the column exists and
/// the cell is not empty. Each value is read by the parser `audit` uses
/// ([`crate::fields::parse_digest`], [`crate::games::parse`]): hex in either case, outcomes
/// in their written form; a value in another form is a [`RoundsError::BadField`], not a
/// mismatch.
///
/// A row in which none of those cells is filled states no round, and is a mismatch on
/// `result`: a file of empty answers must not read as "0 mismatches".
///
/// With a `case` column the file answers the conformance challenge: every label must be
/// one of the challenge's cases, answered once; the row's inputs must be the case's (a
/// difference is a mismatch, and the round is replayed from the case's inputs); `result`
/// and `draw_order` must be filled (an empty one is a mismatch). A file without a `case`
/// column whose first row has a seed pair derived for the challenge answers it too, matched by inputs:
/// each row must be a case's round (a row that is none, for example with a trimmed seed,
/// is a mismatch on `case`), each case answered once. A file without a `case` column whose
/// first row has another seed pair and a later row one derived for the challenge is refused. After the last row,
/// [`RoundsChecker::unanswered`] lists the cases no row answered.
pub struct RoundsChecker<R: Read> {
    reader: csv::Reader<crate::columns::LfLines<R>>,
    required: [usize; 4],
    checked: [Option<usize>; 5],
    answers: Option<Answers<Case>>,
    record: csv::StringRecord,
    /// The first row, read ahead (into `record`) to tell whether a file without a `case`
    /// column answers the challenge, and not yet checked; or the error reading it.
    read_ahead: Option<Result<(), csv::Error>>,
    /// The seed pairs only the challenge plays ([`derived_pairs`]): a plain rounds file
    /// must not hold one.
    challenge_pairs: std::collections::HashSet<(String, String)>,
    /// Of a file read as plain rounds: whether its rows are all the challenge's rounds.
    plain_cases: Option<PlainCases<Case>>,
    /// The last seed pair's hasher and commitment: bet histories repeat seed pairs.
    cached: Option<(String, String, RoundHasher, String)>,
}

impl<R: Read> RoundsChecker<R> {
    /// Reads the header and prepares to check rows.
    pub fn new(input: R) -> Result<Self, RoundsError> {
        Self::with_layout(input, &CsvLayout::default())
    }

    /// [`RoundsChecker::new`] for a file in `layout`: its delimiter, its own names for
    /// [`FIELDS`].
    pub fn with_layout(input: R, layout: &CsvLayout) -> Result<Self, RoundsError> {
        let mut reader = layout.reader(input);
        let headers = reader.headers()?.clone();
        let found = layout.columns.locate(&headers, &FIELDS)?;
        Self::from_located(reader, &found)
    }

    /// The checker of a file whose header was read and its columns found.
    fn from_located(
        reader: csv::Reader<crate::columns::LfLines<R>>,
        found: &crate::columns::Located,
    ) -> Result<Self, RoundsError> {
        let find = |name: &str| found.get(name);
        let mut required = [0; 4];
        for (slot, name) in required.iter_mut().zip(REQUIRED) {
            *slot = find(name).ok_or(RoundsError::MissingColumn(name))?;
        }
        let checked = CHECKED.map(find);
        if checked.iter().all(Option::is_none) {
            return Err(RoundsError::NothingToCheck);
        }
        let mut checker = Self {
            reader,
            required,
            checked,
            answers: find(CASE_COLUMN).map(|column| Answers::new(Some(column), challenge(&GameId::ALL))),
            record: csv::StringRecord::new(),
            read_ahead: None,
            challenge_pairs: derived_pairs(),
            plain_cases: None,
            cached: None,
        };
        if checker.answers.is_none() {
            checker.read_ahead = read_row(&mut checker.reader, &mut checker.record);
            if matches!(checker.read_ahead, Some(Ok(()))) {
                let field = |i: usize| checker.record.get(i).unwrap_or("");
                let [_, server, client, _] = checker.required;
                if checker.challenge_pairs.contains(&(field(server).to_owned(), field(client).to_owned())) {
                    checker.answers = Some(Answers::new(None, challenge(&GameId::ALL)));
                }
            }
            if checker.answers.is_none() {
                checker.plain_cases = Some(PlainCases::new(challenge(&GameId::ALL)));
            }
        }
        Ok(checker)
    }

    /// Whether the file answers the conformance challenge (it has a `case` column, or its
    /// first row has a seed pair derived for the challenge), or is expected to
    /// ([`Rounds::expect_games`]: `verify --expect-game`).
    pub fn is_challenge(&self) -> bool {
        self.answers.is_some()
    }

    /// The answers to the challenge, begun (matched by inputs) when the file was not read
    /// as one: it is expected to be one ([`Rounds::expect_games`]).
    fn answers_expected(&mut self) -> &mut Answers<Case> {
        self.plain_cases = None;
        self.answers.get_or_insert_with(|| Answers::new(None, challenge(&GameId::ALL)))
    }

    /// The conformance cases no row answered, among the games the file answers (every
    /// case when it answers none). Empty for files that answer no challenge. Complete
    /// once every row has been read.
    pub fn unanswered(&self) -> Vec<&Case> {
        self.answers.as_ref().map(Answers::unanswered).unwrap_or_default()
    }

    /// The games a conformance answer is judged on: those its rows answer, or all three
    /// when it answers none. Empty for files that answer no challenge.
    pub fn answered_games(&self) -> Vec<&'static str> {
        self.answers.as_ref().map(Answers::groups).unwrap_or_default()
    }

    /// The games of the challenge no row answers, which are not judged (empty when the
    /// answer answers none, and so is judged on all).
    pub fn unjudged_games(&self) -> Vec<&'static str> {
        self.answers.as_ref().map(Answers::unjudged).unwrap_or_default()
    }

    /// Of a file read as plain rounds, when every row is the round of a challenge case
    /// ([`PlainCases`]). Complete once every row has been read.
    pub fn only_cases(&self) -> Option<OnlyCases> {
        self.plain_cases.as_ref().and_then(PlainCases::only_cases)
    }

    fn check_record(&mut self) -> Result<RowCheck, RoundsError> {
        let line = self.record.position().map_or(0, csv::Position::line);
        let field = |i: usize| self.record.get(i).unwrap_or("");
        let [game_col, server_col, client_col, nonce_col] = self.required;
        let mut game: GameId = field(game_col).trim().parse().map_err(|e: crate::games::UnknownGame| {
            RoundsError::BadField { line, column: "game", problem: e.to_string() }
        })?;
        let mut nonce = parse_nonce(field(nonce_col)).map_err(|e| RoundsError::BadField {
            line,
            column: "nonce",
            problem: e.to_string(),
        })?;
        let (mut server, mut client) = (field(server_col), field(client_col));
        let mut mismatches = Vec::new();
        let case = match self.answers.as_mut() {
            Some(answers) => {
                let case = match answers.column {
                    Some(column) => Some(answers.answer(field(column).trim(), line)?),
                    None => match answers.case_of(&(game, server.to_owned(), client.to_owned(), nonce)) {
                        Some(index) => Some(answers.answer_index(index, line)?),
                        None => None,
                    },
                };
                match case {
                    Some(case) => {
                        let inputs = [
                            ("game", field(game_col).trim(), case.game.name().to_owned()),
                            ("server_seed", server, case.server_seed.clone()),
                            ("client_seed", client, case.client_seed.clone()),
                            ("nonce", field(nonce_col), case.nonce.to_string()),
                        ];
                        let differs = |(name, given, expected): &(&str, &str, String)| match *name {
                            "game" => game != case.game,
                            "nonce" => nonce != case.nonce,
                            _ => given != expected,
                        };
                        for input in inputs.iter().filter(|input| differs(input)) {
                            mismatches.push(mismatch(line, input.0, input.1, &input.2));
                        }
                        // Judge the answer against the case, whatever the row says it answered.
                        (game, nonce) = (case.game, case.nonce);
                        (server, client) = (case.server_seed.as_str(), case.client_seed.as_str());
                        Some(case.label.clone())
                    }
                    None => {
                        // Matched by inputs: a row that is no case's round answers nothing.
                        mismatches.push(mismatch(line, CASE_COLUMN, "", NO_CASE));
                        None
                    }
                }
            }
            None => {
                // An answer the first row did not reveal (a row put before it, every nonce
                // shifted): judged as plain rounds it could pass, so it is refused.
                if self.challenge_pairs.contains(&(server.to_owned(), client.to_owned())) {
                    return Err(RoundsError::BadField {
                        line,
                        column: "server_seed",
                        problem: "a seed pair of the conformance challenge, in a file whose first row is not one: answer the challenge in its own order (keep its `case` column)".into(),
                    });
                }
                if let Some(plain) = self.plain_cases.as_mut() {
                    plain.row(|| Some((game, server.to_owned(), client.to_owned(), nonce)));
                }
                None
            }
        };
        let cache_hit =
            matches!(&self.cached, Some((s, c, _, _)) if s.as_str() == server && c.as_str() == client);
        if !cache_hit {
            let hasher = RoundHasher::new(server, client);
            self.cached = Some((server.to_owned(), client.to_owned(), hasher, commitment(server)));
        }
        let (_, _, hasher, commit) = self.cached.as_ref().expect("filled above");
        let replayed = replay_with(game, hasher, commit.clone(), nonce);

        let filled =
            |index: Option<usize>| index.is_some_and(|i| !self.record.get(i).unwrap_or("").is_empty());
        let states_nothing = !self.checked.into_iter().any(filled);
        for (column, index) in CHECKED.into_iter().zip(self.checked) {
            let given = index.map_or("", |i| self.record.get(i).unwrap_or(""));
            if given.is_empty() {
                // A challenge must be answered, and a row must state something: an empty
                // outcome is a wrong one.
                let required = match column {
                    "result" => case.is_some() || states_nothing,
                    "draw_order" => case.is_some(),
                    _ => false,
                };
                if required {
                    let computed = if column == "result" { &replayed.result } else { &replayed.draw_order };
                    mismatches.push(mismatch(line, column, given, computed));
                }
                continue;
            }
            // Read as `audit` reads it: a value not in its written form is an input error.
            let bad_field = |problem: String| RoundsError::BadField {
                line,
                column,
                problem: match &case {
                    Some(label) => format!("{problem} (answering case {})", crate::fields::Excerpt(label)),
                    None => problem,
                },
            };
            let (computed, same) = match column {
                "commitment" | "round_signature" => {
                    let computed =
                        if column == "commitment" { &replayed.commitment } else { &replayed.round_signature };
                    let what = if column == "commitment" { "a commitment" } else { "a round signature" };
                    (computed, parse_digest(given, what).map_err(bad_field)? == *computed)
                }
                "draw_order" | "result" => {
                    let computed = if column == "result" { &replayed.result } else { &replayed.draw_order };
                    let read = parse::outcome_column(game, column, given).map_err(|(_, p)| bad_field(p))?;
                    (computed, read == *computed)
                }
                _ => {
                    let used = parse_nonce(given).map_err(|_| RoundsError::BadField {
                        line,
                        column: "u32_used",
                        problem: format!("'{}' is not a non-negative integer", crate::fields::Excerpt(given)),
                    })?;
                    let computed = replayed.u32_used.to_string();
                    let same = used == replayed.u32_used;
                    if !same {
                        mismatches.push(mismatch(line, column, given, &computed));
                    }
                    continue;
                }
            };
            if !same {
                mismatches.push(mismatch(line, column, given, computed));
            }
        }
        Ok(RowCheck { line, mismatches, beyond_reference: beyond_reference(nonce), case })
    }
}

/// Every field a rounds file of any scheme may have: [`FIELDS`], and the `scheme` and
/// `params` columns of [`schemes`].
pub const ALL_FIELDS: [&str; 12] = [
    FIELDS[0],
    FIELDS[1],
    FIELDS[2],
    FIELDS[3],
    FIELDS[4],
    FIELDS[5],
    FIELDS[6],
    FIELDS[7],
    FIELDS[8],
    FIELDS[9],
    schemes::SCHEME_COLUMN,
    schemes::PARAMS_COLUMN,
];

/// A rounds file being checked: of the default scheme in the columns of SPEC §7
/// ([`RoundsChecker`]), or with a `scheme` column, or of another scheme
/// ([`SchemeRoundsChecker`]).
pub enum Rounds<R: Read> {
    /// SPEC §7 rows of the default scheme (conformance answers included).
    Sha3(Box<RoundsChecker<R>>),
    /// Rows naming their scheme, or of the scheme given.
    Schemes(Box<SchemeRoundsChecker<R>>),
}

impl<R: Read> Rounds<R> {
    /// Reads the header and picks the checker: a file with a `scheme` column, or any file
    /// when `scheme` names another scheme than the default, is checked row by row in its
    /// scheme; otherwise as SPEC §7 rounds, exactly as [`RoundsChecker`] does.
    pub fn open(input: R, layout: &CsvLayout, scheme: Option<SchemeId>) -> Result<Self, RoundsError> {
        let mut reader = layout.reader(input);
        let headers = reader.headers()?.clone();
        let scheme_header = layout
            .columns
            .entries()
            .iter()
            .find(|(field, _)| field == schemes::SCHEME_COLUMN)
            .map_or(schemes::SCHEME_COLUMN, |(_, header)| header.as_str());
        let has_scheme = headers.iter().any(|header| header.trim() == scheme_header);
        if !has_scheme && scheme.unwrap_or_default() == SchemeId::Sha3 {
            // Found exactly as [`RoundsChecker::with_layout`] finds them.
            let found = layout.columns.locate(&headers, &FIELDS)?;
            Ok(Rounds::Sha3(Box::new(RoundsChecker::from_located(reader, &found)?)))
        } else {
            let found = layout.columns.locate(&headers, &ALL_FIELDS)?;
            Ok(Rounds::Schemes(Box::new(SchemeRoundsChecker::from_located(reader, &found, scheme)?)))
        }
    }

    /// Whether the file answers a conformance challenge (the default scheme's, or the
    /// stake scheme's), or is expected to ([`Rounds::expect_games`]).
    pub fn is_challenge(&self) -> bool {
        match self {
            Rounds::Sha3(checker) => checker.is_challenge(),
            Rounds::Schemes(checker) => checker.is_challenge(),
        }
    }

    /// The chain links between a scheme file's crash rows; `None` for SPEC §7 files.
    pub fn chain_links(&self) -> Option<&schemes::ChainLinks> {
        match self {
            Rounds::Sha3(_) => None,
            Rounds::Schemes(checker) => Some(checker.chain_links()),
        }
    }

    /// The crash games read, per chain whose published game fairaudit holds, to walk to
    /// it ([`published::walk_rows`]); taken once, after the last row.
    pub fn take_published_chains(&mut self) -> Vec<schemes::PublishedChain> {
        match self {
            Rounds::Sha3(_) => Vec::new(),
            Rounds::Schemes(checker) => checker.take_published_chains(),
        }
    }

    /// The labels of the cases no row answered ([`RoundsChecker::unanswered`],
    /// [`SchemeRoundsChecker::unanswered`]); empty for files that answer no challenge.
    pub fn unanswered(&self) -> Vec<&str> {
        use crate::conformance::ChallengeCase;
        match self {
            Rounds::Sha3(checker) => checker.unanswered().into_iter().map(ChallengeCase::label).collect(),
            Rounds::Schemes(checker) => checker.unanswered().into_iter().map(ChallengeCase::label).collect(),
        }
    }

    /// The games (the stake challenge's groups) no row of an answer answers, which are
    /// not judged; empty for files that answer no challenge.
    pub fn unjudged_games(&self) -> Vec<&'static str> {
        match self {
            Rounds::Sha3(checker) => checker.unjudged_games(),
            Rounds::Schemes(checker) => checker.unjudged_groups(),
        }
    }

    /// The games (the stake challenge's groups) an answer is judged on; empty for files
    /// that answer no challenge.
    pub fn answered_games(&self) -> Vec<&'static str> {
        match self {
            Rounds::Sha3(checker) => checker.answered_games(),
            Rounds::Schemes(checker) => checker.answered_groups(),
        }
    }

    /// Of a file read as plain rounds, when every row is the round of a case of the
    /// challenge of its scheme ([`RoundsChecker::only_cases`]).
    pub fn only_cases(&self) -> Option<OnlyCases> {
        match self {
            Rounds::Sha3(checker) => checker.only_cases(),
            Rounds::Schemes(checker) => checker.only_cases(),
        }
    }

    /// Requires the file to be an answer to the conformance challenge that answers each of
    /// `games` (the challenge's game names; the stake challenge's groups: `limbo-fair`, not
    /// `limbo`). Each case of them that no row answers then fails, even when no row
    /// answers the game at all, where it would otherwise be named as not judged. A file
    /// that answers no challenge is read as an answer matched by inputs, so each of its
    /// rows that is not a case's round is a mismatch. The challenge is the default
    /// scheme's for SPEC §7 files, the stake scheme's for files checked in their scheme.
    /// Call it before reading the rows.
    pub fn expect_games(&mut self, games: &[String]) -> Result<(), RoundsError> {
        if games.is_empty() {
            return Ok(());
        }
        match self {
            Rounds::Sha3(checker) => checker.answers_expected().expect(games),
            Rounds::Schemes(checker) => checker.answers_expected()?.expect(games),
        }
    }
}

impl<R: Read> Iterator for Rounds<R> {
    type Item = Result<RowCheck, RoundsError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Rounds::Sha3(checker) => checker.next(),
            Rounds::Schemes(checker) => checker.next(),
        }
    }
}

/// The seed pairs of the challenge's cases derived from its master seed (ordinary, nonce,
/// pocket and coverage rounds): seeds no one else plays. The rejection rounds' pairs are
/// left out, since one is the operator's own vector.
pub(crate) fn derived_pairs() -> std::collections::HashSet<(String, String)> {
    use crate::conformance::Kind;
    challenge(&GameId::ALL)
        .into_iter()
        .filter(|case| matches!(case.kind, Kind::Ordinary | Kind::Nonce | Kind::Pocket | Kind::Coverage))
        .map(|case| (case.server_seed, case.client_seed))
        .collect()
}

/// Reads the next row into `record` (the first one ahead, to tell whether a file answers
/// a challenge): `None` at the end; a malformed row is kept, to be reported in its turn.
fn read_row<R: Read>(
    reader: &mut csv::Reader<crate::columns::LfLines<R>>,
    record: &mut csv::StringRecord,
) -> Option<Result<(), csv::Error>> {
    match reader.read_record(record) {
        Ok(read) => read.then_some(Ok(())),
        Err(error) => Some(Err(error)),
    }
}

/// The next row into `record`: the row read ahead if there is one, else the reader's
/// next; `None` at the end.
fn next_row<R: Read>(
    read_ahead: &mut Option<Result<(), csv::Error>>,
    reader: &mut csv::Reader<crate::columns::LfLines<R>>,
    record: &mut csv::StringRecord,
) -> Option<Result<(), csv::Error>> {
    read_ahead.take().or_else(|| read_row(reader, record))
}

/// The computed side of a mismatch on `case`: a row of a challenge answer matched by
/// inputs that is no case's round.
pub const NO_CASE: &str = "no case of the challenge has these inputs";

fn mismatch(line: u64, field: &'static str, given: &str, computed: &str) -> Mismatch {
    Mismatch { line, field, file_value: given.to_owned(), computed_value: computed.to_owned() }
}

impl<R: Read> Iterator for RoundsChecker<R> {
    type Item = Result<RowCheck, RoundsError>;

    fn next(&mut self) -> Option<Self::Item> {
        match next_row(&mut self.read_ahead, &mut self.reader, &mut self.record)? {
            Ok(()) => Some(self.check_record()),
            Err(error) => Some(Err(error.into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonce_parsing_takes_plain_decimal_only() {
        assert_eq!(parse_nonce("0"), Ok(0));
        assert_eq!(parse_nonce("18446744073709551615"), Ok(u64::MAX));
        for bad in ["", "+1", "-1", " 1", "1e3", "0x10", "1.0"] {
            assert!(matches!(parse_nonce(bad), Err(NonceError::NotDecimal(_))), "{bad:?}");
        }
        assert!(matches!(parse_nonce("18446744073709551616"), Err(NonceError::TooLarge(_))));
    }

    #[test]
    fn a_changed_result_is_reported_with_both_values() {
        let round = replay(GameId::RouletteEuropean, "s", "c", 1);
        let wrong = if round.result == "1" { "2" } else { "1" };
        let file = format!("game,server_seed,client_seed,nonce,result\nroulette-european,s,c,1,{wrong}\n");
        let rows: Vec<_> = RoundsChecker::new(file.as_bytes()).unwrap().collect();
        let row = rows[0].as_ref().unwrap();
        assert_eq!(row.line, 2);
        assert_eq!(row.mismatches, vec![mismatch(2, "result", wrong, &round.result)]);
    }

    #[test]
    fn missing_column_is_named() {
        let err = RoundsChecker::new("game,server_seed,nonce\n".as_bytes()).err().unwrap();
        assert_eq!(err.to_string(), "missing required column 'client_seed' in the header");
    }
}
