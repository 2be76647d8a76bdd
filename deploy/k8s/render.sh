#!/usr/bin/env bash
# Prints the Kubernetes manifests of a fairaudit sweep, with every knob in one place (the
# block below, or the environment), so that the shard count, the threads and the CPU
# request, the storage class and the user cannot disagree. See docs/cluster.md.
#
#   deploy/k8s/render.sh sweep   | kubectl apply -f -       # the volume claim and the Indexed Job
#   deploy/k8s/render.sh merge   | kubectl create -f -      # the merge Job (a new one each time)
#   deploy/k8s/render.sh results | kubectl apply -f -       # a pod to `kubectl cp` results from
#
# Needs Kubernetes 1.26 or later (the Job's podFailurePolicy). Writes nothing: the
# manifests go to stdout, errors (exit 2) to stderr.
set -euo pipefail

# ---- knobs: change these (or set them in the environment) ---------------------------
IMAGE=${IMAGE:-}                          # required: the image built from deploy/k8s/Dockerfile
STORAGE_CLASS=${STORAGE_CLASS:-}          # required: a class offering ReadWriteMany (kubectl get storageclass)
NAME=${NAME:-fairaudit}                   # prefix of every object's name (runs side by side differ in it)
NONCES=${NONCES:-0..1000000000000}        # the whole range A..B; the shards cut it
SHARDS=${SHARDS:-16}                      # the Job's completions, one pod per shard
PARALLELISM=${PARALLELISM:-$SHARDS}       # pods at once
THREADS=${THREADS:-16}                    # each pod's CPU request and its sweep's --threads
MEMORY=${MEMORY:-1Gi}                     # each pod's memory (a sweep needs well under 100 MB)
CHECKPOINT_EVERY=${CHECKPOINT_EVERY:-5m}  # the most work an eviction can cost a pod
SWEEP_ARGS=${SWEEP_ARGS:-}                # more sweep options, e.g. "--game keno --seed-pairs 4"
MERGE_ARGS=${MERGE_ARGS:-}                # e.g. "--alpha 0.001" (files must be on the volume: /data/...)
MERGE_MEMORY=${MERGE_MEMORY:-2Gi}         # the merge pod's memory
STORAGE_SIZE=${STORAGE_SIZE:-10Gi}        # the claim (about 150 kB per seed pair and shard, plus reports)
RUN_AS_USER=${RUN_AS_USER:-10001}         # the pods' user (and group); the image's is 10001
PREPARE=${PREPARE:-yes}                   # yes: a root init container gives /data to RUN_AS_USER (NFS ignores fsGroup)
# ----------------------------------------------------------------------------------------

here=$(cd "$(dirname "$0")" && pwd)
fail() {
    echo "error: $*" >&2
    exit 2
}
usage="usage: deploy/k8s/render.sh sweep|merge|results (the knobs are environment variables)"
[ $# -eq 1 ] || fail "$usage"
case "$1" in
    sweep) templates=(volume.yaml sweep-job.yaml) ;;
    merge) templates=(merge-job.yaml) ;;
    results) templates=(results-pod.yaml) ;;
    *) fail "unknown part '$1'; $usage" ;;
esac

check() { # knob, pattern, what it must be
    local value=${!1}
    [[ "$value" =~ $2 ]] || fail "$1='$value' is not $3"
}
[ -n "$IMAGE" ] || fail "set IMAGE, the image built from deploy/k8s/Dockerfile (e.g. registry.example.com/fairaudit:0.1.0)"
[ -n "$STORAGE_CLASS" ] || fail "set STORAGE_CLASS to a storage class offering ReadWriteMany (kubectl get storageclass): the default class is usually ReadWriteOnce only, and the claim would stay Pending"
check IMAGE '^[A-Za-z0-9][A-Za-z0-9._/:@-]*$' "an image reference"
check STORAGE_CLASS '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$' "a storage class name"
check NAME '^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$' "a name of lower-case letters, digits and dashes (at most 40)"
check NONCES '^[0-9]+\.\.[0-9]+$' "a nonce range A..B"
for knob in SHARDS PARALLELISM THREADS RUN_AS_USER; do check "$knob" '^[1-9][0-9]{0,5}$' "a whole number from 1"; done
# An Indexed Job holds at most 100,000 completions.
[ "$SHARDS" -le 100000 ] || fail "SHARDS=$SHARDS: an Indexed Job holds at most 100000 completions"
for knob in MEMORY MERGE_MEMORY STORAGE_SIZE; do check "$knob" '^[1-9][0-9]*(Ki|Mi|Gi|Ti)?$' "a quantity (e.g. 512Mi, 2Gi)"; done
check CHECKPOINT_EVERY '^[0-9]+(ms|s|m|h)$' "an interval (30s, 5m, 1h)"
check PREPARE '^(yes|no)$' "yes or no"
# A failed pod is retried, within one budget for the whole Job of twice the shards
# (disruptions are not counted: the podFailurePolicy ignores them).
BACKOFF_LIMIT=$((2 * SHARDS))

# One argument per line, as YAML double-quoted strings, at the placeholder's indentation.
yaml_items() { # indent, words...
    local indent=$1 word
    shift
    for word in "$@"; do
        word=${word//\\/\\\\}
        printf '%s- "%s"\n' "$indent" "${word//\"/\\\"}"
    done
}
render() { # template file
    local line indent rest knob
    while IFS= read -r line || [ -n "$line" ]; do
        [[ "$line" == "# A template:"* ]] && continue
        if [[ "$line" =~ ^( *)\$\{(SWEEP_ARGS|MERGE_ARGS|PREPARE)\}$ ]]; then
            indent=${BASH_REMATCH[1]}
            case "${BASH_REMATCH[2]}" in
                # shellcheck disable=SC2086 # a list of options, split on spaces
                SWEEP_ARGS) yaml_items "$indent" $SWEEP_ARGS ;;
                # shellcheck disable=SC2086
                MERGE_ARGS) yaml_items "$indent" $MERGE_ARGS ;;
                PREPARE) if [ "$PREPARE" = yes ]; then
                    render "$here/templates/prepare.yaml" | sed "s/^/$indent/"
                fi ;;
            esac
            continue
        fi
        for knob in IMAGE STORAGE_CLASS NAME NONCES SHARDS PARALLELISM THREADS MEMORY CHECKPOINT_EVERY \
            MERGE_MEMORY STORAGE_SIZE RUN_AS_USER BACKOFF_LIMIT; do
            line=${line//"\${$knob}"/${!knob}}
        done
        rest=${line#*\$\{}
        [ "$rest" = "$line" ] || fail "internal: $1 has an unknown placeholder: $line"
        printf '%s\n' "$line"
    done <"$1"
}

first=yes
for template in "${templates[@]}"; do
    [ "$first" = yes ] || echo "---"
    first=no
    render "$here/templates/$template"
done
