//! The audit certificate's library side: what a certificate pins and what `certify
//! --check` compares. A certificate records the SHA-256 of every input and output file
//! ([`FileHash`]), the exact commands, and every verdict it states under a stable key
//! ([`RecordedVerdict`]); a check recomputes the hashes and the verdicts from the inputs
//! and names each one that differs ([`compare_hashes`], [`compare_verdicts`]). The worked
//! recomputations of single rounds are in [`worked`]. The document itself is written by
//! `report::certificate`; reading files, running Chromium and printing are the CLI's.

pub mod signature;
pub mod worked;

use crate::audit::crash::CrashAudit;
use crate::audit::stake::StakeAudit;
use crate::audit::Audit;
use crate::games::GameId;
use crate::results::RunResults;
use crate::rtp::claims::ClaimVerdict;
use crate::scheme::stake::StakeGame;
use crate::scheme::worked::RoundSteps;
use crate::stats::battery::{Battery, Verdict};
use crate::stats::crash::CrashGame;
use crate::sweep::crash::ChainLink;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;
use worked::WorkedRound;

/// The `format` field of `manifest.json`.
pub const MANIFEST_FORMAT: &str = "fairaudit-certificate-manifest";

/// The manifest's file name in a certificate folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The manifest format this fairaudit writes and checks: 2, the relocatable dossier
/// (every path relative to the certificate folder, the inputs copied into `inputs/`).
pub const MANIFEST_VERSION: u32 = 2;

/// The folder of a certificate that holds copies of its inputs.
pub const INPUTS_DIR: &str = "inputs";

/// The largest manifest `--check` reads (a real one is a few hundred kilobytes).
pub const MANIFEST_LIMIT: u64 = 64 << 20;

/// A file and its SHA-256.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileHash {
    /// The path as the certificate names it: relative to the certificate folder (a bet
    /// history left out of the dossier keeps the absolute path it was read from).
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
    /// Its copy in the dossier, relative to the certificate folder.
    pub dir: String,
    /// The sweep's output folder, as given to `certify` (shown, not read again).
    pub source: String,
    /// The command that made it, from its `run.json` (empty when it recorded none).
    pub command_line: Vec<String>,
    /// Rounds tallied.
    pub rounds: u64,
    /// The sweep's own Keno paytable file (its `--paytable`) in the dossier, when its
    /// command named one: its rtp.csv and report.html are made again with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paytable: Option<String>,
    /// The sweep's own claims file (its `--claims`) in the dossier, likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claims: Option<String>,
}

/// An audited bet history the certificate covers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// Its copy in the dossier, relative to the certificate folder.
    pub dir: String,
    /// The audit's output folder, as given to `certify` (shown, not read again).
    pub source: String,
    /// The command that made it, from its `run.json`.
    pub command_line: Vec<String>,
    /// The bet history it read, as its `run.json` names it (shown).
    pub outcomes_source: String,
    /// The bet history in the dossier, relative to the certificate folder, or the
    /// absolute path it was read from when `certify --no-copy-histories` left it out.
    pub outcomes: String,
    /// The audit's paytable file in the dossier, when it had one.
    pub paytable: Option<String>,
    /// The audit's `--columns` mapping file in the dossier, when it had one.
    pub columns: Option<String>,
    /// Rows read.
    pub rows: u64,
}

/// A sweep of a crash chain the certificate covers (`sweep --scheme bustabit-v1|roobet`):
/// its recorded command names the chain, which `certify` and `--check` play again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChainRecord {
    /// Its copy in the dossier, relative to the certificate folder.
    pub dir: String,
    /// The sweep's output folder, as given to `certify` (shown, not read again).
    pub source: String,
    /// The command that made it, from its `run.json`.
    pub command_line: Vec<String>,
    /// Games played.
    pub games: u64,
}

/// `manifest.json`: everything a certificate rests on, pinned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`MANIFEST_FORMAT`].
    pub format: String,
    /// Format version, [`MANIFEST_VERSION`].
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
    /// The auditor who signs, as the certificate names them.
    pub auditor: Option<String>,
    /// The key that signs manifest.json, when the certificate is to be signed.
    pub signer: Option<Signer>,
    /// Sweeps of more rounds than this are not re-swept by `--check` (the certificate
    /// says which).
    pub resweep_limit: u64,
    /// The `certify` command, as typed (arguments after the program name).
    pub command_line: Vec<String>,
    /// Level of the statistical battery.
    pub alpha: f64,
    /// Paper size of the print style (`A4` or `Letter`).
    pub paper: String,
    /// The Keno paytable file in the dossier, or none (the illustrative example).
    pub paytable: Option<String>,
    /// The claims file in the dossier, or none (the built-in claims).
    pub claims: Option<String>,
    /// The folder of the reference vectors in the dossier; none when the certificate covers
    /// only crash chains (the vectors are rounds of the default scheme's games).
    pub vectors: Option<String>,
    /// The sweeps covered.
    pub sweeps: Vec<SweepRecord>,
    /// The bet histories covered.
    pub audits: Vec<AuditRecord>,
    /// The crash chains covered (absent from certificates written before chains could be).
    #[serde(default)]
    pub chains: Vec<ChainRecord>,
    /// The bet histories of crash games covered (`audit --scheme bustabit-v1|roobet`).
    #[serde(default)]
    pub crash_audits: Vec<AuditRecord>,
    /// The sweeps of the HMAC-SHA256 family covered (`sweep --scheme stake`): each is swept
    /// again from its recorded command, by `certify` and by `--check`.
    #[serde(default)]
    pub stake_sweeps: Vec<SweepRecord>,
    /// The bet histories of the HMAC-SHA256 family covered (`audit --scheme stake`).
    #[serde(default)]
    pub stake_audits: Vec<AuditRecord>,
    /// Every input file.
    pub inputs: Vec<FileHash>,
    /// Every output file but this manifest (which cannot hold its own hash).
    pub outputs: Vec<FileHash>,
    /// Pages of `certificate.pdf`, when it was rendered.
    pub pdf_pages: Option<usize>,
    /// Every verdict the certificate states.
    pub verdicts: Vec<RecordedVerdict>,
}

/// Who signs a certificate: the identity an allowed-signers file lists and the public key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signer {
    /// The principal `ssh-keygen -Y verify -I` checks (no spaces).
    pub identity: String,
    /// The public key, OpenSSH format (`ssh-ed25519 AAAA…`).
    pub public_key: String,
    /// Its SHA-256 fingerprint (`SHA256:…`).
    pub fingerprint: String,
}

impl Manifest {
    /// Pretty JSON with a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("the manifest serialises");
        bytes.push(b'\n');
        bytes
    }

    /// Reads a manifest, refusing another file's JSON, another version's, and values no
    /// certificate holds (a level outside (0, 1), a hash that is not 64 hex digits, a path
    /// that leaves the certificate folder).
    pub fn from_bytes(bytes: &[u8]) -> Result<Manifest, String> {
        let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
        if value.get("format").and_then(|f| f.as_str()) != Some(MANIFEST_FORMAT) {
            return Err(format!(
                "not a fairaudit certificate manifest (no \"format\": \"{MANIFEST_FORMAT}\")"
            ));
        }
        let version = value.get("version").and_then(|v| v.as_u64());
        if version != Some(u64::from(MANIFEST_VERSION)) {
            return Err(format!(
                "manifest version {} is not {MANIFEST_VERSION}, the one this fairaudit checks (version 1 certificates named their inputs where they lay; write the certificate again)",
                version.map_or_else(|| "(none)".to_owned(), |v| v.to_string())
            ));
        }
        let manifest: Manifest = serde_json::from_value(value).map_err(|e| format!("malformed: {e}"))?;
        manifest.validate()?;
        Ok(manifest)
    }

    /// Every bet history covered, of every scheme.
    pub fn histories(&self) -> impl Iterator<Item = &AuditRecord> {
        self.audits.iter().chain(&self.crash_audits).chain(&self.stake_audits)
    }

    fn validate(&self) -> Result<(), String> {
        if let Some(problem) =
            self.signer.as_ref().and_then(|s| signature::identity_text_problem(&s.identity))
        {
            return Err(problem);
        }
        if !(self.alpha >= crate::stats::battery::MIN_ALPHA && self.alpha < 1.0) {
            return Err(format!(
                "alpha {} is not a level between {:e} and 1",
                self.alpha,
                crate::stats::battery::MIN_ALPHA
            ));
        }
        if !["A4", "Letter"].contains(&self.paper.as_str()) {
            return Err(format!("paper '{}' is not A4 or Letter", crate::fields::Excerpt(&self.paper)));
        }
        let hashes = self.inputs.iter().chain(&self.outputs).chain(std::iter::once(&self.binary));
        for file in hashes {
            if file.sha256.len() != 64 || !file.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(format!("{}: recorded SHA-256 is not 64 hex digits", file.path));
            }
        }
        let history = |p: &str| self.histories().any(|a| a.outcomes == p);
        for file in self.inputs.iter().chain(&self.outputs) {
            if !(inside(&file.path) || history(&file.path) && Path::new(&file.path).is_absolute()) {
                return Err(format!("{}: a pinned path must lie inside the certificate folder", file.path));
            }
        }
        let named = self.input_dirs().chain(self.vectors.iter()).chain(self.named_files());
        for path in named {
            if !inside(path) {
                return Err(format!("{path}: a recorded input must lie inside the certificate folder"));
            }
        }
        if self.sweeps.is_empty()
            && self.audits.is_empty()
            && self.chains.is_empty()
            && self.crash_audits.is_empty()
            && self.stake_sweeps.is_empty()
            && self.stake_audits.is_empty()
        {
            return Err("it certifies nothing: no sweep, bet history or crash chain".into());
        }
        // Each input's folder is the one `certify` names it, so no two records can name
        // one folder (not even spelt apart, `inputs/./sweep-1`).
        let kinds: [(&str, Vec<&str>); 6] = [
            ("sweep", self.sweeps.iter().map(|s| s.dir.as_str()).collect()),
            ("audit", self.audits.iter().map(|a| a.dir.as_str()).collect()),
            ("chain", self.chains.iter().map(|c| c.dir.as_str()).collect()),
            ("crash-audit", self.crash_audits.iter().map(|a| a.dir.as_str()).collect()),
            ("stake-sweep", self.stake_sweeps.iter().map(|s| s.dir.as_str()).collect()),
            ("stake-audit", self.stake_audits.iter().map(|a| a.dir.as_str()).collect()),
        ];
        for (kind, dirs) in kinds {
            for (i, dir) in dirs.into_iter().enumerate() {
                let expected = format!("{INPUTS_DIR}/{kind}-{}", i + 1);
                if dir != expected {
                    return Err(format!(
                        "{dir}: recorded as the folder of an input, where certify writes {expected}"
                    ));
                }
            }
        }
        // Every file a record names is pinned, and a history copied is its own record's.
        let pinned = |path: &str| self.inputs.iter().any(|f| f.path == path);
        for h in self.histories() {
            let own = Path::new(&h.outcomes).is_absolute()
                || h.outcomes.starts_with(&format!("{}/history/", h.dir));
            if !own || !pinned(&h.outcomes) {
                return Err(format!(
                    "{}: the history of {} is not a file the manifest pins in its folder",
                    h.outcomes, h.dir
                ));
            }
        }
        for path in self.named_files() {
            if !pinned(path) {
                return Err(format!("{path}: a recorded input the manifest does not pin"));
            }
        }
        self.validate_accounted()
    }

    /// Every file the manifest pins is one its check accounts for, so that nothing can sit
    /// in a dossier looking certified: an output is `certificate.html` or
    /// `certificate.pdf` (once each; the HTML always), and an input either lies at the top
    /// of an input's folder (where the check compares the folder's names with what that
    /// input writes) or is a file a record names (a paytable, claims, a column mapping, a
    /// history, the two vector files).
    fn validate_accounted(&self) -> Result<(), String> {
        let outputs: Vec<&str> = self.outputs.iter().map(|f| f.path.as_str()).collect();
        let once = |name: &str| outputs.iter().filter(|&&p| p == name).count() == 1;
        if !once(CERTIFICATE_HTML)
            || outputs.iter().any(|&p| p != CERTIFICATE_HTML && p != CERTIFICATE_PDF)
            || outputs.iter().filter(|&&p| p == CERTIFICATE_PDF).count() > 1
        {
            // A forged manifest may list thousands: the first few name the problem.
            const SHOWN: usize = 4;
            let more = outputs.len().saturating_sub(SHOWN);
            let shown: Vec<String> =
                outputs.iter().take(SHOWN).map(|p| crate::fields::Excerpt(p).to_string()).collect();
            return Err(format!(
                "its outputs are {}{}: a certificate's are {CERTIFICATE_HTML} and, when rendered, {CERTIFICATE_PDF}",
                shown.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() }
            ));
        }
        let dirs: Vec<&str> = self.input_dirs().map(String::as_str).collect();
        let at_top = |path: &str| {
            dirs.iter().any(|dir| {
                path.strip_prefix(dir)
                    .and_then(|rest| rest.strip_prefix('/'))
                    .is_some_and(|name| !name.is_empty() && !name.contains('/'))
            })
        };
        // The vectors are where certify copies them, and only where the check reads them
        // (for the default scheme's sweeps and histories): elsewhere two files named as
        // vectors could sit anywhere in the dossier, read by nothing.
        let default_scheme = !self.sweeps.is_empty() || !self.audits.is_empty();
        if self.vectors != default_scheme.then(|| format!("{INPUTS_DIR}/vectors")) {
            return Err(format!(
                "its vectors are {}: a certificate holds them in {INPUTS_DIR}/vectors exactly when it covers sweeps or bet histories of the default scheme",
                self.vectors.as_deref().map_or("none".to_owned(), |v| crate::fields::Excerpt(v).to_string())
            ));
        }
        let vectors: Vec<String> = self
            .vectors
            .iter()
            .flat_map(|dir| VECTOR_FILES.iter().map(move |name| format!("{dir}/{name}")))
            .collect();
        let named: Vec<&str> = self
            .histories()
            .map(|a| &a.outcomes)
            .chain(self.named_files())
            .map(String::as_str)
            .chain(vectors.iter().map(String::as_str))
            .collect();
        for file in &self.inputs {
            if !at_top(&file.path) && !named.contains(&file.path.as_str()) {
                return Err(format!(
                    "{}: pinned as an input, but no record of the manifest names it (a certificate holds only its inputs' files)",
                    crate::fields::Excerpt(&file.path)
                ));
            }
        }
        Ok(())
    }

    /// The folders of the inputs the manifest records, of every kind.
    fn input_dirs(&self) -> impl Iterator<Item = &String> {
        self.sweeps
            .iter()
            .map(|s| &s.dir)
            .chain(self.histories().map(|a| &a.dir))
            .chain(self.chains.iter().map(|c| &c.dir))
            .chain(self.stake_sweeps.iter().map(|s| &s.dir))
    }

    /// The files the records name beside their folders' own: the certificate's and each
    /// sweep's paytable and claims, each history's paytable and column mapping (not the
    /// histories, which are checked apart).
    fn named_files(&self) -> impl Iterator<Item = &String> {
        self.paytable
            .iter()
            .chain(self.claims.iter())
            .chain(self.histories().flat_map(|a| a.paytable.iter().chain(a.columns.iter())))
            .chain(self.sweeps.iter().flat_map(|s| s.paytable.iter().chain(s.claims.iter())))
    }
}

/// The certificate document, and its print (when Chromium rendered it).
pub const CERTIFICATE_HTML: &str = "certificate.html";
/// See [`CERTIFICATE_HTML`].
pub const CERTIFICATE_PDF: &str = "certificate.pdf";
/// The reference vectors a certificate copies (into its `vectors` folder) and works
/// rounds through.
pub const VECTOR_FILES: [&str; 2] = ["reference-rounds.csv", "rejection-rounds.csv"];

/// Whether `path` is relative and stays inside the folder it is relative to.
pub fn inside(path: &str) -> bool {
    let path = Path::new(path);
    !path.as_os_str().is_empty()
        && path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir))
}

/// The verdict key of a sweep's battery.
pub fn battery_key(kind: &str, index: usize) -> String {
    format!("{kind} {index} battery")
}

/// The verdict key of one test of a battery.
pub fn test_key(kind: &str, index: usize, game: impl std::fmt::Display, group: &str, test: &str) -> String {
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

/// The verdict key of a crash chain's link to its operator's published game.
pub fn link_key(index: usize) -> String {
    format!("chain {index} link")
}

/// The verdict key of a crash bet history's row checks.
pub fn crash_rows_key(index: usize) -> String {
    format!("crash audit {index} rows")
}

/// A crash bet history's row checks as the certificate writes them.
pub fn crash_rows_text(audit: &CrashAudit) -> &'static str {
    checked_text(findings_text(&audit.findings), audit.has_row_checks())
}

/// A bet history's row checks of the HMAC-SHA256 family as the certificate writes them.
pub fn stake_rows_text(audit: &StakeAudit) -> &'static str {
    checked_text(findings_text(&audit.findings), audit.has_row_checks())
}

/// `NONE` for row checks that are `CLEAN` only because no row was checked on its own
/// (bare outcomes: nothing replayed, linked or paid): not a finding, and not a pass.
fn checked_text(found: &'static str, any_checked: bool) -> &'static str {
    if found == "CLEAN" && !any_checked {
        "NONE"
    } else {
        found
    }
}

/// The verdict key of the row checks of bet history `index` of the HMAC-SHA256 family.
pub fn stake_rows_key(index: usize) -> String {
    format!("stake audit {index} rows")
}

/// A bet history's row checks as the certificate writes them, from its findings per check.
pub fn findings_text(findings: &std::collections::BTreeMap<&'static str, u64>) -> &'static str {
    if findings.values().any(|&n| n > 0) {
        "FINDINGS"
    } else {
        "CLEAN"
    }
}

/// A chain's link as the certificate writes it: `LINKED` to the published game, `BROKEN`
/// (a finding), or `UNANCHORED` (which `certify` refuses: nothing ties such a chain to an
/// operator's commitment).
pub fn link_text(link: &ChainLink) -> &'static str {
    match link {
        ChainLink::Linked { .. } => "LINKED",
        ChainLink::Broken { .. } => "BROKEN",
        ChainLink::Unanchored => "UNANCHORED",
    }
}

/// The verdict key of a worked recomputation.
pub fn worked_key(index: usize) -> String {
    format!("worked round {index}")
}

/// The key of the certificate's overall verdict.
pub const OVERALL_KEY: &str = "certificate";

/// The verdict of a claim that cannot be judged: a Keno claim without the operator's
/// paytable (the illustrative example's figures say nothing about the operator).
pub const NOT_ASSESSED: &str = "NOT ASSESSED";

/// An audit's row checks as the certificate writes them: `FINDINGS`, `CLEAN`, or `NONE`
/// when no row was checked on its own.
pub fn rows_text(audit: &Audit) -> &'static str {
    let found = if audit.findings.iter().any(|(_, n)| *n > 0) { "FINDINGS" } else { "CLEAN" };
    checked_text(found, audit.has_row_checks())
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

/// A crash chain as a certificate states it: its link to the published game and its
/// battery.
pub struct ChainPart<'a> {
    /// How the range played reached the operator's published game.
    pub link: &'a ChainLink,
    /// Its battery against the crash point's exact law.
    pub battery: &'a Battery<CrashGame>,
}

/// A bet history of a crash game as a certificate states it: its row checks and battery.
pub struct CrashAuditPart<'a> {
    /// What the audit found.
    pub audit: &'a CrashAudit,
    /// Its battery against the crash point's exact law.
    pub battery: &'a Battery<CrashGame>,
}

/// A sweep of the HMAC-SHA256 family as a certificate states it: its battery against the
/// game's exact law.
pub struct StakeSweepPart<'a> {
    /// Its battery, at the certificate's level.
    pub battery: &'a Battery<StakeGame>,
}

/// A bet history of the HMAC-SHA256 family as a certificate states it: its row checks and
/// its battery.
pub struct StakeAuditPart<'a> {
    /// What the audit found.
    pub audit: &'a StakeAudit,
    /// Its battery against the exact laws, at the certificate's level.
    pub battery: &'a Battery<StakeGame>,
    /// Its first row replayed from its seeds ([`StakeAudit::first_replayed`]), laid open,
    /// with whether the row records the same result; or why the round has none.
    pub worked: Option<Result<(RoundSteps, bool), String>>,
}

impl<'a> StakeAuditPart<'a> {
    /// The part of `audit`, its first replayed row worked through.
    pub fn new(audit: &'a StakeAudit, battery: &'a Battery<StakeGame>) -> Self {
        let worked = audit.first_replayed.as_ref().map(|row| {
            let steps = audit.scheme.worked(&row.server_seed, &row.client_seed, &row.game, row.nonce)?;
            let same = row.game.read_result(&row.result).is_ok_and(|recorded| recorded == steps.outcome);
            Ok((steps, same))
        });
        StakeAuditPart { audit, battery, worked }
    }
}

/// Everything a certificate concludes, computed from its inputs.
pub struct Conclusions<'a> {
    /// Each sweep's results.
    pub sweeps: Vec<&'a RunResults>,
    /// Each audit.
    pub audits: Vec<AuditPart<'a>>,
    /// Each crash chain.
    pub chains: Vec<ChainPart<'a>>,
    /// Each bet history of a crash game.
    pub crash_audits: Vec<CrashAuditPart<'a>>,
    /// Each sweep of the HMAC-SHA256 family.
    pub stake_sweeps: Vec<StakeSweepPart<'a>>,
    /// Each bet history of the HMAC-SHA256 family.
    pub stake_audits: Vec<StakeAuditPart<'a>>,
    /// The claims about the games in scope, judged against the exact RTP.
    pub claims: &'a [ClaimVerdict],
    /// The worked recomputations.
    pub worked: &'a [WorkedRound],
    /// Whether the Keno figures come from the illustrative example paytable (then a Keno
    /// claim is [`NOT_ASSESSED`]).
    pub illustrative_keno: bool,
}

/// Whether a battery left some game unjudged: no test of its outcomes valid at its size
/// ([`Battery::overall`] INSUFFICIENT).
fn some_game_unjudged<G: PartialEq>(battery: &Battery<G>) -> bool {
    battery.overall() == Verdict::Insufficient
}

/// The overall verdict of a certificate with no finding but a sweep or chain whose battery
/// left some game unjudged ([`Conclusions::overall`]).
pub const INSUFFICIENT: &str = "INSUFFICIENT";

impl Conclusions<'_> {
    /// Whether a claim is judged at all (see [`NOT_ASSESSED`]).
    pub fn assessed(&self, claim: &ClaimVerdict) -> bool {
        !(self.illustrative_keno && claim.claim.game == GameId::Keno)
    }

    /// A claim's verdict as the certificate writes it.
    pub fn claim_text(&self, claim: &ClaimVerdict) -> &'static str {
        if !self.assessed(claim) {
            NOT_ASSESSED
        } else if claim.holds() {
            "HOLDS"
        } else {
            "DOES NOT HOLD"
        }
    }

    /// Whether anything is a fairness finding: a battery that FAILs, a claim that does not
    /// hold, an audit row check that failed, a worked round that differs from its vector,
    /// a chain that does not link to its published game.
    pub fn has_finding(&self) -> bool {
        self.sweeps.iter().any(|r| r.battery.overall() == Verdict::Fail)
            || self.stake_sweeps.iter().any(|s| s.battery.overall() == Verdict::Fail)
            || self
                .stake_audits
                .iter()
                .any(|a| a.battery.overall() == Verdict::Fail || stake_rows_text(a.audit) == "FINDINGS")
            || self.chains.iter().any(|c| c.link.is_broken() || c.battery.overall() == Verdict::Fail)
            || self
                .crash_audits
                .iter()
                .any(|a| a.battery.overall() == Verdict::Fail || crash_rows_text(a.audit) == "FINDINGS")
            || self
                .audits
                .iter()
                .any(|a| a.battery.overall() == Verdict::Fail || rows_text(a.audit) == "FINDINGS")
            || self.claims.iter().any(|c| self.assessed(c) && !c.holds())
            || self.worked.iter().any(|w| !w.matches())
    }

    /// Whether a sweep, chain or audit in it left some game unjudged: its battery has
    /// no test of that game's outcomes that can fail at its size (a sweep of a few rounds),
    /// and, for an audit, which is judged by its rows, no row was checked on its own either
    /// (bare outcomes).
    pub fn leaves_a_game_unjudged(&self) -> bool {
        self.sweeps.iter().any(|r| some_game_unjudged(&r.battery))
            || self.stake_sweeps.iter().any(|s| some_game_unjudged(s.battery))
            || self.chains.iter().any(|c| some_game_unjudged(c.battery))
            || self.audits.iter().any(|a| some_game_unjudged(a.battery) && !a.audit.has_row_checks())
            || self.stake_audits.iter().any(|a| some_game_unjudged(a.battery) && !a.audit.has_row_checks())
            || self.crash_audits.iter().any(|a| some_game_unjudged(a.battery) && !a.audit.has_row_checks())
    }

    /// Whether an audited history in it was too short for the tests of some game's
    /// outcomes but had rows checked on their own: it is judged by its rows alone, which
    /// the certificate then says.
    pub fn audit_judged_by_rows_alone(&self) -> bool {
        self.audits.iter().any(|a| some_game_unjudged(a.battery) && a.audit.has_row_checks())
            || self.stake_audits.iter().any(|a| some_game_unjudged(a.battery) && a.audit.has_row_checks())
            || self.crash_audits.iter().any(|a| some_game_unjudged(a.battery) && a.audit.has_row_checks())
    }

    /// The overall verdict: `FINDINGS` when anything is a finding; otherwise
    /// `INSUFFICIENT` when a sweep, chain or audit in it left some game unjudged, which a
    /// PASS would overstate; otherwise `PASS`.
    pub fn overall(&self) -> &'static str {
        if self.has_finding() {
            "FINDINGS"
        } else if self.leaves_a_game_unjudged() {
            INSUFFICIENT
        } else {
            "PASS"
        }
    }

    /// Every verdict the certificate states, keyed.
    pub fn verdicts(&self) -> Vec<RecordedVerdict> {
        fn battery<G: std::fmt::Display + PartialEq>(
            out: &mut Vec<RecordedVerdict>,
            kind: &str,
            index: usize,
            battery: &Battery<G>,
        ) {
            out.push(RecordedVerdict {
                key: battery_key(kind, index),
                verdict: battery.overall().as_str().into(),
            });
            for r in &battery.results {
                out.push(RecordedVerdict {
                    key: test_key(kind, index, &r.game, &r.seed_pair, &r.outcome.test),
                    verdict: r.verdict.as_str().into(),
                });
            }
        }
        let mut out = vec![RecordedVerdict { key: OVERALL_KEY.into(), verdict: self.overall().into() }];
        for (i, results) in self.sweeps.iter().enumerate() {
            battery(&mut out, "sweep", i + 1, &results.battery);
        }
        for (i, part) in self.audits.iter().enumerate() {
            battery(&mut out, "audit", i + 1, part.battery);
        }
        for (i, part) in self.audits.iter().enumerate() {
            out.push(RecordedVerdict { key: rows_key(i + 1), verdict: rows_text(part.audit).into() });
        }
        for (i, part) in self.chains.iter().enumerate() {
            out.push(RecordedVerdict { key: link_key(i + 1), verdict: link_text(part.link).into() });
            battery(&mut out, "chain", i + 1, part.battery);
        }
        for (i, part) in self.crash_audits.iter().enumerate() {
            out.push(RecordedVerdict {
                key: crash_rows_key(i + 1),
                verdict: crash_rows_text(part.audit).into(),
            });
            battery(&mut out, "crash audit", i + 1, part.battery);
        }
        for (i, part) in self.stake_sweeps.iter().enumerate() {
            battery(&mut out, "stake sweep", i + 1, part.battery);
        }
        for (i, part) in self.stake_audits.iter().enumerate() {
            out.push(RecordedVerdict {
                key: stake_rows_key(i + 1),
                verdict: stake_rows_text(part.audit).into(),
            });
            battery(&mut out, "stake audit", i + 1, part.battery);
        }
        for claim in self.claims {
            out.push(RecordedVerdict { key: claim_key(claim), verdict: self.claim_text(claim).into() });
        }
        for (i, round) in self.worked.iter().enumerate() {
            out.push(RecordedVerdict { key: worked_key(i + 1), verdict: worked_text(round).into() });
        }
        out
    }
}

/// One difference a check found, named.
pub type Mismatch = String;

/// Why a pinned file could not be compared: gone, unreadable, or not a regular file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable(pub String);

/// Opens `path` for a bounded read only when it is a regular file: a symlink, a FIFO, a
/// device or a folder is refused before it is opened (a FIFO would block the read, a link
/// to `/dev/zero` would never end).
pub fn open_regular(path: &Path) -> Result<std::fs::File, String> {
    let metadata = std::fs::symlink_metadata(path).map_err(|e| format!("cannot read ({e})"))?;
    let kind = metadata.file_type();
    if kind.is_symlink() {
        return Err("is a symbolic link, not the file itself".into());
    }
    if !kind.is_file() {
        return Err("is not a regular file".into());
    }
    std::fs::File::open(path).map_err(|e| format!("cannot read ({e})"))
}

/// Each pinned file whose bytes no longer hash to the recorded SHA-256 (the mismatches),
/// and each that cannot be compared (gone, unreadable, not a regular file). `resolve`
/// turns a recorded path into the file to read; at most one byte more than the recorded
/// size is read.
pub fn compare_hashes(
    files: &[FileHash],
    resolve: impl Fn(&str) -> std::path::PathBuf,
) -> (Vec<Mismatch>, Vec<Unreadable>) {
    let mut mismatches = Vec::new();
    let mut unreadable = Vec::new();
    for file in files {
        let path = resolve(&file.path);
        let hashed = open_regular(&path).and_then(|f| {
            sha256_of(f.take(file.bytes.saturating_add(1))).map_err(|e| format!("cannot read ({e})"))
        });
        match hashed {
            Ok((sha256, bytes)) if sha256 == file.sha256 && bytes == file.bytes => {}
            Ok((sha256, bytes)) => mismatches.push(format!(
                "{}: SHA-256 {sha256} ({bytes}{} bytes) differs from the recorded {} ({} bytes)",
                file.path,
                if bytes > file.bytes { " or more" } else { "" },
                file.sha256,
                file.bytes
            )),
            Err(why) => unreadable.push(Unreadable(format!("{}: {why}", file.path))),
        }
    }
    (mismatches, unreadable)
}

/// Every entry under `dir` that is not a listed regular file: an unlisted file, a
/// symbolic link or anything else, or a folder holding no listed file. `listed` are paths
/// relative to `dir`, `/`-separated.
pub fn unlisted_entries(dir: &Path, listed: &[&str]) -> Vec<Mismatch> {
    fn walk(dir: &Path, prefix: &str, listed: &[&str], out: &mut Vec<Mismatch>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            out.push(format!("{}: cannot list", if prefix.is_empty() { "." } else { prefix }));
            return;
        };
        let mut names: Vec<_> = entries.flatten().collect();
        names.sort_by_key(|e| e.file_name());
        for entry in names {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            match entry.file_type() {
                Ok(t) if t.is_dir() => {
                    let under = format!("{path}/");
                    if !listed.iter().any(|l| l.starts_with(&under)) {
                        out.push(format!("{path}/: a folder the manifest does not list"));
                    } else {
                        walk(&entry.path(), &path, listed, out);
                    }
                }
                Ok(t) if t.is_file() && listed.contains(&path.as_str()) => {}
                Ok(t) if t.is_file() => out.push(format!("{path}: a file the manifest does not list")),
                _ => out.push(format!(
                    "{path}: not a regular file (a link or a special file) in the certificate folder"
                )),
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, "", listed, &mut out);
    out
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
        let (changed, unreadable) = compare_hashes(&recorded, |p| dir.path().join(p));
        assert!(changed.is_empty() && unreadable[0].0.starts_with("gone.csv: cannot read"), "{unreadable:?}");
        std::fs::write(dir.path().join("a.csv"), "1,3\n").unwrap();
        let (found, _) = compare_hashes(&recorded[..1], |p| dir.path().join(p));
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with("a.csv: SHA-256"), "{found:?}");
        // A longer file is read only one byte past its recorded size.
        std::fs::write(dir.path().join("a.csv"), "1,2\n and more").unwrap();
        let (found, _) = compare_hashes(&recorded[..1], |p| dir.path().join(p));
        assert!(found[0].contains("(5 or more bytes)"), "{found:?}");
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
            version: MANIFEST_VERSION,
            fairaudit_version: "0.1.0".into(),
            source_revision: None,
            binary: file.clone(),
            created_at: "2026-12-01T00:00:00Z".into(),
            operator: "op".into(),
            auditor: None,
            signer: None,
            resweep_limit: 100,
            command_line: vec!["certify".into()],
            alpha: 0.01,
            paper: "A4".into(),
            paytable: None,
            claims: None,
            vectors: Some("inputs/vectors".into()),
            sweeps: vec![SweepRecord {
                dir: "inputs/sweep-1".into(),
                source: "s".into(),
                command_line: vec![],
                rounds: 1,
                paytable: None,
                claims: None,
            }],
            audits: vec![],
            chains: vec![],
            crash_audits: vec![],
            stake_sweeps: vec![],
            stake_audits: vec![],
            inputs: vec![FileHash { path: "inputs/sweep-1/tally.json".into(), ..file.clone() }],
            outputs: vec![FileHash { path: CERTIFICATE_HTML.into(), ..file.clone() }],
            pdf_pages: Some(3),
            verdicts: vec![],
        };
        assert_eq!(Manifest::from_bytes(&manifest.to_bytes()).unwrap(), manifest);
        // A manifest written before chains could be certified has no "chains": it reads.
        let mut older: serde_json::Value = serde_json::from_slice(&manifest.to_bytes()).unwrap();
        older.as_object_mut().unwrap().remove("chains");
        assert_eq!(Manifest::from_bytes(&serde_json::to_vec(&older).unwrap()).unwrap(), manifest);
        let mut chain_outside = manifest.clone();
        chain_outside.chains.push(ChainRecord {
            dir: "../elsewhere".into(),
            source: "x".into(),
            command_line: vec![],
            games: 1,
        });
        assert!(Manifest::from_bytes(&chain_outside.to_bytes())
            .unwrap_err()
            .contains("inside the certificate folder"));
        let mut twice = manifest.clone();
        twice.chains.push(ChainRecord {
            dir: "inputs/sweep-1".into(),
            source: "x".into(),
            command_line: vec![],
            games: 1,
        });
        assert!(Manifest::from_bytes(&twice.to_bytes())
            .unwrap_err()
            .contains("where certify writes inputs/chain-1"));
        let mut spelt_apart = manifest.clone();
        spelt_apart.sweeps.push(SweepRecord {
            dir: "inputs/./sweep-1".into(),
            source: "x".into(),
            command_line: vec![],
            rounds: 1,
            paytable: None,
            claims: None,
        });
        assert!(Manifest::from_bytes(&spelt_apart.to_bytes())
            .unwrap_err()
            .contains("where certify writes inputs/sweep-2"));
        // A sweep's own paytable or claims file must lie inside the folder and be pinned.
        for (paytable, claims, pin, refused) in [
            (Some("inputs/sweep-1/paytable/p.csv"), None, true, None),
            (None, Some("inputs/sweep-1/claims/c.csv"), true, None),
            (Some("/etc/passwd"), None, true, Some("inside the certificate folder")),
            (None, Some("inputs/sweep-1/claims/c.csv"), false, Some("does not pin")),
        ] {
            let mut own = manifest.clone();
            own.sweeps[0].paytable = paytable.map(Into::into);
            own.sweeps[0].claims = claims.map(Into::into);
            if pin {
                let path = paytable.or(claims).unwrap();
                own.inputs.push(FileHash { path: path.into(), ..file.clone() });
            }
            match refused {
                None => assert_eq!(Manifest::from_bytes(&own.to_bytes()).unwrap(), own),
                Some(why) => assert!(Manifest::from_bytes(&own.to_bytes()).unwrap_err().contains(why)),
            }
        }
        let history = |outcomes: &str| AuditRecord {
            dir: "inputs/stake-audit-1".into(),
            source: "a".into(),
            command_line: vec![],
            outcomes_source: "h.csv".into(),
            outcomes: outcomes.into(),
            paytable: None,
            columns: None,
            rows: 1,
        };
        let mut pinned = manifest.clone();
        pinned.stake_audits.push(history("inputs/stake-audit-1/history/h.csv"));
        pinned.inputs.push(FileHash { path: "inputs/stake-audit-1/history/h.csv".into(), ..file.clone() });
        assert_eq!(Manifest::from_bytes(&pinned.to_bytes()).unwrap(), pinned);
        for (outcomes, listed) in [
            ("inputs/stake-audit-1/history/h.csv", false),
            ("../../tmp/fifo", true),
            ("inputs/sweep-1/history/h.csv", true),
        ] {
            let mut forged = manifest.clone();
            forged.stake_audits.push(history(outcomes));
            if listed {
                forged.inputs.push(FileHash { path: outcomes.into(), ..file.clone() });
            }
            assert!(Manifest::from_bytes(&forged.to_bytes()).is_err(), "{outcomes}");
        }
        let mut empty = manifest.clone();
        empty.sweeps.clear();
        assert!(Manifest::from_bytes(&empty.to_bytes()).unwrap_err().contains("certifies nothing"));
        assert!(Manifest::from_bytes(b"{\"format\":\"fairaudit-run\"}")
            .unwrap_err()
            .contains("not a fairaudit"));
        let mut outside = manifest.clone();
        outside.vectors = Some("../shared/vectors".into());
        assert!(Manifest::from_bytes(&outside.to_bytes())
            .unwrap_err()
            .contains("inside the certificate folder"));

        // Every pinned file is one the check accounts for: the document and its print, the
        // files at the top of an input's folder, and the files a record names.
        let pin = |path: &str| FileHash { path: path.into(), ..file.clone() };
        let mut accounted = manifest.clone();
        accounted.outputs.push(pin(CERTIFICATE_PDF));
        accounted.inputs.extend(VECTOR_FILES.map(|name| pin(&format!("inputs/vectors/{name}"))));
        assert_eq!(Manifest::from_bytes(&accounted.to_bytes()).unwrap(), accounted);
        for output in ["certificate-final.html", CERTIFICATE_PDF, "inputs/sweep-1/tally.json"] {
            let mut forged = accounted.clone();
            forged.outputs.push(pin(output));
            assert!(
                Manifest::from_bytes(&forged.to_bytes()).unwrap_err().contains("a certificate's are"),
                "{output}"
            );
        }
        // The vectors lie where certify copies them, and only beside the default scheme's
        // sweeps or histories (the check reads them nowhere else).
        let mut moved = accounted.clone();
        moved.vectors = Some("inputs/sweep-1".into());
        assert!(Manifest::from_bytes(&moved.to_bytes())
            .unwrap_err()
            .contains("its vectors are inputs/sweep-1"));
        let mut chains_only = accounted.clone();
        chains_only.sweeps.clear();
        chains_only.chains.push(ChainRecord {
            dir: "inputs/chain-1".into(),
            source: "x".into(),
            command_line: vec![],
            games: 1,
        });
        chains_only.inputs = vec![pin("inputs/chain-1/run.json")];
        assert!(Manifest::from_bytes(&chains_only.to_bytes())
            .unwrap_err()
            .contains("its vectors are inputs/vectors"));
        chains_only.vectors = None;
        assert_eq!(Manifest::from_bytes(&chains_only.to_bytes()).unwrap(), chains_only);
        let mut tabloid = accounted.clone();
        tabloid.paper = "Tabloid".into();
        assert!(Manifest::from_bytes(&tabloid.to_bytes()).unwrap_err().contains("not A4 or Letter"));
        let mut no_document = accounted.clone();
        no_document.outputs.remove(0);
        assert!(Manifest::from_bytes(&no_document.to_bytes()).is_err());
        for input in [
            "inputs/notes/statement.txt",
            "inputs/vectors/extra.csv",
            "inputs/sweep-1/history/statement.txt",
            "inputs/sweep-1",
            "inputs/sweep-10/tally.json",
        ] {
            let mut forged = accounted.clone();
            forged.inputs.push(pin(input));
            assert!(
                Manifest::from_bytes(&forged.to_bytes())
                    .unwrap_err()
                    .contains("no record of the manifest names it"),
                "{input}"
            );
        }
    }

    #[test]
    fn paths_inside_a_folder_are_relative_and_never_climb() {
        assert!(inside("inputs/sweep-1/tally.json") && inside("./a"));
        for outside in ["", "/etc/passwd", "../x", "inputs/../../x", "a/.."] {
            assert!(!inside(outside), "{outside}");
        }
    }

    #[test]
    fn unlisted_entries_and_special_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("inputs/a")).unwrap();
        std::fs::write(dir.path().join("inputs/a/x.csv"), "x").unwrap();
        std::fs::write(dir.path().join("extra"), "x").unwrap();
        std::fs::create_dir(dir.path().join("empty")).unwrap();
        let found = unlisted_entries(dir.path(), &["inputs/a/x.csv"]);
        assert_eq!(
            found,
            ["empty/: a folder the manifest does not list", "extra: a file the manifest does not list"]
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/dev/zero", dir.path().join("inputs/a/x.csv.link")).unwrap();
            assert!(open_regular(&dir.path().join("inputs/a/x.csv.link"))
                .unwrap_err()
                .contains("symbolic link"));
            let found = unlisted_entries(dir.path(), &["inputs/a/x.csv", "inputs/a/x.csv.link", "extra"]);
            assert_eq!(found, ["empty/: a folder the manifest does not list", "inputs/a/x.csv.link: not a regular file (a link or a special file) in the certificate folder"]);
        }
    }
}
