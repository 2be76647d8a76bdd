//! The sweep's guarantees: identical results whatever the threads, chunks, shards or Keccak
//! path; resume after interruption; merge refusals; tallies equal to a naive replay of the
//! same rounds through the single-round API.

mod common;

use assert_cmd::Command;
use fairaudit::chain::Kernel;
use fairaudit::games::GameId;

use fairaudit::chain::seeds::SeedPair;
use fairaudit::sweep::{self, SweepControl};
use fairaudit::tally::file::{Plan, SeedSource, TallyFile};
use fairaudit::verify::replay;
use predicates::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

fn sweep_cmd(out: &Path, nonces: &str, extra: &[&str]) -> assert_cmd::assert::Assert {
    fairaudit()
        .args(["sweep", "--nonces", nonces, "--quiet", "--out"])
        .arg(out)
        .args(["--server-seed", "=HYPERLINK(\"http://x\",\"y\")", "--client-seed", "shard-test"])
        .args(extra)
        .assert()
}

/// Every output file except run.json and report.html (which record how the run was made:
/// command line, threads, timing), by name.
fn outputs(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != "run.json" && e.file_name() != "report.html")
        .map(|e| (e.file_name().into_string().unwrap(), std::fs::read(e.path()).unwrap()))
        .collect()
}

fn assert_same_outputs(a: &Path, b: &Path) {
    let (a, b) = (outputs(a), outputs(b));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(bytes == &b[name], "{name} differs");
    }
}

#[test]
fn thread_count_and_chunk_size_do_not_change_a_byte() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one");
    sweep_cmd(&one, "0..30000", &["--threads", "1"]).code(0);
    for (name, extra) in [
        ("two", vec!["--threads", "2"]),
        ("four", vec!["--threads", "4", "--chunk-size", "777"]),
        ("tiny-chunks", vec!["--threads", "3", "--chunk-size", "1"]),
    ] {
        let other = dir.path().join(name);
        sweep_cmd(&other, "0..30000", &extra).code(0);
        assert_same_outputs(&one, &other);
    }
    assert!(outputs(&one).len() >= 10, "tally.json and the tally tables");
}

/// Every Keccak path this machine supports, forced through the library: tallies of ranges
/// that cross digit-count boundaries (where the message's shared block appears) and of
/// a seed pair too short to share any block, byte for byte those of the scalar path.
#[test]
fn every_keccak_path_gives_the_scalar_paths_tallies() {
    let never = AtomicBool::new(false);
    let run = |plan: &Plan, kernel: Kernel| {
        sweep::run(
            plan,
            None,
            &SweepControl { chunk: 777, stop: &never, progress: &|_| {}, kernel, device: None },
        )
        .unwrap()
        .to_bytes()
    };
    let seeds = "8bdb7cce7efe5ba8a8dd893183969eeba617859f9f3a88ce728cb444b81f1aaa";
    for (server, client, nonces) in
        [(seeds, seeds, 99_000..101_000), (seeds, seeds, 9_999_000..10_001_000), ("s", "c", 0..3_000)]
    {
        let plan = Plan {
            games: GameId::ALL.to_vec(),
            nonces: vec![nonces.into()],
            seed_source: SeedSource::Given,
            seed_pairs: vec![SeedPair::new(server, client)],
        };
        let scalar = run(&plan, Kernel::scalar());
        for kernel in common::keccak_kernels() {
            assert!(run(&plan, kernel) == scalar, "{} differs from scalar on {plan:?}", kernel.path());
        }
    }
}

/// The same through the binary, with the path chosen by `FAIRAUDIT_KECCAK` and by
/// `--keccak`, with other thread counts and chunk sizes; run.json records the path.
#[test]
fn forcing_a_keccak_path_does_not_change_a_byte_and_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let scalar = dir.path().join("scalar");
    sweep_cmd(&scalar, "999000..1001000", &["--keccak", "scalar", "--threads", "1"]).code(0);
    for kernel in common::keccak_kernels() {
        let path = kernel.path().name();
        let by_env = dir.path().join(format!("{path}-env"));
        fairaudit()
            .env("FAIRAUDIT_KECCAK", path)
            .args(["sweep", "--nonces", "999000..1001000", "--quiet", "--threads", "2", "--out"])
            .arg(&by_env)
            .args(["--server-seed", "=HYPERLINK(\"http://x\",\"y\")", "--client-seed", "shard-test"])
            .assert()
            .code(0);
        assert_same_outputs(&scalar, &by_env);
        let by_flag = dir.path().join(format!("{path}-flag"));
        sweep_cmd(&by_flag, "999000..1001000", &["--keccak", path, "--chunk-size", "100"]).code(0);
        assert_same_outputs(&scalar, &by_flag);
        let run: serde_json::Value =
            serde_json::from_slice(&std::fs::read(by_env.join("run.json")).unwrap()).unwrap();
        assert_eq!(run["keccak_path"], path);
    }
    // Unforced, the widest path is used.
    let auto = dir.path().join("auto");
    sweep_cmd(&auto, "0..100", &[]).code(0);
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(auto.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["keccak_path"], Kernel::best().path().name());
}

/// A forced path the CPU lacks is one line and exit 2, never an illegal instruction. The
/// CPU here may have every path, so `FAIRAUDIT_KECCAK_HIDE` makes the CLI treat some as
/// missing; a path this CPU really lacks is checked too where there is one.
#[test]
fn a_forced_keccak_path_the_cpu_lacks_exits_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let refuse = |path: &str, hide: &str| {
        let output = fairaudit()
            .env("FAIRAUDIT_KECCAK_HIDE", hide)
            .args(["sweep", "--nonces", "0..10", "--quiet", "--keccak", path, "--out"])
            .arg(dir.path().join(path))
            .output()
            .unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{path}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{path}: {stderr:?}");
        assert!(stderr.contains(&format!("the {path} Keccak path needs")), "{stderr}");
        assert!(!dir.path().join(path).exists(), "{path}: nothing written");
    };
    refuse("avx512", "avx512");
    refuse("avx2", "avx512,avx2");
    for path in fairaudit::chain::KeccakPath::ALL.into_iter().filter(|p| !p.is_supported()) {
        refuse(path.name(), "");
    }
    // Auto skips hidden paths instead of failing.
    fairaudit()
        .env("FAIRAUDIT_KECCAK_HIDE", "avx512,avx2")
        .args(["sweep", "--nonces", "0..100", "--quiet", "--out"])
        .arg(dir.path().join("auto"))
        .assert()
        .code(0);
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("auto/run.json")).unwrap()).unwrap();
    assert_eq!(run["keccak_path"], "scalar");
    fairaudit()
        .args(["sweep", "--keccak", "neon"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("expected auto, scalar, avx2 or avx512"));
}

#[test]
fn seed_pairs_whose_tallies_cannot_fit_in_memory_are_refused_before_any_work() {
    // Four billion seed pairs once aborted on allocating their seeds (exit 134).
    let dir = tempfile::tempdir().unwrap();
    for scheme in [&["--game", "keno"][..], &["--scheme", "stake", "--game", "dice"], &[]] {
        fairaudit()
            .current_dir(dir.path())
            .args(["sweep", "--seed-pairs", "4000000000", "--nonces", "0..10", "--quiet", "--out", "big"])
            .args(scheme)
            .assert()
            .code(2)
            .stderr(predicate::str::is_match("^error: --seed-pairs 4000000000: their seed pairs need about [0-9.]+ [TP]B of memory, more than the [0-9.]+ [MGT]B this process may use \\([a-z' ,-]+\\); sweep fewer seed pairs\n$").unwrap());
        assert!(!dir.path().join("big").exists(), "nothing is claimed: {scheme:?}");
    }
}

/// The guard compared the seed pairs' memory with the machine's alone: under a 2 GB
/// address-space cap (a container, `ulimit -v`) a sweep that fits the machine started and
/// aborted on an allocation, exit 134 (issue 59). It now refuses against the least limit.
#[cfg(target_os = "linux")]
#[test]
fn seed_pairs_beyond_the_processs_address_space_limit_are_refused() {
    const CAP: u64 = 2_000_000_000;
    let dir = tempfile::tempdir().unwrap();
    // 100,000 Stake Keno pairs: about 10 GB by the guard's reckoning, well past the cap.
    let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("fairaudit"));
    command.current_dir(dir.path()).args(["sweep", "--scheme", "stake", "--game", "keno"]);
    command.args(["--seed-pairs", "100000", "--nonces", "0..10", "--quiet", "--out", "capped"]);
    common::with_address_space_cap(&mut command, CAP);
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: --seed-pairs 100000: their seed pairs need about ")
            && stderr
                .contains("more than the 2.0 GB this process may use (its address-space limit, ulimit -v)")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
    assert!(!dir.path().join("capped").exists());
}

/// The peak resident memory, in bytes, of `command` run to its end (exit 0 or 1), as the
/// kernel accounts that one child (`wait4`): other tests' processes do not count.
// The child is reaped by `wait4`, which clippy does not know of.
#[allow(clippy::zombie_processes)]
fn peak_memory(command: &mut std::process::Command) -> u64 {
    let child = command.stdout(std::process::Stdio::null()).spawn().unwrap();
    let (mut status, pid) = (0, child.id() as libc::pid_t);
    // SAFETY: `rusage` is plain data; wait4 writes it and `status` for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut usage) }, pid);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    assert!(matches!(code, Some(0 | 1)), "{command:?}: exit {code:?}");
    u64::try_from(usage.ru_maxrss).unwrap() * 1024
}

/// The memory the guard reckons `--seed-pairs` of `games` need per seed pair, read from its
/// refusal of four billion.
fn guard_estimate_per_pair(games: &[&str]) -> f64 {
    let output = fairaudit()
        .args(["sweep", "--seed-pairs", "4000000000", "--nonces", "0..10", "--quiet", "--out", "never"])
        .args(games)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let about = stderr.split("need about ").nth(1).unwrap_or_else(|| panic!("{stderr}"));
    let mut words = about.split_whitespace();
    let value: f64 = words.next().unwrap().parse().unwrap();
    let unit = words.next().unwrap();
    let unit = ["kB", "MB", "GB", "TB", "PB"].iter().position(|&u| u == unit).unwrap();
    value * 1e3f64.powi(unit as i32 + 1) / 4e9
}

// The guard reckoned a seed pair's tallies alone (eight bytes a number): 325 kB a pair of
// the three games, while a sweep held 950 kB and `certify --check` of it 1.5 MB. So
// `--seed-pairs 30000` passed it, and was killed for memory after sweeping, as was the
// check of a certificate whose recorded command was rewritten to as many.
#[test]
fn the_memory_guard_is_above_what_a_seed_pair_takes_to_sweep_and_to_check() {
    let dir = tempfile::tempdir().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("fairaudit");
    for (shape, games) in
        [&["--game", "keno"][..], &["--game", "roulette-european"], &[]].into_iter().enumerate()
    {
        let estimate = guard_estimate_per_pair(games);
        let (mut sweep, mut check) = (Vec::new(), Vec::new());
        for pairs in [20u64, 120] {
            let name = format!("{shape}-{pairs}");
            let (swept, cert) = (dir.path().join(format!("s{name}")), dir.path().join(format!("c{name}")));
            let mut command = std::process::Command::new(&bin);
            command.args([
                "sweep",
                "--seed-pairs",
                &pairs.to_string(),
                "--nonces",
                "0..200",
                "--quiet",
                "--out",
            ]);
            sweep.push(peak_memory(command.arg(&swept).args(games)) as f64);
            fairaudit()
                .args(["certify", "--operator", "X", "--no-pdf", "--sweep"])
                .arg(&swept)
                .arg("--out")
                .arg(&cert)
                .assert()
                .code(predicate::in_iter([0, 1])); // FINDINGS: the example claims of American roulette
            check
                .push(peak_memory(std::process::Command::new(&bin).args(["certify", "--check"]).arg(&cert))
                    as f64);
        }
        let per_pair = |peaks: &[f64]| (peaks[1] - peaks[0]) / 100.0;
        let (sweep, check) = (per_pair(&sweep), per_pair(&check));
        assert!(check >= sweep, "{games:?}: check {check} < sweep {sweep}");
        // Above what a check takes, and not so far above that sweeps that fit are refused.
        assert!(
            estimate >= 1.1 * check && estimate <= 4.0 * check,
            "{games:?}: estimate {estimate} for {check} a pair"
        );
    }
}

#[test]
fn shards_merged_equal_one_run_including_the_boundary_pair() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    sweep_cmd(&whole, "100..20100", &[]).code(0);
    let (a, b, c) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("c"));
    sweep_cmd(&a, "100..7331", &["--chunk-size", "1000"]).code(0);
    // One round judges no game's outcomes: exit 3, and its tallies merge all the same.
    sweep_cmd(&b, "7331..7332", &[]).code(3);
    sweep_cmd(&c, "7332..20100", &["--threads", "1"]).code(0);
    let merged = dir.path().join("merged");
    // Inputs in any order.
    fairaudit().arg("merge").arg(&c).arg(&a).arg(&b).arg("--out").arg(&merged).assert().code(0);
    assert_same_outputs(&whole, &merged);
}

#[test]
fn merge_refuses_overlaps_other_games_other_seeds_unknown_versions_and_interrupted_input() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    sweep_cmd(&p("a"), "0..1000", &["--game", "keno"]).code(0);
    sweep_cmd(&p("overlap"), "999..2000", &["--game", "keno"]).code(0);
    sweep_cmd(&p("roulette"), "1000..2000", &["--game", "roulette-european"]).code(0);
    fairaudit()
        .args(["sweep", "--nonces", "1000..2000", "--quiet", "--game", "keno", "--out"])
        .arg(p("seeds"))
        .assert()
        .code(0);
    let merge =
        |other: &str| fairaudit().arg("merge").arg(p("a")).arg(p(other)).arg("--out").arg(p("m")).assert();
    merge("overlap").code(2).stderr(predicate::str::contains("overlap"));
    merge("roulette").code(2).stderr(predicate::str::contains("different games"));
    merge("seeds").code(2).stderr(predicate::str::contains("different seed pairs"));

    let tally = std::fs::read_to_string(p("overlap").join("tally.json")).unwrap();
    std::fs::write(p("overlap").join("tally.json"), tally.replacen("\"version\":3", "\"version\":99", 1))
        .unwrap();
    merge("overlap").code(2).stderr(predicate::str::contains("version 99"));
    std::fs::write(p("overlap").join("tally.json"), tally.replacen("\"version\":3", "\"version\":1", 1))
        .unwrap();
    merge("overlap")
        .code(2)
        .stderr(predicate::str::contains("version 1 (fairaudit 0.1)"))
        .stderr(predicate::str::contains("re-run the sweep that made it to regenerate it"));
    std::fs::write(p("overlap").join("tally.json"), tally.replacen("\"version\":3", "\"version\":2", 1))
        .unwrap();
    merge("overlap").code(2).stderr(predicate::str::contains("version 2 has no checksum"));
    // Changed after it was written: refused by its checksum; sealed again, by what it says.
    let incomplete = tally.replacen("\"complete\":true", "\"complete\":false", 1);
    std::fs::write(p("overlap").join("tally.json"), &incomplete).unwrap();
    merge("overlap").code(2).stderr(predicate::str::contains("does not match its checksum"));
    let value: serde_json::Value = serde_json::from_str(&incomplete).unwrap();
    std::fs::write(p("overlap").join("tally.json"), common::sealed_tally(&value)).unwrap();
    merge("overlap").code(2).stderr(predicate::str::contains("interrupted"));
    std::fs::write(p("overlap").join("tally.json"), "{\"format\":\"fairaudit-tally\",\"version\":3}")
        .unwrap();
    merge("overlap").code(2).stderr(predicate::str::contains("not a fairaudit tally file"));
    assert!(!p("m").exists(), "nothing written on refusal");
}

fn plan(games: Vec<GameId>, nonces: std::ops::Range<u64>) -> Plan {
    Plan {
        games,
        nonces: vec![nonces.into()],
        seed_source: SeedSource::Given,
        seed_pairs: vec![SeedPair::new("resume-server", "resume-client")],
    }
}

#[test]
fn a_sweep_stopped_midway_and_resumed_equals_an_uninterrupted_one() {
    let plan = plan(GameId::ALL.to_vec(), 0..50_000);
    let never = AtomicBool::new(false);
    let quiet = |_: u64| {};
    let whole = sweep::run(
        &plan,
        None,
        &SweepControl { chunk: 1000, stop: &never, progress: &quiet, kernel: Kernel::best(), device: None },
    )
    .unwrap();
    assert!(whole.complete);

    // Stop after about 60 chunks: the partial result holds what was tallied, possibly
    // in several segments; resuming fills the holes.
    let stop = AtomicBool::new(false);
    let chunks = AtomicU64::new(0);
    let count = |_: u64| {
        if chunks.fetch_add(1, Ordering::SeqCst) == 60 {
            stop.store(true, Ordering::SeqCst);
        }
    };
    let partial = sweep::run(
        &plan,
        None,
        &SweepControl { chunk: 1000, stop: &stop, progress: &count, kernel: Kernel::best(), device: None },
    )
    .unwrap();
    assert!(!partial.complete);
    let partial = TallyFile::from_bytes(&partial.to_bytes()).unwrap();
    let resumed = sweep::run(
        &plan,
        Some(partial),
        &SweepControl { chunk: 777, stop: &never, progress: &quiet, kernel: Kernel::best(), device: None },
    )
    .unwrap();
    assert_eq!(resumed.to_bytes(), whole.to_bytes());
}

#[test]
fn sigterm_saves_progress_and_resume_finishes_with_identical_output() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, interrupted) = (dir.path().join("whole"), dir.path().join("interrupted"));
    // One thread and 8 million rounds, so that the sweep is still running when the signal
    // comes after 400 ms even on the batched AVX-512 path (about 5 million rounds/s).
    let nonces = "0..8000000";
    let args = ["--game", "roulette-american", "--chunk-size", "4096", "--threads", "1"];
    let bin = assert_cmd::cargo::cargo_bin("fairaudit");
    let mut child = std::process::Command::new(&bin)
        .args(["sweep", "--nonces", nonces, "--quiet", "--out"])
        .arg(&interrupted)
        .args(args)
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "interrupted sweeps exit 130");
    let saved = TallyFile::from_bytes(&std::fs::read(interrupted.join("tally.json")).unwrap()).unwrap();
    assert!(!saved.complete);

    // The same command continues the interrupted work (a scheduler's requeue runs it
    // unchanged); --resume says the same and fails only where nothing is left to continue.
    fairaudit()
        .args(["sweep", "--nonces", nonces, "--quiet", "--out"])
        .arg(&interrupted)
        .args(args)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("continuing the sweep saved"));
    fairaudit()
        .args(["sweep", "--nonces", nonces, "--quiet", "--out"])
        .arg(&whole)
        .args(args)
        .assert()
        .code(0);
    assert_same_outputs(&whole, &interrupted);
}

#[test]
fn output_folder_rules_protect_other_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    sweep_cmd(&out, "0..100", &["--game", "keno"]).code(0);
    std::fs::write(out.join("my-notes.txt"), "mine").unwrap();
    sweep_cmd(&out, "0..100", &["--game", "keno"]).code(0); // the same plan again: reproduces it
    sweep_cmd(&out, "0..200", &["--game", "keno"])
        .code(2)
        .stderr(predicate::str::contains("different sweep"));
    sweep_cmd(&out, "0..200", &["--game", "keno", "--force"]).code(0);
    assert_eq!(std::fs::read_to_string(out.join("my-notes.txt")).unwrap(), "mine");
    sweep_cmd(&dir.path().join("none"), "0..100", &["--resume"])
        .code(2)
        .stderr(predicate::str::contains("nothing to resume"));
    // A folder of the user's own files, one named as fairaudit names its outputs: refused,
    // saying so (not that some tally.json is unusable), and left as it was.
    let theirs = dir.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("tests.csv"), "mine").unwrap();
    sweep_cmd(&theirs, "0..100", &["--game", "keno"]).code(2).stderr(predicate::str::contains(
        "holds files named as fairaudit names its outputs, but no tally.json or run.json of a sweep",
    ));
    assert_eq!(std::fs::read_to_string(theirs.join("tests.csv")).unwrap(), "mine");
}

#[test]
fn bad_sweep_arguments_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    for (nonces, message) in
        [("5..5", "empty"), ("10", "not a range"), ("a..b", "not a non-negative"), ("0..-1", "")]
    {
        fairaudit()
            .args(["sweep", "--quiet", "--nonces", nonces, "--out"])
            .arg(dir.path())
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
    fairaudit().args(["sweep", "--server-seed", "s"]).assert().code(2);
    fairaudit().args(["sweep", "--seed-pairs", "0"]).assert().code(2);
    fairaudit().args(["sweep", "--game", "poker"]).assert().code(2);
    // A level so small that Holm's share of it is zero judges nothing: refused, not a panic.
    for alpha in ["5e-324", "1e-320", "1e-101", "0", "1", "nan"] {
        fairaudit()
            .args(["sweep", "--quiet", "--nonces", "0..100", "--alpha", alpha, "--out"])
            .arg(dir.path().join("alpha"))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("alpha"));
    }
}

/// A WEAK row of one seed pair is outside Holm's adjustment: the terminal says so rather
/// than print an adjusted p of NaN. (Pair 8 of these 20 has a columns p of 2.8e-4.)
#[test]
fn a_seed_pairs_weak_row_says_it_is_not_adjusted() {
    let dir = tempfile::tempdir().unwrap();
    let output = fairaudit()
        .args(["sweep", "--game", "roulette-european", "--seed-pairs", "20", "--nonces", "0..500"])
        .args(["--quiet", "--out"])
        .arg(dir.path().join("s"))
        .assert()
        .success();
    let text = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
    let weak: Vec<&str> = text.lines().filter(|line| line.trim_start().starts_with("WEAK")).collect();
    assert!(!weak.is_empty(), "{text}");
    assert!(weak.iter().all(|line| line.contains("not adjusted (a diagnostic row") && !line.contains("NaN")));
}

/// Naive per-round replay through `verify::replay` (strings), counted by hand.
#[test]
fn tallies_equal_a_naive_replay_of_the_same_rounds() {
    let range = 5_000..7_000u64;
    let plan = plan(GameId::ALL.to_vec(), range.clone());
    let never = AtomicBool::new(false);
    let file = sweep::run(
        &plan,
        None,
        &SweepControl { chunk: 300, stop: &never, progress: &|_| {}, kernel: Kernel::best(), device: None },
    )
    .unwrap();
    let (server, client) = ("resume-server", "resume-client");

    let keno = &file.keno_totals().rows[0].1.tally;
    let mut numbers = [0u64; 40];
    let mut positions = vec![0u64; 400];
    let mut pair_total = 0u64;
    let mut overlap = [0u64; 11];
    let mut lag_overlap = vec![0u64; 9 * 11];
    let mut rounds: Vec<Vec<u64>> = Vec::new();
    for nonce in range.clone() {
        let round = replay(GameId::Keno, server, client, nonce);
        let order: Vec<u64> = round.draw_order.split(' ').map(|n| n.parse().unwrap()).collect();
        for (k, &n) in order.iter().enumerate() {
            numbers[n as usize - 1] += 1;
            positions[k * 40 + n as usize - 1] += 1;
        }
        pair_total += 45;
        for lag in 1..=10usize.min(rounds.len()) {
            let earlier = &rounds[rounds.len() - lag];
            let shared = order.iter().filter(|n| earlier.contains(n)).count();
            if lag == 1 {
                overlap[shared] += 1;
            } else {
                lag_overlap[(lag - 2) * 11 + shared] += 1;
            }
        }
        rounds.push(order);
    }
    assert_eq!(keno.numbers, numbers);
    assert_eq!(keno.positions, positions);
    assert_eq!(keno.pairs.iter().sum::<u64>(), pair_total);
    assert_eq!(keno.overlap, overlap);
    assert_eq!(keno.lag_overlap, lag_overlap, "overlaps at lags 2..10 across 300-nonce chunks");

    for game in [GameId::RouletteEuropean, GameId::RouletteAmerican] {
        let tally = &file.roulette_totals(game).rows[0].1.tally;
        let n = tally.pockets.len();
        let pockets: Vec<usize> = range
            .clone()
            .map(|nonce| replay(game, server, client, nonce).draw_order.parse().unwrap())
            .collect();
        let mut counts = vec![0u64; n];
        let mut pairs = vec![0u64; n * n];
        let mut lag_pairs = vec![0u64; 9 * n * n];
        for (i, &p) in pockets.iter().enumerate() {
            counts[p] += 1;
            if i > 0 {
                pairs[pockets[i - 1] * n + p] += 1;
            }
            for lag in 2..=10usize.min(i) {
                lag_pairs[(lag - 2) * n * n + pockets[i - lag] * n + p] += 1;
            }
        }
        assert_eq!(tally.pockets, counts);
        assert_eq!(tally.pairs, pairs);
        assert_eq!(tally.lag_pairs, lag_pairs, "{game} pairs at lags 2..10 across 300-nonce chunks");
        // Gap before each repeat of pocket 0, counted naively.
        let zeros: Vec<usize> = pockets.iter().enumerate().filter(|(_, &p)| p == 0).map(|(i, _)| i).collect();
        let gap_count = zeros.windows(2).filter(|w| w[1] - w[0] - 1 == 5).count() as u64;
        assert_eq!(tally.gaps.count(0, 5), gap_count);
        // Colour runs: the number of runs equals one plus the colour changes.
        let colours: Vec<u8> = pockets.iter().map(|&p| fairaudit::tally::roulette::colour(p as u8)).collect();
        let runs = 1 + colours.windows(2).filter(|w| w[0] != w[1]).count() as u64;
        assert_eq!(tally.colour_runs.hist.iter().sum::<u64>(), runs);
    }
}
