//! The `fairaudit` binary: parse the command line, run, map the outcome to an exit status.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
