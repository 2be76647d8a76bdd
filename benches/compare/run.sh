#!/usr/bin/env bash
# Single-thread speed of fairaudit against the operator's published verifier approach
# (Node.js + js-sha3) and a plain Python (hashlib) verifier, on Keno and European roulette.
#
# Both verifiers must first reproduce the shared vectors: a fast verifier that computes the
# wrong rounds is not a comparison. Rounds use 64-character hex seeds and 7-digit nonces,
# the realistic case, where `server:client:nonce` is 136 bytes or more and the round
# signature takes two Keccak permutations.
#
# Usage: benches/compare/run.sh   (from anywhere; needs node, npm, python3, cargo)
# Environment overrides: FAIRAUDIT_ROUNDS, NODE_ROUNDS, PYTHON_ROUNDS, REPEATS, VECTORS_DIR.
set -euo pipefail
shopt -s inherit_errexit

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

HERE=benches/compare
VECTORS_DIR=${VECTORS_DIR:-../shared/vectors}
# Pinned so that a rerun months later measures the same JavaScript code.
JS_SHA3_VERSION=0.13.0
JS_DEPS=$HERE/.js-deps

# Counts differ per implementation so that each run lasts about a second or more (timer and
# start-up noise stay small) while the whole script stays well under two minutes; the
# figures compared are rounds per second, not totals.
FAIRAUDIT_ROUNDS=${FAIRAUDIT_ROUNDS:-2000000}
NODE_ROUNDS=${NODE_ROUNDS:-200000}
PYTHON_ROUNDS=${PYTHON_ROUNDS:-200000}
# The machine is shared: the best of a few runs is the least disturbed one.
REPEATS=${REPEATS:-3}

START_NONCE=1000000
SERVER_SEED=7f0e3c2a9b8d4f6e1a5c3b7d9e2f4a6c8b0d1e3f5a7c9b2d4e6f8a0c1b3d5e7f
CLIENT_SEED=c4a1e9f27b3d5068e2f4a6c8b0d1e3f5a7c9b2d4e6f8a0c1b3d5e7f90e3c2a9b
GAMES=(keno roulette-european)

FAIRAUDIT=${CARGO_TARGET_DIR:-target}/release/fairaudit

die() {
  echo "run.sh: $*" >&2
  exit 1
}

note() {
  echo "== $*" >&2
}

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/fairaudit-compare.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

# ---- 1. What the script needs ----------------------------------------------------------

for tool in node npm python3 cargo; do
  command -v "$tool" >/dev/null || die "$tool is not on PATH"
done

installed=$(node -p "require('./$JS_DEPS/node_modules/js-sha3/package.json').version" 2>/dev/null || true)
if [[ "$installed" != "$JS_SHA3_VERSION" ]]; then
  note "installing js-sha3@$JS_SHA3_VERSION into $JS_DEPS"
  npm install --no-audit --no-fund --prefix "$JS_DEPS" "js-sha3@$JS_SHA3_VERSION" >&2
fi

# ---- 2. Both verifiers must reproduce the vectors --------------------------------------

for file in reference-rounds.csv rejection-rounds.csv; do
  [[ -f "$VECTORS_DIR/$file" ]] || die "$VECTORS_DIR/$file not found (set VECTORS_DIR)"
  node "$HERE/verifier.js" check "$VECTORS_DIR/$file" ||
    die "the Node verifier does not reproduce $file; not benchmarking it"
  python3 "$HERE/verifier.py" check "$VECTORS_DIR/$file" ||
    die "the Python verifier does not reproduce $file; not benchmarking it"
done

# ---- 3. Measurements -------------------------------------------------------------------

note "building fairaudit"
cargo build --release

# Prints the best rounds/s of REPEATS runs of a verifier's bench mode.
best_verifier_rate() {
  local runner=$1 script=$2 game=$3 rounds=$4 best=0 rate
  for ((run = 1; run <= REPEATS; run++)); do
    rate=$("$runner" "$HERE/$script" bench "$game" "$SERVER_SEED" "$CLIENT_SEED" \
      "$START_NONCE" "$rounds" | sed -n 's/.*rounds_per_s=\([0-9]*\).*/\1/p')
    [[ -n "$rate" ]] || die "$script bench printed no rounds_per_s"
    ((rate > best)) && best=$rate
  done
  echo "$best"
}

# Prints the best rounds/s of REPEATS sweeps, timed by wall clock (process start-up and
# writing the output included; at two million rounds that is noise). Prints
# "failed (exit N)" and returns 1 if a sweep fails.
best_fairaudit_rate() {
  local game=$1 best=0 rate out start_ns end_ns status
  # Half-open like a Rust range; read as inclusive it is one round more, which does not
  # move rounds/s. Either way every nonce has 7 digits.
  local range="$START_NONCE..$((START_NONCE + FAIRAUDIT_ROUNDS))"
  for ((run = 1; run <= REPEATS; run++)); do
    out=$(mktemp -d "$SCRATCH/sweep.XXXXXX")
    start_ns=$(date +%s%N)
    status=0
    "$FAIRAUDIT" sweep --game "$game" --nonces "$range" --server-seed "$SERVER_SEED" \
      --client-seed "$CLIENT_SEED" --threads 1 --quiet --out "$out" \
      >/dev/null 2>"$SCRATCH/sweep.err" || status=$?
    end_ns=$(date +%s%N)
    if ((status != 0)); then
      tail -n 5 "$SCRATCH/sweep.err" >&2
      echo "failed (exit $status)"
      return 1
    fi
    rm -rf "$out"
    rate=$(( FAIRAUDIT_ROUNDS * 1000000000 / (end_ns - start_ns) ))
    ((rate > best)) && best=$rate
  done
  echo "$best"
}

declare -A FAIRAUDIT_RATE NODE_RATE PYTHON_RATE
sweep_available=yes
sweep_failed=no
# The sweep subcommand is newer than this script; without it the other figures still count.
"$FAIRAUDIT" sweep --help >/dev/null 2>&1 || sweep_available=no

# NODE_RATE and PYTHON_RATE are read through a nameref in rates_row.
# shellcheck disable=SC2034
for game in "${GAMES[@]}"; do
  if [[ $sweep_available == yes ]]; then
    note "fairaudit $game: $FAIRAUDIT_ROUNDS rounds, best of $REPEATS"
    FAIRAUDIT_RATE[$game]=$(best_fairaudit_rate "$game") || sweep_failed=yes
  fi
  note "node js-sha3 $game: $NODE_ROUNDS rounds, best of $REPEATS"
  NODE_RATE[$game]=$(best_verifier_rate node verifier.js "$game" "$NODE_ROUNDS")
  note "python hashlib $game: $PYTHON_ROUNDS rounds, best of $REPEATS"
  PYTHON_RATE[$game]=$(best_verifier_rate python3 verifier.py "$game" "$PYTHON_ROUNDS")
done

# ---- 4. The table ----------------------------------------------------------------------

ratio() {
  if [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] && (($2 > 0)); then
    awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", a / b }'
  else
    echo "n/a"
  fi
}

row() {
  printf '%-18s' "$1"
  shift
  printf ' %22s' "$@"
  printf '\n'
}

# One row: a label, then one cell per game taken from the associative array named by $2,
# or, with $3 set, the ratio of FAIRAUDIT_RATE to that array.
rates_row() {
  local label=$1 as_ratio=${3:-} game cells=()
  local -n rates=$2
  for game in "${GAMES[@]}"; do
    if [[ -n $as_ratio ]]; then
      cells+=("$(ratio "${FAIRAUDIT_RATE[$game]:-}" "${rates[$game]}")")
    else
      cells+=("${rates[$game]}")
    fi
  done
  row "$label" "${cells[@]}"
}

echo
echo "Single-thread rounds/s: 64-hex seeds, nonces from $START_NONCE (7 digits), best of $REPEATS"
header=("${GAMES[@]/%/ rounds/s}")
row "" "${header[@]}"
if [[ $sweep_available == yes ]]; then
  rates_row "fairaudit" FAIRAUDIT_RATE
else
  printf '%-18s %s\n' "fairaudit" "fairaudit: sweep not available"
fi
rates_row "node js-sha3" NODE_RATE
rates_row "python hashlib" PYTHON_RATE
rates_row "fairaudit/node" NODE_RATE ratio
rates_row "fairaudit/python" PYTHON_RATE ratio

[[ $sweep_failed == no ]] || die "fairaudit sweep failed (see above)"
