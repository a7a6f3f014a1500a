/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Temporary report folders left behind by runs that were killed (kill -9, the OOM killer,
 * a power cut): each run records its owner (host, pid and the process's start time) in
 * .tlparse-owner inside its folder, and a later run into the same place removes the ones
 * whose process is gone. A folder of another host, or of a live process, is never touched;
 * one without an owner file (an older tlparse, or a run in its first instant) only once it
 * has not changed for ten minutes.
 */
#include "base/config.h"
#include "output/leftovers.h"
#include "base/buf.h"
#include "output/writer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    int r = (flag == FTW_DP || flag == FTW_D) ? rmdir(path) : unlink(path);
    return r < 0 && errno != ENOENT ? -1 : 0;
}

int tl_remove_tree(const char *path)
{
    return nftw(path, rm_entry, 32, FTW_DEPTH | FTW_PHYS);
}

#define OWNER ".tlparse-owner"
#define ORPHAN_AGE_S (10 * 60)

/* The start time of a process in clock ticks since boot (/proc/PID/stat field 22), 0 if
 * unknown: with the pid, it names a process even after its pid is reused. */
static uint64_t start_time(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* The command name, in parentheses, may hold spaces and parentheses itself. */
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    /* Fields 3.. follow; the start time is field 22. */
    for (int field = 2; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

static void host(char *out, size_t n)
{
    if (gethostname(out, n) < 0)
        snprintf(out, n, "?");
    out[n - 1] = '\0';
    for (char *c = out; *c; c++)
        if (*c == ' ' || *c == '\n')
            *c = '_';
}

int tl_owner_write(int dirfd)
{
    char h[256], line[400];
    host(h, sizeof(h));
    long pid = (long)getpid();
    int n = snprintf(line, sizeof(line), "%s %ld %" PRIu64 "\n", h, pid, start_time(pid));
    int fd = openat(dirfd, OWNER, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    int rc = tl_write_all(fd, line, (size_t)n);
    if (close(fd) < 0)
        rc = -1;
    return rc;
}

void tl_owner_remove(int dirfd)
{
    unlinkat(dirfd, OWNER, 0);
}

enum owner_state { OWNER_ALIVE, OWNER_GONE, OWNER_UNKNOWN };

static enum owner_state owner_of(int dirfd, const char *name)
{
    char path[PATH_MAX], buf[400], me[256], h[256];
    snprintf(path, sizeof(path), "%s/" OWNER, name);
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return OWNER_UNKNOWN;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    long pid;
    uint64_t started;
    if (n <= 0)
        return OWNER_UNKNOWN;
    buf[n] = '\0';
    if (sscanf(buf, "%255s %ld %" SCNu64, h, &pid, &started) != 3 || pid <= 0)
        return OWNER_UNKNOWN;
    host(me, sizeof(me));
    if (strcmp(h, me) != 0)
        return OWNER_ALIVE; /* another machine's run: we cannot tell */
    if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
        return OWNER_GONE;
    uint64_t now = start_time(pid);
    if (started && now && now != started)
        return OWNER_GONE; /* the pid was reused by another process */
    return OWNER_ALIVE;
}

/* Whether name is ".<base>.tlparse-XXXXXX", a temporary folder of a run into base. */
static bool is_ours(const char *name, const char *base)
{
    size_t bl = strlen(base);
    static const char tag[] = ".tlparse-";
    return name[0] == '.' && !strncmp(name + 1, base, bl) &&
           !strncmp(name + 1 + bl, tag, sizeof(tag) - 1) &&
           strlen(name + 1 + bl + sizeof(tag) - 1) == 6;
}

size_t tl_leftovers_remove(const char *dir, const char *base, struct tl_buf *names)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_ours(e->d_name, base))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        enum owner_state s = owner_of(dirfd(d), e->d_name);
        if (s == OWNER_ALIVE || (s == OWNER_UNKNOWN && time(NULL) - st.st_mtime < ORPHAN_AGE_S))
            continue;
        struct tl_buf path = TL_BUF_INIT;
        tl_buf_addf(&path, "%s/%s", dir, e->d_name);
        if (tl_remove_tree(path.buf) == 0) {
            removed++;
            if (names) {
                if (names->len)
                    tl_buf_adds(names, ", ");
                tl_buf_adds(names, e->d_name);
            }
        }
        tl_buf_release(&path);
    }
    closedir(d);
    return removed;
}
