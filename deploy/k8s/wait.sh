#!/usr/bin/env bash
# Waits until a Job ends and says how: exit 0 when it is Complete, 1 when it Failed (with
# its reason and how to read its pods' logs). `kubectl wait --for=condition=complete`
# alone never returns when the Job fails. See docs/cluster.md.
#
#   deploy/k8s/wait.sh job/fairaudit-sweep [kubectl options, e.g. -n NAMESPACE]
#   deploy/k8s/wait.sh "$(deploy/k8s/render.sh merge | kubectl create -f - -o name)"
#
# Exit 2 when the Job cannot be read (a wrong name, no cluster). WAIT_INTERVAL: seconds
# between looks (default 10).
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: deploy/k8s/wait.sh job/NAME [kubectl options]" >&2; exit 2; }
job=$1
shift
[[ "$job" == */* ]] || job=job/$job
interval=${WAIT_INTERVAL:-10}
# The conditions that hold, one a line: TYPE<TAB>REASON<TAB>MESSAGE.
conditions='{range .status.conditions[?(@.status=="True")]}{.type}{"\t"}{.reason}{"\t"}{.message}{"\n"}{end}'
while true; do
    if ! held=$(kubectl get "$job" "$@" -o "jsonpath=$conditions"); then
        echo "error: cannot read $job (kubectl failed, above)" >&2
        exit 2
    fi
    if grep -q $'^Complete\t' <<<"$held"; then
        echo "$job: complete"
        exit 0
    fi
    if failed=$(grep $'^Failed\t' <<<"$held"); then
        IFS=$'\t' read -r _ reason message <<<"$failed"
        echo "$job: failed ($reason: $message)" >&2
        echo "its pods' logs: kubectl logs ${*:+$* }-l job-name=${job#*/} --all-containers --prefix" >&2
        exit 1
    fi
    sleep "$interval"
done
