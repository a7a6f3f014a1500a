/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bump-pointer arena: blocks chained from the newest, a reset keeps the first block for
 * reuse, and big requests get a block of their own.
 */
#include "base/config.h"
#include "base/arena.h"
#include "base/xalloc.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN 16

struct tl_arena_block {
    struct tl_arena_block *next;
    char *cur;
    char *end;
    bool big; /* a dedicated block for one large request */
    _Alignas(ALIGN) char space[];
};

void tl_arena_init(struct tl_arena *a, size_t block_size)
{
    a->head = NULL;
    a->block_size = block_size ? block_size : 64 * 1024;
    a->used = 0;
}

void tl_arena_release(struct tl_arena *a)
{
    struct tl_arena_block *b = a->head;
    while (b) {
        struct tl_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->used = 0;
}

void tl_arena_reset(struct tl_arena *a)
{
    /* Keep the oldest default-size block (the chain runs newest first) and
     * free the rest, dedicated big blocks included. */
    struct tl_arena_block *keep = NULL;
    for (struct tl_arena_block *b = a->head; b; b = b->next)
        if (!b->big)
            keep = b;
    struct tl_arena_block *b = a->head;
    while (b) {
        struct tl_arena_block *next = b->next;
        if (b != keep)
            free(b);
        b = next;
    }
    if (keep) {
        keep->next = NULL;
        keep->cur = keep->space;
    }
    a->head = keep;
    a->used = 0;
}

static struct tl_arena_block *new_block(size_t size)
{
    if (size > SIZE_MAX - sizeof(struct tl_arena_block))
        tl_die_oom();
    struct tl_arena_block *b = tl_xmalloc(sizeof(*b) + size);
    b->next = NULL;
    b->cur = b->space;
    b->end = b->space + size;
    b->big = false;
    return b;
}

void *tl_arena_alloc(struct tl_arena *a, size_t n)
{
    if (n > SIZE_MAX - ALIGN)
        tl_die_oom();
    n = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    a->used += n;
    struct tl_arena_block *b = a->head;
    if (b && (size_t)(b->end - b->cur) >= n) {
        void *p = b->cur;
        b->cur += n;
        return p;
    }
    if (n > a->block_size / 4) {
        /* A big request gets a block of its own, placed behind the current
         * one so that the current block keeps serving small requests. */
        struct tl_arena_block *big = new_block(n);
        big->cur = big->end;
        big->big = true;
        if (b) {
            big->next = b->next;
            b->next = big;
        } else {
            a->head = big;
        }
        return big->space;
    }
    struct tl_arena_block *nb = new_block(a->block_size);
    nb->next = b;
    a->head = nb;
    void *p = nb->cur;
    nb->cur += n;
    return p;
}

void *tl_arena_calloc(struct tl_arena *a, size_t nmemb, size_t size)
{
    if (size && nmemb > SIZE_MAX / size)
        tl_die_oom();
    void *p = tl_arena_alloc(a, nmemb * size);
    memset(p, 0, nmemb * size);
    return p;
}

char *tl_arena_memdupz(struct tl_arena *a, const void *p, size_t n)
{
    if (n == SIZE_MAX)
        tl_die_oom();
    char *d = tl_arena_alloc(a, n + 1);
    if (n)
        memcpy(d, p, n);
    d[n] = '\0';
    return d;
}

struct tl_str tl_arena_str(struct tl_arena *a, struct tl_str s)
{
    return tl_str_make(tl_arena_memdupz(a, s.p, s.n), s.n);
}

char *tl_arena_printf(struct tl_arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *d = tl_arena_alloc(a, (size_t)n + 1);
    d[0] = '\0';
    if (n)
        vsnprintf(d, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return d;
}
