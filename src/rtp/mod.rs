//! RTP certification: the exact return to player of every bet type, from the payout
//! table and the game's probabilities; the operator's published claims checked against
//! it; and the empirical RTP of swept rounds with its uncertainty.
//!
//! Certification rests on exact arithmetic ([`exact`], rationals throughout: no
//! simulation, no rounding); the empirical table ([`empirical`]) is a confirming,
//! bounded measurement of the same figures on real rounds. RTP is always reported per
//! bet type (each roulette bet, each Keno pick count), never as one number per game:
//! American roulette's top line returns less than its other bets.
//!
//! Inputs are data, not constants: Keno paytables ([`paytable`]) and published claims
//! ([`claims`]) are CSV files read exactly from their decimal text ([`decimal`]). The
//! roulette bets and the pockets each covers are in [`roulette_bets`].

pub mod claims;
pub mod crash;
pub mod decimal;
pub mod empirical;
pub mod exact;
pub mod paytable;
pub mod roulette_bets;
pub mod stake;
pub mod stake_realised;

pub use claims::{check_claim, parse_claims, Claim, ClaimVerdict, ClaimsError};
pub use empirical::{rtp_rows, RtpRow, RTP_TABLE};
pub use exact::{exact_rtp, ExactRtp};
pub use paytable::{Paytable, PaytableError, PaytableOrigin};

/// The line of a csv error and its message without the crate's own position prefix (the
/// line is reported separately, in the form every fairaudit input error uses).
pub(crate) fn csv_error_parts(error: &csv::Error) -> (u64, String) {
    let line = error.position().map_or(1, |p| p.line());
    let message = match error.kind() {
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
            format!("{len} fields where the header has {expected_len}")
        }
        csv::ErrorKind::Utf8 { .. } => "not valid UTF-8".to_owned(),
        csv::ErrorKind::Io(error) => error.to_string(),
        _ => error.to_string(),
    };
    (line, message)
}
