/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Insertion-ordered hash map from byte strings to a value pointer (the C form
 * of Rust's IndexMap). Keys are copied into the arena given at init, values
 * are borrowed. Entries are never removed one by one; iterate in insertion
 * order with tl_map_at(). Also exports the project's two string hashes: tl_hash, whose
 * values name files, and tl_map_hash, the quicker one of tables, whose values stay inside.
 * Depends on arena and xalloc.
 */
#ifndef TL_MAP_H
#define TL_MAP_H

#include "base/config.h"
#include "base/arena.h"
#include "base/str.h"

#include <stdint.h>

struct tl_map_entry {
    struct tl_str key; /* NUL-terminated copy in the arena */
    uint64_t hash;     /* tl_map_hash of key */
    void *value;
};

struct tl_map {
    struct tl_arena *arena;
    struct tl_map_entry *entries; /* insertion order */
    size_t len, alloc;
    uint32_t *slots; /* open addressing: index + 1 into entries, 0 = empty */
    size_t nslots;
};

/**
 * 64-bit hash of n bytes (our own mix; not cryptographic). Its values are part of file names
 * (a name's "~hash" variant), so they never change.
 */
uint64_t tl_hash(const void *p, size_t n);
/**
 * 64-bit hash of n bytes for hash tables and fingerprints kept in memory: about three times
 * as quick as tl_hash on long keys (32 bytes a step, one multiply per 8). Not cryptographic;
 * its values may change between versions, so none is ever written out.
 */
uint64_t tl_map_hash(const void *p, size_t n);

/** Initialise an empty map whose keys live in arena (borrowed). */
void tl_map_init(struct tl_map *m, struct tl_arena *arena);
/** Free the tables (not the arena). */
void tl_map_release(struct tl_map *m);
/** The value stored under key, or NULL. */
void *tl_map_get(const struct tl_map *m, struct tl_str key);
/**
 * The entry for key, created with value NULL if absent (*created says which;
 * may be NULL). The pointer is valid until the next insertion.
 */
struct tl_map_entry *tl_map_upsert(struct tl_map *m, struct tl_str key, int *created);
/** Store value under key (replacing any previous value). */
void tl_map_put(struct tl_map *m, struct tl_str key, void *value);

static inline size_t tl_map_len(const struct tl_map *m)
{
    return m->len;
}

static inline struct tl_map_entry *tl_map_at(const struct tl_map *m, size_t i)
{
    return &m->entries[i];
}

#endif
