//! The HMAC-SHA256 family's replay throughput against the bare HMAC it rests on, and
//! against the operators' JavaScript approach in Node (issue 33).
//!
//! Variants, each over the same nonces (64-character seeds, 7-digit nonces):
//! - `hmac_rekeyed`: HMAC-SHA256 keyed afresh for every block, as the published
//!   verifiers do (`createHmac(serverSeed)` per round);
//! - `hmac_cached`: the bare block with the key's midstates and `client_seed:` absorbed once
//!   per seed pair ([`SeedPair::block`]): the hardware figure the games are measured by;
//! - `dice`, `keno`, `plinko_16`: whole rounds (blocks, floats, the game's outcome) from a
//!   [`SeedPair`], one, two and two blocks a round;
//! - `sweep_dice`, `sweep_keno`, `sweep_plinko_16`, `sweep_mines_3`: what one thread of
//!   `sweep --scheme stake` does (`Counter::count`: every round counted into its
//!   outcome, draw steps and pairs of rounds), the figure the 70% target is about.
//!
//! As in `benches/share.rs`, the variants run interleaved and each keeps its best
//! repetition, so that the ratios come from one run on a shared machine. With `node` on
//! PATH it then runs `benches/stake-node.js` (the published `byteGenerator` approach:
//! Node's `crypto.createHmac` per block, floats, dice) over as many rounds and prints the
//! ratio. Run: `cargo bench --bench schemes` (environment: `REPEATS`, default 15; `ROUNDS`
//! per repetition, default 200000).

use fairaudit::scheme::keyed::KeyedPair;
use fairaudit::scheme::stake::{SeedPair, StakeGame};
use fairaudit::tally::stake::Counter;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::hint::black_box;
use std::time::{Duration, Instant};

const SERVER: &str = "8bdb7cce7efe5ba8a8dd893183969eeba617859f9f3a88ce728cb444b81f1aaa";
const CLIENT: &str = "b26c22997bc0d401463f6ea875385de1e534f2fee48e11ef6bcbb549093d8503";
const FIRST_NONCE: u64 = 1_000_000;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let repeats = env_or("REPEATS", 15);
    let rounds = env_or("ROUNDS", 200_000);
    let pair = SeedPair::new(SERVER, CLIENT);
    let nonces = FIRST_NONCE..FIRST_NONCE + rounds;
    let game = |name: &str, params: &str| StakeGame::new(name, params).unwrap();
    let (dice, keno, plinko) =
        (game("dice", ""), game("keno", ""), game("plinko", "{\"rows\":16,\"risk\":\"high\"}"));
    let mines = game("mines", "{\"mines\":3}");
    let counters: Vec<Counter> = [dice, keno, plinko, mines].iter().map(Counter::new).collect();
    let keyed = KeyedPair::Stake(pair.clone());
    let sweep = |i: usize| drop(black_box(counters[i].count(&keyed, nonces.clone(), nonces.end)));
    type Run<'a> = Box<dyn Fn() + 'a>;
    let variants: Vec<(&str, Run)> = vec![
        (
            "hmac_rekeyed",
            Box::new(|| {
                for nonce in nonces.clone() {
                    let mut mac = Hmac::<Sha256>::new_from_slice(SERVER.as_bytes()).unwrap();
                    mac.update(format!("{CLIENT}:{nonce}:0").as_bytes());
                    black_box(mac.finalize().into_bytes());
                }
            }),
        ),
        (
            "hmac_cached",
            Box::new(|| {
                for nonce in nonces.clone() {
                    black_box(pair.block(nonce, 0));
                }
            }),
        ),
        ("dice", Box::new(|| nonces.clone().for_each(|n| drop(black_box(dice.play(&mut pair.floats(n))))))),
        ("keno", Box::new(|| nonces.clone().for_each(|n| drop(black_box(keno.play(&mut pair.floats(n))))))),
        (
            "plinko_16",
            Box::new(|| nonces.clone().for_each(|n| drop(black_box(plinko.play(&mut pair.floats(n)))))),
        ),
        ("sweep_dice", Box::new(|| sweep(0))),
        ("sweep_keno", Box::new(|| sweep(1))),
        ("sweep_plinko_16", Box::new(|| sweep(2))),
        ("sweep_mines_3", Box::new(|| sweep(3))),
    ];
    let mut best = vec![Duration::MAX; variants.len()];
    for _ in 0..repeats {
        for (i, (_, run)) in variants.iter().enumerate() {
            let start = Instant::now();
            run();
            best[i] = best[i].min(start.elapsed());
        }
    }
    let rate = |i: usize| rounds as f64 / best[i].as_secs_f64();
    let cached = rate(1);
    println!("{:<16} {:>14} {:>16}", "variant", "rounds/s", "share of cached");
    for (i, (name, _)) in variants.iter().enumerate() {
        // Blocks per round: keno and 16-row plinko read two.
        let blocks = match *name {
            "keno" | "plinko_16" | "sweep_keno" | "sweep_plinko_16" => 2.0,
            _ => 1.0,
        };
        println!(
            "{name:<16} {:>14.0} {:>15.1}%  ({blocks} HMAC block(s) a round)",
            rate(i),
            100.0 * rate(i) * blocks / cached
        );
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/stake-node.js");
    match std::process::Command::new("node")
        .arg(script)
        .arg(rounds.to_string())
        .arg(repeats.min(5).to_string())
        .output()
    {
        Ok(output) if output.status.success() => {
            let text = String::from_utf8_lossy(&output.stdout);
            let node: f64 = text.trim().parse().expect("stake-node.js prints rounds per second");
            println!(
                "{:<16} {node:>14.0}   (Node {}: createHmac per block, floats, dice)",
                "node_dice",
                node_version()
            );
            println!("dice here / dice in Node: {:.1}x", rate(2) / node);
        }
        _ => println!("node_dice: skipped (no node on PATH)"),
    }
}

fn node_version() -> String {
    std::process::Command::new("node")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}
