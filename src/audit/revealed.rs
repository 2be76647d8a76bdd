//! Server seeds revealed anywhere in a bet history, by the commitment they hash to.
//!
//! A history may show a seed pair's commitment alone on its early rows and reveal the
//! server seed only on later ones: an export made while the pair was in play and
//! continued after the player rotated, or an operator blanking the seed on the rows it
//! would rather not have replayed. Every row of the pair is replayed with the seed, wherever
//! in the file it is revealed. The audit's single streaming pass could not go back to
//! the rows above the reveal, so a light first pass finds the seeds: two columns read,
//! one hash per distinct seed, memory one entry per seed revealed (the seed pairs bound
//! it, as they bound the audit's).

use crate::columns::CsvLayout;
use crate::verify::RoundsError;
use std::collections::HashMap;
use std::io::Read;

/// The server seeds a history reveals, by their commitment (lowercase hex).
#[derive(Clone, Debug, Default)]
pub struct RevealedSeeds {
    by_commitment: HashMap<String, String>,
}

impl RevealedSeeds {
    /// None revealed: for a history that names no commitments (each row it can replay
    /// carries its own seed), or one read from where it cannot be read twice.
    pub fn none() -> Self {
        Self::default()
    }

    /// Reads the history `input` (laid out as `layout` says, whose fields are `fields`)
    /// for the server seeds it reveals, each keyed by `commitment` of it. A history
    /// without a `server_seed` or a `commitment` column reveals none usable this way, and
    /// is not read past its header.
    ///
    /// # Errors
    /// The history's header or a row cannot be read as CSV.
    pub fn scan<R: Read>(
        input: R,
        layout: &CsvLayout,
        fields: &[&'static str],
        commitment: impl Fn(&str) -> String,
    ) -> Result<Self, RoundsError> {
        let mut reader = layout.reader(input);
        let headers = reader.headers()?.clone();
        let located = layout.columns.locate(&headers, fields)?;
        let (Some(seed_column), Some(_)) = (located.get("server_seed"), located.get("commitment")) else {
            return Ok(Self::none());
        };
        let mut revealed = Self::none();
        // The seeds hashed already: one hash per distinct seed, however the rows of the
        // pairs interleave.
        let mut seen: std::collections::HashSet<Vec<u8>> = std::collections::HashSet::new();
        // Bytes, not text: only a seed not seen just before is checked as UTF-8 (the audit's
        // own pass reads every cell as text, and refuses a row that is not).
        let mut record = csv::ByteRecord::new();
        // Rows of one pair run together: the last seed seen is skipped without a lookup.
        let mut last = Vec::new();
        while reader.read_byte_record(&mut record)? {
            let seed = record.get(seed_column).unwrap_or_default();
            if seed.is_empty() || seed == last.as_slice() {
                continue;
            }
            seed.clone_into(&mut last);
            if !seen.insert(seed.to_vec()) {
                continue;
            }
            if let Ok(seed) = std::str::from_utf8(seed) {
                revealed.by_commitment.entry(commitment(seed)).or_insert_with(|| seed.to_owned());
            }
        }
        Ok(revealed)
    }

    /// The server seed revealed for `commitment` (lowercase hex), if any.
    pub fn seed_of(&self, commitment: &str) -> Option<&str> {
        self.by_commitment.get(commitment).map(String::as_str)
    }

    /// How many seeds were revealed.
    pub fn len(&self) -> usize {
        self.by_commitment.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.by_commitment.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::commitment;

    const FIELDS: [&str; 3] = ["server_seed", "client_seed", "commitment"];

    fn scan(text: &str) -> RevealedSeeds {
        RevealedSeeds::scan(text.as_bytes(), &CsvLayout::default(), &FIELDS, commitment).unwrap()
    }

    #[test]
    fn seeds_are_found_wherever_they_are_revealed_by_their_commitment() {
        let (a, b) = (commitment("alpha"), commitment("beta"));
        let history = format!(
            "server_seed,client_seed,commitment\n,c,{a}\n,c,{b}\nalpha,c,{a}\nbeta,c,\nalpha,d,{a}\n"
        );
        let revealed = scan(&history);
        assert_eq!(revealed.len(), 2);
        assert_eq!(revealed.seed_of(&a), Some("alpha"));
        assert_eq!(revealed.seed_of(&b), Some("beta"));
        assert_eq!(revealed.seed_of(&commitment("gamma")), None);
    }

    #[test]
    fn a_seed_is_keyed_by_its_own_commitment_not_the_one_its_row_states() {
        // The row states another seed's commitment: the seed does not become that one's.
        let other = commitment("other");
        let revealed = scan(&format!("server_seed,client_seed,commitment\nalpha,c,{other}\n"));
        assert_eq!(revealed.seed_of(&other), None);
        assert_eq!(revealed.seed_of(&commitment("alpha")), Some("alpha"));
    }

    #[test]
    fn a_history_without_commitments_is_not_read_past_its_header() {
        // The second line is not CSV of the header's width: read, it would be an error.
        let revealed = scan("server_seed,client_seed\nalpha,c,extra,fields\n");
        assert!(revealed.is_empty());
    }
}
