//! Histories of the HMAC-SHA256 family (`audit --scheme stake`) played by a player whose
//! choices depend on what they saw: which game the next round is, and whether to move to
//! a new seed pair. Fair draws throughout; only the choices (or a rig the caller applies
//! to the rounds afterwards) shape them.

use fairaudit::scheme::stake::{self, SeedPair, StakeGame, StakeOutcome};

/// One round as played.
#[derive(Clone, Debug)]
pub struct StakeRow {
    pub game: StakeGame,
    pub server: String,
    pub client: String,
    pub nonce: u64,
    pub outcome: StakeOutcome,
    /// `bet,stake,payout` cells, empty when the history has none.
    pub money: Option<(String, String, String)>,
}

/// What the player does after a round.
pub struct Choice {
    /// Move to a new server seed (nonce 0 again).
    pub rotate: bool,
    /// The next round's game.
    pub game: StakeGame,
}

/// `rounds` fair rounds from server seeds `server(0)`, `server(1)`, … (client seed
/// `client`), the first of `first`, each next one as `choose` says after seeing the last round.
pub fn played(
    rounds: usize,
    server: impl Fn(u64) -> String,
    client: &str,
    first: StakeGame,
    mut choose: impl FnMut(&StakeRow) -> Choice,
) -> Vec<StakeRow> {
    let mut rows = Vec::with_capacity(rounds);
    let (mut seed, mut nonce, mut game) = (0u64, 0u64, first);
    let mut seed_text = server(0);
    let mut pair = SeedPair::new(&seed_text, client);
    while rows.len() < rounds {
        let outcome = game.play(&mut pair.floats(nonce));
        let row = StakeRow {
            game,
            server: seed_text.clone(),
            client: client.to_owned(),
            nonce,
            outcome,
            money: None,
        };
        let choice = choose(&row);
        rows.push(row);
        nonce += 1;
        game = choice.game;
        if choice.rotate {
            seed += 1;
            nonce = 0;
            seed_text = server(seed);
            pair = SeedPair::new(&seed_text, client);
        }
    }
    rows
}

/// The history as CSV: each row with its commitment (SHA-256 of the server seed, as shown
/// before play) and, where `reveal`, the server seed itself (otherwise the audit replays
/// nothing, and the battery alone judges it).
pub fn stake_csv(rows: &[StakeRow], reveal: bool) -> String {
    let seed_column = if reveal { ",server_seed" } else { "" };
    let money = rows.first().is_some_and(|r| r.money.is_some());
    let mut csv = format!(
        "game,params,commitment{seed_column},client_seed,nonce,result{}\n",
        if money { ",bet,stake,payout" } else { "" }
    );
    let mut committed: Option<(String, String)> = None;
    for row in rows {
        if committed.as_ref().is_none_or(|(s, _)| *s != row.server) {
            committed = Some((row.server.clone(), stake::commitment(&row.server)));
        }
        let commitment = committed.as_ref().map(|(_, c)| c.as_str()).expect("set above");
        let seed = if reveal { format!(",{}", row.server) } else { String::new() };
        let params = row.game.params().replace('"', "\"\"");
        csv.push_str(&format!(
            "{},\"{params}\",{commitment}{seed},{},{},{}",
            row.game.name(),
            row.client,
            row.nonce,
            row.game.result_text(&row.outcome)
        ));
        if let Some((bet, staked, paid)) = &row.money {
            csv.push_str(&format!(",{bet},{staked},{paid}"));
        }
        csv.push('\n');
    }
    csv
}
