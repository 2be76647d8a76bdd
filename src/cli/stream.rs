//! `fairaudit stream`: the raw SHAKE256 output of consecutive rounds, as binary on stdout,
//! for dieharder (`-g 200`) and PractRand (`RNG_test stdin32`). The bytes come from
//! [`fairaudit::stream::ThreadedStream`]; this layer only parses, refuses a terminal, and
//! writes them out.

use super::progress::{Progress, Unit};
use super::Verdict;
use anyhow::{bail, Context, Result};
use clap::Args;
use fairaudit::chain::seeds::default_seed_pair;
use fairaudit::stream::{StreamPlan, ThreadedStream, DEFAULT_WORDS_PER_ROUND};
use fairaudit::tally::file::NonceRange;
use std::io::{self, IsTerminal, Write};

/// Every nonce a `u64` range can hold: an endless stream for any practical reader.
const DEFAULT_NONCES: &str = "0..18446744073709551615";

#[derive(Debug, Args)]
pub struct StreamArgs {
    /// Server seed (with --client-seed). Default: the default seed pair.
    #[arg(long, value_name = "S", requires = "client_seed", allow_hyphen_values = true)]
    server_seed: Option<String>,
    /// Client seed (with --server-seed).
    #[arg(long, value_name = "C", requires = "server_seed", allow_hyphen_values = true)]
    client_seed: Option<String>,
    /// Half-open nonce range A..B (plain decimal u64): the rounds, in order.
    #[arg(long, value_name = "A..B", default_value = DEFAULT_NONCES, value_parser = super::args::parse_range)]
    nonces: NonceRange,
    /// 32-bit words taken from the start of each round's stream (34 = one whole block).
    #[arg(long, value_name = "K", default_value_t = DEFAULT_WORDS_PER_ROUND, value_parser = clap::value_parser!(u32).range(1..))]
    words_per_round: u32,
    /// Stop after exactly N bytes (a prefix of the same stream without --bytes).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64))]
    bytes: Option<u64>,
    /// Hashing threads, 1 to 512 (default: all cores but one); the bytes do not depend on it.
    #[arg(long, value_name = "T", value_parser = super::args::parse_threads)]
    threads: Option<u32>,
    /// No progress bar (with --bytes, one is shown on stderr when it is a terminal).
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    keccak: super::args::KeccakArgs,
}

pub fn run(args: StreamArgs) -> Result<Verdict> {
    let (server, client) = match (args.server_seed, args.client_seed) {
        (Some(server), Some(client)) => (server, client),
        _ => {
            let pair = default_seed_pair();
            (pair.server_seed, pair.client_seed)
        }
    };
    let plan =
        StreamPlan { nonces: args.nonces.range(), words_per_round: args.words_per_round, bytes: args.bytes };
    // The battery reading the stream needs a core of its own: on 2 cores, a second hashing
    // thread made dieharder's lagged-sum test slower, not faster.
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |cores| cores.get().saturating_sub(1).max(1)),
        |t| t as usize,
    );
    let kernel = args.keccak.kernel()?;
    let mut stream = ThreadedStream::new(&server, &client, &plan, kernel, threads)?;
    let stdout = io::stdout();
    if stdout.is_terminal() {
        bail!(
            "refusing to write binary to a terminal: redirect stdout to a file or a pipe \
             (e.g. 'fairaudit stream | dieharder -a -g 200')"
        );
    }
    // Only a stream of a set length has a bar: the endless one is read by a battery that
    // decides when to stop, and prints its own results on the terminal.
    let bar = Progress::new(args.bytes, Unit::Bytes, args.quiet || args.bytes.is_none());
    let outcome = copy_out(&mut stream, &mut stdout.lock(), &bar);
    drop(bar);
    match outcome {
        // The reader closing the pipe is how a battery says it has read enough. Rust
        // ignores SIGPIPE, so it arrives here as an error, and it is not one.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(Verdict::Clean),
        result => result.context("cannot write to stdout").map(|()| Verdict::Clean),
    }
}

/// Writes the stream out as the pieces come (a hashed chunk at a time from the
/// pool, 64 KiB on one thread), without copying them first, counting each piece on the
/// bar (one atomic add per piece, nothing per word).
fn copy_out(stream: &mut ThreadedStream, out: &mut impl Write, bar: &Progress) -> io::Result<()> {
    loop {
        match stream.next_bytes() {
            [] => return out.flush(),
            bytes => {
                out.write_all(bytes)?;
                bar.inc(bytes.len() as u64);
            }
        }
    }
}
