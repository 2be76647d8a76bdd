//! Printing a battery's verdict on the terminal, the same for every command.

use super::Verdict;
use fairaudit::fields::Shown;
use fairaudit::stats::battery::{p_value_text, Battery, TestResult, Verdict as TestVerdict};

/// The battery's counts in one sentence (the terminal's first line about it; the HTML
/// report shows the same counts).
pub fn counts_line<G: PartialEq>(battery: &Battery<G>) -> String {
    let counts = battery.counts();
    format!(
        "battery at alpha {}: {} tests, {} PASS, {} WEAK, {} FAIL, {} INSUFFICIENT: {}",
        battery.alpha,
        battery.results.len(),
        counts.pass,
        counts.weak,
        counts.fail,
        counts.insufficient,
        battery.overall().as_str()
    )
}

/// Prints the battery's verdict line, every FAIL and WEAK test, and the INSUFFICIENT tests
/// grouped by name (one line per test and game, however many groups); with several rows
/// per test, a count of PASS and INSUFFICIENT per test name. `groups` names what the rows
/// are (seed pairs, players); and when the battery is INSUFFICIENT, why (it judges nothing,
/// or which games it does not judge). Returns the verdict: a finding when a test FAILs,
/// insufficient when some game's outcomes no test can judge at this size, else clean.
pub fn print_battery<G: Copy + Ord + std::fmt::Display>(battery: &Battery<G>, groups: &str) -> Verdict {
    outln!("{}", counts_line(battery));
    let by_test = battery.counts_by_test();
    if by_test.values().any(|c| c.pass + c.weak + c.fail + c.insufficient > 1) {
        outln!("  per test: PASS / INSUFFICIENT of its rows ({groups}, all, across)");
        for ((game, test), c) in &by_test {
            outln!("    {:<18} {:<44} {:>6} / {}", game.to_string(), test, c.pass, c.insufficient);
        }
    }
    for result in
        battery.results.iter().filter(|r| matches!(r.verdict, TestVerdict::Fail | TestVerdict::Weak))
    {
        // Seed-pair labels and notes name players: shown, not acted on.
        let which = format!("{} {} {}", result.game, Shown(&result.seed_pair), result.outcome.test);
        let p = result.outcome.p_value.unwrap_or(f64::NAN);
        // A row without an adjusted p is one seed pair's (or player's), beside the `all` row
        // that carries the game's verdict: a diagnostic, outside Holm's adjustment.
        let adjusted = match result.adjusted_p {
            Some(adjusted) => format!("adjusted {}", p_value_text(adjusted)),
            None => "not adjusted (a diagnostic row; the game's verdict is its all row's)".to_owned(),
        };
        outln!(
            "  {:<12} {which}: p {}, {adjusted} ({})",
            result.verdict.as_str(),
            p_value_text(p),
            Shown(&result.outcome.note)
        );
    }
    let mut insufficient: Vec<(&TestResult<G>, usize)> = Vec::new();
    for result in battery.results.iter().filter(|r| r.verdict == TestVerdict::Insufficient) {
        match insufficient
            .iter_mut()
            .find(|(first, _)| first.game == result.game && first.outcome.test == result.outcome.test)
        {
            Some((_, count)) => *count += 1,
            None => insufficient.push((result, 1)),
        }
    }
    for (first, count) in insufficient {
        let which = format!("{} {} {}", first.game, Shown(&first.seed_pair), first.outcome.test);
        let more =
            if count > 1 { format!(" (and {} more rows of this test)", count - 1) } else { String::new() };
        outln!("  {:<12} {which}: {}{more}", "INSUFFICIENT", Shown(&first.outcome.note));
    }
    let judgement = battery.judgement();
    match judgement.verdict {
        TestVerdict::Fail => Verdict::Finding,
        TestVerdict::Insufficient => {
            let reason = judgement.insufficient_reason().unwrap_or_default();
            outln!("  {reason} (not a PASS): more rounds are needed");
            Verdict::Insufficient
        }
        _ => Verdict::Clean,
    }
}
