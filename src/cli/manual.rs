//! `fairaudit completions SHELL` and `fairaudit man`: shell completions and man pages,
//! both generated from the clap definitions of [`super::Cli`] (`clap_complete`,
//! `clap_mangen`), so they name exactly the commands and options the binary accepts.

use super::output::AtomicFile;
use super::Verdict;
use anyhow::{Context, Result};
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use clap_mangen::roff::{roman, Roff};
use clap_mangen::Man;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish.
    #[arg(value_name = "SHELL")]
    shell: Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write fairaudit.1 and a page per command (fairaudit-sweep.1, ...) into this folder
    /// (created when missing) instead of printing fairaudit.1.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replace the pages in --out if they exist.
    #[arg(long, requires = "out")]
    force: bool,
}

/// The name the completions complete and the pages are named after.
const BIN: &str = "fairaudit";

pub fn completions(args: CompletionsArgs) -> Result<Verdict> {
    super::print::bytes(&completion_script(args.shell));
    Ok(Verdict::Clean)
}

pub fn man(args: ManArgs) -> Result<Verdict> {
    match args.out {
        None => super::print::bytes(&pages().swap_remove(0).1),
        Some(dir) => {
            std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
            let pages = pages();
            // Refuse before writing anything: either every page is written or none.
            let mut files = Vec::new();
            for (name, _) in &pages {
                files.push(AtomicFile::create(&dir.join(name), args.force)?);
            }
            for (mut file, (_, page)) in files.into_iter().zip(&pages) {
                file.write_all(page)?;
                file.commit()?;
            }
            let names: Vec<&str> = pages.iter().map(|(name, _)| name.as_str()).collect();
            outln!("wrote {} man pages to {}: {}", pages.len(), dir.display(), names.join(", "));
        }
    }
    Ok(Verdict::Clean)
}

/// The completion script for `shell`.
pub fn completion_script(shell: Shell) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut super::Cli::command(), BIN, &mut script);
    script
}

/// Every man page with its file name: `fairaudit.1` first, then one per command.
pub fn pages() -> Vec<(String, Vec<u8>)> {
    let mut command = super::Cli::command().disable_help_subcommand(true);
    command.build();
    let mut pages = vec![(format!("{BIN}.1"), top_page(command.clone()))];
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        let man = Man::new(sub.clone());
        let mut page = Vec::new();
        man.render(&mut page).expect("rendering to memory cannot fail");
        pages.push((man.get_filename(), page));
    }
    pages
}

/// `fairaudit.1`: clap_mangen's page, with the exit statuses before the version.
fn top_page(command: clap::Command) -> Vec<u8> {
    let mut page = Vec::new();
    Man::new(command).render(&mut page).expect("rendering to memory cannot fail");
    let page = String::from_utf8(page).expect("clap_mangen writes UTF-8");
    // The section has no apostrophe, so it needs no apostrophe preamble of its own.
    let exit_status = exit_status_section().to_roff();
    let page = match page.find(".SH VERSION") {
        Some(at) => format!("{}{exit_status}{}", &page[..at], &page[at..]),
        None => page + &exit_status,
    };
    page.into_bytes()
}

/// The exit statuses every command shares (README's table).
fn exit_status_section() -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    for (status, meaning) in [
        ("0", "Everything checked out."),
        (
            "1",
            "A fairness finding: a round that differs from the chain, a row check that fails, \
             a test that FAILs, a claim that does not hold.",
        ),
        ("2", "A usage or input error, named in one line on standard error."),
        (
            "3",
            "Nothing found, but not everything judged: a battery that cannot judge some game's \
             outcomes at its size (INSUFFICIENT, not PASS, naming the game), with no row checked \
             (more rounds are needed); a rounds file with no rounds; a claims file with no claim \
             about the games shown; a certificate check whose files match but one of which \
             could not be made again and is not vouched for.",
        ),
        ("130", "Interrupted by Ctrl-C or SIGTERM (a sweep saves its progress for --resume)."),
    ] {
        roff.control("TP", []).text([roman(status)]).text([roman(meaning)]);
    }
    roff
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command, and every long option of every command, as the live clap definition
    /// has them: what completions and man pages must name.
    fn commands_and_options() -> Vec<(String, Vec<String>)> {
        let mut command = super::super::Cli::command();
        command.build();
        command
            .get_subcommands()
            .filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
            .map(|sub| {
                let longs = sub
                    .get_arguments()
                    .filter(|arg| !arg.is_hide_set())
                    .filter_map(|arg| arg.get_long().map(|long| format!("--{long}")))
                    .collect();
                (sub.get_name().to_owned(), longs)
            })
            .collect()
    }

    /// Completions are generated from the live definition: a new command or option that
    /// a completion script lacked would fail here.
    #[test]
    fn every_completion_script_names_every_command_and_option() {
        let commands = commands_and_options();
        assert!(commands.len() >= 9, "{commands:?}");
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::PowerShell, Shell::Elvish] {
            let script = String::from_utf8(completion_script(shell)).unwrap();
            for (name, longs) in &commands {
                assert!(script.contains(name.as_str()), "{shell}: no command {name}");
                for long in longs {
                    // fish writes `-l out`; the others write the option as typed.
                    let fish = format!("-l {}", &long[2..]);
                    assert!(
                        script.contains(long.as_str()) || shell == Shell::Fish && script.contains(&fish),
                        "{shell}: {name} {long} is not completed"
                    );
                }
            }
        }
    }

    /// Each command has its page, and the page names every long option of the command.
    #[test]
    fn every_man_page_names_every_option_of_its_command() {
        let pages = pages();
        let top = String::from_utf8(pages[0].1.clone()).unwrap();
        assert_eq!(pages[0].0, "fairaudit.1");
        // The title line follows clap_mangen's apostrophe preamble when a page needs one.
        let title = top.lines().find(|line| line.starts_with(".TH ")).unwrap_or_default();
        assert!(title.starts_with(".TH fairaudit 1") && top.contains("EXIT STATUS"), "{top}");
        assert!(top.contains(fairaudit::REVISION), "the version section names the revision");
        for (name, longs) in commands_and_options() {
            let file = format!("fairaudit-{name}.1");
            assert!(top.contains(&format!("fairaudit\\-{name}(1)")), "fairaudit.1 does not list {name}");
            let page = pages.iter().find(|(n, _)| *n == file).unwrap_or_else(|| panic!("no {file}"));
            let page = String::from_utf8(page.1.clone()).unwrap();
            for long in longs {
                // roff escapes every '-' of an option as '\-'.
                let escaped = long.replace('-', "\\-");
                assert!(page.contains(&escaped), "{file} does not document {long}");
            }
        }
    }
}
