//! The tallies as CSV tables: one table per kind of counter, with a row per seed pair
//! and, when there are several seed pairs, `all` rows that sum them (each pair closed as
//! its own sequence first, so no consecutive pair is invented across seed pairs). With
//! more than [`DETAILED_PAIRS`] seed pairs the large tables hold only the `all` rows.

use super::table::{Cell, Table};
use crate::games::keno::{DRAWN, GRID};
use crate::games::roulette::outside_groups;
use crate::games::{GameId, Roulette};
use crate::results::{RejectionRow, RunResults, Totals};
use crate::tally::file::{GameTotals, TallyFile};
use crate::tally::keno::{pair_index, PICK_ORDER};
use crate::tally::roulette::{COLOUR_SYMBOLS, GAP_CAP, LOW_HIGH_SYMBOLS, RUN_CAP};
use crate::tally::stream::StreamTally;
use crate::tally::{KenoTally, RouletteTally};

/// Every tally table of a complete run, from its closed totals.
pub fn tally_tables(file: &TallyFile, results: &RunResults) -> Vec<Table> {
    let mut counts = Table::new("outcome_counts.csv", vec!["game", "seed_pair", "outcome", "count"]);
    let mut stream = Table::new(
        "stream.csv",
        vec![
            "game",
            "seed_pair",
            "rounds",
            "words_used",
            "rounds_beyond_reference_words",
            "max_words_in_round",
        ],
    );
    let mut tables = Vec::new();
    let mut roulette_out = roulette_tables();
    let mut any_roulette = false;
    for totals in &results.totals {
        match totals {
            Totals::Keno(keno) => {
                for (pair, closed) in &keno.rows {
                    let tally = &closed.tally;
                    for (n, &count) in tally.numbers.iter().enumerate() {
                        counts.push(vec![
                            "keno".into(),
                            Cell::User(pair.clone()),
                            (n as u64 + 1).into(),
                            count.into(),
                        ]);
                    }
                    stream_row(&mut stream, GameId::Keno, pair, &tally.stream);
                }
                tables.extend(keno_tables(keno));
            }
            Totals::Roulette(roulette) => {
                let game = roulette.game;
                for (pair, closed) in &roulette.rows {
                    let tally = &closed.tally;
                    for (pocket, &count) in tally.pockets.iter().enumerate() {
                        counts.push(vec![
                            game.name().into(),
                            Cell::User(pair.clone()),
                            Roulette::label(pocket as u8).into(),
                            count.into(),
                        ]);
                    }
                    stream_row(&mut stream, game, pair, &tally.stream);
                }
                roulette_rows(&mut roulette_out, roulette);
                any_roulette = true;
            }
        }
    }
    if any_roulette {
        tables.extend(roulette_out);
    }
    let mut seeds =
        Table::new("seed_pairs.csv", vec!["seed_pair", "server_seed", "client_seed", "commitment"]);
    for (i, pair) in file.plan.seed_pairs.iter().enumerate() {
        seeds.push(vec![
            (i as u64).into(),
            Cell::User(pair.server_seed.clone()),
            Cell::User(pair.client_seed.clone()),
            pair.commitment.clone().into(),
        ]);
    }
    let mut all = vec![seeds, counts, stream, rejection_table(&results.rejections)];
    all.extend(tables);
    all
}

fn stream_row(stream: &mut Table, game: GameId, pair: &str, tally: &StreamTally) {
    stream.push(vec![
        game.name().into(),
        pair.into(),
        tally.rounds.into(),
        tally.words.into(),
        tally.beyond_reference_words.into(),
        tally.max_words_in_round.into(),
    ]);
}

/// `rejections.csv`: per game, seed pair and P, the draws, the rejected words and their
/// exact expectation, and `2^32 mod P`.
fn rejection_table(rows: &[RejectionRow]) -> Table {
    let mut table = Table::new(
        "rejections.csv",
        vec![
            "game",
            "seed_pair",
            "outcomes_p",
            "draws",
            "rejected_words",
            "expected_rejected_words",
            "rejected_values_per_2_32",
        ],
    );
    for row in rows {
        table.push(vec![
            row.game.name().into(),
            row.group.clone().into(),
            u64::from(row.outcomes).into(),
            row.draws.into(),
            row.rejected.into(),
            Cell::Num(row.expected),
            row.rejected_values.into(),
        ]);
    }
    table
}

fn keno_tables(keno: &GameTotals<KenoTally>) -> Vec<Table> {
    let mut positions =
        Table::new("keno_positions.csv", vec!["seed_pair", "draw_position", "number", "count"]);
    let mut pairs = Table::new("keno_pairs.csv", vec!["seed_pair", "number_a", "number_b", "count"]);
    let mut hits = Table::new("keno_hits.csv", vec!["seed_pair", "picks", "pick_set", "hits", "count"]);
    let mut overlap = Table::new("keno_overlap.csv", vec!["seed_pair", "shared_numbers", "count"]);
    for (pair, closed) in &keno.rows {
        let tally = &closed.tally;
        let detailed = detailed_rows(pair, keno.rows.len());
        for k in (0..DRAWN).filter(|_| detailed) {
            for n in 0..GRID {
                positions.push(vec![
                    Cell::User(pair.clone()),
                    (k as u64 + 1).into(),
                    (n as u64 + 1).into(),
                    tally.positions[k * GRID + n].into(),
                ]);
            }
        }
        for a in (1..=GRID as u8).filter(|_| detailed) {
            for b in a + 1..=GRID as u8 {
                pairs.push(vec![
                    Cell::User(pair.clone()),
                    u64::from(a).into(),
                    u64::from(b).into(),
                    tally.pairs[pair_index(a, b)].into(),
                ]);
            }
        }
        for picks in 1..=DRAWN {
            let set = PICK_ORDER[..picks].iter().map(u8::to_string).collect::<Vec<_>>().join(" ");
            for h in 0..=picks {
                hits.push(vec![
                    Cell::User(pair.clone()),
                    (picks as u64).into(),
                    set.clone().into(),
                    (h as u64).into(),
                    tally.hits[(picks - 1) * (DRAWN + 1) + h].into(),
                ]);
            }
        }
        for (shared, &count) in tally.overlap.iter().enumerate() {
            overlap.push(vec![Cell::User(pair.clone()), (shared as u64).into(), count.into()]);
        }
    }
    vec![positions, pairs, hits, overlap]
}

fn roulette_tables() -> [Table; 4] {
    let pairs = Table::new("roulette_pairs.csv", vec!["game", "seed_pair", "pocket", "next_pocket", "count"]);
    let groups = Table::new("roulette_groups.csv", vec!["game", "seed_pair", "group", "pockets", "count"]);
    let runs = Table::new(
        "roulette_runs.csv",
        vec!["game", "seed_pair", "sequence", "symbol", "run_length", "bucket", "count"],
    );
    let gaps =
        Table::new("roulette_gaps.csv", vec!["game", "seed_pair", "pocket", "gap_rounds", "bucket", "count"]);
    [pairs, groups, runs, gaps]
}

fn roulette_rows(tables: &mut [Table; 4], roulette: &GameTotals<RouletteTally>) {
    let game = roulette.game.name();
    let [pairs, groups, runs, gaps] = tables;
    for (pair, closed) in &roulette.rows {
        let tally = &closed.tally;
        let n = tally.pockets.len();
        let detailed = detailed_rows(pair, roulette.rows.len());
        for a in (0..n).filter(|_| detailed) {
            for b in 0..n {
                pairs.push(vec![
                    game.into(),
                    Cell::User(pair.clone()),
                    Roulette::label(a as u8).into(),
                    Roulette::label(b as u8).into(),
                    tally.pairs[a * n + b].into(),
                ]);
            }
        }
        for (name, pockets) in outside_groups(n) {
            let count = pockets.iter().map(|&p| tally.pockets[usize::from(p)]).sum::<u64>();
            groups.push(vec![
                game.into(),
                Cell::User(pair.clone()),
                name.into(),
                (pockets.len() as u64).into(),
                count.into(),
            ]);
        }
        for (sequence, symbols, hist) in [
            ("colour", COLOUR_SYMBOLS, &tally.colour_runs),
            ("low_high", LOW_HIGH_SYMBOLS, &tally.low_high_runs),
        ]
        .into_iter()
        .filter(|_| detailed)
        {
            for (s, symbol) in symbols.iter().enumerate() {
                for length in 1..=RUN_CAP {
                    runs.push(vec![
                        game.into(),
                        Cell::User(pair.clone()),
                        sequence.into(),
                        (*symbol).into(),
                        (length as u64).into(),
                        bucket(length == RUN_CAP).into(),
                        hist.count(s, length).into(),
                    ]);
                }
            }
        }
        for pocket in (0..n).filter(|_| detailed) {
            for gap in 0..=GAP_CAP {
                gaps.push(vec![
                    game.into(),
                    Cell::User(pair.clone()),
                    Roulette::label(pocket as u8).into(),
                    (gap as u64).into(),
                    bucket(gap == GAP_CAP).into(),
                    tally.gaps.count(pocket, gap).into(),
                ]);
            }
        }
    }
}

/// Seed pairs up to which the large tables (positions, pairs, serial pairs, runs, gaps:
/// hundreds to thousands of rows per pair) list every seed pair; with more, they list only
/// `all`, so that every CSV stays small enough for a spreadsheet. Every pair's counters are
/// in `tally.json` whatever the number of pairs.
pub const DETAILED_PAIRS: usize = 10;

/// Whether the row group `label` of `groups` rows (pairs and `all`) goes into the large
/// tables.
fn detailed_rows(label: &str, groups: usize) -> bool {
    groups <= DETAILED_PAIRS + 1 || label == "all"
}

fn bucket(capped: bool) -> &'static str {
    if capped {
        "at_least"
    } else {
        "exact"
    }
}
