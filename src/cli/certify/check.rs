//! `certify --check DIR`: exactly the listed files, every hash, every verdict and figure
//! recomputed from the copies, the document rendered again and compared byte for byte, and
//! the signature.

use super::document::render;
use super::load::load;
use super::loaded::{at, first_difference, Loaded, Records};
use super::{binary_hash, revision, CertifyArgs};
use crate::cli::input::{self, install_stop_handler, STOP};
use crate::cli::print::ShownPath;
use crate::cli::Verdict;
use anyhow::{anyhow, bail, Context, Result};
use fairaudit::certify::signature::{self, AllowedSigner, SIGNATURE_FILE};
use fairaudit::certify::{
    compare_hashes, compare_verdicts, open_regular, sha256_hex, unlisted_entries, Manifest, Mismatch,
    Unreadable, CERTIFICATE_HTML, CERTIFICATE_PDF, MANIFEST_FILE, MANIFEST_LIMIT,
};
use fairaudit::chain::{KeccakRequest, Kernel};
use fairaudit::fields::Shown;
use fairaudit::sweep::{self, SweepControl, DEFAULT_CHUNK};
use fairaudit::tally::file::{TallyFile, TALLY_FILE};
use std::io::Read;
use std::path::Path;

/// What a check found: its mismatches, what it could not check, what it did not vouch for,
/// and what it did again.
#[derive(Default)]
struct Found {
    mismatches: Vec<Mismatch>,
    unreadable: Vec<Unreadable>,
    /// Files not made again (pinned by hash only), and why: not vouched for.
    unchecked: Vec<String>,
    /// Sweeps beyond `--resweep-limit`, whose verdicts are recomputed from their tallies.
    not_reswept: Vec<String>,
    reswept: u64,
    replayed_games: u64,
}

/// The largest signature file `--check` reads.
const SIGNATURE_LIMIT: u64 = 64 << 10;

/// Re-sweeps a sweep's plan and says whether the tallies come out byte for byte.
pub(super) fn resweep(tallies: &TallyFile, tally_bytes: &[u8]) -> Result<bool> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|error| anyhow!("cannot start {threads} worker threads: {error}"))?;
    let kernel = Kernel::select(KeccakRequest::Auto)?;
    let progress = |_: u64| {};
    let control =
        SweepControl { chunk: DEFAULT_CHUNK, stop: &STOP, progress: &progress, kernel, device: None };
    let mut again = pool.install(|| sweep::run(&tallies.plan, None, &control))?;
    if !again.complete {
        return Err(anyhow::Error::new(input::Interrupted));
    }
    // Which shard of which cut the tallies are (or which shards a partial merge lacks) is
    // a record about the plan, not a count: the pinned file's, checked when it was read.
    // Without it, a certified shard never matched its own re-sweep.
    again.shard = tallies.shard;
    again.partial.clone_from(&tallies.partial);
    Ok(again.to_bytes() == tally_bytes)
}

/// Reads a regular file of at most `limit` bytes; the error says why not.
pub(super) fn read_bounded(path: &Path, limit: u64) -> std::result::Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    open_regular(path)?.take(limit + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read ({e})"))?;
    if bytes.len() as u64 > limit {
        return Err(format!("larger than {limit} bytes"));
    }
    Ok(bytes)
}

/// Whether anything under the dossier, or a history it pins in place, is not a regular
/// file or a folder (`unlisted_entries` names each).
pub(super) fn special_files(dir: &Path, manifest: &Manifest) -> bool {
    pub(super) fn any_special(path: &Path) -> bool {
        let Ok(entries) = std::fs::read_dir(path) else { return true };
        entries.flatten().any(|entry| match entry.file_type() {
            Ok(t) if t.is_dir() => any_special(&entry.path()),
            Ok(t) => !t.is_file(),
            Err(_) => true,
        })
    }
    any_special(dir)
        || manifest
            .histories()
            .any(|a| Path::new(&a.outcomes).is_absolute() && open_regular(Path::new(&a.outcomes)).is_err())
}

/// The signature's part of a check: what to print, and the mismatch when it fails.
pub(super) fn check_signature(
    dir: &Path,
    manifest: &Manifest,
    manifest_bytes: &[u8],
    allowed: Option<&[AllowedSigner]>,
) -> Result<(String, Option<Mismatch>)> {
    let path = dir.join(SIGNATURE_FILE);
    let present = std::fs::symlink_metadata(&path).is_ok();
    let signature = if present {
        Some(read_bounded(&path, SIGNATURE_LIMIT).map_err(|why| anyhow!("{SIGNATURE_FILE}: {why}"))?)
    } else {
        None
    };
    Ok(match (&manifest.signer, signature, allowed) {
        (None, None, None) => ("UNSIGNED: nothing ties this certificate to an auditor; compare the manifest's SHA-256 with the one the auditor published (--expect-manifest)".into(), None),
        (None, None, Some(_)) | (Some(_), None, Some(_)) => (
            "UNSIGNED".into(),
            Some(format!("{SIGNATURE_FILE}: missing, and --allowed-signers asks for a signature")),
        ),
        // The document names the key as the signer's whether or not a signature was ever
        // made (it is rendered before `ssh-keygen -Y sign` runs, and naming a public key
        // takes only a copy of it): without the signature it is not the certificate the
        // manifest describes.
        (Some(s), None, None) => (
            "UNSIGNED".into(),
            Some(format!("{SIGNATURE_FILE}: missing, though the manifest names {}'s key {} as its signer and certificate.html says it is signed (sign it with ssh-keygen -Y sign)", s.identity, s.fingerprint)),
        ),
        (None, Some(_), _) => (
            "signature present, but the manifest names no signer".into(),
            Some(format!("{SIGNATURE_FILE}: the manifest names no signer to check it against")),
        ),
        (Some(s), Some(sig), Some(allowed)) => match signature::verify(&sig, manifest_bytes, allowed, &s.identity) {
            Ok(good) if good.fingerprint == s.fingerprint => {
                (format!("signature: GOOD, by {} with key {}", good.principal, good.fingerprint), None)
            }
            Ok(good) => (
                "signature: BAD".into(),
                Some(format!("{SIGNATURE_FILE}: made with key {}, the manifest names {}", good.fingerprint, s.fingerprint)),
            ),
            Err(why) => ("signature: BAD".into(), Some(format!("{SIGNATURE_FILE}: {why}"))),
        },
        (Some(s), Some(sig), None) => {
            let own = ssh_key::PublicKey::from_openssh(&s.public_key)
                .map_err(|e| anyhow!("{MANIFEST_FILE}: the signer's public key is not readable ({e})"))?;
            let signers = [AllowedSigner { principals: vec![s.identity.clone()], namespaces: None, key: own }];
            match signature::verify(&sig, manifest_bytes, &signers, &s.identity) {
                // The page shows the manifest's fingerprint, not the key's: a forger's key
                // under the auditor's fingerprint verifies, but is not the key shown.
                Ok(good) if good.fingerprint != s.fingerprint => (
                    "signature: BAD".into(),
                    Some(format!("{SIGNATURE_FILE}: made with the key the manifest names, {}, but the manifest and certificate.html show {} as the signer's", good.fingerprint, s.fingerprint)),
                ),
                Ok(good) => (
                    format!("signature: valid for the key the manifest names ({}), which proves nothing about who holds it: pass --allowed-signers FILE with the auditor's published key", good.fingerprint),
                    None,
                ),
                Err(why) => ("signature: BAD".into(), Some(format!("{SIGNATURE_FILE}: {why}"))),
            }
        }
    })
}

/// What an input's dossier copy gives of the count its manifest record states.
pub(super) struct Recorded<'a> {
    /// `rounds`, `rows` or `games`.
    pub(super) unit: &'a str,
    /// Where the count comes from, as a phrase: `its tallies hold`.
    pub(super) holder: &'a str,
    pub(super) count: u64,
}

/// Where the manifest's record of the input in `dir` disagrees with its dossier copy: the
/// count it records against the one `found`, and its command against the copy's run.json.
pub(super) fn record_mismatches(
    dir: &str,
    recorded: u64,
    found: &Recorded,
    recorded_command: &[String],
    command: &[String],
) -> Vec<Mismatch> {
    let mut mismatches = Vec::new();
    if found.count != recorded {
        mismatches.push(format!(
            "{MANIFEST_FILE}: {dir} records {recorded} {}, {} {}",
            found.unit, found.holder, found.count
        ));
    }
    if command != recorded_command {
        mismatches.push(format!("{MANIFEST_FILE}: {dir}'s command differs from its run.json"));
    }
    mismatches
}

pub(super) fn check(dir: &Path, args: &CertifyArgs) -> Result<Verdict> {
    let manifest_path = dir.join(MANIFEST_FILE);
    let bytes = read_bounded(&manifest_path, MANIFEST_LIMIT)
        .map_err(|why| anyhow!("{}: {why} (not a certificate folder?)", manifest_path.display()))?;
    let digest = sha256_hex(&bytes);
    let expected = args
        .expect_manifest
        .as_deref()
        .map(|e| {
            let e = e.trim().to_ascii_lowercase();
            let e = e.strip_prefix("sha256:").unwrap_or(&e).to_owned();
            if e.len() == 64 && e.bytes().all(|b| b.is_ascii_hexdigit()) {
                Ok(e)
            } else {
                Err(anyhow!("--expect-manifest must be a SHA-256 as 64 hex digits"))
            }
        })
        .transpose()?;
    let allowed = match &args.allowed_signers {
        Some(path) => {
            let text =
                read_bounded(path, MANIFEST_LIMIT).map_err(|why| anyhow!("{}: {why}", path.display()))?;
            let text = String::from_utf8(text).map_err(|_| anyhow!("{}: not UTF-8 text", path.display()))?;
            Some(signature::parse_allowed_signers(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?)
        }
        None => None,
    };
    let manifest = Manifest::from_bytes(&bytes).map_err(|e| anyhow!("{}: {e}", manifest_path.display()))?;
    // Bounded before any pattern of the reader's allowed signers is matched against it.
    let identity_problem = manifest.signer.as_ref().and_then(|s| signature::identity_problem(&s.identity));
    if let (Some(problem), Some(_)) = (identity_problem, &allowed) {
        bail!("{}: {problem}", manifest_path.display());
    }
    // A forged manifest must not make the checker hash (and print the hash of) any file of
    // their machine: only a history left out by `certify --no-copy-histories` lies outside
    // the folder, and it is read only where the checker says so.
    if !args.histories_in_place {
        if let Some(outside) = manifest.inputs.iter().find(|f| Path::new(&f.path).is_absolute()) {
            bail!(
                "{}: {} is pinned at an absolute path, outside the certificate folder (a history left out by certify --no-copy-histories); nothing was read: check with --histories-in-place to read it there",
                manifest_path.display(),
                Shown(&outside.path)
            );
        }
    }
    install_stop_handler()?;
    outln!("manifest SHA-256: {digest}");
    let mut found = Found::default();
    if let Some(expected) = &expected {
        if *expected != digest {
            found.mismatches.push(format!("{MANIFEST_FILE}: SHA-256 {digest}, not the expected {expected}"));
        }
    }
    let (signature_line, signature_mismatch) = check_signature(dir, &manifest, &bytes, allowed.as_deref())?;
    found.mismatches.extend(signature_mismatch);

    // Exactly the listed files.
    let mut listed: Vec<&str> = manifest
        .outputs
        .iter()
        .chain(&manifest.inputs)
        .map(|f| f.path.as_str())
        .filter(|p| !Path::new(p).is_absolute())
        .collect();
    listed.push(MANIFEST_FILE);
    if std::fs::symlink_metadata(dir.join(SIGNATURE_FILE)).is_ok() {
        listed.push(SIGNATURE_FILE);
    }
    found.mismatches.extend(unlisted_entries(dir, &listed));
    // A link anywhere in the folder (a linked `inputs/sweep-1` as well as a linked file)
    // could lead a hash out of it: then nothing is hashed, only the links named.
    let special = special_files(dir, &manifest);
    if !special {
        for files in [&manifest.outputs, &manifest.inputs] {
            let (changed, missing) = compare_hashes(files, |p| at(dir, p));
            found.mismatches.extend(changed);
            found.unreadable.extend(missing);
        }
    }
    let files = manifest.outputs.len() + manifest.inputs.len();

    let records = Records {
        sweeps: &manifest.sweeps,
        audits: &manifest.audits,
        chains: &manifest.chains,
        crash_audits: &manifest.crash_audits,
        stake_sweeps: &manifest.stake_sweeps,
        stake_audits: &manifest.stake_audits,
        paytable: manifest.paytable.as_deref(),
        claims: manifest.claims.as_deref(),
        vectors: manifest.vectors.as_deref(),
    };
    // Recompute only from files known to be regular and of their recorded size: a pinned
    // tally replaced by a link to /dev/zero must be refused, not read.
    let loaded = if special {
        Err(anyhow!("the dossier holds special files or links (named above); nothing was read from it"))
    } else if found.unreadable.is_empty() {
        load(dir, &records, manifest.alpha, args.resweep_limit)
    } else {
        Err(anyhow!("pinned files could not be read (named above)"))
    };
    match loaded {
        Err(error) if input::is_interrupted(&error) => return Err(error),
        Err(error) => found.unreadable.push(Unreadable(format!("cannot recompute the verdicts: {error:#}"))),
        Ok(loaded) => compare_loaded(dir, &manifest, &loaded, args.resweep_limit, &mut found)?,
    }
    let pinned = expected.is_some() || allowed.is_some();
    conclude(dir, &manifest, args.resweep_limit, files, pinned, &signature_line, &found)
}

/// What the check prints after comparing, and its verdict: a mismatch is exit 1, a file
/// that could not be read exit 2, a file not made again (not vouched for) exit 3. `pinned`:
/// whether a published manifest hash or a signature anchors the manifest.
fn conclude(
    dir: &Path,
    manifest: &Manifest,
    resweep_limit: u64,
    files: usize,
    pinned: bool,
    signature_line: &str,
    found: &Found,
) -> Result<Verdict> {
    outln!("hashed {files} files; re-swept {} rounds", found.reswept);
    if !manifest.chains.is_empty() {
        outln!("played {} crash games again and walked them to their published games", found.replayed_games);
    }
    if !found.not_reswept.is_empty() {
        outln!(
            "not re-swept (beyond --resweep-limit {}): {}; their verdicts were recomputed from their pinned tallies",
            resweep_limit,
            Shown(&found.not_reswept.join(", "))
        );
    }
    // The print is not made again (Chromium is neither everywhere nor byte-for-byte
    // reproducible): only a manifest pinned by its published hash or a signature vouches
    // for it, so a forger who rewrites the manifest's hash of a rewritten PDF is caught only
    // then. Said, so that nobody trusts the PDF on an unpinned check.
    if !pinned && manifest.outputs.iter().any(|f| f.path == CERTIFICATE_PDF) {
        outln!("note: {CERTIFICATE_PDF} is not rendered again, only hashed against the manifest, which nothing published pins in this check: trust it only with --expect-manifest or --allowed-signers ({CERTIFICATE_HTML} was rendered again)");
    }
    // File names and recorded paths come from the dossier: shown, never acted on by the
    // terminal (an escape sequence in a name could redraw a MISMATCH line as a match).
    for note in &found.unchecked {
        outln!("note: {}", Shown(note));
    }
    if let Ok(binary) = binary_hash() {
        if binary.sha256 != manifest.binary.sha256 {
            outln!(
                "note: checked with another fairaudit binary ({}, SHA-256 {}) than the one that wrote the certificate ({} {})",
                env!("CARGO_PKG_VERSION"),
                &binary.sha256[..16],
                Shown(&manifest.fairaudit_version),
                &manifest.binary.sha256[..16]
            );
        }
    }
    outln!("{}", Shown(signature_line));
    for mismatch in &found.mismatches {
        outln!("MISMATCH {}", Shown(mismatch));
    }
    for Unreadable(why) in &found.unreadable {
        outln!("CANNOT CHECK {}", Shown(why));
    }
    if !found.mismatches.is_empty() {
        outln!("check: {} mismatch(es) in {}", found.mismatches.len(), ShownPath(dir));
        return Ok(Verdict::Finding);
    }
    if !found.unreadable.is_empty() {
        bail!(
            "{}: {} pinned file(s) or figure(s) could not be checked (listed above)",
            dir.display(),
            found.unreadable.len()
        );
    }
    if !found.unchecked.is_empty() {
        // Files pinned by hash only (noted above) are not vouched for: a forger who strips
        // what they were made from may have rewritten them. Not 0, since a gate reading the
        // status alone would take the whole dossier for checked; not 1, since nothing
        // differs.
        outln!(
            "check: every file, hash, figure and verdict of {} that could be made again matches; {} not made again (noted above) and not vouched for",
            ShownPath(dir),
            found.unchecked.len()
        );
        return Ok(Verdict::Insufficient);
    }
    outln!("check: every file, hash, figure and verdict of {} matches", ShownPath(dir));
    Ok(Verdict::Clean)
}

/// The dossier's inputs, loaded again, compared with what the manifest and the folder's
/// copies record: each sweep's, audit's and chain's own files and figures, the re-sweeps
/// (up to `resweep_limit` rounds a sweep), the verdicts and the document rendered again;
/// what differs or could not be read goes into `out`.
fn compare_loaded(
    dir: &Path,
    manifest: &Manifest,
    loaded: &Loaded,
    resweep_limit: u64,
    out: &mut Found,
) -> Result<()> {
    for (sweep, record) in loaded.sweeps.iter().zip(&manifest.sweeps) {
        out.mismatches.extend(sweep.differing.iter().cloned());
        out.unchecked.extend(sweep.unchecked.iter().cloned());
        let rounds = sweep.tallies.rounds();
        let found = Recorded { unit: "rounds", holder: "its tallies hold", count: rounds };
        out.mismatches.extend(record_mismatches(
            &record.dir,
            record.rounds,
            &found,
            &record.command_line,
            &sweep.command_line,
        ));
        if rounds > resweep_limit {
            out.not_reswept.push(format!("{} ({rounds} rounds)", record.source));
            continue;
        }
        let tally_path = at(dir, &record.dir).join(TALLY_FILE);
        let bytes = std::fs::read(&tally_path).with_context(|| format!("{}/{TALLY_FILE}", record.dir))?;
        if !resweep(&sweep.tallies, &bytes)? {
            out.mismatches
                .push(format!("{}/{TALLY_FILE}: re-sweeping its plan gives different tallies", record.dir));
        }
        out.reswept += rounds;
    }
    for (audit, record) in loaded.audits.iter().zip(&manifest.audits) {
        out.mismatches.extend(audit.differing.iter().cloned());
        let found = Recorded { unit: "rows", holder: "its history holds", count: audit.audit.rounds };
        out.mismatches.extend(record_mismatches(
            &record.dir,
            record.rows,
            &found,
            &record.command_line,
            &audit.command_line,
        ));
    }
    for (chain, record) in loaded.chains.iter().zip(&manifest.chains) {
        let games = chain.played.tally.games;
        let found = Recorded { unit: "games", holder: "its chain's range holds", count: games };
        out.mismatches.extend(record_mismatches(
            &record.dir,
            record.games,
            &found,
            &record.command_line,
            &chain.command_line,
        ));
        out.mismatches.extend(chain.differing.iter().cloned());
        out.replayed_games += games;
    }
    for (audit, record) in loaded.crash_audits.iter().zip(&manifest.crash_audits) {
        out.mismatches.extend(audit.differing.iter().cloned());
        let found = Recorded { unit: "rows", holder: "its history holds", count: audit.audit.rows };
        out.mismatches.extend(record_mismatches(
            &record.dir,
            record.rows,
            &found,
            &record.command_line,
            &audit.command_line,
        ));
    }
    for (audit, record) in loaded.stake_audits.iter().zip(&manifest.stake_audits) {
        out.mismatches.extend(audit.differing.iter().cloned());
        let found = Recorded { unit: "rows", holder: "its history holds", count: audit.audit.rows };
        out.mismatches.extend(record_mismatches(
            &record.dir,
            record.rows,
            &found,
            &record.command_line,
            &audit.command_line,
        ));
    }
    for (sweep, record) in loaded.stake_sweeps.iter().zip(&manifest.stake_sweeps) {
        let found = Recorded { unit: "rounds", holder: "its recorded command sweeps", count: sweep.rounds };
        out.mismatches.extend(record_mismatches(
            &record.dir,
            record.rounds,
            &found,
            &record.command_line,
            &sweep.command_line,
        ));
        out.mismatches.extend(sweep.differing.iter().cloned());
        out.reswept += sweep.rounds;
    }
    let recomputed = loaded.conclusions().verdicts();
    out.mismatches.extend(compare_verdicts(MANIFEST_FILE, &manifest.verdicts, &recomputed, true));
    let html = render(manifest, loaded);
    match read_bounded(&dir.join(CERTIFICATE_HTML), MANIFEST_LIMIT) {
        Ok(shown) if shown == html.as_bytes() => {}
        Ok(shown) => out.mismatches.push(format!(
            "certificate.html: differs from the document its pinned inputs give, from line {}{}",
            first_difference(&shown, html.as_bytes()),
            match (&manifest.source_revision, revision()) {
                (Some(theirs), Some(ours)) if *theirs != ours => format!(
                    " (it was written by fairaudit {theirs}, this is {ours}: a document written by another version is checked with that version)"
                ),
                _ => String::new(),
            }
        )),
        Err(why) => out.unreadable.push(Unreadable(format!("certificate.html: {why}"))),
    }
    outln!(
        "recomputed {} verdicts from {} sweep(s), {} bet history(ies), {} crash chain(s) and {} worked rounds; certificate.html rendered again",
        recomputed.len(),
        loaded.sweeps.len() + loaded.stake_sweeps.len(),
        loaded.audits.len() + loaded.crash_audits.len() + loaded.stake_audits.len(),
        loaded.chains.len(),
        loaded.worked.len()
    );
    Ok(())
}
