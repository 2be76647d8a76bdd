//! The first and last element of a contiguous segment, so that a pair of consecutive
//! rounds that straddles two segments is counted exactly once, when they are joined.

use serde::{Deserialize, Serialize};

/// The first and last value seen in a segment (both `None` while it is empty).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edges<T> {
    /// The first value of the segment.
    pub first: Option<T>,
    /// The last value of the segment.
    pub last: Option<T>,
}

impl<T: Copy> Edges<T> {
    /// Records the next value and returns the one before it, if any: that pair is the
    /// consecutive pair the caller should count.
    #[inline]
    pub fn push(&mut self, value: T) -> Option<T> {
        let previous = self.last;
        if self.first.is_none() {
            self.first = Some(value);
        }
        self.last = Some(value);
        previous
    }

    /// Joins `later` (the segment directly after this one) and returns the consecutive pair
    /// that straddles the join, if both segments are non-empty.
    pub fn join(&mut self, later: Edges<T>) -> Option<(T, T)> {
        let straddling = match (self.last, later.first) {
            (Some(a), Some(b)) => Some((a, b)),
            _ => None,
        };
        self.first = self.first.or(later.first);
        self.last = later.last.or(self.last);
        straddling
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_reports_the_straddling_pair_and_keeps_outer_edges() {
        let mut a = Edges::default();
        assert_eq!(a.push(1), None);
        assert_eq!(a.push(2), Some(1));
        let mut b = Edges::default();
        b.push(3);
        b.push(4);
        assert_eq!(a.join(b), Some((2, 3)));
        assert_eq!(a, Edges { first: Some(1), last: Some(4) });
        assert_eq!(a.join(Edges::default()), None);
        let mut empty = Edges::default();
        assert_eq!(empty.join(a), None);
        assert_eq!(empty, a);
    }
}
