#!/usr/bin/env python3
"""Compiles the device kernel with NVRTC as `fairaudit sweep --device gpu` does, without a GPU.

Usage: scripts/nvrtc-check.py LIBNVRTC KERNEL

1. Compiles KERNEL (src/device/kernel.c) with no options, exactly as src/device/cuda.rs
   asks cudarc to, and requires PTX holding both entry points, fa_keno_sweep and
   fa_roulette_sweep.
2. Compiles it again for sm_90 (H100, H200) with ptxas's report, and requires each entry
   point within what its launch needs: at most 128 registers a thread (its
   `__launch_bounds__(256, 2)`: two blocks of 256 threads in a multiprocessor's 65,536
   registers) and at most 48 KB of static shared memory.
3. Proves both checks can fail: a kernel with a syntax error must not compile, and one
   whose launch bound is relaxed to one block must be reported above 128 registers.

Exits 0 when all hold, 1 naming what does not. Called by scripts/check-kernel-nvrtc.sh,
which fetches NVRTC. Written with ctypes: NVRTC's C API is five calls, and no package
on this machine wraps it (cudarc, the crate the GPU build uses, needs a build with the
`gpu` feature, minutes longer than this).
"""

import ctypes
import re
import sys

ENTRY_POINTS = ("fa_keno_sweep", "fa_roulette_sweep")
MAX_REGISTERS = 128
MAX_STATIC_SHARED = 48 * 1024


def compile_source(nvrtc, source, options):
    """(compiled, log, ptx) for `source` compiled with `options`."""
    program = ctypes.c_void_p()
    status = nvrtc.nvrtcCreateProgram(ctypes.byref(program), source, b"kernel.c", 0, None, None)
    if status != 0:
        raise RuntimeError(f"nvrtcCreateProgram returned {status}")
    encoded = [option.encode() for option in options]
    status = nvrtc.nvrtcCompileProgram(program, len(encoded), (ctypes.c_char_p * len(encoded))(*encoded))
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(program, log)
    ptx = b""
    if status == 0:
        nvrtc.nvrtcGetPTXSize(program, ctypes.byref(size))
        buffer = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetPTX(program, buffer)
        ptx = buffer.value
    nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    return status == 0, log.value.decode(errors="replace"), ptx


def resources(log):
    """{entry point: (registers, static shared bytes, stack bytes, spill-store bytes)} from
    ptxas's report in `log` (the last two are reported, not bounded: a measure of the
    thread's local memory for readers of the CI log)."""
    found, entry, frame = {}, None, {}
    for line in log.splitlines():
        named = re.search(r"Compiling entry function '(\w+)'", line)
        if named:
            entry = named.group(1)
        stack = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores", line)
        if stack and entry:
            frame[entry] = (int(stack.group(1)), int(stack.group(2)))
        used = re.search(r"Used (\d+) registers.*?(\d+) bytes smem", line)
        if used and entry:
            found[entry] = (int(used.group(1)), int(used.group(2))) + frame.get(entry, (-1, -1))
    return found


def problems_of(found):
    """What is wrong with the entry points' resources, one line each."""
    problems = []
    for entry in ENTRY_POINTS:
        if entry not in found:
            problems.append(f"ptxas reports no entry point {entry}")
            continue
        registers, shared = found[entry][:2]
        if registers > MAX_REGISTERS:
            problems.append(f"{entry} uses {registers} registers, above the {MAX_REGISTERS} its launch needs")
        if shared > MAX_STATIC_SHARED:
            problems.append(f"{entry} uses {shared} bytes of shared memory, above the {MAX_STATIC_SHARED} static limit")
    return problems


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: nvrtc-check.py LIBNVRTC KERNEL")
    nvrtc = ctypes.CDLL(sys.argv[1])
    major, minor = ctypes.c_int(), ctypes.c_int()
    nvrtc.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    source = open(sys.argv[2], "rb").read()
    failures = []

    compiled, log, ptx = compile_source(nvrtc, source, [])
    if not compiled:
        failures.append(f"NVRTC {major.value}.{minor.value} cannot compile the kernel as the GPU sweep does:\n{log}")
    for entry in ENTRY_POINTS:
        if compiled and f".entry {entry}(".encode() not in ptx:
            failures.append(f"the PTX has no entry point {entry}")

    sm90 = ["--gpu-architecture=sm_90", "--ptxas-options=-v"]
    compiled, log, _ = compile_source(nvrtc, source, sm90)
    found = resources(log) if compiled else {}
    failures += [] if compiled else [f"NVRTC cannot compile the kernel for sm_90:\n{log}"]
    failures += problems_of(found) if compiled else []

    # The checks above can fail: a broken kernel does not compile, and a kernel allowed
    # more registers is caught using them.
    broken, _, _ = compile_source(nvrtc, source + b"\nthis is not C;\n", [])
    if broken:
        failures.append("self-test: a kernel with a syntax error compiled")
    relaxed_source = source.replace(b"__launch_bounds__(256, 2)", b"__launch_bounds__(256, 1)")
    if relaxed_source == source:
        failures.append("self-test: the kernel has no __launch_bounds__(256, 2) to relax")
    else:
        compiled, relaxed_log, _ = compile_source(nvrtc, relaxed_source, sm90)
        if not compiled or not any("registers" in p for p in problems_of(resources(relaxed_log))):
            failures.append("self-test: a kernel without its register bound was not reported above 128 registers")

    if failures:
        print("\n".join(f"FAILED: {failure}" for failure in failures))
        sys.exit(1)
    described = "; ".join(
        f"{e} {found[e][0]} registers, {found[e][1]} bytes of shared memory, {found[e][2]} bytes of stack, "
        f"{found[e][3]} bytes of spill stores"
        for e in ENTRY_POINTS
    )
    print(f"NVRTC {major.value}.{minor.value} compiles the kernel; for sm_90: {described}")
    print("self-tests: a syntax error is refused; a relaxed register bound is caught")


if __name__ == "__main__":
    main()
