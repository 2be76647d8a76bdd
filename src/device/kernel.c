/*
 * The sweep's round kernel in plain C: the round signature (SHA3-256 of `S:C:n`), the
 * SHAKE256 words of its hex text, rejection sampling, and the Keno draw or the roulette
 * spin, exactly as SPEC.md states them and as the Rust path (`fairaudit::chain`,
 * `sampler`, `games`) computes them.
 *
 * Why C and by hand: the same source runs on a GPU (compiled there by NVRTC, as CUDA
 * C++: its functions `__device__`, its counters atomics, its entry points the `__global__`
 * fa_keno_sweep and fa_roulette_sweep) and, here, on the CPU through build.rs and the
 * `cc` crate twice: as C (the host entry points below, one thread's run at a time) and as
 * C++ with cuda_on_cpu.h standing in for CUDA (emulator.cpp: the entry points themselves,
 * blocks of threads, shared memory, barriers and atomics), so that its logic is tested against the
 * Rust path on every machine, with or without a GPU. No crate provides a device kernel; the Keccak
 * permutation below follows FIPS 202 (its round constants, rotation offsets and lane
 * order are the standard's).
 *
 * No allocation, no library calls: a device thread has neither.
 */

#ifdef __CUDACC_RTC__
/* NVRTC has no C library headers: the fixed-width types the kernel uses, spelled out. */
typedef unsigned char uint8_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef unsigned long long fa_len;
#else
#include <stddef.h>
#include <stdint.h>
typedef size_t fa_len;
#endif

/* Device functions in a CUDA build (NVRTC's, or the CPU emulator's: cuda_on_cpu.h). */
#ifdef __CUDACC__
#define FA_DEVICE __device__
#else
#define FA_DEVICE
#endif

/* Counting: plain additions on the CPU (each thread counts into its own block); atomic
 * ones on the device, where a block's threads share one block of counters. */
#ifdef __CUDACC__
#define FA_ADD(p, v) atomicAdd((unsigned long long *)(p), (unsigned long long)(v))
#define FA_MAX(p, v) atomicMax((unsigned long long *)(p), (unsigned long long)(v))
#define FA_POPCOUNT(x) ((unsigned)__popcll(x))
#define FA_LOWEST_BIT(x) ((unsigned)(__ffsll((long long)(x)) - 1))
#else
#define FA_ADD(p, v) (*(p) += (v))
#define FA_MAX(p, v) (*(p) = *(p) > (v) ? *(p) : (v))
#define FA_POPCOUNT(x) ((unsigned)__builtin_popcountll(x))
#define FA_LOWEST_BIT(x) ((unsigned)__builtin_ctzll(x))
#endif

/* SHA3-256 and SHAKE256 both absorb 136-byte blocks. */
#define FA_RATE 136u

FA_DEVICE static const uint64_t FA_ROUND_CONSTANTS[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808aull, 0x8000000080008000ull,
    0x000000000000808bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000aull,
    0x000000008000808bull, 0x800000000000008bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800aull, 0x800000008000000aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull,
};

/* rho's rotation of each lane visited by pi's walk from lane 1, and the lanes in that walk. */
FA_DEVICE static const unsigned FA_ROTATIONS[24] = {1,  3,  6,  10, 15, 21, 28, 36, 45, 55, 2,  14,
                                                    27, 41, 56, 8,  25, 43, 62, 18, 39, 61, 20, 44};
FA_DEVICE static const unsigned FA_PI_WALK[24] = {10, 7,  11, 17, 18, 3, 5,  16, 8,  21, 24, 4,
                                                  15, 23, 19, 13, 12, 2, 20, 14, 22, 9,  6,  1};

/* Defined for every n below 64 (a shift by 64 would not be). */
FA_DEVICE static uint64_t fa_rotl(uint64_t x, unsigned n) { return (x << n) | (x >> ((64u - n) & 63u)); }

/* Keccak-f[1600]: theta, rho and pi, chi, iota; 24 rounds. */
FA_DEVICE static void fa_keccak_f(uint64_t st[25]) {
    for (unsigned round = 0; round < 24; round++) {
        uint64_t column[5];
        for (unsigned x = 0; x < 5; x++) {
            column[x] = st[x] ^ st[x + 5] ^ st[x + 10] ^ st[x + 15] ^ st[x + 20];
        }
        for (unsigned x = 0; x < 5; x++) {
            uint64_t d = column[(x + 4) % 5] ^ fa_rotl(column[(x + 1) % 5], 1);
            for (unsigned y = 0; y < 25; y += 5) {
                st[y + x] ^= d;
            }
        }
        uint64_t carried = st[1];
        for (unsigned i = 0; i < 24; i++) {
            unsigned lane = FA_PI_WALK[i];
            uint64_t next = st[lane];
            st[lane] = fa_rotl(carried, FA_ROTATIONS[i]);
            carried = next;
        }
        for (unsigned y = 0; y < 25; y += 5) {
            uint64_t row[5];
            for (unsigned x = 0; x < 5; x++) {
                row[x] = st[y + x];
            }
            for (unsigned x = 0; x < 5; x++) {
                st[y + x] ^= ~row[(x + 1) % 5] & row[(x + 2) % 5];
            }
        }
        st[0] ^= FA_ROUND_CONSTANTS[round];
    }
}

/* A sponge absorbing bytes as they come (a message need not be in one buffer). */
typedef struct {
    uint64_t st[25];
    unsigned pos;
} fa_sponge;

FA_DEVICE static void fa_sponge_start(fa_sponge *s) {
    for (unsigned i = 0; i < 25; i++) {
        s->st[i] = 0;
    }
    s->pos = 0;
}

FA_DEVICE static void fa_absorb(fa_sponge *s, const uint8_t *bytes, fa_len len) {
    for (fa_len i = 0; i < len; i++) {
        s->st[s->pos / 8] ^= (uint64_t)bytes[i] << (8 * (s->pos % 8));
        if (++s->pos == FA_RATE) {
            fa_keccak_f(s->st);
            s->pos = 0;
        }
    }
}

/* The domain bits and pad10*1, then the permutation: the state holds the first output. */
FA_DEVICE static void fa_finish(fa_sponge *s, uint8_t domain) {
    s->st[s->pos / 8] ^= (uint64_t)domain << (8 * (s->pos % 8));
    s->st[(FA_RATE - 1) / 8] ^= (uint64_t)0x80 << (8 * ((FA_RATE - 1) % 8));
    fa_keccak_f(s->st);
    s->pos = 0;
}

/* The round's words: SHAKE256 squeezed 136 bytes a permutation, read as big-endian u32. */
typedef struct {
    fa_sponge sponge;
    unsigned next;
    uint32_t used;
} fa_words;

FA_DEVICE static uint32_t fa_next_word(fa_words *w) {
    if (w->next == FA_RATE) {
        fa_keccak_f(w->sponge.st);
        w->next = 0;
    }
    /* Bytes next .. next + 3 (next a multiple of 4) of the squeezed block: one lane's
     * half, little-endian there, the word big-endian. One read of the state, not four. */
    uint32_t x = (uint32_t)(w->sponge.st[w->next / 8] >> (8 * (w->next % 8)));
    w->next += 4;
    w->used++;
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

/* sample(P): words at or above floor(2^32 / P) * P are rejected (and consumed, and
 * counted in `rejected`). */
FA_DEVICE static uint32_t fa_sample(fa_words *w, uint32_t outcomes, uint32_t *rejected) {
    uint64_t limit = (4294967296ull / outcomes) * outcomes;
    for (;;) {
        uint32_t r = fa_next_word(w);
        if ((uint64_t)r < limit) {
            return r % outcomes;
        }
        (*rejected)++;
    }
}

/* Absorbs bytes `from .. to` of the message `server:client:digits` (its parts absorbed as
 * they come; none is copied into one buffer). */
FA_DEVICE static void fa_absorb_message(fa_sponge *s, const uint8_t *server, fa_len server_len,
                                        const uint8_t *client, fa_len client_len, const uint8_t *digits,
                                        fa_len count, fa_len from, fa_len to) {
    const uint8_t colon = ':';
    const uint8_t *parts[5] = {server, &colon, client, &colon, digits};
    const fa_len lens[5] = {server_len, 1, client_len, 1, count};
    fa_len at = 0;
    for (unsigned p = 0; p < 5 && at < to; p++) {
        fa_len lo = from > at ? from - at : 0;
        fa_len hi = to - at < lens[p] ? to - at : lens[p];
        if (lo < hi) {
            fa_absorb(s, parts[p] + lo, hi - lo);
        }
        at += lens[p];
    }
}

/* The state after the first full blocks of one round's message, kept for the next rounds
 * of a run: with 64-character seeds, `S:C:n` fills its first 136-byte block with the
 * seeds and the nonce's leading digits, which ten consecutive nonces share. The CPU path
 * keeps the same midstate (chain::batch). */
typedef struct {
    fa_sponge state;   /* after absorbing the message's first `absorbed` bytes */
    fa_len absorbed;   /* a multiple of FA_RATE */
    unsigned count;    /* the nonce's digits */
    uint8_t lead[20];  /* the nonce's digits within the absorbed bytes */
    unsigned lead_len;
    int valid;
} fa_midstate;

/* The round signature, SHA3-256 of `server:client:nonce` (nonce in decimal), as its
 * four lanes, starting from `m` when it holds this message's first blocks (and keeping
 * them there for the next round when it does not). */
FA_DEVICE static void fa_signature(const uint8_t *server, fa_len server_len, const uint8_t *client,
                                   fa_len client_len, uint64_t nonce, uint64_t digest[4], fa_midstate *m) {
    uint8_t digits[20];
    unsigned count = 0;
    do {
        digits[19 - count++] = (uint8_t)('0' + nonce % 10);
        nonce /= 10;
    } while (nonce > 0);
    const uint8_t *first = digits + 20 - count;
    const fa_len prefix = server_len + client_len + 2;
    const fa_len total = prefix + count;
    const fa_len full = total / FA_RATE * FA_RATE;
    const unsigned lead_len = full > prefix ? (unsigned)(full - prefix) : 0u;
    int same = m->valid && m->absorbed == full && m->count == count;
    for (unsigned i = 0; same && i < lead_len; i++) {
        same = m->lead[i] == first[i];
    }
    if (!same) {
        fa_sponge_start(&m->state);
        fa_absorb_message(&m->state, server, server_len, client, client_len, first, count, 0, full);
        m->absorbed = full;
        m->count = count;
        m->lead_len = lead_len;
        for (unsigned i = 0; i < lead_len; i++) {
            m->lead[i] = first[i];
        }
        m->valid = 1;
    }
    fa_sponge h = m->state;
    fa_absorb_message(&h, server, server_len, client, client_len, first, count, full, total);
    fa_finish(&h, 0x06);
    for (unsigned i = 0; i < 4; i++) {
        digest[i] = h.st[i];
    }
}

/* A digest's 64 lowercase hex characters as the 8 lanes (little-endian) they fill: the
 * next hash's message, computed in place rather than absorbed byte by byte. */
FA_DEVICE static void fa_hex_lanes(const uint64_t digest[4], uint64_t hex[8]) {
    for (unsigned i = 0; i < 8; i++) {
        hex[i] = 0;
    }
    for (unsigned b = 0; b < 32; b++) {
        uint64_t byte = (digest[b / 8] >> (8 * (b % 8))) & 0xffu;
        uint64_t high = byte >> 4, low = byte & 15u;
        /* '0' + n for n below 10, 'a' + n - 10 above: the high digit first. */
        uint64_t chars = (high + 48u + (high > 9) * 39u) | (low + 48u + (low > 9) * 39u) << 8;
        hex[b / 4] |= chars << (16 * (b % 4));
    }
}

/* The round's words: SHAKE256 of the signature's hex text. The text fills lanes 0..7 of
 * the one block it takes; SHAKE's domain bits follow at byte 64 and pad10*1 ends the block. */
FA_DEVICE static void fa_round_words(fa_words *w, const uint8_t *server, fa_len server_len,
                                     const uint8_t *client, fa_len client_len, uint64_t nonce, fa_midstate *m) {
    uint64_t digest[4];
    fa_signature(server, server_len, client, client_len, nonce, digest, m);
    fa_sponge_start(&w->sponge);
    fa_hex_lanes(digest, w->sponge.st);
    w->sponge.pos = 64;
    fa_finish(&w->sponge, 0x1f);
    w->next = 0;
    w->used = 0;
}

/* Where the `index`-th (from 0) set bit of `mask` is, counting from the lowest: a binary
 * search on population counts, in registers. */
FA_DEVICE static unsigned fa_nth_set_bit(uint64_t mask, unsigned index) {
    unsigned at = 0;
    for (unsigned width = 32; width > 0; width /= 2) {
        unsigned below = FA_POPCOUNT(mask & ((1ull << width) - 1u));
        if (index >= below) {
            index -= below;
            mask >>= width;
            at += width;
        }
    }
    return at;
}

/* A Keno draw: the ten numbers (1..40) in draw order, each sampled among those left, and
 * the words each draw rejected. SPEC.md's list of the numbers left, in increasing order,
 * is kept as a bit set (bit n - 1 for the number n): its `index`-th entry is the set's
 * `index`-th bit, and removing it keeps the others' order, as removing from the list does.
 * A list would live in the thread's local memory on a GPU and move a word per number at each draw. */
FA_DEVICE static void fa_keno_draw(fa_words *w, uint8_t draw[10], uint32_t rejected[10]) {
    uint64_t left = (1ull << 40) - 1u;
    uint32_t remaining = 40;
    for (unsigned d = 0; d < 10; d++) {
        rejected[d] = 0;
        unsigned bit = fa_nth_set_bit(left, fa_sample(w, remaining, &rejected[d]));
        draw[d] = (uint8_t)(bit + 1u);
        left &= ~(1ull << bit);
        remaining--;
    }
}

/* The sweep's Keno counters of a run of rounds, laid out as `fairaudit::device::KenoCounts`
 * (which documents each; `tally::KenoTally` names them the same). Order-independent, so
 * added up in any order: by each CPU thread into its own block, by a device block's
 * threads into the block's shared one. The numbers are not counted here: they are the
 * positions' row sums. */
#define FA_GRID 40u
#define FA_DRAWN 10u
#define FA_PAIRS 780u
#define FA_MAX_LAG 10u
/* Words the operator's published verifier generates for a Keno round. */
#define FA_KENO_REFERENCE_WORDS 80u

typedef struct {
    uint64_t positions[FA_DRAWN * FA_GRID];
    uint64_t pairs[FA_PAIRS];
    uint64_t hits[FA_DRAWN * (FA_DRAWN + 1)];
    uint64_t overlap[FA_DRAWN + 1];
    uint64_t lag_overlap[(FA_MAX_LAG - 1) * (FA_DRAWN + 1)];
    uint64_t rejections[FA_DRAWN];
    uint64_t rounds;
    uint64_t words;
    uint64_t beyond_reference_words;
    uint64_t max_words_in_round;
} fa_keno_counts;

/* A segment's edge state: the drawn-number bit sets of its first and last (up to) ten
 * rounds, the last oldest first; both hold min(rounds, 10). What segments are joined with. */
typedef struct {
    uint64_t head[FA_MAX_LAG];
    uint64_t tail[FA_MAX_LAG];
} fa_keno_edges;

/* The pick sets: the `k`-number set is the first `k` of these (tally::keno::PICK_ORDER). */
FA_DEVICE static const uint8_t FA_PICK_ORDER[FA_DRAWN] = {7, 13, 22, 29, 36, 2, 18, 25, 33, 40};

/* The first and last (up to) ten values of two joined segments: `head`, `tail` (`n` held)
 * followed by `later_head`, `later_tail` (`m` held) become those of both
 * (`tally::window::Window::join`). */
FA_DEVICE static void fa_join_window(uint64_t head[FA_MAX_LAG], uint64_t tail[FA_MAX_LAG], unsigned n,
                                     const uint64_t later_head[FA_MAX_LAG], const uint64_t later_tail[FA_MAX_LAG],
                                     unsigned m) {
    for (unsigned j = 0; n + j < FA_MAX_LAG && j < m; j++) {
        head[n + j] = later_head[j];
    }
    uint64_t both[2 * FA_MAX_LAG];
    for (unsigned i = 0; i < n; i++) {
        both[i] = tail[i];
    }
    for (unsigned j = 0; j < m; j++) {
        both[n + j] = later_tail[j];
    }
    unsigned keep = n + m < FA_MAX_LAG ? n + m : FA_MAX_LAG;
    for (unsigned k = 0; k < keep; k++) {
        tail[k] = both[n + m - keep + k];
    }
}

/* Counts a pair of rounds `lag` apart (1..10) that share `shared` numbers. */
FA_DEVICE static void fa_count_overlap(fa_keno_counts *c, unsigned lag, unsigned shared) {
    if (lag == 1) {
        FA_ADD(&c->overlap[shared], 1u);
    } else {
        FA_ADD(&c->lag_overlap[(lag - 2u) * (FA_DRAWN + 1) + shared], 1u);
    }
}

/* Joins `later`, the edges of the `later_rounds` rounds that directly follow the `*rounds`
 * rounds whose edges are `e`: counts into `c` the overlaps of the round pairs at most ten
 * apart that straddle the join, and makes `e` the edges of both (`tally::window::Window::
 * join`, which the host uses on the segments this returns). */
FA_DEVICE static void fa_keno_join(fa_keno_edges *e, uint64_t *rounds, const fa_keno_edges *later,
                                   uint64_t later_rounds, fa_keno_counts *c) {
    unsigned n = *rounds < FA_MAX_LAG ? (unsigned)*rounds : FA_MAX_LAG;
    unsigned m = later_rounds < FA_MAX_LAG ? (unsigned)later_rounds : FA_MAX_LAG;
    /* tail[i] is n - i rounds before the join, head[j] j + 1 after it. */
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = 0; j < m && n - i + j <= FA_MAX_LAG; j++) {
            fa_count_overlap(c, n - i + j, FA_POPCOUNT(e->tail[i] & later->head[j]));
        }
    }
    fa_join_window(e->head, e->tail, n, later->head, later->tail, m);
    *rounds += later_rounds;
}

/* Tallies the Keno rounds `start .. start + count` of one seed pair, in nonce order, into
 * `c` (added to what it holds) and `e` (written): exactly the counts `tally::KenoTally`
 * records for those rounds. `start + count` must not pass 2^64. */
FA_DEVICE static void fa_keno_run(const uint8_t *server, fa_len server_len, const uint8_t *client,
                                  fa_len client_len, uint64_t start, uint64_t count, fa_keno_counts *c,
                                  fa_keno_edges *e) {
    /* The last ten rounds' bit sets, a ring: `at` is where the next goes. */
    uint64_t recent[FA_MAX_LAG];
    unsigned held = 0, at = 0;
    /* Stream counters, kept here and added once at the end. */
    uint64_t rejections[FA_DRAWN] = {0};
    uint64_t words = 0, beyond = 0, most = 0;
    fa_midstate midstate;
    midstate.valid = 0;
    for (uint64_t i = 0; i < count; i++) {
        fa_words w;
        fa_round_words(&w, server, server_len, client, client_len, start + i, &midstate);
        uint8_t draw[FA_DRAWN];
        uint32_t rejected[FA_DRAWN];
        fa_keno_draw(&w, draw, rejected);
        uint64_t mask = 0;
        for (unsigned d = 0; d < FA_DRAWN; d++) {
            mask |= 1ull << draw[d];
            FA_ADD(&c->positions[d * FA_GRID + draw[d] - 1u], 1u);
            rejections[d] += rejected[d];
        }
        unsigned hits = 0;
        for (unsigned k = 0; k < FA_DRAWN; k++) {
            hits += (unsigned)(mask >> FA_PICK_ORDER[k]) & 1u;
            FA_ADD(&c->hits[k * (FA_DRAWN + 1) + hits], 1u);
        }
        /* Pair {a, b}, a < b, is at lo * (79 - lo) / 2 + (b - a - 1), lo = a - 1
         * (tally::keno::pair_index). */
        uint64_t rest = mask;
        while (rest != 0) {
            unsigned a = FA_LOWEST_BIT(rest);
            rest &= rest - 1;
            unsigned row = (a - 1u) * (2u * FA_GRID - a) / 2u;
            uint64_t partners = rest;
            while (partners != 0) {
                unsigned b = FA_LOWEST_BIT(partners);
                partners &= partners - 1;
                FA_ADD(&c->pairs[row + b - a - 1u], 1u);
            }
        }
        for (unsigned lag = 1; lag <= held; lag++) {
            fa_count_overlap(c, lag, FA_POPCOUNT(mask & recent[(at + FA_MAX_LAG - lag) % FA_MAX_LAG]));
        }
        if (i < FA_MAX_LAG) {
            e->head[i] = mask;
        }
        recent[at] = mask;
        at = (at + 1u) % FA_MAX_LAG;
        held += held < FA_MAX_LAG;
        words += w.used;
        beyond += w.used > FA_KENO_REFERENCE_WORDS;
        most = most > w.used ? most : w.used;
    }
    for (unsigned j = 0; j < held; j++) {
        e->tail[j] = recent[(at + FA_MAX_LAG - held + j) % FA_MAX_LAG];
    }
    if (count > 0) {
        for (unsigned d = 0; d < FA_DRAWN; d++) {
            FA_ADD(&c->rejections[d], rejections[d]);
        }
        FA_ADD(&c->rounds, count);
        FA_ADD(&c->words, words);
        FA_ADD(&c->beyond_reference_words, beyond);
        FA_MAX(&c->max_words_in_round, most);
    }
}

/* Roulette: its counters that fit a block's shared memory (41 KB), laid out as
 * `fairaudit::device::RouletteCounts` (`tally::RouletteTally` names them the same). The
 * pairs of spins 1..10 apart are 10 * 38 * 38 more cells (116 KB): too many for shared
 * memory beside two blocks a multiprocessor, so they are counted straight into the
 * launch's totals in global memory, a table per lag, `(lag - 1) * P * P + a * P + b` for
 * a wheel of P pockets. A European wheel leaves the 38th pocket's cells unused. */
#define FA_POCKETS 38u
#define FA_RUN_CAP 32u
#define FA_GAP_CAP 128u
#define FA_PAIR_CELLS (FA_MAX_LAG * FA_POCKETS * FA_POCKETS)
/* Words the operator's published verifier generates for a spin. */
#define FA_ROULETTE_REFERENCE_WORDS 2u
/* A position no spin holds: a pocket not seen in the segment. */
#define FA_NONE 0xffffffffffffffffull

typedef struct {
    uint64_t pockets[FA_POCKETS];
    uint64_t colour_runs[3 * FA_RUN_CAP];
    uint64_t low_high_runs[3 * FA_RUN_CAP];
    uint64_t gaps[FA_POCKETS * (FA_GAP_CAP + 1)];
    uint64_t rejections;
    uint64_t rounds;
    uint64_t words;
    uint64_t beyond_reference_words;
    uint64_t max_words_in_round;
} fa_roulette_counts;

/* The open first and last run of a segment's symbols (`tally::runs::OpenRuns`, whose
 * length is the segment's). */
typedef struct {
    uint64_t first;
    uint64_t prefix;
    uint64_t last;
    uint64_t suffix;
} fa_open_runs;

/* A segment's edge state: its first and last (up to) ten pockets, the open runs of colour
 * and of low/high, and where each pocket first and last fell (positions in the segment,
 * FA_NONE for a pocket it does not hold): what segments are joined with. */
typedef struct {
    uint64_t head[FA_MAX_LAG];
    uint64_t tail[FA_MAX_LAG];
    fa_open_runs colour;
    fa_open_runs low_high;
    uint64_t first[FA_POCKETS];
    uint64_t last[FA_POCKETS];
} fa_roulette_edges;

/* Bit p set: pocket p is red (SPEC section 5). */
#define FA_RED_POCKETS 0x154aad52aaull

/* The colour of a pocket (0 red, 1 black, 2 green: 0 and 00) and its low/high symbol (0
 * for 1..18, 1 for 19..36, 2 for 0 and 00), as `tally::roulette` numbers them. */
FA_DEVICE static unsigned fa_colour(unsigned pocket) {
    return pocket == 0u || pocket == 37u ? 2u : (unsigned)((FA_RED_POCKETS >> pocket) & 1u) ^ 1u;
}

FA_DEVICE static unsigned fa_low_high(unsigned pocket) {
    return pocket == 0u || pocket == 37u ? 2u : pocket <= 18u ? 0u : 1u;
}

/* Counts a closed run of `length` spins of `symbol` (lengths from FA_RUN_CAP share a bucket). */
FA_DEVICE static void fa_count_run(uint64_t *hist, uint64_t symbol, uint64_t length) {
    uint64_t bucket = length < FA_RUN_CAP ? length : FA_RUN_CAP;
    FA_ADD(&hist[symbol * FA_RUN_CAP + bucket - 1u], 1u);
}

/* The next symbol of a segment that holds `len` symbols before it
 * (`tally::runs::RunLengths::record`). */
FA_DEVICE static void fa_run_record(fa_open_runs *o, uint64_t len, unsigned symbol, uint64_t *hist) {
    if (len == 0) {
        o->first = o->last = symbol;
        o->prefix = o->suffix = 1;
        return;
    }
    if (symbol == o->last) {
        o->prefix += o->prefix == len;
        o->suffix++;
        return;
    }
    if (o->prefix != len) {
        fa_count_run(hist, o->last, o->suffix);
    }
    o->last = symbol;
    o->suffix = 1;
}

/* Joins the open runs `b` of the `b_len` symbols that directly follow the `a_len` of `a`
 * (both at least one), counting the runs the join closes (`RunLengths::append`). */
FA_DEVICE static void fa_run_join(fa_open_runs *a, uint64_t a_len, const fa_open_runs *b, uint64_t b_len,
                                  uint64_t *hist) {
    int a_single = a->prefix == a_len, b_single = b->prefix == b_len;
    uint64_t prefix = a->prefix, suffix = b->suffix;
    if (a->last == b->first) {
        uint64_t joined = a->suffix + b->prefix;
        if (a_single && b_single) {
            prefix = suffix = joined;
        } else if (a_single) {
            prefix = joined;
        } else if (b_single) {
            suffix = joined;
        } else {
            fa_count_run(hist, a->last, joined);
        }
    } else {
        if (!a_single) {
            fa_count_run(hist, a->last, a->suffix);
        }
        if (!b_single) {
            fa_count_run(hist, b->first, b->prefix);
        }
    }
    a->prefix = prefix;
    a->last = b->last;
    a->suffix = suffix;
}

/* Counts a gap of `gap` spins before a repeat of `pocket` (gaps from FA_GAP_CAP share a bucket). */
FA_DEVICE static void fa_count_gap(fa_roulette_counts *c, unsigned pocket, uint64_t gap) {
    FA_ADD(&c->gaps[pocket * (FA_GAP_CAP + 1) + (gap < FA_GAP_CAP ? gap : FA_GAP_CAP)], 1u);
}

/* Joins `later`, the edges of the `later_rounds` spins that directly follow the `*rounds`
 * spins whose edges are `e`: counts the pairs at most ten apart that straddle the join into
 * `pairs`, and the runs and gaps it closes into `c`, and makes `e` the edges of both
 * (`tally::RouletteTally::append`, which the host uses on the segments this returns). */
FA_DEVICE static void fa_roulette_join(fa_roulette_edges *e, uint64_t *rounds, const fa_roulette_edges *later,
                                       uint64_t later_rounds, uint32_t pockets, fa_roulette_counts *c,
                                       uint64_t *pairs) {
    if (*rounds == 0) {
        *e = *later;
        *rounds = later_rounds;
        return;
    }
    unsigned n = *rounds < FA_MAX_LAG ? (unsigned)*rounds : FA_MAX_LAG;
    unsigned m = later_rounds < FA_MAX_LAG ? (unsigned)later_rounds : FA_MAX_LAG;
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = 0; j < m && n - i + j <= FA_MAX_LAG; j++) {
            uint64_t lag = n - i + j;
            FA_ADD(&pairs[((lag - 1u) * pockets + e->tail[i]) * pockets + later->head[j]], 1u);
        }
    }
    fa_join_window(e->head, e->tail, n, later->head, later->tail, m);
    fa_run_join(&e->colour, *rounds, &later->colour, later_rounds, c->colour_runs);
    fa_run_join(&e->low_high, *rounds, &later->low_high, later_rounds, c->low_high_runs);
    const uint64_t offset = *rounds;
    for (unsigned p = 0; p < pockets; p++) {
        if (e->last[p] != FA_NONE && later->first[p] != FA_NONE) {
            fa_count_gap(c, p, offset - 1u - e->last[p] + later->first[p]);
        }
        if (e->first[p] == FA_NONE && later->first[p] != FA_NONE) {
            e->first[p] = later->first[p] + offset;
        }
        if (later->last[p] != FA_NONE) {
            e->last[p] = later->last[p] + offset;
        }
    }
    *rounds += later_rounds;
}

/* Tallies the spins `start .. start + count` of one seed pair on a wheel of `pockets`, in
 * nonce order: the counts `tally::RouletteTally` records for them added into `c` and
 * `pairs`, their edges written to `e`. `start + count` must not pass 2^64. */
FA_DEVICE static void fa_roulette_run(const uint8_t *server, fa_len server_len, const uint8_t *client,
                                      fa_len client_len, uint64_t start, uint64_t count, uint32_t pockets,
                                      fa_roulette_counts *c, uint64_t *pairs, fa_roulette_edges *e) {
    /* The last ten pockets, a ring: `at` is where the next goes. */
    uint8_t recent[FA_MAX_LAG];
    unsigned held = 0, at = 0;
    /* Where each pocket last fell in the run. */
    uint64_t last[FA_POCKETS];
    for (unsigned p = 0; p < FA_POCKETS; p++) {
        last[p] = FA_NONE;
        e->first[p] = FA_NONE;
    }
    /* The open runs, kept here (not in `e`, which is global memory on a device) and
     * written once at the end. */
    fa_open_runs colour = {0, 0, 0, 0}, low_high = {0, 0, 0, 0};
    uint64_t rejections = 0, words = 0, beyond = 0, most = 0;
    fa_midstate midstate;
    midstate.valid = 0;
    for (uint64_t i = 0; i < count; i++) {
        fa_words w;
        fa_round_words(&w, server, server_len, client, client_len, start + i, &midstate);
        uint32_t rejected = 0;
        unsigned pocket = fa_sample(&w, pockets, &rejected);
        FA_ADD(&c->pockets[pocket], 1u);
        for (unsigned lag = 1; lag <= held; lag++) {
            unsigned before = recent[(at + FA_MAX_LAG - lag) % FA_MAX_LAG];
            FA_ADD(&pairs[((lag - 1u) * pockets + before) * pockets + pocket], 1u);
        }
        if (i < FA_MAX_LAG) {
            e->head[i] = pocket;
        }
        recent[at] = (uint8_t)pocket;
        at = (at + 1u) % FA_MAX_LAG;
        held += held < FA_MAX_LAG;
        fa_run_record(&colour, i, fa_colour(pocket), c->colour_runs);
        fa_run_record(&low_high, i, fa_low_high(pocket), c->low_high_runs);
        if (last[pocket] != FA_NONE) {
            fa_count_gap(c, pocket, i - last[pocket] - 1u);
        } else {
            e->first[pocket] = i;
        }
        last[pocket] = i;
        rejections += rejected;
        words += w.used;
        beyond += w.used > FA_ROULETTE_REFERENCE_WORDS;
        most = most > w.used ? most : w.used;
    }
    for (unsigned j = 0; j < held; j++) {
        e->tail[j] = recent[(at + FA_MAX_LAG - held + j) % FA_MAX_LAG];
    }
    for (unsigned p = 0; p < FA_POCKETS; p++) {
        e->last[p] = last[p];
    }
    e->colour = colour;
    e->low_high = low_high;
    if (count > 0) {
        FA_ADD(&c->rejections, rejections);
        FA_ADD(&c->rounds, count);
        FA_ADD(&c->words, words);
        FA_ADD(&c->beyond_reference_words, beyond);
        FA_MAX(&c->max_words_in_round, most);
    }
}

#ifdef __CUDACC__
/* Zeroes a block's `n` counter cells in shared memory, each of the block's threads a share
 * of them, and waits for all of them: the counting starts after. */
__device__ static void fa_zero_block(uint64_t *cells, unsigned n) {
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
        cells[i] = 0;
    }
    __syncthreads();
}

/* Adds a block's `n` counter cells to the launch's totals, each of the block's threads a
 * share of them: the cell at `most_at` (the most words in a round) by its maximum. */
__device__ static void fa_flush(uint64_t *sums, const uint64_t *cells, unsigned n, unsigned most_at) {
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
        if (i == most_at) {
            FA_MAX(&sums[i], cells[i]);
        } else if (cells[i] != 0) {
            FA_ADD(&sums[i], cells[i]);
        }
    }
}

/* The runs of `per_thread` nonces that cover `len`: ceil(len / per_thread), without
 * overflow. Thread `t` of a launch has a run when t < runs, of this many nonces: */
__device__ static uint64_t fa_runs(uint64_t len, uint64_t per_thread) {
    return len / per_thread + (len % per_thread != 0);
}

__device__ static uint64_t fa_run_length(uint64_t len, uint64_t per_thread, uint64_t t) {
    return len - t * per_thread < per_thread ? len - t * per_thread : per_thread;
}

/* The device sweep of the Keno rounds `start .. end`. Thread `t` of the grid tallies the
 * run of `per_thread` rounds from `start + t * per_thread` (fewer at the end; none past
 * it), counting into its block's shared counters and leaving the run's edges in
 * `run_edges[t]`. Thread 0 of each block then joins its block's runs in order into
 * `block_edges[b]`, counting the overlaps across them, and the block adds its counters to
 * `totals` once. The host joins the blocks as it joins any segments: so it holds one edge
 * state per block, not per thread. Launched in blocks of 256 threads (device/cuda.rs), two
 * blocks resident a multiprocessor: at most 128 registers a thread, which ptxas meets
 * with a few hundred bytes of spills (without the bound it takes 200, and one block fits). */
extern "C" __global__ void __launch_bounds__(256, 2) fa_keno_sweep(const uint8_t *server, fa_len server_len, const uint8_t *client,
                                         fa_len client_len, uint64_t start, uint64_t end,
                                         uint64_t per_thread, fa_keno_counts *totals, fa_keno_edges *run_edges,
                                         fa_keno_edges *block_edges) {
    __shared__ fa_keno_counts block;
    uint64_t *cells = (uint64_t *)&block;
    const unsigned n = sizeof(fa_keno_counts) / sizeof(uint64_t);
    fa_zero_block(cells, n);
    const uint64_t len = end - start;
    const uint64_t runs = fa_runs(len, per_thread);
    const uint64_t first_thread = (uint64_t)blockIdx.x * blockDim.x;
    const uint64_t thread = first_thread + threadIdx.x;
    if (thread < runs) {
        uint64_t count = fa_run_length(len, per_thread, thread);
        fa_keno_run(server, server_len, client, client_len, start + thread * per_thread, count, &block,
                    &run_edges[thread]);
    }
    __syncthreads();
    if (threadIdx.x == 0 && first_thread < runs) {
        fa_keno_edges joined = {{0}, {0}};
        uint64_t rounds = 0;
        for (uint64_t t = first_thread; t < first_thread + blockDim.x && t < runs; t++) {
            uint64_t count = fa_run_length(len, per_thread, t);
            fa_keno_join(&joined, &rounds, &run_edges[t], count, &block);
        }
        block_edges[blockIdx.x] = joined;
    }
    __syncthreads();
    fa_flush((uint64_t *)totals, cells, n, (unsigned)(&block.max_words_in_round - cells));
}

/* The device sweep of the spins `start .. end` on a wheel of `pockets`, as fa_keno_sweep
 * sweeps Keno: a run per thread, the block's counters in shared memory, its runs joined by
 * its thread 0; the pairs of spins counted straight into `pairs` (FA_PAIR_CELLS cells). */
extern "C" __global__ void __launch_bounds__(256, 2) fa_roulette_sweep(const uint8_t *server, fa_len server_len, const uint8_t *client,
                                         fa_len client_len, uint64_t start, uint64_t end,
                                         uint64_t per_thread, uint32_t pockets, fa_roulette_counts *totals,
                                         uint64_t *pairs, fa_roulette_edges *run_edges,
                                         fa_roulette_edges *block_edges) {
    __shared__ fa_roulette_counts block;
    uint64_t *cells = (uint64_t *)&block;
    const unsigned n = sizeof(fa_roulette_counts) / sizeof(uint64_t);
    fa_zero_block(cells, n);
    const uint64_t len = end - start;
    const uint64_t runs = fa_runs(len, per_thread);
    const uint64_t first_thread = (uint64_t)blockIdx.x * blockDim.x;
    const uint64_t thread = first_thread + threadIdx.x;
    if (thread < runs) {
        uint64_t count = fa_run_length(len, per_thread, thread);
        fa_roulette_run(server, server_len, client, client_len, start + thread * per_thread, count, pockets,
                        &block, pairs, &run_edges[thread]);
    }
    __syncthreads();
    if (threadIdx.x == 0 && first_thread < runs) {
        uint64_t rounds = 0;
        fa_roulette_edges *joined = &block_edges[blockIdx.x];
        for (uint64_t t = first_thread; t < first_thread + blockDim.x && t < runs; t++) {
            uint64_t count = fa_run_length(len, per_thread, t);
            fa_roulette_join(joined, &rounds, &run_edges[t], count, pockets, &block, pairs);
        }
    }
    __syncthreads();
    fa_flush((uint64_t *)totals, cells, n, (unsigned)(&block.max_words_in_round - cells));
}
#else
/* Host entry points: the CPU build's, for tests and the `cpu-kernel` device. */

/* The round signature of `server:client:nonce` as 64 hex characters. */
void fa_round_signature(const uint8_t *server, fa_len server_len, const uint8_t *client, fa_len client_len,
                        uint64_t nonce, uint8_t hex[64]) {
    fa_midstate fresh;
    fresh.valid = 0;
    uint64_t digest[4], lanes[8];
    fa_signature(server, server_len, client, client_len, nonce, digest, &fresh);
    fa_hex_lanes(digest, lanes);
    for (unsigned i = 0; i < 64; i++) {
        hex[i] = (uint8_t)(lanes[i / 8] >> (8 * (i % 8)));
    }
}

/* A Keno round: the ten numbers (1..40) in draw order, and the words it consumed. */
void fa_keno_round(const uint8_t *server, fa_len server_len, const uint8_t *client, fa_len client_len,
                   uint64_t nonce, uint8_t draw[10], uint32_t *used) {
    fa_words w;
    fa_midstate fresh;
    fresh.valid = 0;
    fa_round_words(&w, server, server_len, client, client_len, nonce, &fresh);
    uint32_t rejected[FA_DRAWN];
    fa_keno_draw(&w, draw, rejected);
    *used = w.used;
}

/* A roulette spin among `pockets` (37 European, 38 American: 37 is "00"), and the words
 * it consumed. */
void fa_roulette_round(const uint8_t *server, fa_len server_len, const uint8_t *client, fa_len client_len,
                       uint64_t nonce, uint32_t pockets, uint32_t *pocket, uint32_t *used) {
    fa_words w;
    fa_midstate fresh;
    fresh.valid = 0;
    fa_round_words(&w, server, server_len, client, client_len, nonce, &fresh);
    uint32_t rejected = 0;
    *pocket = fa_sample(&w, pockets, &rejected);
    *used = w.used;
}

/* The Keno rounds `start .. start + count` tallied into `counts` (added) and `edges`
 * (written) in runs of `per_run`, each as one device thread tallies its run, joined in
 * order as thread 0 of a block joins its threads' runs. */
void fa_keno_tally_runs(const uint8_t *server, fa_len server_len, const uint8_t *client, fa_len client_len,
                        uint64_t start, uint64_t count, uint64_t per_run, fa_keno_counts *counts,
                        fa_keno_edges *edges) {
    fa_keno_edges joined = {{0}, {0}};
    uint64_t rounds = 0;
    for (uint64_t done = 0; done < count; done += per_run) {
        uint64_t run = count - done < per_run ? count - done : per_run;
        fa_keno_edges one;
        fa_keno_run(server, server_len, client, client_len, start + done, run, counts, &one);
        fa_keno_join(&joined, &rounds, &one, run, counts);
    }
    *edges = joined;
}

/* The spins `start .. start + count` on a wheel of `pockets` tallied into `counts` and
 * `pairs` (added) and `edges` (written) in runs of `per_run`, as fa_keno_tally_runs
 * tallies Keno. */
void fa_roulette_tally_runs(const uint8_t *server, fa_len server_len, const uint8_t *client, fa_len client_len,
                            uint64_t start, uint64_t count, uint64_t per_run, uint32_t pockets,
                            fa_roulette_counts *counts, uint64_t *pairs, fa_roulette_edges *edges) {
    uint64_t rounds = 0;
    for (uint64_t done = 0; done < count; done += per_run) {
        uint64_t run = count - done < per_run ? count - done : per_run;
        fa_roulette_edges one = {{0}, {0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0}, {0}};
        fa_roulette_run(server, server_len, client, client_len, start + done, run, pockets, counts, pairs, &one);
        fa_roulette_join(edges, &rounds, &one, run, pockets, counts, pairs);
    }
}
#endif
