//! What the rounds consumed from their word streams: words, rejections per draw, and
//! rounds that needed more words than the operator's published verifier generates.

use serde::{Deserialize, Serialize};

/// Stream consumption counters for one game (merging is addition, and max for the maximum).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamTally {
    /// Rounds tallied.
    pub rounds: u64,
    /// Words consumed in all, accepted and rejected.
    pub words: u64,
    /// Rejected words per draw index within a round (Keno draw `k` samples among `40 - k`;
    /// roulette has one draw).
    pub rejections: Vec<u64>,
    /// Rounds that consumed more words than the published verifier generates (80 for Keno,
    /// 2 for roulette): such a round could not have been verified by it.
    pub beyond_reference_words: u64,
    /// The most words any single round consumed.
    pub max_words_in_round: u64,
}

impl StreamTally {
    /// Empty counters for a game with `draws` draws per round.
    pub fn new(draws: usize) -> Self {
        Self {
            rounds: 0,
            words: 0,
            rejections: vec![0; draws],
            beyond_reference_words: 0,
            max_words_in_round: 0,
        }
    }

    /// Records one round that rejected `rejected[k]` words at draw `k`.
    #[inline(always)]
    pub fn record(&mut self, rejected: &[u32], reference_words: u64) {
        if rejected.iter().all(|&r| r == 0) {
            // Nearly every round: one word per draw.
            return self.record_without_rejections(1, rejected.len(), reference_words);
        }
        let mut words = rejected.len() as u64;
        for (total, &r) in self.rejections.iter_mut().zip(rejected) {
            *total += u64::from(r);
            words += u64::from(r);
        }
        self.rounds += 1;
        self.words += words;
        self.beyond_reference_words += u64::from(words > reference_words);
        self.max_words_in_round = self.max_words_in_round.max(words);
    }

    /// Records `count` rounds of `draws` draws that rejected no word: what as many
    /// [`StreamTally::record`] calls with zero rejections would do.
    #[inline(always)]
    pub fn record_without_rejections(&mut self, count: u64, draws: usize, reference_words: u64) {
        if count == 0 {
            return;
        }
        let words = draws as u64;
        self.rounds += count;
        self.words += count * words;
        self.beyond_reference_words += if words > reference_words { count } else { 0 };
        self.max_words_in_round = self.max_words_in_round.max(words);
    }

    /// Checks the counters of `rounds` rounds of `draws` draws each, whose published
    /// verifier generates `reference_words`: every word is a draw or a rejection, no round
    /// used fewer words than its draws, and rounds beyond the reference words exist
    /// exactly when the most words in a round is beyond it, each with the rejections it
    /// took to get there.
    pub fn validate(&self, rounds: u64, draws: usize, reference_words: u64) -> Result<(), super::TallyError> {
        let bad = |what: String| Err(super::TallyError::Shape(format!("stream: {what}")));
        super::check_len("stream.rejections", &self.rejections, draws)?;
        let rejected: u128 = self.rejections.iter().map(|&r| u128::from(r)).sum();
        let words = u128::from(rounds) * draws as u128 + rejected;
        if self.rounds != rounds {
            return bad(format!("{} rounds where the segment holds {rounds}", self.rounds));
        }
        if u128::from(self.words) != words {
            return bad(format!("{} words where draws and rejections make {words}", self.words));
        }
        if self.beyond_reference_words > rounds {
            return bad(format!(
                "{} rounds beyond the reference words, of {rounds}",
                self.beyond_reference_words
            ));
        }
        let most = u128::from(self.max_words_in_round);
        let in_range =
            if rounds == 0 { most == 0 } else { most >= draws as u128 && most <= draws as u128 + rejected };
        if !in_range {
            return bad(format!("the most words in a round, {most}, is impossible here"));
        }
        let beyond = u128::from(self.beyond_reference_words);
        let rejections_each = u128::from(reference_words + 1).saturating_sub(draws as u128);
        if (beyond > 0) != (most > u128::from(reference_words)) || beyond * rejections_each > rejected {
            return bad(format!(
                "{beyond} rounds beyond the {reference_words} reference words do not fit the most words in a round ({most}) and the rejections ({rejected})"
            ));
        }
        Ok(())
    }

    /// Adds another tally.
    pub fn add(&mut self, other: &StreamTally) {
        self.rounds += other.rounds;
        self.words += other.words;
        for (mine, theirs) in self.rejections.iter_mut().zip(&other.rejections) {
            *mine += theirs;
        }
        self.beyond_reference_words += other.beyond_reference_words;
        self.max_words_in_round = self.max_words_in_round.max(other.max_words_in_round);
    }
}
