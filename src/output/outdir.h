/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report folder. Everything is written into a temporary folder beside
 * the target (`.<name>.tlparse-XXXXXX`) through a directory fd, so no path
 * can leave it; tl_outdir_commit() renames it into place (swapping it with
 * an old report atomically under --overwrite), tl_outdir_abort() removes it.
 * Names that come from a log go through tl_path_safe() first.
 * Depends on arena, buf, err, map, str.
 */
#ifndef TL_OUTDIR_H
#define TL_OUTDIR_H

#include "base/config.h"
#include "output/leftovers.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/map.h"
#include "base/str.h"
#include "output/writer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_outdir {
    char *target; /* as given, without trailing slashes */
    char *tmp;    /* the temporary folder's path */
    char **made;  /* parent folders of the target that we created (removed on abort) */
    size_t nmade;
    int dirfd; /* open on tmp */
    bool overwrite;
    bool in_place;   /* a folder of another outdir, or an existing one: nothing to rename */
    bool no_openat2; /* the kernel refused openat2: plain openat with O_NOFOLLOW */
    struct tl_arena arena;
    struct tl_map dirs; /* sub-folders already created */
    uint64_t bytes;     /* bytes written */
    uint64_t files;     /* files created */
    struct tl_writer *writer;
    /* Temporary folders of killed runs into the same target, removed by tl_outdir_open()
     * (see leftovers.c): how many, and their names, for the caller to say so. */
    size_t nleftovers;
    struct tl_buf leftovers;
};

/* Bytes the writer may hold for files not yet written. */
#define WRITE_BEHIND_BYTES (4u << 20)

/**
 * Check the target and create the temporary folder, with its owner recorded in it.
 * Fails (TL_ERR_EXISTS) when the target exists and overwrite is false, and when it exists
 * but is not a folder. Creates the target's parent folders, and removes the temporary
 * folders of earlier runs into the same target whose process is gone (o->nleftovers).
 */
int tl_outdir_open(struct tl_outdir *o, const char *target, bool overwrite, struct tl_err *err);
/**
 * Create (or truncate) rel for streaming; returns an fd the caller closes.
 * Parent sub-folders are created. When rel cannot be created as it is (a
 * folder of that name exists, a parent is a file, the path is too long),
 * a flattened variant in the same top folder is used, made unique with
 * "~N": the name used is appended to *used when used is not NULL.
 */
int tl_outdir_create(struct tl_outdir *o, const char *rel, int *fd, struct tl_buf *used,
                     struct tl_err *err);
/** Write (create or replace) rel with n bytes, as tl_outdir_create. */
int tl_outdir_write(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                    struct tl_buf *used, struct tl_err *err);
/**
 * Write rel unless it exists: when it holds the same bytes nothing is done;
 * when it holds other bytes, a variant "~N" name is used (in *used).
 * For content-addressed names (payloads/<md5>.txt), which repeat.
 */
int tl_outdir_write_once(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                         struct tl_buf *used, struct tl_err *err);
/**
 * write_once, except that when rel holds other bytes and rightful(p, n, ctx) says these are
 * the ones its name stands for (a payload whose md5 is its name), the other bytes move to the
 * variant they would have had and these take rel. rightful is asked on a collision only.
 */
int tl_outdir_write_rightful(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                             bool (*rightful)(const void *p, size_t n, void *ctx), void *ctx,
                             struct tl_buf *used, struct tl_err *err);
/**
 * With on, the bytes of files are written by a worker thread while the
 * caller goes on (see writer.h): a write's failure is then reported by a
 * later call, tl_outdir_sync() or tl_outdir_commit() at the latest.
 * Off (the default) writes in the calling thread.
 */
void tl_outdir_write_behind(struct tl_outdir *o, bool on);
/** Wait until every file handed over is written; -1 if one failed. */
int tl_outdir_sync(struct tl_outdir *o, struct tl_err *err);
/**
 * A sub-folder of an open report folder (a multi-rank run's rank_N/): child writes into
 * parent's temporary folder, with its own writer; its commit only waits for its writes, and
 * the parent's commit or abort takes it along. The name is ours (not from a log).
 */
int tl_outdir_open_sub(struct tl_outdir *parent, const char *name, struct tl_outdir *child,
                       struct tl_err *err);
/**
 * An existing folder, written in place (a multi-rank run's landing page added beside the
 * rank_N/ folders of another machine's runs): files are created or replaced directly; commit
 * waits for the writes, abort leaves what was written.
 */
int tl_outdir_open_in_place(struct tl_outdir *o, const char *path, struct tl_err *err);
/**
 * Read rel of the folder back into out (appended), after its writes have landed; -1 when it
 * cannot be read or is bigger than max bytes (err says which).
 */
int tl_outdir_read(struct tl_outdir *o, const char *rel, struct tl_buf *out, size_t max,
                   struct tl_err *err);
/**
 * The names of the entries of the folder rel ("" for the top), without "." and "..", sorted
 * by name, or in the order the file system lists them with fs_order. *names is malloc'd,
 * each name too (tl_outdir_list_free). -1 when rel cannot be listed.
 */
int tl_outdir_list(struct tl_outdir *o, const char *rel, bool fs_order, char ***names, size_t *n);
void tl_outdir_list_free(char **names, size_t n);
/** Whether rel is a folder of the report folder. */
bool tl_outdir_is_dir(struct tl_outdir *o, const char *rel);

/** Move the finished report into place. The struct is released either way. */
int tl_outdir_commit(struct tl_outdir *o, struct tl_err *err);
/** Remove the temporary folder and release the struct. Safe to call twice. */
void tl_outdir_abort(struct tl_outdir *o);

/* A buffered output file. */
struct tl_outfile {
    int fd;
    struct tl_buf buf;
    const char *name; /* for messages; borrowed */
    struct tl_outdir *dir;
};

/** Open rel (a fixed name of ours) for buffered writing. */
int tl_outfile_open(struct tl_outfile *f, struct tl_outdir *o, const char *rel, struct tl_err *err);
/** Flush if more than a threshold is buffered. */
int tl_outfile_maybe_flush(struct tl_outfile *f, struct tl_err *err);
int tl_outfile_flush(struct tl_outfile *f, struct tl_err *err);
/** Flush and close; the struct is released either way. */
int tl_outfile_close(struct tl_outfile *f, struct tl_err *err);

/**
 * Append to out a version of name that is safe as a relative path inside
 * the report: with allow_slash, '/' separates folders and empty, "." and ".."
 * parts are neutralised; otherwise '/' becomes '_'. Control characters, '\\'
 * and NUL become '_', a leading '.' becomes '_', Windows device names get a
 * '_' prefix, parts longer than 200 bytes are cut and tagged with a hash,
 * past 32 parts the middle ones are folded into one, and a result longer
 * than 1000 bytes is cut and tagged. The result is never empty.
 */
void tl_path_safe(struct tl_buf *out, struct tl_str name, bool allow_slash);

#endif
