#!/usr/bin/env bash
# Issue 35's checks on a GPU, prepared here and run there in one command: a GPU machine
# has no cargo, and the shared vectors (../shared) do not travel to it.
#
# Usage:
#   scripts/device-check.sh prepare        here, with cargo: builds fairaudit and the
#                                          device_sweep tests with `--features gpu` and
#                                          copies them, with the vectors, into
#                                          target/device-check (carry that folder)
#   scripts/device-check.sh run [ROUNDS]   there, in the repository's root: the device
#                                          tests with the GPU among their devices, then
#                                          benches/device.sh ROUNDS (default 10^9)
#
# `run` fails when the GPU does not open (FAIRAUDIT_TEST_GPU makes a GPU that cannot be
# used a test failure, not a skip), when a device test fails, or when a device's tally is
# not byte-identical to the CPU's. With $OUT set (the device tool sets it), the logs are
# written there too.
set -euo pipefail
cd "$(dirname "$0")/.."
kit=target/device-check

case "${1:-}" in
prepare)
  cargo build --release --quiet --features gpu
  tests=$(cargo test --release --quiet --features gpu --test device_sweep --no-run --message-format=json |
    sed -n 's/.*"executable":"\([^"]*device_sweep[^"]*\)".*/\1/p' | tail -n 1)
  [[ -x "$tests" ]] || { echo "error: cargo named no device_sweep test binary" >&2; exit 1; }
  rm -rf "$kit"
  mkdir -p "$kit/shared"
  cp target/release/fairaudit "$kit/fairaudit"
  cp "$tests" "$kit/device_sweep"
  cp -r ../shared/vectors "$kit/shared/vectors"
  du -sh "$kit"
  echo "prepared: carry $kit, then run: scripts/device-check.sh run"
  ;;
run)
  rounds=${2:-1000000000}
  [[ -x "$kit/fairaudit" && -x "$kit/device_sweep" ]] ||
    { echo "error: $kit lacks its binaries: run 'scripts/device-check.sh prepare' where cargo is, and carry $kit" >&2; exit 2; }
  export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  log=${OUT:-$kit}
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  # Both run even when the first fails, so that one call on the device reports both. The
  # tests run one at a time: opening the GPU silences the process's panic hook for a
  # moment (src/device/cuda.rs, `caught`), which would hide another test's failure.
  status=0
  echo "== device tests (the GPU among the devices)"
  FAIRAUDIT_TEST_GPU=1 FAIRAUDIT_SHARED="$PWD/$kit/shared" CARGO_BIN_EXE_fairaudit="$PWD/$kit/fairaudit" \
    "$kit/device_sweep" --test-threads=1 2>&1 | tee "$log/device-tests.log" || status=1
  echo "== benches/device.sh $rounds"
  benches/device.sh "$rounds" "$kit/fairaudit" 2>&1 | tee "$log/device-bench.log" || status=1
  exit "$status"
  ;;
*)
  echo "usage: scripts/device-check.sh prepare | run [ROUNDS]" >&2
  exit 2
  ;;
esac
