/*
 * The sweep's round kernel in plain C: the round signature (SHA3-256 of `S:C:n`), the
 * SHAKE256 words of its hex text, rejection sampling, and the Keno draw or the roulette
 * spin, exactly as SPEC.md states them and as the Rust path (`fairaudit::chain`,
 * `sampler`, `games`) computes them.
 *
 * Why C and by hand: the same source is to run on a GPU (compiled there by NVRTC, with
 * FA_DEVICE defined as `__device__`) and, here, on the CPU through build.rs and the `cc`
 * crate with FA_DEVICE defined away, so that its logic is tested against the Rust path on
 * every machine, with or without a GPU. No crate provides a device kernel; the Keccak
 * permutation below follows FIPS 202 (its round constants, rotation offsets and lane
 * order are the standard's).
 *
 * No allocation, no library calls: a device thread has neither.
 */

#include <stddef.h>
#include <stdint.h>

#ifndef FA_DEVICE
#define FA_DEVICE
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

FA_DEVICE static void fa_absorb(fa_sponge *s, const uint8_t *bytes, size_t len) {
    for (size_t i = 0; i < len; i++) {
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

FA_DEVICE static uint8_t fa_state_byte(const uint64_t st[25], unsigned k) {
    return (uint8_t)(st[k / 8] >> (8 * (k % 8)));
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
    uint32_t word = 0;
    for (unsigned i = 0; i < 4; i++) {
        word = (word << 8) | fa_state_byte(w->sponge.st, w->next + i);
    }
    w->next += 4;
    w->used++;
    return word;
}

/* sample(P): words at or above floor(2^32 / P) * P are rejected (and consumed). */
FA_DEVICE static uint32_t fa_sample(fa_words *w, uint32_t outcomes) {
    uint64_t limit = (4294967296ull / outcomes) * outcomes;
    for (;;) {
        uint32_t r = fa_next_word(w);
        if ((uint64_t)r < limit) {
            return r % outcomes;
        }
    }
}

/* The round signature's hex text: SHA3-256 of `server:client:nonce`, nonce in decimal. */
FA_DEVICE static void fa_signature_hex(const uint8_t *server, size_t server_len, const uint8_t *client,
                                       size_t client_len, uint64_t nonce, uint8_t hex[64]) {
    static const char digits_hex[16] = {'0', '1', '2', '3', '4', '5', '6', '7',
                                        '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};
    const uint8_t colon = ':';
    uint8_t digits[20];
    unsigned count = 0;
    do {
        digits[19 - count++] = (uint8_t)('0' + nonce % 10);
        nonce /= 10;
    } while (nonce > 0);
    fa_sponge h;
    fa_sponge_start(&h);
    fa_absorb(&h, server, server_len);
    fa_absorb(&h, &colon, 1);
    fa_absorb(&h, client, client_len);
    fa_absorb(&h, &colon, 1);
    fa_absorb(&h, digits + 20 - count, count);
    fa_finish(&h, 0x06);
    for (unsigned i = 0; i < 32; i++) {
        uint8_t byte = fa_state_byte(h.st, i);
        hex[2 * i] = (uint8_t)digits_hex[byte >> 4];
        hex[2 * i + 1] = (uint8_t)digits_hex[byte & 15];
    }
}

FA_DEVICE static void fa_round_words(fa_words *w, const uint8_t *server, size_t server_len,
                                     const uint8_t *client, size_t client_len, uint64_t nonce) {
    uint8_t hex[64];
    fa_signature_hex(server, server_len, client, client_len, nonce, hex);
    fa_sponge_start(&w->sponge);
    fa_absorb(&w->sponge, hex, 64);
    fa_finish(&w->sponge, 0x1f);
    w->next = 0;
    w->used = 0;
}

/* The round signature of `server:client:nonce` as 64 hex characters. */
void fa_round_signature(const uint8_t *server, size_t server_len, const uint8_t *client, size_t client_len,
                        uint64_t nonce, uint8_t hex[64]) {
    fa_signature_hex(server, server_len, client, client_len, nonce, hex);
}

/* A Keno round: the ten numbers (1..40) in draw order, and the words it consumed. */
void fa_keno_round(const uint8_t *server, size_t server_len, const uint8_t *client, size_t client_len,
                   uint64_t nonce, uint8_t draw[10], uint32_t *used) {
    fa_words w;
    fa_round_words(&w, server, server_len, client, client_len, nonce);
    uint8_t left[40];
    for (unsigned i = 0; i < 40; i++) {
        left[i] = (uint8_t)(i + 1);
    }
    uint32_t remaining = 40;
    for (unsigned d = 0; d < 10; d++) {
        uint32_t index = fa_sample(&w, remaining);
        draw[d] = left[index];
        for (uint32_t j = index; j + 1 < remaining; j++) {
            left[j] = left[j + 1];
        }
        remaining--;
    }
    *used = w.used;
}

/* A roulette spin among `pockets` (37 European, 38 American: 37 is "00"), and the words
 * it consumed. */
void fa_roulette_round(const uint8_t *server, size_t server_len, const uint8_t *client, size_t client_len,
                       uint64_t nonce, uint32_t pockets, uint32_t *pocket, uint32_t *used) {
    fa_words w;
    fa_round_words(&w, server, server_len, client, client_len, nonce);
    *pocket = fa_sample(&w, pockets);
    *used = w.used;
}
