//! Stake tallies built by hand from played rounds, the way the sweep counts them: for the
//! rigs and the calibration of the Stake battery.

use fairaudit::scheme::stake::cells::{coarse_cell, coarse_cells, outcome_cell, outcome_cells};
use fairaudit::scheme::stake::{StakeGame, StakeOutcome};
use fairaudit::tally::stake::StakeTally;

/// A tally of `rounds` rounds that `play` gives as (outcome, each draw step's index), built
/// the way the sweep counts (pairs of nonces 2k and 2k + 1).
pub fn tally_of(
    game: &StakeGame,
    rounds: u64,
    mut play: impl FnMut(u64) -> (StakeOutcome, Vec<usize>),
) -> StakeTally {
    let mut tally = StakeTally::empty(game);
    let mut first = None;
    for nonce in 0..rounds {
        let (outcome, steps) = play(nonce);
        tally.rounds += 1;
        if outcome_cells(game) > 0 {
            tally.outcomes[outcome_cell(&outcome)] += 1;
        }
        for (step, index) in tally.steps.iter_mut().zip(steps) {
            step[index] += 1;
        }
        let class = coarse_cell(game, &outcome);
        match first.take() {
            Some(first) if nonce % 2 == 1 => tally.pairs[first * coarse_cells(game) + class] += 1,
            _ if nonce % 2 == 0 => first = Some(class),
            _ => {}
        }
    }
    tally
}
