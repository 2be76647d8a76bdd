//! Value-stability: every reference round published by the operator reproduces bit for bit.
//! `../shared/vectors/` sits beside the repository, locally and in CI.

use fairaudit::chain::{RoundHasher, WordSource};
use fairaudit::games::GameId;
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
