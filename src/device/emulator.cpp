/*
 * kernel.c's `__global__` entry point, fa_keno_sweep, run on CPU threads as a GPU runs
 * it: the grid's blocks one after another, each block's threads as real threads sharing
 * the block's counters and meeting at its barriers (cuda_on_cpu.h). The tests run the
 * device's own code path this way, launch geometry, shared-memory zeroing, atomics and
 * the flush to the totals included, on machines without a GPU.
 */
#define __CUDACC__ 1
#include "cuda_on_cpu.h"

#include "kernel.c"

#include <mutex>
#include <thread>
#include <vector>

/* Runs fa_keno_sweep on a grid of `blocks` blocks of `threads` threads, its runs' edges
 * in memory of the launch's own (a device's global memory), its blocks' edges written to
 * `block_edges`. One launch at a time: the blocks' shared memory is one static. */
extern "C" void fa_emulate_keno_sweep(unsigned blocks, unsigned threads, const uint8_t *server,
                                      fa_len server_len, const uint8_t *client, fa_len client_len,
                                      uint64_t start, uint64_t end, uint64_t per_thread,
                                      fa_keno_counts *totals, fa_keno_edges *block_edges) {
    static std::mutex one_launch;
    std::lock_guard<std::mutex> hold(one_launch);
    std::vector<fa_keno_edges> run_edges(size_t(blocks) * threads);
    fa_keno_edges *runs = run_edges.data();
    blockDim = fa_dim3{threads, 1, 1};
    for (unsigned b = 0; b < blocks; b++) {
        blockIdx = fa_dim3{b, 0, 0};
        pthread_barrier_init(&fa_block_barrier, nullptr, threads);
        std::vector<std::thread> block;
        for (unsigned t = 0; t < threads; t++) {
            block.emplace_back([=] {
                threadIdx = fa_dim3{t, 0, 0};
                fa_keno_sweep(server, server_len, client, client_len, start, end, per_thread, totals, runs,
                              block_edges);
            });
        }
        for (std::thread &thread : block) {
            thread.join();
        }
        pthread_barrier_destroy(&fa_block_barrier);
    }
}
