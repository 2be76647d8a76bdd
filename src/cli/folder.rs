//! Output folders written as a unit: whatever an output folder holds always belongs to one
//! run, even when a run is killed mid-write, and two runs never write one folder at once.
//!
//! A run claims its folder before any work ([`OutputFolder::claim`]): it takes a lock
//! (`.NAME.fairaudit-lock` beside the folder, released when the run ends, however it
//! ends), removes what killed runs left behind, and creates a private staging folder beside
//! the target, which proves the place writable before hours of sweeping. The run's files
//! are written into the staging folder; [`OutputFolder::commit`] then swaps it with the
//! target in one atomic step (`renameat2` with `RENAME_EXCHANGE` on Linux) and removes the
//! old one. Files in the folder that fairaudit did not write (a screenshot, notes) are
//! carried over into the new folder by hard links, so nothing a user put there is lost.
//! A killed run leaves the target as it was, plus a staging folder the next run removes.
//!
//! Which files fairaudit wrote is proved by the records it leaves, never guessed from a
//! name: a `run.json` of format `fairaudit-run` vouches for the files a run writes beside
//! it (`tally.json`, `tests.csv`, ...), and a `manifest.json` of a certificate vouches for
//! the certificate's files and its `inputs/` dossier. Only those, and what this run
//! itself published, are replaced; anything else is carried over, even when named as
//! fairaudit names its outputs (a user's `inputs/history.csv` being audited, a web app's
//! `manifest.json`). Every version of fairaudit that wrote output folders wrote these
//! records, so an older folder is read the same way; one with files named as fairaudit
//! names its outputs but no record (copied by hand, say) is refused without `--force`,
//! and even then only the names the new run writes are replaced. A new record file was
//! the alternative: it would add a file to every folder that certificates, pinned
//! outputs and `reports/` list, for the same proof.
//!
//! Carried over, a file keeps its inode (a hard link: mode, owner and times are its own);
//! a folder or a copied file is made again with the original's mode, owner (where the
//! system allows: as root, or a group the user is in) and access and modification times.
//! The output folder itself keeps its mode and owner; its modification time is the run's,
//! since the run changed what it holds. A new output folder gets the mode the umask gives;
//! the staging folder is private (0700) until it is published.
//!
//! A long run may also publish checkpoints ([`OutputFolder::checkpoint`]): the same swap,
//! made while the run goes on and still holds the lock, so the folder holds either the
//! previous checkpoint or the new one at every instant, never a mix.

use super::print::ShownPath;
use anyhow::{bail, Context, Result};
use fairaudit::certify::{INPUTS_DIR, MANIFEST_FILE, MANIFEST_FORMAT};
use fairaudit::report::run_info::RUN_FORMAT;
use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, FileTimes, Metadata, TryLockError};
use std::io::Read;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Every file name fairaudit writes into an output folder: these are replaced by a run;
/// any other file is the user's and is carried over.
pub const OUR_FILES: &[&str] = &[
    "tally.json",
    "stake_tally.json",
    "run.json",
    "summary.json",
    "tests.csv",
    "rtp.csv",
    "report.html",
    "seed_pairs.csv",
    "outcome_counts.csv",
    "stream.csv",
    "rejections.csv",
    "keno_positions.csv",
    "keno_pairs.csv",
    "keno_hits.csv",
    "keno_overlap.csv",
    "roulette_pairs.csv",
    "roulette_groups.csv",
    "roulette_runs.csv",
    "roulette_gaps.csv",
    "crash_cells.csv",
    "findings.csv",
    "nonce_gaps.csv",
    "challenge.csv",
    "certificate.html",
    "certificate.pdf",
    "manifest.json",
    "manifest.json.sig",
    // The certificate's dossier: a folder, replaced as a whole.
    "inputs",
];

/// The names of [`OUR_FILES`] that only `certify` writes: its `manifest.json` vouches for
/// them, a run's `run.json` does not.
const CERTIFICATE_FILES: &[&str] =
    &["certificate.html", "certificate.pdf", MANIFEST_FILE, "manifest.json.sig", INPUTS_DIR];

/// The record a run leaves: `run.json`.
const RUN_FILE: &str = "run.json";

/// What the target folder held when it was claimed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Existing {
    /// Nothing, or nothing fairaudit wrote or would write over.
    Nothing,
    /// Files of an earlier fairaudit run; `kind` from its `run.json` (`sweep`, `merge`,
    /// `audit`, `conformance`), `certify` for a certificate's manifest, empty when there is
    /// no record but files named as a run names its outputs.
    Run {
        /// The earlier run's kind.
        kind: String,
    },
}

/// A claimed output folder: its lock, and the staging folder its files are written to.
pub struct OutputFolder {
    target: PathBuf,
    staging: PathBuf,
    /// Entries of the target fairaudit can prove it wrote (see the module docs): replaced,
    /// never carried over.
    ours: BTreeSet<OsString>,
    /// The mode the umask gives a new folder: a new target's.
    new_mode: u32,
    committed: bool,
    lock: File,
    lock_path: PathBuf,
}

fn sibling(target: &Path, what: &str) -> Result<PathBuf> {
    let name = target
        .file_name()
        .with_context(|| format!("{}: not a folder name", target.display()))?
        .to_string_lossy()
        .into_owned();
    Ok(parent_of(target).join(format!(".{name}.fairaudit-{what}")))
}

fn parent_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    }
}

impl OutputFolder {
    /// Claims `target` for this run (see the module docs). Refuses a target that is a file,
    /// a place where nothing can be written, and a folder another run is writing.
    pub fn claim(target: &Path) -> Result<(OutputFolder, Existing)> {
        // `link/` and `link/.` name the link's target to the system: look at the link itself.
        let named = match target.file_name() {
            Some(name) => parent_of(target).join(name),
            None => target.to_owned(),
        };
        if fs::symlink_metadata(&named).is_ok_and(|m| m.file_type().is_symlink()) {
            let points_to = fs::canonicalize(target)
                .map_or_else(|_| "nothing that exists".to_owned(), |real| real.display().to_string());
            bail!(
                "{} is a symbolic link (to {points_to}): give the folder itself as --out (a run replaces its folder, which would replace the link)",
                target.display()
            );
        }
        if target.exists() && !target.is_dir() {
            bail!("{} is a file, not a folder: choose another --out", target.display());
        }
        let parent = parent_of(target);
        fs::create_dir_all(&parent).with_context(|| format!("cannot create {}", parent.display()))?;
        // The lock sits beside the folder, in the same directory whatever path names it (a
        // linked parent, `a/../b`): two runs on one folder lock one file. Only a linked
        // `--out` itself would name another lock, and it is refused above.
        let lock_path = sibling(target, "lock")?;
        let lock = take_lock(&lock_path, target, &parent)?;
        Self::remove_leftovers(target)?;
        let staging = sibling(target, &format!("new-{}", std::process::id()))?;
        fs::create_dir(&staging)
            .with_context(|| format!("cannot write in {}: check that it is writable", parent.display()))?;
        // Made by create_dir, the folder has the mode the umask gives: read back rather than
        // from umask(2), which can only be read by setting it, racing other threads.
        let new_mode = fs::metadata(&staging)?.mode() & 0o7777;
        make_private(&staging)?;
        let ours = ours(target);
        let existing = Self::inspect(target, &ours);
        let folder = OutputFolder {
            target: target.to_owned(),
            staging,
            ours,
            new_mode,
            committed: false,
            lock,
            lock_path,
        };
        Ok((folder, existing))
    }

    /// Staging and old folders of runs that were killed: the lock says no run owns them.
    fn remove_leftovers(target: &Path) -> Result<()> {
        let prefix = sibling(target, "")?;
        let prefix = prefix.file_name().expect("a name").to_string_lossy().into_owned();
        let parent = parent_of(target);
        let Ok(entries) = fs::read_dir(&parent) else { return Ok(()) };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let leftover = name
                .strip_prefix(&prefix)
                .is_some_and(|rest| rest.starts_with("new-") || rest.starts_with("old-"));
            if leftover {
                let path = entry.path();
                if !target.exists() && name[prefix.len()..].starts_with("old-") {
                    // Killed between the two renames of the portable swap: the old
                    // folder goes back in place.
                    fs::rename(&path, target)
                        .with_context(|| format!("cannot restore {}", target.display()))?;
                } else {
                    fs::remove_dir_all(&path).with_context(|| format!("cannot remove {}", path.display()))?;
                }
            }
        }
        Ok(())
    }

    fn inspect(target: &Path, ours: &BTreeSet<OsString>) -> Existing {
        if ours.contains(OsStr::new(RUN_FILE)) {
            let run = record(&target.join(RUN_FILE));
            let kind = run.as_ref().and_then(|run| run["kind"].as_str()).unwrap_or_default();
            return Existing::Run { kind: kind.to_owned() };
        }
        if ours.contains(OsStr::new(MANIFEST_FILE)) {
            return Existing::Run { kind: "certify".to_owned() };
        }
        // A run would write over these; a certificate's names only `certify` writes, and
        // it refuses any entry it did not write (its folder holds only its own files).
        match unrecorded(target) {
            Some(_) => Existing::Run { kind: String::new() },
            None => Existing::Nothing,
        }
    }

    /// Refuses, without `force`, a folder that holds an earlier run's files, or files
    /// named as a run names its outputs with no record of a run, saying which.
    pub fn refuse_earlier(&self, existing: &Existing, force: bool) -> Result<()> {
        let dir = ShownPath(&self.target);
        match existing {
            Existing::Run { .. } if force => Ok(()),
            Existing::Nothing => Ok(()),
            Existing::Run { kind } if kind.is_empty() => bail!(
                "{dir} holds {}, named as fairaudit names its outputs but with no run.json of a fairaudit run beside it; choose another --out, or pass --force to replace it",
                unrecorded(&self.target).unwrap_or(RUN_FILE)
            ),
            Existing::Run { kind } => {
                bail!("{dir} holds the output of a fairaudit {kind}; choose another --out, or pass --force to replace it")
            }
        }
    }

    /// Whether fairaudit can prove it wrote the target's entry `name` (see the module docs).
    pub fn is_ours(&self, name: &OsStr) -> bool {
        self.ours.contains(name)
    }

    /// The `run.json` of the earlier run in the folder, when it is there and reads as JSON.
    pub fn earlier_run(&self) -> Option<serde_json::Value> {
        record(&self.target.join(RUN_FILE))
    }

    /// The folder the run's files go to.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Where a file of this run is written before the commit.
    pub fn staged(&self, name: &str) -> PathBuf {
        self.staging.join(name)
    }

    /// Writes one file of the run (into the staging folder).
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let path = self.staged(name);
        fs::write(&path, bytes).with_context(|| format!("cannot write {}", self.target.join(name).display()))
    }

    /// Writes every `(name, bytes)`.
    pub fn write_all(&self, files: &[(String, Vec<u8>)]) -> Result<()> {
        files.iter().try_for_each(|(name, bytes)| self.write(name, bytes))
    }

    /// Makes the run's files the folder's, at once (see the module docs).
    pub fn commit(mut self) -> Result<()> {
        self.publish()?;
        self.committed = true;
        Ok(())
    }

    /// Makes `files` (a checkpoint of the run) the folder's, at once, and keeps the folder
    /// claimed: the run goes on writing its next checkpoint or its final files.
    pub fn checkpoint(&mut self, files: &[(String, Vec<u8>)]) -> Result<()> {
        self.write_all(files)?;
        self.publish()?;
        fs::create_dir(&self.staging)
            .with_context(|| format!("cannot write in {}", parent_of(&self.target).display()))?;
        make_private(&self.staging)
    }

    /// Swaps the staging folder in as the target (see the module docs); the staging path
    /// is then free.
    fn publish(&mut self) -> Result<()> {
        let mut written = BTreeSet::new();
        for entry in fs::read_dir(&self.staging)? {
            let entry = entry?;
            let path = entry.path();
            if path.is_file() {
                File::open(&path)?.sync_all().with_context(|| format!("cannot write {}", path.display()))?;
            }
            written.insert(entry.file_name());
        }
        let target = fs::metadata(&self.target).ok().filter(Metadata::is_dir);
        if target.is_some() {
            for entry in fs::read_dir(&self.target)
                .with_context(|| format!("cannot read {}", self.target.display()))?
            {
                let name = entry?.file_name();
                if self.ours.contains(&name) || written.contains(&name) {
                    continue;
                }
                carry_over(&self.target.join(&name), &self.staging.join(&name))?;
            }
        }
        // The folder stays the user's: its mode and owner as they were (a shared 1777
        // folder stays shared, a 0700 one private); a new one as the umask makes folders.
        match &target {
            Some(old) => {
                keep_owner(&self.staging, old)?;
                set_mode(&self.staging, old.mode())?;
            }
            None => set_mode(&self.staging, self.new_mode)?,
        }
        // What this run published is its own from now on: the next checkpoint replaces it.
        self.ours.extend(written);
        if self.target.exists() {
            swap(&self.staging, &self.target)?;
            // The staging path now holds the old folder, with the mode the user gave `--out`:
            // one without the owner's write bit (0555) is made writable to be emptied.
            #[cfg(unix)]
            if let Ok(meta) = fs::metadata(&self.staging) {
                use std::os::unix::fs::PermissionsExt;
                let mode = meta.permissions().mode();
                if mode & 0o300 != 0o300 {
                    let _ = fs::set_permissions(&self.staging, fs::Permissions::from_mode(mode | 0o700));
                }
            }
            fs::remove_dir_all(&self.staging)
                .with_context(|| format!("cannot remove the old {}", self.target.display()))?;
        } else {
            fs::rename(&self.staging, &self.target)
                .with_context(|| format!("cannot create {}", self.target.display()))?;
        }
        if let Ok(parent) = File::open(parent_of(&self.target)) {
            let _ = parent.sync_all();
        }
        Ok(())
    }
}

impl Drop for OutputFolder {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.staging);
        }
        // Removed while still held, so no lock file is left behind; a run that opened it
        // meanwhile sees it gone and takes a new one ([`take_lock`]).
        let _ = fs::remove_file(&self.lock_path);
        let _ = self.lock.unlock();
    }
}

/// Takes the lock file at `path` for `target`: created if needed, locked without
/// waiting, and checked to still be the file at `path` once locked (a run that ended
/// between our open and our lock removed it; then we take the new one).
fn take_lock(path: &Path, target: &Path, parent: &Path) -> Result<File> {
    for _ in 0..100 {
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .with_context(|| format!("cannot write in {}", parent.display()))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => bail!(
                "another fairaudit run is writing {}: wait for it to finish or choose another --out",
                target.display()
            ),
            Err(TryLockError::Error(error)) => {
                return Err(error).with_context(|| format!("cannot lock {}", path.display()))
            }
        }
        let held = lock.metadata().with_context(|| format!("cannot lock {}", path.display()))?;
        if fs::metadata(path).is_ok_and(|now| now.dev() == held.dev() && now.ino() == held.ino()) {
            return Ok(lock);
        }
    }
    bail!("cannot lock {}: it keeps being replaced", path.display())
}

/// The entries of `target` that fairaudit's records there prove it wrote (see the module
/// docs): with a run's `run.json`, the regular files a run writes; with a certificate's
/// `manifest.json`, the certificate's files and its `inputs/` folder.
fn ours(target: &Path) -> BTreeSet<OsString> {
    let is_format = |name: &str, format: &str| {
        record(&target.join(name)).is_some_and(|record| record["format"].as_str() == Some(format))
    };
    let (run, certificate) = (is_format(RUN_FILE, RUN_FORMAT), is_format(MANIFEST_FILE, MANIFEST_FORMAT));
    OUR_FILES
        .iter()
        .filter(|name| if CERTIFICATE_FILES.contains(name) { certificate } else { run })
        .filter(|name| {
            let wanted_dir = **name == INPUTS_DIR;
            fs::symlink_metadata(target.join(name)).is_ok_and(|m| {
                if wanted_dir {
                    m.is_dir()
                } else {
                    m.is_file()
                }
            })
        })
        .map(OsString::from)
        .collect()
}

/// A record fairaudit may have written (`run.json`, `manifest.json`) read as JSON: none
/// when missing, not JSON, or larger than any record fairaudit writes.
fn record(path: &Path) -> Option<serde_json::Value> {
    const LIMIT: u64 = 64 << 20;
    // A link is no record: `run.json -> elsewhere/run.json` would vouch for a folder no run
    // of ours wrote.
    if !fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut bytes = Vec::new();
    File::open(path).ok()?.take(LIMIT + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > LIMIT {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}

/// The first regular file of `target` named as a run names its outputs, for a folder
/// where no record proves it fairaudit's.
fn unrecorded(target: &Path) -> Option<&'static str> {
    OUR_FILES
        .iter()
        .filter(|name| !CERTIFICATE_FILES.contains(name))
        .find(|name| fs::symlink_metadata(target.join(name)).is_ok_and(|m| m.is_file()))
        .copied()
}

/// Carries a user's file (or folder) over into the new folder without copying its data:
/// a hard link, or a copy where the filesystem has none; either way with its mode, owner
/// and times (see the module docs).
fn carry_over(from: &Path, to: &Path) -> Result<()> {
    let context = || format!("cannot carry over {}", from.display());
    let meta = fs::symlink_metadata(from).with_context(context)?;
    // A link is carried over as the link it is: followed, `loop -> .` would copy the
    // folder into itself until the disk is full.
    if meta.file_type().is_symlink() {
        let points_to = fs::read_link(from).with_context(context)?;
        std::os::unix::fs::symlink(points_to, to).with_context(context)?;
        return keep_owner(to, &meta);
    }
    if meta.is_dir() {
        fs::create_dir(to).with_context(context)?;
        for entry in fs::read_dir(from).with_context(context)? {
            let entry = entry?;
            carry_over(&entry.path(), &to.join(entry.file_name()))?;
        }
    } else if fs::hard_link(from, to).is_ok() {
        // The same inode: its mode, owner and times are the original's.
        return Ok(());
    } else {
        fs::copy(from, to).with_context(context)?;
    }
    restore(to, &meta).with_context(context)
}

/// Gives a folder or file made again the times, owner and mode of the original's `meta`.
fn restore(to: &Path, meta: &Metadata) -> Result<()> {
    // Times first (filling a folder changed its modification time), while the copy is
    // still open to us whatever its mode; then the owner, then the mode, which a change
    // of owner can clear bits of.
    let times = FileTimes::new().set_accessed(meta.accessed()?).set_modified(meta.modified()?);
    File::open(to).and_then(|file| file.set_times(times))?;
    keep_owner(to, meta)?;
    set_mode(to, meta.mode())
}

/// Gives `path` the owner and group of `like`, as far as the system lets this process:
/// root may give any; a user only a group they are in, so a folder of another owner
/// carried over by a user is theirs (and keeps its group where it can).
fn keep_owner(path: &Path, like: &Metadata) -> Result<()> {
    let meta = fs::symlink_metadata(path)?;
    if (meta.uid(), meta.gid()) == (like.uid(), like.gid()) {
        return Ok(());
    }
    let not_permitted = |error: &std::io::Error| error.raw_os_error() == Some(libc::EPERM);
    match std::os::unix::fs::lchown(path, Some(like.uid()), Some(like.gid())) {
        Err(error) if not_permitted(&error) => {
            match std::os::unix::fs::lchown(path, None, Some(like.gid())) {
                Err(error) if not_permitted(&error) => Ok(()),
                done => done,
            }
        }
        done => done,
    }
    .with_context(|| format!("cannot keep the owner of {}", path.display()))
}

/// Sets the permission bits of `path` (sticky, set-group-ID and the rest included).
fn set_mode(path: &Path, mode: u32) -> Result<()> {
    fs::set_permissions(path, fs::Permissions::from_mode(mode & 0o7777))
        .with_context(|| format!("cannot set the mode of {}", path.display()))
}

/// Keeps a staging folder to this user until it is published with the folder's own mode.
fn make_private(staging: &Path) -> Result<()> {
    set_mode(staging, 0o700)
}

/// Exchanges two folders atomically (Linux), or with two renames elsewhere (a kill between
/// them is repaired by the next run's [`OutputFolder::claim`]).
fn swap(staging: &Path, target: &Path) -> Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::ffi::CString;
        use std::os::unix::ffi::OsStrExt;
        let a = CString::new(staging.as_os_str().as_bytes())?;
        let b = CString::new(target.as_os_str().as_bytes())?;
        // SAFETY: both pointers are valid NUL-terminated paths for the duration of the call;
        // renameat2 reads them and touches no other memory of ours.
        let done = unsafe {
            libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE)
        };
        if done == 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        // Filesystems without RENAME_EXCHANGE fall back to the portable swap.
        if error.raw_os_error() != Some(libc::EINVAL) && error.raw_os_error() != Some(libc::ENOSYS) {
            return Err(error).with_context(|| format!("cannot replace {}", target.display()));
        }
    }
    let old = sibling(target, &format!("old-{}", std::process::id()))?;
    fs::rename(target, &old).with_context(|| format!("cannot replace {}", target.display()))?;
    fs::rename(staging, target).with_context(|| format!("cannot replace {}", target.display()))?;
    fs::rename(&old, staging)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    /// A `run.json` as a run of `kind` leaves it: the record that proves the run's files.
    fn run_record(target: &Path, kind: &str) {
        let run = serde_json::json!({ "format": RUN_FORMAT, "kind": kind });
        fs::write(target.join(RUN_FILE), run.to_string()).unwrap();
    }

    #[test]
    fn a_commit_replaces_our_files_and_keeps_the_users() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("report.html"), "old run").unwrap();
        fs::write(target.join("notes.txt"), "mine").unwrap();
        run_record(&target, "sweep");
        let (folder, existing) = OutputFolder::claim(&target).unwrap();
        assert_eq!(existing, Existing::Run { kind: "sweep".into() });
        folder.write("tally.json", b"new run").unwrap();
        folder.commit().unwrap();
        assert_eq!(fs::read_to_string(target.join("tally.json")).unwrap(), "new run");
        assert!(!target.join("report.html").exists(), "the old run's files are gone");
        assert_eq!(fs::read_to_string(target.join("notes.txt")).unwrap(), "mine");
        let leftovers = fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().contains("fairaudit-new"));
        assert_eq!(leftovers.count(), 0);
    }

    #[test]
    fn an_abandoned_run_leaves_the_folder_as_it_was_and_a_second_writer_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("tests.csv"), "kept").unwrap();
        let (folder, _) = OutputFolder::claim(&target).unwrap();
        folder.write("tests.csv", b"half").unwrap();
        let second = OutputFolder::claim(&target).err().unwrap().to_string();
        assert!(second.contains("another fairaudit run is writing"), "{second}");
        drop(folder);
        assert_eq!(fs::read_to_string(target.join("tests.csv")).unwrap(), "kept");
        assert!(OutputFolder::claim(&target).is_ok(), "the lock is released");
    }

    #[test]
    fn checkpoints_replace_the_folder_whole_and_the_run_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("notes.txt"), "mine").unwrap();
        fs::write(target.join("report.html"), "an older run").unwrap();
        run_record(&target, "sweep");
        let (mut folder, _) = OutputFolder::claim(&target).unwrap();
        for step in ["first", "second"] {
            folder.checkpoint(&[("tally.json".into(), step.as_bytes().to_vec())]).unwrap();
            assert_eq!(fs::read_to_string(target.join("tally.json")).unwrap(), step);
            assert!(!target.join("report.html").exists(), "nothing of the older run is left");
            assert_eq!(fs::read_to_string(target.join("notes.txt")).unwrap(), "mine");
            assert!(OutputFolder::claim(&target).is_err(), "still claimed between checkpoints");
        }
        folder.write("tally.json", b"final").unwrap();
        folder.write("report.html", b"final report").unwrap();
        folder.commit().unwrap();
        assert_eq!(fs::read_to_string(target.join("tally.json")).unwrap(), "final");
        assert_eq!(fs::read_to_string(target.join("notes.txt")).unwrap(), "mine");
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            !names.iter().any(|n| n.contains("fairaudit-new") || n.contains("fairaudit-old")),
            "{names:?}"
        );
    }

    #[test]
    fn a_file_as_target_is_refused_before_any_work() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain");
        fs::write(&file, "x").unwrap();
        assert!(OutputFolder::claim(&file).err().unwrap().to_string().contains("is a file"));
    }

    /// Issue 59, case 7: `inputs` and `manifest.json` are names fairaudit gives its own
    /// files, so a run deleted a user's `inputs/` (the history being audited) and
    /// `manifest.json`, and refused the folder as "the output of an earlier run". Only
    /// what fairaudit's records prove it wrote is replaced now.
    #[test]
    fn a_users_inputs_folder_and_manifest_are_carried_over_not_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        fs::create_dir_all(target.join("inputs")).unwrap();
        fs::write(target.join("inputs/history.csv"), "result\n17\n").unwrap();
        fs::write(target.join("manifest.json"), r#"{"name": "my web app"}"#).unwrap();
        let (folder, existing) = OutputFolder::claim(&target).unwrap();
        assert_eq!(existing, Existing::Nothing, "nothing fairaudit wrote is there");
        assert!(folder.refuse_earlier(&existing, false).is_ok());
        assert!(!folder.is_ours(OsStr::new("inputs")) && !folder.is_ours(OsStr::new("manifest.json")));
        folder.write("findings.csv", b"first").unwrap();
        folder
            .write(
                RUN_FILE,
                &serde_json::to_vec(&serde_json::json!({ "format": RUN_FORMAT, "kind": "audit" })).unwrap(),
            )
            .unwrap();
        folder.commit().unwrap();
        // Again, over the audit's own files: they are replaced, the user's are not.
        let (folder, existing) = OutputFolder::claim(&target).unwrap();
        assert_eq!(existing, Existing::Run { kind: "audit".into() });
        folder.write("tests.csv", b"second").unwrap();
        folder.commit().unwrap();
        assert!(!target.join("findings.csv").exists(), "the earlier audit's file is replaced");
        assert_eq!(fs::read_to_string(target.join("inputs/history.csv")).unwrap(), "result\n17\n");
        assert_eq!(fs::read_to_string(target.join("manifest.json")).unwrap(), r#"{"name": "my web app"}"#);
    }

    #[test]
    fn a_certificates_own_dossier_is_replaced_by_the_next_certificate() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("cert");
        fs::create_dir_all(target.join("inputs/sweep-1")).unwrap();
        fs::write(target.join("inputs/sweep-1/tally.json"), "old").unwrap();
        fs::write(target.join("certificate.html"), "old").unwrap();
        let manifest = serde_json::json!({ "format": MANIFEST_FORMAT });
        fs::write(target.join(MANIFEST_FILE), manifest.to_string()).unwrap();
        let (folder, existing) = OutputFolder::claim(&target).unwrap();
        assert_eq!(existing, Existing::Run { kind: "certify".into() });
        assert!(folder.is_ours(OsStr::new("inputs")));
        fs::create_dir(folder.staged("inputs")).unwrap();
        folder.write("inputs/audit-1.csv", b"new").unwrap();
        folder.write("certificate.html", b"new").unwrap();
        folder.commit().unwrap();
        assert!(!target.join("inputs/sweep-1").exists(), "the old dossier is replaced whole");
        assert!(!target.join(MANIFEST_FILE).exists(), "the old manifest is gone with its certificate");
        assert_eq!(fs::read_to_string(target.join("inputs/audit-1.csv")).unwrap(), "new");
    }

    #[test]
    fn files_named_as_ours_with_no_record_are_refused_by_name_and_never_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("stream.csv"), "mine").unwrap();
        let (folder, existing) = OutputFolder::claim(&target).unwrap();
        assert_eq!(existing, Existing::Run { kind: String::new() });
        let refusal = folder.refuse_earlier(&existing, false).unwrap_err().to_string();
        assert!(refusal.contains("holds stream.csv, named as fairaudit names its outputs"), "{refusal}");
        assert!(!refusal.contains("earlier run"), "{refusal}");
        folder.write("tally.json", b"new").unwrap();
        folder.commit().unwrap();
        assert_eq!(fs::read_to_string(target.join("stream.csv")).unwrap(), "mine", "not written over: kept");
    }

    /// Review of case 7: a `run.json` that is a link vouched for the folder it sits in, so
    /// a user's `stream.csv` beside a link to another folder's record counted as ours.
    #[test]
    fn a_linked_record_vouches_for_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        fs::write(elsewhere.join("run.json"), r#"{"format":"fairaudit-run","kind":"sweep"}"#).unwrap();
        let target = dir.path().join("out");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("stream.csv"), "mine").unwrap();
        std::os::unix::fs::symlink(elsewhere.join("run.json"), target.join("run.json")).unwrap();
        let (folder, existing) = OutputFolder::claim(&target).unwrap();
        let refusal = folder.refuse_earlier(&existing, false).unwrap_err().to_string();
        assert!(refusal.contains("holds stream.csv, named as fairaudit names its outputs"), "{refusal}");
    }

    fn mode(path: &Path) -> u32 {
        fs::symlink_metadata(path).unwrap().mode() & 0o7777
    }

    fn set_times(path: &Path, at: SystemTime) {
        let times = FileTimes::new().set_accessed(at).set_modified(at);
        File::open(path).unwrap().set_times(times).unwrap();
    }

    /// Issue 59, case 8: a carried-over 0700 folder came back 0755 with new times, a shared
    /// 1777 `--out` became 0755, and a 0700 `--out` became world-readable.
    #[test]
    fn carried_over_folders_and_the_out_folder_keep_their_mode_owner_and_times() {
        let dir = tempfile::tempdir().unwrap();
        let past = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        for out_mode in [0o1777, 0o700, 0o2750] {
            let target = dir.path().join(format!("out-{out_mode:o}"));
            let private = target.join("private");
            fs::create_dir_all(private.join("deeper")).unwrap();
            fs::write(private.join("deeper/notes.txt"), "mine").unwrap();
            set_mode(&private.join("deeper"), 0o750).unwrap();
            set_times(&private.join("deeper"), past);
            set_mode(&private, 0o700).unwrap();
            set_times(&private, past);
            set_mode(&target, out_mode).unwrap();
            // As root, owners other than ours are kept too.
            let root = euid() == 0;
            if root {
                std::os::unix::fs::lchown(&private, Some(4321), Some(4322)).unwrap();
            }
            let before = fs::metadata(&private).unwrap();
            let (folder, _) = OutputFolder::claim(&target).unwrap();
            folder.write("tally.json", b"run").unwrap();
            folder.commit().unwrap();
            assert_eq!(mode(&target), out_mode, "the --out folder's own mode");
            assert_eq!(mode(&private), 0o700);
            assert_eq!(mode(&private.join("deeper")), 0o750);
            let after = fs::metadata(&private).unwrap();
            assert_eq!(after.modified().unwrap(), past, "a folder carried over keeps its times");
            assert_eq!(fs::metadata(private.join("deeper")).unwrap().modified().unwrap(), past);
            assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
            assert_eq!(fs::read_to_string(private.join("deeper/notes.txt")).unwrap(), "mine");
        }
    }

    #[test]
    fn a_new_out_folder_gets_the_umasks_mode_and_a_copy_keeps_its_times() {
        let dir = tempfile::tempdir().unwrap();
        let made = dir.path().join("made by create_dir");
        fs::create_dir(&made).unwrap();
        let target = dir.path().join("out");
        let (folder, _) = OutputFolder::claim(&target).unwrap();
        assert_eq!(mode(&folder.staging), 0o700, "private while the run writes");
        folder.write("tally.json", b"run").unwrap();
        folder.commit().unwrap();
        assert_eq!(mode(&target), mode(&made));
        // A file that cannot be linked (a copy) keeps its mode and times as a link would.
        let past = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let from = target.join("notes.txt");
        fs::write(&from, "mine").unwrap();
        set_mode(&from, 0o640).unwrap();
        set_times(&from, past);
        let to = dir.path().join("copy");
        fs::copy(&from, &to).unwrap();
        restore(&to, &fs::metadata(&from).unwrap()).unwrap();
        assert_eq!((mode(&to), fs::metadata(&to).unwrap().modified().unwrap()), (0o640, past));
    }

    /// The effective user: the owner of the files this process creates.
    fn euid() -> u32 {
        fs::metadata("/proc/self").map_or(u32::MAX, |m| m.uid())
    }
}
