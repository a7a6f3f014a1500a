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

/* The newest regular file of dir (ties: the name that sorts last). */
static int newest_in(const char *dir, char **out, size_t *others, struct tl_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return tl_error_code(err, TL_ERR_INPUT, "Couldn't access directory %s: %s", dir,
                             strerror(errno));
    struct dirent *e;
    char *best = NULL;
    struct timespec best_t = {0, 0};
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
        bool newer = !best || st.st_mtim.tv_sec > best_t.tv_sec ||
                     (st.st_mtim.tv_sec == best_t.tv_sec && st.st_mtim.tv_nsec > best_t.tv_nsec) ||
                     (st.st_mtim.tv_sec == best_t.tv_sec && st.st_mtim.tv_nsec == best_t.tv_nsec &&
                      strcmp(p, best) > 0);
        if (newer) {
            free(best);
            best = p;
            best_t = st.st_mtim;
        } else {
            free(p);
        }
    }
    closedir(d);
    if (!best)
        return tl_error_code(err, TL_ERR_INPUT, "No files found in directory %s", dir);
    *out = best;
    *others = count - 1;
    return 0;
}

int tl_input_locate(const char *path_in, bool latest, char **path, long *others_out,
                    struct tl_err *err)
{
    struct stat st;
    *others_out = -1;
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
