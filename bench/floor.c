/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The floor of `make bench`: what the kernel needs to do for a report, with no parsing or
 * rendering at all. It reads the log once and writes the same files, of the same sizes, as a
 * report of tlparse did:
 *
 *     floor LOG OUTDIR MANIFEST
 *
 * MANIFEST lists the report's files, one "SIZE<TAB>PATH" a line (PATH relative to OUTDIR, as
 * `find REPORT -type f -printf '%s\t%P\n'` writes it); OUTDIR must not exist. The files are
 * made in the manifest's order, their folders as needed, their bytes taken from the log as it
 * is read in 1 MiB blocks (its last block again once it is all read). raw.log, when its size
 * is the log's, is copied by the kernel (copy_file_range), as tlparse copies it.
 * bench/run.sh builds it (cc -O2) and times it beside tlparse; it is no part of the library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK (1 << 20)

static void die(const char *what, const char *path)
{
    fprintf(stderr, "floor: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

/* The log, read once in blocks: the bytes the files are made of. */
struct source {
    int fd;
    char *buf;
    size_t len, pos;
    int eof;
    const char *path;
};

static void refill(struct source *s)
{
    if (!s->eof) {
        ssize_t n;
        do
            n = read(s->fd, s->buf, BLOCK);
        while (n < 0 && errno == EINTR);
        if (n < 0)
            die("read", s->path);
        if (n == 0)
            s->eof = 1;
        else
            s->len = (size_t)n;
    }
    if (s->len == 0) { /* an empty log: zeros */
        memset(s->buf, 0, BLOCK);
        s->len = BLOCK;
    }
    s->pos = 0;
}

static void write_all(int fd, const char *p, size_t n, const char *path)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            die("write", path);
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Make the folders of rel (relative to dirfd) that the file before it did not share. */
static void make_parents(int dirfd, char *rel, char *made, size_t made_len)
{
    char *slash = strrchr(rel, '/');
    if (!slash)
        return;
    size_t dlen = (size_t)(slash - rel);
    if (dlen == strlen(made) && memcmp(rel, made, dlen) == 0)
        return;
    for (char *p = strchr(rel, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        if (mkdirat(dirfd, rel, 0755) < 0 && errno != EEXIST)
            die("mkdir", rel);
        *p = '/';
    }
    if (dlen < made_len) {
        memcpy(made, rel, dlen);
        made[dlen] = '\0';
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: floor LOG OUTDIR MANIFEST\n");
        return 2;
    }
    const char *log = argv[1], *outdir = argv[2];
    FILE *manifest = fopen(argv[3], "r");
    if (!manifest)
        die("open", argv[3]);
    struct source src = {.path = log, .buf = malloc(BLOCK)};
    src.fd = open(log, O_RDONLY | O_CLOEXEC);
    if (src.fd < 0 || !src.buf)
        die("open", log);
    posix_fadvise(src.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    struct stat st;
    if (fstat(src.fd, &st) < 0)
        die("stat", log);
    if (mkdir(outdir, 0755) < 0)
        die("mkdir", outdir);
    int dirfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        die("open", outdir);
    refill(&src);

    char line[8192], made[4096] = "";
    while (fgets(line, sizeof(line), manifest)) {
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        unsigned long long size = strtoull(line, NULL, 10);
        char *rel = tab + 1;
        rel[strcspn(rel, "\n")] = '\0';
        make_parents(dirfd, rel, made, sizeof(made));
        int fd = openat(dirfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0)
            die("create", rel);
        if (strcmp(rel, "raw.log") == 0 && size == (unsigned long long)st.st_size) {
            int in = open(log, O_RDONLY | O_CLOEXEC);
            if (in < 0)
                die("open", log);
            for (unsigned long long done = 0; done < size;) {
                ssize_t n = copy_file_range(in, NULL, fd, NULL, size - done, 0);
                if (n <= 0)
                    die("copy_file_range", rel);
                done += (unsigned long long)n;
            }
            close(in);
        } else {
            while (size > 0) {
                if (src.pos == src.len)
                    refill(&src);
                size_t n = src.len - src.pos;
                if (n > size)
                    n = (size_t)size;
                write_all(fd, src.buf + src.pos, n, rel);
                src.pos += n;
                size -= n;
            }
        }
        if (close(fd) < 0)
            die("close", rel);
    }
    fclose(manifest);
    /* the rest of the log, if the files took less than all of it */
    while (!src.eof)
        refill(&src);
    close(src.fd);
    close(dirfd);
    free(src.buf);
    return 0;
}
