//! `fairaudit certify` and `certify --check`: a certificate is a dossier that pins every
//! input, output and verdict, and a check names what was changed; a partial sweep is never
//! certified; the PDF is rendered with its page count where Chromium exists; signatures
//! verify both ways with OpenSSH.
//!
//! Each way a certificate was fooled or broken (issue 29) and the test that catches it:
//!
//! | tampering or breakage | caught by |
//! |---|---|
//! | one byte of a pinned input changed | `one_changed_byte_of_one_input_fails_the_check_naming_that_file` |
//! | a verdict word changed in the document or the manifest | `a_changed_verdict_in_an_output_is_named` |
//! | `data-verdict` removed, spaced, or a CSS overlay, with the manifest's hash rewritten | `an_edited_document_with_a_rewritten_hash_is_caught_by_rendering_it_again` |
//! | the operator, a command or a file edited and the manifest rewritten to match | `a_rewritten_manifest_is_caught_by_the_published_hash_and_the_signature` |
//! | round counts edited in the manifest | `recorded_figures_are_compared_with_the_recomputed_ones` |
//! | an input dropped from the manifest, a file added to the folder | `the_folder_holds_exactly_the_listed_files` |
//! | the `--columns` mapping of an audit swapped | `an_audits_column_mapping_is_pinned_and_replayed` |
//! | a crafted manifest (non-ASCII hash, alpha −1, 0, 5, 2^64; paths outside) | `crafted_manifests_are_refused_with_exit_2_not_a_panic` |
//! | a pinned file replaced by a FIFO or a link to /dev/zero | `special_files_are_refused_without_reading_them` |
//! | a forged manifest pinning a file of the checker's machine by its absolute path | `a_forged_absolute_path_is_refused_before_anything_is_hashed` |
//! | an input folder replaced by a link to a folder elsewhere | `a_linked_folder_in_the_dossier_is_named_and_nothing_is_hashed_through_it` |
//! | mutated manifests (fuzz) | `mutated_manifests_never_panic_or_hang` |
//! | checked from another directory, or a copied dossier | `a_dossier_copied_elsewhere_checks_from_any_directory` |
//! | a signature by fairaudit checked by ssh-keygen, and the reverse | `signatures_verify_both_ways_with_openssh` |
//! | a forger's key signing under the auditor's fingerprint, checked without allowed signers | `a_shown_fingerprint_that_is_not_the_signing_keys_is_a_mismatch` |
//! | a reordering character in the operator's name | `names_with_reordering_characters_are_refused` |
//! | no audit scope (seed pairs, commitments, nonce ranges) | `an_audited_history_is_replayed_and_its_log_pinned` |
//! | finding rows missing from the page; a reversing character in a player id | `an_audit_certificate_lists_its_finding_rows_with_hidden_characters_made_visible` |
//! | the Keno claim judged against the illustrative paytable | `keno_claims_without_the_operators_paytable_are_not_assessed_wherever_they_appear` |
//! | a sweep's tests, tables, returns or page rewritten with their hashes; its run.json's plan, command, kind or format changed | `a_sweeps_own_files_are_made_again_from_its_tallies_and_named_when_rewritten` |
//! | two runs in different directories naming files by the same relative path; a named file gone or changed | `runs_in_different_directories_are_certified_with_the_files_they_read` |
//! | a certified shard failing its own re-sweep | `a_shard_and_the_merge_of_its_cut_certify_and_check` |

mod common;

use assert_cmd::Command;
use common::dossier::{assert_forgery_named, edit_manifest, rehash};
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

/// `check`, killed after two minutes: a check must never hang.
fn check_within(dir: &Path) -> assert_cmd::assert::Assert {
    fairaudit().timeout(std::time::Duration::from_secs(120)).args(["certify", "--check"]).arg(dir).assert()
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
    assert!(stdout(&passed).contains("every file, hash, figure and verdict"), "{}", stdout(&passed));
    assert!(stdout(&passed).contains("UNSIGNED"), "{}", stdout(&passed));

    // The original is not read again: the dossier's copy is.
    change_one_byte(&swept.join("tests.csv"));
    check(&cert).success();
    change_one_byte(&cert.join("inputs/sweep-1/tests.csv"));
    let failed = check(&cert).code(1);
    let text = stdout(&failed);
    let named: Vec<&str> = text.lines().filter(|l| l.starts_with("MISMATCH")).collect();
    // Its hash, and its content: not what the sweep's tallies give.
    assert!(
        named.iter().all(|l| l.starts_with("MISMATCH inputs/sweep-1/tests.csv: ")),
        "exactly the changed file: {text}"
    );
    assert!(named[0].starts_with("MISMATCH inputs/sweep-1/tests.csv: SHA-256"), "{text}");
    assert!(
        named.iter().any(|l| l.contains("differs from what the sweep its run.json names gives")),
        "{text}"
    );
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
        text.contains("MISMATCH certificate.html: differs from the document its pinned inputs give"),
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
        device: None,
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

/// A merge of some of a sweep's shards (`--allow-partial`) says PARTIAL: it speaks only
/// for the shards it holds, and is refused as the stake scheme's are, not certified PASS.
#[test]
fn a_partial_merge_is_refused_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let shards = dir.path().join("shards");
    for index in ["0", "2"] {
        fairaudit()
            .args(["sweep", "--game", "roulette-european", "--nonces", "0..3000", "--shards", "3"])
            .args(["--shard-index", index, "--quiet", "--out"])
            .arg(&shards)
            .assert()
            .success();
    }
    let merged = dir.path().join("merged");
    fairaudit()
        .arg("merge")
        .arg(&shards)
        .args(["--allow-partial", "--quiet", "--out"])
        .arg(&merged)
        .assert()
        .success()
        .stdout(predicate::str::contains("verdict: PARTIAL"));
    assert!(std::fs::read_to_string(merged.join("summary.json")).unwrap().contains("\"PARTIAL\""));
    let cert = dir.path().join("cert");
    certify(&[&merged], &[], &cert, false)
        .code(2)
        .stderr(predicate::str::contains("a partial merge of shards (--allow-partial)"));
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
    // The audit's scope: each seed pair and the nonces played under it.
    assert!(html.contains("<td>player-seed</td><td>1–3000</td>"), "the scope lists the seed pair's nonces");
    assert!(
        html.contains("keno: no sweep or bet history of this game was given"),
        "games not examined are said"
    );
    check(&cert).success();

    // A finding made up in the audit's findings.csv, rehashed: auditing the history again
    // gives the file as it was.
    let rel = "inputs/audit-1/findings.csv";
    let findings = std::fs::read_to_string(cert.join(rel)).unwrap();
    std::fs::write(cert.join(rel), findings.clone() + "7,\"\",\"result\",\"1\",\"2\"\n").unwrap();
    rehash(&cert, rel);
    let text = stdout(&check(&cert).code(1));
    assert!(
        text.contains(&format!("MISMATCH {rel}: differs from what the history its run.json names gives")),
        "{text}"
    );
    std::fs::write(cert.join(rel), &findings).unwrap();
    rehash(&cert, rel);
    check(&cert).success();

    // Every other file the audit wrote is made again from the history too: a gap made up,
    // a verdict, a test, a return or the page rewritten (and rehashed) is named.
    type Forgery = fn(&str) -> String;
    let forgeries: [(&str, Forgery); 5] = [
        ("nonce_gaps.csv", |t| t.to_owned() + "7,\"\",\"c\",\"s\",4,4,1,\"no\",\"\"\n"),
        ("summary.json", |t| t.replacen("\"PASS\"", "\"FAIL\"", 1)),
        ("tests.csv", |t| t.replacen("\"PASS\"", "\"WEAK\"", 1)),
        ("rtp.csv", |t| t.replacen(",3000,", ",3001,", 1)),
        ("report.html", |t| t.replacen("3000", "3001", 1)),
    ];
    for (name, forge) in forgeries {
        let rel = format!("inputs/audit-1/{name}");
        let original = std::fs::read_to_string(cert.join(&rel)).unwrap();
        let forged = forge(&original);
        assert_ne!(forged, original, "{name}: the forgery changes nothing");
        std::fs::write(cert.join(&rel), forged).unwrap();
        rehash(&cert, &rel);
        let text = stdout(&check(&cert).code(1));
        assert!(
            text.contains(&format!("MISMATCH {rel}: differs from what the history its run.json names gives")),
            "{name}: {text}"
        );
        std::fs::write(cert.join(&rel), &original).unwrap();
        rehash(&cert, &rel);
    }
    check(&cert).success();

    change_one_byte(&cert.join("inputs/audit-1/history/log.csv"));
    let text = stdout(&check(&cert).code(1));
    assert!(text.contains("MISMATCH inputs/audit-1/history/log.csv: SHA-256"), "{text}");
}

#[test]
fn keno_claims_without_the_operators_paytable_are_not_assessed_wherever_they_appear() {
    let dir = tempfile::tempdir().unwrap();
    let (swept, cert) = (dir.path().join("sweep"), dir.path().join("cert"));
    sweep(&swept, "keno", "0..5000");
    let made = certify(&[&swept], &[], &cert, false);
    assert!(
        stdout(&made).contains("claim keno rtp 99%: NOT ASSESSED (no operator paytable"),
        "{}",
        stdout(&made)
    );
    let manifest = std::fs::read_to_string(cert.join("manifest.json")).unwrap();
    assert!(
        manifest.contains("\"key\": \"claim keno rtp 99%\",\n      \"verdict\": \"NOT ASSESSED\""),
        "{manifest}"
    );
    // Only Keno is in scope: only Keno rounds are worked through.
    assert!(stdout(&made).contains("worked rounds: 2 of 2 reproduce"), "{}", stdout(&made));
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    assert!(!html.contains(">HOLDS<"), "no green HOLDS for a claim judged against the example");
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

/// A claims file about some of the games examined leaves the others' RTP stated but not
/// certified: the certificate says so beside the claims and in its limitations.
#[test]
fn a_game_no_claim_is_about_is_named_as_unclaimed() {
    let dir = tempfile::tempdir().unwrap();
    let (swept, cert) = (dir.path().join("sweep"), dir.path().join("cert"));
    fairaudit()
        .args(["sweep", "--game", "roulette-european", "--game", "roulette-american", "--nonces", "0..2000"])
        .args(["--quiet", "--out"])
        .arg(&swept)
        .assert()
        .success();
    let claims = dir.path().join("claims.csv");
    std::fs::write(&claims, "game,metric,figure,tolerance,source\nroulette-european,rtp,97.30,0.005,SPEC\n")
        .unwrap();
    fairaudit()
        .args(["certify", "--operator", "X", "--no-pdf", "--sweep"])
        .arg(&swept)
        .arg("--claims")
        .arg(&claims)
        .arg("--out")
        .arg(&cert)
        .assert()
        .success();
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    assert!(html.contains("Claim: none about roulette-american"), "beside the claims");
    assert!(html.contains("No RTP claim about roulette-american was checked"), "in the limitations");
    assert!(!html.contains("No RTP claim about roulette-european"));
    check(&cert).success();
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

/// Whether a tool the test needs was `found`; when not, the test skips, unless CI set
/// `require` (then the missing tool fails the test instead of hiding it).
fn available(found: bool, require: &str, skipped: &str) -> bool {
    if !found {
        assert!(std::env::var_os(require).is_none(), "{require} is set but {skipped}");
        eprintln!("skipped: {skipped}");
    }
    found
}

fn chromium_available() -> bool {
    let found =
        ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"].iter().any(|name| {
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .any(|d| d.join(name).is_file())
        });
    available(
        found,
        "FAIRAUDIT_REQUIRE_CHROMIUM",
        "no Chromium on the PATH, so no certificate.pdf to count pages of",
    )
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

fn mismatches(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("MISMATCH")).collect()
}

/// A small certified European sweep in a fresh folder: (tempdir, certificate folder).
fn certified() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (swept, cert) = (dir.path().join("sweep"), dir.path().join("cert"));
    sweep(&swept, "roulette-european", "0..3000");
    certify(&[&swept], &[], &cert, false).success();
    (dir, cert)
}

#[test]
fn the_checkers_environment_does_not_change_the_recorded_commands() {
    // FAIRAUDIT_KECCAK fills `sweep --keccak` when a sweep is run; a recorded sweep is run
    // again as it was recorded, whatever the checker's environment says.
    let (_dir, cert) = certified();
    for value in ["bogus", "scalar"] {
        let assert =
            fairaudit().env("FAIRAUDIT_KECCAK", value).args(["certify", "--check"]).arg(&cert).assert();
        let text = stdout(&assert.success());
        assert!(text.contains("every file") && !text.contains("CANNOT CHECK"), "{value}: {text}");
    }
}

#[test]
fn an_edited_document_with_a_rewritten_hash_is_caught_by_rendering_it_again() {
    let (_dir, cert) = certified();
    let html_path = cert.join("certificate.html");
    let html = std::fs::read_to_string(&html_path).unwrap();
    let overlay = html.replacen("<body>", "<body><style>#verdict{font-size:0}</style>", 1);
    let edits = [
        html.replace("data-verdict=", "data-x="),
        html.replace("data-verdict=", "data-verdict ="),
        overlay,
        html.replace("Test Casino", "Best Casino"),
    ];
    for edited in edits {
        assert_ne!(edited, html);
        std::fs::write(&html_path, &edited).unwrap();
        rehash(&cert, "certificate.html");
        let text = stdout(&check(&cert).code(1));
        assert!(
            mismatches(&text).iter().any(|m| m.contains("certificate.html: differs from the document")),
            "{text}"
        );
    }
}

#[test]
fn a_rewritten_manifest_is_caught_by_the_published_hash_and_the_signature() {
    let (dir, cert) = certified();
    let published = {
        let text = stdout(&check(&cert).success());
        text.lines().next().unwrap().strip_prefix("manifest SHA-256: ").unwrap().to_owned()
    };
    let expect = |cert: &Path| {
        fairaudit().args(["certify", "--check"]).arg(cert).args(["--expect-manifest", &published]).assert()
    };
    expect(&cert).success();
    // A forger with fairaudit at hand writes a whole consistent certificate of their own
    // (another operator, edited inputs): it checks on its own, and only the published
    // hash (or a signature, below) tells it from the auditor's.
    let forged = dir.path().join("forged");
    fairaudit()
        .args(["certify", "--operator", "Other Casino", "--no-pdf", "--sweep"])
        .arg(dir.path().join("sweep"))
        .arg("--out")
        .arg(&forged)
        .assert()
        .success();
    check(&forged).success();
    let text = stdout(&expect(&forged).code(1));
    assert!(mismatches(&text)[0].contains("manifest.json: SHA-256"), "{text}");
    // A bad --expect-manifest is a usage error.
    fairaudit()
        .args(["certify", "--check"])
        .arg(&cert)
        .args(["--expect-manifest", "abc"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("64 hex digits"));
}

/// The print is not made again: a PDF swapped with its hash rewritten in the manifest
/// passes the files' hashes, so the check says that only a pinned manifest vouches for it.
/// Files the manifest adds beside the certificate's own are refused, whatever their hash.
#[test]
fn a_rewritten_pdf_is_vouched_for_only_by_a_pinned_manifest() {
    let (_dir, cert) = certified();
    std::fs::write(cert.join("certificate.pdf"), b"%PDF-1.4 Certificate: PASS").unwrap();
    let pdf = serde_json::json!({"path": "certificate.pdf", "sha256": "", "bytes": 0});
    edit_manifest(&cert, |m| m["outputs"].as_array_mut().unwrap().push(pdf));
    rehash(&cert, "certificate.pdf");
    let text = stdout(&check(&cert).success());
    assert!(text.contains("note: certificate.pdf is not rendered again"), "{text}");
    let published = text.lines().next().unwrap().strip_prefix("manifest SHA-256: ").unwrap();
    let pinned =
        fairaudit().args(["certify", "--check"]).arg(&cert).args(["--expect-manifest", published]).assert();
    assert!(!stdout(&pinned.success()).contains("not rendered again"));

    let extra = serde_json::json!({"path": "certificate-final.html", "sha256": "", "bytes": 0});
    std::fs::write(cert.join("certificate-final.html"), "<h1>PASS</h1>").unwrap();
    edit_manifest(&cert, |m| m["outputs"].as_array_mut().unwrap().push(extra));
    rehash(&cert, "certificate-final.html");
    check(&cert).code(2).stderr(predicate::str::contains(
        "its outputs are certificate.html, certificate.pdf, certificate-final.html",
    ));
}

/// A file name holding a terminal's escape sequence cannot redraw the check's lines: it
/// is shown escaped, and the mismatch is still counted.
#[test]
fn file_names_in_a_dossier_cannot_redraw_the_checks_lines() {
    let (_dir, cert) = certified();
    let name = "\u{1b}[2K\rcheck: every file matches\u{1b}[8m";
    std::fs::write(cert.join(name), b"").unwrap();
    let text = stdout(&check(&cert).code(1));
    assert!(!text.contains('\u{1b}') && !text.contains('\r'), "{text:?}");
    assert!(text.contains("MISMATCH \\u{1b}[2K\\rcheck: every file matches"), "{text}");
    assert!(text.contains("check: 1 mismatch(es)"), "{text}");
}

#[test]
fn recorded_figures_are_compared_with_the_recomputed_ones() {
    let (_dir, cert) = certified();
    edit_manifest(&cert, |m| m["sweeps"][0]["rounds"] = 2999.into());
    let text = stdout(&check(&cert).code(1));
    assert!(
        text.contains("MISMATCH manifest.json: inputs/sweep-1 records 2999 rounds, its tallies hold 3000"),
        "{text}"
    );
    edit_manifest(&cert, |m| {
        m["sweeps"][0]["rounds"] = 3000.into();
        m["sweeps"][0]["command_line"] = serde_json::json!(["sweep", "--nonces", "0..1000000"]);
    });
    let text = stdout(&check(&cert).code(1));
    assert!(text.contains("inputs/sweep-1's command differs from its run.json"), "{text}");
}

#[test]
fn the_folder_holds_exactly_the_listed_files() {
    let (_dir, cert) = certified();
    std::fs::write(cert.join("extra.pdf"), b"%PDF-1.4").unwrap();
    let text = stdout(&check(&cert).code(1));
    assert_eq!(mismatches(&text), ["MISMATCH extra.pdf: a file the manifest does not list"], "{text}");
    std::fs::remove_file(cert.join("extra.pdf")).unwrap();
    edit_manifest(&cert, |m| {
        m["inputs"].as_array_mut().unwrap().retain(|f| f["path"] != "inputs/sweep-1/tests.csv");
    });
    let text = stdout(&check(&cert).code(1));
    assert!(text.contains("MISMATCH inputs/sweep-1/tests.csv: a file the manifest does not list"), "{text}");
    // A pinned file gone, on a pristine certificate: it cannot be checked, exit 2, named.
    let (_dir, cert) = certified();
    std::fs::remove_file(cert.join("inputs/sweep-1/tests.csv")).unwrap();
    let failed = check(&cert).code(2);
    assert!(
        stdout(&failed).contains("CANNOT CHECK inputs/sweep-1/tests.csv: cannot read"),
        "{}",
        stdout(&failed)
    );
    assert!(mismatches(&stdout(&failed)).is_empty());
}

#[test]
fn an_audits_column_mapping_is_pinned_and_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.csv");
    let log = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/american-log.csv"),
    )
    .unwrap();
    let renamed = log.replacen("nonce,server_seed,client_seed,result", "Nonce,Server,Client,Outcome", 1);
    std::fs::write(&history, renamed).unwrap();
    let columns = dir.path().join("columns.txt");
    std::fs::write(&columns, "nonce = Nonce\nserver_seed = Server\nclient_seed = Client\nresult = Outcome\n")
        .unwrap();
    let audited = dir.path().join("audit");
    fairaudit()
        .args(["audit", "--game", "roulette-american", "--outcomes"])
        .arg(&history)
        .arg("--columns")
        .arg(&columns)
        .arg("--out")
        .arg(&audited)
        .assert()
        .success();
    let cert = dir.path().join("cert");
    certify(&[], &[&audited], &cert, false).code(1);
    check(&cert).success();
    // The seeds swapped in the pinned mapping, its hash rewritten: the audit run again
    // finds every round wrong, where the document and the verdicts say CLEAN.
    let copy = cert.join("inputs/audit-1/columns/columns.txt");
    assert!(copy.is_file());
    std::fs::write(&copy, "nonce = Nonce\nserver_seed = Client\nclient_seed = Server\nresult = Outcome\n")
        .unwrap();
    rehash(&cert, "inputs/audit-1/columns/columns.txt");
    let text = stdout(&check(&cert).code(1));
    assert!(text.contains("MISMATCH manifest.json: verdict 'audit 1 rows'"), "{text}");
    assert!(text.contains("certificate.html: differs"), "{text}");
}

#[test]
fn crafted_manifests_are_refused_with_exit_2_not_a_panic() {
    let (_dir, cert) = certified();
    let original = std::fs::read(cert.join("manifest.json")).unwrap();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let crafted: Vec<Edit> = vec![
        Box::new(|m| m["binary"]["sha256"] = "é".repeat(40).into()),
        Box::new(|m| m["alpha"] = (-1.0).into()),
        Box::new(|m| m["alpha"] = 0.0.into()),
        Box::new(|m| m["alpha"] = 5.0.into()),
        Box::new(|m| m["alpha"] = serde_json::json!(18446744073709551616.0)),
        Box::new(|m| m["inputs"][0]["path"] = "../outside.csv".into()),
        Box::new(|m| m["inputs"][0]["path"] = "/etc/passwd".into()),
        Box::new(|m| m["sweeps"][0]["dir"] = "/tmp".into()),
        Box::new(|m| m["version"] = 1.into()),
    ];
    for edit in crafted {
        std::fs::write(cert.join("manifest.json"), &original).unwrap();
        edit_manifest(&cert, edit);
        check(&cert).code(2).stderr(predicate::str::contains("manifest.json: "));
    }
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_without_reading_them() {
    let (_dir, cert) = certified();
    let pinned = cert.join("inputs/sweep-1/tests.csv");
    std::fs::remove_file(&pinned).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &pinned).unwrap();
    let text = stdout(&check_within(&cert).code(1));
    assert!(text.contains("inputs/sweep-1/tests.csv: not a regular file"), "{text}");
    std::fs::remove_file(&pinned).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&pinned).status().unwrap();
    assert!(made.success());
    let text = stdout(&check_within(&cert).code(1));
    assert!(text.contains("inputs/sweep-1/tests.csv: not a regular file"), "{text}");
    // A file the recomputation reads (the tallies) a link to /dev/zero: refused, not read.
    std::fs::remove_file(&pinned).unwrap();
    let tally = cert.join("inputs/sweep-1/tally.json");
    std::fs::remove_file(&tally).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &tally).unwrap();
    let text = stdout(&check_within(&cert).code(1));
    assert!(text.contains("inputs/sweep-1/tally.json: not a regular file"), "{text}");
    // The manifest itself a FIFO: refused, not waited on.
    let manifest = cert.join("manifest.json");
    std::fs::remove_file(&manifest).unwrap();
    std::process::Command::new("mkfifo").arg(&manifest).status().unwrap();
    check_within(&cert).code(2).stderr(predicate::str::contains("is not a regular file"));
}

/// A forged manifest pinning a file of the checker's machine at an absolute path (as a
/// `--no-copy-histories` history is pinned) made `--check` hash it and print its SHA-256
/// (issue 59): now refused before anything is read, unless the checker asks for it.
#[test]
fn a_forged_absolute_path_is_refused_before_anything_is_hashed() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let (audited, cert) = (dir.path().join("audit"), dir.path().join("cert"));
    fairaudit()
        .args(["audit", "--game", "roulette-american", "--outcomes"])
        .arg(root.join("tests/data/american-log.csv"))
        .arg("--out")
        .arg(&audited)
        .assert()
        .success();
    certify(&[], &[&audited], &cert, false).code(1);
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "the checker's own file\n").unwrap();
    let secret_sha = fairaudit::certify::sha256_hex(b"the checker's own file\n");
    let at = secret.to_str().unwrap().to_owned();
    edit_manifest(&cert, |m| {
        let old = m["audits"][0]["outcomes"].as_str().unwrap().to_owned();
        m["audits"][0]["outcomes"] = at.clone().into();
        for file in m["inputs"].as_array_mut().unwrap() {
            if file["path"] == old.as_str() {
                file["path"] = at.clone().into();
            }
        }
    });
    std::fs::remove_dir_all(cert.join("inputs/audit-1/history")).unwrap();
    let refused = check_within(&cert).code(2);
    let err = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(err.contains("is pinned at an absolute path, outside the certificate folder"), "{err}");
    assert!(!stdout(&refused).contains(&secret_sha));
    // Asked for, the history is read where the manifest names it.
    let read = fairaudit().args(["certify", "--histories-in-place", "--check"]).arg(&cert).assert().code(1);
    assert!(stdout(&read).contains(&secret_sha));
}

/// A linked input folder (`inputs/sweep-1` a link to a folder elsewhere) led the hashes
/// out of the dossier before the link was named (issue 59): now nothing is hashed.
#[cfg(unix)]
#[test]
fn a_linked_folder_in_the_dossier_is_named_and_nothing_is_hashed_through_it() {
    let (dir, cert) = certified();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::rename(cert.join("inputs/sweep-1"), &elsewhere).unwrap();
    std::fs::write(elsewhere.join("tests.csv"), "outside\n").unwrap();
    std::os::unix::fs::symlink(&elsewhere, cert.join("inputs/sweep-1")).unwrap();
    let text = stdout(&check_within(&cert).code(1));
    assert!(text.contains("inputs/sweep-1: not a regular file"), "{text}");
    assert!(!text.contains(&fairaudit::certify::sha256_hex(b"outside\n")), "{text}");
    assert!(!text.contains("tests.csv: SHA-256"), "{text}");
}

/// A deterministic generator for the fuzz test (no randomness crate needed for it).
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn mutated_manifests_never_panic_or_hang() {
    let (_dir, cert) = certified();
    let original = std::fs::read(cert.join("manifest.json")).unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let interesting: [&[u8]; 8] =
        [b"-1", b"1e309", b"\"\xc3\xa9\"", b"null", b"[]", b"{}", b"18446744073709551616", b"\"../x\""];
    for round in 0..60 {
        let mut bytes = original.clone();
        for _ in 0..1 + round % 3 {
            let at = (next(&mut state) % bytes.len() as u64) as usize;
            match next(&mut state) % 3 {
                0 => bytes[at] = (next(&mut state) % 256) as u8,
                1 => {
                    let end = (at + 1 + (next(&mut state) % 12) as usize).min(bytes.len());
                    bytes.drain(at..end);
                }
                _ => {
                    let piece = interesting[(next(&mut state) % interesting.len() as u64) as usize];
                    bytes.splice(at..at, piece.iter().copied());
                }
            }
        }
        std::fs::write(cert.join("manifest.json"), &bytes).unwrap();
        let output = check_within(&cert).get_output().clone();
        let code = output.status.code();
        assert!(
            matches!(code, Some(0..=2)),
            "round {round}: exit {code:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        if code == Some(2) {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(stderr.lines().count(), 1, "round {round}: one line: {stderr}");
        }
    }
}

#[test]
fn a_dossier_copied_elsewhere_checks_from_any_directory() {
    let (dir, cert) = certified();
    // The sweep it was made from is gone: the dossier carries its own copy.
    std::fs::remove_dir_all(dir.path().join("sweep")).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let moved = elsewhere.path().join("moved");
    copy_tree(&cert, &moved);
    let cwd = tempfile::tempdir().unwrap();
    let text = stdout(
        &fairaudit().current_dir(cwd.path()).args(["certify", "--check", "../"]).arg(&moved).assert().code(2),
    );
    drop(text);
    let text = stdout(
        &fairaudit().current_dir(cwd.path()).args(["certify", "--check"]).arg(&moved).assert().success(),
    );
    assert!(text.contains("matches"), "{text}");
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The row of the dossier file `rel` in `cert`'s certificate.html (path, bytes, SHA-256),
/// as the document lists its inputs.
fn listed_row(cert: &Path, rel: &str) -> String {
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    let start =
        html.find(&format!("<tr><td><code>{rel}</code></td>")).unwrap_or_else(|| panic!("{rel} is listed"));
    let end = start + html[start..].find("</tr>").unwrap() + "</tr>".len();
    html[start..end].to_owned()
}

/// Replaces `row` in `cert`'s certificate.html with `with`, and its hash in the manifest.
fn edit_listing(cert: &Path, row: &str, with: &str) {
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    assert_eq!(html.matches(row).count(), 1, "{row}");
    std::fs::write(cert.join("certificate.html"), html.replacen(row, with, 1)).unwrap();
    rehash(cert, "certificate.html");
}

/// Takes the file `rel` out of the inputs `cert`'s certificate.html lists, as a forger
/// who strips it from the dossier would.
fn drop_listed_file(cert: &Path, rel: &str) {
    edit_listing(cert, &listed_row(cert, rel), "");
}

/// Rewrites the dossier file `rel` with `text` everywhere it is pinned: its hash in the
/// manifest and its row in certificate.html (a consistent forgery, caught only by making
/// the file again or by the published manifest hash).
fn forge_listed_file(cert: &Path, rel: &str, text: &str) {
    let row = listed_row(cert, rel);
    std::fs::write(cert.join(rel), text).unwrap();
    rehash(cert, rel);
    let sha = fairaudit::certify::sha256_hex(text.as_bytes());
    let forged = format!(
        "<tr><td><code>{rel}</code></td><td class=\"num\">{}</td><td><code>{sha}</code></td></tr>",
        text.len()
    );
    edit_listing(cert, &row, &forged);
}

#[test]
fn names_with_reordering_characters_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let swept = dir.path().join("sweep");
    sweep(&swept, "roulette-european", "0..1000");
    fairaudit()
        .args(["certify", "--operator", "Casino \u{202E}SSAP", "--no-pdf", "--sweep"])
        .arg(&swept)
        .arg("--out")
        .arg(dir.path().join("cert"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("U+202E"));
    assert!(!dir.path().join("cert").exists());
}

/// `certify` of one sweep, signed with `key` by A. Auditor as audit@example.org.
fn certify_signed(key: &Path, swept: &Path, cert: &Path) -> assert_cmd::assert::Assert {
    fairaudit()
        .args(["certify", "--operator", "X", "--no-pdf", "--auditor", "A. Auditor"])
        .args(["--auditor-id", "audit@example.org", "--sign"])
        .arg(key)
        .arg("--sweep")
        .arg(swept)
        .arg("--out")
        .arg(cert)
        .assert()
}

/// Without `--allowed-signers`, a signature by the key the manifest names was "valid"
/// even where the fingerprint the manifest and the page show is another key's (issue 59):
/// a forger signs with their own key and shows the auditor's fingerprint. A mismatch now.
#[test]
fn a_shown_fingerprint_that_is_not_the_signing_keys_is_a_mismatch() {
    use fairaudit::certify::signature::{fingerprint, sign};
    use ssh_key::private::{Ed25519Keypair, KeypairData};
    let key = |seed: u8| {
        ssh_key::PrivateKey::new(KeypairData::Ed25519(Ed25519Keypair::from_seed(&[seed; 32])), "k").unwrap()
    };
    let (forger, auditor) = (key(1), key(2));
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("forger");
    std::fs::write(&key_file, forger.to_openssh(ssh_key::LineEnding::LF).unwrap().as_bytes()).unwrap();
    let (swept, cert) = (dir.path().join("sweep"), dir.path().join("cert"));
    sweep(&swept, "roulette-european", "0..2000");
    certify_signed(&key_file, &swept, &cert).success();
    let (theirs, shown) = (fingerprint(forger.public_key()), fingerprint(auditor.public_key()));
    assert!(stdout(&check(&cert).success()).contains("signature: valid for the key the manifest names"));
    // The auditor's fingerprint shown, on the page and in the manifest, signed again.
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    std::fs::write(cert.join("certificate.html"), html.replace(&theirs, &shown)).unwrap();
    rehash(&cert, "certificate.html");
    edit_manifest(&cert, |m| m["signer"]["fingerprint"] = shown.clone().into());
    let signed = sign(&forger, &std::fs::read(cert.join("manifest.json")).unwrap()).unwrap();
    std::fs::write(cert.join("manifest.json.sig"), signed).unwrap();
    let text = stdout(&check(&cert).code(1));
    assert!(text.contains("signature: BAD"), "{text}");
    assert!(
        text.contains(&format!("MISMATCH manifest.json.sig: made with the key the manifest names, {theirs}, but the manifest and certificate.html show {shown}")),
        "{text}"
    );
}

fn ssh_keygen_available() -> bool {
    let found = std::process::Command::new("ssh-keygen").arg("-?").output().is_ok();
    available(found, "FAIRAUDIT_REQUIRE_SSH_KEYGEN", "no ssh-keygen on the PATH")
}

#[test]
fn signatures_verify_both_ways_with_openssh() {
    if !ssh_keygen_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("auditor");
    let made = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "auditor", "-f"])
        .arg(&key)
        .status()
        .unwrap();
    assert!(made.success());
    let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    let allowed = dir.path().join("allowed_signers");
    std::fs::write(&allowed, format!("audit@example.org {public}")).unwrap();
    let swept = dir.path().join("sweep");
    sweep(&swept, "roulette-european", "0..2000");

    // Signed by fairaudit, verified by ssh-keygen and by fairaudit.
    let cert = dir.path().join("signed");
    certify_signed(&key, &swept, &cert).success();
    let verify = |cert: &Path| {
        std::process::Command::new("ssh-keygen")
            .args(["-Y", "verify", "-f"])
            .arg(&allowed)
            .args(["-I", "audit@example.org", "-n", "fairaudit-certificate", "-s"])
            .arg(cert.join("manifest.json.sig"))
            .stdin(std::fs::File::open(cert.join("manifest.json")).unwrap())
            .output()
            .unwrap()
    };
    assert!(verify(&cert).status.success(), "{}", String::from_utf8_lossy(&verify(&cert).stderr));
    let with_signers = |cert: &Path| {
        fairaudit().args(["certify", "--check"]).arg(cert).arg("--allowed-signers").arg(&allowed).assert()
    };
    let text = stdout(&with_signers(&cert).success());
    assert!(text.contains("signature: GOOD, by audit@example.org"), "{text}");
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    let fingerprint = public_fingerprint(&key);
    assert!(html.contains("A. Auditor") && html.contains(&fingerprint), "the signature block names the key");

    // The manifest changed after signing: ssh-keygen and fairaudit both refuse it.
    edit_manifest(&cert, |m| m["operator"] = "Y".into());
    assert!(!verify(&cert).status.success());
    assert!(stdout(&with_signers(&cert).code(1)).contains("MISMATCH manifest.json.sig: does not verify"));

    // Named by public key, signed by ssh-keygen, verified by fairaudit.
    let cert = dir.path().join("external");
    fairaudit()
        .args(["certify", "--operator", "X", "--no-pdf", "--auditor", "audit@example.org", "--signer-key"])
        .arg(key.with_extension("pub"))
        .arg("--sweep")
        .arg(&swept)
        .arg("--out")
        .arg(&cert)
        .assert()
        .success();
    // Until it is signed, the certificate is not what its page says: a mismatch, as a
    // forger naming the auditor's public key without their private key would get.
    assert!(stdout(&check(&cert).code(1))
        .contains("MISMATCH manifest.json.sig: missing, though the manifest names audit@example.org's key"));
    let signed = std::process::Command::new("ssh-keygen")
        .args(["-Y", "sign", "-f"])
        .arg(&key)
        .args(["-n", "fairaudit-certificate"])
        .arg(cert.join("manifest.json"))
        .output()
        .unwrap();
    assert!(signed.status.success(), "{}", String::from_utf8_lossy(&signed.stderr));
    let text = stdout(&with_signers(&cert).success());
    assert!(text.contains("signature: GOOD, by audit@example.org"), "{text}");
    // Another auditor's key in the allowed signers: refused.
    let other = dir.path().join("other");
    std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(&other)
        .status()
        .unwrap();
    let other_public = std::fs::read_to_string(other.with_extension("pub")).unwrap();
    std::fs::write(&allowed, format!("audit@example.org {other_public}")).unwrap();
    assert!(stdout(&with_signers(&cert).code(1)).contains("MISMATCH manifest.json.sig: made with key"));
    // An unsigned certificate fails a check that asks for a signature.
    let (_d, unsigned) = certified();
    assert!(stdout(&with_signers(&unsigned).code(1))
        .contains("missing, and --allowed-signers asks for a signature"));
}

#[test]
fn a_signer_identity_too_long_to_match_quickly_is_refused_before_any_pattern_is_tried() {
    // "@" 96,000 times against the principal `*@*.example.org` took 20 s to match (every
    // split tried at every `*`), and the key is matched before the signature is verified:
    // a manifest of 64 MiB would have kept `--check` busy for hours.
    let (dir, cert) = certified();
    let key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAVQ3XF7YPQ3N/o3j57eQA7lG6wvJTc3/Q+d4aOvgJ7f";
    edit_manifest(&cert, |m| {
        m["signer"] = serde_json::json!({
            "identity": "@".repeat(96_000),
            "public_key": key,
            "fingerprint": "SHA256:x",
        })
    });
    let allowed = dir.path().join("allowed_signers");
    std::fs::write(&allowed, format!("*@*.example.org,audit@example.org {key}\n")).unwrap();
    fairaudit()
        .timeout(std::time::Duration::from_secs(20))
        .args(["certify", "--check"])
        .arg(&cert)
        .arg("--allowed-signers")
        .arg(&allowed)
        .assert()
        .code(2)
        .stderr(predicate::str::is_match(
            "^error: .*manifest.json: the signer's identity is 96000 bytes long, more than the 256 an identity may have\n$",
        ).unwrap());
    // Without allowed signers no pattern is matched: the manifest is read (one written
    // before the limit still checks), and the missing signature is the mismatch.
    assert!(stdout(&check(&cert).code(1)).contains("MISMATCH manifest.json.sig: missing"));
}

/// `ssh-keygen -l`'s SHA-256 fingerprint of a key.
fn public_fingerprint(key: &Path) -> String {
    let out =
        std::process::Command::new("ssh-keygen").arg("-lf").arg(key.with_extension("pub")).output().unwrap();
    String::from_utf8_lossy(&out.stdout).split_whitespace().nth(1).unwrap().to_owned()
}

#[test]
fn an_audit_certificate_lists_its_finding_rows_with_hidden_characters_made_visible() {
    let dir = tempfile::tempdir().unwrap();
    let log = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/american-log.csv"),
    )
    .unwrap();
    let mut lines: Vec<String> = log.lines().map(|l| format!("{l},player")).collect();
    lines[0] = "nonce,server_seed,client_seed,result,player".into();
    // Row 3's player id reverses what follows it; its result is changed.
    let fields: Vec<&str> = lines[2].split(',').collect();
    let wrong = if fields[3] == "7" { "8" } else { "7" };
    lines[2] = format!("{},{},{},{wrong},\u{202E}evil", fields[0], fields[1], fields[2]);
    let history = dir.path().join("history.csv");
    std::fs::write(&history, lines.join("\n") + "\n").unwrap();
    let audited = dir.path().join("audit");
    fairaudit()
        .args(["audit", "--game", "roulette-american", "--outcomes"])
        .arg(&history)
        .arg("--out")
        .arg(&audited)
        .assert()
        .code(1);
    let cert = dir.path().join("cert");
    certify(&[], &[&audited], &cert, false).code(1);
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    assert!(html.contains("Rows that did not check out: the first 1 of 1"), "the finding rows are listed");
    assert!(html.contains("<td class=\"num\">3</td><td>&lt;U+202E&gt;evil</td><td>result</td>"), "{html}");
    assert!(!html.contains('\u{202E}'));
    check(&cert).success();
}

#[test]
fn a_sweeps_own_files_are_made_again_from_its_tallies_and_named_when_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (swept, cert) = (dir.path().join("sweep"), dir.path().join("cert"));
    // A sweep with its own paytable, claims and level, run from the repository root (as
    // certify is, below): its rtp.csv and report.html depend on all three.
    fairaudit()
        .current_dir(root)
        .args(["sweep", "--nonces", "0..2000", "--quiet", "--alpha", "0.05"])
        .args(["--paytable", "data/keno-paytable-example.csv", "--claims", "data/claims.csv", "--out"])
        .arg(&swept)
        .assert()
        .success();
    let certify_from = |dir: &Path| {
        let mut command = fairaudit();
        command.current_dir(dir).args(["certify", "--operator", "Op", "--no-pdf", "--force", "--sweep"]);
        command.arg(&swept).arg("--out").arg(&cert).assert()
    };
    certify_from(root).code(predicate::in_iter([0, 1]));
    for copy in ["inputs/sweep-1/paytable/keno-paytable-example.csv", "inputs/sweep-1/claims/claims.csv"] {
        assert!(cert.join(copy).is_file(), "{copy} is in the dossier");
    }
    let out = stdout(&check(&cert).success());
    assert!(out.contains("check: every file, hash, figure and verdict"), "{out}");

    // Each of the sweep's own files rewritten, with its hash: named.
    const DIFFERS: &str = "differs from what the sweep its run.json names gives";
    let first_p_value = |text: &str| {
        let at = text.find(",0.").expect("a p-value");
        format!("{},0.0000001{}", &text[..at], &text[at + 3..])
    };
    assert_forgery_named(&cert, "inputs/sweep-1/tests.csv", first_p_value, DIFFERS);
    assert_forgery_named(&cert, "inputs/sweep-1/summary.json", |t| t.replacen("PASS", "FAIL", 1), DIFFERS);
    assert_forgery_named(&cert, "inputs/sweep-1/rtp.csv", first_p_value, DIFFERS);
    assert_forgery_named(
        &cert,
        "inputs/sweep-1/keno_positions.csv",
        |t| t.replacen(",1,", ",2,", 1),
        DIFFERS,
    );
    assert_forgery_named(&cert, "inputs/sweep-1/report.html", |t| t.replacen("PASS", "FAIL", 1), DIFFERS);
    // run.json made to state other nonces, another command (which its report shows as
    // the command that reproduces the run), another kind or another format.
    const RUN_DIFFERS: &str =
        "its format, kind, command, games, nonces, seed pairs, shard or completeness are not those of its tally.json";
    let run_json = "inputs/sweep-1/run.json";
    for (was, forged) in [
        ("\"end\": 2000", "\"end\": 2000000"),
        ("\"0..2000\"", "\"0..999999999\""),
        ("\"kind\": \"sweep\"", "\"kind\": \"merge\""),
        ("\"fairaudit-run\"", "\"forged\""),
    ] {
        assert_forgery_named(&cert, run_json, |t| t.replacen(was, forged, 1), RUN_DIFFERS);
    }
    // The sweep's paytable copy changed, with its hash: its rtp.csv and page are then not
    // what the sweep gives.
    let paytable = "inputs/sweep-1/paytable/keno-paytable-example.csv";
    let original = std::fs::read_to_string(cert.join(paytable)).unwrap();
    std::fs::write(cert.join(paytable), original.replacen("1,1,3.95", "1,1,3.96", 1)).unwrap();
    rehash(&cert, paytable);
    let out = stdout(&check(&cert).code(1));
    for named in ["rtp.csv", "report.html"] {
        assert!(out.contains(&format!("MISMATCH inputs/sweep-1/{named}: {DIFFERS}")), "{out}");
    }
    std::fs::write(cert.join(paytable), original).unwrap();
    rehash(&cert, paytable);

    // A certificate written before certify copied a sweep's own files holds no copies: its
    // rtp.csv and report.html are then pinned by hash only, and the check says so (here the
    // document, which lists the inputs, no longer matches the shortened manifest either).
    let older = dir.path().join("older");
    copy_tree(&cert, &older);
    for copy in ["paytable", "claims"] {
        std::fs::remove_dir_all(older.join("inputs/sweep-1").join(copy)).unwrap();
    }
    edit_manifest(&older, |m| {
        let sweep = m["sweeps"][0].as_object_mut().unwrap();
        sweep.remove("paytable");
        sweep.remove("claims");
        let inputs = m["inputs"].as_array_mut().unwrap();
        inputs.retain(|f| {
            let path = f["path"].as_str().unwrap();
            !path.starts_with("inputs/sweep-1/paytable/") && !path.starts_with("inputs/sweep-1/claims/")
        });
    });
    // Nor did its sweeps' run.json record the hashes of the files their commands read.
    let run_json = "inputs/sweep-1/run.json";
    let mut run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(older.join(run_json)).unwrap()).unwrap();
    run.as_object_mut().unwrap().remove("inputs");
    std::fs::write(older.join(run_json), serde_json::to_string_pretty(&run).unwrap()).unwrap();
    rehash(&older, run_json);
    let out = stdout(&check(&older).code(1));
    assert!(
        out.contains("note: inputs/sweep-1: rtp.csv and report.html not made again and not vouched for"),
        "{out}"
    );
    let named = mismatches(&out);
    assert!(named.iter().all(|m| m.starts_with("MISMATCH certificate.html: ")), "{out}");

    // The same downgrade made consistent, as a forger who edits the document too would
    // (issue 59, item 10): only the claims copy stripped, and the sweep's report.html
    // rewritten to say the American claim holds. The paytable is still held, so rtp.csv is
    // made again; report.html (which states the claims' verdicts) cannot be, and the check
    // says it does not vouch for it and exits 3, never 0.
    let stripped = dir.path().join("stripped");
    copy_tree(&cert, &stripped);
    std::fs::remove_dir_all(stripped.join("inputs/sweep-1/claims")).unwrap();
    let claims_copy = "inputs/sweep-1/claims/claims.csv";
    edit_manifest(&stripped, |m| {
        m["sweeps"][0].as_object_mut().unwrap().remove("claims");
        m["inputs"].as_array_mut().unwrap().retain(|f| f["path"] != claims_copy);
    });
    drop_listed_file(&stripped, claims_copy);
    // Its run.json still records the hash of the claims file it read: no certificate
    // written before certify copied such files has one, so the copy was removed.
    let out = stdout(&check(&stripped).code(1));
    assert!(
        out.contains("MISMATCH inputs/sweep-1: its run.json records the hash of data/claims.csv, which its command read, but the dossier holds no copy of it"),
        "{out}"
    );
    // With that hash removed too, nothing differs, and the report's claims are rewritten.
    let run_json = "inputs/sweep-1/run.json";
    let mut run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(stripped.join(run_json)).unwrap()).unwrap();
    run["inputs"].as_array_mut().unwrap().retain(|input| input["path"] != "data/claims.csv");
    forge_listed_file(&stripped, run_json, &serde_json::to_string_pretty(&run).unwrap());
    let report = "inputs/sweep-1/report.html";
    let page = std::fs::read_to_string(stripped.join(report)).unwrap();
    let holds = page.replacen(
        "roulette-american 97%: <b>does not hold</b>",
        "roulette-american 97%: <b>holds</b>",
        1,
    );
    assert_ne!(holds, page, "the report states the American claim");
    forge_listed_file(&stripped, report, &holds);
    let out = stdout(&check(&stripped).code(3));
    assert!(out.contains("note: inputs/sweep-1: report.html not made again and not vouched for"), "{out}");
    assert!(
        out.contains("that could be made again matches; 1 not made again (noted above) and not vouched for"),
        "{out}"
    );
    assert!(mismatches(&out).is_empty(), "{out}");
    // rtp.csv depends only on the paytable, which is held: made again, and a rewrite named.
    let rtp = "inputs/sweep-1/rtp.csv";
    let table = std::fs::read_to_string(stripped.join(rtp)).unwrap();
    forge_listed_file(&stripped, rtp, &first_p_value(&table));
    let out = stdout(&check(&stripped).code(1));
    let named = mismatches(&out);
    assert!(named.len() == 1 && named[0].starts_with(&format!("MISMATCH {rtp}: {DIFFERS}")), "{out}");

    // certify refuses a sweep folder whose files are not its tallies'.
    let tests = swept.join("tests.csv");
    let text = std::fs::read_to_string(&tests).unwrap();
    std::fs::write(&tests, first_p_value(&text)).unwrap();
    certify_from(root).code(2).stderr(predicate::str::contains(
        "tests.csv: differs from what the sweep its run.json names gives, from line 2: the folder's files are not those of the sweep its run.json records",
    ));
}

#[test]
fn a_shard_and_the_merge_of_its_cut_certify_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let shards = dir.path().join("shards");
    for index in ["1", "0"] {
        fairaudit()
            .args(["sweep", "--game", "roulette-american", "--nonces", "0..3000", "--quiet", "--shards", "2"])
            .args(["--shard-index", index, "--out"])
            .arg(&shards)
            .assert()
            .success();
    }
    let merged = dir.path().join("merged");
    fairaudit().args(["merge", "--quiet", "--out"]).arg(&merged).arg(&shards).assert().success();
    // One shard (its tallies hold its slice of the range its command names), and the merge.
    for (name, folder) in [("shard", shards.join("shard-0001-of-0002")), ("merge", merged)] {
        let cert = dir.path().join(format!("cert-{name}"));
        certify(&[&folder], &[], &cert, false).code(predicate::in_iter([0, 1]));
        let out = stdout(&check(&cert).success());
        assert!(out.contains("check: every file, hash, figure and verdict"), "{name}: {out}");
    }
}

#[test]
fn runs_in_different_directories_are_certified_with_the_files_they_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = std::fs::read_to_string(root.join("data/keno-paytable-example.csv")).unwrap();
    let log = std::fs::read_to_string(root.join("tests/data/american-log.csv")).unwrap();
    // Two operators' folders, each with its own paytable.csv and history.csv: the second
    // pays less for one hit of one pick, and its history has one result changed.
    let mut second_log: Vec<String> = log.lines().map(str::to_owned).collect();
    let fields: Vec<String> = second_log[2].split(',').map(str::to_owned).collect();
    let wrong = if fields[3] == "7" { "8" } else { "7" };
    second_log[2] = format!("{},{},{},{wrong}", fields[0], fields[1], fields[2]);
    let operators = [
        ("a", example.clone(), log.clone(), 0),
        ("b", example.replacen("1,1,3.95", "1,1,3.5", 1), second_log.join("\n") + "\n", 1),
    ];
    for (name, paytable, history, audit_status) in &operators {
        let ran_in = dir.path().join(name);
        std::fs::create_dir(&ran_in).unwrap();
        std::fs::write(ran_in.join("paytable.csv"), paytable).unwrap();
        std::fs::write(ran_in.join("history.csv"), history).unwrap();
        fairaudit()
            .current_dir(&ran_in)
            .args(["sweep", "--nonces", "0..2000", "--quiet", "--paytable", "paytable.csv", "--out", "sweep"])
            .assert()
            .code(predicate::in_iter([0, 1]));
        fairaudit()
            .current_dir(&ran_in)
            .args(["audit", "--game", "roulette-american", "--outcomes", "history.csv", "--out", "audit"])
            .assert()
            .code(*audit_status);
    }
    // Certified from a third directory, which holds a paytable.csv and a history.csv that
    // neither run read.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("paytable.csv"), example.replacen("1,1,3.95", "1,1,1", 1)).unwrap();
    std::fs::write(elsewhere.join("history.csv"), "nonce,server_seed,client_seed,result\n").unwrap();
    let certify_from = |from: &Path| {
        let mut command = fairaudit();
        command.current_dir(from).args([
            "certify",
            "--operator",
            "Op",
            "--no-pdf",
            "--force",
            "--out",
            "cert",
        ]);
        command.arg("--vectors").arg(root.join("../shared/vectors"));
        for name in ["a", "b"] {
            command.arg("--sweep").arg(format!("../{name}/sweep"));
        }
        for name in ["a", "b"] {
            command.arg("--audit").arg(format!("../{name}/audit"));
        }
        command.assert()
    };
    certify_from(&elsewhere).code(1);
    let cert = elsewhere.join("cert");
    for (i, (_, paytable, history, _)) in operators.iter().enumerate() {
        let n = i + 1;
        let copy = |rel: String| std::fs::read_to_string(cert.join(rel)).unwrap();
        assert_eq!(
            &copy(format!("inputs/sweep-{n}/paytable/paytable.csv")),
            paytable,
            "sweep {n}'s own paytable"
        );
        assert_eq!(
            &copy(format!("inputs/audit-{n}/history/history.csv")),
            history,
            "audit {n}'s own history"
        );
    }
    check(&cert).success();

    // The paytable gone from where the first sweep ran: read from here, it is not the file
    // the sweep read, and the files made from it say so.
    std::fs::remove_file(dir.path().join("a/paytable.csv")).unwrap();
    // run.json records the SHA-256 of each file the run read: the error says so.
    certify_from(&elsewhere).code(2).stderr(predicate::str::contains(
        "../a/sweep: paytable.csv has changed since the sweep ran: its run.json records SHA-256",
    ));
    // Found nowhere: refused, naming both places looked in.
    let nowhere = dir.path().join("nowhere");
    std::fs::create_dir(&nowhere).unwrap();
    certify_from(&nowhere).code(2).stderr(predicate::str::contains(format!(
        "../a/sweep: its paytable file paytable.csv (from run.json) is not found: neither in {}, where the sweep ran, nor here",
        dir.path().join("a").display()
    )));
    // Where the run ran, its history has changed since; here is the file it read (found
    // by the SHA-256 its run.json records), and the certificate is of that one.
    std::fs::write(dir.path().join("a/paytable.csv"), &operators[0].1).unwrap();
    std::fs::write(dir.path().join("b/history.csv"), "nonce,server_seed,client_seed,result\n").unwrap();
    std::fs::write(elsewhere.join("history.csv"), &operators[1].2).unwrap();
    certify_from(&elsewhere).code(1);
    let copied = std::fs::read_to_string(cert.join("inputs/audit-2/history/history.csv")).unwrap();
    assert_eq!(copied, operators[1].2, "the history the audit read, from here");
    check(&cert).success();

    // What each run read is in its run.json, by the path its command named.
    let run_json = |folder: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(dir.path().join(folder).join("run.json")).unwrap()).unwrap()
    };
    assert_eq!(run_json("a/audit")["inputs"][0]["path"], "history.csv");
    assert_eq!(run_json("a/sweep")["inputs"][0]["path"], "paytable.csv");
    // The history an audit read is nowhere any more: refused, naming it and both places.
    std::fs::write(elsewhere.join("history.csv"), "changed\n").unwrap();
    certify_from(&elsewhere).code(2).stderr(predicate::str::contains(
        "../b/audit: history.csv has changed since the audit ran: its run.json records SHA-256",
    ));
    // A recorded hash that is no hash (a run.json written by hand): one line, no panic.
    let mut run = run_json("b/audit");
    run["inputs"][0]["sha256"] =
        serde_json::Value::from("a\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}");
    std::fs::write(dir.path().join("b/audit/run.json"), serde_json::to_vec_pretty(&run).unwrap()).unwrap();
    certify_from(&elsewhere)
        .code(2)
        .stderr(predicate::str::contains("a SHA-256 that is not 64 lowercase hex digits"))
        .stderr(predicate::str::contains("panicked").not());
    // Without recorded hashes (a folder written before them) the first file found is
    // taken, the one where the audit ran, and what it gives is not the audit's.
    run.as_object_mut().unwrap().remove("inputs");
    std::fs::write(dir.path().join("b/audit/run.json"), serde_json::to_vec_pretty(&run).unwrap()).unwrap();
    certify_from(&elsewhere).code(2).stderr(predicate::str::contains("../b/audit"));
}

#[test]
fn a_row_showing_only_its_commitment_is_replayed_by_the_audit_and_its_certificate() {
    use common::history::{history, to_csv, Rig};
    use fairaudit::games::GameId;
    // One pair's rounds, its seed shown on the last row only; row 11's result changed.
    let game = GameId::RouletteEuropean;
    let mut rows = history(game, 11, 1, 1, 200, Rig::Fair);
    let last = rows.len() - 1;
    for row in &mut rows[..last] {
        row.server_seed.clear();
    }
    let pocket: u8 = rows[10].draw_order.parse().unwrap();
    let other = (pocket + 1) % 37;
    (rows[10].draw_order, rows[10].result) = (other.to_string(), fairaudit::games::Roulette::label(other));
    let csv = to_csv(game, &rows);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("history.csv");
    std::fs::write(&file, &csv).unwrap();
    let found = "line 12 (player p0): result: file has";
    let audited = dir.path().join("audit");
    let out = stdout(
        &fairaudit()
            .args(["audit", "--game", "roulette-european", "--quiet", "--outcomes"])
            .arg(&file)
            .arg("--out")
            .arg(&audited)
            .assert()
            .code(1),
    );
    assert!(out.contains(found) && out.contains("200 rounds read; 200 replayed"), "{out}");
    // Standard input is read twice too (through the copy kept from its first reading).
    let piped = fairaudit()
        .args(["audit", "--game", "roulette-european", "--quiet", "--outcomes", "-"])
        .write_stdin(csv)
        .assert()
        .code(1);
    assert!(stdout(&piped).contains(found));
    // The certificate replays the copy the same way: its findings match the audit's.
    let cert = dir.path().join("cert");
    certify(&[], &[&audited], &cert, false).code(1);
    check(&cert).success();
}

#[test]
fn certify_refuses_a_folder_holding_a_users_file_and_shows_file_names_visibly() {
    let dir = tempfile::tempdir().unwrap();
    // A history whose file name reverses what follows it.
    let log = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/american-log.csv"),
    )
    .unwrap();
    let history = dir.path().join("bets\u{202E}SSAP.csv");
    std::fs::write(&history, log).unwrap();
    let audited = dir.path().join("audit");
    fairaudit()
        .args(["audit", "--game", "roulette-american", "--quiet", "--outcomes"])
        .arg(&history)
        .arg("--out")
        .arg(&audited)
        .assert()
        .success();
    // The certificate's folder already holds the user's notes: refused, even with
    // --force, and the notes are left as they were.
    let cert = dir.path().join("cert");
    std::fs::create_dir(&cert).unwrap();
    std::fs::write(cert.join("notes.txt"), "mine").unwrap();
    for force in [false, true] {
        let mut command = fairaudit();
        command
            .args(["certify", "--operator", "Op", "--no-pdf", "--audit"])
            .arg(&audited)
            .arg("--out")
            .arg(&cert);
        if force {
            command.arg("--force");
        }
        command.assert().code(2).stderr(predicate::str::contains(
            "holds notes.txt, which fairaudit did not write: a certificate's folder holds only its own files",
        ));
    }
    assert_eq!(std::fs::read_to_string(cert.join("notes.txt")).unwrap(), "mine");
    std::fs::remove_file(cert.join("notes.txt")).unwrap();
    let out = stdout(&certify(&[], &[&audited], &cert, false).code(1));
    assert!(!out.contains('\u{202E}') && out.contains("bets\\u{202e}SSAP.csv"), "{out}");
    let html = std::fs::read_to_string(cert.join("certificate.html")).unwrap();
    assert!(!html.contains('\u{202E}') && html.contains("bets&lt;U+202E&gt;SSAP.csv"));
    check(&cert).success();
}

/// A merge's command names folders, not a plan, so nothing bounded its seed pairs before
/// `--check` made its files again and swept it again: under a 400 MB address-space cap the
/// check of a merge of 3,000 Keno seed pairs aborted on an allocation. The check now bounds
/// them as `sweep` does, and says it cannot check (exit 2) rather than abort.
#[cfg(target_os = "linux")]
#[test]
fn a_merge_too_large_for_the_checks_memory_cannot_be_checked_and_says_why() {
    const CAP: u64 = 400_000_000;
    let dir = tempfile::tempdir().unwrap();
    let (shards, merged, cert) =
        (dir.path().join("shards"), dir.path().join("merged"), dir.path().join("cert"));
    for index in ["0", "1"] {
        fairaudit()
            .args(["sweep", "--game", "keno", "--nonces", "0..4", "--seed-pairs", "3000", "--quiet"])
            .args(["--shards", "2", "--shard-index", index, "--out"])
            .arg(&shards)
            .assert()
            .success();
    }
    fairaudit().args(["merge", "--quiet", "--out"]).arg(&merged).arg(&shards).assert().success();
    certify(&[&merged], &[], &cert, false).code(predicate::in_iter([0, 1]));
    let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("fairaudit"));
    command.args(["certify", "--check"]).arg(&cert);
    common::with_address_space_cap(&mut command, CAP);
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        stdout.contains("CANNOT CHECK cannot recompute the verdicts: inputs/sweep-1: its 3000 seed pairs: their seed pairs need about ")
            && stdout.contains("more than the 400.0 MB this process may use (its address-space limit, ulimit -v); run it where more memory is available"),
        "{stdout}"
    );
}
