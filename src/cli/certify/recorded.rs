//! What an input folder's run.json records of the run that made it: its kind, command
//! line and working directory, the command parsed back as fairaudit parses arguments, and
//! where the files it named are now.

use crate::cli::args::AuditArgs;
use crate::cli::args::ReportArgs;
use crate::cli::{Cli, Command};
use anyhow::{anyhow, bail, Context, Result};
use fairaudit::fields::Shown;
use fairaudit::report::run_info::InputHash;
use fairaudit::report::stake::{StakePlan, StakeRun};
use fairaudit::scheme::crash::CrashVariant;
use std::path::{Path, PathBuf};

/// What an output folder's run.json records of the run that made it, read once.
#[derive(Default)]
pub(super) struct RunJson {
    /// `sweep`, `merge`, `audit`; empty where it records none.
    pub(super) kind: String,
    pub(super) command_line: Vec<String>,
    /// The directory the run ran in (none for folders written before it was recorded).
    pub(super) working_dir: Option<PathBuf>,
    /// The SHA-256 of each file the command named, by the path as named (none for folders
    /// written before they were recorded).
    pub(super) inputs: Vec<InputHash>,
    /// The whole record, for the fields only some kinds of run have.
    pub(super) value: serde_json::Value,
}

impl RunJson {
    /// The run.json of folder `dir`, when it is there and is JSON.
    pub(super) fn read(dir: &Path) -> Option<RunJson> {
        let bytes = std::fs::read(dir.join("run.json")).ok()?;
        let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
        let kind = value.get("kind").and_then(|k| k.as_str()).unwrap_or_default().to_owned();
        let command_line = value
            .get("command_line")
            .and_then(|c| c.as_array())
            .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect())
            .unwrap_or_default();
        let working_dir = value.get("working_dir").and_then(|w| w.as_str()).map(PathBuf::from);
        // Entry by entry: one entry that is not a path and a hash does not hide the others.
        let inputs = value
            .get("inputs")
            .and_then(|i| i.as_array())
            .map(|entries| entries.iter().filter_map(|e| serde_json::from_value(e.clone()).ok()).collect())
            .unwrap_or_default();
        Some(RunJson { kind, command_line, working_dir, inputs, value })
    }

    /// Where a file that the run's command `named` is now. A relative name is looked for
    /// in the directory the run ran in, then here (an absolute one where it is): two
    /// sweeps run in different directories can each name their own `paytable.csv`. Where
    /// run.json records the file's SHA-256, the first of these with it is the file, and
    /// when one is there but none has it, the file has changed since the run (an error
    /// saying so). Without a recorded hash (folders written before it was recorded), the
    /// first that is there; a file other than the one the run read then shows as a
    /// mismatch of the files made from it. When none is there, `named` itself (its caller
    /// says it is not found).
    pub(super) fn named_file(&self, named: &Path) -> Result<PathBuf> {
        let mut places = Vec::new();
        if let Some(dir) = self.working_dir.as_ref().filter(|_| named.is_relative()) {
            places.push(dir.join(named));
        }
        places.push(named.to_path_buf());
        places.retain(|place| place.is_file());
        let Some(first) = places.first() else { return Ok(named.to_path_buf()) };
        let shown = named.display().to_string();
        let Some(recorded) = self.inputs.iter().find(|input| input.path == shown) else {
            return Ok(first.clone());
        };
        let is_digest =
            |text: &str| text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if !is_digest(&recorded.sha256) {
            bail!(
                "its run.json records for {} a SHA-256 that is not 64 lowercase hex digits ('{}')",
                Shown(&shown),
                fairaudit::fields::Excerpt(&recorded.sha256)
            );
        }
        // Each place's hash, or why it could not be read: an unreadable file where the
        // run ran does not stop the search here.
        let mut found = Vec::new();
        for place in &places {
            match fairaudit::certify::hash_file(place, String::new()) {
                Ok(hash) if hash.sha256 == recorded.sha256 => return Ok(place.clone()),
                Ok(hash) => {
                    found.push(format!("{} has {}…", Shown(&place.display().to_string()), &hash.sha256[..16]))
                }
                Err(error) => {
                    found.push(format!("{} cannot be read ({error})", Shown(&place.display().to_string())))
                }
            }
        }
        bail!(
            "{} has changed since the {} ran: its run.json records SHA-256 {}…, and {} (run the {} again on the file as it is, or restore the file it read)",
            Shown(&shown),
            self.kind,
            &recorded.sha256[..16],
            found.join(", "),
            self.kind
        )
    }

    /// The end of the message for a file the run's command named that is not found.
    pub(super) fn not_found_hint(&self) -> String {
        let kind = &self.kind;
        match &self.working_dir {
            Some(dir) => {
                format!("neither in {}, where the {kind} ran, nor here", Shown(&dir.display().to_string()))
            }
            None => format!("run certify from the directory the {kind} ran in"),
        }
    }

    /// Who made the folder and when, as an audit's report.html says it (and is made again
    /// from the same).
    pub(super) fn made_by(&self) -> String {
        let text = |field: &str| self.value[field].as_str().unwrap_or_default().to_owned();
        fairaudit::report::audit_html::made_by(
            &text("fairaudit_version"),
            &text("fairaudit_revision"),
            &text("finished_at"),
        )
    }
}

/// A command line a run.json records, parsed as fairaudit parses its arguments; `name`
/// names the folder.
///
/// The command is parsed as it was run, not as the checker's environment would fill it:
/// an option's environment variable (`FAIRAUDIT_KECCAK`) is not read, so a value set where
/// the certificate is checked neither fails the parse nor changes what is run again.
pub(super) fn recorded_command(command_line: &[String], name: &str) -> Result<Cli> {
    use clap::{CommandFactory, FromArgMatches};
    let cannot_parse = |e: clap::Error| {
        anyhow!(
            "{name}: its run.json records a command fairaudit cannot parse: {}",
            e.render().to_string().lines().next().unwrap_or_default()
        )
    };
    let matches = without_environment(Cli::command())
        .try_get_matches_from(std::iter::once("fairaudit".to_owned()).chain(command_line.iter().cloned()))
        .map_err(cannot_parse)?;
    Cli::from_arg_matches(&matches).map_err(cannot_parse)
}

/// `command` with no option read from an environment variable, in any subcommand.
fn without_environment(command: clap::Command) -> clap::Command {
    command.mut_args(|arg| arg.env(None)).mut_subcommands(without_environment)
}

/// The audit command recorded in `dir`'s run.json, parsed, and the run.json; `name` names
/// the folder.
pub(super) fn audit_command(dir: &Path, name: &str) -> Result<(RunJson, AuditArgs)> {
    let Some(run) = RunJson::read(dir) else {
        bail!("{name}: not an audit's output folder (no readable run.json)");
    };
    let kind = &run.kind;
    if kind != "audit" {
        bail!(
            "{name}: holds the output of a fairaudit {}, not of an audit",
            if kind.is_empty() { "run" } else { &kind }
        );
    }
    let parsed = recorded_command(&run.command_line, name)?;
    let Command::Audit(args) = parsed.command else {
        bail!("{name}: its run.json records a command that is not an audit");
    };
    if let Some(scheme) = args.scheme.filter(|&scheme| scheme != fairaudit::scheme::SchemeId::Sha3) {
        let keyed = fairaudit::scheme::keyed::KeyedScheme::of(scheme);
        if scheme.crash_variant().is_none() && keyed.is_none() {
            bail!("{name}: an audit of scheme {scheme} cannot be certified yet (docs/schemes.md)");
        }
    }
    Ok((run, args))
}

/// A sweep of a scheme other than the default, as its run.json records it.
pub(super) enum SchemeSweep {
    /// Of a crash chain.
    Chain(ChainCommand),
    /// Of a game of the HMAC-SHA256 family: a sweep, or a complete merge.
    Stake { command_line: Vec<String>, source: StakeSource },
}

/// What a sweep of the HMAC-SHA256 family is swept again from.
pub(super) enum StakeSource {
    /// A sweep: its recorded command.
    Sweep(Box<crate::cli::args::SweepArgs>),
    /// A complete merge (of shards, or of adjacent sweeps): what its run.json records it
    /// merged (its plan; the commitments are computed again) and the `--alpha` of its
    /// recorded command. A complete merge writes the files of one sweep of the whole
    /// range, so it is checked against that sweep.
    Merge { plan: StakePlan, alpha: f64 },
}

/// A sweep of a crash chain as its run.json records it.
pub(super) struct ChainCommand {
    pub(super) command_line: Vec<String>,
    pub(super) args: crate::cli::args::SweepArgs,
    pub(super) scheme: fairaudit::scheme::SchemeId,
    pub(super) variant: CrashVariant,
}

/// The sweep of a scheme other than the default recorded in `dir`'s run.json, when it
/// holds one; an error when it holds a sweep's command fairaudit cannot parse, or a sweep
/// of a scheme that cannot be certified. `name` names the folder.
pub(super) fn scheme_sweep(dir: &Path, name: &str) -> Result<Option<SchemeSweep>> {
    let Some(RunJson { kind, command_line, value: recorded, .. }) = RunJson::read(dir) else {
        return Ok(None);
    };
    let merged_scheme = recorded["plan"]["scheme"]
        .as_str()
        .and_then(|name| name.parse().ok())
        .and_then(fairaudit::scheme::keyed::KeyedScheme::of);
    if let Some(scheme) = merged_scheme.filter(|_| kind == "merge") {
        let Command::Merge(merge) = recorded_command(&command_line, name)?.command else {
            bail!("{name}: its run.json records a merge's output but a command that is not a merge");
        };
        let run: StakeRun = serde_json::from_value(recorded)
            .with_context(|| format!("{name}/run.json: not the run.json of a merge of scheme {scheme}"))?;
        if run.partial.is_some() || !run.complete {
            bail!("{name}: a partial merge of shards (--allow-partial), which speaks only for the shards it holds, cannot be certified; sweep the missing shards and merge them all");
        }
        crate::cli::merge_stake::refuse_unsupported(&merge)
            .with_context(|| format!("{name}: its run.json records a merge command that merge refuses"))?;
        let source = StakeSource::Merge { plan: run.plan, alpha: merge.report.alpha };
        return Ok(Some(SchemeSweep::Stake { command_line, source }));
    }
    if kind != "sweep" {
        return Ok(None);
    }
    let parsed = recorded_command(&command_line, name)?;
    let Command::Sweep(args) = parsed.command else { return Ok(None) };
    let Some(scheme) = args.scheme.filter(|&scheme| scheme != fairaudit::scheme::SchemeId::Sha3) else {
        return Ok(None);
    };
    if fairaudit::scheme::keyed::KeyedScheme::of(scheme).is_some() {
        if args.cluster.shards.is_some() {
            bail!("{name}: one shard of a sweep of scheme {scheme}, which speaks for its slice of the nonces only; certify the merge of all its shards, or a sweep of the whole range");
        }
        if recorded["complete"] == false {
            bail!("{name}: the sweep is not complete (it was interrupted), and a partial sweep cannot be certified; finish it first (the same command continues it)");
        }
        return Ok(Some(SchemeSweep::Stake { command_line, source: StakeSource::Sweep(Box::new(args)) }));
    }
    let Some(variant) = scheme.crash_variant() else {
        bail!("{name}: a sweep of scheme {scheme} cannot be certified yet (docs/schemes.md)");
    };
    Ok(Some(SchemeSweep::Chain(ChainCommand { command_line, args, scheme, variant })))
}

/// The command a default-scheme sweep's or merge's run.json records, parsed.
pub(super) enum RecordedRun {
    Sweep(Box<crate::cli::args::SweepArgs>),
    Merge(Box<crate::cli::args::MergeArgs>),
}

impl RecordedRun {
    /// The command `command_line` records; `name` names its folder.
    pub(super) fn parse(command_line: &[String], name: &str) -> Result<RecordedRun> {
        match recorded_command(command_line, name)?.command {
            Command::Sweep(args) => Ok(RecordedRun::Sweep(Box::new(args))),
            Command::Merge(args) => Ok(RecordedRun::Merge(Box::new(args))),
            _ => bail!("{name}: its run.json records a command that is neither a sweep nor a merge"),
        }
    }

    /// Its level, paytable and claims files.
    pub(super) fn report(&self) -> &ReportArgs {
        match self {
            RecordedRun::Sweep(args) => &args.report,
            RecordedRun::Merge(args) => &args.report,
        }
    }

    /// `sweep` or `merge`, as run.json's kind names it.
    pub(super) fn kind(&self) -> &'static str {
        match self {
            RecordedRun::Sweep(_) => "sweep",
            RecordedRun::Merge(_) => "merge",
        }
    }
}
