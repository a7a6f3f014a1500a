/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The insertion-ordered hash map: entries in an array, open addressing over their indices,
 * grown at a load factor of three quarters; and the project's string hashes.
 */
#include "base/config.h"
#include "base/map.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

static inline uint64_t rd64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

uint64_t tl_hash(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0x100000001b3ULL);
    while (n >= 8) {
        h = (h ^ mix(rd64(p))) * 0x100000001b3ULL;
        p += 8;
        n -= 8;
    }
    uint64_t tail = 0;
    for (size_t i = 0; i < n; i++)
        tail |= (uint64_t)p[i] << (8 * i);
    h = (h ^ mix(tail ^ n)) * 0x100000001b3ULL;
    return mix(h);
}

static inline uint64_t rd32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint64_t rotl(uint64_t x, int r)
{
    return x << r | x >> (64 - r);
}

/* Odd 64-bit multipliers (the golden ratio's, and two of xxHash's primes). */
#define K1 0x9e3779b97f4a7c15ULL
#define K2 0xc2b2ae3d27d4eb4fULL
#define K3 0x165667b19e3779f9ULL

/* One 8-byte word into a lane: the multiply mixes low bits upward, the rotation brings the
 * high ones down for the next word. */
static inline uint64_t lane(uint64_t v, uint64_t w)
{
    return rotl((v ^ w) * K1, 31);
}

uint64_t tl_map_hash(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = (uint64_t)n * K2;
    if (n <= 16) {
        /* Two words that cover the key, overlapping when it is shorter than 16 bytes. */
        uint64_t a = 0, b = 0;
        if (n >= 8) {
            a = rd64(p);
            b = rd64(p + n - 8);
        } else if (n >= 4) {
            a = rd32(p);
            b = rd32(p + n - 4);
        } else if (n) {
            a = (uint64_t)p[0] << 16 | (uint64_t)p[n / 2] << 8 | p[n - 1];
        }
        return mix(lane(h ^ a, rotl(b * K3, 29)));
    }
    const unsigned char *end = p + n;
    uint64_t v0 = h ^ K1, v1 = h ^ K2, v2 = h ^ K3, v3 = ~h;
    for (; end - p >= 32; p += 32) {
        v0 = lane(v0, rd64(p));
        v1 = lane(v1, rd64(p + 8));
        v2 = lane(v2, rd64(p + 16));
        v3 = lane(v3, rd64(p + 24));
    }
    h = rotl(v0, 1) + rotl(v1, 7) + rotl(v2, 12) + rotl(v3, 18);
    for (; end - p >= 8; p += 8)
        h = lane(h, rd64(p));
    if (p < end) /* the last bytes, in the word that ends the key (n > 16) */
        h = lane(h, rd64(end - 8) * K3);
    return mix(h);
}

void tl_map_init(struct tl_map *m, struct tl_arena *arena)
{
    memset(m, 0, sizeof(*m));
    m->arena = arena;
}

void tl_map_release(struct tl_map *m)
{
    free(m->entries);
    free(m->slots);
    m->entries = NULL;
    m->slots = NULL;
    m->len = m->alloc = m->nslots = 0;
}

static void rehash(struct tl_map *m, size_t nslots)
{
    free(m->slots);
    m->slots = tl_xcalloc(nslots, sizeof(*m->slots));
    m->nslots = nslots;
    for (size_t i = 0; i < m->len; i++) {
        size_t s = m->entries[i].hash & (nslots - 1);
        while (m->slots[s])
            s = (s + 1) & (nslots - 1);
        m->slots[s] = (uint32_t)(i + 1);
    }
}

static uint32_t *find_slot(const struct tl_map *m, struct tl_str key, uint64_t h)
{
    size_t s = h & (m->nslots - 1);
    for (;;) {
        uint32_t idx = m->slots[s];
        if (!idx)
            return &m->slots[s];
        const struct tl_map_entry *e = &m->entries[idx - 1];
        if (e->hash == h && tl_str_eq(e->key, key))
            return &m->slots[s];
        s = (s + 1) & (m->nslots - 1);
    }
}

void *tl_map_get(const struct tl_map *m, struct tl_str key)
{
    if (!m->len)
        return NULL;
    uint32_t *slot = find_slot(m, key, tl_map_hash(key.p, key.n));
    return *slot ? m->entries[*slot - 1].value : NULL;
}

struct tl_map_entry *tl_map_upsert(struct tl_map *m, struct tl_str key, int *created)
{
    if ((m->len + 1) * 4 >= m->nslots * 3)
        rehash(m, m->nslots ? m->nslots * 2 : 16);
    if (m->len >= UINT32_MAX - 1)
        tl_die_oom();
    uint64_t h = tl_map_hash(key.p, key.n);
    uint32_t *slot = find_slot(m, key, h);
    if (*slot) {
        if (created)
            *created = 0;
        return &m->entries[*slot - 1];
    }
    TL_GROW(m->entries, m->len + 1, m->alloc);
    struct tl_map_entry *e = &m->entries[m->len];
    e->key = tl_arena_str(m->arena, key);
    e->hash = h;
    e->value = NULL;
    *slot = (uint32_t)(++m->len);
    if (created)
        *created = 1;
    return e;
}

void tl_map_put(struct tl_map *m, struct tl_str key, void *value)
{
    tl_map_upsert(m, key, NULL)->value = value;
}
