/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MD5 (RFC 1321) of many messages in eight AVX2 lanes, or one by one with libmd.
 *
 * Written here because no Debian library hashes many independent messages at once (libmd,
 * nettle and OpenSSL take one at a time, all at the speed of one dependent chain of steps;
 * Intel's multi-buffer libraries are not packaged with a plain MD5). The lanes hold eight
 * messages; each round of the loop compresses one 64-byte block of every busy lane, read from
 * the message itself, or for its last one or two blocks from a small buffer holding the tail
 * with the padding and the length. A lane that ends takes the next message at once, so long
 * and short messages mix without waiting for each other. Idle lanes hash a block of zeros
 * whose result is thrown away.
 */
#include "base/config.h"
#include "base/md5.h"

#include "base/xalloc.h"

#include <md5.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The widest lanes allowed: 2 AVX-512, 1 AVX2, 0 none (tl_md5_set_lanes). */
static atomic_int widest = 2;

void tl_md5_to_hex(const uint8_t digest[16], char hex[33])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    hex[32] = '\0';
}

void tl_md5_hex(const void *p, size_t n, char hex[33])
{
    struct tl_md5_msg m = {p, n, {0}};
    tl_md5_many(&m, 1);
    tl_md5_to_hex(m.digest, hex);
}

static void one_by_one(struct tl_md5_msg *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        MD5_CTX ctx;
        MD5Init(&ctx);
        MD5Update(&ctx, m[i].p, m[i].n);
        MD5Final(m[i].digest, &ctx);
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define LANES 16

/* floor(|sin(i + 1)| * 2^32), RFC 1321 section 3.4 */
static const uint32_t K[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static const uint32_t INIT[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};

struct lane {
    struct tl_md5_msg *msg; /* NULL: idle */
    const uint8_t *body;    /* the next whole block of the message */
    size_t body_blocks;     /* whole blocks left in the message */
    unsigned tail_blocks;   /* blocks left in tail once the body is done: 1 or 2 */
    unsigned tail_at;       /* the next block of tail */
    uint8_t tail[128];      /* the message's last bytes, 0x80, zeros, the bit length */
};

static void lane_take(struct lane *l, struct tl_md5_msg *m)
{
    l->msg = m;
    l->body = m->p;
    l->body_blocks = m->n / 64;
    size_t rest = m->n % 64;
    l->tail_blocks = rest < 56 ? 1 : 2;
    l->tail_at = 0;
    memset(l->tail, 0, sizeof(l->tail));
    if (rest)
        memcpy(l->tail, (const uint8_t *)m->p + m->n - rest, rest);
    l->tail[rest] = 0x80;
    uint64_t bits = (uint64_t)m->n * 8;
    uint8_t *len = l->tail + 64 * l->tail_blocks - 8;
    for (int i = 0; i < 8; i++)
        len[i] = (uint8_t)(bits >> (8 * i));
}

/* The block a busy lane hashes next. */
static const uint8_t *lane_block(const struct lane *l)
{
    return l->body_blocks ? l->body : l->tail + 64 * l->tail_at;
}

/* The lane's block is hashed: true if that was its message's last one. */
static bool lane_advance(struct lane *l)
{
    if (l->body_blocks) {
        l->body += 64;
        l->body_blocks--;
        return false;
    }
    return ++l->tail_at == l->tail_blocks;
}

#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx2,avx512f")))

/* Eight rows of eight words, transposed: out[i] holds word i of every row. */
AVX2 static inline void transpose8(const __m256i r[8], __m256i out[8])
{
    __m256i t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);     /* words 0 1 | 4 5 of rows i, i+1 */
        t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]); /* words 2 3 | 6 7 */
    }
    for (int i = 0; i < 8; i += 4) {
        u[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);         /* word 0 | 4 of rows i..i+3 */
        u[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);     /* word 1 | 5 */
        u[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]); /* word 2 | 6 */
        u[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]); /* word 3 | 7 */
    }
    for (int i = 0; i < 4; i++) {
        out[i] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x20);
        out[i + 4] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x31);
    }
}

/* One 64-byte block of lanes first..first+7: word i of every lane's block into w[i]. */
AVX2 static inline void transpose(const uint8_t *const blk[LANES], int first, __m256i w[16])
{
    for (int half = 0; half < 2; half++) {
        __m256i r[8];
        for (int k = 0; k < 8; k++)
            r[k] = _mm256_loadu_si256((const __m256i *)(const void *)(blk[first + k] + 32 * half));
        transpose8(r, w + 8 * half);
    }
}

/*
 * The 64 steps, for a vector type: a = b + ((a + f(b, c, d) + w[g] + K[i]) <<< s). Round 1
 * takes word g = i, round 2 (5i + 1) % 16, round 3 (3i + 5) % 16, round 4 7i % 16.
 */
#define ROUNDS(STEP, F, G, H, I)                                                                   \
    do {                                                                                           \
        for (int i = 0; i < 16; i += 4) {                                                          \
            STEP(F, a, b, c, d, i, i, 7);                                                          \
            STEP(F, d, a, b, c, i + 1, i + 1, 12);                                                 \
            STEP(F, c, d, a, b, i + 2, i + 2, 17);                                                 \
            STEP(F, b, c, d, a, i + 3, i + 3, 22);                                                 \
        }                                                                                          \
        for (int i = 16; i < 32; i += 4) {                                                         \
            STEP(G, a, b, c, d, i, (5 * i + 1) % 16, 5);                                           \
            STEP(G, d, a, b, c, i + 1, (5 * i + 6) % 16, 9);                                       \
            STEP(G, c, d, a, b, i + 2, (5 * i + 11) % 16, 14);                                     \
            STEP(G, b, c, d, a, i + 3, (5 * i + 16) % 16, 20);                                     \
        }                                                                                          \
        for (int i = 32; i < 48; i += 4) {                                                         \
            STEP(H, a, b, c, d, i, (3 * i + 5) % 16, 4);                                           \
            STEP(H, d, a, b, c, i + 1, (3 * i + 8) % 16, 11);                                      \
            STEP(H, c, d, a, b, i + 2, (3 * i + 11) % 16, 16);                                     \
            STEP(H, b, c, d, a, i + 3, (3 * i + 14) % 16, 23);                                     \
        }                                                                                          \
        for (int i = 48; i < 64; i += 4) {                                                         \
            STEP(I, a, b, c, d, i, (7 * i) % 16, 6);                                               \
            STEP(I, d, a, b, c, i + 1, (7 * i + 7) % 16, 10);                                      \
            STEP(I, c, d, a, b, i + 2, (7 * i + 14) % 16, 15);                                     \
            STEP(I, b, c, d, a, i + 3, (7 * i + 21) % 16, 21);                                     \
        }                                                                                          \
    } while (0)

/* AVX2: sixteen lanes as two independent vectors of eight, whose steps interleave (one chain
 * of dependent steps alone leaves most of the vector units idle). */
#define ADD2(x, y) _mm256_add_epi32(x, y)
#define ROTL2(x, s) _mm256_or_si256(_mm256_slli_epi32(x, s), _mm256_srli_epi32(x, 32 - (s)))
/* F = d ^ (b & (c ^ d)); G = c ^ (d & (b ^ c)); H = b ^ c ^ d; I = c ^ (b | ~d) */
#define F2(b, c, d) _mm256_xor_si256(d, _mm256_and_si256(b, _mm256_xor_si256(c, d)))
#define G2(b, c, d) _mm256_xor_si256(c, _mm256_and_si256(d, _mm256_xor_si256(b, c)))
#define H2(b, c, d) _mm256_xor_si256(_mm256_xor_si256(b, c), d)
#define I2(b, c, d) _mm256_xor_si256(c, _mm256_or_si256(b, _mm256_xor_si256(d, ones)))
#define STEP2(f, a, b, c, d, i, g, s)                                                              \
    do {                                                                                           \
        __m256i k_ = _mm256_set1_epi32((int)K[i]);                                                 \
        for (int h = 0; h < 2; h++)                                                                \
            a[h] = ADD2(b[h], ROTL2(ADD2(ADD2(a[h], f(b[h], c[h], d[h])), ADD2(w[h][g], k_)), s)); \
    } while (0)

AVX2 static void compress_avx2(uint32_t st[4][LANES], const uint8_t *const blk[LANES])
{
    __m256i w[2][16];
    transpose(blk, 0, w[0]);
    transpose(blk, 8, w[1]);
    const __m256i ones = _mm256_set1_epi32(-1);
    __m256i a[2], b[2], c[2], d[2];
    for (int h = 0; h < 2; h++) {
        a[h] = _mm256_loadu_si256((const __m256i *)(const void *)(st[0] + 8 * h));
        b[h] = _mm256_loadu_si256((const __m256i *)(const void *)(st[1] + 8 * h));
        c[h] = _mm256_loadu_si256((const __m256i *)(const void *)(st[2] + 8 * h));
        d[h] = _mm256_loadu_si256((const __m256i *)(const void *)(st[3] + 8 * h));
    }
    __m256i a0[2] = {a[0], a[1]}, b0[2] = {b[0], b[1]}, c0[2] = {c[0], c[1]}, d0[2] = {d[0], d[1]};
    ROUNDS(STEP2, F2, G2, H2, I2);
    for (int h = 0; h < 2; h++) {
        _mm256_storeu_si256((__m256i *)(void *)(st[0] + 8 * h), ADD2(a0[h], a[h]));
        _mm256_storeu_si256((__m256i *)(void *)(st[1] + 8 * h), ADD2(b0[h], b[h]));
        _mm256_storeu_si256((__m256i *)(void *)(st[2] + 8 * h), ADD2(c0[h], c[h]));
        _mm256_storeu_si256((__m256i *)(void *)(st[3] + 8 * h), ADD2(d0[h], d[h]));
    }
}

/* AVX-512: sixteen lanes in one vector; a rotation is one instruction, each round's function
 * one ternary-logic instruction (the immediate is the function's truth table). */
#define ADD5(x, y) _mm512_add_epi32(x, y)
#define F5(b, c, d) _mm512_ternarylogic_epi32(b, c, d, 0xca)
#define G5(b, c, d) _mm512_ternarylogic_epi32(b, c, d, 0xe4)
#define H5(b, c, d) _mm512_ternarylogic_epi32(b, c, d, 0x96)
#define I5(b, c, d) _mm512_ternarylogic_epi32(b, c, d, 0x39)
#define STEP5(f, a, b, c, d, i, g, s)                                                              \
    a = ADD5(b, _mm512_rol_epi32(                                                                  \
                    ADD5(ADD5(a, f(b, c, d)), ADD5(w[g], _mm512_set1_epi32((int)K[i]))), s))

AVX512 static void compress_avx512(uint32_t st[4][LANES], const uint8_t *const blk[LANES])
{
    __m256i lo[16], hi[16];
    transpose(blk, 0, lo);
    transpose(blk, 8, hi);
    __m512i w[16];
    for (int i = 0; i < 16; i++)
        w[i] = _mm512_inserti64x4(_mm512_castsi256_si512(lo[i]), hi[i], 1);
    __m512i a = _mm512_loadu_si512(st[0]), b = _mm512_loadu_si512(st[1]),
            c = _mm512_loadu_si512(st[2]), d = _mm512_loadu_si512(st[3]);
    __m512i a0 = a, b0 = b, c0 = c, d0 = d;
    ROUNDS(STEP5, F5, G5, H5, I5);
    _mm512_storeu_si512(st[0], ADD5(a0, a));
    _mm512_storeu_si512(st[1], ADD5(b0, b));
    _mm512_storeu_si512(st[2], ADD5(c0, c));
    _mm512_storeu_si512(st[3], ADD5(d0, d));
}

typedef void compress_fn(uint32_t st[4][LANES], const uint8_t *const blk[LANES]);

/* A message's place in the order of in_lanes: 0 for the longest lengths (bit length 64), 64
 * for the empty ones. */
static int rank_of(const struct tl_md5_msg *m)
{
    return m->n ? __builtin_clzll((unsigned long long)m->n) : 64;
}

/*
 * The messages go into the lanes longest first, or nearly (by their length's highest bit, a
 * counting sort): taken in the order given, a long message that comes late runs on alone
 * while the other lanes idle.
 */
static void in_lanes(struct tl_md5_msg *m, size_t n, compress_fn *compress)
{
    static const uint8_t zeros[64];
    struct tl_md5_msg *few[256], **order = n <= 256 ? few : tl_xmalloc(n * sizeof(*order));
    size_t at[66] = {0}; /* at[r + 1]: how many of rank r; then at[r]: where rank r goes */
    for (size_t i = 0; i < n; i++)
        at[rank_of(&m[i]) + 1]++;
    for (int r = 1; r < 66; r++)
        at[r] += at[r - 1];
    for (size_t i = 0; i < n; i++)
        order[at[rank_of(&m[i])]++] = &m[i];
    struct lane lane[LANES];
    uint32_t st[4][LANES]; /* word j of lane k's state: st[j][k] */
    size_t next = 0;
    int busy = 0;
    for (int k = 0; k < LANES; k++)
        lane[k].msg = NULL;
    for (;;) {
        for (int k = 0; busy < LANES && k < LANES && next < n; k++) {
            if (lane[k].msg)
                continue;
            lane_take(&lane[k], order[next++]);
            for (int j = 0; j < 4; j++)
                st[j][k] = INIT[j];
            busy++;
        }
        if (!busy)
            break;
        const uint8_t *blk[LANES];
        for (int k = 0; k < LANES; k++)
            blk[k] = lane[k].msg ? lane_block(&lane[k]) : zeros;
        compress(st, blk);
        for (int k = 0; k < LANES; k++) {
            if (!lane[k].msg || !lane_advance(&lane[k]))
                continue;
            for (int j = 0; j < 4; j++)
                for (int b = 0; b < 4; b++)
                    lane[k].msg->digest[4 * j + b] = (uint8_t)(st[j][k] >> (8 * b));
            lane[k].msg = NULL;
            busy--;
        }
    }
    if (order != few)
        free(order);
}

static bool has(int width)
{
    return width == 0 || (width == 1 && __builtin_cpu_supports("avx2")) ||
           (width == 2 && __builtin_cpu_supports("avx512f"));
}

/* The widest lanes this CPU has and are allowed (NULL: none). */
static compress_fn *lanes(void)
{
    int w = atomic_load(&widest);
    while (w > 0 && !has(w))
        w--;
    return w == 2 ? compress_avx512 : w == 1 ? compress_avx2 : NULL;
}

static const char *const NAMES[] = {"none", "avx2", "avx512"};

const char *tl_md5_lanes(void)
{
    compress_fn *f = lanes();
    return NAMES[f == compress_avx512 ? 2 : f == compress_avx2 ? 1 : 0];
}

bool tl_md5_set_lanes(const char *name)
{
    for (int w = 0; w < 3; w++)
        if (!strcmp(name, NAMES[w])) {
            if (!has(w))
                return false;
            atomic_store(&widest, w);
            return true;
        }
    return false;
}

void tl_md5_many(struct tl_md5_msg *m, size_t n)
{
    /* One message alone would take a lane no faster than libmd takes it. */
    compress_fn *f = n > 1 ? lanes() : NULL;
    if (f)
        in_lanes(m, n, f);
    else
        one_by_one(m, n);
}

#else

const char *tl_md5_lanes(void)
{
    return "none";
}

bool tl_md5_set_lanes(const char *name)
{
    return !strcmp(name, "none");
}

void tl_md5_many(struct tl_md5_msg *m, size_t n)
{
    one_by_one(m, n);
}

#endif
