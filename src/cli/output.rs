//! Writing files the user asked for: never over an existing file without `--force`, and
//! always atomically (a temporary file beside the target, renamed into place when
//! complete), so a half-written file never replaces a good one.

use anyhow::{bail, Context, Result};
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

/// Neutralises text that came from a user before it goes into a CSV cell, so a spreadsheet
/// does not run it as a formula: a leading `=`, `+`, `-`, `@`, tab or carriage return gets
/// a `'` in front (the OWASP recommendation). JSON output keeps the exact value.
pub fn spreadsheet_safe(text: &str) -> std::borrow::Cow<'_, str> {
    match text.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{text}").into(),
        _ => text.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_neutralised_and_plain_text_is_not() {
        assert_eq!(spreadsheet_safe("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(spreadsheet_safe("-1"), "'-1");
        assert_eq!(spreadsheet_safe("abc"), "abc");
        assert_eq!(spreadsheet_safe(""), "");
    }
}
