/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tl_sort: a top-down merge sort between the array and one buffer, with runs of up to
 * SMALL elements sorted by insertion first. Written here because no libc promises a stable
 * qsort (sort.h), and no Debian library offers one for C arrays of any element size.
 */
#include "base/config.h"
#include "base/sort.h"
#include "base/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SMALL = 12 };

typedef int (*cmp_fn)(const void *, const void *);

/* Insertion sort of n elements at a, stable; tmp holds one element. */
static void insertion(char *a, size_t n, size_t size, cmp_fn cmp, char *tmp)
{
    for (size_t i = 1; i < n; i++) {
        char *x = a + i * size;
        size_t j = i;
        while (j > 0 && cmp(a + (j - 1) * size, x) > 0)
            j--;
        if (j == i)
            continue;
        memcpy(tmp, x, size);
        memmove(a + (j + 1) * size, a + j * size, (i - j) * size);
        memcpy(a + j * size, tmp, size);
    }
}

/* Merge the sorted runs src[0, mid) and src[mid, n) into dst; on a tie, the left one first. */
static void merge(const char *src, char *dst, size_t mid, size_t n, size_t size, cmp_fn cmp)
{
    size_t i = 0, j = mid, k = 0;
    while (i < mid && j < n) {
        if (cmp(src + j * size, src + i * size) < 0)
            memcpy(dst + k++ * size, src + j++ * size, size);
        else
            memcpy(dst + k++ * size, src + i++ * size, size);
    }
    if (i < mid)
        memcpy(dst + k * size, src + i * size, (mid - i) * size);
    else if (j < n)
        memcpy(dst + k * size, src + j * size, (n - j) * size);
}

/*
 * Sort the n elements of a; the result goes to a when into_a, else to b (b holds n elements
 * as scratch). Each half is sorted into the other array, then merged back: no copy per level.
 */
static void sort_into(char *a, char *b, size_t n, size_t size, cmp_fn cmp, int into_a, char *tmp)
{
    if (n <= SMALL) {
        insertion(a, n, size, cmp, tmp);
        if (!into_a)
            memcpy(b, a, n * size);
        return;
    }
    size_t mid = n / 2;
    /* the halves end where the merge reads them: in the array it does not write */
    sort_into(a, b, mid, size, cmp, !into_a, tmp);
    sort_into(a + mid * size, b + mid * size, n - mid, size, cmp, !into_a, tmp);
    if (into_a) {
        /* halves in b: the run of b already in order needs no merge */
        if (cmp(b + mid * size, b + (mid - 1) * size) >= 0)
            memcpy(a, b, n * size);
        else
            merge(b, a, mid, n, size, cmp);
    } else {
        if (cmp(a + mid * size, a + (mid - 1) * size) >= 0)
            memcpy(b, a, n * size);
        else
            merge(a, b, mid, n, size, cmp);
    }
}

void tl_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n < 2 || size == 0)
        return;
    char tmp_small[64];
    char *tmp = size <= sizeof(tmp_small) ? tmp_small : tl_xmalloc(size);
    if (n <= SMALL) {
        insertion(base, n, size, cmp, tmp);
    } else {
        char *b = tl_xreallocarray(NULL, n, size);
        sort_into(base, b, n, size, cmp, 1, tmp);
        free(b);
    }
    if (tmp != tmp_small)
        free(tmp);
}
