#!/usr/bin/env bash
# Submits a fairaudit sweep to Slurm: a job array of SHARDS tasks (shard.sbatch), each
# sweeping one shard of the nonce range, and a merge job (merge.sbatch) that starts when
# every task has succeeded (afterok). See docs/cluster.md.
#
#   deploy/slurm/submit.sh                       # the knobs below
#   NONCES=0..4000000000 SHARDS=8 deploy/slurm/submit.sh
#
# A preempted task is requeued (--requeue) and continues from its last checkpoint; a task
# that failed or ran out of time is resubmitted with the same command (it continues too):
#   sbatch --array=I,J ... deploy/slurm/shard.sbatch    (the merge job names the missing)
set -euo pipefail

# ---- knobs: change these (or set them in the environment) ---------------------------
FAIRAUDIT=${FAIRAUDIT:-fairaudit}        # the binary: on PATH on every node, or an absolute path
NONCES=${NONCES:-0..1000000000000}       # the whole range A..B; the shards cut it
SHARDS=${SHARDS:-64}                     # array tasks (shard i sweeps the i-th slice)
SWEEP_ARGS=${SWEEP_ARGS:-}               # more sweep options, e.g. "--game keno --seed-pairs 4"
OUT=${OUT:-$PWD/fairaudit-run}           # on a filesystem every node sees
CPUS=${CPUS:-16}                         # cores per task (the sweep's --threads)
TIME=${TIME:-24:00:00}                   # per task
MEMORY=${MEMORY:-1G}                     # per task (a sweep needs well under 100 MB)
PARTITION=${PARTITION:-}                 # empty: the cluster's default
CHECKPOINT_EVERY=${CHECKPOINT_EVERY:-5m} # the most work a kill can cost a task
MERGE_ARGS=${MERGE_ARGS:-}               # e.g. "--paytable paytable.csv --claims claims.csv"
# ----------------------------------------------------------------------------------------

here=$(cd "$(dirname "$0")" && pwd)
export FAIRAUDIT NONCES SHARDS SWEEP_ARGS OUT CHECKPOINT_EVERY MERGE_ARGS
mkdir -p "$OUT/logs"

# The arguments are checked, and the shard table printed, before anything is queued.
# shellcheck disable=SC2086 # SWEEP_ARGS is a list of options
"$FAIRAUDIT" sweep --nonces "$NONCES" --shards "$SHARDS" --out "$OUT/shards" $SWEEP_ARGS --dry-run

partition=()
if [ -n "$PARTITION" ]; then partition=(--partition "$PARTITION"); fi
array=$(sbatch --parsable "${partition[@]}" --job-name fairaudit-sweep \
    --array "0-$((SHARDS - 1))" --cpus-per-task "$CPUS" --time "$TIME" --mem "$MEMORY" \
    --output "$OUT/logs/shard-%a.log" --export ALL "$here/shard.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable "${partition[@]}" --job-name fairaudit-merge \
    --dependency "afterok:$array" --kill-on-invalid-dep yes --cpus-per-task 1 --mem 2G \
    --output "$OUT/logs/merge.log" --export ALL "$here/merge.sbatch")
merge=${merge%%;*}
echo "submitted: array job $array ($SHARDS tasks), merge job $merge (after every task succeeds)"
echo "output: $OUT/shards/shard-*, merged into $OUT/merged; logs in $OUT/logs"
