/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The helpers the unit tests share, declared in testutil.h: reading a whole file, making
 * and removing a scratch folder, counting occurrences of a text, a monotonic clock, and
 * exact comparisons of doubles. Linked into every tests/unit/test_*.c binary.
 */
#include "base/config.h"
#include "testutil.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

char *tu_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t len = 0, cap = 4096;
    char *b = malloc(cap);
    while (b) {
        if (cap - len < 2) {
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t k = fread(b + len, 1, cap - len - 1, f);
        if (k == 0)
            break;
        len += k;
    }
    if (b && ferror(f)) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (!b)
        return NULL;
    b[len] = '\0';
    if (n)
        *n = len;
    return b;
}

char *tu_slurp_in(const char *dir, const char *rel, size_t *n)
{
    size_t size = strlen(dir) + 1 + strlen(rel) + 1;
    char *path = malloc(size);
    if (!path)
        return NULL;
    snprintf(path, size, "%s/%s", dir, rel);
    char *r = tu_slurp(path, n);
    free(path);
    return r;
}

int tu_mkdtemp(char *buf, size_t size, const char *name)
{
    int w = snprintf(buf, size, "/tmp/tl-test-%s-XXXXXX", name);
    if (w < 0 || (size_t)w >= size)
        return -1;
    return mkdtemp(buf) ? 0 : -1;
}

static bool remove_failed;

static int remove_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    if (remove(path) != 0)
        remove_failed = true; /* go on with the rest, as rm -rf does */
    return 0;
}

int tu_rmtree(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) != 0 && errno == ENOENT)
        return 0; /* nothing to remove */
    remove_failed = false;
    /* children first (FTW_DEPTH); a symbolic link is removed, not followed (FTW_PHYS) */
    if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
        return -1;
    return remove_failed ? -1 : 0;
}

size_t tu_count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

double tu_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool tu_same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof(double)) == 0;
}

uint64_t tu_ulps(double a, double b)
{
    int64_t ka, kb;
    memcpy(&ka, &a, sizeof(ka));
    memcpy(&kb, &b, sizeof(kb));
    if (ka < 0)
        ka = INT64_MIN - ka;
    if (kb < 0)
        kb = INT64_MIN - kb;
    return ka > kb ? (uint64_t)ka - (uint64_t)kb : (uint64_t)kb - (uint64_t)ka;
}
