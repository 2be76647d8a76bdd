#!/usr/bin/env bash
# The device sweep beside the CPU sweep, in one run: rounds per second of each game (wall
# clock, from each run's run.json) on the CPU (all cores) and on each device that works
# here, the ratio, and whether each device's tally.json is byte-identical to the CPU's. Exits 1 when
# a device's tally differs, or its sweep fails or is refused (a faulty tally, a failed
# launch); a device that is not there ("no usable GPU") is skipped with the reason.
#
# Usage: benches/device.sh [ROUNDS] [BINARY]
#   ROUNDS  rounds of each game, nonces 0..ROUNDS (default 100,000,000)
#   BINARY  the fairaudit to run (default target/release/fairaudit, built here with
#           `--features gpu` if absent); for a GPU, a build with that feature, e.g. carried
#           to a machine without cargo.
# Environment: DEVICES (default "gpu"; add cpu-kernel for the device kernel on the CPU,
# 11 to 13 times slower than the CPU sweep); GAMES (default "keno roulette-european").
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-100000000}
binary=${2:-target/release/fairaudit}
if [[ ! -x "$binary" ]]; then
  cargo build --release --quiet --features gpu
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
seeds=(--server-seed 7f0e3c2a9b8d4f6e1a5c3b7d9e2f4a6c8b0d1e3f5a7c9b2d4e6f8a0c1b3d5e7f
  --client-seed c4a1e9f27b3d5068e2f4a6c8b0d1e3f5a7c9b2d4e6f8a0c1b3d5e7f90e3c2a9b)

rate() { sed -n 's/^  "rounds_per_second": \([0-9.]*\),*$/\1/p' "$1/run.json"; }

printf '%-18s %-12s %16s %8s  %s\n' game device "rounds/s" "x CPU" "tally.json"
status=0
for game in ${GAMES:-keno roulette-european}; do
  sweep=("$binary" sweep --game "$game" --nonces "0..$rounds" --quiet "${seeds[@]}")
  "${sweep[@]}" --out "$tmp/$game-cpu" >/dev/null
  cpu=$(rate "$tmp/$game-cpu")
  printf '%-18s %-12s %16.0f %8s  %s\n' "$game" cpu "$cpu" 1.00 reference
  for device in ${DEVICES:-gpu}; do
    out="$tmp/$game-$device"
    if ! "${sweep[@]}" --device "$device" --out "$out" >/dev/null 2>"$out.err"; then
      why=$(tail -n 1 "$out.err")
      if [[ "$why" == *"no usable GPU"* ]]; then
        echo "note: $device skipped: $why" >&2
      else
        printf '%-18s %-12s %16s %8s  %s\n' "$game" "$device" - - "FAILED: $why"
        status=1
      fi
      continue
    fi
    if cmp -s "$tmp/$game-cpu/tally.json" "$out/tally.json"; then same=identical; else same=DIFFERENT; status=1; fi
    on=$(rate "$out")
    printf '%-18s %-12s %16.0f %8.2f  %s\n' "$game" "$device" "$on" "$(awk -v a="$on" -v b="$cpu" 'BEGIN { print a / b }')" "$same"
    sed -n 's/^  "device": "\(.*\)"$/                                (\1)/p' "$out/run.json"
  done
done
exit "$status"
