/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which log to read (locate.h): a file or pipe as given, or the newest file of a folder.
 */
#include "base/config.h"
#include "input/locate.h"
#include "base/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool is_log_name(const char *name)
{
    return name[0] != '.';
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* A name PyTorch gives its logs (TORCH_TRACE writes dedicated_log_torch_trace_*.log), or a
 * log's extension: a folder's other files (notes, scripts) are not taken over them. */
static bool looks_like_log(const char *name)
{
    return strstr(name, "torch_trace") || ends_with(name, ".log") || ends_with(name, ".log.gz") ||
           ends_with(name, ".log.zst");
}

/* The best candidate so far of one tier (log-like names, or any file). */
struct pick {
    char *path;
    struct timespec t;
};

/* Whether a file of time t named p beats the pick: newer; ties: the name that sorts last. */
static bool beats(const struct pick *k, const struct timespec *t, const char *p)
{
    if (!k->path)
        return true;
    if (t->tv_sec != k->t.tv_sec)
        return t->tv_sec > k->t.tv_sec;
    if (t->tv_nsec != k->t.tv_nsec)
        return t->tv_nsec > k->t.tv_nsec;
    return strcmp(p, k->path) > 0;
}

/* Offer the file p (taken over) to the pick; frees what loses. */
static void offer(struct pick *k, char *p, const struct timespec *t)
{
    if (beats(k, t, p)) {
        free(k->path);
        k->path = p;
        k->t = *t;
    } else {
        free(p);
    }
}

/* The newest regular file of dir whose name looks like a log, else the newest of all (ties:
 * the name that sorts last). */
static int newest_in(const char *dir, char **out, size_t *others, struct tl_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return tl_error_code(err, TL_ERR_INPUT, "Couldn't access directory %s: %s", dir,
                             strerror(errno));
    struct dirent *e;
    struct pick logs = {NULL, {0, 0}}, any = {NULL, {0, 0}};
    size_t count = 0;
    while ((e = readdir(d))) {
        if (!is_log_name(e->d_name))
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = tl_xmalloc(len);
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        count++;
        if (looks_like_log(e->d_name))
            offer(&logs, p, &st.st_mtim);
        else
            offer(&any, p, &st.st_mtim);
    }
    closedir(d);
    if (logs.path) {
        free(any.path);
        *out = logs.path;
    } else if (any.path) {
        *out = any.path;
    } else {
        return tl_error_code(err, TL_ERR_INPUT, "No files found in directory %s", dir);
    }
    *others = count - 1;
    return 0;
}

int tl_input_locate(const char *path_in, bool latest, char **path, long *others_out,
                    struct tl_err *err)
{
    struct stat st;
    *others_out = -1;
    if (!strcmp(path_in, "-") && !latest) {
        *path = tl_xstrdup("/dev/stdin");
        return 0;
    }
    if (stat(path_in, &st) < 0) {
        if (latest)
            return tl_error_code(err, TL_ERR_INPUT,
                                 "Input path %s is not a directory (required when using "
                                 "--latest)",
                                 path_in);
        return tl_error_code(err, TL_ERR_INPUT, "cannot open %s: %s", path_in, strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) {
        size_t others = 0;
        if (newest_in(path_in, path, &others, err) < 0)
            return -1;
        *others_out = (long)others;
        return 0;
    }
    if (latest)
        return tl_error_code(err, TL_ERR_INPUT,
                             "Input path %s is not a directory (required when using --latest)",
                             path_in);
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
        return tl_error_code(err, TL_ERR_INPUT, "%s is not a file", path_in);
    *path = tl_xstrdup(path_in);
    return 0;
}
