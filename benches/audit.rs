//! Criterion benchmark of `fairaudit audit` on a bet history: rows per second through the
//! whole audit (the pass for the seeds the history reveals, then CSV reading, bet and
//! payout checks, replay against the chain, tallies), the first pass alone, beside the sweep's rounds per second on one thread for the same game, so the
//! ratio the README quotes comes from one run.
//!
//! Run with `cargo bench --bench audit`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fairaudit::audit::money::Money;
use fairaudit::audit::{audit_history, revealed_seeds, AuditObserver, AuditOptions, Finding, Gap};
use fairaudit::chain::{Kernel, RoundHasher};
use fairaudit::games::{GameId, Roulette};
use fairaudit::rtp::Paytable;
use fairaudit::sweep::tally_rounds;
use fairaudit::tally::RouletteTally;
use fairaudit::verify::replay_outcome;
use std::hint::black_box;

const ROWS: u64 = 100_000;
const SERVER: &str = "8bdb7cce7efe5ba8a8dd893183969eeba617859f9f3a88ce728cb444b81f1aaa";
const CLIENT: &str = "b26c22997bc0d401463f6ea875385de1e534f2fee48e11ef6bcbb549093d8503";
/// Seven-digit nonces, as in the sweep benches: three permutations per round.
const FIRST_NONCE: u64 = 1_000_000;

/// A fair European history of one player: seeds revealed, a red bet of 1 on every round.
fn history() -> String {
    let hasher = RoundHasher::new(SERVER, CLIENT);
    let commitment = fairaudit::chain::commitment(SERVER);
    let mut csv =
        String::from("player,commitment,server_seed,client_seed,nonce,draw_order,result,bet,stake,payout\n");
    for nonce in FIRST_NONCE..FIRST_NONCE + ROWS {
        let (order, result, _) = replay_outcome(GameId::RouletteEuropean, &hasher, nonce);
        let pocket: u8 = order.parse().unwrap();
        let payout = if fairaudit::games::roulette::is_red(pocket) { "2" } else { "0" };
        csv.push_str(&format!(
            "alice,{commitment},{SERVER},{CLIENT},{nonce},{order},{result},red,1,{payout}\n"
        ));
    }
    csv
}

struct Quiet;
impl AuditObserver for Quiet {
    fn finding(&mut self, f: &Finding) {
        panic!("a fair history has no findings: {f:?}");
    }
    fn gap(&mut self, _: &Gap) {}
}

fn audit(c: &mut Criterion) {
    let csv = history();
    let options = AuditOptions {
        paytable: Some(Paytable::example()),
        payout_tolerance: Money::ZERO,
        max_gap_replay: 10_000,
        layout: fairaudit::columns::CsvLayout::default(),
    };
    let mut group = c.benchmark_group("audit");
    group.throughput(Throughput::Elements(ROWS));
    group.sample_size(10);
    group.bench_function("roulette-european/rows", |b| {
        b.iter(|| {
            // Both passes, as the CLI runs them.
            let input = black_box(csv.as_bytes());
            let revealed = revealed_seeds(GameId::RouletteEuropean, input, &options.layout).unwrap();
            audit_history(GameId::RouletteEuropean, input, &revealed, &options, &mut Quiet).unwrap()
        })
    });
    // The first pass alone (the seeds the history reveals): its share of the audit.
    group.bench_function("roulette-european/revealed_seeds_pass", |b| {
        b.iter(|| {
            revealed_seeds(GameId::RouletteEuropean, black_box(csv.as_bytes()), &options.layout).unwrap()
        })
    });
    let hasher = RoundHasher::new(SERVER, CLIENT);
    // The audit replays rows one at a time as they are read, on the scalar permutation;
    // the sweep is measured on both the scalar path (like for like) and the best path the
    // CPU offers (what `fairaudit sweep` actually runs).
    for (name, kernel) in [("sweep_rounds_scalar", Kernel::scalar()), ("sweep_rounds_best", Kernel::best())] {
        group.bench_function(format!("roulette-european/{name}"), |b| {
            b.iter(|| {
                tally_rounds::<RouletteTally>(
                    Roulette::EUROPEAN,
                    black_box(&hasher),
                    kernel,
                    FIRST_NONCE..FIRST_NONCE + ROWS,
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, audit);
criterion_main!(benches);
