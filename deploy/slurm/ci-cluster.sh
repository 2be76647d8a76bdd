#!/usr/bin/env bash
# A real single-node Slurm runs the recipe of deploy/slurm/ (submit.sh: a 4-task job array
# and the afterok merge job) on a small range, and the merged output must equal, byte for
# byte, one sweep of the whole range. Run by .ci/run as root on Debian 12; usable by hand:
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
cpus=$(nproc)
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

# The recipe, as a user runs it: the knobs of submit.sh from the environment. Each task
# sweeps 60 M rounds, several seconds on one CPU: long enough that task 0 is still running
# when it is requeued after its first checkpoint (at 1 M nonces a shard, the faster sweep
# finished some tasks before the requeue reached them, and the check of the continued
# checkpoint failed).
export FAIRAUDIT="$fairaudit" NONCES=0..40000000 SHARDS=4 SWEEP_ARGS="--seed-pairs 2" OUT="$work/run"
export CPUS=1 TIME=00:10:00 MEMORY=200M CHECKPOINT_EVERY=1s MERGE_ARGS=
deploy/slurm/submit.sh

# Preemption, as a cluster does it: task 0 is requeued mid-run once it has saved a
# checkpoint (Slurm sends SIGTERM, fairaudit saves and exits, the task goes back in the
# queue); started again, it must continue from what it saved.
shard0="$OUT/shards/shard-0000-of-0004/tally.json"
deadline=$((SECONDS + 60))
until [ -f "$shard0" ]; do
    if ((SECONDS > deadline)); then echo "error: task 0 saved no checkpoint within 60 s" >&2; exit 1; fi
    sleep 0.2
done
array=$(squeue -h -o '%F' | head -n 1)
scontrol requeue "${array}_0"
# Slurm holds a requeued job back for a while (its BeginTime); here it may start at once.
deadline=$((SECONDS + 30))
until [ "$(squeue -h -j "${array}_0" -o %T)" = PENDING ]; do
    if ((SECONDS > deadline)); then echo "error: task 0 was not requeued within 30 s" >&2; exit 1; fi
    sleep 0.2
done
scontrol update JobId="${array}_0" StartTime=now
echo "requeued task 0 (job ${array}_0) mid-run"

deadline=$((SECONDS + timeout_s))
while [ -n "$(squeue -h -o %i)" ]; do
    if ((SECONDS > deadline)); then
        echo "error: the jobs did not finish within $timeout_s s" >&2
        squeue >&2
        exit 1
    fi
    sleep 2
done

for i in 0 1 2 3; do
    grep -q "shard $i of 4 (index from SLURM_ARRAY_TASK_ID)" "$OUT/logs/shard-$i.log" || {
        echo "error: task $i did not sweep shard $i from SLURM_ARRAY_TASK_ID" >&2
        exit 1
    }
done
grep -q "continuing the sweep saved" "$OUT/logs/shard-0.log" || {
    echo "error: the requeued task 0 did not continue from its checkpoint" >&2
    exit 1
}
grep -q "merged all 4 shards of nonces $NONCES" "$OUT/logs/merge.log" || {
    echo "error: the merge job did not merge the 4 shards" >&2
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
echo "slurm: 4-task array + afterok merge of nonces $NONCES equal one sweep, byte for byte"
