#!/usr/bin/env bash
# The device sweep beside the CPU sweep, in one run: Keno rounds per second (wall clock,
# from each run's run.json) on the CPU (all cores) and on each device that works here, the
# ratio, and whether each device's tally.json is byte-identical to the CPU's. Exits 1 when
# a device's tally differs, or its sweep fails or is refused (a faulty tally, a failed
# launch); a device that is not there ("no usable GPU") is skipped with the reason.
#
# Usage: benches/device.sh [ROUNDS] [BINARY]
#   ROUNDS  Keno rounds, nonces 0..ROUNDS (default 100,000,000)
#   BINARY  the fairaudit to run (default target/release/fairaudit, built here with
#           `--features gpu` if absent); for a GPU, a build with that feature, e.g. carried
#           to a machine without cargo.
# Environment: DEVICES (default "gpu"; add cpu-kernel for the device kernel on the CPU,
# about 16x slower than the CPU sweep).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-100000000}
binary=${2:-target/release/fairaudit}
if [[ ! -x "$binary" ]]; then
  cargo build --release --quiet --features gpu
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sweep=("$binary" sweep --game keno --nonces "0..$rounds" --quiet
  --server-seed 7f0e3c2a9b8d4f6e1a5c3b7d9e2f4a6c8b0d1e3f5a7c9b2d4e6f8a0c1b3d5e7f
  --client-seed c4a1e9f27b3d5068e2f4a6c8b0d1e3f5a7c9b2d4e6f8a0c1b3d5e7f90e3c2a9b)

rate() { sed -n 's/^  "rounds_per_second": \([0-9.]*\),*$/\1/p' "$1/run.json"; }

"${sweep[@]}" --out "$tmp/cpu" >/dev/null
cpu=$(rate "$tmp/cpu")
printf '%-12s %16s %8s  %s\n' device "rounds/s" "x CPU" "tally.json"
printf '%-12s %16.0f %8s  %s\n' cpu "$cpu" 1.00 reference
status=0
for device in ${DEVICES:-gpu}; do
  if ! "${sweep[@]}" --device "$device" --out "$tmp/$device" >/dev/null 2>"$tmp/$device.err"; then
    why=$(tail -n 1 "$tmp/$device.err")
    if [[ "$why" == *"no usable GPU"* ]]; then
      echo "note: $device skipped: $why" >&2
    else
      printf '%-12s %16s %8s  %s\n' "$device" - - "FAILED: $why"
      status=1
    fi
    continue
  fi
  if cmp -s "$tmp/cpu/tally.json" "$tmp/$device/tally.json"; then same=identical; else same=DIFFERENT; status=1; fi
  on=$(rate "$tmp/$device")
  printf '%-12s %16.0f %8.2f  %s\n' "$device" "$on" "$(awk -v a="$on" -v b="$cpu" 'BEGIN { print a / b }')" "$same"
  sed -n 's/^  "device": "\(.*\)"$/             (\1)/p' "$tmp/$device/run.json"
done
exit "$status"
