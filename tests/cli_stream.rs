//! `fairaudit stream` through the real binary: its bytes are the chain's words, the options
//! mean what the README says, a closed pipe ends it cleanly, a terminal is refused; the
//! bytes are the same on every Keccak path and for every thread count.

mod common;

use assert_cmd::Command;
use fairaudit::chain::seeds::default_seed_pair;
use fairaudit::chain::{RoundHasher, WordSource};
use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const SERVER: &str = "8bdb7cce7efe5ba8a8dd893183969eeba617859f9f3a88ce728cb444b81f1aaa";
const CLIENT: &str = "b26c22997bc0d401463f6ea875385de1e534f2fee48e11ef6bcbb549093d8503";

fn fairaudit() -> Command {
    Command::cargo_bin("fairaudit").unwrap()
}

/// The stream's stdout for `args` (after `stream`), which must succeed.
fn stream(args: &[&str]) -> Vec<u8> {
    let output = fairaudit().arg("stream").args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stderr.is_empty(), "stderr: {}", String::from_utf8_lossy(&output.stderr));
    output.stdout
}

/// The first `k` words of each round of `nonces`, straight from the chain, as big-endian bytes.
fn chain_bytes(server: &str, client: &str, nonces: std::ops::Range<u64>, k: usize) -> Vec<u8> {
    let hasher = RoundHasher::new(server, client);
    let mut out = Vec::new();
    for nonce in nonces {
        let mut words = hasher.words(nonce);
        for _ in 0..k {
            out.extend_from_slice(&words.next_word().to_be_bytes());
        }
    }
    out
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|w| u32::from_be_bytes(w.try_into().unwrap())).collect()
}

fn vectors(name: &str) -> Vec<csv::StringRecord> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/vectors").join(name);
    csv::Reader::from_path(path).unwrap().records().map(Result::unwrap).collect()
}

#[test]
fn default_stream_is_34_words_of_each_round_of_the_default_pair_from_nonce_0() {
    let pair = default_seed_pair();
    let got = stream(&["--bytes", "408"]);
    assert_eq!(got, chain_bytes(&pair.server_seed, &pair.client_seed, 0..3, 34));
    // Pinned, so that a change of default (pair, K or byte order) is a deliberate one;
    // the README's stream section shows the same bytes.
    assert_eq!(words_of(&got[..8]), [0x6028_2103, 0xc895_e967]);
}

#[test]
fn given_seeds_nonces_and_words_per_round_select_those_words() {
    for k in [1, 10, 34, 35, 100] {
        let got = stream(&[
            "--server-seed",
            SERVER,
            "--client-seed",
            CLIENT,
            "--nonces",
            "111..114",
            "--words-per-round",
            &k.to_string(),
        ]);
        assert_eq!(got, chain_bytes(SERVER, CLIENT, 111..114, k), "K = {k}");
    }
}

/// The words in the stream are the ones the games draw from: check them against the
/// operator's reference rounds, independently of `RoundHasher`.
#[test]
fn first_words_reproduce_the_reference_draws() {
    let rounds = vectors("reference-rounds.csv");
    let first_word = |row: &csv::StringRecord, k: &str| {
        let nonce: u64 = row[3].parse().unwrap();
        let range = format!("{nonce}..{}", nonce + 1);
        let bytes = stream(&[
            "--server-seed",
            &row[1],
            "--client-seed",
            &row[2],
            "--nonces",
            &range,
            "--words-per-round",
            k,
        ]);
        words_of(&bytes)
    };
    for (game, outcomes) in [("roulette-european", 37), ("roulette-american", 38)] {
        let rows: Vec<_> = rounds.iter().filter(|r| &r[0] == game && &r[8] == "1").take(4).collect();
        assert_eq!(rows.len(), 4);
        for row in rows {
            let words = first_word(row, "1");
            assert_eq!((words[0] % outcomes).to_string(), &row[6], "{game} nonce {}", &row[3]);
        }
    }
    // Keno without rejection: the first draw is element (word mod 40) of 1..=40.
    let keno = rounds.iter().find(|r| &r[0] == "keno" && &r[8] == "10").unwrap();
    let first_draw: u32 = keno[6].split(' ').next().unwrap().parse().unwrap();
    assert_eq!(first_word(keno, "1")[0] % 40 + 1, first_draw);

    // The roulette round in which rejection sampling discarded the first word: the stream
    // shows that word (at or above the limit) and the accepted one after it.
    let rejected =
        vectors("rejection-rounds.csv").into_iter().find(|r| &r[0] == "roulette-european").unwrap();
    assert_eq!(&rejected[8], "2");
    let words = first_word(&rejected, "2");
    assert!(u64::from(words[0]) >= (1u64 << 32) / 37 * 37, "first word {} was not rejected", words[0]);
    assert_eq!((words[1] % 37).to_string(), &rejected[6]);
}

#[test]
fn bytes_is_a_prefix_of_the_unlimited_stream_even_inside_a_word_or_round() {
    let whole = stream(&["--nonces", "5..9", "--words-per-round", "3"]);
    assert_eq!(whole.len(), 4 * 3 * 4);
    for bytes in [0usize, 1, 6, 12, 13, 47, 48] {
        let got = stream(&["--nonces", "5..9", "--words-per-round", "3", "--bytes", &bytes.to_string()]);
        assert_eq!(got, whole[..bytes], "--bytes {bytes}");
    }
    // With the default, endless range: a prefix of the default stream.
    let long = stream(&["--bytes", "1000003"]);
    assert_eq!(long.len(), 1_000_003);
    assert_eq!(long[..408], stream(&["--bytes", "408"]));
}

#[test]
fn the_number_of_threads_does_not_change_the_bytes() {
    let one = stream(&["--threads", "1", "--bytes", "3000001", "--words-per-round", "35"]);
    for threads in ["2", "3", "8"] {
        let many = stream(&["--threads", threads, "--bytes", "3000001", "--words-per-round", "35"]);
        assert!(many == one, "--threads {threads} changed the bytes");
    }
}

/// Every Keccak path this machine supports, chosen by `--keccak` and by `FAIRAUDIT_KECCAK`,
/// on one thread and on the pool: the same bytes as the single-round chain, across the
/// 6-to-7-digit boundary where the messages' shared block appears, for K within the first
/// block and beyond it.
#[test]
fn every_keccak_path_writes_the_same_bytes() {
    for k in [34usize, 35] {
        let expected = chain_bytes(SERVER, CLIENT, 999_000..1_001_000, k);
        let k = k.to_string();
        let pair_and_range =
            ["--server-seed", SERVER, "--client-seed", CLIENT, "--nonces", "999000..1001000"];
        for kernel in common::keccak_kernels() {
            let path = kernel.path().name();
            for threads in ["1", "2"] {
                let mut args = pair_and_range.to_vec();
                args.extend(["--words-per-round", &k, "--threads", threads, "--keccak", path]);
                assert!(stream(&args) == expected, "--keccak {path} --threads {threads}, K = {k}");
            }
            let output = fairaudit()
                .env("FAIRAUDIT_KECCAK", path)
                .arg("stream")
                .args(pair_and_range)
                .args(["--words-per-round", &k])
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(0));
            assert!(output.stdout == expected, "FAIRAUDIT_KECCAK={path}, K = {k}");
        }
    }
}

/// Asserts exit 2, nothing on stdout, and exactly one line on stderr containing `needle`.
fn assert_refused(args: &[&str], needle: &str) {
    let output = fairaudit().arg("stream").args(args).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(output.stdout.is_empty(), "{args:?} wrote to stdout");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: one line expected, got {stderr:?}");
    assert!(stderr.contains(needle), "{args:?}: {needle:?} not in {stderr:?}");
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let hidden = fairaudit()
        .env("FAIRAUDIT_KECCAK_HIDE", "avx512")
        .args(["stream", "--keccak", "avx512"])
        .output()
        .unwrap();
    assert_eq!(hidden.status.code(), Some(2));
    assert!(hidden.stdout.is_empty());
    assert!(String::from_utf8_lossy(&hidden.stderr).contains("the avx512 Keccak path needs AVX-512F"));
    assert_refused(&["--nonces", "5..5"], "is empty");
    assert_refused(&["--nonces", "9..5"], "is empty");
    assert_refused(&["--nonces", "5"], "not a range");
    assert_refused(&["--nonces", "0..18446744073709551616"], "larger than");
    assert_refused(&["--words-per-round", "0"], "--words-per-round");
    assert_refused(&["--bytes", "1e9"], "--bytes");
    assert_refused(&["--bytes", "-1"], "'-1'");
    assert_refused(&["--threads", "0"], "--threads");
    assert_refused(&["--server-seed", "s"], "--client-seed");
    assert_refused(&["--client-seed", "c"], "--server-seed");
    assert_refused(&["--keccak", "neon"], "expected auto, scalar, avx2 or avx512");
    assert_refused(
        &["--nonces", "0..2", "--words-per-round", "3", "--bytes", "25"],
        "25 bytes requested, but nonces 0..2 at 3 words per round hold only 24 bytes",
    );
}

/// Waits for `child` at most `limit`, killing it if it is still running then.
fn wait_at_most(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A battery closes the pipe when it has read enough. Rust ignores SIGPIPE, so the write
/// fails with BrokenPipe instead; that must end the stream with status 0 and no panic text.
#[test]
fn a_closed_pipe_ends_the_stream_with_status_0_and_nothing_on_stderr() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fairaudit"))
        .arg("stream")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 4096];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let status = wait_at_most(&mut child, Duration::from_secs(60));
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(stderr.is_empty(), "stderr: {stderr}");
    assert_eq!(first[..408], stream(&["--bytes", "408"]));
}

/// Binary on a terminal is noise at best, so it is refused. The check needs a real
/// terminal: `script` runs the binary with a pseudo-terminal as its stdout.
#[test]
fn a_terminal_is_refused_with_status_2() {
    if std::process::Command::new("script").arg("--version").output().is_err() {
        eprintln!("note: `script` (util-linux) not found: terminal refusal not tested");
        return;
    }
    let binary = shell_words::quote(env!("CARGO_BIN_EXE_fairaudit")).into_owned();
    let mut child = std::process::Command::new("script")
        .args(["--quiet", "--return", "--command", &format!("{binary} stream"), "/dev/null"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut terminal = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut terminal).unwrap();
    let status = wait_at_most(&mut child, Duration::from_secs(60));
    let terminal = String::from_utf8_lossy(&terminal);
    assert_eq!(status.code(), Some(2), "terminal showed: {terminal}");
    assert!(terminal.contains("refusing to write binary to a terminal"), "terminal showed: {terminal}");
    assert_eq!(terminal.trim_end().lines().count(), 1, "terminal showed: {terminal}");
}
