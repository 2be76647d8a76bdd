//! Worked recomputations: one round taken apart step by step (seeds → commitment →
//! message bytes → signature → SHAKE256 words → each rejection-sampling step → outcome),
//! computed with the chain's and the sampler's own functions, so that a certificate shows
//! what fairaudit actually does and a reader can redo each step with any SHA-3 tool.

use crate::chain::{commitment, RoundHasher, ShakeWords, WordSource};
use crate::conformance::CHALLENGE_COLUMNS;
use crate::games::keno::{choices_at_draw, DRAWN, GRID};
use crate::games::{GameId, Roulette};
use crate::sampler::{limit, sample};
use crate::verify::replay;
use std::io::Read;

/// One word read from the stream during a draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WordStep {
    /// Position of the word in the stream (0-based).
    pub position: u64,
    /// The word (big-endian u32 of four stream bytes).
    pub word: u32,
    /// Whether it was below the limit (accepted) or discarded.
    pub accepted: bool,
}

/// One `sample(P)` call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawStep {
    /// Outcomes sampled among.
    pub outcomes: u32,
    /// `floor(2^32 / P) * P`.
    pub limit: u64,
    /// The words read, the last one accepted.
    pub words: Vec<WordStep>,
    /// `word mod P` of the accepted word.
    pub index: u32,
    /// Keno: the numbers not yet drawn, ascending, that the index points into (empty for
    /// roulette).
    pub list: Vec<u8>,
    /// What the index chose: the Keno number at that place of the list of numbers not yet
    /// drawn, or the roulette pocket as shown.
    pub chosen: String,
}

/// A round recomputed step by step, beside what its vector records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkedRound {
    /// Where the round comes from (`FILE line N`).
    pub source: String,
    /// The game.
    pub game: GameId,
    /// The server seed.
    pub server_seed: String,
    /// The client seed.
    pub client_seed: String,
    /// The nonce.
    pub nonce: u64,
    /// SHA3-256 of the server seed, hex.
    pub commitment: String,
    /// The message `server:client:nonce`.
    pub message: String,
    /// SHA3-256 of the message, lowercase hex: the round signature.
    pub signature: String,
    /// The first words of SHAKE256(signature as 64 ASCII bytes), big-endian.
    pub first_words: Vec<u32>,
    /// Each draw.
    pub draws: Vec<DrawStep>,
    /// Draw order as the vectors spell it.
    pub draw_order: String,
    /// Result as the operator shows it.
    pub result: String,
    /// Words consumed.
    pub u32_used: u64,
    /// What the vector records: commitment, signature, draw order, result, words used.
    pub recorded: RecordedRound,
}

/// A vector's recorded answer for its round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedRound {
    /// Commitment column.
    pub commitment: String,
    /// Round signature column.
    pub signature: String,
    /// Draw order column.
    pub draw_order: String,
    /// Result column.
    pub result: String,
    /// Words used column.
    pub u32_used: u64,
}

impl WorkedRound {
    /// Whether every step's result equals the vector's.
    pub fn matches(&self) -> bool {
        self.commitment == self.recorded.commitment
            && self.signature == self.recorded.signature
            && self.draw_order == self.recorded.draw_order
            && self.result == self.recorded.result
            && self.u32_used == self.recorded.u32_used
    }

    /// Words rejected in the round.
    pub fn rejections(&self) -> usize {
        self.draws.iter().map(|d| d.words.iter().filter(|w| !w.accepted).count()).sum()
    }
}

/// Words shown from the start of the stream (a roulette round uses one or two).
pub const FIRST_WORDS_SHOWN: usize = 4;

/// Records every word a draw reads.
struct Recording {
    words: ShakeWords,
    read: Vec<u32>,
}

impl WordSource for Recording {
    fn next_word(&mut self) -> u32 {
        let word = self.words.next_word();
        self.read.push(word);
        word
    }
}

/// Recomputes one round step by step. The steps go through [`crate::sampler::sample`] on
/// the chain's stream; the outcome is also replayed through the production draw path
/// ([`replay`]), and the two must agree (they share the sampler, so they always do unless
/// the game's draw code departs from SPEC §4/§5).
pub fn work_round(
    game: GameId,
    server_seed: &str,
    client_seed: &str,
    nonce: u64,
    source: String,
    recorded: RecordedRound,
) -> WorkedRound {
    let hasher = RoundHasher::new(server_seed, client_seed);
    let signature = hasher.signature_string(nonce);
    let mut preview = ShakeWords::from_signature_hex(&hasher.signature_hex(nonce));
    let first_words = (0..FIRST_WORDS_SHOWN).map(|_| preview.next_word()).collect();
    let mut stream =
        Recording { words: ShakeWords::from_signature_hex(&hasher.signature_hex(nonce)), read: Vec::new() };
    let mut draws = Vec::new();
    let mut remaining: Vec<u8> = (1..=GRID as u8).collect();
    let mut order = Vec::new();
    let draw_count = if game == GameId::Keno { DRAWN } else { 1 };
    for k in 0..draw_count {
        let outcomes = match game {
            GameId::Keno => choices_at_draw(k),
            GameId::RouletteEuropean => 37,
            GameId::RouletteAmerican => 38,
        };
        let first = stream.read.len() as u64;
        let picked = sample(&mut stream, outcomes);
        let read = &stream.read[first as usize..];
        let words = read
            .iter()
            .enumerate()
            .map(|(i, &word)| WordStep { position: first + i as u64, word, accepted: i + 1 == read.len() })
            .collect();
        let list = if game == GameId::Keno { remaining.clone() } else { Vec::new() };
        let chosen = if game == GameId::Keno {
            let number = remaining.remove(picked.index as usize);
            order.push(number.to_string());
            number.to_string()
        } else {
            order.push(picked.index.to_string());
            Roulette::label(picked.index as u8)
        };
        draws.push(DrawStep { outcomes, limit: limit(outcomes), words, index: picked.index, list, chosen });
    }
    let draw_order = order.join(" ");
    let result = if game == GameId::Keno {
        let mut sorted: Vec<u8> = order.iter().map(|n| n.parse().expect("a number we wrote")).collect();
        sorted.sort_unstable();
        sorted.iter().map(u8::to_string).collect::<Vec<_>>().join(" ")
    } else {
        draws[0].chosen.clone()
    };
    let u32_used = stream.read.len() as u64;
    let production = replay(game, server_seed, client_seed, nonce);
    assert_eq!(
        (production.draw_order.as_str(), production.result.as_str(), production.u32_used),
        (draw_order.as_str(), result.as_str(), u32_used),
        "the step-by-step trace departs from the draw code"
    );
    WorkedRound {
        source,
        game,
        server_seed: server_seed.to_owned(),
        client_seed: client_seed.to_owned(),
        nonce,
        commitment: commitment(server_seed),
        message: format!("{server_seed}:{client_seed}:{nonce}"),
        signature,
        first_words,
        draws,
        draw_order,
        result,
        u32_used,
        recorded,
    }
}

/// A row of a vector file (SPEC §7), with its line.
#[derive(Clone, Debug)]
pub struct VectorRow {
    /// Line in the file (the header is line 1).
    pub line: u64,
    /// The game.
    pub game: GameId,
    /// Server seed.
    pub server_seed: String,
    /// Client seed.
    pub client_seed: String,
    /// Nonce.
    pub nonce: u64,
    /// What the vector records.
    pub recorded: RecordedRound,
}

/// A vector file that cannot be read as SPEC §7 describes.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct VectorError {
    /// The line.
    pub line: u64,
    /// What is wrong.
    pub problem: String,
}

/// Reads a vector file (SPEC §7 columns, header row).
pub fn read_vectors(input: impl Read) -> Result<Vec<VectorRow>, VectorError> {
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(input);
    let headers = reader.headers().map_err(|e| VectorError { line: 1, problem: e.to_string() })?.clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| VectorError { line: 1, problem: format!("no '{name}' column") })
    };
    let spec: [&str; 9] = CHALLENGE_COLUMNS[..9].try_into().expect("SPEC §7's nine columns");
    let [game, server, client, nonce, commit, signature, order, result, used] = spec.map(column);
    let (game, server, client, nonce, commit, signature, order, result, used) =
        (game?, server?, client?, nonce?, commit?, signature?, order?, result?, used?);
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| VectorError {
            line: e.position().map_or(0, |p| p.line()),
            problem: e.to_string(),
        })?;
        let line = record.position().map_or(0, |p| p.line());
        let bad = |problem: String| VectorError { line, problem };
        let field = |i: usize| record.get(i).unwrap_or("").to_owned();
        rows.push(VectorRow {
            line,
            game: field(game).parse().map_err(|e: crate::games::UnknownGame| bad(e.to_string()))?,
            server_seed: field(server),
            client_seed: field(client),
            nonce: crate::fields::parse_nonce(&field(nonce)).map_err(|e| bad(e.to_string()))?,
            recorded: RecordedRound {
                commitment: field(commit),
                signature: field(signature),
                draw_order: field(order),
                result: field(result),
                u32_used: field(used)
                    .parse()
                    .map_err(|_| bad(format!("u32_used '{}' is not a count", field(used))))?,
            },
        });
    }
    Ok(rows)
}

/// Which rounds a certificate works through, from the reference and rejection vectors,
/// for the games in scope only: the first Keno round of the reference vectors (ten draws,
/// P = 40 down to 31), the first American round whose result is `00` (the label a
/// careless verifier gets wrong), the first European round, and the first round of an
/// in-scope game in the rejection vectors whose sampler rejected a word (roulette
/// preferred: one draw). Each is `(file index, row)`: 0 = reference, 1 = rejection.
pub fn choose_rounds<'a>(
    reference: &'a [VectorRow],
    rejection: &'a [VectorRow],
    games: &[GameId],
) -> Vec<(usize, &'a VectorRow)> {
    let mut chosen = Vec::new();
    let in_scope = |r: &&VectorRow| games.contains(&r.game);
    if let Some(row) = reference.iter().filter(in_scope).find(|r| r.game == GameId::Keno) {
        chosen.push((0, row));
    }
    if let Some(row) = reference
        .iter()
        .filter(in_scope)
        .find(|r| r.game == GameId::RouletteAmerican && r.recorded.result == "00")
    {
        chosen.push((0, row));
    }
    if let Some(row) = reference.iter().filter(in_scope).find(|r| r.game == GameId::RouletteEuropean) {
        chosen.push((0, row));
    }
    let rejected = |r: &&VectorRow| {
        let draws = if r.game == GameId::Keno { DRAWN as u64 } else { 1 };
        r.recorded.u32_used > draws
    };
    let candidates = || rejection.iter().filter(in_scope).filter(rejected);
    if let Some(row) = candidates().find(|r| r.game != GameId::Keno).or_else(|| candidates().next()) {
        chosen.push((1, row));
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vectors(name: &str) -> Vec<VectorRow> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/vectors").join(name);
        read_vectors(std::fs::File::open(path).unwrap()).unwrap()
    }

    #[test]
    fn the_worked_rounds_reproduce_their_vectors_and_one_rejects() {
        let reference = vectors("reference-rounds.csv");
        let rejection = vectors("rejection-rounds.csv");
        let chosen = choose_rounds(&reference, &rejection, &GameId::ALL);
        assert_eq!(chosen.len(), 4);
        // Only the games in scope: a European certificate works European rounds only.
        let european = choose_rounds(&reference, &rejection, &[GameId::RouletteEuropean]);
        assert!(!european.is_empty() && european.iter().all(|(_, r)| r.game == GameId::RouletteEuropean));
        let worked: Vec<WorkedRound> = chosen
            .iter()
            .map(|(_, r)| {
                work_round(r.game, &r.server_seed, &r.client_seed, r.nonce, String::new(), r.recorded.clone())
            })
            .collect();
        assert!(worked.iter().all(WorkedRound::matches), "{worked:#?}");
        assert!(worked.iter().any(|w| w.rejections() > 0), "one round must show a rejection");
        for round in &worked {
            for draw in &round.draws {
                let last = draw.words.last().unwrap();
                assert!(last.accepted && u64::from(last.word) < draw.limit);
                assert_eq!(last.word % draw.outcomes, draw.index);
                assert!(draw.words[..draw.words.len() - 1].iter().all(|w| u64::from(w.word) >= draw.limit));
            }
        }
    }

    #[test]
    fn a_wrong_vector_does_not_match() {
        let reference = vectors("reference-rounds.csv");
        let row = &reference[0];
        let mut recorded = row.recorded.clone();
        recorded.result = "1 2 3 4 5 6 7 8 9 10".into();
        let worked =
            work_round(row.game, &row.server_seed, &row.client_seed, row.nonce, String::new(), recorded);
        assert!(!worked.matches());
    }
}
