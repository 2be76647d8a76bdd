//! A rounds file's crash games walked to their chain's published game: the games of one
//! chain (one scheme and salt whose seeding event fairaudit holds) sorted from the highest
//! down, and the chain walked once from the top to the operator's published game and on
//! below it, every game checked on the way.
//!
//! One walk covers the whole file: what a file of checkpoints would buy (every later game
//! costs a few steps) at the cost of the file's own rows in memory, and without a file of
//! hashes a forger could edit. A game's hash that disagrees with the walk from the games
//! above it starts a walker of its own (up to [`MAX_WALKERS`]): at the published game,
//! the walker that meets the published hash is the committed chain, and every game on
//! another walker is named, whichever of two disagreeing games came first in the file.

use crate::scheme::crash::{hash_bytes, previous_digest, PublishedGame};
use crate::sweep::crash::MAX_LINK_WALK;
use std::sync::atomic::{AtomicBool, Ordering};

/// Games of one file kept for the walk (48 bytes each): beyond, games are counted as not
/// walked.
pub const MAX_ROWS: usize = 10_000_000;

/// The most games apart two crash rows may be for their link to be walked (SHA-256 at
/// each step: 10,000 steps take a few milliseconds).
pub const MAX_WALK: u64 = 10_000;

/// Disagreeing hashes above the published game followed at once: each costs a walk of its
/// own to the published game, so a file of unrelated hashes cannot multiply the work.
pub const MAX_WALKERS: usize = 4;

/// The most links one walk of a file's chain may take, all walkers together: one walk as
/// long as any game may lie from the published game ([`MAX_LINK_WALK`]), plus
/// [`MAX_WALK`] for each game of the file, as much as the check of a row against the row
/// before it may walk. Without it, a 2 KB file of four disagreeing hashes 10^8 games above
/// the published game and one 10^8 below cost five walks of 10^8 links, minutes (issue 59);
/// a game left when it is spent is counted as not walked, never judged.
pub fn walk_budget(games: usize) -> u64 {
    MAX_LINK_WALK.saturating_add(MAX_WALK.saturating_mul(games as u64))
}

/// Why a walk ended early: the stop flag, or [`walk_budget`] spent.
enum Halt {
    Stopped,
    Spent,
}

/// Steps between looks at the stop flag and reports of progress.
const STEP: u64 = 1 << 16;

/// One crash game of a rounds file: its number, hash and line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainRow {
    /// The game number.
    pub game: u64,
    /// Its hash as the file gives it.
    pub hash: [u8; 32],
    /// Its line in the file.
    pub line: u64,
}

/// What walking a chain's games to its published game found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PublishedWalk {
    /// Games on the chain through the published hash.
    pub linked: u64,
    /// Games not on it, by line.
    pub off: Vec<ChainRow>,
    /// Games not walked because they lie more than [`MAX_LINK_WALK`] links from the
    /// published game (numbers no real chain reaches).
    pub too_far: u64,
    /// Games not walked because [`MAX_WALKERS`] other disagreeing hashes were followed
    /// already.
    pub unfollowed: u64,
    /// Games not walked because [`walk_budget`] was spent before they were reached.
    pub over_budget: u64,
    /// Links walked.
    pub steps: u64,
}

/// A hash followed down the chain, and the games that agree with it.
struct Walker {
    game: u64,
    hash: [u8; 32],
    rows: Vec<usize>,
}

/// The walk's limits: the stop flag, and the links it may take in all.
struct Limits<'a> {
    stop: &'a AtomicBool,
    budget: u64,
    progress: &'a dyn Fn(u64),
}

/// Walks each walker down to `game`, none of them when that would take more links than
/// are left of the budget.
fn advance(walkers: &mut [Walker], game: u64, steps: &mut u64, limits: &Limits) -> Result<(), Halt> {
    let needed = walkers.iter().map(|w| w.game - game).fold(0u64, u64::saturating_add);
    if steps.saturating_add(needed) > limits.budget {
        return Err(Halt::Spent);
    }
    for walker in walkers {
        let mut left = walker.game - game;
        while left > 0 {
            if limits.stop.load(Ordering::Relaxed) {
                return Err(Halt::Stopped);
            }
            let count = left.min(STEP);
            for _ in 0..count {
                walker.hash = previous_digest(&walker.hash);
            }
            left -= count;
            *steps += count;
            (limits.progress)(count);
        }
        walker.game = game;
    }
    Ok(())
}

/// Walks the games `rows` of one chain to its `published` game (see the module docs),
/// reporting links walked to `progress`, at most [`walk_budget`] of `rows`; `None` when
/// `stop` was set before the end. `rows` is sorted from the highest game down.
pub fn walk_rows(
    published: PublishedGame,
    rows: &mut [ChainRow],
    stop: &AtomicBool,
    progress: &dyn Fn(u64),
) -> Option<PublishedWalk> {
    walk_rows_within(published, rows, &Limits { stop, budget: walk_budget(rows.len()), progress })
}

fn walk_rows_within(
    published: PublishedGame,
    rows: &mut [ChainRow],
    limits: &Limits,
) -> Option<PublishedWalk> {
    rows.sort_by(|a, b| b.game.cmp(&a.game).then(a.line.cmp(&b.line)));
    let mut out = PublishedWalk::default();
    match walk_sorted(published, rows, &mut out, limits) {
        Err(Halt::Stopped) => return None,
        // Every game neither judged nor left out for another reason was not reached.
        Err(Halt::Spent) => {
            out.over_budget =
                rows.len() as u64 - out.linked - out.off.len() as u64 - out.too_far - out.unfollowed;
        }
        Ok(()) => {}
    }
    out.off.sort_by_key(|row| row.line);
    Some(out)
}

/// [`walk_rows_within`] on rows sorted from the highest game down.
fn walk_sorted(
    published: PublishedGame,
    rows: &[ChainRow],
    out: &mut PublishedWalk,
    limits: &Limits,
) -> Result<(), Halt> {
    let published_hash = hash_bytes(published.hash).expect("a published hash is a game hash");
    let mut above: Vec<Walker> = Vec::new();
    // Below the published game, the committed chain alone.
    let mut committed: Option<Walker> = None;
    for (i, row) in rows.iter().enumerate() {
        if row.game.abs_diff(published.game) > MAX_LINK_WALK {
            out.too_far += 1;
            continue;
        }
        if row.game < published.game && committed.is_none() {
            committed = Some(meet_published(&mut above, published, published_hash, rows, out, limits)?);
        }
        match committed.as_mut() {
            Some(chain) => {
                advance(std::slice::from_mut(chain), row.game, &mut out.steps, limits)?;
                if chain.hash == row.hash {
                    out.linked += 1;
                } else {
                    out.off.push(row.clone());
                }
            }
            None => {
                advance(&mut above, row.game, &mut out.steps, limits)?;
                match above.iter().position(|w| w.hash == row.hash) {
                    Some(walker) => above[walker].rows.push(i),
                    None if above.len() < MAX_WALKERS => {
                        above.push(Walker { game: row.game, hash: row.hash, rows: vec![i] })
                    }
                    None => out.unfollowed += 1,
                }
            }
        }
    }
    if committed.is_none() {
        meet_published(&mut above, published, published_hash, rows, out, limits)?;
    }
    Ok(())
}

/// Walks the walkers above the published game down to it: the one that meets the
/// published hash is the committed chain (its games linked), the others' games are off
/// it. Returns the committed chain's walker, to go on below the published game.
fn meet_published(
    above: &mut Vec<Walker>,
    published: PublishedGame,
    published_hash: [u8; 32],
    rows: &[ChainRow],
    out: &mut PublishedWalk,
    limits: &Limits,
) -> Result<Walker, Halt> {
    advance(above, published.game, &mut out.steps, limits)?;
    for walker in above.drain(..) {
        if walker.hash == published_hash {
            out.linked += walker.rows.len() as u64;
        } else {
            out.off.extend(walker.rows.iter().map(|&i| rows[i].clone()));
        }
    }
    Ok(Walker { game: published.game, hash: published_hash, rows: Vec::new() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheme::crash::hash_text;

    /// Game `n`'s hash for games `top - k`, walked down from `top_hash`.
    fn chain(top_hash: [u8; 32], games: usize) -> Vec<[u8; 32]> {
        let mut hashes = vec![top_hash];
        for _ in 1..games {
            hashes.push(previous_digest(hashes.last().unwrap()));
        }
        hashes
    }

    /// A published game 50 games below a made-up top, and the chain's 100 hashes from the
    /// top down (index k is game 1,000 - k).
    fn fixture() -> (PublishedGame, Vec<[u8; 32]>) {
        let hashes = chain([7; 32], 100);
        let published = hash_text(&hashes[50]);
        let published =
            PublishedGame { game: 950, hash: Box::leak(published.into_boxed_str()), first_played: 900 };
        (published, hashes)
    }

    fn row(hashes: &[[u8; 32]], game: u64, line: u64) -> ChainRow {
        ChainRow { game, hash: hashes[(1_000 - game) as usize], line }
    }

    #[test]
    fn games_above_and_below_the_published_game_link_in_one_walk() {
        let (published, hashes) = fixture();
        let never = AtomicBool::new(false);
        let mut rows =
            vec![row(&hashes, 920, 2), row(&hashes, 999, 3), row(&hashes, 950, 4), row(&hashes, 960, 5)];
        let walk = walk_rows(published, &mut rows, &never, &|_| {}).unwrap();
        assert_eq!(
            walk,
            PublishedWalk { linked: 4, off: vec![], too_far: 0, unfollowed: 0, over_budget: 0, steps: 79 }
        );
    }

    #[test]
    fn a_changed_hash_is_named_above_the_published_game_and_below_it() {
        let (published, hashes) = fixture();
        let never = AtomicBool::new(false);
        let mut wrong_above = row(&hashes, 980, 3);
        wrong_above.hash[0] ^= 1;
        let mut wrong_below = row(&hashes, 930, 5);
        wrong_below.hash[31] ^= 1;
        let mut rows =
            vec![row(&hashes, 999, 2), wrong_above.clone(), row(&hashes, 960, 4), wrong_below.clone()];
        let walk = walk_rows(published, &mut rows, &never, &|_| {}).unwrap();
        assert_eq!(walk.linked, 2);
        assert_eq!(walk.off, vec![wrong_above, wrong_below]);
        // The top game itself wrong: the games below it still link, the top is named.
        let mut wrong_top = row(&hashes, 999, 2);
        wrong_top.hash[5] ^= 1;
        let mut rows = vec![wrong_top.clone(), row(&hashes, 960, 3), row(&hashes, 955, 4)];
        let walk = walk_rows(published, &mut rows, &never, &|_| {}).unwrap();
        assert_eq!((walk.linked, walk.off), (2, vec![wrong_top]));
    }

    #[test]
    fn a_game_numbered_wrong_and_too_many_strangers_are_said() {
        let (published, hashes) = fixture();
        let never = AtomicBool::new(false);
        // Game 970's hash written as game 971's: one off, it cannot reach the published hash.
        let mut off_by_one = row(&hashes, 970, 2);
        off_by_one.game = 971;
        let mut rows = vec![off_by_one.clone(), row(&hashes, 960, 3)];
        let walk = walk_rows(published, &mut rows, &never, &|_| {}).unwrap();
        assert_eq!((walk.linked, walk.off), (1, vec![off_by_one]));
        // Six unrelated hashes above the published game: four followed, two not walked.
        let mut rows: Vec<ChainRow> =
            (0..6).map(|k| ChainRow { game: 990 - k, hash: [k as u8 + 1; 32], line: k + 2 }).collect();
        let walk = walk_rows(published, &mut rows, &never, &|_| {}).unwrap();
        assert_eq!((walk.linked, walk.off.len(), walk.unfollowed), (0, 4, 2));
        // Too far from the published game to walk.
        let mut rows = vec![ChainRow { game: 950 + MAX_LINK_WALK + 1, hash: [1; 32], line: 2 }];
        let walk = walk_rows(published, &mut rows, &never, &|_| {}).unwrap();
        assert_eq!((walk.linked, walk.off.len(), walk.too_far), (0, 0, 1));
        let stopped = AtomicBool::new(true);
        assert_eq!(walk_rows(published, &mut [row(&hashes, 999, 2)], &stopped, &|_| {}), None);
    }

    /// Issue 59: four strangers far above the published game each walked to it, and the
    /// committed chain far below: the links walked grew with the distance, not the file.
    /// Counted, not timed: the walk stops at its budget and says which games it left.
    #[test]
    fn a_hostile_file_walks_no_more_than_its_budget() {
        let (published, hashes) = fixture();
        let never = AtomicBool::new(false);
        let hostile = || -> Vec<ChainRow> {
            let mut rows: Vec<ChainRow> =
                (0..4).map(|k| ChainRow { game: 999 - k, hash: [k as u8 + 1; 32], line: k + 2 }).collect();
            rows.push(row(&hashes, 901, 6));
            rows
        };
        let unbounded = Limits { stop: &never, budget: u64::MAX, progress: &|_| {} };
        let all = walk_rows_within(published, &mut hostile(), &unbounded).unwrap();
        assert_eq!((all.off.len(), all.linked, all.over_budget), (4, 1, 0));
        assert!(all.steps > 200, "{}", all.steps);
        let walked = std::cell::Cell::new(0);
        let progress = |n| walked.set(walked.get() + n);
        let bounded = Limits { stop: &never, budget: 100, progress: &progress };
        let capped = walk_rows_within(published, &mut hostile(), &bounded).unwrap();
        assert!(capped.steps <= 100 && walked.get() == capped.steps, "{}", capped.steps);
        assert_eq!((capped.linked, capped.off.len(), capped.over_budget), (0, 0, 5));
        // The budget grows with the file, from one walk as long as any game may lie.
        assert_eq!(walk_budget(0), MAX_LINK_WALK);
        assert_eq!(walk_budget(20), MAX_LINK_WALK + 20 * MAX_WALK);
    }
}
