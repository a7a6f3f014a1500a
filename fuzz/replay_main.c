/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A plain main() for the fuzz targets: runs LLVMFuzzerTestOneInput once on
 * every file named on the command line and on every file below every folder
 * named there (recursively, in byte order of the paths), so a corpus doubles
 * as a regression suite without libFuzzer (and with gcc). A target's own
 * LLVMFuzzerInitialize runs first when it has one. A failed check aborts, as
 * under libFuzzer; an unreadable path is an error (exit 1).
 *
 *   replay_<name> fuzz/corpus/<name> [more files or folders...]
 */
#include "base/config.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* The stderr we started with: a target may silence stderr in its initialiser. */
static FILE *out_err;

struct list {
    char **v;
    size_t n, cap;
};

static void push(struct list *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof(*l->v));
        if (!l->v) {
            fprintf(out_err, "replay: out of memory\n");
            exit(1);
        }
    }
    l->v[l->n++] = s;
}

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p) {
        fprintf(out_err, "replay: out of memory\n");
        exit(1);
    }
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

/* Add path, or every regular file below it. Returns -1 on an unreadable path. */
static int collect(struct list *l, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        fprintf(out_err, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (S_ISREG(st.st_mode)) {
            char *copy = strdup(path);
            if (!copy) {
                fprintf(out_err, "replay: out of memory\n");
                exit(1);
            }
            push(l, copy);
        }
        return 0;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(out_err, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue; /* ".", "..", and hidden files such as .gitkeep */
        char *sub = join(path, e->d_name);
        if (collect(l, sub) < 0)
            rc = -1;
        free(sub);
    }
    closedir(d);
    return rc;
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(out_err, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            uint8_t *nb = realloc(buf, cap);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        fprintf(out_err, "replay: %s: cannot read\n", path);
        free(buf);
        return -1;
    }
    /* An exact-size copy, so a read past the end is caught by ASan. */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    out_err = stderr;
    if (argc < 2) {
        fprintf(out_err, "usage: %s FILE_OR_FOLDER...\n", argv[0]);
        return 2;
    }
    struct list files = {NULL, 0, 0};
    int rc = 0;
    for (int i = 1; i < argc; i++)
        if (collect(&files, argv[i]) < 0)
            rc = 1;
    if (files.n)
        qsort(files.v, files.n, sizeof(*files.v), cmp_path);
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    size_t done = 0;
    for (size_t i = 0; i < files.n; i++) {
        if (getenv("REPLAY_VERBOSE"))
            fprintf(out_err, "replay: %s\n", files.v[i]);
        if (run_file(files.v[i]) < 0)
            rc = 1;
        else
            done++;
        free(files.v[i]);
    }
    free(files.v);
    printf("replay: %zu inputs\n", done);
    return rc;
}
