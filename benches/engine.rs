//! Criterion benchmarks of the engine, per Keccak path (`scalar`, `avx2`, `avx512`: each one
//! this machine supports; the others are skipped with a note):
//!
//! - `keccak/f1600`: one scalar permutation (the single-state seam), and
//!   `keccak/batch/<path>`: one call of the batch seam, eight states (throughput counts
//!   permutations);
//! - `shake256_stream/*`: one SHAKE256 stream squeezed by the sponge, beside the `sha3`
//!   crate's XOF, and `shake256_stream/raw/<path>`: what `fairaudit stream` produces per
//!   second on one thread (34 words of each round);
//! - `hash_only/<path>`: rounds hashed in batches and nothing else, the bare batch kernel's
//!   round throughput that the sweep is compared with;
//! - `hash_draw/<game>/<path>`: rounds hashed in batches and drawn, not tallied;
//! - `sweep_round/<game>/<path>`: what the sweep does per round (hash, draw, every tally);
//! - `round/<game>`: one round at a time through `RoundHasher` (the `verify` path), and
//!   `draw_only/<game>`: the games on a pre-squeezed stream.
//!
//! Rounds use 64-character seeds and 7-digit nonces: the signature message is 137 bytes,
//! so one at a time a round costs three permutations; in batches, 10 consecutive nonces
//! share the first block, so a round costs 2.1. Run with
//! `cargo bench --bench engine -- --warm-up-time 1 --measurement-time 3`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use fairaudit::chain::kernel::{BatchState, BATCH_LANES};
use fairaudit::chain::sponge::{permute, KeccakState};
use fairaudit::chain::{
    BatchHasher, KeccakPath, Kernel, RoundBatch, RoundHasher, ShakeWords, WordSource, ROUNDS_PER_BATCH,
};
use fairaudit::games::{Game, Keno, KenoRound, Roulette, Spin};
use fairaudit::stream::{RawStream, StreamPlan, DEFAULT_WORDS_PER_ROUND};
use fairaudit::sweep::tally_rounds;
use fairaudit::tally::{KenoTally, RouletteTally};
use sha3::digest::{ExtendableOutput, Update, XofReader};
use std::hint::black_box;

const SERVER: &str = "8bdb7cce7efe5ba8a8dd893183969eeba617859f9f3a88ce728cb444b81f1aaa";
const CLIENT: &str = "b26c22997bc0d401463f6ea875385de1e534f2fee48e11ef6bcbb549093d8503";
const SIGNATURE: &[u8; 64] = b"ff4a5a482caa19ce1ce33892da27c13f9716d4b63cd3697cb40449991cf384a7";
/// The first 7-digit nonce: from here on the signature message is 137 bytes or more.
const FIRST_NONCE: u64 = 1_000_000;
/// Rounds per measured iteration of the batched benchmarks.
const ROUNDS: u64 = 4096;

/// The kernels of the paths this machine supports; a note for each one skipped.
fn kernels() -> Vec<Kernel> {
    KeccakPath::ALL
        .into_iter()
        .filter_map(|path| match Kernel::new(path) {
            Ok(kernel) => Some(kernel),
            Err(error) => {
                eprintln!("note: skipping the {path} benchmarks: {error}");
                None
            }
        })
        .collect()
}

fn keccak(c: &mut Criterion) {
    let mut group = c.benchmark_group("keccak");
    group.throughput(Throughput::Elements(1));
    let mut state: KeccakState = [0x0123_4567_89ab_cdef; 25];
    group.bench_function("f1600", |b| b.iter(|| permute(black_box(&mut state))));
    group.throughput(Throughput::Elements(BATCH_LANES as u64));
    for kernel in kernels() {
        let mut states = BatchState::default();
        group.bench_function(format!("batch/{}", kernel.path()), |b| {
            b.iter(|| kernel.permute(black_box(&mut states), BATCH_LANES))
        });
    }
    group.finish();
}

fn shake_stream(c: &mut Criterion) {
    let mut group = c.benchmark_group("shake256_stream");
    for bytes in [136usize, 65536] {
        let mut out = vec![0u8; bytes];
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_function(format!("fairaudit/{bytes}"), |b| {
            b.iter(|| ShakeWords::from_signature_hex(black_box(SIGNATURE)).fill_bytes(&mut out))
        });
        group.bench_function(format!("sha3_crate_xof/{bytes}"), |b| {
            b.iter(|| {
                let mut hasher = sha3::Shake256::default();
                hasher.update(black_box(SIGNATURE));
                hasher.finalize_xof().read(&mut out)
            })
        });
    }
    // What `fairaudit stream` writes on one thread: 34 words of each round, 7-digit nonces.
    let plan =
        StreamPlan { nonces: FIRST_NONCE..u64::MAX, words_per_round: DEFAULT_WORDS_PER_ROUND, bytes: None };
    let mut out = vec![0u8; 1 << 20];
    group.throughput(Throughput::Bytes(out.len() as u64));
    for kernel in kernels() {
        let mut stream = RawStream::new(SERVER, CLIENT, &plan, kernel).unwrap();
        group.bench_function(format!("raw/{}", kernel.path()), |b| {
            b.iter(|| stream.fill(black_box(&mut out)))
        });
    }
    group.finish();
}

fn hash_only(c: &mut Criterion) {
    let hasher = RoundHasher::new(SERVER, CLIENT);
    let mut group = c.benchmark_group("hash_only");
    group.throughput(Throughput::Elements(ROUNDS));
    for kernel in kernels() {
        let mut batch = RoundBatch::default();
        group.bench_function(kernel.path().name(), |b| {
            b.iter(|| {
                let mut batcher = BatchHasher::new(&hasher, kernel);
                let mut first_words = 0u32;
                for start in (FIRST_NONCE..FIRST_NONCE + ROUNDS).step_by(ROUNDS_PER_BATCH) {
                    batcher.hash(start..start + ROUNDS_PER_BATCH as u64, &mut batch);
                    first_words ^= batch.words(0).next_word();
                }
                black_box(first_words)
            })
        });
    }
    group.finish();
}

fn hash_draw(c: &mut Criterion) {
    // What the draw adds to hash_only, and (against sweep_round) what the tallies add: the
    // batch drawn all at once, as the sweep draws it (here compiled for the baseline, where
    // the sweep's loop is compiled for the path: `benches/share.rs` compares them fairly).
    fn run<G: Game>(c: &mut Criterion, name: &str, game: G) {
        let hasher = RoundHasher::new(SERVER, CLIENT);
        let mut group = c.benchmark_group("hash_draw");
        group.throughput(Throughput::Elements(ROUNDS));
        for kernel in kernels() {
            let mut batch = RoundBatch::default();
            let mut drawn = G::Drawn::default();
            group.bench_function(format!("{name}/{}", kernel.path()), |b| {
                b.iter(|| {
                    let mut batcher = BatchHasher::new(&hasher, kernel);
                    for start in (FIRST_NONCE..FIRST_NONCE + ROUNDS).step_by(ROUNDS_PER_BATCH) {
                        batcher.hash(start..start + ROUNDS_PER_BATCH as u64, &mut batch);
                        game.draw_batch(&batch, &mut drawn);
                        black_box(&drawn);
                    }
                })
            });
        }
        group.finish();
    }
    run(c, "keno", Keno);
    run(c, "roulette-european", Roulette::EUROPEAN);
}

fn sweep_rounds(c: &mut Criterion) {
    // Whole rounds as the sweep runs them: hash, draw and every tally.
    let hasher = RoundHasher::new(SERVER, CLIENT);
    let mut group = c.benchmark_group("sweep_round");
    group.throughput(Throughput::Elements(ROUNDS));
    let nonces = FIRST_NONCE..FIRST_NONCE + ROUNDS;
    for kernel in kernels() {
        let path = kernel.path();
        group.bench_function(format!("keno/{path}"), |b| {
            b.iter(|| tally_rounds::<KenoTally>(Keno, &hasher, kernel, nonces.clone()))
        });
        group.bench_function(format!("roulette-european/{path}"), |b| {
            b.iter(|| tally_rounds::<RouletteTally>(Roulette::EUROPEAN, &hasher, kernel, nonces.clone()))
        });
        group.bench_function(format!("roulette-american/{path}"), |b| {
            b.iter(|| tally_rounds::<RouletteTally>(Roulette::AMERICAN, &hasher, kernel, nonces.clone()))
        });
    }
    group.finish();
}

fn run_rounds<G: Game>(c: &mut Criterion, name: &str, game: G) {
    let hasher = RoundHasher::new(SERVER, CLIENT);
    let mut nonce = FIRST_NONCE;
    let mut round = G::Outcome::default();
    let mut group = c.benchmark_group("round");
    group.throughput(Throughput::Elements(1));
    group.bench_function(name, |b| {
        b.iter(|| {
            nonce += 1;
            let mut words = hasher.words(black_box(nonce));
            game.draw(&mut words, &mut round);
            black_box(&round);
        })
    });
    group.finish();
}

fn rounds(c: &mut Criterion) {
    run_rounds(c, "keno", Keno);
    run_rounds(c, "roulette-european", Roulette::EUROPEAN);
}

fn draws_only(c: &mut Criterion) {
    // The draw logic alone, on a pre-squeezed stream: what the games add on top of Keccak.
    let stream = ShakeWords::from_signature_hex(SIGNATURE);
    let mut group = c.benchmark_group("draw_only");
    group.throughput(Throughput::Elements(1));
    group.bench_function("keno", |b| {
        let mut round = KenoRound::default();
        b.iter_batched_ref(|| stream.clone(), |words| Keno.draw(words, &mut round), BatchSize::SmallInput)
    });
    group.bench_function("roulette-european", |b| {
        let mut spin = Spin::default();
        b.iter_batched_ref(
            || stream.clone(),
            |words| {
                Roulette::EUROPEAN.draw(words, &mut spin);
                black_box(words.next_word())
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, keccak, shake_stream, hash_only, hash_draw, sweep_rounds, rounds, draws_only);
criterion_main!(benches);
