//! Writing files the user asked for: never over an existing file without `--force`, and
//! always atomically (a temporary file beside the target, renamed into place when
//! complete), so a half-written file never replaces a good one.

use anyhow::{bail, Context, Result};
use fairaudit::sweep::file::{Plan, TallyFile};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file being written; it appears at its path only when [`AtomicFile::commit`] is called.
pub struct AtomicFile {
    target: PathBuf,
    writer: BufWriter<tempfile::NamedTempFile>,
}

impl AtomicFile {
    /// Starts writing `target`; refuses when it exists and `force` is not set.
    pub fn create(target: &Path, force: bool) -> Result<Self> {
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
        temp.as_file().sync_all()?;
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

/// Whether an output folder may receive this run's files.
///
/// fairaudit only ever writes files it names itself, so other files in the folder are
/// never touched. A folder holding an earlier `tally.json` is reused only when that
/// earlier run had the same plan and finished (re-running a deterministic plan
/// reproduces it), or with `--force`; an interrupted run is never discarded silently.
pub fn check_output_dir(dir: &Path, plan: &Plan, resume: bool, force: bool) -> Result<Option<TallyFile>> {
    let path = dir.join(TALLY_FILE);
    if !path.exists() {
        if resume {
            bail!("{}: nothing to resume (no {TALLY_FILE})", dir.display());
        }
        return Ok(None);
    }
    if force && !resume {
        // Replacing whatever is there: it need not even be readable.
        return Ok(None);
    }
    let existing = read_tally(&path)?;
    if resume {
        if existing.plan != *plan {
            bail!(
                "{}: the interrupted sweep there has a different plan (games, nonces or seed pairs); \
                 resume with the same arguments",
                path.display()
            );
        }
        return Ok(Some(existing));
    }
    if !existing.complete {
        bail!(
            "{} holds an interrupted sweep: pass --resume to continue it, or --force to start over",
            dir.display()
        );
    }
    if existing.plan != *plan {
        bail!(
            "{} holds the output of a different sweep; choose another --out, or pass --force to replace it",
            dir.display()
        );
    }
    Ok(None)
}

/// The tally file's name in an output folder.
pub const TALLY_FILE: &str = "tally.json";

/// Reads and validates a tally file.
pub fn read_tally(path: &Path) -> Result<TallyFile> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    TallyFile::from_bytes(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Writes each (name, bytes) into `dir`, atomically, creating `dir` if needed.
pub fn write_files(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (name, bytes) in files {
        let mut file = AtomicFile::create(&dir.join(name), true)?;
        file.write_all(bytes)?;
        file.commit()?;
    }
    Ok(())
}
