//! The whole sweep's share of the bare batch hasher's round throughput, per Keccak path and
//! game: the figure behind the "whole sweep at least 85% of the bare batch kernel" target.
//!
//! Why not criterion: the ratio of two criterion benchmarks measured minutes apart is only
//! as good as the machine was steady between them, and on a shared machine it is not
//! (two criterion runs of `hash_only` on the same build differed by 20%). Here the
//! variants run interleaved, one repetition of each in turn, and each keeps its best
//! repetition: a repetition disturbed by other work is slower, never faster, so the best of
//! many is the undisturbed speed, and the ratio of two bests measured side by side is
//! stable. Every variant hashes the same nonces (64-character seeds, 7-digit nonces).
//!
//! Run: `cargo bench --bench share` (environment: `REPEATS`, default 25; `ROUNDS` per
//! repetition, default 131072; `FAIRAUDIT_KECCAK` to measure one path only).
//! Prints one table: rounds per second per variant, and each sweep as a share of
//! `hash_only` on the same path.

use fairaudit::chain::kernel::{BatchState, BATCH_LANES};
use fairaudit::chain::{
    BatchHasher, KeccakPath, Kernel, RoundBatch, RoundHasher, WordSource, ROUNDS_PER_BATCH,
};
use fairaudit::games::{Game, Keno, Roulette};
use fairaudit::simd::CompiledForPath;
use fairaudit::sweep::tally_rounds;
use fairaudit::tally::{KenoTally, RouletteTally};
use std::hint::black_box;
use std::time::{Duration, Instant};

const SERVER: &str = "8bdb7cce7efe5ba8a8dd893183969eeba617859f9f3a88ce728cb444b81f1aaa";
const CLIENT: &str = "b26c22997bc0d401463f6ea875385de1e534f2fee48e11ef6bcbb549093d8503";
const FIRST_NONCE: u64 = 1_000_000;

/// One measured variant: a name and what one repetition runs over `rounds` nonces.
struct Variant<'a> {
    name: String,
    run: Box<dyn Fn(std::ops::Range<u64>) + 'a>,
    best: Duration,
}

/// The permutations alone that `hash_only` runs for the same rounds, on states that stay
/// in place: per batch of 64 rounds, two kernel calls of eight states per eight rounds,
/// and one call for the batch's new midstates (six or seven at 7-digit nonces). The bare
/// kernel's round throughput: what no formatting, sampling or tallying at all would give.
fn permute_only(kernel: Kernel, nonces: std::ops::Range<u64>) {
    let mut states = BatchState::default();
    for _ in nonces.step_by(ROUNDS_PER_BATCH) {
        for _ in 0..2 * ROUNDS_PER_BATCH / BATCH_LANES {
            kernel.permute(black_box(&mut states), BATCH_LANES);
        }
        kernel.permute(black_box(&mut states), 7);
    }
    black_box(&states);
}

/// The fused kernel's calls alone that `hash_only` makes on the paths that have one
/// (`avx512`), on inputs that stay in place: per batch of 64 rounds, eight calls of eight
/// rounds on two midstates (the lanes split as at 7-digit nonces), and one permutation for
/// the batch's new midstates. What the hasher costs with its own bookkeeping taken away:
/// the two permutations (less what the digest does not need: see the fused kernel in
/// `simd::keccak`), the rows built from midstates and the hex of the digests.
fn fused_only(kernel: Kernel, nonces: std::ops::Range<u64>) {
    let midstates = [[1u64; 25], [2u64; 25]];
    let sources = [(0b0000_0111u8, &midstates[0]), (0b1111_1000u8, &midstates[1])];
    let rows = [[3u64; BATCH_LANES]; 3];
    let mut states = BatchState::default();
    for _ in nonces.step_by(ROUNDS_PER_BATCH) {
        for _ in 0..ROUNDS_PER_BATCH / BATCH_LANES {
            kernel.hash_on_midstates(black_box(&sources), black_box(&rows), black_box(&mut states));
        }
        kernel.permute(black_box(&mut states), 7);
    }
    black_box(&states);
}

fn hash_only(hasher: &RoundHasher, kernel: Kernel, nonces: std::ops::Range<u64>) {
    let mut batcher = BatchHasher::new(hasher, kernel);
    let mut batch = RoundBatch::default();
    let mut first_words = 0u32;
    for start in nonces.clone().step_by(ROUNDS_PER_BATCH) {
        let end = (start + ROUNDS_PER_BATCH as u64).min(nonces.end);
        batcher.hash(start..end, &mut batch);
        first_words ^= batch.words(0).next_word();
    }
    black_box(first_words);
}

/// Hashed and drawn as the sweep draws (a batch at a time, compiled for the path as the
/// sweep's loop is), not tallied: beside `hash_only`, what the draw costs, and beside the
/// sweep, what the tallies cost.
struct HashDraw<'a, G> {
    game: G,
    hasher: &'a RoundHasher,
    kernel: Kernel,
    nonces: std::ops::Range<u64>,
}

impl<G: Game> CompiledForPath for HashDraw<'_, G> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        let mut batcher = BatchHasher::new(self.hasher, self.kernel);
        let mut batch = RoundBatch::default();
        let mut drawn = G::Drawn::default();
        for start in self.nonces.clone().step_by(ROUNDS_PER_BATCH) {
            let end = (start + ROUNDS_PER_BATCH as u64).min(self.nonces.end);
            batcher.hash(start..end, &mut batch);
            self.game.draw_batch(&batch, &mut drawn);
            black_box(&drawn);
        }
    }
}

fn hash_draw<G: Game>(game: G, hasher: &RoundHasher, kernel: Kernel, nonces: std::ops::Range<u64>) {
    kernel.run_compiled_for_path(HashDraw { game, hasher, kernel, nonces });
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    // On a thread of its own, as the sweep's chunks run on the pool's threads: a thread's
    // stack is mapped fresh, so where the measured loops' locals fall does not move with
    // the size of the environment or with address randomisation, as the main thread's
    // does (on the AVX2 path that moved some variants by 30–45% from one process to the
    // next).
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(measure)
        .expect("a thread for the measurements")
        .join()
        .expect("the measurements finish");
}

fn measure() {
    // `cargo bench` passes `--bench`; a filter argument, if any, selects variants by name.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let repeats = env_number("REPEATS", 25);
    let rounds = env_number("ROUNDS", 131_072);
    let hasher = RoundHasher::new(SERVER, CLIENT);
    let forced = std::env::var("FAIRAUDIT_KECCAK").ok();
    let kernels: Vec<Kernel> = KeccakPath::ALL
        .into_iter()
        .filter(|path| forced.as_deref().is_none_or(|f| f == "auto" || f == path.name()))
        .filter_map(|path| match Kernel::new(path) {
            Ok(kernel) => Some(kernel),
            Err(error) => {
                eprintln!("note: skipping {path}: {error}");
                None
            }
        })
        .collect();
    let hasher = &hasher;
    let mut variants: Vec<Variant> = Vec::new();
    for &kernel in &kernels {
        let path = kernel.path();
        let mut add = |name: String, run: Box<dyn Fn(std::ops::Range<u64>)>| {
            if filter.as_deref().is_none_or(|f| name.contains(f)) {
                variants.push(Variant { name, run, best: Duration::MAX });
            }
        };
        add(format!("permute_only/{path}"), Box::new(move |n| permute_only(kernel, n)));
        if kernel.fuses_hashing() {
            add(format!("fused_only/{path}"), Box::new(move |n| fused_only(kernel, n)));
        }
        add(format!("hash_only/{path}"), Box::new(move |n| hash_only(hasher, kernel, n)));
        add(format!("hash_draw/keno/{path}"), Box::new(move |n| hash_draw(Keno, hasher, kernel, n)));
        add(
            format!("sweep_round/keno/{path}"),
            Box::new(move |n| {
                black_box(tally_rounds::<KenoTally>(Keno, hasher, kernel, n));
            }),
        );
        add(
            format!("hash_draw/roulette-european/{path}"),
            Box::new(move |n| hash_draw(Roulette::EUROPEAN, hasher, kernel, n)),
        );
        for (name, wheel) in [("european", Roulette::EUROPEAN), ("american", Roulette::AMERICAN)] {
            add(
                format!("sweep_round/roulette-{name}/{path}"),
                Box::new(move |n| {
                    black_box(tally_rounds::<RouletteTally>(wheel, hasher, kernel, n));
                }),
            );
        }
    }
    let nonces = FIRST_NONCE..FIRST_NONCE + rounds;
    for _ in 0..repeats {
        for variant in &mut variants {
            let started = Instant::now();
            (variant.run)(nonces.clone());
            variant.best = variant.best.min(started.elapsed());
        }
    }
    println!("best of {repeats} interleaved repetitions of {rounds} rounds, one thread");
    println!("{:<40} {:>14} {:>16} {:>16}", "variant", "rounds/s", "of permute_only", "of hash_only");
    for variant in &variants {
        let rate = rounds as f64 / variant.best.as_secs_f64();
        let path = variant.name.rsplit('/').next().unwrap_or_default();
        let share_of = |base: &str| {
            let base = variants.iter().find(|v| v.name == format!("{base}/{path}"));
            base.map_or(String::new(), |b| {
                format!("{:.1}%", 100.0 * b.best.as_secs_f64() / variant.best.as_secs_f64())
            })
        };
        println!(
            "{:<40} {:>14.0} {:>16} {:>16}",
            variant.name,
            rate,
            share_of("permute_only"),
            share_of("hash_only")
        );
    }
}
