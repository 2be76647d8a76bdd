//! Records the source revision the binary is built from, for `fairaudit --version` and the
//! `run.json` of every run: `FAIRAUDIT_REVISION` is the commit (12 hex digits) with
//! `-dirty` when the files that make the binary differ from it, or `unknown` when there is
//! no git or the package is not the top of a repository and no `.cargo_vcs_info.json`
//! names it (a `git archive` tarball, even one unpacked inside another repository; a
//! `cargo package` tarball carries that file and so its commit). Setting `FAIRAUDIT_REVISION`
//! in the build's environment overrides it (a packager who knows the revision).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The files whose changes make a build differ from its commit.
const SOURCES: [&str; 4] = ["src", "build.rs", "Cargo.toml", "Cargo.lock"];

fn main() {
    println!("cargo:rerun-if-env-changed=FAIRAUDIT_REVISION");
    // Whichever way the revision is found below, the kernel is compiled again when it
    // changes (a `rerun-if` line turns off Cargo's default of rerunning on any change).
    for kernel in ["src/device/kernel.c", "src/device/emulator.cpp", "src/device/cuda_on_cpu.h"] {
        println!("cargo:rerun-if-changed={kernel}");
    }
    println!("cargo:rerun-if-changed=build.rs");
    let revision = match std::env::var("FAIRAUDIT_REVISION") {
        Ok(given) if !given.trim().is_empty() => given.trim().to_owned(),
        _ => from_git().or_else(from_package).unwrap_or_else(|| "unknown".to_owned()),
    };
    println!("cargo:rustc-env=FAIRAUDIT_REVISION={revision}");
    // The accelerator's round kernel, compiled for the CPU (src/device): as C, its host
    // entry points; as C++ with CUDA emulated, its `__global__` entry point.
    cc::Build::new().file("src/device/kernel.c").opt_level(3).warnings(true).compile("fairaudit_kernel");
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .file("src/device/emulator.cpp")
        .opt_level(3)
        .warnings(true)
        .compile("fairaudit_kernel_emulator");
    println!("cargo:rustc-link-lib=pthread");
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
    // Only fairaudit's own repository names its revision: a source tarball unpacked inside
    // some other repository (a vendored copy) would otherwise report that one's commit.
    let top = PathBuf::from(git(&["rev-parse", "--show-toplevel"])?);
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    if top.canonicalize().ok()? != manifest_dir.canonicalize().ok()? {
        return None;
    }
    let git_dir = PathBuf::from(git(&["rev-parse", "--absolute-git-dir"])?);
    let common_dir = git(&["rev-parse", "--git-common-dir"]).map(PathBuf::from);
    let common_dir = match common_dir {
        Some(dir) if dir.is_relative() => Path::new(env!("CARGO_MANIFEST_DIR")).join(dir),
        Some(dir) => dir,
        None => git_dir.clone(),
    };
    watch(&git_dir.join("HEAD"));
    watch(&common_dir.join("packed-refs"));
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch(&common_dir.join(branch));
    }
    let commit = git(&["rev-parse", "--short=12", "HEAD"])?;
    // Without optional locks: a build never rewrites the user's index (nor waits on it).
    let mut status = vec!["--no-optional-locks", "status", "--porcelain", "--untracked-files=no", "--"];
    status.extend(SOURCES);
    let dirty = git(&status).is_none_or(|changes| !changes.is_empty());
    Some(if dirty { format!("{commit}-dirty") } else { commit })
}

fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

/// The commit `cargo package` recorded in `.cargo_vcs_info.json` (a `.crate` tarball has no
/// `.git`, but this file names the commit it was packaged from, with `"dirty": true` when
/// the sources differed). Read by hand: one field of a small file Cargo writes itself.
fn from_package() -> Option<String> {
    let info = Path::new(env!("CARGO_MANIFEST_DIR")).join(".cargo_vcs_info.json");
    watch(&info);
    let text = std::fs::read_to_string(info).ok()?;
    let after = &text[text.find("\"sha1\"")? + "\"sha1\"".len()..];
    let sha1 = after.trim_start().strip_prefix(':')?.trim_start().strip_prefix('"')?;
    let commit = sha1.get(..12).filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))?;
    let dirty = text.contains("\"dirty\": true") || text.contains("\"dirty\":true");
    Some(if dirty { format!("{commit}-dirty") } else { commit.to_owned() })
}
