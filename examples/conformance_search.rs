//! The searches behind `data/conformance-rejections.csv` and
//! `data/conformance-limit-words.csv`.
//!
//! Default: for one seed pair, scan nonces upward from a start and record the first round
//! that takes the rejection path at each `P` where one exists (Keno P = 40, 39, …, 31
//! except 32; European P = 37; American P = 38), so the conformance challenge can aim a
//! round at every rejection limit.
//!
//! `--limit-words`: the first round in which a draw meets a word equal to its limit
//! `floor(2^32 / P) * P` itself (one Keno round at any P, one European spin, one American
//! spin). Only such a word tells `r >= limit` (reject it) from `r > limit` (accept it as
//! `0`): a sampler with the wrong comparison answers every other round right. Each is a
//! single word value of 2^32, so a Keno round meets one about once in 4.8 × 10^8 rounds
//! and a wheel once in 4.3 × 10^9: this mode hashes batches on every core (the sweep's
//! batch hasher), screens the first eleven words of each round, and replays the rare
//! candidates exactly. Deterministic whatever the threads: nonces are searched in waves of
//! chunks and the lowest hit of each target is kept.
//!
//! ```text
//! nice -n 19 cargo run --release --example conformance_search -- \
//!     [--limit-words] [--server-seed S] [--client-seed C] [--start N] [--end M] > found.csv
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

use fairaudit::chain::{BatchHasher, Kernel, RoundBatch, RoundHasher, WordSource, ROUNDS_PER_BATCH};
use fairaudit::games::keno::{choices_at_draw, DRAWN};
use fairaudit::games::{Game, Keno, KenoRound, Roulette, Spin};
use fairaudit::sampler::{limit, rejected_values};
use rayon::prelude::*;
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
    let mut limit_words = false;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--limit-words" {
            limit_words = true;
            client = "limit-word-search".to_owned();
            continue;
        }
        let value = args.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        match flag.as_str() {
            "--server-seed" => server = value,
            "--client-seed" => client = value,
            "--start" => start = value.parse().unwrap_or_else(|_| usage("--start: not a u64")),
            "--end" => end = value.parse().unwrap_or_else(|_| usage("--end: not a u64")),
            _ => usage(&format!("unknown option {flag}")),
        }
    }

    if limit_words {
        search_limit_words(&server, &client, start, end);
        return;
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

/// The limit-word targets, in the order printed: (game, P of the draw for the wheels).
const LIMIT_TARGETS: [&str; 3] = ["keno", "roulette-european", "roulette-american"];

/// Which limit-word targets the round at `nonce` hits, exactly: for each, the 1-based
/// draw whose word equalled its limit.
fn limit_hits(hasher: &RoundHasher, nonce: u64) -> [Option<(u32, usize)>; 3] {
    let mut hits = [None; 3];
    let mut words = hasher.words(nonce);
    'draws: for k in 0..DRAWN {
        let p = choices_at_draw(k);
        loop {
            let word = u64::from(words.next_word());
            if word == limit(p) && hits[0].is_none() {
                hits[0] = Some((p, k + 1));
            }
            if word < limit(p) {
                continue 'draws;
            }
        }
    }
    for (slot, p) in [(1, 37), (2, 38)] {
        let mut words = hasher.words(nonce);
        loop {
            let word = u64::from(words.next_word());
            if word == limit(p) {
                hits[slot] = Some((p, 1));
            }
            if word < limit(p) {
                break;
            }
        }
    }
    hits
}

/// Rounds whose first eleven words are all below this meet no limit word and reject
/// nothing in their first ten draws (the lowest limit of P = 31..40 is P = 39's, 2^32 − 22).
const SCREEN: u32 = u32::MAX - 21;

/// The lowest nonce in `nonces` hitting each limit-word target, on one thread.
fn limit_hits_in(
    hasher: &RoundHasher,
    kernel: Kernel,
    nonces: std::ops::Range<u64>,
) -> [Option<(u64, u32, usize)>; 3] {
    let mut found = [None; 3];
    let mut batcher = BatchHasher::new(hasher, kernel);
    let mut batch = RoundBatch::default();
    let mut column = [0u32; ROUNDS_PER_BATCH];
    let mut candidate = [false; ROUNDS_PER_BATCH];
    let mut first = nonces.start;
    while first < nonces.end {
        let last = (first + ROUNDS_PER_BATCH as u64).min(nonces.end);
        batcher.hash(first..last, &mut batch);
        candidate.fill(false);
        for k in 0..=DRAWN {
            batch.word_column(k, &mut column);
            for (flag, &word) in candidate.iter_mut().zip(&column).take(batch.len()) {
                *flag |= word >= SCREEN;
            }
        }
        for r in (0..batch.len()).filter(|&r| candidate[r]) {
            let nonce = first + r as u64;
            for (slot, hit) in limit_hits(hasher, nonce).into_iter().enumerate() {
                if let (Some((p, draw)), None) = (hit, found[slot]) {
                    found[slot] = Some((nonce, p, draw));
                }
            }
        }
        first = last;
    }
    found
}

/// `--limit-words`: waves of chunks on every core until each target has a round.
fn search_limit_words(server: &str, client: &str, start: u64, end: u64) {
    const CHUNK: u64 = 1 << 24;
    let hasher = RoundHasher::new(server, client);
    let kernel = Kernel::best();
    let wave = CHUNK * rayon::current_num_threads() as u64 * 4;
    let mut found: [Option<(u64, u32, usize)>; 3] = [None; 3];
    let began = Instant::now();
    let mut from = start;
    while from < end && found.iter().any(Option::is_none) {
        let to = from.saturating_add(wave).min(end);
        let chunks: Vec<u64> = (from..to).step_by(CHUNK as usize).collect();
        let results: Vec<_> = chunks
            .par_iter()
            .map(|&chunk| limit_hits_in(&hasher, kernel, chunk..(chunk + CHUNK).min(to)))
            .collect();
        // Chunks in nonce order: the first hit of each target is the lowest nonce.
        for result in results {
            for (slot, hit) in result.into_iter().enumerate() {
                if let (None, Some((nonce, p, _))) = (found[slot], hit) {
                    found[slot] = hit;
                    eprintln!(
                        "found {} limit word (P = {p}) at nonce {nonce} after {:.0} s",
                        LIMIT_TARGETS[slot],
                        began.elapsed().as_secs_f64()
                    );
                }
            }
        }
        let seconds = began.elapsed().as_secs_f64();
        eprintln!(
            "{} rounds in {seconds:.0} s ({:.2e} rounds/s) on {:?}",
            to - start,
            (to - start) as f64 / seconds,
            kernel.path()
        );
        from = to;
    }
    println!("game,server_seed,client_seed,nonce,outcomes,draw,source");
    for (slot, hit) in found.iter().enumerate() {
        if let Some((nonce, p, draw)) = hit {
            println!(
                "{},{server},{client},{nonce},{p},{draw},examples/conformance_search.rs --limit-words",
                LIMIT_TARGETS[slot]
            );
        }
    }
    eprintln!("searched nonces {start}..{from} in {:.0} s", began.elapsed().as_secs_f64());
    if found.iter().any(Option::is_none) {
        std::process::exit(1);
    }
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "error: {problem}\nusage: conformance_search [--server-seed S] [--client-seed C] [--start N] [--end M]"
    );
    std::process::exit(2);
}
