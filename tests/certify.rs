//! `fairaudit certify` and `certify --check`: a certificate pins every input, output and
//! verdict, and a check names what was changed; a partial sweep is never certified; the
//! PDF is rendered with its page count where Chromium exists.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

fn sweep(out: &Path, game: &str, nonces: &str) {
    fairaudit()
        .args(["sweep", "--game", game, "--nonces", nonces, "--quiet", "--out"])
        .arg(out)
        .assert()
        .success();
}

/// `certify` on `sweeps` and `audits` into `out`, without the PDF unless asked.
fn certify(sweeps: &[&Path], audits: &[&Path], out: &Path, pdf: bool) -> assert_cmd::assert::Assert {
    let mut command = fairaudit();
    command.args(["certify", "--operator", "Test Casino \"Ltd\"", "--out"]).arg(out);
    for dir in sweeps {
        command.arg("--sweep").arg(dir);
    }
    for dir in audits {
        command.arg("--audit").arg(dir);
    }
    if !pdf {
        command.arg("--no-pdf");
    }
    command.assert()
}

fn check(dir: &Path) -> assert_cmd::assert::Assert {
    fairaudit().args(["certify", "--check"]).arg(dir).assert()
}

fn stdout(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stdout).into_owned()
}

/// Changes one byte of `path` (the first digit it holds, to another digit).
fn change_one_byte(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let at = bytes.iter().position(u8::is_ascii_digit).expect("a digit to change");
    bytes[at] = if bytes[at] == b'7' { b'8' } else { b'7' };
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn one_changed_byte_of_one_input_fails_the_check_naming_that_file() {
    let dir = tempfile::tempdir().unwrap();
    let (swept, cert) = (dir.path().join("sweep"), dir.path().join("cert"));
    sweep(&swept, "roulette-european", "0..20000");
    let made = certify(&[&swept], &[], &cert, false).success();
    assert!(stdout(&made).contains("claim roulette-european rtp 97.30%: HOLDS"), "{}", stdout(&made));
    let passed = check(&cert).success();
    assert!(stdout(&passed).contains("every hash and every verdict"), "{}", stdout(&passed));

    let changed = swept.join("tests.csv");
    change_one_byte(&changed);
    let failed = check(&cert).code(1);
    let text = stdout(&failed);
    let named: Vec<&str> = text.lines().filter(|l| l.starts_with("MISMATCH")).collect();
    assert_eq!(named.len(), 1, "exactly the changed file: {text}");
    assert!(named[0].starts_with(&format!("MISMATCH {}: SHA-256", changed.display())), "{text}");
}

#[test]
fn a_changed_verdict_in_an_output_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let (swept, cert) = (dir.path().join("sweep"), dir.path().join("cert"));
    sweep(&swept, "roulette-american", "0..20000");
    // American roulette returns 94.737%: the 97% claim does not hold, so certify exits 1.
    certify(&[&swept], &[], &cert, false).code(1);
    check(&cert).success();

    let html_path = cert.join("certificate.html");
    let html = std::fs::read_to_string(&html_path).unwrap();
    let key = "data-verdict=\"claim roulette-american rtp 97%\">DOES NOT HOLD<";
    assert!(html.contains(key), "the claim's verdict is marked in the document");
    std::fs::write(&html_path, html.replace(key, "data-verdict=\"claim roulette-american rtp 97%\">HOLDS<"))
        .unwrap();
    let text = stdout(&check(&cert).code(1));
    assert!(text.contains("MISMATCH certificate.html: SHA-256"), "{text}");
    assert!(
        text.contains("MISMATCH certificate.html: verdict 'claim roulette-american rtp 97%' reads HOLDS, recomputed DOES NOT HOLD"),
        "{text}"
    );

    std::fs::write(&html_path, html).unwrap();
    let manifest_path = cert.join("manifest.json");
    let manifest = std::fs::read_to_string(&manifest_path).unwrap();
    let battery = "\"key\": \"sweep 1 battery\",\n      \"verdict\": \"PASS\"";
    assert!(manifest.contains(battery), "{manifest}");
    std::fs::write(
        &manifest_path,
        manifest.replace(battery, "\"key\": \"sweep 1 battery\",\n      \"verdict\": \"FAIL\""),
    )
    .unwrap();
    let text = stdout(&check(&cert).code(1));
    assert_eq!(text.lines().filter(|l| l.starts_with("MISMATCH")).count(), 1, "{text}");
    assert!(
        text.contains("MISMATCH manifest.json: verdict 'sweep 1 battery' reads FAIL, recomputed PASS"),
        "{text}"
    );
}

#[test]
fn a_partial_sweep_is_refused_saying_why() {
    use fairaudit::chain::{KeccakRequest, Kernel};
    use fairaudit::sweep::{self, SweepControl};
    use fairaudit::tally::file::{NonceRange, Plan, SeedSource};
    let dir = tempfile::tempdir().unwrap();
    let partial = dir.path().join("partial");
    std::fs::create_dir(&partial).unwrap();
    // An interrupted sweep as the library leaves it: Ctrl-C after the first chunk.
    let stop = AtomicBool::new(false);
    let progress = |_: u64| stop.store(true, Ordering::SeqCst);
    let control = SweepControl {
        chunk: 1000,
        stop: &stop,
        progress: &progress,
        kernel: Kernel::select(KeccakRequest::Auto).unwrap(),
    };
    let plan = Plan {
        games: vec![fairaudit::games::GameId::RouletteEuropean],
        nonces: vec![NonceRange { start: 0, end: 100_000 }],
        seed_source: SeedSource::Default,
        seed_pairs: vec![fairaudit::chain::seeds::default_seed_pair()],
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let tallies = pool.install(|| sweep::run(&plan, None, &control)).unwrap();
    assert!(!tallies.complete && tallies.rounds() < 100_000);
    std::fs::write(partial.join("tally.json"), tallies.to_bytes()).unwrap();

    let cert = dir.path().join("cert");
    certify(&[&partial], &[], &cert, false).code(2).stderr(
        predicate::str::contains("the sweep is not complete").and(predicate::str::contains("--resume")),
    );
    assert!(!cert.exists(), "nothing is written for a refused certificate");
}

#[test]
fn an_audited_history_is_replayed_and_its_log_pinned() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.csv");
    std::fs::copy(root.join("tests/data/american-log.csv"), &log).unwrap();
    let (audited, cert) = (dir.path().join("audit"), dir.path().join("cert"));
    fairaudit()
        .args(["audit", "--game", "roulette-american", "--outcomes"])
        .arg(&log)
        .arg("--out")
        .arg(&audited)
        .assert()
        .success();
    let made = certify(&[], &[&audited], &cert, false).code(1);
    let text = stdout(&made);
    assert!(
        text.contains(&format!(
            "bet history 1 ({}): 3000 rows, 0 mismatches, row checks CLEAN",
            log.display()
        )),
        "{text}"
    );
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    assert!(html.contains("data-verdict=\"audit 1 rows\">CLEAN<"));
    assert!(
        html.contains("keno: no sweep or bet history of this game was given"),
        "games not examined are said"
    );
    check(&cert).success();

    change_one_byte(&log);
    let text = stdout(&check(&cert).code(1));
    assert!(text.contains(&format!("MISMATCH {}: SHA-256", log.display())), "{text}");
}

#[test]
fn keno_claims_against_the_illustrative_paytable_say_so_wherever_they_appear() {
    let dir = tempfile::tempdir().unwrap();
    let (swept, cert) = (dir.path().join("sweep"), dir.path().join("cert"));
    sweep(&swept, "keno", "0..5000");
    let made = certify(&[&swept], &[], &cert, false);
    assert!(stdout(&made).contains("claim keno rtp 99%: HOLDS (against the ILLUSTRATIVE example paytable)"));
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    let marker = "data-verdict=\"claim keno rtp 99%\"";
    let places: Vec<usize> = html.match_indices(marker).map(|(at, _)| at).collect();
    assert!(places.len() >= 2, "on the cover and in the results");
    for at in places {
        let start = html[..at].rfind("<tr>").max(html[..at].rfind("<p")).unwrap();
        assert!(html[start..at].contains("ILLUSTRATIVE"), "{}", &html[start..at]);
    }
    let table = &html[html.find("id=\"rtp-table\"").expect("the RTP table")..];
    let table = &table[..table.find("</table>").unwrap()];
    let keno_rows: Vec<&str> = table.split("<tr>").filter(|row| row.starts_with("<td>keno</td>")).collect();
    assert_eq!(keno_rows.len(), 10, "one row per pick count");
    assert!(
        keno_rows.iter().all(|row| row.contains("illustrative paytable")),
        "every Keno RTP row is marked"
    );
}

#[test]
fn without_chromium_the_rest_is_written_and_stderr_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (swept, cert) = (dir.path().join("sweep"), dir.path().join("cert"));
    sweep(&swept, "roulette-european", "0..2000");
    fairaudit()
        .env("FAIRAUDIT_CHROMIUM", dir.path().join("no-such-chromium"))
        .args(["certify", "--operator", "X", "--sweep"])
        .arg(&swept)
        .arg("--out")
        .arg(&cert)
        .assert()
        .success()
        .stderr(predicate::str::contains("no Chromium found"));
    assert!(cert.join("certificate.html").is_file() && cert.join("manifest.json").is_file());
    assert!(!cert.join("certificate.pdf").exists());
    // An earlier certificate is not replaced without --force.
    certify(&[&swept], &[], &cert, false).code(2).stderr(predicate::str::contains("--force"));
}

fn chromium_available() -> bool {
    let found =
        ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"].iter().any(|name| {
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .any(|d| d.join(name).is_file())
        });
    if !found {
        assert!(
            std::env::var_os("FAIRAUDIT_REQUIRE_CHROMIUM").is_none(),
            "FAIRAUDIT_REQUIRE_CHROMIUM is set but no Chromium is on the PATH"
        );
        eprintln!("skipped: no Chromium on the PATH, so no certificate.pdf to count pages of");
    }
    found
}

#[test]
fn the_pdf_is_rendered_with_a_page_per_section_where_chromium_exists() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (swept, cert) = (dir.path().join("sweep"), dir.path().join("cert"));
    sweep(&swept, "roulette-european", "0..20000");
    let made = certify(&[&swept], &[], &cert, true).success();
    let pdf = std::fs::read(cert.join("certificate.pdf")).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    let pages = fairaudit::certify::pdf_page_count(&pdf);
    // The cover and six sections, each opening a page; a runaway layout would be far more.
    assert!((7..=40).contains(&pages), "{pages} pages");
    assert!(stdout(&made).contains(&format!("certificate.pdf ({pages} pages)")), "{}", stdout(&made));
    if let Ok(info) = std::process::Command::new("pdfinfo").arg(cert.join("certificate.pdf")).output() {
        let info = String::from_utf8_lossy(&info.stdout);
        if let Some(line) = info.lines().find(|l| l.starts_with("Pages:")) {
            assert_eq!(line.split_whitespace().nth(1), Some(pages.to_string().as_str()), "pdfinfo agrees");
        }
    }
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(cert.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["pdf_pages"], pages);
    let outputs: Vec<&str> =
        manifest["outputs"].as_array().unwrap().iter().map(|o| o["path"].as_str().unwrap()).collect();
    assert_eq!(outputs, ["certificate.html", "certificate.pdf"]);
    check(&cert).success();
}

#[test]
fn certify_needs_something_to_certify_and_an_operator() {
    let dir = tempfile::tempdir().unwrap();
    fairaudit()
        .args(["certify", "--operator", "X", "--out"])
        .arg(dir.path().join("c"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nothing to certify"));
    fairaudit()
        .args(["certify", "--sweep", "reports"])
        .arg("--out")
        .arg(dir.path().join("c"))
        .assert()
        .code(2);
    fairaudit()
        .args(["certify", "--check"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("manifest.json"));
}
