/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The output, as an interface with backends of equal standing, as SQLite's sqlite3_vfs is for
 * I/O: a report folder (folder.c), a .zip archive or a single HTML page written as a stream,
 * and memory (outstream.c). Callers write files by name (whole, or streamed through a struct
 * tl_outfile) and never hold a file descriptor; each backend is a table of operations (struct
 * tl_output_ops, at the end) behind these tl_outdir_* functions, which dispatch through it.
 *
 * The folder: everything is written into a temporary folder beside the target
 * (`.<name>.tlparse-XXXXXX`) through a directory fd, so no path can leave it; tl_outdir_commit()
 * renames it into place (swapping it with an old report atomically under --overwrite),
 * tl_outdir_abort() removes it. Names that come from a log go through tl_path_safe() first.
 * Reading back (tl_outdir_read, _read_open, _list, _is_dir) gives what the output holds: a
 * folder's files, memory's; a stream tells the names it gave and reads nothing back.
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
#include <sys/types.h>

struct tl_output_ops;

struct tl_outdir {
    const struct tl_output_ops *ops; /* the backend; NULL once committed or aborted */
    void *impl;                      /* its state */
    char *target;                    /* for messages: the folder or file as given */
    uint64_t bytes;                  /* bytes written */
    uint64_t files;                  /* files created */
    struct tl_writer *writer;        /* writes the bytes of files (see writer.h) */
    /* Temporary folders of killed runs into the same target, removed by tl_outdir_open()
     * (see leftovers.c): how many, and their names, for the caller to say so. */
    size_t nleftovers;
    struct tl_buf leftovers;
    /* tl_outdir_keep_failures: a failure to write is kept, not returned */
    bool keep_failure, failed;
    struct tl_err failure;
};

/* Bytes the writer may hold for files not yet written. */
#define WRITE_BEHIND_BYTES (4u << 20)

/**
 * The folder backend. Check the target and create the temporary folder, with its owner recorded
 * in it. Fails (TL_ERR_EXISTS) when the target exists and overwrite is false, and when it exists
 * but is not a folder. Creates the target's parent folders, and removes the temporary
 * folders of earlier runs into the same target whose process is gone (o->nleftovers).
 */
int tl_outdir_open(struct tl_outdir *o, const char *target, bool overwrite, struct tl_err *err);
/**
 * Write (create or replace) rel with n bytes. Parent sub-folders are created. When rel cannot
 * be created as it is (a folder of that name exists, a parent is a file, the path is too long),
 * a flattened variant in the same top folder is used, made unique with "~N": the name used is
 * appended to *used when used is not NULL.
 */
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
 * Replace rel (a fixed name of ours, in the top folder) with n bytes at once, in the calling
 * thread: a reader of the output sees its old bytes or the new ones, never a part (a live
 * report's status, rewritten while a browser polls it).
 */
int tl_outdir_replace(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                      struct tl_err *err);
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
 * A sub-folder of an open output (a multi-rank run's rank_N/): child writes into parent's
 * temporary folder or stream, with its own writer; its commit only waits for its writes, and
 * the parent's commit or abort takes it along; its abort removes what it wrote (a stream's
 * sub-output holds its files until its commit). The name is ours (not from a log).
 */
int tl_outdir_open_sub(struct tl_outdir *parent, const char *name, struct tl_outdir *child,
                       struct tl_err *err);
/**
 * An existing folder, written in place (a multi-rank run's landing page added beside the
 * rank_N/ folders of another machine's runs; a live report's status): files are created or
 * replaced directly; commit waits for the writes, abort leaves what was written.
 */
int tl_outdir_open_in_place(struct tl_outdir *o, const char *path, struct tl_err *err);
/**
 * Read rel of the output back into out (appended), after its writes have landed; -1 when it
 * cannot be read or is bigger than max bytes (err says which).
 */
int tl_outdir_read(struct tl_outdir *o, const char *rel, struct tl_buf *out, size_t max,
                   struct tl_err *err);

/* A file of the output read back in pieces (a rank's chromium_events.json under
 * --from-summaries, which may be big). */
struct tl_outread {
    int fd; /* the output's; callers use the functions below */
};
/** Open rel of the output for reading, after its writes have landed; -1 when it cannot be. */
int tl_outdir_read_open(struct tl_outdir *o, const char *rel, struct tl_outread *r,
                        struct tl_err *err);
/** Up to n next bytes into p: how many, 0 at the end, -1 with errno on failure. */
ssize_t tl_outread_some(struct tl_outread *r, void *p, size_t n);
void tl_outread_close(struct tl_outread *r);

/**
 * The names of the entries of the folder rel ("" for the top), without "." and "..", sorted
 * by name, or in the order the file system lists them with fs_order (a stream: the names it
 * gave, in name order). *names is malloc'd, each name too (tl_outdir_list_free). -1 when rel
 * cannot be listed.
 */
int tl_outdir_list(struct tl_outdir *o, const char *rel, bool fs_order, char ***names, size_t *n);
void tl_outdir_list_free(char **names, size_t n);
/**
 * Remove the file rel if it is there (a file of an earlier run, in a folder written in place);
 * nothing on a stream, which holds only this run's files. 0, or -1 when it cannot be removed.
 */
int tl_outdir_remove(struct tl_outdir *o, const char *rel);
/**
 * Remove the folder rel of the output and all it holds (a rank's folder of a live report,
 * written again from its start), wherever the output is now: its temporary folder, or the
 * target once published. 0 when it is not there, and on a backend that holds no folders;
 * -1 when it cannot be removed.
 */
int tl_outdir_remove_folder(struct tl_outdir *o, const char *rel);
/** Whether rel is a folder of the output. */
bool tl_outdir_is_dir(struct tl_outdir *o, const char *rel);

/**
 * Move the report into place before it is finished (a live report, --watch): the folder is at
 * its target from then on, and written there; tl_outdir_commit() then only waits for the
 * writes, tl_outdir_abort() leaves what is there. Files written again later are best replaced
 * (tl_outdir_replace) so that a reader never sees a part. Only a folder can; 0 when it is in
 * place already.
 */
int tl_outdir_publish(struct tl_outdir *o, struct tl_err *err);
/**
 * From now on a failure to write (a file, a flush, a sync) is kept instead of returned: the
 * output drops every file from then on (tl_outdir_detach), the run goes on, and
 * tl_outdir_commit() returns the failure. For a live report, whose log is still read for its
 * diagnosis when its folder cannot be written any more.
 */
void tl_outdir_keep_failures(struct tl_outdir *o);
/** Whether a failure was kept (err: a copy of it, when not NULL). */
bool tl_outdir_failed(const struct tl_outdir *o, struct tl_err *err);
/**
 * An output whose files are written to upper and read back from lower (overlay.c): a live
 * report's generation rendered into memory from a report folder's listing. Both stay open and
 * must outlive o; committing or aborting o releases o only.
 */
void tl_outdir_open_overlay(struct tl_outdir *o, struct tl_outdir *lower, struct tl_outdir *upper);
/** An output that drops every file (the front's own, in outdir.c). */
void tl_outdir_open_discard(struct tl_outdir *o);
/**
 * Give the output up while its run goes on: it is aborted (a published folder stays as it
 * is), and from then on every file written through o is dropped. Files that were open keep
 * their descriptors (their bytes go to files no longer in the output).
 */
void tl_outdir_detach(struct tl_outdir *o);
/** Move the finished report into place. The struct is released either way. */
int tl_outdir_commit(struct tl_outdir *o, struct tl_err *err);
/** Remove the temporary folder and release the struct. Safe to call twice. */
void tl_outdir_abort(struct tl_outdir *o);

/* A file of the output written in pieces: append to buf, then tl_outfile_maybe_flush. */
struct tl_outfile {
    struct tl_buf buf;
    const char *name; /* for messages; borrowed */
    struct tl_outdir *dir;
    int fd; /* the output's own, -1 when not open: callers never use it */
};

/** A closed file (tl_outfile_is_open false), for a struct to be opened later. */
void tl_outfile_init(struct tl_outfile *f);
bool tl_outfile_is_open(const struct tl_outfile *f);
/** Open rel (a fixed name of ours) for buffered writing. */
int tl_outfile_open(struct tl_outfile *f, struct tl_outdir *o, const char *rel, struct tl_err *err);
/**
 * Open an unnamed temporary file for buffered writing, through o's writer, on o's file system
 * but not part of it (a spool, appended to a file of the output by tl_outfile_append; nothing
 * is left however the run ends). name is for messages (borrowed).
 */
int tl_outfile_open_spool(struct tl_outfile *f, struct tl_outdir *o, const char *name,
                          struct tl_err *err);
/** Flush if more than a threshold is buffered. */
int tl_outfile_maybe_flush(struct tl_outfile *f, struct tl_err *err);
int tl_outfile_flush(struct tl_outfile *f, struct tl_err *err);
/**
 * Append the whole of the spool src (from its start) to f, behind what f holds: by the kernel
 * (copy_file_range) where it can. Both stay open.
 */
int tl_outfile_append(struct tl_outfile *f, struct tl_outfile *src, struct tl_err *err);
/**
 * Append what is left of the file in (an input of the caller's, not of the output) to f, by the
 * kernel where it can: raw.log's copy of a plain log. Safe on a thread of the caller's while
 * other files of the output are written, when nothing else is written to f meanwhile.
 */
int tl_outfile_copy_fd(struct tl_outfile *f, int in, struct tl_err *err);
/**
 * Move the spool f to the output to (whose writer then writes and closes it), its pending
 * writes landed first: a spool that outlives the output it was opened on.
 */
int tl_outfile_move(struct tl_outfile *f, struct tl_outdir *to, struct tl_err *err);
/** Flush and close; the struct is released either way (and may be closed again). */
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
 * The backends other than the folder: the report's files go straight into one file (a .zip, a
 * single HTML page) or into memory, through a format (struct tl_outfmt_ops), with no folder on
 * disk.
 *
 * Names are decided as the folder decides them (made unique with the same "~N" and flat
 * variants), from a table of the names given so far. Files written whole (tl_outdir_write and
 * friends) are encoded at once from the caller's bytes; files streamed (tl_outfile_*) go to an
 * unnamed temporary file (a spool, beside the bundle) through the write-behind thread and are
 * encoded when their output is committed, so that every entry of the archive is contiguous
 * whatever is open at once. Outputs of one stream (tl_outdir_open_sub, rank_N/ on worker
 * threads) share it under one mutex: one file is encoded at a time.
 */

/* Where a format writes: the output file (section 0), and sections 1..fmt->sections spooled
 * beside it until the format appends them (a page puts index.html first and raw.log last,
 * whatever order the files come in). */
struct tl_outfmt_io;
/** Write n bytes to a section of the output file. */
int tl_outfmt_write(struct tl_outfmt_io *io, unsigned section, const void *p, size_t n,
                    struct tl_err *err);
/** Append sections 1..fmt->sections to the output file, in order (once, at the end). */
int tl_outfmt_append_sections(struct tl_outfmt_io *io, struct tl_err *err);

/**
 * A format: how files become bytes of the output file. Called with the stream's mutex held,
 * one file at a time. name is the file's path in the report ('/'-separated).
 */
struct tl_outfmt_ops {
    const char *what;  /* "archive", "page", ... for messages */
    unsigned sections; /* spooled sections beside the output file (at most 4) */
    /** The output file is io (NULL for memory); the format writes to it. */
    int (*begin)(void *st, struct tl_outfmt_io *io, struct tl_err *err);
    /** A file of size bytes, which file_data then gives in pieces, and file_end ends. */
    int (*file_begin)(void *st, const char *name, uint64_t size, struct tl_err *err);
    int (*file_data)(void *st, const void *p, size_t n, struct tl_err *err);
    int (*file_end)(void *st, struct tl_err *err);
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
 * The files of a memory output, in the order they were completed (streamed ones: once their
 * writes landed, which this waits for): *n of them, names[i] and data[i] borrowed until commit
 * or abort. -1 for other outputs, or when a streamed file cannot be read back.
 */
int tl_outdir_memory_files(struct tl_outdir *o, const char *const **names,
                           const struct tl_buf *const **data, size_t *n);

/* ---- the backend interface ------------------------------------------------------------
 *
 * What every backend implements (folder.c, outstream.c), as sqlite3_vfs does for SQLite; the
 * tl_outdir_* functions above dispatch to it and add nothing a backend could do differently.
 * Backends open o with o->ops, o->impl, o->target and o->writer set (tl_outdir_init_front);
 * a streamed file is a descriptor the backend gives the front, whose writer fills and closes
 * it (a folder's file, a stream's spool). Names are relative to the output, '/'-separated.
 */
struct tl_output_ops {
    const char *what; /* "folder", "archive", "page", "memory" */
    /** Create (or truncate) rel for streaming: *fd, filled and closed by o->writer. */
    int (*create)(struct tl_outdir *o, const char *rel, struct tl_buf *used, int *fd,
                  struct tl_err *err);
    /** rel whole, from p[0..n) (tl_outdir_write). */
    int (*write)(struct tl_outdir *o, const char *rel, const void *p, size_t n, struct tl_buf *used,
                 struct tl_err *err);
    /** rel whole unless the same bytes are there (tl_outdir_write_once, _write_rightful:
     * rightful NULL for the first). */
    int (*write_once)(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                      bool (*rightful)(const void *p, size_t n, void *ctx), void *ctx,
                      struct tl_buf *used, struct tl_err *err);
    /** rel replaced at once, synchronously (tl_outdir_replace). */
    int (*replace)(struct tl_outdir *o, const char *rel, const void *p, size_t n,
                   struct tl_err *err);
    /** An unnamed temporary file beside the output, read and written: *fd. */
    int (*spool)(struct tl_outdir *o, const char *name, int *fd, struct tl_err *err);
    int (*open_sub)(struct tl_outdir *parent, const char *name, struct tl_outdir *child,
                    struct tl_err *err);
    /** rel appended to out (its writes landed), at most max bytes. */
    int (*read)(struct tl_outdir *o, const char *rel, struct tl_buf *out, size_t max,
                struct tl_err *err);
    /** rel open for reading: *fd (its writes landed). */
    int (*read_open)(struct tl_outdir *o, const char *rel, int *fd, struct tl_err *err);
    int (*list)(struct tl_outdir *o, const char *rel, bool fs_order, char ***names, size_t *n);
    int (*remove)(struct tl_outdir *o, const char *rel);
    /** The folder rel and all it holds removed (tl_outdir_remove_folder); NULL: nothing. */
    int (*remove_folder)(struct tl_outdir *o, const char *rel);
    bool (*is_dir)(struct tl_outdir *o, const char *rel);
    /** The output complete, in place; everything released, on failure too. */
    int (*commit)(struct tl_outdir *o, struct tl_err *err);
    /** The output in place before it is complete, written there from then on; NULL: a
     * backend that cannot (tl_outdir_publish). */
    int (*publish)(struct tl_outdir *o, struct tl_err *err);
    /** Nothing of the output left (but what an in-place one wrote); everything released. */
    void (*abort)(struct tl_outdir *o);
};

/** For backends: o emptied and its common fields set (target copied); o->impl is st. */
void tl_outdir_init_front(struct tl_outdir *o, const struct tl_output_ops *ops, void *st,
                          const char *target);
/** For backends: the common fields released (o->ops NULL). */
void tl_outdir_release_front(struct tl_outdir *o);
/** rel with its folders after the first flattened, and tag before the extension. */
void tl_outdir_flat_name(struct tl_buf *out, const char *rel, const char *tag);

#endif
