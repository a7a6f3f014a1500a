/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `--bundle FILE`: the report written straight into one file (tl_bundle_open: the output's
 * zip backend, or the page format below on the output's stream backend), with no folder on
 * disk, of one log or of several ranks. And, for the runs that write a folder anyway (-o
 * beside the bundle, or a --from-summaries landing page added to the ranks' folder),
 * tl_bundle_write: a finished report folder as one file, a .zip (output/zip.c) that unpacks
 * into one folder named after it (r.zip: r/index.html, ...), or a single HTML page
 * (report/bundle_html.c). The folder is walked in name order, each file read in pieces and
 * handed on, so memory does not grow with the report; the bundle is written to a temporary
 * file beside FILE and renamed into place when complete.
 */
#include "base/config.h"
#include "modes/modes.h"
#include "base/xalloc.h"
#include "output/writer.h"
#include "output/zip.h"
#include "report/bundle_html.h"
#include "base/sort.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (64u * 1024)

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && !strcasecmp(s + n - m, suffix);
}

int tl_bundle_kind(const char *path, struct tl_err *err)
{
    if (has_suffix(path, ".zip"))
        return TL_BUNDLE_ZIP;
    if (has_suffix(path, ".html") || has_suffix(path, ".htm"))
        return TL_BUNDLE_HTML;
    return tl_error_code(err, TL_ERR_USAGE,
                         "--bundle wants a file name ending in .zip or .html, not %s", path);
}

int tl_bundle_check(const char *path, bool overwrite, struct tl_err *err)
{
    if (tl_bundle_kind(path, err) < 0)
        return -1;
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return tl_error_code(err, TL_ERR_EXISTS,
                                 "%s exists and is not a file; not replacing it", path);
        if (!overwrite)
            return tl_error_code(err, TL_ERR_EXISTS,
                                 "%s already exists (use --overwrite to replace it)", path);
    }
    return 0;
}

/* Where the bundle goes while it is written. */
struct sink {
    int kind;
    int fd;
    struct tl_zip *zip;
    struct tl_bundle_html *html;
    struct tl_buf out; /* the page's bytes not yet written */
    struct tl_buf top; /* a zip's one top folder, "r/" for r.zip: it unpacks into r/ */
    volatile sig_atomic_t *cancel;
};

static int write_all(int fd, const char *p, size_t n, struct tl_err *err)
{
    if (tl_write_all(fd, p, n) < 0)
        return tl_error(err, "cannot write the bundle: %s", strerror(errno));
    return 0;
}

static int drain(struct sink *s, bool all, struct tl_err *err)
{
    if (s->kind != TL_BUNDLE_HTML || (!all && s->out.len < (1u << 20)))
        return 0;
    int rc = write_all(s->fd, s->out.buf, s->out.len, err);
    tl_buf_reset(&s->out);
    return rc;
}

/* One file of the report into the bundle. */
static int add_file(struct sink *s, const char *abs, const char *rel, struct tl_err *err)
{
    int fd = open(abs, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return tl_error(err, "cannot read %s: %s", abs, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return tl_error(err, "cannot read %s: %s", abs, strerror(errno));
    }
    int rc = 0;
    if (s->kind == TL_BUNDLE_ZIP) {
        size_t at = s->top.len;
        tl_buf_adds(&s->top, rel);
        rc = tl_zip_file_begin(s->zip, s->top.buf, (int64_t)st.st_mtime, (uint64_t)st.st_size, err);
        tl_buf_setlen(&s->top, at);
    } else
        tl_bundle_html_file_begin(s->html, &s->out, rel, (uint64_t)st.st_size);
    char *buf = tl_xmalloc(CHUNK);
    while (rc == 0) {
        ssize_t n = read(fd, buf, CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = tl_error(err, "cannot read %s: %s", abs, strerror(errno));
            break;
        }
        if (n == 0)
            break;
        if (s->kind == TL_BUNDLE_ZIP) {
            rc = tl_zip_file_data(s->zip, buf, (size_t)n, err);
        } else {
            tl_bundle_html_file_data(s->html, &s->out, buf, (size_t)n);
            rc = drain(s, false, err);
        }
        if (rc == 0 && tl_stop_asked(s->cancel))
            rc = tl_error_code(err, TL_ERR_SIGNAL, "interrupted");
    }
    free(buf);
    close(fd);
    if (rc == 0) {
        if (s->kind == TL_BUNDLE_ZIP)
            rc = tl_zip_file_end(s->zip, err);
        else
            tl_bundle_html_file_end(s->html, &s->out);
    }
    return rc;
}

struct entry {
    int rank;
    char *name;
};

/* At the top of the report, index.html comes first and the big raw files last: a page bundle
 * shows its index as soon as the browser has read that far (200 MiB bundle: 0.21 s to the index
 * this way, 2.4 s in plain name order), and an unzip lists the index at the top. */
static int top_rank(const char *name)
{
    if (!strcmp(name, "index.html"))
        return 0;
    if (!strcmp(name, "raw.log") || !strcmp(name, "raw.jsonl") ||
        !strcmp(name, "chromium_events.json"))
        return 2;
    return 1;
}

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Every regular file under abs (rel its path in the report, "" at the top), in name order
 * (but for top_rank).
 * Links are not followed: a report holds none, and one put there is not ours to pack. */
static int add_tree(struct sink *s, const char *abs, const char *rel, struct tl_err *err)
{
    DIR *d = opendir(abs);
    if (!d)
        return tl_error(err, "cannot list %s: %s", abs, strerror(errno));
    struct entry *names = NULL;
    size_t n = 0, alloc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        TL_GROW(names, n + 1, alloc);
        names[n].rank = *rel ? 1 : top_rank(de->d_name);
        names[n++].name = tl_xstrdup(de->d_name);
    }
    closedir(d);
    if (n)
        tl_sort(names, n, sizeof(*names), cmp_entry);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct tl_buf a = TL_BUF_INIT, r = TL_BUF_INIT;
        tl_buf_addf(&a, "%s/%s", abs, names[i].name);
        tl_buf_addf(&r, "%s%s%s", rel, *rel ? "/" : "", names[i].name);
        struct stat st;
        if (lstat(a.buf, &st) != 0)
            rc = tl_error(err, "cannot read %s: %s", a.buf, strerror(errno));
        else if (S_ISDIR(st.st_mode))
            rc = add_tree(s, a.buf, r.buf, err);
        else if (S_ISREG(st.st_mode))
            rc = add_file(s, a.buf, r.buf, err);
        tl_buf_release(&a);
        tl_buf_release(&r);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i].name);
    free(names);
    return rc;
}

int tl_bundle_write(const char *folder, const char *path, bool overwrite,
                    volatile sig_atomic_t *cancel, struct tl_err *err)
{
    int kind = tl_bundle_kind(path, err);
    if (kind < 0 || tl_bundle_check(path, overwrite, err) < 0)
        return -1;
    struct tl_buf tmp = TL_BUF_INIT;
    tl_buf_addf(&tmp, "%s.tlparse-XXXXXX", path);
    int fd = mkstemp(tmp.buf);
    if (fd < 0) {
        int e = errno;
        tl_buf_release(&tmp);
        return tl_error(err, "cannot create %s: %s", path, strerror(e));
    }
    fchmod(fd, 0644);
    struct sink s = {
        .kind = kind, .fd = fd, .out = TL_BUF_INIT, .top = TL_BUF_INIT, .cancel = cancel};
    int rc = 0;
    if (kind == TL_BUNDLE_ZIP) {
        s.zip = tl_zip_new(fd);
        /* named after the archive, as people expect of a zip: r.zip unpacks into r/ */
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t n = strlen(base) - strlen(".zip");
        if (n)
            tl_buf_add(&s.top, base, n);
        else
            tl_buf_adds(&s.top, "tlparse_report");
        tl_buf_addch(&s.top, '/');
    } else {
        s.html = tl_bundle_html_begin(&s.out, "tlparse report");
    }
    rc = add_tree(&s, folder, "", err);
    if (kind == TL_BUNDLE_ZIP) {
        if (rc == 0)
            rc = tl_zip_close(s.zip, err);
        tl_zip_free(s.zip);
        tl_buf_release(&s.top);
    } else {
        tl_bundle_html_end(s.html, &s.out);
        if (rc == 0)
            rc = drain(&s, true, err);
        tl_buf_release(&s.out);
    }
    if (rc == 0 && fsync(fd) != 0 && errno != EINVAL)
        rc = tl_error(err, "cannot write %s: %s", path, strerror(errno));
    if (close(fd) != 0 && rc == 0)
        rc = tl_error(err, "cannot write %s: %s", path, strerror(errno));
    if (rc == 0 && rename(tmp.buf, path) != 0)
        rc = tl_error(err, "cannot create %s: %s", path, strerror(errno));
    if (rc != 0)
        unlink(tmp.buf);
    tl_buf_release(&tmp);
    return rc;
}

/* ---- the page, as a format of the output's stream backend ------------------------------- */

/* The files come in the order they are completed, index.html among the last. The page shows
 * index.html once the browser has parsed it (bundle_html.h), so it goes right after the head,
 * and the rest follows from two sections the output spools beside the page (unnamed temporary
 * files): the other files, then the big raw ones (top_rank 2), as the walk of the folder ordered
 * them. The sections cost one more write of the page's bytes (in the kernel: copy_file_range),
 * still less than the folder written, read back and written again. */
struct pagefmt {
    struct tl_bundle_html *b;
    struct tl_buf out;
    struct tl_outfmt_io *io;
    unsigned sec; /* the section of the file being added: 0 the page itself, 1 or 2 */
};

/* Write out's bytes to the section sec and empty it. */
static int page_drain(struct pagefmt *f, unsigned sec, struct tl_err *err)
{
    int rc = tl_outfmt_write(f->io, sec, f->out.buf, f->out.len, err);
    tl_buf_reset(&f->out);
    return rc;
}

static int page_begin(void *st, struct tl_outfmt_io *io, struct tl_err *err)
{
    struct pagefmt *f = st;
    f->io = io;
    f->b = tl_bundle_html_begin(&f->out, "tlparse report");
    return page_drain(f, 0, err);
}

static int page_file_begin(void *st, const char *name, uint64_t size, struct tl_err *err)
{
    (void)err;
    struct pagefmt *f = st;
    f->sec = (unsigned)top_rank(name);
    tl_bundle_html_file_begin(f->b, &f->out, name, size);
    return 0;
}

static int page_file_data(void *st, const void *p, size_t n, struct tl_err *err)
{
    struct pagefmt *f = st;
    const char *c = p;
    for (size_t off = 0; off < n; off += CHUNK) {
        tl_bundle_html_file_data(f->b, &f->out, c + off, n - off < CHUNK ? n - off : CHUNK);
        if (f->out.len >= (1u << 20) && page_drain(f, f->sec, err) < 0)
            return -1;
    }
    return 0;
}

static int page_file_end(void *st, struct tl_err *err)
{
    struct pagefmt *f = st;
    tl_bundle_html_file_end(f->b, &f->out);
    return page_drain(f, f->sec, err);
}

static int page_finish(void *st, struct tl_err *err)
{
    struct pagefmt *f = st;
    if (tl_outfmt_append_sections(f->io, err) < 0)
        return -1;
    tl_bundle_html_end(f->b, &f->out);
    f->b = NULL;
    return page_drain(f, 0, err);
}

static void page_free(void *st)
{
    struct pagefmt *f = st;
    tl_bundle_html_end(f->b, &f->out);
    tl_buf_release(&f->out);
    free(f);
}

static const struct tl_outfmt_ops page_ops = {
    .what = "page",
    .sections = 2,
    .begin = page_begin,
    .file_begin = page_file_begin,
    .file_data = page_file_data,
    .file_end = page_file_end,
    .finish = page_finish,
    .free = page_free,
};

int tl_bundle_open(struct tl_outdir *out, const char *path, bool overwrite, struct tl_err *err)
{
    int kind = tl_bundle_kind(path, err);
    if (kind < 0)
        return -1;
    if (kind == TL_BUNDLE_ZIP)
        return tl_outdir_open_zip(out, path, overwrite, err);
    struct pagefmt *f = tl_xcalloc(1, sizeof(*f));
    tl_buf_init(&f->out, 0);
    return tl_outdir_open_stream(out, path, overwrite, &page_ops, f, err);
}
