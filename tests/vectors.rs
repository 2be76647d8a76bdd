//! Value-stability: every reference round published by the operator reproduces bit for bit,
//! one round at a time (`verify`'s path) and in batches on every Keccak path this machine
//! supports (the sweep's and the stream's). `../shared/vectors/` sits beside the
//! repository, locally and in CI.

mod common;

use fairaudit::chain::{
    BatchHasher, Kernel, RoundBatch, RoundHasher, ShakeWords, WordSource, ROUNDS_PER_BATCH,
};
use fairaudit::games::{Game, GameId, Keno, Roulette};
use fairaudit::sampler::sample;
use fairaudit::verify::replay;
use std::path::PathBuf;

fn vectors(name: &str) -> Vec<csv::StringRecord> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/vectors").join(name);
    let mut reader =
        csv::Reader::from_path(&path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    let headers = reader.headers().unwrap().clone();
    let expected = "game,server_seed,client_seed,nonce,commitment,round_signature,draw_order,result,u32_used";
    assert_eq!(headers.iter().collect::<Vec<_>>().join(","), expected);
    reader.records().map(Result::unwrap).collect()
}

fn assert_all_reproduce(name: &str) -> usize {
    let rows = vectors(name);
    for (i, row) in rows.iter().enumerate() {
        let game: GameId = row[0].parse().unwrap();
        let nonce: u64 = row[3].parse().unwrap();
        let got = replay(game, &row[1], &row[2], nonce);
        let context = format!("{name} row {}", i + 2);
        assert_eq!(got.commitment, &row[4], "{context}: commitment");
        assert_eq!(got.round_signature, &row[5], "{context}: round_signature");
        assert_eq!(got.draw_order, &row[6], "{context}: draw_order");
        assert_eq!(got.result, &row[7], "{context}: result");
        assert_eq!(got.u32_used.to_string(), &row[8], "{context}: u32_used");
    }
    rows.len()
}

#[test]
fn every_reference_round_reproduces() {
    assert_eq!(assert_all_reproduce("reference-rounds.csv"), 756);
}

#[test]
fn every_rejection_round_reproduces() {
    assert_eq!(assert_all_reproduce("rejection-rounds.csv"), 6);
}

/// Draws round `r` of `batch` as `game`: (draw order, result, words consumed).
fn batch_outcome(game: GameId, batch: &RoundBatch, r: usize) -> (String, String, u64) {
    fn texts<G: Game>(game: G, batch: &RoundBatch, r: usize) -> (String, String, u64) {
        let mut round = G::Outcome::default();
        game.draw(&mut batch.words(r), &mut round);
        (game.draw_order_text(&round), game.result_text(&round), game.words_consumed(&round))
    }
    match game {
        GameId::Keno => texts(Keno, batch, r),
        GameId::RouletteEuropean => texts(Roulette::EUROPEAN, batch, r),
        GameId::RouletteAmerican => texts(Roulette::AMERICAN, batch, r),
    }
}

fn assert_all_reproduce_in_batches(name: &str, kernel: Kernel) {
    let mut batch = RoundBatch::default();
    for (i, row) in vectors(name).iter().enumerate() {
        let game: GameId = row[0].parse().unwrap();
        let nonce: u64 = row[3].parse().unwrap();
        let context = format!("{name} row {} on {}", i + 2, kernel.path());
        // The round at a different position of its batch for each row, so that every
        // lane and both sides of a kernel call carry vectors.
        let start = nonce.saturating_sub((i % ROUNDS_PER_BATCH) as u64);
        let end = start.saturating_add(ROUNDS_PER_BATCH as u64);
        let mut batcher = BatchHasher::new(&RoundHasher::new(&row[1], &row[2]), kernel);
        batcher.hash(start..end, &mut batch);
        let r = (nonce - start) as usize;

        // The stream's first block is SHAKE256 of the published signature.
        let mut block = [0u8; 136];
        batch.first_block(r, &mut block);
        let signature: [u8; 64] = row[5].as_bytes().try_into().unwrap();
        let mut expected = [0u8; 136];
        ShakeWords::from_signature_hex(&signature).fill_bytes(&mut expected);
        assert_eq!(block, expected, "{context}: stream of the round signature");

        let (draw_order, result, used) = batch_outcome(game, &batch, r);
        assert_eq!(draw_order, &row[6], "{context}: draw_order");
        assert_eq!(result, &row[7], "{context}: result");
        assert_eq!(used.to_string(), &row[8], "{context}: u32_used");
    }
}

#[test]
fn every_reference_and_rejection_round_reproduces_in_batches_on_every_keccak_path() {
    for kernel in common::keccak_kernels() {
        assert_all_reproduce_in_batches("reference-rounds.csv", kernel);
        assert_all_reproduce_in_batches("rejection-rounds.csv", kernel);
    }
}

/// A Keno draw that skips rejection (plain `word % P`): the rejection vectors exist to
/// catch exactly this, so prove that they do and that the other vectors do not.
fn keno_without_rejection(hasher: &RoundHasher, nonce: u64) -> String {
    let mut words = hasher.words(nonce);
    let mut remaining: Vec<u32> = (1..=40).collect();
    let drawn: Vec<String> = (0..10)
        .map(|_| remaining.remove((words.next_word() % remaining.len() as u32) as usize).to_string())
        .collect();
    drawn.join(" ")
}

#[test]
fn rejection_vectors_catch_a_sampler_without_rejection() {
    for row in vectors("rejection-rounds.csv").iter().filter(|r| &r[0] == "keno") {
        let hasher = RoundHasher::new(&row[1], &row[2]);
        assert_ne!(keno_without_rejection(&hasher, row[3].parse().unwrap()), &row[6]);
    }
    for row in vectors("reference-rounds.csv").iter().filter(|r| &r[0] == "keno") {
        let hasher = RoundHasher::new(&row[1], &row[2]);
        assert_eq!(keno_without_rejection(&hasher, row[3].parse().unwrap()), &row[6]);
    }
}

#[test]
fn roulette_rejection_round_rejects_its_first_word() {
    let row = vectors("rejection-rounds.csv").into_iter().find(|r| &r[0] == "roulette-european").unwrap();
    let mut words = RoundHasher::new(&row[1], &row[2]).words(row[3].parse().unwrap());
    let first = sample(&mut words, 37);
    assert_eq!(first.rejected, 1);
    assert_eq!(first.index.to_string(), &row[6]);
}
