//! The accelerator's round kernel (`src/device/kernel.c`), compiled for the CPU, against
//! the Rust path: every published reference round and rejection round, then random seeds
//! (empty, colon-holding, Unicode, long enough to cross SHA3's 136-byte block) and nonces
//! up to 2^64 − 1, for the signature, the Keno draw, both wheels and the words consumed.

use fairaudit::device::{keno_round, roulette_round, round_signature};
use fairaudit::games::GameId;
use fairaudit::verify::replay;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::path::PathBuf;

/// The kernel's draw order and words of `game`, as `replay` writes them.
fn kernel_round(game: GameId, server: &str, client: &str, nonce: u64) -> (String, u64) {
    let round = match game {
        GameId::Keno => keno_round(server, client, nonce),
        GameId::RouletteEuropean => roulette_round(server, client, nonce, 37),
        GameId::RouletteAmerican => roulette_round(server, client, nonce, 38),
    };
    let order: Vec<String> = round.draw.iter().map(u8::to_string).collect();
    (order.join(" "), u64::from(round.words_used))
}

fn assert_same(game: GameId, server: &str, client: &str, nonce: u64, context: &str) {
    let rust = replay(game, server, client, nonce);
    assert_eq!(round_signature(server, client, nonce), rust.round_signature, "{context}: signature");
    assert_eq!(kernel_round(game, server, client, nonce), (rust.draw_order, rust.u32_used), "{context}");
}

#[test]
fn every_published_round_and_rejection_round_reproduces() {
    for (name, rows) in [("reference-rounds.csv", 756), ("rejection-rounds.csv", 6)] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/vectors").join(name);
        let mut reader = csv::Reader::from_path(&path).unwrap();
        let mut count = 0;
        for (i, row) in reader.records().enumerate() {
            let row = row.unwrap();
            let game: GameId = row[0].parse().unwrap();
            let nonce: u64 = row[3].parse().unwrap();
            let context = format!("{name} row {}", i + 2);
            assert_eq!(round_signature(&row[1], &row[2], nonce), &row[5], "{context}: signature");
            let (order, used) = kernel_round(game, &row[1], &row[2], nonce);
            assert_eq!((order.as_str(), used.to_string().as_str()), (&row[6], &row[8]), "{context}");
            count += 1;
        }
        assert_eq!(count, rows, "{name}");
    }
}

#[test]
fn random_seeds_and_nonces_give_the_rust_paths_rounds() {
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    let pieces = ["", ":", "a:b", "é", "🎲", "0123456789abcdef", "x"];
    for i in 0..3_000 {
        let seed = |rng: &mut ChaCha8Rng| {
            let len = (rng.next_u32() % 12) as usize;
            let mut text: String = (0..len).map(|_| pieces[(rng.next_u32() % 7) as usize]).collect();
            if rng.next_u32().is_multiple_of(10) {
                // Past SHA3's 136-byte block, and past two.
                text.push_str(&"s".repeat(120 + (rng.next_u32() % 200) as usize));
            }
            text
        };
        let (server, client) = (seed(&mut rng), seed(&mut rng));
        let nonce = match i % 4 {
            0 => u64::from(rng.next_u32() % 1_000),
            1 => rng.next_u64() >> (rng.next_u32() % 64),
            2 => u64::MAX - u64::from(rng.next_u32() % 3),
            _ => rng.next_u64(),
        };
        for game in GameId::ALL {
            assert_same(game, &server, &client, nonce, &format!("{game:?} {server:?} {client:?} {nonce}"));
        }
    }
}
