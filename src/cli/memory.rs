//! The memory a run may use, and the refusal of one that would not fit: the least of the
//! machine's memory, its cgroup's limit and its address-space limit, against what the
//! run's seed pairs will hold. A refusal before any work, in one line, rather than an
//! abort on an allocation hours in.

use super::args::{seed_pair_count, SweepArgs};
use anyhow::{bail, Result};
use std::path::Path;

/// What a sweep refused for its seed pairs' memory can do.
pub(super) const FEWER_PAIRS: &str = "sweep fewer seed pairs";

/// [`check_seed_pair_memory`] for `pairs` seed pairs, however they were named (`what`
/// starts the error: the flag, or the file that lists them, and their number; `advice` ends it).
pub(super) fn check_pair_memory(pairs: u64, pair_bytes: u64, what: &str, advice: &str) -> Result<()> {
    let needed = pairs.saturating_mul(pair_bytes);
    if let Some((memory, source)) = memory_limit().filter(|&(memory, _)| needed > memory) {
        bail!(
            "{what}: their seed pairs need about {} of memory, more than the {} this process may use ({source}); {advice}",
            human_bytes(needed),
            human_bytes(memory)
        );
    }
    Ok(())
}

/// The memory this process may use, and what limits it: the least of the machine's
/// physical memory, its cgroup's limit and its address-space limit. Physical memory alone
/// let a sweep under a 2 GB container or `ulimit -v` start and abort on an allocation
/// (exit 134) instead of being refused (issue 59).
fn memory_limit() -> Option<(u64, &'static str)> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|membership| cgroup_memory_limit(&membership, |path| std::fs::read_to_string(path).ok()));
    [
        physical_memory().map(|m| (m, "this machine's memory")),
        cgroup.map(|m| (m, "its cgroup's memory limit")),
        address_space_limit().map(|m| (m, "its address-space limit, ulimit -v")),
    ]
    .into_iter()
    .flatten()
    .min_by_key(|&(memory, _)| memory)
}

/// The machine's physical memory, if the system says.
fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf reads a system value and touches no memory of ours.
    let (pages, page_size) =
        unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    let (pages, page_size) = (u64::try_from(pages).ok()?, u64::try_from(page_size).ok()?);
    pages.checked_mul(page_size)
}

/// The process's `RLIMIT_AS` (`ulimit -v`, `prlimit --as`), when it has one.
fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes only the struct it is given, which is ours.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(limit.rlim_cur)
}

/// The least memory limit of the process's cgroup and of each above it (a parent's limit
/// binds its children), from `membership` (`/proc/self/cgroup`) and the files `read`
/// returns: cgroup v2's `memory.max` (`max` is none) and v1's `memory.limit_in_bytes`
/// (an unlimited one reads as a number near 2^63, which never wins). Where the process
/// sees its cgroup as the root (a cgroup namespace), the root's files are its own.
fn cgroup_memory_limit(membership: &str, read: impl Fn(&Path) -> Option<String>) -> Option<u64> {
    let mut least: Option<u64> = None;
    for line in membership.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let (mount, file) = match controllers {
            "" => ("/sys/fs/cgroup", "memory.max"),
            list if list.split(',').any(|c| c == "memory") => {
                ("/sys/fs/cgroup/memory", "memory.limit_in_bytes")
            }
            _ => continue,
        };
        let mut at = Some(Path::new(path));
        while let Some(dir) = at {
            let relative = dir.strip_prefix("/").unwrap_or(dir);
            let limit = read(&Path::new(mount).join(relative).join(file))
                .and_then(|text| text.trim().parse::<u64>().ok());
            if let Some(limit) = limit {
                least = Some(least.map_or(limit, |l| l.min(limit)));
            }
            at = dir.parent();
        }
    }
    least
}

fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["bytes", "kB", "MB", "GB", "TB", "PB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Refuses a sweep whose seed pairs cannot fit in this machine's memory, each holding
/// `pair_bytes` ([`game_pair_bytes`] summed over the games, or a scheme's own figure) until the results are
/// written, so that `--seed-pairs` in the billions would otherwise abort on an allocation
/// (or, in the thousands, be killed for memory after hours of sweeping).
pub(super) fn check_seed_pair_memory(args: &SweepArgs, pair_bytes: u64) -> Result<()> {
    let pairs = seed_pair_count(args);
    check_pair_memory(pairs, pair_bytes, &format!("--seed-pairs {pairs}"), FEWER_PAIRS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_cgroup_limit_of_the_process_and_its_parents_is_read_for_v1_and_v2() {
        let files = [
            ("/sys/fs/cgroup/a/memory.max", "max\n"),
            ("/sys/fs/cgroup/a/b/memory.max", "3000000000\n"),
            ("/sys/fs/cgroup/memory/x/memory.limit_in_bytes", "2000000000\n"),
            ("/sys/fs/cgroup/memory/x/y/memory.limit_in_bytes", "9223372036854771712\n"),
        ];
        let read = |path: &Path| files.iter().find(|(p, _)| Path::new(p) == path).map(|(_, t)| t.to_string());
        assert_eq!(cgroup_memory_limit("0::/a/b\n", read), Some(3_000_000_000));
        assert_eq!(cgroup_memory_limit("4:memory:/x/y\n1:cpu:/\n", read), Some(2_000_000_000));
        assert_eq!(cgroup_memory_limit("0::/a\n", read), None);
        assert_eq!(cgroup_memory_limit("1:cpu,cpuacct:/x/y\n", read), None);
    }
}
