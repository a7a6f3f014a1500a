/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stream backends of the output (outdir.h, streams): a table of the names given, spools for
 * streamed files, the output file written beside its target and renamed into place (with the
 * sections a format spools beside it), and two formats of our own: the zip archive (on zip.c)
 * and memory. One table of operations (stream_ops) serves every format.
 *
 * Concurrency: the outputs of one stream (a top one and its rank_N/ sub-outputs, written on
 * worker threads at once) share one mutex, held while a name is decided and while one file is
 * encoded into the output, so entries never interleave. Memory: nothing per file beyond the
 * caller's own bytes (a whole file is encoded from them; a streamed one from its spool, on
 * disk); one format state (zlib: about 270 KB for a zip) and a name table. The cost is time:
 * ranks wait for each other's compression.
 */
#include "base/config.h"
#include "base/arena.h"
#include "base/map.h"
#include "base/xalloc.h"
#include "output/outdir.h"
#include "output/zip.h"
#include "base/sort.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* What a name of the table stands for: a folder, or a file and a digest of its bytes (for
 * write_once's "the same bytes are there already", without reading them back). The names
 * form a tree (a folder's entries, for tl_outdir_list: the names the output gave). */
struct meta {
    bool dir;
    uint64_t size, h1;
    uint32_t h2;
    const char *leaf;          /* the last part of the name */
    struct meta *child, *next; /* a folder's first entry; the next entry of its folder */
};

/* The output file and the sections spooled beside it (tl_outfmt_write). */
struct tl_outfmt_io {
    int fd;
    int spool[4];
    const char *path; /* for messages */
};

struct shared {
    pthread_mutex_t mu;
    const struct tl_outfmt_ops *fmt;
    void *st;
    struct tl_outfmt_io io;
    int fd;     /* the output file, -1 for memory */
    char *path; /* the target, NULL for memory */
    char *tmp;  /* where it is written */
    bool overwrite;
    struct tl_arena arena;
    struct tl_map names; /* full name -> struct meta */
    struct meta root;    /* the top folder */
};

/* A file of an output, encoded into the stream at the output's commit: a streamed one (its
 * own spool, fd), or a whole one held by a sub-output (size bytes at off of its hold file). */
struct spool {
    char *name; /* full name */
    int fd;     /* -1: held */
    uint64_t off, size;
};

/* One output of a stream: the top one or a sub-output. */
struct tl_outstream {
    struct shared *sh;
    bool top;
    char *prefix; /* "" or "rank_0/" */
    struct spool *spools;
    size_t nspools, aspools;
    /* A sub-output holds its whole files here until its commit, so that its abort leaves
     * nothing in the stream (a rank whose log fails midway has no report): -1 until one. */
    int hold;
    uint64_t held; /* bytes in it */
};

/* ---- names ---------------------------------------------------------------------------- */

static struct meta *meta_of(struct shared *sh, const char *full, size_t n)
{
    return tl_map_get(&sh->names, tl_str_make(full, n));
}

/* Whether full can be a new file: 0 when free, 1 when it collides (a folder of that name, a
 * parent that is a file), 2 when a file of that name exists (its meta in *old). */
static int probe(struct shared *sh, const char *full, struct meta **old)
{
    for (const char *s = strchr(full, '/'); s; s = strchr(s + 1, '/')) {
        struct meta *m = meta_of(sh, full, (size_t)(s - full));
        if (m && !m->dir)
            return 1;
    }
    struct meta *m = meta_of(sh, full, strlen(full));
    if (!m)
        return 0;
    if (m->dir)
        return 1;
    *old = m;
    return 2;
}

/* The entry of the first n bytes of full, entered (with its parents, as folders) when new. */
static struct meta *enter(struct shared *sh, const char *full, size_t n, bool dir)
{
    if (n == 0)
        return &sh->root;
    struct tl_str key = tl_str_make(full, n);
    struct meta *m = tl_map_get(&sh->names, key);
    if (m)
        return m;
    size_t slash = n;
    while (slash > 0 && full[slash - 1] != '/')
        slash--;
    struct meta *parent = enter(sh, full, slash ? slash - 1 : 0, true);
    key = tl_arena_str(&sh->arena, key);
    m = tl_arena_calloc(&sh->arena, 1, sizeof(*m));
    m->dir = dir;
    m->leaf = key.p + slash;
    m->next = parent->child;
    parent->child = m;
    tl_map_put(&sh->names, key, m);
    return m;
}

/* Enter full as a file, its parents as folders. */
static struct meta *take(struct shared *sh, const char *full)
{
    return enter(sh, full, strlen(full), false);
}

/* Enter full and its parents as folders. */
static void take_dir(struct shared *sh, const char *full)
{
    enter(sh, full, strlen(full), true);
}

static void digest(struct meta *m, const void *p, size_t n)
{
    m->size = n;
    m->h1 = tl_hash(p, n);
    uLong c = crc32(0L, Z_NULL, 0);
    for (size_t off = 0; off < n;) {
        uInt k = n - off > (1u << 30) ? (1u << 30) : (uInt)(n - off);
        c = crc32(c, (const Bytef *)p + off, k);
        off += k;
    }
    m->h2 = (uint32_t)c;
}

/* The name a file gets, as the folder would give it (outdir.c create() and write_named()):
 * rel; when it collides, flat variants "~N". With once, a file of the same bytes under a
 * candidate name is the answer (*same set); other files' names are skipped. Without once, an
 * existing file of that name is replaced (memory) or written again (an archive keeps the
 * last). Returns 0 with the name in *name (relative to the output), -1 when none is free. */
static int choose(struct tl_outdir *o, const char *rel, const void *p, size_t n, bool once,
                  struct tl_buf *name, bool *same, struct tl_err *err)
{
    struct tl_outstream *s = o->impl;
    struct tl_buf full = TL_BUF_INIT;
    struct meta want = {0};
    bool found = false;
    if (once)
        digest(&want, p, n);
    *same = false;
    for (unsigned k = 0; k < 10000; k++) {
        tl_buf_reset(name);
        char tag[24];
        if (k == 0)
            tl_buf_adds(name, rel);
        else if (once && k == 1)
            snprintf(tag, sizeof(tag), "~%016llx", (unsigned long long)tl_hash(p, n));
        else
            snprintf(tag, sizeof(tag), "~%u", once ? k : k - 1);
        if (k > 0)
            tl_outdir_flat_name(name, rel, !once && k == 1 ? NULL : tag);
        tl_buf_reset(&full);
        tl_buf_adds(&full, s->prefix);
        tl_buf_addstr(&full, tl_buf_str(name));
        struct meta *old = NULL;
        int r = probe(s->sh, full.buf, &old);
        if (r == 1)
            continue;
        if (r == 2 && once) {
            if (old->size == want.size && old->h1 == want.h1 && old->h2 == want.h2) {
                *same = found = true;
                break;
            }
            continue;
        }
        if (r == 2 && k > 0)
            continue; /* a variant name must be new */
        struct meta *m = take(s->sh, full.buf);
        if (once) {
            m->size = want.size;
            m->h1 = want.h1;
            m->h2 = want.h2;
        }
        found = true;
        break;
    }
    int rc = 0;
    if (!found)
        rc = tl_error(err, "cannot write %s/%s: no free name", o->target, rel);
    tl_buf_release(&full);
    return rc;
}

/* A whole file into the format, from the caller's bytes; with the mutex held. */
static int add_whole(struct shared *sh, const char *name, const void *p, size_t n,
                     struct tl_err *err)
{
    if (sh->fmt->file_begin(sh->st, name, n, err) < 0 || sh->fmt->file_data(sh->st, p, n, err) < 0)
        return -1;
    return sh->fmt->file_end(sh->st, err);
}

static int add_piece(void *ctx, const void *p, size_t n, struct tl_err *err)
{
    struct shared *sh = ctx;
    return sh->fmt->file_data(sh->st, p, n, err);
}

/* A whole file into the format, read back from size bytes at off of fd; with the mutex held. */
static int add_spooled(struct shared *sh, const char *name, int fd, uint64_t off, uint64_t size,
                       struct tl_err *err)
{
    if (sh->fmt->file_begin(sh->st, name, size, err) < 0 ||
        tl_spool_each(fd, off, size, name, add_piece, sh, err) < 0)
        return -1;
    return sh->fmt->file_end(sh->st, err);
}

/* A whole file of a sub-output, into its hold file until its commit. */
static int hold(struct tl_outdir *o, const char *full, const void *p, size_t n, struct tl_err *err)
{
    struct tl_outstream *s = o->impl;
    if (s->hold < 0 && (s->hold = tl_spool_open(s->sh->path, err)) < 0)
        return -1;
    /* Only hold() writes to the hold file, in order: its position is s->held (put back there
     * when a write fails partway, for the files held after it). */
    if (tl_write_all(s->hold, p, n) < 0) {
        int e = errno;
        (void)lseek(s->hold, (off_t)s->held, SEEK_SET);
        return tl_error(err, "cannot write %s: %s", full, strerror(e));
    }
    TL_GROW(s->spools, s->nspools + 1, s->aspools);
    s->spools[s->nspools++] = (struct spool){tl_xstrdup(full), -1, s->held, n};
    s->held += n;
    return 0;
}

static int stream_write(struct tl_outdir *o, const char *rel, const void *p, size_t n, bool once,
                        struct tl_buf *used, struct tl_err *err)
{
    struct tl_outstream *s = o->impl;
    struct shared *sh = s->sh;
    struct tl_buf name = TL_BUF_INIT;
    bool same;
    pthread_mutex_lock(&sh->mu);
    int rc = choose(o, rel, p, n, once, &name, &same, err);
    if (rc == 0 && !same) {
        struct tl_buf full = TL_BUF_INIT;
        tl_buf_addf(&full, "%s%s", s->prefix, name.buf);
        if (s->top) {
            rc = add_whole(sh, full.buf, p, n, err);
        } else {
            pthread_mutex_unlock(&sh->mu);
            rc = hold(o, full.buf, p, n, err);
            pthread_mutex_lock(&sh->mu);
        }
        tl_buf_release(&full);
        o->files++;
        o->bytes += n;
    }
    pthread_mutex_unlock(&sh->mu);
    if (rc == 0 && used)
        tl_buf_addstr(used, tl_buf_str(&name));
    tl_buf_release(&name);
    return rc;
}

static int stream_write_whole(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                              struct tl_buf *used, struct tl_err *err)
{
    return stream_write(o, rel, p, n, false, used, err);
}

/* Nothing to move aside for rightful: the first bytes keep the name (outdir.h, streams). */
static int stream_write_once(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                             bool (*rightful)(const void *p, size_t n, void *ctx), void *ctx,
                             struct tl_buf *used, struct tl_err *err)
{
    (void)rightful, (void)ctx;
    return stream_write(o, rel, p, n, true, used, err);
}

/* The whole file is encoded at once (memory replaces a name written again; an archive keeps
 * the last). */
static int stream_replace(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                          struct tl_err *err)
{
    return stream_write(o, rel, p, n, false, NULL, err);
}

static int stream_create(struct tl_outdir *o, const char *rel, struct tl_buf *used, int *fd,
                         struct tl_err *err)
{
    struct tl_outstream *s = o->impl;
    struct shared *sh = s->sh;
    int spool = tl_spool_open(sh->path, err);
    if (spool < 0)
        return -1;
    int mine = dup(spool);
    if (mine < 0) {
        close(spool);
        return tl_error(err, "cannot write %s/%s: %s", o->target, rel, strerror(errno));
    }
    struct tl_buf name = TL_BUF_INIT;
    bool same;
    pthread_mutex_lock(&sh->mu);
    int rc = choose(o, rel, NULL, 0, false, &name, &same, err);
    pthread_mutex_unlock(&sh->mu);
    if (rc < 0) {
        close(spool);
        close(mine);
    } else {
        TL_GROW(s->spools, s->nspools + 1, s->aspools);
        struct spool *sp = &s->spools[s->nspools++];
        sp->fd = mine;
        sp->off = sp->size = 0;
        struct tl_buf full = TL_BUF_INIT;
        tl_buf_addf(&full, "%s%s", s->prefix, name.buf);
        sp->name = tl_buf_detach(&full, NULL);
        *fd = spool;
        o->files++;
        if (used)
            tl_buf_addstr(used, tl_buf_str(&name));
    }
    tl_buf_release(&name);
    return rc;
}

static void drop_spools(struct tl_outstream *s)
{
    for (size_t i = 0; i < s->nspools; i++) {
        if (s->spools[i].fd >= 0)
            close(s->spools[i].fd);
        free(s->spools[i].name);
    }
    free(s->spools);
    s->spools = NULL;
    s->nspools = s->aspools = 0;
    if (s->hold >= 0)
        close(s->hold);
    s->hold = -1;
    s->held = 0;
}

/* The files of o not yet in the output (streamed ones, and those a sub-output holds), in the
 * order they were created. */
static int drain_spools(struct tl_outdir *o, struct tl_err *err)
{
    struct tl_outstream *s = o->impl;
    int rc = 0;
    for (size_t i = 0; i < s->nspools && rc == 0; i++) {
        struct spool *sp = &s->spools[i];
        struct stat st;
        if (sp->fd >= 0 && fstat(sp->fd, &st) < 0)
            rc = tl_error(err, "cannot read back %s: %s", sp->name, strerror(errno));
        else if (sp->fd >= 0)
            sp->size = (uint64_t)st.st_size;
        if (rc == 0) {
            pthread_mutex_lock(&s->sh->mu);
            rc = add_spooled(s->sh, sp->name, sp->fd >= 0 ? sp->fd : s->hold, sp->off, sp->size,
                             err);
            pthread_mutex_unlock(&s->sh->mu);
        }
    }
    drop_spools(s);
    return rc;
}

/* ---- opening, committing -------------------------------------------------------------- */

/* The operations the front calls (defined at the end of the file). */
static const struct tl_output_ops stream_ops;

static void init_front(struct tl_outdir *o, const char *target, struct tl_outstream *s)
{
    tl_outdir_init_front(o, &stream_ops, s, target);
}

int tl_outfmt_write(struct tl_outfmt_io *io, unsigned section, const void *p, size_t n,
                    struct tl_err *err)
{
    if (tl_write_all(section ? io->spool[section - 1] : io->fd, p, n) < 0)
        return tl_error(err, "cannot write the bundle: %s", strerror(errno));
    return 0;
}

int tl_outfmt_append_sections(struct tl_outfmt_io *io, struct tl_err *err)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(io->spool) && io->spool[i] >= 0; i++) {
        if (lseek(io->spool[i], 0, SEEK_SET) < 0 || tl_copy_fd(io->spool[i], io->fd) < 0)
            return tl_error(err, "cannot write %s: %s", io->path, strerror(errno));
    }
    return 0;
}

static void free_shared(struct shared *sh)
{
    if (sh->fmt)
        sh->fmt->free(sh->st);
    if (sh->fd >= 0)
        close(sh->fd);
    for (size_t i = 0; i < TL_ARRAY_LEN(sh->io.spool); i++)
        if (sh->io.spool[i] >= 0)
            close(sh->io.spool[i]);
    if (sh->tmp)
        unlink(sh->tmp);
    free(sh->tmp);
    free(sh->path);
    tl_map_release(&sh->names);
    tl_arena_release(&sh->arena);
    pthread_mutex_destroy(&sh->mu);
    free(sh);
}

static struct shared *new_shared(const struct tl_outfmt_ops *fmt, void *st)
{
    struct shared *sh = tl_xcalloc(1, sizeof(*sh));
    pthread_mutex_init(&sh->mu, NULL);
    sh->fmt = fmt;
    sh->st = st;
    sh->fd = -1;
    sh->io.fd = -1;
    for (size_t i = 0; i < TL_ARRAY_LEN(sh->io.spool); i++)
        sh->io.spool[i] = -1;
    tl_arena_init(&sh->arena, 16 * 1024);
    tl_map_init(&sh->names, &sh->arena);
    sh->root.dir = true;
    sh->root.leaf = "";
    return sh;
}

static struct tl_outstream *new_view(struct shared *sh, bool top, const char *prefix)
{
    struct tl_outstream *s = tl_xcalloc(1, sizeof(*s));
    s->sh = sh;
    s->top = top;
    s->prefix = tl_xstrdup(prefix);
    s->hold = -1;
    return s;
}

int tl_outdir_open_stream(struct tl_outdir *o, const char *path, bool overwrite,
                          const struct tl_outfmt_ops *fmt, void *st, struct tl_err *err)
{
    memset(o, 0, sizeof(*o));
    tl_buf_init(&o->leftovers, 0);
    struct stat sb;
    if (lstat(path, &sb) == 0) {
        int rc = !S_ISREG(sb.st_mode)
                     ? tl_error_code(err, TL_ERR_EXISTS,
                                     "%s exists and is not a file; not replacing it", path)
                 : !overwrite
                     ? tl_error_code(err, TL_ERR_EXISTS,
                                     "%s already exists (use --overwrite to replace it)", path)
                     : 0;
        if (rc < 0) {
            fmt->free(st);
            return rc;
        }
    }
    struct shared *sh = new_shared(fmt, st);
    sh->path = tl_xstrdup(path);
    sh->overwrite = overwrite;
    struct tl_buf tmp = TL_BUF_INIT;
    tl_buf_addf(&tmp, "%s.tlparse-XXXXXX", path);
    sh->fd = mkostemp(tmp.buf, O_CLOEXEC);
    if (sh->fd < 0) {
        int e = errno;
        tl_buf_release(&tmp);
        free_shared(sh);
        return tl_error(err, "cannot create %s: %s", path, strerror(e));
    }
    sh->tmp = tl_buf_detach(&tmp, NULL);
    mode_t um = umask(0); /* umask() reads by setting: put it back */
    umask(um);
    fchmod(sh->fd, 0666 & ~um);
    sh->io.fd = sh->fd;
    sh->io.path = sh->path;
    for (unsigned i = 0; i < fmt->sections && i < TL_ARRAY_LEN(sh->io.spool); i++) {
        if ((sh->io.spool[i] = tl_spool_open(sh->path, err)) < 0) {
            free_shared(sh);
            return -1;
        }
    }
    if (fmt->begin(st, &sh->io, err) < 0) {
        free_shared(sh);
        return -1;
    }
    init_front(o, path, new_view(sh, true, ""));
    return 0;
}

static int stream_open_sub(struct tl_outdir *parent, const char *name, struct tl_outdir *child,
                           struct tl_err *err)
{
    struct tl_outstream *p = parent->impl;
    memset(child, 0, sizeof(*child));
    struct tl_buf prefix = TL_BUF_INIT;
    tl_buf_addf(&prefix, "%s%s", p->prefix, name);
    pthread_mutex_lock(&p->sh->mu);
    struct meta *m = meta_of(p->sh, prefix.buf, prefix.len);
    int rc = 0;
    if (m && !m->dir) {
        rc = tl_error(err, "cannot create %s/%s: a file has that name", parent->target, name);
    } else {
        take_dir(p->sh, prefix.buf);
        tl_buf_addch(&prefix, '/');
    }
    pthread_mutex_unlock(&p->sh->mu);
    if (rc == 0) {
        struct tl_buf t = TL_BUF_INIT;
        tl_buf_addf(&t, "%s/%s", parent->target, name);
        init_front(child, t.buf, new_view(p->sh, false, prefix.buf));
        tl_buf_release(&t);
    }
    tl_buf_release(&prefix);
    return rc;
}

static void release_front(struct tl_outdir *o)
{
    struct tl_outstream *s = o->impl;
    /* Stop writing first: the worker may hold spools. */
    tl_writer_free(o->writer);
    o->writer = NULL;
    drop_spools(s);
    if (s->top)
        free_shared(s->sh);
    free(s->prefix);
    free(s);
    tl_outdir_release_front(o);
}

static int stream_commit(struct tl_outdir *o, struct tl_err *err)
{
    struct tl_outstream *s = o->impl;
    struct shared *sh = s->sh;
    int rc = tl_writer_sync(o->writer, err);
    if (rc == 0)
        rc = drain_spools(o, err);
    if (rc == 0 && s->top) {
        rc = sh->fmt->finish(sh->st, err);
        if (rc == 0 && sh->fd >= 0) {
            if (fsync(sh->fd) != 0 && errno != EINVAL)
                rc = tl_error(err, "cannot write %s: %s", sh->path, strerror(errno));
            if (close(sh->fd) != 0 && rc == 0)
                rc = tl_error(err, "cannot write %s: %s", sh->path, strerror(errno));
            sh->fd = -1;
            struct stat st;
            if (rc == 0 && !sh->overwrite && lstat(sh->path, &st) == 0)
                rc = tl_error_code(err, TL_ERR_EXISTS,
                                   "%s appeared while tlparse ran; not replacing it", sh->path);
            if (rc == 0 && rename(sh->tmp, sh->path) != 0)
                rc = tl_error(err, "cannot create %s: %s", sh->path, strerror(errno));
            if (rc == 0) {
                free(sh->tmp);
                sh->tmp = NULL;
            }
        }
    }
    release_front(o);
    return rc;
}

static void stream_abort(struct tl_outdir *o)
{
    release_front(o);
}

/* ---- the zip format ------------------------------------------------------------------- */

struct zipfmt {
    struct tl_zip *z;
    struct tl_buf name; /* the top folder, then the entry's name */
    size_t top;
    int64_t mtime;
};

static int zip_begin(void *st, struct tl_outfmt_io *io, struct tl_err *err)
{
    (void)err;
    struct zipfmt *f = st;
    f->z = tl_zip_new(io->fd);
    return 0;
}

static int zip_file_begin(void *st, const char *name, uint64_t size, struct tl_err *err)
{
    struct zipfmt *f = st;
    tl_buf_setlen(&f->name, f->top);
    tl_buf_adds(&f->name, name);
    return tl_zip_file_begin(f->z, f->name.buf, f->mtime, size, err);
}

static int zip_file_data(void *st, const void *p, size_t n, struct tl_err *err)
{
    return tl_zip_file_data(((struct zipfmt *)st)->z, p, n, err);
}

static int zip_file_end(void *st, struct tl_err *err)
{
    return tl_zip_file_end(((struct zipfmt *)st)->z, err);
}

static int zip_finish(void *st, struct tl_err *err)
{
    struct zipfmt *f = st;
    return tl_zip_close(f->z, err);
}

static void zip_free(void *st)
{
    struct zipfmt *f = st;
    tl_zip_free(f->z);
    tl_buf_release(&f->name);
    free(f);
}

static const struct tl_outfmt_ops zip_ops = {
    .what = "archive",
    .begin = zip_begin,
    .file_begin = zip_file_begin,
    .file_data = zip_file_data,
    .file_end = zip_file_end,
    .finish = zip_finish,
    .free = zip_free,
};

int tl_outdir_open_zip(struct tl_outdir *o, const char *path, bool overwrite, struct tl_err *err)
{
    struct zipfmt *f = tl_xcalloc(1, sizeof(*f));
    tl_buf_init(&f->name, 0);
    f->mtime = (int64_t)time(NULL);
    /* named after the archive, as people expect of a zip: r.zip unpacks into r/ */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    n = n > 4 ? n - 4 : 0;
    if (n)
        tl_buf_add(&f->name, base, n);
    else
        tl_buf_adds(&f->name, "tlparse_report");
    tl_buf_addch(&f->name, '/');
    f->top = f->name.len;
    return tl_outdir_open_stream(o, path, overwrite, &zip_ops, f, err);
}

/* ---- memory --------------------------------------------------------------------------- */

struct memfmt {
    char **names;
    struct tl_buf **ptrs; /* stable pointers for tl_outdir_memory_files */
    size_t n, alloc, aptrs;
    struct tl_buf *cur; /* the file being added */
};

static int mem_begin(void *st, struct tl_outfmt_io *io, struct tl_err *err)
{
    (void)st, (void)io, (void)err;
    return 0;
}

/* The file name, new or replaced (the folder replaces a file written twice). */
static int mem_file_begin(void *st, const char *name, uint64_t size, struct tl_err *err)
{
    (void)err;
    struct memfmt *m = st;
    m->cur = NULL;
    for (size_t i = 0; i < m->n && !m->cur; i++) {
        if (!strcmp(m->names[i], name)) {
            tl_buf_reset(m->ptrs[i]);
            m->cur = m->ptrs[i];
        }
    }
    if (!m->cur) {
        TL_GROW(m->names, m->n + 1, m->alloc);
        TL_GROW(m->ptrs, m->n + 1, m->aptrs);
        m->names[m->n] = tl_xstrdup(name);
        m->ptrs[m->n] = tl_xmalloc(sizeof(struct tl_buf));
        tl_buf_init(m->ptrs[m->n], 0);
        m->cur = m->ptrs[m->n++];
    }
    tl_buf_grow(m->cur, (size_t)size);
    return 0;
}

static int mem_file_data(void *st, const void *p, size_t n, struct tl_err *err)
{
    (void)err;
    tl_buf_add(((struct memfmt *)st)->cur, p, n);
    return 0;
}

static int mem_file_end(void *st, struct tl_err *err)
{
    (void)err;
    ((struct memfmt *)st)->cur = NULL;
    return 0;
}

static int mem_finish(void *st, struct tl_err *err)
{
    (void)st, (void)err;
    return 0;
}

static void mem_free(void *st)
{
    struct memfmt *m = st;
    for (size_t i = 0; i < m->n; i++) {
        free(m->names[i]);
        tl_buf_release(m->ptrs[i]);
        free(m->ptrs[i]);
    }
    free(m->names);
    free(m->ptrs);
    free(m);
}

static const struct tl_outfmt_ops mem_ops = {
    .what = "memory",
    .begin = mem_begin,
    .file_begin = mem_file_begin,
    .file_data = mem_file_data,
    .file_end = mem_file_end,
    .finish = mem_finish,
    .free = mem_free,
};

void tl_outdir_open_memory(struct tl_outdir *o)
{
    memset(o, 0, sizeof(*o));
    struct shared *sh = new_shared(&mem_ops, tl_xcalloc(1, sizeof(struct memfmt)));
    init_front(o, "<memory>", new_view(sh, true, ""));
}

int tl_outdir_memory_files(struct tl_outdir *o, const char *const **names,
                           const struct tl_buf *const **data, size_t *n)
{
    if (o->ops != &stream_ops || ((struct tl_outstream *)o->impl)->sh->fmt != &mem_ops)
        return -1;
    /* Streamed files are spooled until their writes landed: they are files from now on. */
    if (tl_writer_sync(o->writer, NULL) < 0 || drain_spools(o, NULL) < 0)
        return -1;
    struct memfmt *m = ((struct tl_outstream *)o->impl)->sh->st;
    *names = (const char *const *)m->names;
    *data = (const struct tl_buf *const *)m->ptrs;
    *n = m->n;
    return 0;
}

static int stream_read(struct tl_outdir *o, const char *rel, struct tl_buf *out, size_t max,
                       struct tl_err *err)
{
    struct tl_outstream *s = o->impl;
    if (s->sh->fmt != &mem_ops)
        return tl_error(err, "cannot read %s back from the %s being written (%s)", rel,
                        s->sh->fmt->what, o->target);
    if (tl_writer_sync(o->writer, err) < 0)
        return -1;
    struct tl_buf full = TL_BUF_INIT;
    tl_buf_addf(&full, "%s%s", s->prefix, rel);
    int rc = -1;
    pthread_mutex_lock(&s->sh->mu);
    struct memfmt *m = s->sh->st;
    for (size_t i = 0; i < m->n; i++) {
        if (!strcmp(m->names[i], full.buf)) {
            if (m->ptrs[i]->len <= max) {
                tl_buf_add(out, m->ptrs[i]->buf, m->ptrs[i]->len);
                rc = 0;
            }
            break;
        }
    }
    pthread_mutex_unlock(&s->sh->mu);
    if (rc < 0)
        tl_error(err, "%s/%s is not a file of at most %zu bytes", o->target, rel, max);
    tl_buf_release(&full);
    return rc;
}

/* The names the output gave under rel, from the table (a stream has no folder to list), in
 * name order. */
static int cmp_leaf(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static struct meta *folder_of(struct tl_outstream *s, const char *rel)
{
    struct tl_buf full = TL_BUF_INIT;
    tl_buf_addf(&full, "%s%s", s->prefix, rel);
    while (full.len && full.buf[full.len - 1] == '/')
        tl_buf_setlen(&full, full.len - 1);
    struct meta *m = full.len ? meta_of(s->sh, full.buf, full.len) : &s->sh->root;
    tl_buf_release(&full);
    return m && m->dir ? m : NULL;
}

static int stream_list(struct tl_outdir *o, const char *rel, bool fs_order, char ***names,
                       size_t *n)
{
    (void)fs_order;
    struct tl_outstream *s = o->impl;
    pthread_mutex_lock(&s->sh->mu);
    struct meta *d = folder_of(s, rel);
    char **v = NULL;
    size_t len = 0, alloc = 0;
    for (struct meta *m = d ? d->child : NULL; m; m = m->next) {
        TL_GROW(v, len + 1, alloc);
        v[len++] = tl_xstrdup(m->leaf);
    }
    pthread_mutex_unlock(&s->sh->mu);
    if (!d)
        return -1;
    if (len)
        tl_sort(v, len, sizeof(*v), cmp_leaf);
    *names = v;
    *n = len;
    return 0;
}

static bool stream_is_dir(struct tl_outdir *o, const char *rel)
{
    struct tl_outstream *s = o->impl;
    pthread_mutex_lock(&s->sh->mu);
    bool dir = *rel && folder_of(s, rel);
    pthread_mutex_unlock(&s->sh->mu);
    return dir;
}

static int stream_spool(struct tl_outdir *o, const char *name, int *fd, struct tl_err *err)
{
    (void)name;
    *fd = tl_spool_open(((struct tl_outstream *)o->impl)->sh->path, err);
    return *fd < 0 ? -1 : 0;
}

/* Memory's file rel, through a spool (a stream reads nothing back). */
static int stream_read_open(struct tl_outdir *o, const char *rel, int *fd, struct tl_err *err)
{
    struct tl_buf b = TL_BUF_INIT;
    int rc = stream_read(o, rel, &b, SIZE_MAX, err);
    if (rc == 0 && (*fd = tl_spool_open(NULL, err)) < 0)
        rc = -1;
    if (rc == 0 && (tl_write_all(*fd, b.buf, b.len) < 0 || lseek(*fd, 0, SEEK_SET) < 0)) {
        rc = tl_error(err, "cannot read %s/%s: %s", o->target, rel, strerror(errno));
        close(*fd);
        *fd = -1;
    }
    tl_buf_release(&b);
    return rc;
}

/* Nothing to remove: a stream holds only this run's files. */
static int stream_remove(struct tl_outdir *o, const char *rel)
{
    (void)o, (void)rel;
    return 0;
}

static const struct tl_output_ops stream_ops = {
    .what = "stream",
    .create = stream_create,
    .write = stream_write_whole,
    .write_once = stream_write_once,
    .replace = stream_replace,
    .spool = stream_spool,
    .open_sub = stream_open_sub,
    .read = stream_read,
    .read_open = stream_read_open,
    .list = stream_list,
    .remove = stream_remove,
    .is_dir = stream_is_dir,
    .commit = stream_commit,
    .abort = stream_abort,
};
