//! The CPU builds of `kernel.c`: its host entry points, the launcher of its emulated
//! `__global__` entry point (`emulator.cpp`), and the layout of what it counts.

use super::{KenoCounts, KenoEdges, RouletteCounts, RouletteEdges};

extern "C" {
    pub fn fa_round_signature(
        server: *const u8,
        server_len: usize,
        client: *const u8,
        client_len: usize,
        nonce: u64,
        hex: *mut u8,
    );
    pub fn fa_keno_round(
        server: *const u8,
        server_len: usize,
        client: *const u8,
        client_len: usize,
        nonce: u64,
        draw: *mut u8,
        used: *mut u32,
    );
    pub fn fa_roulette_round(
        server: *const u8,
        server_len: usize,
        client: *const u8,
        client_len: usize,
        nonce: u64,
        pockets: u32,
        pocket: *mut u32,
        used: *mut u32,
    );
    pub fn fa_keno_tally_runs(
        server: *const u8,
        server_len: usize,
        client: *const u8,
        client_len: usize,
        start: u64,
        count: u64,
        per_run: u64,
        counts: *mut KenoCounts,
        edges: *mut KenoEdges,
    );
    pub fn fa_emulate_keno_sweep(
        blocks: u32,
        threads: u32,
        server: *const u8,
        server_len: usize,
        client: *const u8,
        client_len: usize,
        start: u64,
        end: u64,
        per_thread: u64,
        totals: *mut KenoCounts,
        block_edges: *mut KenoEdges,
    );
    pub fn fa_roulette_tally_runs(
        server: *const u8,
        server_len: usize,
        client: *const u8,
        client_len: usize,
        start: u64,
        count: u64,
        per_run: u64,
        pockets: u32,
        counts: *mut RouletteCounts,
        pairs: *mut u64,
        edges: *mut RouletteEdges,
    );
    pub fn fa_emulate_roulette_sweep(
        blocks: u32,
        threads: u32,
        server: *const u8,
        server_len: usize,
        client: *const u8,
        client_len: usize,
        start: u64,
        end: u64,
        per_thread: u64,
        pockets: u32,
        totals: *mut RouletteCounts,
        pairs: *mut u64,
        block_edges: *mut RouletteEdges,
    );
}
