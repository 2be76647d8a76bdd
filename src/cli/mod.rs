//! The command-line layer: clap definitions, dispatch, and the only place that prints or
//! chooses an exit status.
//!
//! Exit status, for every command: 0 = everything checked out; 1 = a fairness finding
//! (a mismatch, a failed test or claim); 2 = usage or input error; 3 = nothing found, but
//! not everything judged (a battery that cannot judge some game's outcomes at its size,
//! and no row checked; a rounds file with no rounds; a claims file with no claim about the
//! games shown);
//! 130 = interrupted.

#[macro_use]
mod print;
mod args;
mod audit;
mod audit_crash;
mod audit_output;
mod audit_stake;
mod battery;
mod certify;
mod clock;
mod conformance;
mod folder;
mod input;
mod manual;
mod memory;
mod merge;
mod merge_stake;
mod output;
mod progress;
mod resume;
mod rtp;
mod shards;
mod stream;
mod sweep;
mod sweep_crash;
mod sweep_stake;
mod verify;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// What `fairaudit --version` prints after the name: the version and the source revision
/// the binary was built from (see `build.rs`), as `run.json` records them.
const VERSION_LINE: &str = concat!(env!("CARGO_PKG_VERSION"), " (rev ", env!("FAIRAUDIT_REVISION"), ")");

/// Audits provably-fair Keno and Roulette: reproduces rounds bit for bit from the seeds.
#[derive(Debug, Parser)]
#[command(name = "fairaudit", version = VERSION_LINE, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Sweep nonce ranges of every game in parallel and tally outcomes (the main job).
    Sweep(args::SweepArgs),
    /// Combine the output folders of sweeps over disjoint nonce ranges (shards).
    Merge(args::MergeArgs),
    /// Recompute one round, or check a whole bet history, against the provably-fair chain.
    Verify(verify::VerifyArgs),
    /// Run the statistical battery on outcomes recorded elsewhere (an operator's logs).
    Audit(args::AuditArgs),
    /// Exact RTP of every bet type, and the operator's published claims checked against it.
    Rtp(rtp::RtpArgs),
    /// Write the raw SHAKE256 output of consecutive rounds to stdout, as binary, for
    /// dieharder and PractRand.
    Stream(stream::StreamArgs),
    /// Write the conformance challenge: rounds aimed at every edge of the chain, for
    /// another implementation to fill and `verify --rounds` to judge.
    Conformance(conformance::ConformanceArgs),
    /// Write the audit certificate of sweeps and audited bet histories (HTML, PDF,
    /// manifest), or re-check one with --check DIR.
    Certify(certify::CertifyArgs),
    /// Print the shell completion script for bash, zsh, fish, powershell or elvish.
    Completions(manual::CompletionsArgs),
    /// Print the man page fairaudit(1), or write it and one page per command to a folder.
    Man(manual::ManArgs),
}

/// What a command concluded, when it ran to the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Everything checked out (exit 0).
    Clean,
    /// Something that matters for fairness was found (exit 1).
    Finding,
    /// Nothing was found, but not everything was judged: no test of some game's outcomes
    /// can fail at the run's size and no row was checked (exit 3). Not 0, because a CI gate that
    /// reads only the exit status would take a run that judged nothing for a PASS; not 1,
    /// because nothing was found.
    Insufficient,
    /// Stopped by Ctrl-C or SIGTERM after saving what was done (exit 130).
    Interrupted,
}

/// Parses the arguments, runs the command and maps the result to an exit status.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            // --help and --version: clap prints them to stdout.
            let _ = error.print();
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            // Usage errors get one line, like every other input error.
            let rendered = error.render().to_string();
            let message: Vec<&str> =
                rendered.lines().take_while(|line| !line.trim().is_empty()).map(str::trim).collect();
            // A value clap quotes raw (a `--delimiter $'\r'`) is shown escaped.
            errln!("{} (see 'fairaudit --help')", fairaudit::fields::Shown(&message.join(" ")));
            return ExitCode::from(2);
        }
    };
    if stdout_is_closed() {
        // Rust discards writes to a closed descriptor silently: say so instead of exiting
        // 0 with nothing written.
        errln!("error: standard output is closed: nothing this command prints could be read");
        return ExitCode::from(2);
    }
    if let Err(error) = clock::read_environment() {
        errln!("error: {}", fairaudit::fields::Shown(&format!("{error:#}")));
        return ExitCode::from(2);
    }
    let outcome = match cli.command {
        Command::Sweep(args) => sweep::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Audit(args) => audit::run(args),
        Command::Rtp(args) => rtp::run(args),
        Command::Stream(args) => stream::run(args),
        Command::Conformance(args) => conformance::run(args),
        Command::Certify(args) => certify::run(args),
        Command::Completions(args) => manual::completions(args),
        Command::Man(args) => manual::man(args),
    };
    if let Some(error) = print::failure() {
        errln!("error: cannot write to standard output: {error}");
        return ExitCode::from(2);
    }
    match outcome {
        Ok(_) if print::closed() => ExitCode::SUCCESS,
        Ok(Verdict::Clean) => ExitCode::SUCCESS,
        Ok(Verdict::Finding) => ExitCode::from(1),
        Ok(Verdict::Insufficient) => ExitCode::from(3),
        Ok(Verdict::Interrupted) => ExitCode::from(130),
        Err(error) if input::is_interrupted(&error) => {
            errln!("interrupted: nothing was written");
            ExitCode::from(130)
        }
        Err(error) => {
            // One line, and nothing in it (a file name, a cell) a terminal acts on.
            let message = format!("{error:#}").replace(['\n', '\r'], " ");
            errln!("error: {}", fairaudit::fields::Shown(&message));
            ExitCode::from(2)
        }
    }
}

/// Whether file descriptor 1 was closed when the process started (`fairaudit ... >&-`).
fn stdout_is_closed() -> bool {
    STDOUT_CLOSED_AT_START.load(std::sync::atomic::Ordering::Relaxed)
}

/// Set before `main` by [`CHECK_STDOUT_AT_START`].
static STDOUT_CLOSED_AT_START: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Rust's runtime reopens a closed standard descriptor on `/dev/null` before `main` runs,
/// so by then `>&-` looks like `> /dev/null` and every write "succeeds". The check has to
/// run earlier: a function in `.init_array`, which the loader calls before the runtime's
/// start-up. Written by hand because it is three lines; the `ctor` crate would do the same
/// with a macro.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static CHECK_STDOUT_AT_START: extern "C" fn() = {
    extern "C" fn check() {
        // SAFETY: fcntl with F_GETFD only reads the descriptor's flags; any fd number is
        // a valid argument, and a closed one returns -1 with EBADF.
        let closed = unsafe { libc::fcntl(1, libc::F_GETFD) } == -1;
        STDOUT_CLOSED_AT_START.store(closed, std::sync::atomic::Ordering::Relaxed);
    }
    check
};
