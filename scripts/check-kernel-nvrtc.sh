#!/usr/bin/env bash
# Compiles the device kernel (src/device/kernel.c) with NVRTC of CUDA 13.0, the oldest the
# GPU sweep supports (docs/gpu.md), as `fairaudit sweep --device gpu` compiles it on a GPU
# machine, and checks ptxas's registers and shared memory for sm_90 (scripts/nvrtc-check.py).
# Needs no GPU: NVRTC comes from NVIDIA's wheel on PyPI, pinned by its SHA-256 and kept
# under target/nvrtc. When PyPI cannot be reached the check says so and is skipped (exit
# 0), so that a network outage does not stop a landing; any other failure is exit 1.
set -euo pipefail
cd "$(dirname "$0")/.."
version=13.0.88
sha256=ad9b6d2ead2435f11cbb6868809d2adeeee302e9bb94bcf0539c7a40d80e8575
dir="target/nvrtc/$version"
lib="$dir/nvidia/cu13/lib/libnvrtc.so.13"
if [[ ! -f "$lib" ]]; then
  download=$(mktemp -d)
  trap 'rm -rf "$download"' EXIT
  echo "nvidia-cuda-nvrtc==$version --hash=sha256:$sha256" >"$download/requirements.txt"
  if ! python3 -m pip download --quiet --no-deps --require-hashes -r "$download/requirements.txt" \
    -d "$download/wheel" 2>"$download/error"; then
    echo "SKIPPED: NVRTC $version could not be fetched from PyPI: $(tail -n 1 "$download/error")"
    exit 0
  fi
  mkdir -p "$dir"
  python3 -m zipfile -e "$download"/wheel/*.whl "$dir"
fi
# NVRTC loads its builtins library from beside itself only through the loader's path.
LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  python3 scripts/nvrtc-check.py "$lib" src/device/kernel.c
