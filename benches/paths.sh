#!/usr/bin/env bash
# Single-thread speed of each Keccak path, through the binary: sweep rounds per second per
# game, and `fairaudit stream` MB per second, all measured in one run.
#
# Figures are per CPU second (user + system time of the process, best of REPEATS), not per
# wall-clock second, so that a machine shared with other work still gives comparable
# figures; on an idle machine the two agree. A sweep's fixed cost (start, the battery,
# writing the report) is measured on 1000 rounds and subtracted.
#
# Usage: benches/paths.sh [ROUNDS]   (default 2,000,000 rounds per game, 7-digit nonces)
# Environment: BASELINE=/path/to/another/fairaudit adds its rows (e.g. a build from before
# the batched paths, which has no --keccak); REPEATS (default 3); STREAM_BYTES (default
# 500 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2000000}
repeats=${REPEATS:-3}
stream_bytes=${STREAM_BYTES:-500000000}
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=1000000
server=7f0e3c2a9b8d4f6e1a5c3b7d9e2f4a6c8b0d1e3f5a7c9b2d4e6f8a0c1b3d5e7f
client=c4a1e9f27b3d5068e2f4a6c8b0d1e3f5a7c9b2d4e6f8a0c1b3d5e7f90e3c2a9b

# Prints the least CPU seconds (user + system) of REPEATS runs of the command.
cpu_seconds() {
  local best="" run seconds
  for ((run = 1; run <= repeats; run++)); do
    /usr/bin/time -f "%U %S" -o "$tmp/time" "$@" >/dev/null
    seconds=$(awk '{ print $1 + $2 }' "$tmp/time")
    best=$(awk -v a="$seconds" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
  done
  echo "$best"
}

# The binary and the options that choose a path: "target/release/fairaudit --keccak avx2".
runners=()
for path in scalar avx2 avx512; do
  if target/release/fairaudit stream --keccak "$path" --bytes 4 >/dev/null 2>&1; then
    runners+=("$path|target/release/fairaudit|--keccak $path")
  else
    echo "note: $path skipped (this CPU does not support it)" >&2
  fi
done
[[ -n "${BASELINE:-}" ]] && runners+=("baseline|$BASELINE|")

sweep_rate() {
  local binary=$1 options=$2 game=$3 small large
  # shellcheck disable=SC2086 # $options is a list of words on purpose
  small=$(cpu_seconds "$binary" sweep --game "$game" --nonces "$start..$((start + 1000))" --threads 1 \
    --server-seed "$server" --client-seed "$client" --quiet --force --out "$tmp/out" $options)
  # shellcheck disable=SC2086
  large=$(cpu_seconds "$binary" sweep --game "$game" --nonces "$start..$((start + rounds))" --threads 1 \
    --server-seed "$server" --client-seed "$client" --quiet --force --out "$tmp/out" $options)
  awk -v n="$rounds" -v a="$large" -v b="$small" 'BEGIN { printf "%.0f", n / (a - b) }'
}

stream_rate() {
  local binary=$1 options=$2 seconds
  # shellcheck disable=SC2086
  seconds=$(cpu_seconds "$binary" stream --threads 1 --bytes "$stream_bytes" $options)
  awk -v n="$stream_bytes" -v s="$seconds" 'BEGIN { printf "%.0f", n / s / 1e6 }'
}

printf '%-10s %14s %20s %20s %12s\n' path "keno r/s" "roulette-eu r/s" "roulette-am r/s" "stream MB/s"
for runner in "${runners[@]}"; do
  IFS='|' read -r name binary options <<<"$runner"
  printf '%-10s %14s %20s %20s %12s\n' "$name" \
    "$(sweep_rate "$binary" "$options" keno)" \
    "$(sweep_rate "$binary" "$options" roulette-european)" \
    "$(sweep_rate "$binary" "$options" roulette-american)" \
    "$(stream_rate "$binary" "$options")"
done
