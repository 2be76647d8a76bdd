/*
 * Just enough of CUDA for kernel.c's `__global__` entry point to run on CPU threads
 * (emulator.cpp): `__device__` and `__global__` defined away, `__shared__` memory a
 * static (one block runs at a time), the block's threads real threads meeting at a
 * barrier for `__syncthreads`, and the atomics and bit intrinsics the kernel uses.
 * Written by hand: it stands in for the CUDA toolkit, which no crate provides and which
 * machines without a GPU do not have.
 */
#ifndef FA_CUDA_ON_CPU_H
#define FA_CUDA_ON_CPU_H

#include <pthread.h>

#define __device__
#define __global__
#define __shared__ static
#define __launch_bounds__(...)

struct fa_dim3 {
    unsigned x, y, z;
};

/* The calling thread's index in its block, and the block being run. */
static thread_local fa_dim3 threadIdx;
static fa_dim3 blockIdx;
static fa_dim3 blockDim;
static pthread_barrier_t fa_block_barrier;

static inline void __syncthreads() { pthread_barrier_wait(&fa_block_barrier); }

static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

static inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v) {
    unsigned long long seen = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (seen < v && !__atomic_compare_exchange_n(p, &seen, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return seen;
}

static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }

static inline int __ffsll(long long x) { return __builtin_ffsll(x); }

#endif
