//! The audit certificate's library side: what a certificate pins and what `certify
//! --check` compares. A certificate records the SHA-256 of every input and output file
//! ([`FileHash`]), the exact commands, and every verdict it states under a stable key
//! ([`RecordedVerdict`]); a check recomputes the hashes and the verdicts from the inputs
//! and names each one that differs ([`compare_hashes`], [`compare_verdicts`]). The worked
//! recomputations of single rounds are in [`worked`]. The document itself is written by
//! `report::certificate`; reading files, running Chromium and printing are the CLI's.

pub mod worked;

use crate::audit::Audit;
use crate::games::GameId;
use crate::results::RunResults;
use crate::rtp::claims::ClaimVerdict;
use crate::stats::battery::{Battery, Verdict};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;
use worked::WorkedRound;

/// The `format` field of `manifest.json`.
pub const MANIFEST_FORMAT: &str = "fairaudit-certificate-manifest";

/// The manifest's file name in a certificate folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// A file and its SHA-256.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileHash {
    /// The path as the certificate names it (relative to the working directory for
    /// inputs, to the certificate folder for outputs).
    pub path: String,
    /// Lowercase hex SHA-256 of the file's bytes.
    pub sha256: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// SHA-256 of a byte string, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 and size of everything `input` yields, read in blocks (a bet history may be
/// gigabytes).
pub fn sha256_of(mut input: impl Read) -> std::io::Result<(String, u64)> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = input.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        total += n as u64;
    }
    Ok((hex(&hasher.finalize()), total))
}

/// The hash of the file at `path`, named `name`.
pub fn hash_file(path: &Path, name: String) -> std::io::Result<FileHash> {
    let (sha256, bytes) = sha256_of(std::fs::File::open(path)?)?;
    Ok(FileHash { path: name, sha256, bytes })
}

/// One verdict a certificate states, under a key that names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedVerdict {
    /// What is judged, e.g. `sweep 1 battery`, `claim roulette-american rtp 97%`.
    pub key: String,
    /// The verdict as the certificate writes it (`PASS`, `HOLDS`, `DOES NOT HOLD`, …).
    pub verdict: String,
}

/// A sweep the certificate covers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepRecord {
    /// The sweep's output folder, as given.
    pub dir: String,
    /// The command that made it, from its `run.json` (empty when it recorded none).
    pub command_line: Vec<String>,
    /// Rounds tallied.
    pub rounds: u64,
}

/// An audited bet history the certificate covers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// The audit's output folder, as given.
    pub dir: String,
    /// The command that made it, from its `run.json`.
    pub command_line: Vec<String>,
    /// The bet history it read.
    pub outcomes: String,
    /// Rows read.
    pub rows: u64,
}

/// `manifest.json`: everything a certificate rests on, pinned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`MANIFEST_FORMAT`].
    pub format: String,
    /// Format version, 1.
    pub version: u32,
    /// fairaudit's version.
    pub fairaudit_version: String,
    /// The git commit fairaudit was built from (`-dirty` with uncommitted source
    /// changes), when known.
    pub source_revision: Option<String>,
    /// The fairaudit binary that wrote the certificate.
    pub binary: FileHash,
    /// When the certificate was written (RFC 3339, UTC).
    pub created_at: String,
    /// The operator certified.
    pub operator: String,
    /// The `certify` command, as typed (arguments after the program name).
    pub command_line: Vec<String>,
    /// Level of the statistical battery.
    pub alpha: f64,
    /// Paper size of the print style (`A4` or `Letter`).
    pub paper: String,
    /// The Keno paytable file, or none (the illustrative example).
    pub paytable: Option<String>,
    /// The claims file, or none (the built-in SPEC §6 claims).
    pub claims: Option<String>,
    /// The folder of the reference vectors.
    pub vectors: String,
    /// The sweeps covered.
    pub sweeps: Vec<SweepRecord>,
    /// The bet histories covered.
    pub audits: Vec<AuditRecord>,
    /// Every input file.
    pub inputs: Vec<FileHash>,
    /// Every output file but this manifest (which cannot hold its own hash).
    pub outputs: Vec<FileHash>,
    /// Pages of `certificate.pdf`, when it was rendered.
    pub pdf_pages: Option<usize>,
    /// Every verdict the certificate states.
    pub verdicts: Vec<RecordedVerdict>,
}

impl Manifest {
    /// Pretty JSON with a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("the manifest serialises");
        bytes.push(b'\n');
        bytes
    }

    /// Reads a manifest, refusing another file's JSON.
    pub fn from_bytes(bytes: &[u8]) -> Result<Manifest, String> {
        let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
        if value.get("format").and_then(|f| f.as_str()) != Some(MANIFEST_FORMAT) {
            return Err(format!(
                "not a fairaudit certificate manifest (no \"format\": \"{MANIFEST_FORMAT}\")"
            ));
        }
        serde_json::from_value(value).map_err(|e| format!("malformed: {e}"))
    }
}

/// The verdict key of a sweep's battery.
pub fn battery_key(kind: &str, index: usize) -> String {
    format!("{kind} {index} battery")
}

/// The verdict key of one test of a battery.
pub fn test_key(kind: &str, index: usize, game: GameId, group: &str, test: &str) -> String {
    format!("{kind} {index} {game} {group} {test}")
}

/// The verdict key of a claim.
pub fn claim_key(verdict: &ClaimVerdict) -> String {
    format!("claim {} rtp {}%", verdict.claim.game, verdict.claim.figure_text)
}

/// The verdict key of an audit's row checks.
pub fn rows_key(index: usize) -> String {
    format!("audit {index} rows")
}

/// The verdict key of a worked recomputation.
pub fn worked_key(index: usize) -> String {
    format!("worked round {index}")
}

/// The key of the certificate's overall verdict.
pub const OVERALL_KEY: &str = "certificate";

/// A claim's verdict as the certificate writes it.
pub fn claim_text(verdict: &ClaimVerdict) -> &'static str {
    if verdict.holds() {
        "HOLDS"
    } else {
        "DOES NOT HOLD"
    }
}

/// An audit's row checks as the certificate writes them.
pub fn rows_text(audit: &Audit) -> &'static str {
    if audit.findings.iter().any(|(_, n)| *n > 0) {
        "FINDINGS"
    } else {
        "CLEAN"
    }
}

/// A worked recomputation's verdict.
pub fn worked_text(round: &WorkedRound) -> &'static str {
    if round.matches() {
        "MATCHES"
    } else {
        "DIFFERS"
    }
}

/// An audit as a certificate states it: the history, its row checks and its battery.
pub struct AuditPart<'a> {
    /// What the audit found.
    pub audit: &'a Audit,
    /// Its battery.
    pub battery: &'a Battery,
}

/// Everything a certificate concludes, computed from its inputs.
pub struct Conclusions<'a> {
    /// Each sweep's results.
    pub sweeps: Vec<&'a RunResults>,
    /// Each audit.
    pub audits: Vec<AuditPart<'a>>,
    /// The claims about the games in scope, judged against the exact RTP.
    pub claims: &'a [ClaimVerdict],
    /// The worked recomputations.
    pub worked: &'a [WorkedRound],
}

impl Conclusions<'_> {
    /// Whether anything is a fairness finding: a battery that FAILs, a claim that does not
    /// hold, an audit row check that failed, a worked round that differs from its vector.
    pub fn has_finding(&self) -> bool {
        self.sweeps.iter().any(|r| r.battery.overall() == Verdict::Fail)
            || self
                .audits
                .iter()
                .any(|a| a.battery.overall() == Verdict::Fail || rows_text(a.audit) != "CLEAN")
            || self.claims.iter().any(|c| !c.holds())
            || self.worked.iter().any(|w| !w.matches())
    }

    /// The overall verdict: `PASS`, or `FINDINGS`.
    pub fn overall(&self) -> &'static str {
        if self.has_finding() {
            "FINDINGS"
        } else {
            "PASS"
        }
    }

    /// Every verdict the certificate states, keyed.
    pub fn verdicts(&self) -> Vec<RecordedVerdict> {
        let mut out = vec![RecordedVerdict { key: OVERALL_KEY.into(), verdict: self.overall().into() }];
        let mut battery = |kind: &str, index: usize, battery: &Battery| {
            out.push(RecordedVerdict {
                key: battery_key(kind, index),
                verdict: battery.overall().as_str().into(),
            });
            for r in &battery.results {
                out.push(RecordedVerdict {
                    key: test_key(kind, index, r.game, &r.seed_pair, &r.outcome.test),
                    verdict: r.verdict.as_str().into(),
                });
            }
        };
        for (i, results) in self.sweeps.iter().enumerate() {
            battery("sweep", i + 1, &results.battery);
        }
        for (i, part) in self.audits.iter().enumerate() {
            battery("audit", i + 1, part.battery);
        }
        for (i, part) in self.audits.iter().enumerate() {
            out.push(RecordedVerdict { key: rows_key(i + 1), verdict: rows_text(part.audit).into() });
        }
        for claim in self.claims {
            out.push(RecordedVerdict { key: claim_key(claim), verdict: claim_text(claim).into() });
        }
        for (i, round) in self.worked.iter().enumerate() {
            out.push(RecordedVerdict { key: worked_key(i + 1), verdict: worked_text(round).into() });
        }
        out
    }
}

/// One difference a check found, named.
pub type Mismatch = String;

/// Each file whose bytes no longer hash to the recorded SHA-256, or that is gone.
/// `resolve` turns a recorded path into the file to read.
pub fn compare_hashes(files: &[FileHash], resolve: impl Fn(&str) -> std::path::PathBuf) -> Vec<Mismatch> {
    let mut mismatches = Vec::new();
    for file in files {
        let path = resolve(&file.path);
        match std::fs::File::open(&path).and_then(sha256_of) {
            Ok((sha256, _)) if sha256 == file.sha256 => {}
            Ok((sha256, bytes)) => mismatches.push(format!(
                "{}: SHA-256 {sha256} ({bytes} bytes) differs from the recorded {} ({} bytes)",
                file.path, file.sha256, file.bytes
            )),
            Err(error) => mismatches.push(format!("{}: cannot read ({error})", file.path)),
        }
    }
    mismatches
}

/// Each verdict of `stated` (named by `where_`) that differs from `recomputed` or that
/// the recomputation does not know, and each recomputed verdict `stated` lacks when
/// `complete` (the manifest states every verdict; the document only those it shows).
pub fn compare_verdicts(
    where_: &str,
    stated: &[RecordedVerdict],
    recomputed: &[RecordedVerdict],
    complete: bool,
) -> Vec<Mismatch> {
    let mut mismatches = Vec::new();
    for s in stated {
        match recomputed.iter().find(|r| r.key == s.key) {
            Some(r) if r.verdict == s.verdict => {}
            Some(r) => mismatches
                .push(format!("{where_}: verdict '{}' reads {}, recomputed {}", s.key, s.verdict, r.verdict)),
            None => mismatches
                .push(format!("{where_}: verdict '{}' ({}) is not one the inputs give", s.key, s.verdict)),
        }
    }
    if complete {
        for r in recomputed {
            if !stated.iter().any(|s| s.key == r.key) {
                mismatches.push(format!("{where_}: verdict '{}' ({}) is missing", r.key, r.verdict));
            }
        }
    }
    mismatches
}

/// Pages of a PDF as Chromium writes it: one `/Type /Page` dictionary per page (the page
/// tree's nodes are `/Type /Pages`). Counted by hand because a PDF library for one count
/// would be a large dependency; the CI step cross-checks the count with `pdfinfo` where it
/// exists.
pub fn pdf_page_count(pdf: &[u8]) -> usize {
    let needle = b"/Type /Page";
    pdf.windows(needle.len() + 1)
        .filter(|w| &w[..needle.len()] == needle && !w[needle.len()].is_ascii_alphanumeric())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_the_fips_example() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(sha256_of(&b"abc"[..]).unwrap(), (sha256_hex(b"abc"), 3));
    }

    #[test]
    fn a_changed_file_and_a_missing_one_are_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.csv"), "1,2\n").unwrap();
        let recorded = vec![
            hash_file(&dir.path().join("a.csv"), "a.csv".into()).unwrap(),
            FileHash { path: "gone.csv".into(), sha256: sha256_hex(b""), bytes: 0 },
        ];
        assert!(compare_hashes(&recorded, |p| dir.path().join(p)).iter().any(|m| m.starts_with("gone.csv")));
        assert_eq!(compare_hashes(&recorded[..1], |p| dir.path().join(p)), Vec::<String>::new());
        std::fs::write(dir.path().join("a.csv"), "1,3\n").unwrap();
        let found = compare_hashes(&recorded[..1], |p| dir.path().join(p));
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with("a.csv: SHA-256"), "{found:?}");
    }

    #[test]
    fn a_changed_verdict_is_named_and_a_missing_one_only_where_all_are_stated() {
        let v = |key: &str, verdict: &str| RecordedVerdict { key: key.into(), verdict: verdict.into() };
        let recomputed = [v("sweep 1 battery", "PASS"), v("claim keno rtp 99%", "DOES NOT HOLD")];
        let stated = [v("sweep 1 battery", "PASS"), v("claim keno rtp 99%", "HOLDS")];
        let found = compare_verdicts("manifest.json", &stated, &recomputed, true);
        assert_eq!(
            found,
            ["manifest.json: verdict 'claim keno rtp 99%' reads HOLDS, recomputed DOES NOT HOLD"]
        );
        assert!(compare_verdicts("certificate.html", &stated[..1], &recomputed, false).is_empty());
        assert_eq!(compare_verdicts("manifest.json", &stated[..1], &recomputed, true).len(), 1);
    }

    #[test]
    fn pages_are_counted_without_the_page_tree() {
        let pdf = b"<< /Type /Pages /Kids [3 0 R 4 0 R] >> << /Type /Page /Parent 2 0 R >> << /Type /Page/Parent 2 0 R >>";
        assert_eq!(pdf_page_count(pdf), 2);
    }

    #[test]
    fn a_manifest_round_trips_and_another_json_is_refused() {
        let file = FileHash { path: "x".into(), sha256: sha256_hex(b"x"), bytes: 1 };
        let manifest = Manifest {
            format: MANIFEST_FORMAT.into(),
            version: 1,
            fairaudit_version: "0.1.0".into(),
            source_revision: None,
            binary: file.clone(),
            created_at: "2026-12-01T00:00:00Z".into(),
            operator: "op".into(),
            command_line: vec!["certify".into()],
            alpha: 0.01,
            paper: "A4".into(),
            paytable: None,
            claims: None,
            vectors: "../shared/vectors".into(),
            sweeps: vec![],
            audits: vec![],
            inputs: vec![file.clone()],
            outputs: vec![file],
            pdf_pages: Some(3),
            verdicts: vec![],
        };
        assert_eq!(Manifest::from_bytes(&manifest.to_bytes()).unwrap(), manifest);
        assert!(Manifest::from_bytes(b"{\"format\":\"fairaudit-run\"}")
            .unwrap_err()
            .contains("not a fairaudit"));
    }
}
