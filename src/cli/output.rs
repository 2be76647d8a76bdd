//! Writing one file the user named (`verify --out FILE`): never over an existing file
//! without `--force`, and always atomically (a temporary file beside the target, renamed
//! into place when complete), so a half-written file never replaces a good one. Folders
//! of several files are written as a unit by [`super::folder`].

use anyhow::{bail, Context, Result};
use fairaudit::tally::file::TallyFile;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file being written; it appears at its path only when [`AtomicFile::commit`] is called.
/// Dropped without a commit (an error, Ctrl-C), its temporary file is removed.
pub struct AtomicFile {
    target: PathBuf,
    writer: BufWriter<tempfile::NamedTempFile>,
}

impl AtomicFile {
    /// Starts writing `target`; refuses when it exists and `force` is not set, and checks
    /// that the place is writable before any work.
    pub fn create(target: &Path, force: bool) -> Result<Self> {
        if target.is_dir() {
            bail!("{} is a folder, not a file", target.display());
        }
        if target.exists() && !force {
            bail!(
                "{} already exists; refusing to overwrite it (pass --force to replace it)",
                target.display()
            );
        }
        let dir = match target.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(".fairaudit-")
            .tempfile_in(dir)
            .with_context(|| format!("cannot create a file in {}", dir.display()))?;
        Ok(Self { target: target.to_owned(), writer: BufWriter::new(temp) })
    }

    /// Flushes and renames the finished file into place.
    pub fn commit(self) -> Result<()> {
        let temp = self.writer.into_inner().map_err(|e| e.into_error())?;
        // Temporary files are created private (0600); a result file is for sharing.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            temp.as_file().set_permissions(std::fs::Permissions::from_mode(0o644))?;
        }
        temp.as_file().sync_all().with_context(|| format!("cannot write {}", self.target.display()))?;
        temp.persist(&self.target).with_context(|| format!("cannot write {}", self.target.display()))?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush()
    }
}

/// The largest tally file read: far above any real sweep's (a Keno tally of 10,000 seed
/// pairs is about 300 MB), far below what would exhaust memory.
pub const TALLY_LIMIT: u64 = 4 << 30;

/// Reads and validates a tally file: a regular file (a link to one is followed; a FIFO,
/// a device such as `/dev/zero` or a folder is refused at once) of at most
/// [`TALLY_LIMIT`] bytes.
pub fn read_tally(path: &Path) -> Result<TallyFile> {
    let bytes = read_regular(path, TALLY_LIMIT).with_context(|| path.display().to_string())?;
    TallyFile::from_bytes(&bytes).with_context(|| path.display().to_string())
}

/// Reads a regular file of at most `limit` bytes. It is opened without blocking (a FIFO
/// with no writer would wait forever) and its kind checked on the open descriptor, so
/// nothing can swap it between the check and the read.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .context("cannot read")?;
    let metadata = file.metadata().context("cannot read")?;
    if !metadata.is_file() {
        anyhow::bail!("not a regular file");
    }
    if metadata.len() > limit {
        anyhow::bail!("larger than {limit} bytes: not a tally this version writes");
    }
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).context("cannot read")?;
    if bytes.len() as u64 > limit {
        anyhow::bail!("larger than {limit} bytes: not a tally this version writes");
    }
    Ok(bytes)
}
