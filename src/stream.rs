//! Raw export of the chain's output, for generic randomness batteries (dieharder, PractRand).
//!
//! Test labs check the generator's raw output as well as the game outcomes. [`RawStream`]
//! produces that output as bytes: for each nonce of a range, in order, the first `K` words
//! of the round's SHAKE256 stream (SPEC §2), each written big-endian, i.e. the stream's
//! bytes in SHAKE256 output order. [`ThreadedStream`] produces the same bytes with several
//! threads hashing ahead on a rayon pool, because one thread is slower than some batteries
//! read. `fairaudit stream` copies it to stdout; the battery reads it from there.
//!
//! Rounds are hashed as the sweep hashes them: in batches of consecutive nonces, with the
//! shared block of their messages absorbed once, on the chosen Keccak [`Kernel`]
//! ([`crate::chain::batch`]). Words beyond a round's first block come from the scalar path.
//!
//! Only the raw words are exported. Outcomes (a pocket 0..36, a Keno number) are not
//! uniform over the bits of the bytes they would be packed into, so a bit battery would
//! reject a fair game; the outcome-level battery is `sweep`'s statistics.
//!
//! ```
//! use fairaudit::chain::Kernel;
//! use fairaudit::stream::{RawStream, StreamPlan};
//! let plan = StreamPlan { nonces: 0..2, words_per_round: 3, bytes: None };
//! let mut stream = RawStream::new("server", "client", &plan, Kernel::best()).unwrap();
//! let mut out = [0u8; 100];
//! assert_eq!(stream.fill(&mut out), 2 * 3 * 4); // two rounds of three 4-byte words
//! assert_eq!(stream.fill(&mut out), 0); // and then nothing
//! ```

use crate::chain::sponge::RATE_BYTES;
use crate::chain::words::WORDS_PER_BLOCK;
use crate::chain::{BatchHasher, Kernel, RoundBatch, RoundHasher, ShakeWords, ROUNDS_PER_BATCH};
use std::collections::VecDeque;
use std::io;
use std::ops::Range;
use std::sync::{mpsc, Arc};

/// Words taken from each round by default: 34, one whole squeezed block of 136 bytes.
/// A round's first block comes with the permutation that finishes its stream's absorption,
/// so these words cost no permutation beyond the signature and that one; the 35th word
/// would cost another.
pub const DEFAULT_WORDS_PER_ROUND: u32 = WORDS_PER_BLOCK as u32;

/// What to export: which rounds, how many words of each, and where to stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamPlan {
    /// The rounds, in order: a half-open, non-empty nonce range.
    pub nonces: Range<u64>,
    /// Words (4 bytes each) taken from the start of each round's stream; at least 1.
    pub words_per_round: u32,
    /// Stop after exactly this many bytes: the output is then the first `bytes` bytes of
    /// what the plan without a limit produces (it may end inside a word, or inside a round).
    /// `None`: stop at the end of the nonce range.
    pub bytes: Option<u64>,
}

/// A plan that cannot be exported (exit status 2 at the CLI).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// The nonce range holds no round.
    #[error("the nonce range {start}..{end} is empty (A must be below B)")]
    EmptyRange {
        /// First nonce.
        start: u64,
        /// One past the last nonce.
        end: u64,
    },
    /// Zero words per round would write nothing, forever.
    #[error("words per round must be at least 1")]
    NoWords,
    /// The byte limit is more than the nonce range holds, so "exactly N bytes" cannot be met.
    #[error(
        "{requested} bytes requested, but nonces {start}..{end} at {words_per_round} words \
         per round hold only {available} bytes"
    )]
    BeyondRange {
        /// The byte limit asked for.
        requested: u64,
        /// What the range holds: rounds × words per round × 4.
        available: u128,
        /// First nonce.
        start: u64,
        /// One past the last nonce.
        end: u64,
        /// Words per round.
        words_per_round: u32,
    },
    /// The worker threads could not be started.
    #[error("cannot start {threads} stream threads: {reason}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// What the system said.
        reason: String,
    },
}

/// The raw bytes of consecutive rounds; see the module docs for the layout.
///
/// [`RawStream::fill`] writes the next bytes into a caller's buffer. Rounds are hashed a
/// batch of consecutive nonces at a time ([`BatchHasher`]) into a batch allocated once,
/// so nothing is allocated per round.
#[derive(Clone, Debug)]
pub struct RawStream {
    batcher: BatchHasher,
    batch: Box<RoundBatch>,
    /// The round of `batch` to open next.
    next_round: usize,
    /// The first nonce not yet hashed, and the end of the range.
    next_nonce: u64,
    end_nonce: u64,
    /// Bytes taken from each round: 4 per word.
    round_bytes: u64,
    /// Bytes of the open round not yet handed out.
    round_left: u64,
    /// The open round's current block of 136 stream bytes, and how much of it went out.
    block: [u8; RATE_BYTES],
    block_at: usize,
    /// The open round's stream after its first block (only when rounds take more words).
    later: Option<ShakeWords>,
    /// Bytes still to hand out. `u128` because a whole `u64` nonce range of 34-word rounds
    /// holds about 2.5 · 10^21 bytes.
    remaining: u128,
}

impl StreamPlan {
    /// How many bytes the plan writes, once checked: the byte limit, or else everything
    /// the range holds (rounds × words per round × 4).
    pub fn byte_len(&self) -> Result<u128, StreamError> {
        let Range { start, end } = self.nonces;
        if start >= end {
            return Err(StreamError::EmptyRange { start, end });
        }
        if self.words_per_round == 0 {
            return Err(StreamError::NoWords);
        }
        let available = u128::from(end - start) * u128::from(self.words_per_round) * 4;
        match self.bytes {
            None => Ok(available),
            Some(requested) if u128::from(requested) <= available => Ok(u128::from(requested)),
            Some(requested) => Err(StreamError::BeyondRange {
                requested,
                available,
                start,
                end,
                words_per_round: self.words_per_round,
            }),
        }
    }
}

impl RawStream {
    /// The stream of `plan` for the seed pair (`server_seed`, `client_seed`), hashed with
    /// `kernel`.
    pub fn new(
        server_seed: &str,
        client_seed: &str,
        plan: &StreamPlan,
        kernel: Kernel,
    ) -> Result<Self, StreamError> {
        let remaining = plan.byte_len()?;
        Ok(Self::from_hasher(&RoundHasher::new(server_seed, client_seed), kernel, plan, remaining))
    }

    /// The stream of an already checked plan, limited to `remaining` bytes.
    fn from_hasher(hasher: &RoundHasher, kernel: Kernel, plan: &StreamPlan, remaining: u128) -> Self {
        Self {
            batcher: BatchHasher::new(hasher, kernel),
            batch: Box::default(),
            next_round: 0,
            next_nonce: plan.nonces.start,
            end_nonce: plan.nonces.end,
            round_bytes: u64::from(plan.words_per_round) * 4,
            round_left: 0,
            block: [0; RATE_BYTES],
            block_at: RATE_BYTES,
            later: None,
            remaining,
        }
    }

    /// Bytes not yet handed out.
    pub fn remaining(&self) -> u128 {
        self.remaining
    }

    /// Writes the next bytes of the stream into `out` and returns how many: `out.len()`,
    /// unless the stream ends first; 0 once it has ended. Any buffer length works: a word
    /// cut at the end of one call continues at the start of the next.
    pub fn fill(&mut self, out: &mut [u8]) -> usize {
        let len = usize::try_from(self.remaining).map_or(out.len(), |left| left.min(out.len()));
        let mut at = 0;
        while at < len {
            if self.round_left == 0 {
                self.open_next_round();
            } else if self.block_at == RATE_BYTES {
                self.later
                    .as_mut()
                    .expect("rounds longer than a block keep their stream")
                    .fill_bytes(&mut self.block);
                self.block_at = 0;
            }
            let in_block =
                (RATE_BYTES - self.block_at).min(usize::try_from(self.round_left).unwrap_or(usize::MAX));
            let n = in_block.min(len - at);
            out[at..at + n].copy_from_slice(&self.block[self.block_at..self.block_at + n]);
            at += n;
            self.block_at += n;
            self.round_left -= n as u64;
        }
        self.remaining -= len as u128;
        len
    }

    /// Opens the next round, hashing the next batch first if this one is used up. Only
    /// called while bytes remain, and `remaining` never exceeds what the range holds, so
    /// the next nonce is always inside the range.
    #[inline]
    fn open_next_round(&mut self) {
        if self.next_round == self.batch.len() {
            let end = self.next_nonce.saturating_add(ROUNDS_PER_BATCH as u64).min(self.end_nonce);
            self.batcher.hash(self.next_nonce..end, &mut self.batch);
            self.next_nonce = end;
            self.next_round = 0;
        }
        let r = self.next_round;
        self.next_round += 1;
        self.batch.first_block(r, &mut self.block);
        self.block_at = 0;
        self.round_left = self.round_bytes;
        if self.round_bytes > RATE_BYTES as u64 {
            self.later = Some(self.batch.after_first_block(r));
        }
    }
}

impl io::Read for RawStream {
    /// [`RawStream::fill`]; never fails. `Ok(0)` means the stream has ended.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Ok(self.fill(buf))
    }
}

/// Bytes of whole rounds that one pool task hashes: large enough that handing chunks over
/// costs nothing next to hashing them (about 300 µs of work at 34 words per round on the
/// AVX-512 path), small enough that starting and stopping waste little.
pub const CHUNK_BYTES: usize = 256 * 1024;

/// Chunks hashed ahead of the reader, per thread.
const CHUNKS_AHEAD_PER_THREAD: usize = 4;

/// The same bytes as [`RawStream`], hashed ahead of the reader on a rayon pool of `T`
/// threads, like the sweep's.
///
/// The output is cut into chunks of whole rounds. `4T` chunks are in flight at a time,
/// each one pool task (`spawn`) that hashes its chunk into a buffer and sends it back on
/// its own channel; the reader takes the chunks in order and, as it takes one, starts the
/// next, and hands out bytes straight from the chunk buffers
/// ([`ThreadedStream::next_bytes`]), copying nothing. The bytes do not depend on `T`.
///
/// One task per chunk, not a parallel iterator over several: a task that waits on a join
/// lets its thread run other tasks meanwhile, on top of its stack, so a finished chunk
/// could wait under a later one and hold the in-order reader back (measured: 1.4× on two
/// threads that way, against 1.9× with independent tasks).
///
/// A round longer than [`CHUNK_BYTES`] cannot be split between threads (a SHAKE256
/// stream cannot be entered in the middle without squeezing everything before it), so
/// such plans, and `threads` ≤ 1, run on the calling thread as a plain [`RawStream`].
#[derive(Debug)]
pub struct ThreadedStream {
    inner: Source,
}

#[derive(Debug)]
enum Source {
    Serial { stream: Box<RawStream>, buffer: Vec<u8>, at: usize, filled: usize },
    Pool(PoolStream),
}

#[derive(Debug)]
struct PoolStream {
    pool: rayon::ThreadPool,
    job: Arc<ChunkJob>,
    /// Chunks in flight, oldest first.
    pending: VecDeque<mpsc::Receiver<Vec<u8>>>,
    /// The index of the next chunk to start.
    next_chunk: u64,
    /// The chunk being read, and how much of it has gone out.
    current: Vec<u8>,
    at: usize,
    /// Buffers of chunks already read, for the next chunks.
    spare: Vec<Vec<u8>>,
    remaining: u128,
}

impl ThreadedStream {
    /// The stream of `plan` for the seed pair, hashed with `kernel` by a pool of
    /// `threads` threads (on the calling thread when `threads` ≤ 1).
    pub fn new(
        server_seed: &str,
        client_seed: &str,
        plan: &StreamPlan,
        kernel: Kernel,
        threads: usize,
    ) -> Result<Self, StreamError> {
        Self::with_chunk(server_seed, client_seed, plan, kernel, threads, CHUNK_BYTES)
    }

    fn with_chunk(
        server_seed: &str,
        client_seed: &str,
        plan: &StreamPlan,
        kernel: Kernel,
        threads: usize,
        chunk_bytes: usize,
    ) -> Result<Self, StreamError> {
        let remaining = plan.byte_len()?;
        let hasher = RoundHasher::new(server_seed, client_seed);
        let round_bytes = plan.words_per_round as usize * 4;
        if threads <= 1 || round_bytes > chunk_bytes {
            let stream = Box::new(RawStream::from_hasher(&hasher, kernel, plan, remaining));
            return Ok(Self { inner: Source::Serial { stream, buffer: vec![0; 1 << 16], at: 0, filled: 0 } });
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| StreamError::Threads { threads, reason: e.to_string() })?;
        let job = Arc::new(ChunkJob {
            hasher,
            kernel,
            nonces: plan.nonces.clone(),
            words_per_round: plan.words_per_round,
            rounds_per_chunk: (chunk_bytes / round_bytes) as u64,
        });
        let mut stream = PoolStream {
            pool,
            job,
            pending: VecDeque::new(),
            next_chunk: 0,
            current: Vec::new(),
            at: 0,
            spare: Vec::new(),
            remaining,
        };
        for _ in 0..CHUNKS_AHEAD_PER_THREAD * threads {
            stream.start_chunk();
        }
        Ok(Self { inner: Source::Pool(stream) })
    }

    /// Bytes not yet handed out.
    pub fn remaining(&self) -> u128 {
        match &self.inner {
            Source::Serial { stream, at, filled, .. } => stream.remaining() + (filled - at) as u128,
            Source::Pool(pool) => pool.remaining,
        }
    }

    /// The next bytes of the stream, as many as are ready in one piece (at least one),
    /// counted as handed out; empty once the stream has ended. Copies nothing on the pool.
    pub fn next_bytes(&mut self) -> &[u8] {
        match &mut self.inner {
            Source::Serial { stream, buffer, at, filled } => {
                if at == filled {
                    *filled = stream.fill(buffer);
                    *at = 0;
                }
                let bytes = &buffer[*at..*filled];
                *at = *filled;
                bytes
            }
            Source::Pool(pool) => pool.next_bytes(),
        }
    }

    /// Exactly as [`RawStream::fill`]: the next bytes into `out`; how many; 0 at the end.
    pub fn fill(&mut self, out: &mut [u8]) -> usize {
        match &mut self.inner {
            Source::Serial { stream, buffer, at, filled } => {
                let n = (*filled - *at).min(out.len());
                out[..n].copy_from_slice(&buffer[*at..*at + n]);
                *at += n;
                n + stream.fill(&mut out[n..])
            }
            Source::Pool(pool) => pool.fill(out),
        }
    }
}

impl io::Read for ThreadedStream {
    /// [`ThreadedStream::fill`]; never fails. `Ok(0)` means the stream has ended.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Ok(self.fill(buf))
    }
}

impl PoolStream {
    /// Starts hashing the next chunk on the pool, if the range has one.
    fn start_chunk(&mut self) {
        let Some(bytes) = self.job.chunk_len(self.next_chunk) else {
            return;
        };
        let mut buffer = self.spare.pop().unwrap_or_default();
        buffer.resize(bytes, 0);
        let (sender, receiver) = mpsc::sync_channel(1);
        let job = Arc::clone(&self.job);
        let chunk = self.next_chunk;
        self.pool.spawn(move || {
            job.hash_chunk(chunk, &mut buffer);
            // The reader may have gone (the stream was dropped): nothing to do then.
            let _ = sender.send(buffer);
        });
        self.pending.push_back(receiver);
        self.next_chunk += 1;
    }

    /// The rest of the current chunk (or of the next, once this one is read), at most
    /// the bytes remaining.
    fn next_bytes(&mut self) -> &[u8] {
        if self.remaining == 0 {
            return &[];
        }
        if self.at == self.current.len() {
            self.next_chunk_in_order();
        }
        let n = usize::try_from(self.remaining)
            .map_or(self.current.len() - self.at, |left| left.min(self.current.len() - self.at));
        let start = self.at;
        self.at += n;
        self.remaining -= n as u128;
        &self.current[start..start + n]
    }

    fn fill(&mut self, out: &mut [u8]) -> usize {
        let mut at = 0;
        while at < out.len() && self.remaining > 0 {
            if self.at == self.current.len() {
                self.next_chunk_in_order();
            }
            let n = (out.len() - at).min(self.current.len() - self.at);
            let n = usize::try_from(self.remaining).map_or(n, |left| left.min(n));
            out[at..at + n].copy_from_slice(&self.current[self.at..self.at + n]);
            (at, self.at) = (at + n, self.at + n);
            self.remaining -= n as u128;
        }
        at
    }

    /// Recycles the chunk just read, starts another, and waits for the oldest.
    fn next_chunk_in_order(&mut self) {
        self.spare.push(std::mem::take(&mut self.current));
        self.start_chunk();
        // The reader never asks past the plan's end, and every chunk inside the range is
        // started before it is needed, so a missing chunk here is a bug.
        let receiver = self.pending.pop_front().expect("a stream chunk was never started");
        self.current = receiver.recv().expect("a stream chunk task stopped early");
        self.at = 0;
    }
}

/// What the pool tasks of a [`ThreadedStream`] hash: chunk `c` is the `rounds_per_chunk`
/// whole rounds from nonce `nonces.start + c * rounds_per_chunk`, cut at the range's end.
#[derive(Debug)]
struct ChunkJob {
    hasher: RoundHasher,
    kernel: Kernel,
    nonces: Range<u64>,
    words_per_round: u32,
    rounds_per_chunk: u64,
}

impl ChunkJob {
    fn round_bytes(&self) -> u64 {
        u64::from(self.words_per_round) * 4
    }

    /// The first nonce of chunk `c`, if it lies inside the range.
    fn chunk_start(&self, c: u64) -> Option<u64> {
        let first =
            c.checked_mul(self.rounds_per_chunk).and_then(|offset| self.nonces.start.checked_add(offset))?;
        (first < self.nonces.end).then_some(first)
    }

    /// The bytes of chunk `c`, if it starts inside the range (the last one may be short).
    fn chunk_len(&self, c: u64) -> Option<usize> {
        let first = self.chunk_start(c)?;
        let rounds = self.rounds_per_chunk.min(self.nonces.end - first);
        Some((rounds * self.round_bytes()) as usize)
    }

    /// Hashes chunk `c` into `out`, which holds exactly its rounds.
    fn hash_chunk(&self, c: u64, out: &mut [u8]) {
        let first = self.chunk_start(c).expect("chunks are started inside the range only");
        let rounds = out.len() as u64 / self.round_bytes();
        let plan =
            StreamPlan { nonces: first..first + rounds, words_per_round: self.words_per_round, bytes: None };
        RawStream::from_hasher(&self.hasher, self.kernel, &plan, out.len() as u128).fill(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::{KeccakPath, WordSource};

    fn plan(nonces: Range<u64>, words_per_round: u32, bytes: Option<u64>) -> StreamPlan {
        StreamPlan { nonces, words_per_round, bytes }
    }

    fn all_bytes(plan: &StreamPlan, buffer: usize) -> Vec<u8> {
        all_bytes_on(plan, buffer, Kernel::scalar())
    }

    fn all_bytes_on(plan: &StreamPlan, buffer: usize, kernel: Kernel) -> Vec<u8> {
        let mut stream = RawStream::new("s", "c", plan, kernel).unwrap();
        let (mut out, mut buf) = (Vec::new(), vec![0u8; buffer]);
        loop {
            match stream.fill(&mut buf) {
                0 => return out,
                n => out.extend_from_slice(&buf[..n]),
            }
        }
    }

    /// The same words, taken one by one from each round's `ShakeWords`.
    fn expected(nonces: Range<u64>, words_per_round: u32) -> Vec<u8> {
        let hasher = RoundHasher::new("s", "c");
        nonces
            .flat_map(|nonce| {
                let mut words = hasher.words(nonce);
                (0..words_per_round).flat_map(move |_| words.next_word().to_be_bytes())
            })
            .collect()
    }

    fn kernels() -> Vec<Kernel> {
        KeccakPath::supported().into_iter().map(|path| Kernel::new(path).unwrap()).collect()
    }

    #[test]
    fn rounds_follow_each_other_word_by_word_on_every_path() {
        for kernel in kernels() {
            for k in [1, 2, 33, 34, 35, 68, 69, 70] {
                let got = all_bytes_on(&plan(5..200, k, None), 4096, kernel);
                assert_eq!(got, expected(5..200, k), "K = {k}, {}", kernel.path());
            }
        }
    }

    #[test]
    fn any_buffer_size_gives_the_same_bytes() {
        let whole = expected(0..3, 35);
        for buffer in [1, 2, 3, 5, 7, 136, 139, 10_000] {
            assert_eq!(all_bytes(&plan(0..3, 35, None), buffer), whole, "buffer {buffer}");
        }
    }

    #[test]
    fn a_byte_limit_gives_a_prefix_that_may_end_inside_a_word() {
        let whole = expected(0..3, 2);
        for bytes in [0, 1, 5, 8, 9, 23, 24] {
            let got = all_bytes(&plan(0..3, 2, Some(bytes)), 3);
            assert_eq!(got, whole[..bytes as usize], "bytes {bytes}");
        }
    }

    #[test]
    fn bad_plans_are_refused() {
        let refuse = |p: StreamPlan| RawStream::new("s", "c", &p, Kernel::scalar()).unwrap_err();
        assert_eq!(refuse(plan(4..4, 1, None)), StreamError::EmptyRange { start: 4, end: 4 });
        assert_eq!(refuse(plan(0..1, 0, None)), StreamError::NoWords);
        assert!(matches!(refuse(plan(0..3, 2, Some(25))), StreamError::BeyondRange { available: 24, .. }));
    }

    fn threaded_bytes(plan: &StreamPlan, threads: usize, chunk: usize, buffer: usize) -> Vec<u8> {
        let mut stream = ThreadedStream::with_chunk("s", "c", plan, Kernel::best(), threads, chunk).unwrap();
        let (mut out, mut buf) = (Vec::new(), vec![0u8; buffer]);
        loop {
            match stream.fill(&mut buf) {
                0 => return out,
                n => out.extend_from_slice(&buf[..n]),
            }
        }
    }

    /// The same, read with `next_bytes` (as `fairaudit stream` reads it).
    fn threaded_pieces(plan: &StreamPlan, threads: usize, chunk: usize, kernel: Kernel) -> Vec<u8> {
        let mut stream = ThreadedStream::with_chunk("s", "c", plan, kernel, threads, chunk).unwrap();
        let mut out = Vec::new();
        loop {
            let piece = stream.next_bytes();
            if piece.is_empty() {
                assert_eq!(stream.remaining(), 0);
                return out;
            }
            out.extend_from_slice(piece);
        }
    }

    #[test]
    fn threads_and_chunks_do_not_change_the_bytes() {
        for (nonces, k, bytes) in [
            (0..40, 3, None),
            (7..30, 34, None),
            (0..50, 35, Some(3001)),
            (3..4, 1, None),
            (0..9, 5, Some(0)),
        ] {
            let p = plan(nonces, k, bytes);
            let expected = all_bytes(&p, 4096);
            // chunks of one round, of several rounds plus a remainder, of more than the range
            for chunk in [4 * k as usize, 4 * k as usize * 3 + 2, 1 << 16] {
                for threads in [1, 2, 3, 4] {
                    for buffer in [1, 7, 4096] {
                        let got = threaded_bytes(&p, threads, chunk, buffer);
                        assert_eq!(got, expected, "{p:?} chunk {chunk} threads {threads} buffer {buffer}");
                    }
                    for kernel in kernels() {
                        let got = threaded_pieces(&p, threads, chunk, kernel);
                        assert_eq!(got, expected, "{p:?} chunk {chunk} threads {threads} {}", kernel.path());
                    }
                }
            }
        }
    }

    #[test]
    fn rounds_longer_than_a_chunk_stay_on_one_thread() {
        let p = plan(0..3, 10, None);
        let stream = ThreadedStream::with_chunk("s", "c", &p, Kernel::best(), 4, 39).unwrap();
        assert!(matches!(stream.inner, Source::Serial { .. }));
        assert_eq!(threaded_bytes(&p, 4, 39, 5), all_bytes(&p, 5));
    }

    #[test]
    fn threaded_streams_reach_the_end_of_the_u64_range_and_stop_when_dropped() {
        let p = plan(u64::MAX - 10..u64::MAX, 2, None);
        assert_eq!(threaded_bytes(&p, 3, 8, 64), all_bytes(&p, 64));
        // An endless stream read a little and dropped: the workers must stop, not hang.
        let mut endless =
            ThreadedStream::with_chunk("s", "c", &plan(0..u64::MAX, 34, None), Kernel::best(), 4, 1 << 12)
                .unwrap();
        let mut some = [0u8; 100_000];
        assert_eq!(endless.fill(&mut some), some.len());
        drop(endless);
    }

    #[test]
    fn the_whole_u64_range_is_counted_without_overflow() {
        let stream = RawStream::new("s", "c", &plan(0..u64::MAX, u32::MAX, None), Kernel::best()).unwrap();
        assert_eq!(stream.remaining(), u128::from(u64::MAX) * u128::from(u32::MAX) * 4);
        let mut last =
            RawStream::new("s", "c", &plan(u64::MAX - 1..u64::MAX, 1, None), Kernel::best()).unwrap();
        let mut out = [0u8; 8];
        assert_eq!(last.fill(&mut out), 4);
        assert_eq!(out[..4], expected(u64::MAX - 1..u64::MAX, 1)[..]);
    }
}
