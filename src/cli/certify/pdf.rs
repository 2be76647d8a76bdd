//! certificate.pdf printed from certificate.html by headless Chromium, where it is
//! installed, in its own process group and with a time limit.

use crate::cli::folder::OutputFolder;
use crate::cli::input;
use anyhow::{Context, Result};
use fairaudit::certify::pdf_page_count;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where Chromium is looked for, in order, unless `FAIRAUDIT_CHROMIUM` names it.
pub(super) const CHROMIUM_NAMES: &[&str] =
    &["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/// How long Chromium may take to print the certificate.
pub(super) const CHROMIUM_TIMEOUT: Duration = Duration::from_secs(180);

/// The Chromium to print with: `FAIRAUDIT_CHROMIUM` when set (a path or a name), else
/// the first of [`CHROMIUM_NAMES`] on the PATH.
pub(super) fn find_chromium() -> Option<PathBuf> {
    let on_path = |name: &str| -> Option<PathBuf> {
        let candidate = Path::new(name);
        if candidate.components().count() > 1 {
            return candidate.is_file().then(|| candidate.to_owned());
        }
        std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(name)).find(|p| p.is_file())
    };
    match std::env::var("FAIRAUDIT_CHROMIUM") {
        Ok(name) => on_path(&name),
        Err(_) => CHROMIUM_NAMES.iter().find_map(|name| on_path(name)),
    }
}

/// The name of Chromium's profile folder inside the staging folder: removed after
/// printing, and with the staging folder by the next run when certify is killed.
pub(super) const CHROMIUM_PROFILE: &str = ".chromium-profile";

/// Stops Chromium and every process it started (its own process group).
pub(super) fn stop_chromium(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        // SAFETY: kill(2) on the process group this function's caller created for the
        // child; no memory is touched.
        unsafe {
            libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Prints the staged certificate.html to certificate.pdf with headless Chromium; the
/// number of pages, or `None` (said on stderr) when there is no Chromium or it fails.
pub(super) fn render_pdf(folder: &OutputFolder) -> Result<Option<usize>> {
    let Some(chromium) = find_chromium() else {
        errln!(
            "note: no Chromium found ({}; or set FAIRAUDIT_CHROMIUM): certificate.pdf not written; certificate.html prints from any browser",
            CHROMIUM_NAMES.join(", ")
        );
        return Ok(None);
    };
    let html = folder.staged("certificate.html").canonicalize()?;
    let pdf = folder.staged("certificate.pdf");
    let pdf_abs = html.with_file_name("certificate.pdf");
    let profile = html.with_file_name(CHROMIUM_PROFILE);
    // The flags of scripts/check-report.sh: no sandbox (CI runs as root), no GPU, no
    // network noise; no browser header and footer (the page's own CSS has them).
    let mut command = std::process::Command::new(&chromium);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-pdf-header-footer",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--print-to-pdf={}", pdf_abs.display()))
        .arg(format!("file://{}", html.display()))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group, so that a stop takes its helpers too.
        command.process_group(0);
        // SAFETY: prctl is async-signal-safe and touches no memory of the parent; it asks
        // the kernel to kill Chromium when fairaudit dies, even by SIGKILL.
        #[cfg(target_os = "linux")]
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
    }
    let mut child = command.spawn().with_context(|| format!("cannot start {}", chromium.display()))?;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            // Helpers of the group may outlive the main process for a moment.
            stop_chromium(&mut child);
            break Some(status);
        }
        if started.elapsed() > CHROMIUM_TIMEOUT || input::stopped() {
            stop_chromium(&mut child);
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = std::fs::remove_dir_all(&profile);
    if input::stopped() {
        return Err(anyhow::Error::new(input::Interrupted));
    }
    let pages = std::fs::read(&pdf).ok().map(|bytes| pdf_page_count(&bytes)).filter(|&n| n > 0);
    match (status, pages) {
        (Some(status), Some(pages)) if status.success() => Ok(Some(pages)),
        (status, _) => {
            let _ = std::fs::remove_file(&pdf);
            errln!(
                "note: {} {}: certificate.pdf not written",
                chromium.display(),
                match status {
                    None => format!("did not finish in {} s", CHROMIUM_TIMEOUT.as_secs()),
                    Some(s) if !s.success() => format!("failed ({s})"),
                    Some(_) => "wrote no readable PDF".to_owned(),
                }
            );
            Ok(None)
        }
    }
}
