//! Raw export of the chain's output, for generic randomness batteries (dieharder, PractRand).
//!
//! Test labs check the generator's raw output as well as the game outcomes. [`RawStream`]
//! produces that output as bytes: for each nonce of a range, in order, the first `K` words
//! of the round's SHAKE256 stream (SPEC §2), each written big-endian, i.e. the stream's
//! bytes in SHAKE256 output order. [`ThreadedStream`] produces the same bytes with several
//! threads hashing ahead, because one thread is slower than some batteries read.
//! `fairaudit stream` copies it to stdout; the battery reads it from there.
//!
//! Only the raw words are exported. Outcomes (a pocket 0..36, a Keno number) are not
//! uniform over the bits of the bytes they would be packed into, so a bit battery would
//! reject a fair game; the outcome-level battery is `sweep`'s statistics.
//!
//! ```
//! use fairaudit::stream::{RawStream, StreamPlan};
//! let plan = StreamPlan { nonces: 0..2, words_per_round: 3, bytes: None };
//! let mut stream = RawStream::new("server", "client", &plan).unwrap();
//! let mut out = [0u8; 100];
//! assert_eq!(stream.fill(&mut out), 2 * 3 * 4); // two rounds of three 4-byte words
//! assert_eq!(stream.fill(&mut out), 0); // and then nothing
//! ```

use crate::chain::words::WORDS_PER_BLOCK;
use crate::chain::{RoundHasher, ShakeWords, WordSource};
use std::io;
use std::ops::Range;
use std::sync::mpsc;
use std::thread::JoinHandle;

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
}

/// The raw bytes of consecutive rounds; see the module docs for the layout.
///
/// [`RawStream::fill`] writes the next bytes into a caller's buffer. Opening a round
/// copies the seed pair's absorbed prefix and formats the nonce on the stack
/// ([`RoundHasher`]), so nothing is allocated per round.
#[derive(Clone, Debug)]
pub struct RawStream {
    hasher: RoundHasher,
    round: ShakeWords,
    /// Words still to take from `round`.
    words_left: u32,
    next_nonce: u64,
    words_per_round: u32,
    /// Bytes still to hand out. `u128` because a whole `u64` nonce range of 34-word rounds
    /// holds about 2.5 · 10^21 bytes.
    remaining: u128,
    /// The word that the previous call cut short, and how many of its bytes went out.
    cut_word: [u8; 4],
    cut_at: usize,
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
    /// The stream of `plan` for the seed pair (`server_seed`, `client_seed`).
    pub fn new(server_seed: &str, client_seed: &str, plan: &StreamPlan) -> Result<Self, StreamError> {
        let remaining = plan.byte_len()?;
        Ok(Self::from_hasher(RoundHasher::new(server_seed, client_seed), plan, remaining))
    }

    /// The stream of an already checked plan, limited to `remaining` bytes.
    fn from_hasher(hasher: RoundHasher, plan: &StreamPlan, remaining: u128) -> Self {
        let start = plan.nonces.start;
        let round = hasher.words(start);
        Self {
            hasher,
            round,
            words_left: plan.words_per_round,
            next_nonce: start + 1,
            words_per_round: plan.words_per_round,
            remaining,
            cut_word: [0; 4],
            cut_at: 4,
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
        let out = &mut out[..len];
        let mut at = 0;
        while at < len && self.cut_at < 4 {
            out[at] = self.cut_word[self.cut_at];
            self.cut_at += 1;
            at += 1;
        }
        let whole = (len - at) / 4 * 4;
        for chunk in out[at..at + whole].chunks_exact_mut(4) {
            chunk.copy_from_slice(&self.next_word().to_be_bytes());
        }
        at += whole;
        if at < len {
            self.cut_word = self.next_word().to_be_bytes();
            self.cut_at = len - at;
            out[at..].copy_from_slice(&self.cut_word[..self.cut_at]);
        }
        self.remaining -= len as u128;
        len
    }

    /// The next word, opening the next round when this one has given its `K` words.
    /// Only called while bytes remain, and `remaining` never exceeds what the range holds,
    /// so the next nonce is always inside the range.
    #[inline]
    fn next_word(&mut self) -> u32 {
        if self.words_left == 0 {
            self.round = self.hasher.words(self.next_nonce);
            self.next_nonce += 1;
            self.words_left = self.words_per_round;
        }
        self.words_left -= 1;
        self.round.next_word()
    }
}

impl io::Read for RawStream {
    /// [`RawStream::fill`]; never fails. `Ok(0)` means the stream has ended.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Ok(self.fill(buf))
    }
}

/// Bytes a worker of [`ThreadedStream`] produces at a time, in whole rounds: large enough
/// that handing chunks over costs nothing next to hashing them (about 1 700 µs of work at
/// 34 words per round), small enough that starting and stopping waste little.
pub const CHUNK_BYTES: usize = 256 * 1024;

/// The same bytes as [`RawStream`], hashed by several threads ahead of the reader.
///
/// One thread hashes about 150 MB/s, slower than dieharder reads in its lagged-sum tests
/// (about 210 MB/s), so there the stream would set the pace. Rounds are independent, so
/// `T` workers each hash every `T`-th chunk of whole rounds into a buffer and hand it over
/// in order through a bounded channel (at most two chunks ahead each);
/// [`ThreadedStream::fill`] copies from the chunk at hand. The bytes do not depend on `T`.
/// Buffers go back to their worker, so nothing is allocated once each worker has its few
/// buffers.
///
/// A round longer than [`CHUNK_BYTES`] cannot be split between workers (a SHAKE256 stream
/// cannot be entered in the middle without squeezing everything before it), so such plans,
/// and `threads` ≤ 1, run on the calling thread as a plain [`RawStream`].
#[derive(Debug)]
pub struct ThreadedStream {
    inner: Source,
}

#[derive(Debug)]
enum Source {
    Serial(Box<RawStream>),
    Workers(Workers),
}

#[derive(Debug)]
struct Workers {
    /// Worker `t` sends chunks `t`, `t + T`, `t + 2T`, … in this order.
    chunks: Vec<mpsc::Receiver<Vec<u8>>>,
    /// Where used buffers go back to, per worker.
    spent: Vec<mpsc::Sender<Vec<u8>>>,
    /// The worker whose chunk comes next.
    next_worker: usize,
    /// The chunk being read, with its worker, and how much of it has gone out.
    current: Vec<u8>,
    current_worker: usize,
    at: usize,
    remaining: u128,
    handles: Vec<JoinHandle<()>>,
}

impl ThreadedStream {
    /// The stream of `plan` for the seed pair, hashed by `threads` worker threads.
    pub fn new(
        server_seed: &str,
        client_seed: &str,
        plan: &StreamPlan,
        threads: usize,
    ) -> Result<Self, StreamError> {
        Self::with_chunk(server_seed, client_seed, plan, threads, CHUNK_BYTES)
    }

    fn with_chunk(
        server_seed: &str,
        client_seed: &str,
        plan: &StreamPlan,
        threads: usize,
        chunk_bytes: usize,
    ) -> Result<Self, StreamError> {
        let remaining = plan.byte_len()?;
        let hasher = RoundHasher::new(server_seed, client_seed);
        let round_bytes = plan.words_per_round as usize * 4;
        if threads <= 1 || round_bytes > chunk_bytes {
            return Ok(Self {
                inner: Source::Serial(Box::new(RawStream::from_hasher(hasher, plan, remaining))),
            });
        }
        let rounds_per_chunk = (chunk_bytes / round_bytes) as u64;
        let (mut chunks, mut spent, mut handles) = (Vec::new(), Vec::new(), Vec::new());
        for worker in 0..threads {
            let (chunk_tx, chunk_rx) = mpsc::sync_channel(2);
            let (spent_tx, spent_rx) = mpsc::channel();
            let job = ChunkJob {
                hasher: hasher.clone(),
                nonces: plan.nonces.clone(),
                words_per_round: plan.words_per_round,
                rounds_per_chunk,
                first_chunk: worker as u64,
                step: threads as u64,
            };
            handles.push(std::thread::spawn(move || job.run(&chunk_tx, &spent_rx)));
            chunks.push(chunk_rx);
            spent.push(spent_tx);
        }
        let workers = Workers {
            chunks,
            spent,
            next_worker: 0,
            current: Vec::new(),
            current_worker: 0,
            at: 0,
            remaining,
            handles,
        };
        Ok(Self { inner: Source::Workers(workers) })
    }

    /// Bytes not yet handed out.
    pub fn remaining(&self) -> u128 {
        match &self.inner {
            Source::Serial(stream) => stream.remaining(),
            Source::Workers(workers) => workers.remaining,
        }
    }

    /// Exactly as [`RawStream::fill`]: the next bytes into `out`; how many; 0 at the end.
    pub fn fill(&mut self, out: &mut [u8]) -> usize {
        match &mut self.inner {
            Source::Serial(stream) => stream.fill(out),
            Source::Workers(workers) => workers.fill(out),
        }
    }
}

impl io::Read for ThreadedStream {
    /// [`ThreadedStream::fill`]; never fails. `Ok(0)` means the stream has ended.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Ok(self.fill(buf))
    }
}

impl Workers {
    fn fill(&mut self, out: &mut [u8]) -> usize {
        let len = usize::try_from(self.remaining).map_or(out.len(), |left| left.min(out.len()));
        let mut at = 0;
        while at < len {
            if self.at == self.current.len() {
                self.next_chunk();
            }
            let n = (len - at).min(self.current.len() - self.at);
            out[at..at + n].copy_from_slice(&self.current[self.at..self.at + n]);
            (at, self.at) = (at + n, self.at + n);
        }
        self.remaining -= len as u128;
        len
    }

    /// Returns the spent chunk to its worker and takes the next one in order.
    fn next_chunk(&mut self) {
        let spent = std::mem::take(&mut self.current);
        // A worker that has finished its share no longer takes buffers back; that is fine.
        let _ = self.spent[self.current_worker].send(spent);
        // The reader never asks past the plan's end, and each chunk inside the range is
        // sent before its worker stops, so a closed channel here is a bug.
        self.current = self.chunks[self.next_worker].recv().expect("a stream worker stopped early");
        self.current_worker = self.next_worker;
        self.next_worker = (self.next_worker + 1) % self.chunks.len();
        self.at = 0;
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        // Closing the channels makes each worker's next send fail, and it returns.
        self.chunks.clear();
        self.spent.clear();
        for handle in self.handles.drain(..) {
            let _ = handle.join();
        }
    }
}

/// What one worker of a [`ThreadedStream`] hashes: chunks `first_chunk`,
/// `first_chunk + step`, … of `rounds_per_chunk` whole rounds each, until the range ends.
struct ChunkJob {
    hasher: RoundHasher,
    nonces: Range<u64>,
    words_per_round: u32,
    rounds_per_chunk: u64,
    first_chunk: u64,
    step: u64,
}

impl ChunkJob {
    fn run(self, chunks: &mpsc::SyncSender<Vec<u8>>, spent: &mpsc::Receiver<Vec<u8>>) {
        let mut chunk = self.first_chunk;
        // Stops at the range's end (the nonce arithmetic would leave u64) or when the
        // reader has gone (the send fails).
        while let Some(first) =
            chunk.checked_mul(self.rounds_per_chunk).and_then(|offset| self.nonces.start.checked_add(offset))
        {
            if first >= self.nonces.end {
                return;
            }
            let rounds = self.rounds_per_chunk.min(self.nonces.end - first);
            let plan = StreamPlan {
                nonces: first..first + rounds,
                words_per_round: self.words_per_round,
                bytes: None,
            };
            let bytes = rounds as usize * self.words_per_round as usize * 4;
            let mut buffer = spent.try_recv().unwrap_or_default();
            buffer.resize(bytes, 0);
            RawStream::from_hasher(self.hasher.clone(), &plan, bytes as u128).fill(&mut buffer);
            if chunks.send(buffer).is_err() {
                return;
            }
            let Some(next) = chunk.checked_add(self.step) else { return };
            chunk = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(nonces: Range<u64>, words_per_round: u32, bytes: Option<u64>) -> StreamPlan {
        StreamPlan { nonces, words_per_round, bytes }
    }

    fn all_bytes(plan: &StreamPlan, buffer: usize) -> Vec<u8> {
        let mut stream = RawStream::new("s", "c", plan).unwrap();
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

    #[test]
    fn rounds_follow_each_other_word_by_word() {
        for k in [1, 2, 33, 34, 35, 70] {
            assert_eq!(all_bytes(&plan(5..9, k, None), 4096), expected(5..9, k), "K = {k}");
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
        let refuse = |p: StreamPlan| RawStream::new("s", "c", &p).unwrap_err();
        assert_eq!(refuse(plan(4..4, 1, None)), StreamError::EmptyRange { start: 4, end: 4 });
        assert_eq!(refuse(plan(0..1, 0, None)), StreamError::NoWords);
        assert!(matches!(refuse(plan(0..3, 2, Some(25))), StreamError::BeyondRange { available: 24, .. }));
    }

    fn threaded_bytes(plan: &StreamPlan, threads: usize, chunk: usize, buffer: usize) -> Vec<u8> {
        let mut stream = ThreadedStream::with_chunk("s", "c", plan, threads, chunk).unwrap();
        let (mut out, mut buf) = (Vec::new(), vec![0u8; buffer]);
        loop {
            match stream.fill(&mut buf) {
                0 => return out,
                n => out.extend_from_slice(&buf[..n]),
            }
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
                }
            }
        }
    }

    #[test]
    fn rounds_longer_than_a_chunk_stay_on_one_thread() {
        let p = plan(0..3, 10, None);
        let stream = ThreadedStream::with_chunk("s", "c", &p, 4, 39).unwrap();
        assert!(matches!(stream.inner, Source::Serial(_)));
        assert_eq!(threaded_bytes(&p, 4, 39, 5), all_bytes(&p, 5));
    }

    #[test]
    fn threaded_streams_reach_the_end_of_the_u64_range_and_stop_when_dropped() {
        let p = plan(u64::MAX - 10..u64::MAX, 2, None);
        assert_eq!(threaded_bytes(&p, 3, 8, 64), all_bytes(&p, 64));
        // An endless stream read a little and dropped: the workers must stop, not hang.
        let mut endless =
            ThreadedStream::with_chunk("s", "c", &plan(0..u64::MAX, 34, None), 4, 1 << 12).unwrap();
        let mut some = [0u8; 100_000];
        assert_eq!(endless.fill(&mut some), some.len());
        drop(endless);
    }

    #[test]
    fn the_whole_u64_range_is_counted_without_overflow() {
        let stream = RawStream::new("s", "c", &plan(0..u64::MAX, u32::MAX, None)).unwrap();
        assert_eq!(stream.remaining(), u128::from(u64::MAX) * u128::from(u32::MAX) * 4);
        let mut last = RawStream::new("s", "c", &plan(u64::MAX - 1..u64::MAX, 1, None)).unwrap();
        let mut out = [0u8; 8];
        assert_eq!(last.fill(&mut out), 4);
        assert_eq!(out[..4], expected(u64::MAX - 1..u64::MAX, 1)[..]);
    }
}
