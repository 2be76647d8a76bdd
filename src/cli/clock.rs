//! The wall clock behind every timestamp fairaudit writes (`run.json`'s `started_at` and
//! `finished_at`, the time a report says it was made, a certificate's `created_at`): the
//! system's, or the fixed time `SOURCE_DATE_EPOCH` names.
//!
//! `SOURCE_DATE_EPOCH` is the reproducible-builds convention
//! (reproducible-builds.org/specs/source-date-epoch): seconds since 1970-01-01 UTC, in
//! decimal digits, as `date +%s` prints them. Set, every timestamp is that time, so that
//! two runs of the same command write the same bytes wherever nothing else (the build's
//! revision, elapsed seconds, the working folder) differs; `tests/value_stability.rs`
//! pins certificates that way. Elapsed seconds and rates still come from the monotonic
//! clock: they measure the run, and no fixed value could stand for them. A value that is
//! not such a number, or past 9999-12-31T23:59:59Z (GCC's bound), is refused before any
//! command runs (exit 2), as the convention asks, rather than ignored.

use anyhow::{bail, Result};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

/// The environment variable of the convention.
pub const SOURCE_DATE_EPOCH: &str = "SOURCE_DATE_EPOCH";

/// The largest value accepted: 9999-12-31T23:59:59Z, the last second RFC 3339 can write.
const LATEST: u64 = 253_402_300_799;

/// The fixed time, when `SOURCE_DATE_EPOCH` is set; read once by [`read_environment`].
static FIXED: OnceLock<Option<SystemTime>> = OnceLock::new();

/// Reads `SOURCE_DATE_EPOCH` for [`now`]; an error names the variable and its value.
pub fn read_environment() -> Result<()> {
    let fixed = match std::env::var_os(SOURCE_DATE_EPOCH) {
        None => None,
        Some(value) => Some(parse(&value.to_string_lossy())?),
    };
    // A second call (none is made) keeps the first value.
    let _ = FIXED.set(fixed);
    Ok(())
}

/// The time `text` names: decimal seconds since the epoch, 0 to [`LATEST`].
fn parse(text: &str) -> Result<SystemTime> {
    let seconds = if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        None
    } else {
        text.parse::<u64>().ok().filter(|&s| s <= LATEST)
    };
    match seconds {
        Some(s) => Ok(SystemTime::UNIX_EPOCH + Duration::from_secs(s)),
        None => bail!(
            "{SOURCE_DATE_EPOCH}={:?} is not a time: give seconds since 1970-01-01 UTC in decimal digits (date +%s), at most {LATEST}, or unset it",
            text
        ),
    }
}

/// Now, or the time `SOURCE_DATE_EPOCH` fixes.
pub fn now() -> SystemTime {
    FIXED.get().copied().flatten().unwrap_or_else(SystemTime::now)
}

/// `time` as every timestamp fairaudit writes it: RFC 3339 in UTC, to the second.
pub fn rfc3339(time: SystemTime) -> String {
    humantime::format_rfc3339_seconds(time).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_seconds_are_a_time_and_anything_else_is_refused() {
        assert_eq!(rfc3339(parse("0").unwrap()), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(parse("1767225600").unwrap()), "2026-01-01T00:00:00Z");
        assert_eq!(rfc3339(parse("253402300799").unwrap()), "9999-12-31T23:59:59Z");
        assert_eq!(rfc3339(parse("007").unwrap()), "1970-01-01T00:00:07Z");
        for bad in
            ["", " 1", "1 ", "-1", "+1", "1.5", "1e9", "0x10", "253402300800", "99999999999999999999999"]
        {
            let error = parse(bad).unwrap_err().to_string();
            assert!(error.starts_with("SOURCE_DATE_EPOCH="), "{bad:?}: {error}");
        }
    }
}
