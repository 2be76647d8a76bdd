//! A half-open range of nonces, as tally files, shards and run records write it: a leaf of
//! the tally module, so that the files (`file`, `shards`) that both name ranges depend on
//! it rather than on each other.

use serde::{Deserialize, Serialize};
use std::ops::Range;

/// A half-open nonce range as written in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NonceRange {
    /// First nonce.
    pub start: u64,
    /// One past the last nonce.
    pub end: u64,
}

impl From<Range<u64>> for NonceRange {
    fn from(range: Range<u64>) -> Self {
        NonceRange { start: range.start, end: range.end }
    }
}

impl NonceRange {
    /// As a `Range`.
    pub fn range(self) -> Range<u64> {
        self.start..self.end
    }
}
