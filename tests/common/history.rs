//! Bet histories for the audit tests: players with seed pairs, bets, stakes and payouts,
//! fair or rigged in one way, written as the CSV an operator would export.

use super::ChaChaWords;
use fairaudit::audit::bets::{Outcome, Payouts, PlacedBet};
use fairaudit::audit::money::Money;
use fairaudit::chain::{commitment, RoundHasher};
use fairaudit::games::{Game, GameId, Keno, KenoRound, Roulette, Spin, Wheel};
use fairaudit::rtp::Paytable;

/// The roulette bets the simulated players place.
const ROULETTE_BETS: [&str; 10] = [
    "straight:17",
    "straight:0",
    "split:1-4",
    "street:7-8-9",
    "corner:1-2-4-5",
    "six_line:1-2-3-4-5-6",
    "dozen:2",
    "column:3",
    "red",
    "odd",
];
const STAKES: [&str; 4] = ["1", "2", "5", "0.5"];

/// How a history is made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rig {
    /// Outcomes from the chain, payouts by the paytable.
    Fair,
    /// With this probability, an outcome that pays the player is drawn again (seeds stay
    /// unrevealed, so nothing but the bets can show it).
    AvoidBets(f64),
    /// Every fourth round that would pay 3x or more is skipped: the operator moves on to
    /// the next nonce (seeds revealed).
    SkipBigWins,
    /// With this probability a round repeats the previous nonce when the previous round
    /// lost (a losing outcome served again).
    ReuseLosingNonce(f64),
    /// With this probability a winning straight-up bet is paid 34:1 instead of 35:1.
    ShavePayouts(f64),
    /// The first seed pair's commitment is of another seed; the second player's second seed
    /// pair reuses the first player's second seed pair (seed and commitment) after the first
    /// player rotated away from it (needs three seed pairs per player).
    BadCommitments,
}

/// One row of a history.
#[derive(Clone, Debug)]
pub struct Row {
    pub player: String,
    pub commitment: String,
    pub server_seed: String,
    pub client_seed: String,
    pub nonce: u64,
    pub draw_order: String,
    pub result: String,
    pub bet: String,
    pub stake: String,
    pub payout: String,
}

/// The history's rows as CSV, `picks` or `bet` as the game's bet column.
pub fn to_csv(game: GameId, rows: &[Row]) -> String {
    let bet = if game == GameId::Keno { "picks" } else { "bet" };
    let mut csv =
        format!("player,commitment,server_seed,client_seed,nonce,draw_order,result,{bet},stake,payout\n");
    for r in rows {
        csv.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{}\n",
            r.player,
            r.commitment,
            r.server_seed,
            r.client_seed,
            r.nonce,
            r.draw_order,
            r.result,
            r.bet,
            r.stake,
            r.payout
        ));
    }
    csv
}

fn draw(game: GameId, words: &mut dyn fairaudit::chain::WordSource) -> Outcome {
    match game {
        GameId::Keno => {
            let mut round = KenoRound::default();
            Keno.draw(words, &mut round);
            Outcome::Keno(round.mask())
        }
        _ => {
            let wheel =
                if game == GameId::RouletteEuropean { Roulette::EUROPEAN } else { Roulette::AMERICAN };
            let mut spin = Spin::default();
            wheel.draw(words, &mut spin);
            Outcome::Roulette(spin.pocket)
        }
    }
}

fn texts(game: GameId, hasher: Option<&RoundHasher>, nonce: u64, outcome: Outcome) -> (String, String) {
    if let Some(hasher) = hasher {
        let (order, result, _) = fairaudit::verify::replay_outcome(game, hasher, nonce);
        return (order, result);
    }
    match outcome {
        Outcome::Keno(mask) => {
            let numbers: Vec<String> =
                (1..=40u8).filter(|n| mask & 1 << n != 0).map(|n| n.to_string()).collect();
            (String::new(), numbers.join(" "))
        }
        Outcome::Roulette(pocket) => (pocket.to_string(), Roulette::label(pocket)),
    }
}

/// A history of `players` players, each playing `pairs` seed pairs of `rounds` rounds,
/// made under `rig`. Seeds are revealed (so every round replays) unless the rig must hide
/// its outcomes from the chain.
pub fn history(game: GameId, seed: u64, players: usize, pairs: usize, rounds: u64, rig: Rig) -> Vec<Row> {
    history_of_bets(game, seed, players, pairs, rounds, rig, (None, None))
}

/// [`history`] with every round on the bet of `fixed` (a roulette bet, or Keno picks) when
/// given, else on bets chosen at random; its stake likewise.
pub fn history_of_bets(
    game: GameId,
    seed: u64,
    players: usize,
    pairs: usize,
    rounds: u64,
    rig: Rig,
    fixed: (Option<&str>, Option<&'static str>),
) -> Vec<Row> {
    let (fixed_bet, stake) = fixed;
    let paytable = Paytable::example();
    let payouts = Payouts::new(game, &paytable).unwrap();
    let wheel = if game == GameId::RouletteAmerican { Wheel::American } else { Wheel::European };
    let mut choice = ChaChaWords::seeded(seed);
    let mut rows = Vec::new();
    for player in 0..players {
        for pair in 0..pairs {
            let reused = rig == Rig::BadCommitments && player == 1 && pair == 1;
            let server =
                if reused { format!("server-{seed}-0-1") } else { format!("server-{seed}-{player}-{pair}") };
            let client = format!("client-{player}-{pair}");
            let mut shown_commitment = commitment(&server);
            if rig == Rig::BadCommitments && player == 0 && pair == 0 {
                shown_commitment = commitment("another seed");
            }
            let hasher = RoundHasher::new(&server, &client);
            let hidden = matches!(rig, Rig::AvoidBets(_));
            let mut nonce = 0u64;
            let mut played = 0u64;
            let mut big_wins = 0u64;
            let mut previous_lost = false;
            while played < rounds {
                let bet_text = match game {
                    _ if fixed_bet.is_some() => fixed_bet.expect("checked").to_owned(),
                    GameId::Keno => {
                        let picks = 1 + choice.below(10) as usize;
                        let mut numbers: Vec<u8> = (1..=40).collect();
                        let mut chosen = Vec::new();
                        for _ in 0..picks {
                            chosen.push(numbers.remove(choice.below(numbers.len() as u32) as usize));
                        }
                        chosen.iter().map(u8::to_string).collect::<Vec<_>>().join(" ")
                    }
                    _ => ROULETTE_BETS[choice.below(ROULETTE_BETS.len() as u32) as usize].to_owned(),
                };
                let bet = match game {
                    GameId::Keno => PlacedBet::parse_keno(&bet_text).unwrap(),
                    _ => PlacedBet::parse_roulette(wheel, &bet_text).unwrap(),
                };
                let stake_text = stake.unwrap_or_else(|| STAKES[choice.below(STAKES.len() as u32) as usize]);
                let stake = Money::parse(stake_text).unwrap();
                if let Rig::ReuseLosingNonce(p) = rig {
                    if previous_lost && nonce > 0 && choice.chance(p) {
                        nonce -= 1;
                    }
                }
                // The operator draws the outcome for this bet at the next nonce; the
                // skipping rig looks at it first and moves on, keeping the bet.
                let (outcome, multiplier) = loop {
                    let mut outcome =
                        if hidden { draw(game, &mut choice) } else { draw(game, &mut hasher.words(nonce)) };
                    if let Rig::AvoidBets(p) = rig {
                        let pays = payouts.multiplier(&bet, outcome).compare(Money::ZERO)
                            == Some(std::cmp::Ordering::Greater);
                        if pays && choice.chance(p) {
                            outcome = draw(game, &mut choice);
                        }
                    }
                    let multiplier = payouts.multiplier(&bet, outcome);
                    if rig == Rig::SkipBigWins
                        && multiplier.compare(Money::whole(3)) != Some(std::cmp::Ordering::Less)
                    {
                        big_wins += 1;
                        if big_wins.is_multiple_of(4) {
                            nonce += 1;
                            continue;
                        }
                    }
                    break (outcome, multiplier);
                };
                let mut payout = stake.times(multiplier).unwrap();
                if let Rig::ShavePayouts(p) = rig {
                    if let PlacedBet::Roulette { pockets, .. } = bet {
                        if pockets.count_ones() == 1 && multiplier == Money::whole(36) && choice.chance(p) {
                            payout = stake.times(Money::whole(35)).unwrap();
                        }
                    }
                }
                let (draw_order, result) = texts(game, (!hidden).then_some(&hasher), nonce, outcome);
                rows.push(Row {
                    player: format!("p{player}"),
                    commitment: shown_commitment.clone(),
                    server_seed: if hidden { String::new() } else { server.clone() },
                    client_seed: client.clone(),
                    nonce,
                    draw_order,
                    result,
                    bet: bet_text,
                    stake: stake_text.to_owned(),
                    payout: payout.to_string(),
                });
                previous_lost = multiplier == Money::ZERO;
                nonce += 1;
                played += 1;
            }
        }
    }
    rows
}

/// A Keno history of the HMAC-SHA256 family (`audit --scheme stake`) of `rounds` rounds of
/// one seed pair, bets of 1 to 10 picks in turn, each of stake 10 paid by the example
/// paytable (`data/keno-paytable-example.csv`).
pub fn stake_keno_history(rounds: u64) -> String {
    use fairaudit::scheme::stake::{self, StakeGame, StakeOutcome};
    let paytable = Paytable::example();
    let server = "keno server seed";
    let commitment = stake::commitment(server);
    let mut rows =
        String::from("game,params,commitment,server_seed,client_seed,nonce,result,bet,stake,payout\n");
    for nonce in 0..rounds {
        let round = stake::replay(&StakeGame::Keno, server, "player seed", nonce);
        let StakeOutcome::Drawn(drawn) = &round.outcome else { unreachable!("keno draws") };
        let picks: Vec<u8> = (0..=(nonce % 10) as u8).map(|i| (i * 4 + (nonce % 4) as u8) % 40 + 1).collect();
        let hits = picks.iter().filter(|p| drawn.contains(p)).count();
        let paid =
            paytable.multiplier(picks.len(), hits) * num_rational::BigRational::from_integer(10.into());
        let bet: Vec<String> = picks.iter().map(u8::to_string).collect();
        rows.push_str(&format!(
            "keno,,{commitment},{server},player seed,{nonce},{},{},10,{}\n",
            round.result,
            bet.join(" "),
            fairaudit::rtp::decimal::format_trimmed(&paid, 12)
        ));
    }
    rows
}
