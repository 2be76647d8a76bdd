//! `fairaudit certify`: the audit certificate of complete sweeps and audited bet
//! histories, written as a relocatable dossier (`certificate.html`, `certificate.pdf`
//! through headless Chromium where it is installed, `manifest.json`, its signature
//! `manifest.json.sig` when signed, and copies of every input under `inputs/`), and
//! `certify --check DIR`, which checks a dossier strictly from any working directory:
//! exactly the listed files, every hash, every verdict and figure recomputed from the
//! copies, the document re-rendered and compared byte for byte, the signature. The
//! document is the library's (`report::certificate`), the hashes, verdict keys and
//! signatures too (`certify`); this module reads the inputs, runs Chromium, writes the
//! folder, prints and chooses the exit status (0 matches, 1 mismatch, 2 cannot check).
//!
//! Its parts, in the order a certificate is made: [`dossier`] plans which files of each
//! input are copied where; [`recorded`] reads what an input's run.json records of the
//! run; [`load`] runs every input again from the copies ([`sweeps`], [`audits`]) into
//! the conclusions; [`document`] renders the page; [`pdf`] prints it; [`write`] writes
//! the whole certificate and [`check`] checks one.

mod audits;
mod check;
mod document;
mod dossier;
mod load;
mod loaded;
mod pdf;
mod recorded;
mod sweeps;
mod write;

use super::args::parse_alpha;
use super::Verdict;
use anyhow::{Context, Result};
use check::check;
use clap::{Args, ValueEnum};
use fairaudit::certify::{hash_file, FileHash};
use std::path::{Path, PathBuf};
use write::certify;

#[derive(Debug, Args)]
pub struct CertifyArgs {
    /// A complete sweep's (or merge's) output folder; repeat for several.
    #[arg(long = "sweep", value_name = "DIR")]
    sweeps: Vec<PathBuf>,
    /// An audit's output folder (`fairaudit audit --out DIR`); the bet history is read
    /// again from the path its run.json records. Repeat for several.
    #[arg(long = "audit", value_name = "DIR")]
    audits: Vec<PathBuf>,
    /// The operator's Keno paytable (default: the ILLUSTRATIVE example, said wherever a
    /// Keno figure or claim appears).
    #[arg(long, value_name = "FILE")]
    paytable: Option<PathBuf>,
    /// The operator's published claims (default: the built-in claims of SPEC.md).
    #[arg(long, value_name = "FILE")]
    claims: Option<PathBuf>,
    /// The operator's name, as the certificate states it.
    #[arg(long, value_name = "NAME", required_unless_present = "check")]
    operator: Option<String>,
    /// Output folder: the certificate and its dossier (see docs/certify.md).
    #[arg(long, value_name = "DIR", required_unless_present = "check")]
    out: Option<PathBuf>,
    /// Replace an earlier certificate in --out.
    #[arg(long)]
    force: bool,
    /// Level of the statistical battery (family-wise, Holm-adjusted).
    #[arg(long, value_name = "A", default_value_t = 0.01, value_parser = parse_alpha)]
    alpha: f64,
    /// Paper size of the print layout.
    #[arg(long, value_enum, default_value = "a4")]
    paper: PaperArg,
    /// The operator's reference vectors (reference-rounds.csv, rejection-rounds.csv),
    /// from which the worked rounds are taken; copied into the dossier.
    #[arg(long, value_name = "DIR", default_value = "../shared/vectors")]
    vectors: PathBuf,
    /// Do not render certificate.pdf (even where Chromium exists).
    #[arg(long)]
    no_pdf: bool,
    /// The auditor, as the certificate names them on its first page and signature block.
    #[arg(long, value_name = "NAME")]
    auditor: Option<String>,
    /// The identity an allowed-signers file lists for the auditor's key (no spaces, e.g.
    /// an e-mail address); default: --auditor, when it has no spaces.
    #[arg(long, value_name = "ID", requires = "auditor")]
    auditor_id: Option<String>,
    /// Sign manifest.json with this OpenSSH private key (manifest.json.sig, SSHSIG,
    /// namespace fairaudit-certificate); a key with a passphrase: use --signer-key.
    #[arg(long, value_name = "KEY", requires = "auditor", conflicts_with = "signer_key")]
    sign: Option<PathBuf>,
    /// The public key that will sign manifest.json with `ssh-keygen -Y sign` afterwards
    /// (for a key fairaudit should not read); the certificate names it.
    #[arg(long, value_name = "PUBKEY", requires = "auditor")]
    signer_key: Option<PathBuf>,
    /// Leave the bet histories out of the dossier: they are pinned by hash at their
    /// absolute path, and the dossier checks only where they are.
    #[arg(long)]
    no_copy_histories: bool,
    /// Check the certificate in DIR: exactly its files, every hash, every verdict and
    /// figure recomputed, the document re-rendered, the signature.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["sweeps", "audits", "paytable", "claims", "operator", "out", "force", "paper", "no_pdf", "auditor", "sign", "signer_key", "no_copy_histories"])]
    check: Option<PathBuf>,
    /// With --check: the SHA-256 of manifest.json the auditor published; another manifest
    /// is a mismatch.
    #[arg(long, value_name = "SHA256", requires = "check")]
    expect_manifest: Option<String>,
    /// With --check: read the histories a certificate written with --no-copy-histories
    /// pins at absolute paths, where it names them (without it, such a manifest is refused).
    #[arg(long, requires = "check")]
    histories_in_place: bool,
    /// With --check: an OpenSSH allowed-signers file; the signature must verify with a key
    /// it lists for the certificate's auditor.
    #[arg(long, value_name = "FILE", requires = "check")]
    allowed_signers: Option<PathBuf>,
    /// Sweeps of at most this many rounds are re-swept in full by --check (and the
    /// certificate says which are not).
    #[arg(long, value_name = "N", default_value_t = 100_000_000)]
    resweep_limit: u64,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PaperArg {
    A4,
    Letter,
}

pub fn run(args: CertifyArgs) -> Result<Verdict> {
    match args.check.clone() {
        Some(dir) => check(&dir, &args),
        None => certify(args),
    }
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

fn binary_hash() -> Result<FileHash> {
    let exe = std::env::current_exe().context("cannot find the fairaudit binary")?;
    hash_file(&exe, display(&exe)).with_context(|| format!("{}: cannot read", exe.display()))
}

fn revision() -> Option<String> {
    // build.rs writes `unknown` when the build had no revision to read.
    let revision = fairaudit::REVISION;
    (!revision.is_empty() && revision != "unknown").then(|| revision.to_owned())
}
