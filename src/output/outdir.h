/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The output, as an interface with several backends behind these tl_outdir_* functions: the
 * report folder (here and in outdir.c), and the streams of outdir.h (a .zip, a single HTML
 * page, memory), which a sink cannot tell apart: it writes and never reads back
 * (tl_outdir_list and _is_dir tell the names the output gave, which it decides: a stream from
 * its table; tl_outdir_read reads back a folder's or memory's file, for --from-summaries, whose
 * input is the folder). The report folder. Everything is written into a temporary folder beside
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

struct tl_outstream_ops;

struct tl_outdir {
    char *target; /* as given, without trailing slashes */
    char *tmp;    /* the temporary folder's path */
    char **made;  /* parent folders of the target that we created (removed on abort) */
    size_t nmade;
    int dirfd; /* open on tmp */
    bool overwrite;
    bool in_place;   /* a folder of another outdir, or an existing one: nothing to rename */
    bool sub;        /* a folder of another outdir (tmp: its path): abort removes it */
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
    /* Not NULL: a stream backend (outdir.h, streams), and the folder's fields above are unused but
     * for target (for messages), writer (for streamed files), bytes and files. */
    void *stream;                              /* its state (outstream.c) */
    const struct tl_outstream_ops *stream_ops; /* its operations (outstream.c) */
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
 * the parent's commit or abort takes it along; its abort removes what it wrote (a stream's
 * sub-output holds its files until its commit). The name is ours (not from a log).
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
/**
 * Remove the file rel if it is there (a file of an earlier run, in a folder written in place);
 * nothing on a stream, which holds only this run's files. 0, or -1 when it cannot be removed.
 */
int tl_outdir_remove(struct tl_outdir *o, const char *rel);
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
/**
 * Open an unnamed temporary file for buffered writing, through o's writer, on o's file system
 * but not part of it (a spool, read back by its writer with f->fd; nothing is left however the
 * run ends). name is for messages (borrowed).
 */
int tl_outfile_open_spool(struct tl_outfile *f, struct tl_outdir *o, const char *name,
                          struct tl_err *err);
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

/* ---- streams (outstream.c) --------------------------------------------------------------
 *
 * The output's backends other than the folder: the report's files go straight into one file
 * (a .zip, a single HTML page) or into memory, through a format (struct tl_outfmt_ops), with
 * no folder on disk. The front is the tl_outdir_* functions above, which call outstream.c when
 * o->stream is set; what follows says how to open such an output and what a format is.
 *
 * Names are decided here as the folder decides them (made unique with the same "~N" and flat
 * variants), from a table of the names given so far. Files written whole (tl_outdir_write and
 * friends) are encoded at once from the caller's bytes; files streamed (tl_outdir_create,
 * tl_outfile_*) go to an unnamed temporary file (a spool, beside the bundle) through the
 * write-behind thread and are encoded when their output is committed, so that every entry of
 * the archive is contiguous whatever is open at once. Outputs of one stream (tl_outdir_open_sub,
 * rank_N/ on worker threads) share it under one mutex: one file is encoded at a time.
 */

/**
 * A format: how files become bytes of the output file. Called with the stream's mutex held,
 * one file at a time. name is the file's path in the report ('/'-separated).
 */
struct tl_outfmt_ops {
    const char *what; /* "archive", "page", ... for messages */
    /** The output file is fd (-1 for memory); the format writes to it (and may keep spools). */
    int (*begin)(void *st, int fd, struct tl_err *err);
    /** A whole file, from the caller's bytes. */
    int (*add)(void *st, const char *name, const void *p, size_t n, struct tl_err *err);
    /** A whole file, read from fd (size bytes at offset off; tl_spool_each reads them). */
    int (*add_fd)(void *st, const char *name, int fd, uint64_t off, uint64_t size,
                  struct tl_err *err);
    /** The end of the output: everything written out. */
    int (*finish)(void *st, struct tl_err *err);
    /** Release st (after finish, or instead of it on abort). */
    void (*free)(void *st);
};

/**
 * An output into the file path through fmt (its state st, which this takes over: freed with
 * fmt->free, on failure too). The file is written beside path (path.tlparse-XXXXXX) and
 * renamed into place by tl_outdir_commit, so a failed run leaves no half file; path must not
 * exist unless overwrite (TL_ERR_EXISTS), and must not be a folder.
 */
int tl_outdir_open_stream(struct tl_outdir *o, const char *path, bool overwrite,
                          const struct tl_outfmt_ops *fmt, void *st, struct tl_err *err);
/**
 * A .zip archive at path, its files in one top folder named after it (r.zip holds r/...).
 * Entries come in the order files are completed.
 */
int tl_outdir_open_zip(struct tl_outdir *o, const char *path, bool overwrite, struct tl_err *err);
/**
 * Files kept in memory (tests, a server): tl_outdir_read gives them back until the output is
 * committed or aborted, which frees them.
 */
void tl_outdir_open_memory(struct tl_outdir *o);
/**
 * The files of a memory output, in the order they were completed: *n of them, names[i] and
 * data[i] borrowed until commit or abort. -1 for other outputs.
 */
int tl_outdir_memory_files(struct tl_outdir *o, const char *const **names,
                           const struct tl_buf *const **data, size_t *n);

/* ---- for outdir.c -------------------------------------------------------------------- */

/* What the front asks of a stream backend (set by tl_outdir_open_stream): the folder's
 * operations, done on the stream. outdir.c calls them through this table only. */
struct tl_outstream_ops {
    int (*write)(struct tl_outdir *o, const char *rel, const void *p, size_t n, bool once,
                 struct tl_buf *used, struct tl_err *err);
    int (*create)(struct tl_outdir *o, const char *rel, int *fd, struct tl_buf *used,
                  struct tl_err *err);
    int (*open_sub)(struct tl_outdir *parent, const char *name, struct tl_outdir *child,
                    struct tl_err *err);
    int (*read)(struct tl_outdir *o, const char *rel, struct tl_buf *out, size_t max,
                struct tl_err *err);
    int (*list)(struct tl_outdir *o, const char *rel, char ***names, size_t *n);
    int (*spool)(struct tl_outdir *o, struct tl_err *err); /* beside the stream's file */
    bool (*is_dir)(struct tl_outdir *o, const char *rel);
    int (*commit)(struct tl_outdir *o, struct tl_err *err);
    void (*abort)(struct tl_outdir *o);
};
/** rel with its folders after the first flattened, and tag before the extension. */
void tl_outdir_flat_name(struct tl_buf *out, const char *rel, const char *tag);

#endif
