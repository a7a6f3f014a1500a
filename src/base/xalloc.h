/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allocation wrappers that abort with a message on out-of-memory, so no caller
 * checks for NULL (the cmark/jq rule). Depends on nothing but libc.
 */
#ifndef TL_XALLOC_H
#define TL_XALLOC_H

#include <stddef.h>

/** malloc that never returns NULL; caller frees with free(). */
void *tl_xmalloc(size_t n);
/** calloc that never returns NULL and checks nmemb * size for overflow. */
void *tl_xcalloc(size_t nmemb, size_t size);
/** realloc that never returns NULL. */
void *tl_xrealloc(void *p, size_t n);
/** reallocarray: realloc of nmemb * size bytes, overflow-checked. */
void *tl_xreallocarray(void *p, size_t nmemb, size_t size);
/** strdup that never returns NULL; caller frees. */
char *tl_xstrdup(const char *s);
/** Copy of n bytes plus a NUL; caller frees. */
char *tl_xmemdupz(const void *p, size_t n);
/** Abort with "tlparse: fatal: out of memory". */
void tl_die_oom(void);

/** Grow *items (of *alloc elements of size sz) to hold at least need elements. */
#define TL_GROW(items, need, alloc)                                                                \
    do {                                                                                           \
        if ((need) > (alloc)) {                                                                    \
            size_t tl_grow_n_ = (alloc) ? (alloc)*2 : 8;                                           \
            while (tl_grow_n_ < (need))                                                            \
                tl_grow_n_ *= 2;                                                                   \
            (items) = tl_xreallocarray((items), tl_grow_n_, sizeof(*(items)));                     \
            (alloc) = tl_grow_n_;                                                                  \
        }                                                                                          \
    } while (0)

#endif
