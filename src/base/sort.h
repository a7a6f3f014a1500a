/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A stable sort with qsort's interface. Every order the report shows goes through it, so that
 * elements that compare equal keep the order they were found in, on any C library: glibc's
 * qsort is a merge sort (stable) unless its buffer cannot be allocated, when it falls back to
 * an unstable one; musl's and wasi-libc's (the web build) are smoothsort, unstable. A report
 * must be the same bytes wherever it is made. Depends on xalloc.
 */
#ifndef TL_SORT_H
#define TL_SORT_H

#include <stddef.h>

/**
 * Sort n elements of size bytes at base by cmp, stably (equal elements keep their order).
 * Uses a buffer of n * size bytes (aborts when out of memory, as the xalloc wrappers do).
 */
void tl_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
