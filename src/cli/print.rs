//! Writing to the terminal without panicking: `println!` panics when standard output is a
//! closed pipe (`fairaudit rtp | head -1`) or a full disk (`> /dev/full`). Every command
//! prints through [`outln!`] instead: a closed pipe quietly ends the printing (the command
//! still writes the files it was asked for, and exits 0, as `ripgrep` does); any other
//! write error is kept and reported once, at the end, as exit status 2.
//!
//! While a progress bar is shown on the terminal, every line is printed with the bar
//! lifted (cleared, the line written, the bar drawn again), so lines and bar never mix.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

static CLOSED: AtomicBool = AtomicBool::new(false);
static FAILED: Mutex<Option<io::Error>> = Mutex::new(None);
static BAR: Mutex<Option<indicatif::ProgressBar>> = Mutex::new(None);

/// The progress bar to lift for each line printed, or none (see [`super::progress`]).
pub fn lift_for_lines(bar: Option<indicatif::ProgressBar>) {
    *BAR.lock().expect("not poisoned") = bar;
}

/// Runs `write` with the shown progress bar, if any, lifted.
fn lifted<R>(write: impl FnOnce() -> R) -> R {
    let bar = BAR.lock().expect("not poisoned").clone();
    match bar {
        Some(bar) => bar.suspend(write),
        None => write(),
    }
}

/// Writes one line to standard output (see the module docs).
pub fn line(args: fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    if let Err(error) = lifted(|| io::stdout().lock().write_fmt(format_args!("{args}\n"))) {
        record(error);
    }
}

/// Writes `data` to standard output as it is (a generated script or page), like [`line`].
pub fn bytes(data: &[u8]) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    if let Err(error) = lifted(|| io::stdout().lock().write_all(data)) {
        record(error);
    }
}

/// Notes a failed write to standard output: a closed pipe ends the printing, anything
/// else is kept for the exit status.
pub fn record(error: io::Error) {
    CLOSED.store(true, Ordering::Relaxed);
    if error.kind() != io::ErrorKind::BrokenPipe {
        FAILED.lock().expect("not poisoned").get_or_insert(error);
    }
}

/// Whether the reader closed standard output (a pipe whose reader is gone).
pub fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed) && FAILED.lock().expect("not poisoned").is_none()
}

/// The first write error other than a closed pipe, if any.
pub fn failure() -> Option<io::Error> {
    if let Err(error) = io::stdout().lock().flush() {
        record(error);
    }
    FAILED.lock().expect("not poisoned").take()
}

/// A line on standard error; failures there are ignored (there is nowhere left to say so).
pub fn note(args: fmt::Arguments<'_>) {
    let _ = lifted(|| writeln!(io::stderr().lock(), "{args}"));
}

/// A path as printed: [`fairaudit::fields::Shown`], so a folder named with an ESC, a BEL or
/// a right-to-left override shows those escaped instead of acting on the terminal.
pub struct ShownPath<'a>(pub &'a std::path::Path);

impl fmt::Display for ShownPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", fairaudit::fields::Shown(&self.0.to_string_lossy()))
    }
}

/// `println!` that neither panics nor loses the exit status (see [`line`]).
macro_rules! outln {
    () => { $crate::cli::print::line(format_args!("")) };
    ($($arg:tt)*) => { $crate::cli::print::line(format_args!($($arg)*)) };
}

/// `eprintln!` that does not panic (see [`note`]).
macro_rules! errln {
    ($($arg:tt)*) => { $crate::cli::print::note(format_args!($($arg)*)) };
}
