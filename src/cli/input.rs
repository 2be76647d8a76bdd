//! Reading input files safely: every CSV a command reads (histories, rounds, paytables,
//! claims) goes through [`open`], which limits a line's length and stops when Ctrl-C or
//! SIGTERM arrives, so neither `/dev/zero` nor an interrupted run can leave the command
//! reading forever or holding half-written files.

use super::progress::{Progress, Unit};
use anyhow::{Context, Result};
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The longest line any input may have: far beyond a real row (a 1000-character seed pair
/// is a few kilobytes), small enough that an endless line is refused at once.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Set by Ctrl-C or SIGTERM (see [`install_stop_handler`]).
pub static STOP: AtomicBool = AtomicBool::new(false);

/// Routes Ctrl-C and SIGTERM to [`STOP`]: long commands then finish what they can, leave
/// no half-written file and exit 130.
pub fn install_stop_handler() -> Result<()> {
    ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst)).context("cannot install the Ctrl-C handler")
}

/// Whether Ctrl-C or SIGTERM arrived.
pub fn stopped() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// The error a guarded reader returns when asked to stop.
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

/// The error a guarded reader returns for an over-long line.
#[derive(Debug, thiserror::Error)]
#[error("a line longer than {MAX_LINE_BYTES} bytes (is this a CSV file?)")]
pub struct LineTooLong;

/// A reader that refuses lines over [`MAX_LINE_BYTES`], stops on [`STOP`], and counts
/// the bytes it reads on a progress bar, if it has one.
pub struct Guarded<R> {
    inner: R,
    line: usize,
    progress: Option<indicatif::ProgressBar>,
}

impl<R: Read> Guarded<R> {
    /// Wraps `inner`.
    pub fn new(inner: R) -> Self {
        Guarded { inner, line: 0, progress: None }
    }
}

impl<R: Read> Read for Guarded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if stopped() {
            return Err(io::Error::other(Interrupted));
        }
        let n = self.inner.read(buf)?;
        if let Some(bar) = &self.progress {
            bar.inc(n as u64);
        }
        for &byte in &buf[..n] {
            if byte == b'\n' {
                self.line = 0;
            } else {
                self.line += 1;
                if self.line > MAX_LINE_BYTES {
                    return Err(io::Error::other(LineTooLong));
                }
            }
        }
        Ok(n)
    }
}

/// Opens `path` (`-` is standard input) behind a [`Guarded`] reader.
pub fn open(path: &Path) -> Result<Guarded<Box<dyn Read>>> {
    let inner: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(path).with_context(|| format!("{}: cannot open", path.display()))?)
    };
    Ok(Guarded::new(inner))
}

/// Opens `path` like [`open`], with a progress bar of the bytes read: out of the file's
/// size when it has one (a file, or standard input redirected from a file), a count
/// without a total otherwise (a pipe). `quiet` hides the bar (see [`super::progress`]).
pub fn open_with_progress(path: &Path, quiet: bool) -> Result<(Guarded<Box<dyn Read>>, Progress)> {
    let mut reader = open(path)?;
    let named = if path.as_os_str() == "-" { Path::new("/dev/stdin") } else { path };
    let size = std::fs::metadata(named).ok().filter(std::fs::Metadata::is_file).map(|m| m.len());
    let progress = Progress::new(size, Unit::Bytes, quiet);
    reader.progress = Some(progress.handle());
    Ok((reader, progress))
}

/// Whether an error chain holds an [`Interrupted`] (then the command exits 130).
pub fn is_interrupted(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<Interrupted>().is_some()
            || cause
                .downcast_ref::<io::Error>()
                .and_then(|io| io.get_ref())
                .is_some_and(|inner| inner.downcast_ref::<Interrupted>().is_some())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_line_is_refused() {
        let mut reader = Guarded::new(io::repeat(b'x'));
        let error = io::copy(&mut reader, &mut io::sink()).unwrap_err();
        assert!(error.to_string().contains("longer than"), "{error}");
        let rows = "a,b\n".repeat(1000);
        let mut ok = Guarded::new(rows.as_bytes());
        assert_eq!(io::copy(&mut ok, &mut io::sink()).unwrap(), 4000);
    }
}
