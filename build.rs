//! Records the source revision the binary is built from, for `fairaudit --version` and the
//! `run.json` of every run: `FAIRAUDIT_REVISION` is the commit (12 hex digits) with
//! `-dirty` when the files that make the binary differ from it, or `unknown` when there is
//! no git or no repository (a build from a source tarball). Setting `FAIRAUDIT_REVISION`
//! in the build's environment overrides it (a packager who knows the revision).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The files whose changes make a build differ from its commit.
const SOURCES: [&str; 4] = ["src", "build.rs", "Cargo.toml", "Cargo.lock"];

fn main() {
    println!("cargo:rerun-if-env-changed=FAIRAUDIT_REVISION");
    let revision = match std::env::var("FAIRAUDIT_REVISION") {
        Ok(given) if !given.trim().is_empty() => given.trim().to_owned(),
        _ => from_git().unwrap_or_else(|| "unknown".to_owned()),
    };
    println!("cargo:rustc-env=FAIRAUDIT_REVISION={revision}");
}

/// Runs `git` in the package's folder; `None` when it is missing or fails.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|output| output.status.success())?;
    Some(String::from_utf8(output.stdout).ok()?.trim().to_owned())
}

fn from_git() -> Option<String> {
    // The build reruns when HEAD moves (a commit, a checkout), when the branch it names
    // moves, and when a source changes (the `-dirty` flag). In a worktree HEAD lives in
    // the worktree's git folder and the branch in the common one.
    for source in SOURCES {
        println!("cargo:rerun-if-changed={source}");
    }
    let git_dir = PathBuf::from(git(&["rev-parse", "--absolute-git-dir"])?);
    let common_dir = git(&["rev-parse", "--git-common-dir"]).map(PathBuf::from);
    let common_dir = match common_dir {
        Some(dir) if dir.is_relative() => Path::new(env!("CARGO_MANIFEST_DIR")).join(dir),
        Some(dir) => dir,
        None => git_dir.clone(),
    };
    watch(&git_dir.join("HEAD"));
    watch(&git_dir.join("index"));
    watch(&common_dir.join("packed-refs"));
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch(&common_dir.join(branch));
    }
    let commit = git(&["rev-parse", "--short=12", "HEAD"])?;
    let mut status = vec!["status", "--porcelain", "--untracked-files=no", "--"];
    status.extend(SOURCES);
    let dirty = git(&status).is_none_or(|changes| !changes.is_empty());
    Some(if dirty { format!("{commit}-dirty") } else { commit })
}

fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}
