//! Criterion benchmarks of the engine: one Keccak-f[1600] permutation (the unit every
//! other figure is compared with), the SHAKE256 word stream, and whole rounds.
//!
//! Run with `cargo bench --bench engine`. `sweep_round/*` is the sweep's per-round cost
//! (signature, stream, draw and all tallies) on one thread. A Keno round with 64-character seeds and a
//! 7-digit nonce needs three permutations (two for the 137-byte signature message, one
//! for the stream), so compare `round/keno` with 3 × `keccak/f1600`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use fairaudit::chain::sponge::{permute, KeccakState};
use fairaudit::chain::{RoundHasher, ShakeWords, WordSource};
use fairaudit::games::{Game, Keno, KenoRound, Roulette, Spin};
use fairaudit::sweep::tally_rounds;
use fairaudit::tally::{KenoTally, RouletteTally};
use sha3::digest::{ExtendableOutput, Update, XofReader};
use std::hint::black_box;

const SERVER: &str = "8bdb7cce7efe5ba8a8dd893183969eeba617859f9f3a88ce728cb444b81f1aaa";
const CLIENT: &str = "b26c22997bc0d401463f6ea875385de1e534f2fee48e11ef6bcbb549093d8503";
const SIGNATURE: &[u8; 64] = b"ff4a5a482caa19ce1ce33892da27c13f9716d4b63cd3697cb40449991cf384a7";
/// The first 7-digit nonce: rounds from here on need two permutations for the signature.
const FIRST_NONCE: u64 = 1_000_000;

fn keccak(c: &mut Criterion) {
    let mut group = c.benchmark_group("keccak");
    group.throughput(Throughput::Elements(1));
    let mut state: KeccakState = [0x0123_4567_89ab_cdef; 25];
    group.bench_function("f1600", |b| b.iter(|| permute(black_box(&mut state))));
    group.finish();
}

fn shake_stream(c: &mut Criterion) {
    let mut group = c.benchmark_group("shake256_stream");
    for bytes in [136usize, 1024, 8192, 65536] {
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
    run_rounds(c, "roulette-american", Roulette::AMERICAN);
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

fn sweep_rounds(c: &mut Criterion) {
    // Whole rounds as the sweep runs them: signature, stream, draw and every tally.
    const ROUNDS: u64 = 4096;
    let hasher = RoundHasher::new(SERVER, CLIENT);
    let mut group = c.benchmark_group("sweep_round");
    group.throughput(Throughput::Elements(ROUNDS));
    let nonces = FIRST_NONCE..FIRST_NONCE + ROUNDS;
    group.bench_function("keno", |b| b.iter(|| tally_rounds::<KenoTally>(Keno, &hasher, nonces.clone())));
    group.bench_function("roulette-european", |b| {
        b.iter(|| tally_rounds::<RouletteTally>(Roulette::EUROPEAN, &hasher, nonces.clone()))
    });
    group.finish();
}

criterion_group!(benches, keccak, shake_stream, rounds, draws_only, sweep_rounds);
criterion_main!(benches);
