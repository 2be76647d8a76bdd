//! Writing a certificate: the names and signer checked, the dossier copied and loaded
//! back, every input refused whose files are not what running it again gives, the
//! document, the PDF, the manifest and its signature written, and the verdict printed.

use super::super::clock;
use super::document::render;
use super::dossier::{foreign_entry, plan_dossier, write_dossier};
use super::load::load;
use super::loaded::Loaded;
use super::pdf::render_pdf;
use super::recorded::RunJson;
use super::{binary_hash, revision, CertifyArgs, PaperArg};
use crate::cli::args::command_line;
use crate::cli::folder::OutputFolder;
use crate::cli::input::install_stop_handler;
use crate::cli::print::ShownPath;
use crate::cli::Verdict;
use anyhow::{anyhow, bail, Result};
use fairaudit::certify::signature::{self, SIGNATURE_FILE};
use fairaudit::certify::worked::WorkedRound;
use fairaudit::certify::{
    hash_file, sha256_hex, Conclusions, Manifest, Mismatch, Signer, INPUTS_DIR, MANIFEST_FILE,
    MANIFEST_FORMAT, MANIFEST_VERSION,
};
use fairaudit::games::GameId;
use fairaudit::report::certificate::Paper;
use fairaudit::stats::battery::Battery;
use std::path::Path;

/// Characters that reorder or hide text (bidirectional controls, zero-width marks): in a
/// name they could make a FINDINGS certificate's title read PASS.
pub(super) fn is_hidden_format(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// One line of at most 200 characters, neither control nor reordering characters.
pub(super) fn check_name(flag: &str, name: &str) -> Result<()> {
    if name.trim().is_empty() {
        bail!("{flag} is empty: name the {} the certificate is for", &flag[2..]);
    }
    if name.chars().count() > 200 || name.chars().any(char::is_control) {
        bail!("{flag} must be one line of at most 200 characters");
    }
    if let Some(c) = name.chars().find(|&c| is_hidden_format(c)) {
        bail!("{flag} holds the invisible formatting character U+{:04X}, which can reorder what a reader sees: remove it", c as u32);
    }
    Ok(())
}

/// The signer the arguments name: the identity and the key (from the private key for
/// --sign, the public key for --signer-key); the private key when fairaudit signs.
pub(super) fn signer(args: &CertifyArgs) -> Result<(Option<Signer>, Option<ssh_key::PrivateKey>)> {
    let Some(auditor) = &args.auditor else { return Ok((None, None)) };
    let (public, private) = match (&args.sign, &args.signer_key) {
        (Some(path), _) => {
            let key = ssh_key::PrivateKey::read_openssh_file(path)
                .map_err(|e| anyhow!("{}: not an OpenSSH private key ({e})", path.display()))?;
            if key.is_encrypted() {
                bail!("{}: the key has a passphrase, which fairaudit does not ask for: pass its public key with --signer-key and sign manifest.json with ssh-keygen -Y sign (docs/certify.md)", path.display());
            }
            (key.public_key().clone(), Some(key))
        }
        (None, Some(path)) => (
            ssh_key::PublicKey::read_openssh_file(path)
                .map_err(|e| anyhow!("{}: not an OpenSSH public key ({e})", path.display()))?,
            None,
        ),
        (None, None) => return Ok((None, None)),
    };
    let identity = args.auditor_id.clone().unwrap_or_else(|| auditor.clone());
    if let Some(problem) = signature::identity_problem(&identity) {
        bail!("{problem}: pass --auditor-id, e.g. an e-mail address");
    }
    let signer = Signer {
        identity,
        public_key: public.to_openssh().map_err(|e| anyhow!("cannot encode the public key: {e}"))?,
        fingerprint: signature::fingerprint(&public),
    };
    Ok((Some(signer), private))
}

/// Refuses an input folder whose files are not what running it again gives; `run` is
/// what made it (`sweep`, `audit`).
pub(super) fn refuse_differing(source: &str, differing: &[Mismatch], run: &str) -> Result<()> {
    let Some(first) = differing.first() else { return Ok(()) };
    // A folder is made again as this version writes it: one written by another version
    // can differ without being altered, and the message must not read as an accusation.
    let written_by = RunJson::read(Path::new(source))
        .and_then(|recorded| recorded.value["fairaudit_revision"].as_str().map(str::to_owned))
        .filter(|theirs| {
            !theirs.is_empty() && theirs != "unknown" && Some(theirs.as_str()) != revision().as_deref()
        });
    let what_to_do = match written_by {
        Some(theirs) => format!(
            "its run.json says fairaudit {} wrote it, and this is {}: certify it with that version, or run the {run} again with this one",
            fairaudit::fields::Shown(&theirs),
            revision().as_deref().unwrap_or("unknown")
        ),
        None => format!("run the {run} again"),
    };
    bail!("{source}: {first}: the folder's files are not those of the {run} its run.json records ({what_to_do})")
}

/// A battery's verdict as the summary lines print it, with why when it is INSUFFICIENT.
fn verdict_text<G: PartialEq + std::fmt::Display>(battery: &Battery<G>) -> String {
    let judgement = battery.judgement();
    match judgement.insufficient_reason() {
        Some(why) => format!("INSUFFICIENT ({})", fairaudit::fields::Shown(&why)),
        None => judgement.verdict.as_str().to_owned(),
    }
}

/// The certificate's conclusions as the terminal says them: the overall verdict, a line per
/// input (sweep, bet history, chain) and per claim, and the worked rounds.
fn print_summary(operator: &str, conclusions: &Conclusions, loaded: &Loaded, manifest: &Manifest) {
    outln!("certificate for {operator}: {}", conclusions.overall());
    for (i, (s, record)) in loaded.sweeps.iter().zip(&manifest.sweeps).enumerate() {
        let counts = s.results.battery.counts();
        outln!(
            "  sweep {} ({}): {} rounds, {} tests: {} PASS, {} WEAK, {} FAIL, {} INSUFFICIENT: {}",
            i + 1,
            fairaudit::fields::Shown(&record.source),
            s.tallies.rounds(),
            s.results.battery.results.len(),
            counts.pass,
            counts.weak,
            counts.fail,
            counts.insufficient,
            verdict_text(&s.results.battery)
        );
    }
    for (i, (a, record)) in loaded.audits.iter().zip(&manifest.audits).enumerate() {
        outln!(
            "  bet history {} ({}): {} rows, {} mismatches, row checks {}, battery {}",
            i + 1,
            fairaudit::fields::Shown(&record.outcomes_source),
            a.audit.rounds,
            a.audit.mismatches,
            fairaudit::certify::rows_text(&a.audit),
            verdict_text(&a.battery)
        );
    }
    for (i, (c, record)) in loaded.chains.iter().zip(&manifest.chains).enumerate() {
        let counts = c.battery.counts();
        outln!(
            "  chain {} ({}): {} crash games {}..{}, {} to the published game, {} tests: {} PASS, {} WEAK, {} FAIL, {} INSUFFICIENT: {}",
            i + 1,
            fairaudit::fields::Shown(&record.source),
            c.plan.scheme,
            c.plan.games[0],
            c.plan.games[1],
            fairaudit::certify::link_text(&c.link),
            c.battery.results.len(),
            counts.pass,
            counts.weak,
            counts.fail,
            counts.insufficient,
            verdict_text(&c.battery)
        );
    }
    for (i, (s, record)) in loaded.stake_sweeps.iter().zip(&manifest.stake_sweeps).enumerate() {
        let counts = s.battery.counts();
        outln!(
            "  {} sweep {} ({}): {}, {} rounds, {} tests: {} PASS, {} WEAK, {} FAIL, {} INSUFFICIENT: {}",
            s.plan.keyed_scheme(),
            i + 1,
            fairaudit::fields::Shown(&record.source),
            s.game,
            s.rounds,
            s.battery.results.len(),
            counts.pass,
            counts.weak,
            counts.fail,
            counts.insufficient,
            verdict_text(&s.battery)
        );
    }
    for (i, (a, record)) in loaded.stake_audits.iter().zip(&manifest.stake_audits).enumerate() {
        outln!(
            "  {} bet history {} ({}): {} rows, {} replayed, row checks {}, battery {}",
            a.audit.scheme,
            i + 1,
            fairaudit::fields::Shown(&record.outcomes_source),
            a.audit.rows,
            a.audit.replayed,
            fairaudit::certify::stake_rows_text(&a.audit),
            verdict_text(&a.battery)
        );
    }
    for (i, (a, record)) in loaded.crash_audits.iter().zip(&manifest.crash_audits).enumerate() {
        outln!(
            "  crash bet history {} ({}): {} bets on {} games, row checks {}, battery {}",
            i + 1,
            fairaudit::fields::Shown(&record.outcomes_source),
            a.audit.rows,
            a.audit.games,
            fairaudit::certify::crash_rows_text(&a.audit),
            verdict_text(&a.battery)
        );
    }
    let illustrative = loaded.paytable.is_illustrative();
    for claim in &loaded.claims {
        outln!(
            "  claim {} rtp {}%: {}{}",
            claim.claim.game,
            claim.claim.figure_text,
            conclusions.claim_text(claim),
            if claim.claim.game == GameId::Keno && illustrative {
                " (no operator paytable: the ILLUSTRATIVE example's figures are not the operator's)"
            } else {
                ""
            }
        );
    }
    let reproduced = loaded.worked.iter().filter(|w| w.matches()).count();
    let rejections: usize = loaded.worked.iter().map(WorkedRound::rejections).sum();
    if !loaded.worked.is_empty() {
        outln!(
            "  worked rounds: {reproduced} of {} reproduce their vectors ({rejections} rejected word(s) shown)",
            loaded.worked.len()
        );
    }
}

pub(super) fn certify(args: CertifyArgs) -> Result<Verdict> {
    let started = clock::now();
    let operator = args.operator.clone().expect("clap requires --operator without --check");
    check_name("--operator", &operator)?;
    if let Some(auditor) = &args.auditor {
        check_name("--auditor", auditor)?;
    }
    let out = args.out.clone().expect("clap requires --out without --check");
    for dir in args.sweeps.iter().chain(&args.audits) {
        if dir.canonicalize().ok().is_some_and(|d| out.canonicalize().ok() == Some(d)) {
            bail!("--out {} is one of the input folders: choose another", out.display());
        }
    }
    let (signer, private_key) = signer(&args)?;
    let dossier = plan_dossier(&args)?;
    // Claim the folder before the work: a refusal writes nothing.
    let (folder, existing) = OutputFolder::claim(&out)?;
    // A folder's own files are carried over by a run (they are the user's), but a
    // certificate holds exactly the files its manifest lists: one carried in would fail
    // its own --check. Refused, even with --force, which replaces only what fairaudit
    // can prove it wrote: asked first, since --force would not help.
    if let Some(foreign) = foreign_entry(&folder)? {
        bail!(
            "{} holds {foreign}, which fairaudit did not write: a certificate's folder holds only its own files (--check refuses any other), so choose another --out or move it",
            out.display()
        );
    }
    folder.refuse_earlier(&existing, args.force)?;
    install_stop_handler()?;
    let inputs = write_dossier(&folder, &dossier)?;
    let staged_root = folder.staged("");
    let loaded = load(&staged_root, &dossier.records(), args.alpha, args.resweep_limit)?;
    let paper = match args.paper {
        PaperArg::A4 => Paper::A4,
        PaperArg::Letter => Paper::Letter,
    };
    let conclusions = loaded.conclusions();
    let mut sweeps = dossier.sweeps.clone();
    for (record, s) in sweeps.iter_mut().zip(&loaded.sweeps) {
        refuse_differing(&record.source, &s.differing, "sweep")?;
        record.rounds = s.tallies.rounds();
    }
    let mut audits = dossier.audits.clone();
    for (record, a) in audits.iter_mut().zip(&loaded.audits) {
        refuse_differing(&record.source, &a.differing, "audit")?;
        record.rows = a.audit.rounds;
    }
    let mut chains = dossier.chains.clone();
    for (record, c) in chains.iter_mut().zip(&loaded.chains) {
        refuse_differing(&record.source, &c.differing, "sweep")?;
        record.games = c.played.tally.games;
    }
    let mut crash_audits = dossier.crash_audits.clone();
    for (record, a) in crash_audits.iter_mut().zip(&loaded.crash_audits) {
        refuse_differing(&record.source, &a.differing, "audit")?;
        record.rows = a.audit.rows;
    }
    let mut stake_audits = dossier.stake_audits.clone();
    for (record, a) in stake_audits.iter_mut().zip(&loaded.stake_audits) {
        refuse_differing(&record.source, &a.differing, "audit")?;
        record.rows = a.audit.rows;
    }
    let mut stake_sweeps = dossier.stake_sweeps.clone();
    for (record, s) in stake_sweeps.iter_mut().zip(&loaded.stake_sweeps) {
        refuse_differing(&record.source, &s.differing, "sweep")?;
        record.rounds = s.rounds;
    }
    let mut manifest = Manifest {
        format: MANIFEST_FORMAT.into(),
        version: MANIFEST_VERSION,
        fairaudit_version: env!("CARGO_PKG_VERSION").into(),
        source_revision: revision(),
        binary: binary_hash()?,
        created_at: clock::rfc3339(started),
        operator: operator.clone(),
        auditor: args.auditor.clone(),
        signer,
        resweep_limit: args.resweep_limit,
        command_line: command_line(),
        alpha: args.alpha,
        paper: paper.name().into(),
        paytable: dossier.paytable.clone(),
        claims: dossier.claims.clone(),
        vectors: dossier.vectors.clone(),
        sweeps,
        audits,
        chains,
        crash_audits,
        stake_sweeps,
        stake_audits,
        inputs,
        outputs: Vec::new(),
        pdf_pages: None,
        verdicts: conclusions.verdicts(),
    };
    let html = render(&manifest, &loaded);
    folder.write("certificate.html", html.as_bytes())?;
    let mut outputs = vec![hash_file(&folder.staged("certificate.html"), "certificate.html".into())?];
    if !args.no_pdf {
        if let Some(pages) = render_pdf(&folder)? {
            outputs.push(hash_file(&folder.staged("certificate.pdf"), "certificate.pdf".into())?);
            manifest.pdf_pages = Some(pages);
        }
    }
    manifest.outputs = outputs;
    let manifest_bytes = manifest.to_bytes();
    folder.write(MANIFEST_FILE, &manifest_bytes)?;
    if let Some(key) = &private_key {
        let armoured = signature::sign(key, &manifest_bytes).map_err(|e| anyhow!("{e}"))?;
        folder.write(SIGNATURE_FILE, armoured.as_bytes())?;
    }
    folder.commit()?;

    print_summary(&operator, &conclusions, &loaded, &manifest);
    let pdf = match manifest.pdf_pages {
        Some(pages) => format!(", certificate.pdf ({pages} pages)"),
        None => String::new(),
    };
    outln!(
        "output: {} (certificate.html{pdf}, {MANIFEST_FILE}; inputs copied to {INPUTS_DIR}/)",
        ShownPath(&out)
    );
    match (&manifest.signer, &private_key) {
        (Some(s), Some(_)) => {
            outln!("signature: {SIGNATURE_FILE}, by {} with key {}", s.identity, s.fingerprint)
        }
        (Some(s), None) => outln!(
            "signature: not made yet: ssh-keygen -Y sign -f KEY -n {} {} (key {})",
            signature::NAMESPACE,
            ShownPath(&out.join(MANIFEST_FILE)),
            s.fingerprint
        ),
        (None, _) => outln!(
            "signature: UNSIGNED (publish the manifest's SHA-256, or sign with --sign: docs/certify.md)"
        ),
    }
    outln!("manifest SHA-256: {}", sha256_hex(&manifest_bytes));
    Ok(if conclusions.has_finding() {
        Verdict::Finding
    } else if conclusions.leaves_a_game_unjudged() {
        Verdict::Insufficient
    } else {
        Verdict::Clean
    })
}
