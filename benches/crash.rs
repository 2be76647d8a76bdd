//! A crash chain's sweep against the bare SHA-256 compression it rests on (issue 34).
//!
//! A game costs seven compressions: two for the link below it (SHA-256 of its hash's 64
//! hex characters) and five for its crash point (HMAC-SHA256 keyed by those characters,
//! over a 64-character salt). Variants, each over the same games of one chain:
//! - `compress`: `sha2::compress256` on one block, the hardware figure (SHA-NI where the
//!   CPU has it, as the `sha2` crate detects at run time), shown per seven compressions;
//! - `walk`: the links alone, on one thread ([`walk_down`], SHA-256 block by block);
//! - `crash_points_hmac_crate`: the crash points alone of hashes already walked, on one
//!   thread, through the `hmac` crate from the hash's text (what the library did first;
//!   a quarter of the games);
//! - `crash_points`: the same through [`GameHmac`], the sweep's path;
//! - `sweep_1_thread`: [`sweep_chain`] in a pool of one worker (plus its walker thread);
//! - `sweep_all_threads`: [`sweep_chain`] on every core.
//!
//! As in `benches/schemes.rs`, the variants run interleaved and each keeps its best
//! repetition, so the ratios come from one run on a shared machine. Then one sweep of a
//! 10^7-link chain (`CHAIN`) on every core, the benchmark, through the library.
//! Run: `cargo bench --bench crash` (environment: `REPEATS`, default 7; `GAMES` per
//! repetition, default 400000; `CHAIN`, default 10000000).

use fairaudit::chain::hex_lower;
use fairaudit::scheme::crash::blocks::GameHmac;
use fairaudit::scheme::crash::{
    game_digest, hash_bytes, hash_text, point_of_digest, previous_digest, CrashVariant,
};
use fairaudit::sweep::crash::{sweep_chain, walk_down};
use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Roobet's game 1,273,935 (`data/vectors/crash.csv`): a real chain to walk down.
const TOP: &str = "cc4a75236ecbc038c37729aa5ced461e36155319e88fa375c994933b6a42a0c4";

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let repeats = env_or("REPEATS", 7);
    let games = env_or("GAMES", 400_000);
    let chain = env_or("CHAIN", 10_000_000);
    let variant = CrashVariant::Roobet;
    let salt = variant.salt();
    let never = AtomicBool::new(false);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let all = rayon::ThreadPoolBuilder::new().num_threads(cores).build().unwrap();
    let hashes: Vec<[u8; 32]> = {
        let mut hash = hash_bytes(TOP).unwrap();
        (0..games)
            .map(|_| {
                let this = hash;
                hash = previous_digest(&hash);
                this
            })
            .collect()
    };
    type Run<'a> = Box<dyn Fn() + 'a>;
    let variants: Vec<(&str, Run)> = vec![
        (
            "compress (x7)",
            Box::new(|| {
                let mut state = [0u32; 8];
                let block = [sha2::digest::generic_array::GenericArray::from([0x5au8; 64])];
                for _ in 0..games * 7 {
                    sha2::compress256(black_box(&mut state), black_box(&block));
                }
                black_box(state);
            }),
        ),
        ("walk", Box::new(|| drop(black_box(walk_down(TOP, games, &never, &|_| {}))))),
        (
            "crash_points_hmac_crate",
            Box::new(|| {
                for hash in &hashes[..hashes.len() / 4] {
                    black_box(point_of_digest(variant, &game_digest(&hash_text(hash), salt)));
                }
            }),
        ),
        (
            "crash_points",
            Box::new(|| {
                let hmac = GameHmac::new(salt.as_bytes());
                for hash in &hashes {
                    black_box(point_of_digest(variant, &hmac.digest(&hex_lower(hash))));
                }
            }),
        ),
        (
            "sweep_1_thread",
            Box::new(|| {
                drop(black_box(one.install(|| sweep_chain(variant, TOP, salt, games, &never, &|_| {}))))
            }),
        ),
        (
            "sweep_all_threads",
            Box::new(|| {
                drop(black_box(all.install(|| sweep_chain(variant, TOP, salt, games, &never, &|_| {}))))
            }),
        ),
    ];
    let mut best = vec![Duration::MAX; variants.len()];
    for _ in 0..repeats {
        for ((_, run), best) in variants.iter().zip(&mut best) {
            let started = Instant::now();
            run();
            *best = (*best).min(started.elapsed());
        }
    }
    // The hmac crate's variant plays a quarter of the games (it is the slow reference).
    let played = |name: &str| if name == "crash_points_hmac_crate" { games / 4 } else { games };
    let rate = |i: usize| played(variants[i].0) as f64 / best[i].as_secs_f64();
    println!("crash chain of {variant:?}, {games} games a repetition, best of {repeats}, {cores} cores");
    println!("{:<20} {:>14} {:>18}", "variant", "games/s", "share of compress");
    for (i, (name, _)) in variants.iter().enumerate() {
        // Each game's share of the bare compressions it needs: 7, 2 for the walk, 5 for a crash point.
        let share = match *name {
            "walk" => rate(i) * 2.0 / (rate(0) * 7.0),
            "crash_points" | "crash_points_hmac_crate" => rate(i) * 5.0 / (rate(0) * 7.0),
            _ => rate(i) / rate(0),
        };
        println!("{name:<20} {:>14.0} {:>17.1}%", rate(i), share * 100.0);
    }
    let started = Instant::now();
    let swept = all.install(|| sweep_chain(variant, TOP, salt, chain, &never, &|_| {})).unwrap();
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "a chain of {chain} links on {cores} cores: {elapsed:.2} s, {:.0} games/s ({} instant crashes)",
        chain as f64 / elapsed,
        swept.tally.cells[0]
    );
}
