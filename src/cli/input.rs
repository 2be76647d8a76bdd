//! Reading input files safely: every CSV a command reads (histories, rounds, paytables,
//! claims) goes through [`open`], which limits a line's length and stops when Ctrl-C or
//! SIGTERM arrives, so neither `/dev/zero` nor an interrupted run can leave the command
//! reading forever or holding half-written files.

use super::progress::{Progress, Unit};
use anyhow::{Context, Result};
use std::io::{self, Read, Seek, Write};
use std::os::fd::{AsFd, AsRawFd, RawFd};
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
    ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst))
        .context("cannot start the thread that watches for Ctrl-C and SIGTERM (a process or thread limit?)")
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
    /// The descriptor under `inner`, when known: waited on with `poll` before each read so
    /// that a stop request is seen even while a pipe or terminal sends nothing (a read
    /// blocked on an idle `--rounds -` once outlived SIGTERM, because the signal handler
    /// restarts the read).
    wait_on: Option<RawFd>,
    /// The progress bar counting the bytes read (drawn only on a terminal).
    progress: Option<indicatif::ProgressBar>,
}

/// How often a reader waiting for input looks at [`STOP`].
const STOP_CHECK_MS: i32 = 100;

impl<R: Read> Guarded<R> {
    /// Wraps `inner`.
    #[cfg(test)]
    fn new(inner: R) -> Self {
        Guarded { inner, line: 0, wait_on: None, progress: None }
    }

    /// Wraps `inner`, whose data comes from `fd`, waiting for data in slices of
    /// [`STOP_CHECK_MS`] so that Ctrl-C and SIGTERM interrupt an idle input.
    fn waiting_on(inner: R, fd: RawFd) -> Self {
        Guarded { inner, line: 0, wait_on: Some(fd), progress: None }
    }

    fn wait_for_data(&self) -> io::Result<()> {
        let Some(fd) = self.wait_on else { return Ok(()) };
        loop {
            if stopped() {
                return Err(io::Error::other(Interrupted));
            }
            let mut poll = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
            // SAFETY: one valid pollfd, owned by this frame, for the duration of the call.
            // Ready, hung up or in error: the read below says which. Interrupted by a
            // signal (-1, EINTR): look at STOP again.
            if unsafe { libc::poll(&mut poll, 1, STOP_CHECK_MS) } > 0 {
                return Ok(());
            }
        }
    }
}

impl<R: Read> Read for Guarded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if stopped() {
            return Err(io::Error::other(Interrupted));
        }
        self.wait_for_data()?;
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
    let file = if path.as_os_str() == "-" {
        // A duplicate of descriptor 0 read without `Stdin`'s buffer, so that `poll` sees
        // every byte not yet read (the CSV reader buffers on its own).
        let fd = io::stdin().as_fd().try_clone_to_owned().context("cannot read standard input")?;
        std::fs::File::from(fd)
    } else {
        std::fs::File::open(path).with_context(|| format!("{}: cannot open", path.display()))?
    };
    let fd = file.as_raw_fd();
    Ok(Guarded::waiting_on(Box::new(file), fd))
}

/// A history read twice: the seeds it reveals, then the audit. A regular file is opened
/// again for each pass. Anything else (standard input, a pipe such as
/// `<(zcat bets.csv.gz)`, a FIFO) cannot be, so what the first pass reads of it is kept,
/// and the second pass reads that, then the rest of the stream. The first pass reads only
/// the header of a history that can reveal nothing (no `commitment` or `server_seed`
/// column), so such a history is neither read twice nor copied; one that can is copied as
/// it is read, in memory up to [`SPOOL_IN_MEMORY`] bytes and then in a temporary file,
/// which takes as much disk as the history.
pub struct History {
    path: std::path::PathBuf,
    /// The stream and what the first pass read of it, when the history is not a file.
    piped: Option<Piped>,
}

/// A history that is not a regular file: the stream, and the bytes the first pass read.
struct Piped {
    stream: Guarded<Box<dyn Read>>,
    kept: tempfile::SpooledTempFile,
    /// Whether the first pass read the stream to its end (its length is then known).
    ended: bool,
}

/// The bytes of a piped history kept in memory before they go to a temporary file: a
/// header and the reader's first buffer fit many times over.
pub const SPOOL_IN_MEMORY: usize = 8 << 20;

/// `path` as a [`History`] (`-` is standard input).
pub fn history(path: &Path) -> Result<History> {
    let piped = if path.as_os_str() != "-" && std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        None
    } else {
        let kept = tempfile::spooled_tempfile(SPOOL_IN_MEMORY);
        Some(Piped { stream: open(path)?, kept, ended: false })
    };
    Ok(History { path: path.to_path_buf(), piped })
}

impl History {
    /// The first pass's reader: the file, or the stream with every byte read kept for the
    /// second pass.
    pub fn first_pass(&mut self) -> Result<Box<dyn Read + '_>> {
        Ok(match &mut self.piped {
            None => Box::new(open(&self.path)?),
            Some(piped) => Box::new(Kept { piped }),
        })
    }

    /// The second pass's reader, from the first byte, with a progress bar of the bytes
    /// read (`quiet` hides it): out of the history's size where it is known.
    pub fn second_pass(self, quiet: bool) -> Result<(Guarded<Box<dyn Read>>, Progress)> {
        let Some(mut piped) = self.piped else { return open_with_progress(&self.path, quiet) };
        let length = piped.kept.stream_position().and_then(|length| {
            piped.kept.rewind()?;
            Ok(length)
        });
        let length = length.context("cannot read back the copy of the history kept from its first pass")?;
        let progress = Progress::new(piped.ended.then_some(length), Unit::Bytes, quiet);
        // The stream's own guard waits on its descriptor; this one must not, or reading
        // the kept bytes would wait for the stream.
        let both: Box<dyn Read> = Box::new(piped.kept.chain(piped.stream));
        let mut reader = Guarded { inner: both, line: 0, wait_on: None, progress: None };
        reader.progress = Some(progress.handle());
        Ok((reader, progress))
    }
}

/// The stream of a [`Piped`] history, keeping each byte read.
struct Kept<'a> {
    piped: &'a mut Piped,
}

impl Read for Kept<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.piped.stream.read(buf)?;
        if n == 0 {
            self.piped.ended = true;
        }
        self.piped.kept.write_all(&buf[..n]).map_err(|error| {
            let dir = std::env::temp_dir();
            io::Error::new(
                error.kind(),
                format!(
                    "cannot keep its copy for the second pass in a temporary file in {} (TMPDIR names the folder): {error}",
                    dir.display()
                ),
            )
        })?;
        Ok(n)
    }
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
