//! The search behind `data/conformance-rejections.csv`: for one seed pair, scan nonces
//! upward from a start and record the first round that takes the rejection path at each
//! `P` where one exists (Keno P = 40, 39, …, 31 except 32; European P = 37; American
//! P = 38), so the conformance challenge can aim a round at every rejection limit.
//!
//! ```text
//! nice -n 19 cargo run --release --example conformance_search -- \
//!     [--server-seed S] [--client-seed C] [--start N] [--end M] > found.csv
//! ```
//!
//! Defaults: the seed pair `fairaudit-conformance` / `rejection-search` (short, so that
//! `S:C:n` stays below SHA3's 136-byte block and a round costs two Keccak permutations,
//! not three), nonces from 0 with no end. It stops as soon as every target has been found
//! and prints, on stdout, one CSV row per target in the format of
//! `data/conformance-rejections.csv`; progress and the final count of rounds and seconds
//! go to stderr. One thread, deterministic: the same arguments find the same rounds.
//!
//! Per draw the rejection probability is (2^32 mod P)/2^32; the rarest targets (P = 31,
//! 33, 36: 4 values of 2^32) need about 10^9 rounds each, and all targets are searched in
//! one pass because every Keno round draws at every P = 40..31, and a roulette spin is
//! decided by the first word of the same stream as Keno's first draw.

use fairaudit::chain::RoundHasher;
use fairaudit::games::keno::{choices_at_draw, DRAWN};
use fairaudit::games::{Game, Keno, KenoRound, Roulette, Spin};
use fairaudit::sampler::rejected_values;
use std::time::Instant;

/// What the search looks for, in the order the rows are printed.
struct Target {
    game: &'static str,
    outcomes: u32,
    /// 1-based Keno draw (P = 41 − draw); 1 for roulette.
    draw: usize,
    found: Option<(u64, u32)>,
}

fn targets() -> Vec<Target> {
    let mut targets: Vec<Target> = (0..DRAWN)
        .filter(|&k| rejected_values(choices_at_draw(k)) > 0)
        .map(|k| Target { game: "keno", outcomes: choices_at_draw(k), draw: k + 1, found: None })
        .collect();
    targets.push(Target { game: "roulette-european", outcomes: 37, draw: 1, found: None });
    targets.push(Target { game: "roulette-american", outcomes: 38, draw: 1, found: None });
    targets
}

fn main() {
    let mut server = "fairaudit-conformance".to_owned();
    let mut client = "rejection-search".to_owned();
    let (mut start, mut end) = (0u64, u64::MAX);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        match flag.as_str() {
            "--server-seed" => server = value,
            "--client-seed" => client = value,
            "--start" => start = value.parse().unwrap_or_else(|_| usage("--start: not a u64")),
            "--end" => end = value.parse().unwrap_or_else(|_| usage("--end: not a u64")),
            _ => usage(&format!("unknown option {flag}")),
        }
    }

    let hasher = RoundHasher::new(&server, &client);
    let mut targets = targets();
    let mut missing = targets.len();
    let mut round = KenoRound::default();
    let mut spin = Spin::default();
    let began = Instant::now();
    let mut nonce = start;
    while nonce < end && missing > 0 {
        let mut words = hasher.words(nonce);
        Keno.draw(&mut words, &mut round);
        if round.rejected.iter().any(|&r| r > 0) {
            for target in targets.iter_mut().filter(|t| t.found.is_none()) {
                let rejected = match target.game {
                    "keno" => round.rejected[target.draw - 1],
                    // Keno's first draw and a spin read the same first word; a spin can
                    // only reject when P = 40 rejected it too (2^32 mod 40 = 16 ≥ 7, 6).
                    game => {
                        let wheel =
                            if game == "roulette-european" { Roulette::EUROPEAN } else { Roulette::AMERICAN };
                        wheel.draw(&mut hasher.words(nonce), &mut spin);
                        spin.rejected
                    }
                };
                if rejected > 0 {
                    target.found = Some((nonce, rejected));
                    missing -= 1;
                    eprintln!(
                        "found {} P = {} at nonce {nonce} after {:.0} s",
                        target.game,
                        target.outcomes,
                        began.elapsed().as_secs_f64()
                    );
                }
            }
        }
        nonce += 1;
        if (nonce - start) % (1 << 27) == 0 {
            let seconds = began.elapsed().as_secs_f64();
            eprintln!(
                "{} rounds in {seconds:.0} s ({:.0} rounds/s), {missing} targets left",
                nonce - start,
                (nonce - start) as f64 / seconds
            );
        }
    }

    println!("game,server_seed,client_seed,nonce,outcomes,draw,rejected_words");
    for target in &targets {
        if let Some((nonce, rejected)) = target.found {
            println!(
                "{},{server},{client},{nonce},{},{},{rejected}",
                target.game, target.outcomes, target.draw
            );
        }
    }
    eprintln!(
        "searched nonces {start}..{nonce} ({} rounds) in {:.0} s; {missing} targets not found",
        nonce - start,
        began.elapsed().as_secs_f64()
    );
    if missing > 0 {
        std::process::exit(1);
    }
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "error: {problem}\nusage: conformance_search [--server-seed S] [--client-seed C] [--start N] [--end M]"
    );
    std::process::exit(2);
}
