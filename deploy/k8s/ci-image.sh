#!/usr/bin/env bash
# deploy/k8s/Dockerfile and the rendered Kubernetes pods, checked without a registry (CI
# cannot pull base images). Run by .ci/run as root on Debian 12; usable by hand:
#
#   deploy/k8s/ci-image.sh [path/to/fairaudit]     (default target/release/fairaudit)
#
# 1. The build stage's context: exactly the paths its COPY lines name, copied into an empty
#    folder (no .git), built offline with the build stage's own cargo command and
#    FAIRAUDIT_REVISION as `--build-arg` sets it (the dependencies come from target/
#    through hard links, so only fairaudit compiles: about a minute). The binary must say
#    that revision.
# 2. The image: a Debian bookworm root filesystem made with debootstrap and `docker
#    import`ed as debian:bookworm-slim (into a Docker of this script's own: dockerd with
#    its own data folder and socket, no network), then the Dockerfile's runtime stage as it
#    is written, on a build stage that holds the binary of step 1. In the image, with
#    --network none: `--version`; the rendered Job's init container script as root on an
#    empty volume (the sweep as the pods' user fails there before it, exit 2); the
#    rendered sweep Job's container for both shards of a small range (its args, its user,
#    JOB_COMPLETION_INDEX); the rendered merge Job's container; the merge must equal one
#    sweep of the range on the host, byte for byte; `tar` and `sleep`, which the results
#    pod and `kubectl cp` need, are there.
#
# Needs root for step 2 (dockerd, debootstrap, the volume's owner) and installs docker.io
# and debootstrap when missing, without starting their services. Not root, it says so and
# stops after step 1, unless FAIRAUDIT_REQUIRE_DOCKER=1 (CI), where that is an error. The
# EXIT trap stops dockerd and removes every file it made, even on failure. (A containerd
# the host already runs at /run/containerd is used by that dockerd, as dockerd does.)
set -euo pipefail
cd "$(dirname "$0")/../.."
host_fairaudit=$(realpath "${1:-target/release/fairaudit}")

work=$(mktemp -d /tmp/fairaudit-image.XXXXXX)
context_target=$PWD/target/ci-image # beside target/release: hard links need one filesystem
dockerd_pid=
cleanup() {
    local status=$?
    set +e # every step of the cleanup runs, whatever fails
    if [ -n "$dockerd_pid" ]; then
        kill -TERM "$dockerd_pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$dockerd_pid" 2>/dev/null || true
        wait "$dockerd_pid" 2>/dev/null || true
        # Whatever dockerd left mounted under its data folder (nothing after a clean stop).
        { grep -o " $work/[^ ]*" /proc/mounts || true; } | sort -r | while read -r mount; do umount -l "$mount" || true; done
        [ "$status" -eq 0 ] || tail -n 30 "$work/dockerd.log" 2>/dev/null || true
    fi
    rm -rf "$work" "$context_target"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() {
    echo "error: $*" >&2
    exit 1
}

# ---- 1. the build stage's context, built offline --------------------------------------
dockerfile=deploy/k8s/Dockerfile
revision=$(git rev-parse --short=12 HEAD)
context=$work/context
mkdir -p "$context"
# The COPY lines of the build stage (before the second FROM): sources, then a destination
# that keeps their layout (./ or the same name).
awk '/^FROM /{stage++} stage==1 && /^COPY / && !/--from/' "$dockerfile" >"$work/copies"
[ -s "$work/copies" ] || fail "$dockerfile: no COPY in its build stage"
while read -r _ line; do
    read -ra words <<<"$line"
    destination=${words[-1]}
    unset 'words[-1]'
    for source in "${words[@]}"; do
        case "$destination" in
            ./ | . | "$source" | "$source/") cp -a --parents "$source" "$context/" ;;
            *) fail "$dockerfile: COPY $line moves $source to $destination; this script copies paths as they are" ;;
        esac
    done
done <"$work/copies"
[ ! -e "$context/.git" ] || fail "the context holds .git"
build_command=$(awk '/^FROM /{stage++} stage==1 && /^RUN /{sub(/^RUN /, ""); print}' "$dockerfile")
[ "$build_command" = "cargo build --release --locked --bin fairaudit" ] \
    || fail "$dockerfile: the build stage runs '$build_command', which this script does not know"
mkdir -p "$context_target"
cp -al target/release "$context_target/release"
echo "building the Dockerfile's context ($(sed 's/^COPY //' "$work/copies" | paste -sd';')) offline, FAIRAUDIT_REVISION=$revision"
(cd "$context" && FAIRAUDIT_REVISION=$revision CARGO_TARGET_DIR=$context_target \
    cargo build --release --locked --offline --bin fairaudit --quiet)
binary=$context_target/release/fairaudit
version=$("$binary" --version)
[ "$version" = "fairaudit 0.1.0 (rev $revision)" ] || fail "the context's binary says '$version'"
echo "the context builds: $version"

# ---- 2. the image, in a Docker of our own ----------------------------------------------
if [ "$(id -u)" != 0 ]; then
    # dockerd, debootstrap and the volume's chown need root.
    [ "${FAIRAUDIT_REQUIRE_DOCKER:-0}" != 1 ] || fail "the image needs root (dockerd, debootstrap)"
    echo "skipped the image: not root"
    exit 0
fi
if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
    echo "installing docker.io and debootstrap"
    apt-get update
    # Installed, not started: on a host with an init system, a policy-rc.d that refuses
    # keeps the packages' docker and containerd services stopped (this script runs its own).
    policy_rc_d=/usr/sbin/policy-rc.d made_policy=no
    if [ ! -e "$policy_rc_d" ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy_rc_d"
        chmod +x "$policy_rc_d"
        made_policy=yes
    fi
    installed=yes
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker.io debootstrap || installed=no
    [ "$made_policy" = no ] || rm -f "$policy_rc_d"
    [ "$installed" = yes ] || fail "could not install docker.io and debootstrap"
fi
export DOCKER_HOST=unix://$work/docker.sock DOCKER_BUILDKIT=0
dockerd --data-root "$work/docker" --exec-root "$work/exec" --pidfile "$work/docker.pid" \
    -H "$DOCKER_HOST" --iptables=false --bridge=none >"$work/dockerd.log" 2>&1 &
dockerd_pid=$!
for _ in $(seq 300); do docker version >/dev/null 2>&1 && break; sleep 0.1; done
docker version >/dev/null || fail "dockerd did not start (its log above)"

runtime_base=$(awk '/^FROM /{stage++; if (stage==2) print $2}' "$dockerfile")
echo "making $runtime_base with debootstrap"
debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 \
    || { tail -n 20 "$work/debootstrap.log" >&2; fail "debootstrap failed"; }
tar -C "$work/rootfs" -c . | docker import - "$runtime_base" >/dev/null
rm -rf "$work/rootfs"

# The runtime stage as written, after a build stage that holds the binary where the
# runtime stage's COPY --from=build takes it.
from_build=$(awk '/^COPY --from=build /{print $3}' "$dockerfile")
[ -n "$from_build" ] || fail "$dockerfile: its runtime stage copies nothing from the build stage"
mkdir -p "$work/image"
cp "$binary" "$work/image/fairaudit"
{
    echo "FROM scratch AS build"
    echo "COPY fairaudit $from_build"
    awk '/^FROM /{stage++} stage>=2' "$dockerfile"
} >"$work/image/Dockerfile"
docker build --quiet -t fairaudit-ci:"$revision" "$work/image" >"$work/build.log" 2>&1 \
    || { cat "$work/build.log" >&2; fail "docker build failed"; }
image=fairaudit-ci:$revision
in_image() { docker run --rm --network none "$@"; }
version=$(in_image "$image" --version)
[ "$version" = "fairaudit 0.1.0 (rev $revision)" ] || fail "the image says '$version'"
in_image --entrypoint tar "$image" --version >/dev/null || fail "the image has no tar (kubectl cp needs it)"
in_image --entrypoint sleep "$image" 0 || fail "the image has no sleep (the results pod runs it)"

# The rendered pods, as Kubernetes would run them, on a folder standing for the volume.
export IMAGE=$image STORAGE_CLASS=ci NONCES=0..200000 SHARDS=2 THREADS=1 SWEEP_ARGS="--seed-pairs 2" RUN_AS_USER=10001
deploy/k8s/render.sh sweep >"$work/sweep.yaml"
deploy/k8s/render.sh merge >"$work/merge.yaml"
args_of() { # the args list of the container named $2 in manifest $1, one a line
    awk -v name="$2" '
        $0 ~ "- name: " name "$" { found = 1; next }
        found && /^ *args:$/ { inside = 1; match($0, /^ */); indent = RLENGTH; next }
        inside { match($0, /^ */); if (RLENGTH <= indent) exit; sub(/^ *- /, ""); gsub(/^"|"$/, ""); print }
    ' "$1"
}
prepare=$(awk '/- name: prepare$/{found=1} found && /- >-$/{inside=1; next} inside && /^ *(containers|- name):/{exit} inside{sub(/^ */, ""); printf "%s ", $0}' "$work/sweep.yaml")
mapfile -t shard_args < <(args_of "$work/sweep.yaml" shard)
mapfile -t merge_args < <(args_of "$work/merge.yaml" merge)
[ "${#shard_args[@]}" -gt 10 ] && [ "${#merge_args[@]}" -ge 4 ] && [ -n "$prepare" ] || fail "could not read the rendered pods"
volume=$work/volume
mkdir -m 755 "$volume"
pod() { in_image --user "$RUN_AS_USER:$RUN_AS_USER" -v "$volume:/data" "$@"; }
# Without the init container the volume is root's, as on NFS: the shard cannot start.
set +e
pod -e JOB_COMPLETION_INDEX=0 "$image" "${shard_args[@]}" 2>"$work/unprepared.err"
status=$?
set -e
[ "$status" -eq 2 ] && grep -q "Permission denied" "$work/unprepared.err" \
    || fail "a shard on an unprepared volume exited $status: $(cat "$work/unprepared.err")"
in_image --user 0:0 --entrypoint /bin/sh -v "$volume:/data" "$image" -c "$prepare"
for index in 1 0; do
    pod -e JOB_COMPLETION_INDEX=$index "$image" "${shard_args[@]}" 2>>"$work/shards.err" >/dev/null
done
grep -q "shard 1 of 2 (index from JOB_COMPLETION_INDEX)" "$work/shards.err" || fail "the pods did not read JOB_COMPLETION_INDEX"
pod "$image" "${merge_args[@]}" >"$work/merge.out"
grep -q "merged all 2 shards of nonces $NONCES" "$work/merge.out" || fail "the merge pod did not merge: $(cat "$work/merge.out")"

# shellcheck disable=SC2086 # SWEEP_ARGS is a list of options
"$host_fairaudit" sweep --nonces "$NONCES" $SWEEP_ARGS --quiet --out "$work/single" >/dev/null
for file in "$work"/single/*; do
    name=$(basename "$file")
    case "$name" in run.json | report.html) continue ;; esac # how the run was made
    cmp -s "$file" "$volume/merged/$name" || fail "merged $name (in the image) differs from one sweep"
done
grep -q "\"fairaudit_revision\": \"$revision\"" "$volume/merged/run.json" || fail "the image's run.json does not name revision $revision"
echo "image: the Dockerfile's runtime stage on a debootstrapped $runtime_base runs the rendered pods (init as root, 2 shards and the merge as user $RUN_AS_USER, no network); merged equals one sweep, byte for byte"
