/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Finding the rank logs of a folder (rankfiles.h) by their names.
 */
#include "base/config.h"
#include "input/rankfiles.h"
#include "base/str.h"
#include "base/utf8.h"
#include "base/xalloc.h"
#include "base/sort.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/stat.h>

#define PREFIX "dedicated_log_torch_trace_rank_"

long tl_rank_of_name(const char *name)
{
    size_t n = strlen(name), pl = strlen(PREFIX);
    if (n < pl + 4 || strncmp(name, PREFIX, pl) != 0 || strcmp(name + n - 4, ".log") != 0)
        return -1;
    const char *p = name + pl, *end = name + n - 4;
    const char *cut = memchr(p, '_', (size_t)(end - p));
    if (cut)
        end = cut;
    if (p < end && *p == '+')
        p++;
    if (p >= end)
        return -1;
    unsigned long long v = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (unsigned long long)(*p - '0');
        if (v > UINT32_MAX)
            return -1;
    }
    return (long)v;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const struct tl_rank_log *)a)->name, ((const struct tl_rank_log *)b)->name);
}

int tl_rank_logs_find(const char *dir, bool fs_order, struct tl_rank_log **out, size_t *n,
                      struct tl_err *err)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return tl_error_code(err, TL_ERR_INPUT, "cannot read the folder %s: %s", dir,
                             strerror(errno));
    struct tl_rank_log *v = NULL;
    size_t len = 0, alloc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        long rank = tl_rank_of_name(e->d_name);
        if (rank < 0 || !tl_utf8_valid(e->d_name, strlen(e->d_name)))
            continue;
        int dlen = tl_path_dir_len(dir); /* "dir/" and "dir" alike: "dir/name" */
        size_t plen = (size_t)dlen + strlen(e->d_name) + 2;
        char *path = tl_xmalloc(plen);
        snprintf(path, plen, "%.*s/%s", dlen, dir, e->d_name);
        struct stat st;
        if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        TL_GROW(v, len + 1, alloc);
        v[len].rank = (uint32_t)rank;
        v[len].name = tl_xstrdup(e->d_name);
        v[len].path = path;
        len++;
    }
    closedir(d);
    if (!fs_order && len)
        tl_sort(v, len, sizeof(*v), cmp_name);
    *out = v;
    *n = len;
    return 0;
}

void tl_rank_logs_free(struct tl_rank_log *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(l[i].name);
        free(l[i].path);
    }
    free(l);
}

static int cmp_rank(const void *a, const void *b)
{
    const struct tl_rank_log *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

size_t tl_rank_folder_ranks(const char *path)
{
    struct stat st;
    struct tl_rank_log *logs;
    size_t n, distinct = 0;
    if (!path || stat(path, &st) < 0 || !S_ISDIR(st.st_mode) ||
        tl_rank_logs_find(path, false, &logs, &n, NULL) < 0)
        return 0;
    if (n) /* logs is NULL when there are none */
        tl_sort(logs, n, sizeof(*logs), cmp_rank);
    for (size_t i = 0; i < n; i++)
        distinct += i == 0 || logs[i].rank != logs[i - 1].rank;
    tl_rank_logs_free(logs, n);
    return distinct;
}
