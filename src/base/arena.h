/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bump-pointer arena (after git's mem-pool). Two lifetimes are used: a run
 * arena for what the whole run needs (interned names, compile ids), and a
 * scratch arena reset after every log entry (the envelope's JSON tree).
 * Memory from an arena is never freed one piece at a time; it is borrowed
 * until tl_arena_reset() or tl_arena_release(). Depends only on xalloc.
 */
#ifndef TL_ARENA_H
#define TL_ARENA_H

#include "base/config.h"
#include "base/str.h"

#include <stddef.h>

struct tl_arena_block;

struct tl_arena {
    struct tl_arena_block *head; /* current block; older ones follow ->next */
    size_t block_size;           /* default size of a new block */
    size_t used;                 /* bytes handed out since init/reset, for stats */
};

/** Initialise an empty arena whose blocks are block_size bytes (0: 64 KiB). */
void tl_arena_init(struct tl_arena *a, size_t block_size);
/** Free every block. The arena may be reused after tl_arena_init(). */
void tl_arena_release(struct tl_arena *a);
/** Forget every allocation but keep the first block for reuse. */
void tl_arena_reset(struct tl_arena *a);
/** n bytes aligned for any type; borrowed until reset/release. Never NULL. */
void *tl_arena_alloc(struct tl_arena *a, size_t n);
/** Zeroed tl_arena_alloc of nmemb * size bytes (overflow-checked). */
void *tl_arena_calloc(struct tl_arena *a, size_t nmemb, size_t size);
/** Copy of p[0..n) plus a NUL, in the arena. */
char *tl_arena_memdupz(struct tl_arena *a, const void *p, size_t n);
/** Copy of a view plus a NUL, returned as a view of the copy. */
struct tl_str tl_arena_str(struct tl_arena *a, struct tl_str s);
/** printf into the arena; returns the NUL-terminated text. */
char *tl_arena_printf(struct tl_arena *a, const char *fmt, ...) TL_PRINTF(2, 3);

#endif
