//! Re-deriving each segment's edge state from its seeds when a tally file is read.
//!
//! A tally's counters are tied to one another ([`SequenceTally::validate`]), but its edge
//! state (the first and last ten rounds, the open runs at the ends, where each outcome
//! first and last occurred) is information no other counter holds, and `merge` uses it
//! to count what straddles two segments. The plan names the seeds, so the rounds at a
//! segment's ends can be drawn again: a few hundred rounds per segment, against the
//! millions it tallies. A changed edge state is then refused, not merged into counts a
//! sweep could not give.

use super::{Segment, Segments, SequenceTally, TallyError};
use crate::chain::RoundHasher;
use crate::games::Game;
use std::ops::Range;

/// The most rounds re-derived at either end of a segment. The edge state of a fair
/// segment reaches a few hundred rounds (the last of 38 pockets appears on average after
/// about 160 spins); one reaching past this is refused rather than re-derived at length
/// (a fair wheel leaves a pocket unseen for 2^20 spins with probability below 10^-12000).
pub const REACH_LIMIT: u64 = 1 << 20;

/// Checks every segment's edge state against the rounds the seeds give.
pub fn check_segments<T: SequenceTally>(
    game: T::Game,
    hasher: &RoundHasher,
    segments: &Segments<T>,
) -> Result<(), TallyError> {
    segments.0.iter().try_for_each(|segment| check_segment(game, hasher, segment))
}

/// Checks one segment's edge state against the rounds the seeds give.
pub fn check_segment<T: SequenceTally>(
    game: T::Game,
    hasher: &RoundHasher,
    segment: &Segment<T>,
) -> Result<(), TallyError> {
    let (front, back) = segment.tally.edge_reach();
    let bad = |what: String| TallyError::Shape(format!("segment {}..{}: {what}", segment.start, segment.end));
    if front.max(back) > REACH_LIMIT {
        return Err(bad(format!(
            "its edge state reaches {} rounds from an end, beyond the {REACH_LIMIT} a sweep of fair rounds reaches",
            front.max(back)
        )));
    }
    let len = segment.end - segment.start;
    let front = tally_of::<T>(game, hasher, segment.start..segment.start + front.min(len));
    let back = tally_of::<T>(game, hasher, segment.end - back.min(len)..segment.end);
    segment.tally.check_edges(&front, &back).map_err(|e| match e {
        TallyError::Shape(what) => bad(what),
        other => other,
    })
}

/// The tally of the rounds `nonces`, each drawn from its own stream.
fn tally_of<T: SequenceTally>(game: T::Game, hasher: &RoundHasher, nonces: Range<u64>) -> T {
    let mut tally = T::new(game);
    let mut round = Default::default();
    for nonce in nonces {
        game.draw(&mut hasher.words(nonce), &mut round);
        tally.record(&round);
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Keno, Roulette};
    use crate::tally::{KenoTally, RouletteTally};

    /// A change to a tally, and what it does.
    type Move<T> = (&'static str, fn(&mut T));

    fn swept<T: SequenceTally>(game: T::Game, nonces: Range<u64>) -> Segments<T> {
        let hasher = RoundHasher::new("anchor-server", "anchor-client");
        let tally = tally_of::<T>(game, &hasher, nonces.clone());
        Segments(vec![Segment { start: nonces.start, end: nonces.end, tally }])
    }

    fn checked<T: SequenceTally>(game: T::Game, segments: &Segments<T>) -> Result<(), TallyError> {
        segments.0.iter().try_for_each(|s| s.tally.validate())?;
        check_segments(game, &RoundHasher::new("anchor-server", "anchor-client"), segments)
    }

    /// Counts moved between counters keep every sum: each move below is refused by a
    /// relation between counters, and each changed edge state by the seeds.
    #[test]
    fn swept_tallies_pass_and_moved_counts_do_not() {
        let wheel = Roulette::EUROPEAN;
        let base = swept::<RouletteTally>(wheel, 500..4500);
        checked(wheel, &base).unwrap();
        let moves: [Move<RouletteTally>; 7] = [
            ("a spin from pocket 3 to pocket 4", |t| {
                (t.pockets[3], t.pockets[4]) = (t.pockets[3] - 1, t.pockets[4] + 1)
            }),
            ("a consecutive pair from (1, 2) to (2, 1)", |t| {
                t.pairs[37 + 2] += 1;
                t.pairs[2 * 37 + 1] = t.pairs[2 * 37 + 1].wrapping_sub(1);
            }),
            ("a colour run from length 1 to length 2 and back at 3", |t| {
                t.colour_runs.hist[0] -= 1;
                t.colour_runs.hist[1] += 1;
                t.colour_runs.hist[2] = t.colour_runs.hist[2].wrapping_sub(1);
            }),
            ("a red run made black", |t| {
                t.colour_runs.hist[0] -= 1;
                t.colour_runs.hist[crate::tally::roulette::RUN_CAP] += 1;
            }),
            ("a gap of 0 before pocket 5 made 1", |t| {
                let at = 5 * 129;
                t.gaps.hist[at] -= 1;
                t.gaps.hist[at + 1] += 1;
            }),
            ("pocket 7 first seen one spin later", |t| t.gaps.first[7] = t.gaps.first[7].map(|f| f + 1)),
            ("the last spin changed", |t| *t.edges.tail.last_mut().unwrap() ^= 1),
        ];
        for (what, change) in moves {
            let mut segments = base.clone();
            change(&mut segments.0[0].tally);
            assert!(checked(wheel, &segments).is_err(), "{what}");
        }

        let base = swept::<KenoTally>(Keno, 0..3000);
        checked(Keno, &base).unwrap();
        let moves: [Move<KenoTally>; 4] = [
            ("a draw from number 1 to number 2", |t| {
                (t.numbers[0], t.numbers[1]) = (t.numbers[0] - 1, t.numbers[1] + 1)
            }),
            ("a pair from {1, 2} to {1, 3}", |t| (t.pairs[0], t.pairs[1]) = (t.pairs[0] - 1, t.pairs[1] + 1)),
            ("a round of the 1-pick set from 0 to 1 hit and one of 2 picks back", |t| {
                (t.hits[0], t.hits[1]) = (t.hits[0] - 1, t.hits[1] + 1);
                (t.hits[12], t.hits[11]) = (t.hits[12] - 1, t.hits[11] + 1);
            }),
            ("the first round's draw changed", |t| t.edges.head[0] = t.edges.head[1]),
        ];
        for (what, change) in moves {
            let mut segments = base.clone();
            change(&mut segments.0[0].tally);
            assert!(checked(Keno, &segments).is_err(), "{what}");
        }
    }

    #[test]
    fn an_edge_state_reaching_past_the_limit_is_refused() {
        let wheel = Roulette::AMERICAN;
        let mut segments = swept::<RouletteTally>(wheel, 0..100);
        segments.0[0].tally.gaps.first[0] = Some(REACH_LIMIT + 5);
        let error = check_segments(wheel, &RoundHasher::new("anchor-server", "anchor-client"), &segments);
        assert!(error.unwrap_err().to_string().contains("beyond the 1048576"), "limit named");
    }
}
