//! Progress on standard error, one look for every long command (`sweep`, `merge`, `audit`,
//! `verify --rounds`, `stream`): elapsed time, a bar, the share done, the count with its
//! unit, the rate, and the time left when the total is known (a spinner and the count
//! when it is not, e.g. a history read from a pipe).
//!
//! A bar is drawn only on a terminal: it is hidden when standard error is not one (a log
//! file, a pipe, CI) and with `--quiet`, so only the result is printed there. While a bar
//! is shown, [`super::print`] lifts it for every line printed, so lines and bar never mix;
//! it is cleared when the [`Progress`] is dropped, before the result or an error is
//! printed.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// What a bar counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Rounds tallied (`sweep`).
    Rounds,
    /// Bytes read or written (`audit`, `verify --rounds`, `stream`).
    Bytes,
    /// Input folders read (`merge`).
    Inputs,
    /// Links of a crash chain walked (`sweep` of a crash scheme).
    Links,
}

/// How often a visible bar redraws without news: the elapsed time and the spinner keep
/// moving while a slow input or a long merge step reports nothing.
const TICK: Duration = Duration::from_millis(200);

/// The bar of one command; cleared when dropped.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar counting `unit` up to `total` (a spinner without one), on standard error when
    /// it is a terminal and `quiet` is not set, hidden otherwise.
    pub fn new(total: Option<u64>, unit: Unit, quiet: bool) -> Progress {
        let shown = !quiet && std::io::stderr().is_terminal();
        let target = if shown { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
        let bar = ProgressBar::with_draw_target(total, target);
        bar.set_style(style(total.is_some(), unit));
        if shown {
            // Drawn at once, so even a command that ends within a tick shows it.
            bar.tick();
            bar.enable_steady_tick(TICK);
            super::print::lift_for_lines(Some(bar.clone()));
        }
        Progress { bar }
    }

    /// Counts `n` more.
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
    }

    /// A handle on the same bar, for a reader that counts its bytes.
    pub fn handle(&self) -> ProgressBar {
        self.bar.clone()
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        super::print::lift_for_lines(None);
        self.bar.finish_and_clear();
    }
}

/// The one template of every bar: what differs is only the unit's count and rate.
fn style(known_total: bool, unit: Unit) -> ProgressStyle {
    let (count, rate) = match unit {
        Unit::Rounds => ("{human_pos}/{human_len} rounds", "{per_sec:0}"),
        Unit::Bytes => ("{binary_bytes}/{binary_total_bytes}", "{binary_bytes_per_sec}"),
        Unit::Inputs => ("{human_pos}/{human_len} inputs", "{per_sec:1}"),
        Unit::Links => ("{human_pos}/{human_len} links", "{per_sec:0}"),
    };
    let template = if known_total {
        format!("{{elapsed_precise}} [{{bar:30}}] {{percent:>3}}% {count}, {rate}, ETA {{eta}}")
    } else {
        // No total: no bar, share or time left; the count without its total.
        let count = count.split('/').next().expect("non-empty");
        let unit_word = match unit {
            Unit::Rounds => " rounds",
            Unit::Bytes => "",
            Unit::Inputs => " inputs",
            Unit::Links => " links",
        };
        format!("{{elapsed_precise}} {{spinner}} {count}{unit_word}, {rate}")
    };
    ProgressStyle::with_template(&template).expect("valid template").progress_chars("=> ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every unit's template, with and without a total, is one indicatif accepts.
    #[test]
    fn every_template_is_valid() {
        for unit in [Unit::Rounds, Unit::Bytes, Unit::Inputs] {
            for known in [true, false] {
                let _ = style(known, unit);
            }
        }
    }

    /// Off a terminal (the test harness captures stderr) a bar is hidden, and `--quiet`
    /// hides it anywhere.
    #[test]
    fn a_bar_is_hidden_off_a_terminal_and_when_quiet() {
        if !std::io::stderr().is_terminal() {
            assert!(Progress::new(Some(10), Unit::Bytes, false).bar.is_hidden());
        }
        assert!(Progress::new(Some(10), Unit::Bytes, true).bar.is_hidden());
    }
}
