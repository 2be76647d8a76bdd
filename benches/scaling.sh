#!/usr/bin/env bash
# Thread scaling of the sweep: rounds/s with 1 thread and with 2 (or $THREADS) threads,
# measured back to back in one run, and their ratio. The figures come from run.json.
# Usage: benches/scaling.sh [ROUNDS]   (default 4,000,000 Keno rounds, 7-digit nonces)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-4000000}
threads=${THREADS:-2}
cargo build --release --quiet
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=1000000
end=$((start + rounds))
rate() {
  target/release/fairaudit sweep --game "$1" --nonces "$start..$end" --threads "$2" --quiet --out "$tmp/$1-$2" >/dev/null
  python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["rounds_per_second"]))' "$tmp/$1-$2/run.json"
}
printf '%-20s %14s %14s %8s\n' game "1 thread r/s" "$threads threads r/s" ratio
for game in keno roulette-european; do
  one=$(rate "$game" 1)
  many=$(rate "$game" "$threads")
  printf '%-20s %14s %14s %8s\n' "$game" "$one" "$many" "$(python3 -c "print(f'{$many/$one:.2f}')")"
done
