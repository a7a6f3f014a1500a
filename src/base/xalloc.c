/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Allocation wrappers that abort with a message when memory runs out, and the overflow-checked
 * growth of arrays.
 */
#include "base/config.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tl_die_oom(void)
{
    fputs("tlparse: fatal: out of memory\n", stderr);
    abort();
}

void *tl_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        tl_die_oom();
    return p;
}

void *tl_xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (!p)
        tl_die_oom();
    return p;
}

void *tl_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        tl_die_oom();
    return q;
}

void *tl_xreallocarray(void *p, size_t nmemb, size_t size)
{
    if (size && nmemb > (size_t)-1 / size)
        tl_die_oom();
    return tl_xrealloc(p, nmemb * size);
}

char *tl_xstrdup(const char *s)
{
    return tl_xmemdupz(s, strlen(s));
}

char *tl_xmemdupz(const void *p, size_t n)
{
    if (n == (size_t)-1)
        tl_die_oom();
    char *d = tl_xmalloc(n + 1);
    if (n)
        memcpy(d, p, n);
    d[n] = '\0';
    return d;
}
