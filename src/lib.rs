//! fairaudit audits provably-fair casino games.
//!
//! The pipeline, in module order: [`chain`] turns a seed pair and a nonce into the round
//! signature and its SHAKE256 word stream; [`sampler`] turns words into fair choices by
//! rejection sampling; [`games`] turn choices into Keno draws and roulette spins;
//! [`scheme`] names the scheme a round belongs to, that chain or another operator family's
//! (the HMAC-SHA256 family of Stake and its copies, with its own six games);
//! [`verify`] replays recorded rounds against the chain; [`conformance`] lists the rounds
//! another implementation must reproduce, aimed at the chain's edges, for `verify` to
//! judge; [`rtp`] certifies the return to
//! player of every bet type, exactly, and checks the operator's claims; [`stream`] exports the
//! raw word stream for generic batteries (dieharder, PractRand); [`certify`] pins what an
//! audit certificate rests on (SHA-256 of every file, every verdict under a key, worked
//! recomputations of single rounds) so that anyone can re-check it. Everything here is pure library
//! code that returns typed errors: printing and exit codes live in the binary's CLI layer.
//!
//! ```
//! use fairaudit::games::GameId;
//! let round = fairaudit::verify::replay(GameId::RouletteAmerican, "server", "client", 7);
//! assert_eq!(round.round_signature.len(), 64);
//! assert_eq!(round.u32_used, 1);
//! ```

#![deny(missing_docs)]

pub mod app;
pub mod audit;
pub mod certify;
pub mod chain;
pub mod columns;
pub mod conformance;
pub mod device;
pub mod fields;
pub mod games;
pub mod report;
pub mod results;
pub mod rtp;
pub mod sampler;
pub mod scheme;
pub mod simd;
pub mod stats;
pub mod stream;
pub mod sweep;
pub mod tally;
pub mod verify;

/// fairaudit's version, as Cargo knows it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The source revision this build was made from: the commit's first 12 hex digits, with
/// `-dirty` when the sources differed from it, or `unknown` when built without git (see
/// `build.rs`). `run.json` records it beside [`VERSION`], so a report names its build.
pub const REVISION: &str = env!("FAIRAUDIT_REVISION");
