#!/usr/bin/env bash
# Submits a fairaudit sweep to Slurm: a job array of SHARDS tasks (shard.sbatch), each
# sweeping one shard of the nonce range, and a merge job (merge.sbatch) that starts when
# every task has succeeded (afterok). See docs/cluster.md.
#
#   deploy/slurm/submit.sh                       # the knobs below
#   NONCES=0..4000000000 SHARDS=8 deploy/slurm/submit.sh
#   deploy/slurm/submit.sh --only 5,17           # tasks 5 and 17 again (a Slurm array list:
#                                                # 5,17 or 3-6,9), then the merge after them
#   deploy/slurm/submit.sh --merge-only          # the merge job alone, same knobs
#
# A preempted task is requeued (--requeue) and continues from its last checkpoint. A task
# that failed or ran out of time is not, and the merge job is then cancelled by Slurm:
# `fairaudit merge "$OUT/shards" --out "$OUT/merged"` names the missing or interrupted
# shards, and `submit.sh --only LIST` sweeps them again (an interrupted one continues) and
# merges. See docs/cluster.md.
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
MERGE_MEMORY=${MERGE_MEMORY:-2G}         # the merge job's memory (it holds one shard's tallies at a time)
MERGE_TIME=${MERGE_TIME:-01:00:00}       # the merge job's time limit
# ----------------------------------------------------------------------------------------

mode=all only=
if [ "${1:-}" = --merge-only ] && [ $# -eq 1 ]; then
    mode=merge-only
elif [ "${1:-}" = --only ] && [ $# -eq 2 ]; then
    # A Slurm array list (5,17 or 3-6,9); every index is checked against SHARDS below.
    if ! [[ "$2" =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]]; then
        echo "error: --only '$2' is not a list of shard indices (e.g. 5,17 or 3-6,9)" >&2
        exit 2
    fi
    mode=only only=$2
elif [ $# -gt 0 ]; then
    echo "error: unknown arguments '$*' (submit.sh takes --only LIST or --merge-only; the knobs are environment variables)" >&2
    exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
export FAIRAUDIT NONCES SHARDS SWEEP_ARGS OUT CHECKPOINT_EVERY MERGE_ARGS
mkdir -p "$OUT/logs"

# The arguments are checked, and the shard table printed, before anything is queued.
# shellcheck disable=SC2086 # SWEEP_ARGS is a list of options
"$FAIRAUDIT" sweep --nonces "$NONCES" --shards "$SHARDS" --out "$OUT/shards" $SWEEP_ARGS --dry-run

partition=()
if [ -n "$PARTITION" ]; then partition=(--partition "$PARTITION"); fi

merge_job() { # the merge job, after the jobs in $1 (none: at once)
    local dependency=()
    if [ -n "$1" ]; then dependency=(--dependency "afterok:$1" --kill-on-invalid-dep yes); fi
    local job
    job=$(sbatch --parsable "${partition[@]}" --job-name fairaudit-merge "${dependency[@]}" \
        --cpus-per-task 1 --mem "$MERGE_MEMORY" --time "$MERGE_TIME" \
        --output "$OUT/logs/merge.log" --open-mode=append --export ALL "$here/merge.sbatch")
    echo "${job%%;*}"
}

if [ "$mode" = merge-only ]; then
    merge=$(merge_job "")
    echo "submitted: merge job $merge (of $OUT/shards into $OUT/merged; log in $OUT/logs/merge.log)"
    exit 0
fi
tasks="0-$((SHARDS - 1))" # every shard, unless --only names some
if [ "$mode" = only ]; then
    for index in ${only//[,-]/ }; do
        if [ "$((10#$index))" -ge "$SHARDS" ]; then
            echo "error: --only names shard $index, but SHARDS=$SHARDS numbers them 0 to $((SHARDS - 1))" >&2
            exit 2
        fi
    done
    tasks=$only
fi

# A task asking more CPUs than any node of the partition has is accepted by sbatch and then
# pends forever (reason PartitionConfig): refuse it here, saying what fits.
most=$(sinfo -h "${partition[@]}" -o '%c' 2>/dev/null | tr -d '+' | sort -n | tail -n 1 || true)
if [[ "$most" =~ ^[0-9]+$ ]] && [ "$CPUS" -gt "$most" ]; then
    echo "error: CPUS=$CPUS, but the largest node of ${PARTITION:-the default partition} has $most CPUs: the tasks would pend forever; set CPUS to at most $most" >&2
    exit 2
fi

array=$(sbatch --parsable "${partition[@]}" --job-name fairaudit-sweep \
    --array "$tasks" --cpus-per-task "$CPUS" --time "$TIME" --mem "$MEMORY" \
    --output "$OUT/logs/shard-%a.log" --export ALL "$here/shard.sbatch")
array=${array%%;*}
merge=$(merge_job "$array")
if [ "$tasks" = "0-$((SHARDS - 1))" ]; then
    echo "submitted: array job $array ($SHARDS tasks), merge job $merge (after every task succeeds)"
else
    echo "submitted: array job $array (tasks $tasks of $SHARDS), merge job $merge (after they succeed)"
fi
echo "output: $OUT/shards/shard-*, merged into $OUT/merged; logs in $OUT/logs"
