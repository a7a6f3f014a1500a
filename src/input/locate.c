/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which log to read (locate.h): a file or pipe as given, or the newest file of a folder.
 */
#include "base/config.h"
#include "input/locate.h"
#include "base/str.h"
#include "base/xalloc.h"
#include "input/reader.h"
#include "input/sniff.h"
#include "base/sort.h"

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

/* A file of the folder that may be its log. */
struct cand {
    char *path;
    const char *name; /* in path */
    struct timespec t;
    bool log_name; /* named like a log */
};

/* Log-like names first, then the newest; ties: the name that sorts last. */
static int cmp_cand(const void *pa, const void *pb)
{
    const struct cand *a = pa, *b = pb;
    if (a->log_name != b->log_name)
        return a->log_name ? -1 : 1;
    if (a->t.tv_sec != b->t.tv_sec)
        return a->t.tv_sec > b->t.tv_sec ? -1 : 1;
    if (a->t.tv_nsec != b->t.tv_nsec)
        return a->t.tv_nsec > b->t.tv_nsec ? -1 : 1;
    return -strcmp(a->path, b->path);
}

/* An error message, cut to fit why (a NUL-terminated copy, as much as fits). */
static void copy_why(char *why, size_t whylen, const char *msg)
{
    size_t n = strnlen(msg, whylen - 1);
    memcpy(why, msg, n);
    why[n] = '\0';
}

/* Whether the file is a log by its first lines (sniff.h): a trace, TORCH_LOGS text, or an
 * empty file named like a log (a trace of a process that compiled nothing yet). */
static bool is_log(const struct cand *c, char *why, size_t whylen)
{
    struct tl_reader *r;
    struct tl_err err;
    if (tl_reader_open(&r, c->path, &err) < 0) {
        copy_why(why, whylen, err.msg);
        return false;
    }
    const char *p;
    size_t n;
    enum tl_sniff_kind kind = TL_SNIFF_NOT_LOG;
    if (tl_reader_peek(r, TL_SNIFF_WINDOW, &p, &n, &err) < 0)
        copy_why(why, whylen, err.msg);
    else
        kind = tl_sniff(p, n, n < TL_SNIFF_WINDOW, why, whylen);
    tl_reader_free(r);
    if (kind == TL_SNIFF_EMPTY && !c->log_name)
        snprintf(why, whylen, "it is empty");
    return kind == TL_SNIFF_TRACE || kind == TL_SNIFF_TEXT ||
           (kind == TL_SNIFF_EMPTY && c->log_name);
}

/* The newest log of dir: of the regular files whose name looks like a log, else of the
 * others, the newest (ties: the name that sorts last) whose first lines are a log's. */
static int newest_in(const char *dir, char **out, size_t *others, struct tl_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return tl_error_code(err, TL_ERR_INPUT, "Couldn't access directory %s: %s", dir,
                             strerror(errno));
    struct dirent *e;
    struct cand *c = NULL;
    size_t n = 0, cap = 0;
    while ((e = readdir(d))) {
        if (!is_log_name(e->d_name))
            continue;
        int dlen = tl_path_dir_len(dir); /* "dir/" and "dir" alike: "dir/name" */
        size_t len = (size_t)dlen + strlen(e->d_name) + 2;
        char *p = tl_xmalloc(len);
        snprintf(p, len, "%.*s/%s", dlen, dir, e->d_name);
        struct stat st;
        if (stat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            c = tl_xrealloc(c, cap * sizeof(*c));
        }
        c[n].path = p;
        c[n].name = p + dlen + 1;
        c[n].t = st.st_mtim;
        c[n].log_name = looks_like_log(e->d_name);
        n++;
    }
    closedir(d);
    if (!n) {
        free(c);
        return tl_error_code(err, TL_ERR_INPUT, "No files found in directory %s", dir);
    }
    tl_sort(c, n, sizeof(*c), cmp_cand);
    size_t pick = n;
    char why[256], first_why[256] = "";
    const char *first_name = NULL;
    for (size_t i = 0; i < n && pick == n; i++) {
        if (is_log(&c[i], why, sizeof(why)))
            pick = i;
        else if (!first_name) {
            first_name = c[i].name;
            snprintf(first_why, sizeof(first_why), "%s", why);
        }
    }
    int rc = 0;
    if (pick < n) {
        *out = c[pick].path;
        c[pick].path = NULL;
        *others = n - 1;
    } else {
        if (n == 1)
            rc = tl_error_code(err, TL_ERR_INPUT,
                               "No log found in directory %s: %s is not a TORCH_TRACE log or "
                               "TORCH_LOGS text: %s",
                               dir, first_name, first_why);
        else
            rc = tl_error_code(err, TL_ERR_INPUT,
                               "No log found in directory %s: none of its %zu files is a "
                               "TORCH_TRACE log or TORCH_LOGS text (%s: %s)",
                               dir, n, first_name, first_why);
    }
    for (size_t i = 0; i < n; i++)
        free(c[i].path);
    free(c);
    return rc;
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
