/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * String views: a pointer and a length, not NUL-terminated, never owning.
 * Used for everything sliced out of the input. Depends on scan.h (its search).
 */
#ifndef TL_STR_H
#define TL_STR_H

#include "base/scan.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct tl_str {
    const char *p;
    size_t n;
};

#define TL_STR_NULL ((struct tl_str){NULL, 0})
#define TL_STR_LIT(s) ((struct tl_str){(s), sizeof(s) - 1})

static inline struct tl_str tl_str_make(const char *p, size_t n)
{
    struct tl_str s = {p, n};
    return s;
}

static inline struct tl_str tl_str_cstr(const char *p)
{
    return tl_str_make(p, strlen(p));
}

static inline bool tl_str_eq(struct tl_str a, struct tl_str b)
{
    /* The first bytes first: most unequal strings of one length differ there. */
    return a.n == b.n && (a.n == 0 || (a.p[0] == b.p[0] && memcmp(a.p, b.p, a.n) == 0));
}

static inline bool tl_str_eq_cstr(struct tl_str a, const char *b)
{
    return tl_str_eq(a, tl_str_cstr(b));
}

static inline bool tl_str_has_prefix(struct tl_str a, const char *prefix)
{
    size_t n = strlen(prefix);
    return a.n >= n && memcmp(a.p, prefix, n) == 0;
}

static inline bool tl_str_has_suffix(struct tl_str a, const char *suffix)
{
    size_t n = strlen(suffix);
    return a.n >= n && memcmp(a.p + a.n - n, suffix, n) == 0;
}

/** Position of the first occurrence of needle in hay, or -1. */
static inline long tl_str_find(struct tl_str hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 0;
    const char *r = tl_scan_find(hay.p, hay.n, needle, n);
    return r ? (long)(r - hay.p) : -1;
}

/** The length of a path without its trailing slashes ("dir/" and "dir//" as "dir"); a path of
 * slashes only keeps one ("/"). */
static inline size_t tl_path_len(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    return n;
}

/** How much of dir goes before the '/' that joins a name to it: dir without its trailing
 * slashes, none of "/" ("%.*s/%s" then gives "dir/name" and "/name"). */
static inline int tl_path_dir_len(const char *dir)
{
    size_t n = tl_path_len(dir);
    return (int)(n == 1 && dir[0] == '/' ? 0 : n);
}

#endif
