//! Records the git commit the binary is built from (`FAIRAUDIT_REVISION`, with `-dirty`
//! when the sources differ from it), for the certificate's manifest. Empty outside a git
//! checkout.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

fn main() {
    let revision = git(&["rev-parse", "HEAD"]).unwrap_or_default();
    let dirty = !revision.is_empty()
        && Command::new("git")
            .args(["diff", "--quiet", "HEAD", "--", "src", "Cargo.toml", "Cargo.lock", "build.rs"])
            .status()
            .is_ok_and(|status| !status.success());
    let suffix = if dirty { "-dirty" } else { "" };
    println!("cargo:rustc-env=FAIRAUDIT_REVISION={revision}{suffix}");
    // Again when the commit moves (HEAD, or the branch it points at) or the sources change.
    for path in ["HEAD", "logs/HEAD"] {
        if let Some(file) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={file}");
        }
    }
    for path in ["src", "Cargo.toml", "Cargo.lock", "build.rs"] {
        println!("cargo:rerun-if-changed={path}");
    }
}
