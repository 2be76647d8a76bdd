//! `fairaudit completions` and `fairaudit man` as installed users run them (the README's
//! Install section): the scripts and pages come out of the binary, name its commands, and
//! `man --out` writes every page or none. That they name every option of the live clap
//! definition is tested beside the code (`src/cli/manual.rs`).

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

/// The commands the completions and pages must name, as `fairaudit --help` lists them.
fn commands() -> Vec<String> {
    let help = fairaudit().arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let listed: Vec<String> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .filter(|name| name != "help")
        .collect();
    assert!(listed.len() >= 9 && listed.iter().any(|c| c == "completions"), "{help}");
    listed
}

#[test]
fn every_shell_gets_a_script_naming_every_command() {
    let commands = commands();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let output = fairaudit().args(["completions", shell]).output().unwrap();
        assert!(output.status.success() && output.stderr.is_empty(), "{shell}: {output:?}");
        let script = String::from_utf8(output.stdout).unwrap();
        for command in &commands {
            assert!(script.contains(command.as_str()), "{shell}: {command} is not completed");
        }
    }
    fairaudit()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("tcsh").and(predicate::str::contains("error:")));
}

#[test]
fn the_bash_script_loads_in_bash() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("fairaudit.bash");
    std::fs::write(&file, fairaudit().args(["completions", "bash"]).output().unwrap().stdout).unwrap();
    let loaded = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("source '{}' && complete -p fairaudit", file.display()))
        .output();
    match loaded {
        Ok(output) => assert!(
            output.status.success() && String::from_utf8_lossy(&output.stdout).contains("fairaudit"),
            "{output:?}"
        ),
        Err(error) => eprintln!("note: bash cannot run ({error}); the script was not loaded"),
    }
}

#[test]
fn man_prints_the_top_page_and_writes_one_per_command() {
    fairaudit().arg("man").assert().success().stdout(
        predicate::str::contains("\n.TH fairaudit 1 ").and(predicate::str::contains("\n.SH \"EXIT STATUS\"")),
    );

    let dir = TempDir::new().unwrap();
    let pages = dir.path().join("man1");
    let out = pages.to_str().unwrap();
    fairaudit()
        .args(["man", "--out", out])
        .assert()
        .success()
        .stdout(predicate::str::contains("fairaudit.1"));
    let mut written: Vec<String> = std::fs::read_dir(&pages)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut expected: Vec<String> = commands().iter().map(|c| format!("fairaudit-{c}.1")).collect();
    expected.push("fairaudit.1".into());
    expected.sort();
    assert_eq!(written, expected);
    for name in &written {
        let page = std::fs::read_to_string(pages.join(name)).unwrap();
        assert!(page.contains(".TH ") && page.contains(".SH NAME"), "{name}: {page}");
    }

    // A second run replaces nothing without --force, and says which page is in the way.
    std::fs::write(pages.join("fairaudit-audit.1"), "mine").unwrap();
    fairaudit().args(["man", "--out", out]).assert().code(2).stderr(predicate::str::contains("--force"));
    assert_eq!(std::fs::read_to_string(pages.join("fairaudit-audit.1")).unwrap(), "mine");
    fairaudit().args(["man", "--out", out, "--force"]).assert().success();
    assert!(std::fs::read_to_string(pages.join("fairaudit-audit.1")).unwrap().contains(".SH NAME"));
}

#[test]
fn version_names_the_revision_as_run_json_records_it() {
    let output = fairaudit().arg("--version").output().unwrap();
    let version = String::from_utf8(output.stdout).unwrap();
    let expected = format!("fairaudit {} (rev {})\n", fairaudit::VERSION, fairaudit::REVISION);
    assert_eq!(version, expected);
    let revision = fairaudit::REVISION.trim_end_matches("-dirty");
    assert!(
        revision == "unknown" || revision.len() == 12 && revision.bytes().all(|b| b.is_ascii_hexdigit()),
        "{version}"
    );

    let dir = TempDir::new().unwrap();
    let out = dir.path().join("run");
    fairaudit()
        .args(["sweep", "--game", "roulette-european", "--nonces", "0..1000", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .success();
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["fairaudit_revision"], fairaudit::REVISION, "{run}");
    assert_eq!(run["fairaudit_version"], fairaudit::VERSION, "{run}");
}

/// The page's exit statuses are the README's table's, one for one (the table is what a
/// newcomer reads; the page what `man fairaudit` shows).
#[test]
fn the_man_page_lists_the_readmes_exit_statuses() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section = &readme[readme.find("## Exit status").expect("the README has the table")..];
    let table: Vec<&str> = section
        .lines()
        .skip_while(|line| !line.starts_with("|---"))
        .skip(1)
        .take_while(|line| line.starts_with('|'))
        .map(|line| line.trim_start_matches('|').split('|').next().unwrap_or_default().trim())
        .collect();
    let output = fairaudit().arg("man").output().unwrap();
    let page = String::from_utf8(output.stdout).unwrap();
    let section: Vec<&str> = page
        .lines()
        .skip_while(|line| !line.contains("EXIT STATUS"))
        .skip(1)
        .take_while(|line| !line.starts_with(".SH"))
        .collect();
    let listed: Vec<&str> =
        section.windows(2).filter(|pair| pair[0] == ".TP").map(|pair| pair[1].trim()).collect();
    assert_eq!(table, ["0", "1", "2", "3", "130"]);
    assert_eq!(listed, table, "{page}");
}
