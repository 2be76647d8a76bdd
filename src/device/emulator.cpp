/*
 * kernel.c's `__global__` entry points, fa_keno_sweep and fa_roulette_sweep, run on CPU
 * threads as a GPU runs them: the grid's blocks one after another, each block's threads
 * as real threads sharing the block's counters and meeting at its barriers
 * (cuda_on_cpu.h). The tests run the device's own code path this way, launch geometry,
 * shared-memory zeroing, atomics and the flush to the totals included, on machines
 * without a GPU.
 */
#define __CUDACC__ 1
#include "cuda_on_cpu.h"

#include "kernel.c"

#include <mutex>
#include <thread>
#include <vector>

/* One launch at a time, whichever its entry point: the grid's indices and the block's
 * barrier are statics of cuda_on_cpu.h, and a block's shared memory a static of its entry
 * point. */
static std::mutex fa_one_launch;

/* Runs `thread_body` as the grid's `blocks` blocks of `threads` threads, a block at a time. */
template <typename Body> static void fa_emulate_grid(unsigned blocks, unsigned threads, Body thread_body) {
    std::lock_guard<std::mutex> hold(fa_one_launch);
    blockDim = fa_dim3{threads, 1, 1};
    for (unsigned b = 0; b < blocks; b++) {
        blockIdx = fa_dim3{b, 0, 0};
        pthread_barrier_init(&fa_block_barrier, nullptr, threads);
        std::vector<std::thread> block;
        for (unsigned t = 0; t < threads; t++) {
            block.emplace_back([=] {
                threadIdx = fa_dim3{t, 0, 0};
                thread_body();
            });
        }
        for (std::thread &thread : block) {
            thread.join();
        }
        pthread_barrier_destroy(&fa_block_barrier);
    }
}

/* Runs fa_keno_sweep on a grid of `blocks` blocks of `threads` threads, its runs' edges
 * in memory of the launch's own (a device's global memory), its blocks' edges written to
 * `block_edges`. */
extern "C" void fa_emulate_keno_sweep(unsigned blocks, unsigned threads, const uint8_t *server,
                                      fa_len server_len, const uint8_t *client, fa_len client_len,
                                      uint64_t start, uint64_t end, uint64_t per_thread,
                                      fa_keno_counts *totals, fa_keno_edges *block_edges) {
    std::vector<fa_keno_edges> run_edges(size_t(blocks) * threads);
    fa_keno_edges *runs = run_edges.data();
    fa_emulate_grid(blocks, threads, [=] {
        fa_keno_sweep(server, server_len, client, client_len, start, end, per_thread, totals, runs, block_edges);
    });
}

/* Runs fa_roulette_sweep likewise, its pairs counted into `pairs` (FA_PAIR_CELLS cells). */
extern "C" void fa_emulate_roulette_sweep(unsigned blocks, unsigned threads, const uint8_t *server,
                                          fa_len server_len, const uint8_t *client, fa_len client_len,
                                          uint64_t start, uint64_t end, uint64_t per_thread, uint32_t pockets,
                                          fa_roulette_counts *totals, uint64_t *pairs,
                                          fa_roulette_edges *block_edges) {
    std::vector<fa_roulette_edges> run_edges(size_t(blocks) * threads);
    fa_roulette_edges *runs = run_edges.data();
    fa_emulate_grid(blocks, threads, [=] {
        fa_roulette_sweep(server, server_len, client, client_len, start, end, per_thread, pockets, totals, pairs,
                          runs, block_edges);
    });
}
