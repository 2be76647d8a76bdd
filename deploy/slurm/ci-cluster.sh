#!/usr/bin/env bash
# A real single-node Slurm runs the Slurm commands of docs/cluster.md as written
# (submit.sh: an 18-task job array and the afterok merge job; then, after a requeue, a
# SIGKILL and a cancel, the merge by hand and `submit.sh --only` with its merge) on a
# small range, and the merged output must equal, byte for byte, one sweep of the whole
# range. Run by .ci/run as root on Debian 12; usable by hand:
#
#   deploy/slurm/ci-cluster.sh [path/to/fairaudit]     (default target/release/fairaudit)
#
# Installs Debian's slurm-wlm and munge when missing. Everything else lives in a temporary
# folder: a munge key and socket of its own, a slurm.conf (SLURM_CONF) with one node of
# `nproc` CPUs (proctrack/linuxproc, task/none, select/cons_tres: no cgroups needed), state
# and logs. munged, slurmctld and slurmd run as root in the foreground of background jobs,
# and the EXIT trap stops every one of them, and removes the folder, even on failure. The
# system's /etc/slurm and /etc/munge are not touched.
set -euo pipefail
cd "$(dirname "$0")/../.."

fairaudit=$(realpath "${1:-target/release/fairaudit}")
timeout_s=${CI_CLUSTER_TIMEOUT:-150}
ctld_port=${CI_CLUSTER_SLURMCTLD_PORT:-16817}
slurmd_port=${CI_CLUSTER_SLURMD_PORT:-16818}

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null \
    || ! command -v munged >/dev/null; then
    echo "installing slurm-wlm and munge"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge
fi

work=$(mktemp -d /tmp/fairaudit-slurm.XXXXXX) # 0700: munged insists on a private folder
pids=()
# The processes of this script's Slurm, found by the SLURM_CONF only they hold: job steps
# (slurmstepd) and jobs outlive slurmd by design.
ours() {
    local environ pid
    for environ in /proc/[0-9]*/environ; do
        pid=${environ#/proc/}
        pid=${pid%/environ}
        [ "$pid" = $$ ] || [ "$pid" = "$BASHPID" ] && continue
        tr '\0' '\n' 2>/dev/null <"$environ" | grep -qxF "SLURM_CONF=$work/slurm.conf" && echo "$pid"
    done
    return 0
}
stop_daemons() {
    local status=$?
    if [ -f "$work/slurm.conf" ] && [ "${#pids[@]}" -gt 1 ]; then
        scancel --quiet --user root 2>/dev/null || true
        for _ in $(seq 20); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.5; done
    fi
    # slurmd first (its jobs are over), then the controller, then munge; each is given
    # five seconds to stop before SIGKILL.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -TERM "${pids[i]}" 2>/dev/null || true
        for _ in $(seq 50); do
            kill -0 "${pids[i]}" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "${pids[i]}" 2>/dev/null || true
        wait "${pids[i]}" 2>/dev/null || true
    done
    # Whatever of this Slurm is left (nothing in a normal run).
    for pid in $(ours); do kill -KILL "$pid" 2>/dev/null || true; done
    if [ "$status" -ne 0 ]; then
        for log in "$work"/log/* "$work"/run/logs/*.log; do
            [ -f "$log" ] && { echo "---- $log"; tail -n 40 "$log"; }
        done
    fi
    rm -rf "$work"
    exit "$status"
}
trap stop_daemons EXIT
trap 'exit 130' INT TERM

mkdir -p "$work"/{munge,state,spool,log}
chmod 700 "$work"/munge

# munge: a key of its own, a socket of its own.
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
socket="$work/munge/munge.socket"
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$socket" \
    --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" \
    --log-file="$work/log/munged.log" >>"$work/log/munged.log" 2>&1 &
pids+=($!)

host=$(hostname -s)
# At most 2 CPUs, whatever the machine has: the tasks then run two at a time in index
# order, so that task 0 is requeued and task 5 killed while they run (on a node of 6 or
# more CPUs, task 5 could finish before its kill).
cpus=$(($(nproc) < 2 ? $(nproc) : 2))
memory_mb=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 8 / 10))
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=fairaudit-ci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
slurmctld -D -i -f "$SLURM_CONF" >>"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >>"$work/log/slurmd.out" 2>&1 &
pids+=($!)

deadline=$((SECONDS + 60))
until sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; do
    if ((SECONDS > deadline)); then
        echo "error: the Slurm node did not come up within 60 s" >&2
        sinfo -N -l >&2 || true
        exit 1
    fi
    sleep 1
done
echo "slurm is up: one node ($host) of $cpus CPUs"

# The recipe as docs/cluster.md writes it: its blocks marked `<!-- ci-cluster: NAME -->`
# are run as they stand there (block NAME is the fenced block after the marker), with
# this script's knobs in place of the page's (a small range: 18 shards of 2 M nonces and
# 2 seed pairs, 12 M rounds and about 2 s a task on one CPU) and fairaudit on PATH.
docs_block() {
    awk -v name="$1" '
        $0 ~ "<!-- ci-cluster: " name " -->" { marked = 1; next }
        marked && /^ *```/ { if (inside) exit; inside = 1; match($0, /^ */); indent = RLENGTH; next }
        inside { print substr($0, indent + 1) }
    ' docs/cluster.md
}
for block in submit recover; do
    [ -n "$(docs_block "$block")" ] || { echo "error: docs/cluster.md has no block marked ci-cluster: $block" >&2; exit 1; }
done
export PATH="$(dirname "$fairaudit"):$PATH"
export NONCES=0..36000000 SHARDS=18 SWEEP_ARGS="--seed-pairs 2" OUT="$work/run"
export CPUS=1 TIME=00:10:00 MEMORY=200M CHECKPOINT_EVERY=200ms
echo "-- docs/cluster.md, block submit:"
docs_block submit
bash -euo pipefail -c "$(docs_block submit)"
array=$(squeue -h -o '%F' -n fairaudit-sweep | head -n 1)

wait_for() { # the file $1 within 60 s, else an error naming $2
    local deadline=$((SECONDS + 60))
    until [ -f "$1" ]; do
        if ((SECONDS > deadline)); then echo "error: $2 within 60 s" >&2; exit 1; fi
        sleep 0.1
    done
}
# A failure: task 17 cancelled (still pending, on a node of fewer than 18 CPUs: its shard
# is then missing; running, it saves on SIGTERM and its shard is interrupted).
scancel "${array}_17"
# Preemption, as a cluster does it: task 0 is requeued mid-run once it has saved a
# checkpoint (Slurm sends SIGTERM, fairaudit saves and exits, the task goes back in the
# queue); started again, it must continue from what it saved.
wait_for "$OUT/shards/shard-0000-of-0018/tally.json" "task 0 saved no checkpoint"
scontrol requeue "${array}_0"
# Slurm holds a requeued job back for a while (its BeginTime); here it may start at once.
deadline=$((SECONDS + 30))
until [ "$(squeue -h -j "${array}_0" -o %T)" = PENDING ]; do
    if ((SECONDS > deadline)); then echo "error: task 0 was not requeued within 30 s" >&2; exit 1; fi
    sleep 0.2
done
scontrol update JobId="${array}_0" StartTime=now
echo "requeued task 0 (job ${array}_0) mid-run"
# A kill, as a lost node or the OOM killer does it: task 5 gets SIGKILL once it has saved
# a checkpoint; Slurm does not requeue a failed task, so its shard stays interrupted.
wait_for "$OUT/shards/shard-0005-of-0018/tally.json" "task 5 saved no checkpoint"
scancel --signal=KILL --full "${array}_5"
echo "killed task 5 (job ${array}_5) mid-run, cancelled task 17"

wait_for_the_queue() {
    local deadline=$((SECONDS + timeout_s))
    while [ -n "$(squeue -h -o %i)" ]; do
        if ((SECONDS > deadline)); then
            echo "error: the jobs did not finish within $timeout_s s" >&2
            squeue >&2
            exit 1
        fi
        sleep 1
    done
}
wait_for_the_queue
# The merge job was cancelled with the array (its afterok can no longer be met).
[ ! -e "$OUT/merged" ] || { echo "error: a merge ran although tasks 5 and 17 failed" >&2; exit 1; }

echo "-- docs/cluster.md, block recover (the merge by hand exits 2, naming the failed shards):"
docs_block recover
set +e
bash -uo pipefail -c "$(docs_block recover)" >"$work/recover.out" 2>&1
set -e
cat "$work/recover.out"
for named in "shard 5 (nonces 10000000..12000000) interrupted" "shard 17 (nonces 34000000..36000000)" \
    "submitted: array job"; do
    grep -qF "$named" "$work/recover.out" || { echo "error: the recovery did not say '$named'" >&2; exit 1; }
done
wait_for_the_queue

for i in $(seq 0 17); do
    grep -q "shard $i of 18 (index from SLURM_ARRAY_TASK_ID)" "$OUT/logs/shard-$i.log" || {
        echo "error: task $i did not sweep shard $i from SLURM_ARRAY_TASK_ID" >&2
        exit 1
    }
done
for i in 0 5; do
    grep -q "continuing the sweep saved" "$OUT/logs/shard-$i.log" || {
        echo "error: task $i did not continue from its checkpoint" >&2
        exit 1
    }
done
grep -q "merged all 18 shards of nonces $NONCES" "$OUT/logs/merge.log" || {
    echo "error: the merge job did not merge the 18 shards" >&2
    exit 1
}

"$fairaudit" sweep --nonces "$NONCES" $SWEEP_ARGS --quiet --out "$work/single" >/dev/null
differ=0
for file in "$work"/single/*; do
    name=$(basename "$file")
    case "$name" in run.json | report.html) continue ;; esac # how the run was made
    cmp -s "$file" "$OUT/merged/$name" || { echo "error: merged $name differs from one sweep" >&2; differ=1; }
done
[ "$differ" -eq 0 ]
echo "slurm: the docs' commands (an 18-task array with a requeue, a kill and a cancel, the merge by hand naming the failed shards, submit.sh --only 5,17 and its merge) equal one sweep of nonces $NONCES, byte for byte"
