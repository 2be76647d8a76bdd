//! The sweep's round kernel as the accelerator would run it (`kernel.c`), compiled here for
//! the CPU by build.rs: the same C source a GPU build compiles, so its logic (the round
//! signature, the SHAKE256 words, rejection sampling, the Keno draw and the roulette spin)
//! is tested against the Rust path (`verify::replay`) on every machine, with a
//! GPU or without (`tests/device_kernel.rs`: every published vector, rejection rounds,
//! random seeds and nonces).
//!
//! This is the first step of the GPU sweep (issue 35): the device sweep itself (tallies on
//! the device, segments joined as the CPU's are) is not built yet, and nothing here runs
//! on a GPU.

/// The kernel's entry points (`kernel.c`).
mod ffi {
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
    }
}

/// The kernel's round signature of `server:client:nonce` (lowercase hex).
pub fn round_signature(server: &str, client: &str, nonce: u64) -> String {
    let mut hex = [0u8; 64];
    // SAFETY: the pointers and lengths are those of live strings, which the kernel only
    // reads within their lengths; it writes the 64 bytes of `hex` and nothing else.
    unsafe {
        ffi::fa_round_signature(
            server.as_ptr(),
            server.len(),
            client.as_ptr(),
            client.len(),
            nonce,
            hex.as_mut_ptr(),
        );
    }
    hex.iter().map(|&b| char::from(b)).collect()
}

/// A round the kernel drew: the draw order (Keno's ten numbers, or the roulette value) and
/// the 32-bit words it consumed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelRound {
    /// Keno: the numbers 1..40 in draw order; roulette: the one value (37 is "00").
    pub draw: Vec<u8>,
    /// Words consumed, rejected ones included.
    pub words_used: u32,
}

/// The kernel's Keno round.
pub fn keno_round(server: &str, client: &str, nonce: u64) -> KernelRound {
    let (mut draw, mut used) = ([0u8; 10], 0u32);
    // SAFETY: as in `round_signature`; the kernel writes the 10 bytes of `draw` and `used`.
    unsafe {
        ffi::fa_keno_round(
            server.as_ptr(),
            server.len(),
            client.as_ptr(),
            client.len(),
            nonce,
            draw.as_mut_ptr(),
            &mut used,
        );
    }
    KernelRound { draw: draw.to_vec(), words_used: used }
}

/// The kernel's roulette spin among `pockets` (37 European, 38 American).
pub fn roulette_round(server: &str, client: &str, nonce: u64, pockets: u32) -> KernelRound {
    assert!(pockets == 37 || pockets == 38, "a wheel has 37 or 38 pockets");
    let (mut pocket, mut used) = (0u32, 0u32);
    // SAFETY: as in `round_signature`; the kernel writes `pocket` and `used`.
    unsafe {
        ffi::fa_roulette_round(
            server.as_ptr(),
            server.len(),
            client.as_ptr(),
            client.len(),
            nonce,
            pockets,
            &mut pocket,
            &mut used,
        );
    }
    KernelRound { draw: vec![pocket as u8], words_used: used }
}
