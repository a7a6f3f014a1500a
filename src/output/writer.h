/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * File writes on a second core. The report folder decides names on the
 * parser's thread, so that what a name becomes never depends on timing; it
 * then hands the bytes of each file to a worker that writes them and closes
 * the file, and, where it knows the outcome of creating the file already,
 * the creation too. Creating files and copying bytes into the page cache are
 * the largest costs of a run after parsing: on two cores they overlap with
 * parsing.
 *
 * Jobs run in submission order. Buffers are handed over, not copied, and
 * recycled. Bytes and files in flight are bounded (memory, and open files:
 * each queued job holds one). The first failure is kept: later jobs are not
 * written, only closed, and every later call reports that failure, so a run
 * stops with one message naming the file and the OS error.
 * With threads off every job runs inside the call that submits it.
 * Depends on buf, err, map (its hash).
 */
#ifndef TL_WRITER_H
#define TL_WRITER_H

#include "base/config.h"
#include "base/buf.h"
#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_writer;

/**
 * A writer for files of the folder named target (for messages: "cannot
 * write <target>/<name>: <OS error>"). With threads false, or when no thread
 * can be started, jobs run synchronously.
 */
struct tl_writer *tl_writer_new(const char *target, size_t max_inflight, bool threads);
/** Whether jobs run on a worker thread. */
bool tl_writer_threaded(const struct tl_writer *w);

/**
 * Append the bytes of *data to fd, then close fd when close_fd. Takes the
 * buffer's memory and leaves *data empty (with recycled memory, at least as much as it held). name
 * is copied. Blocks while too much is in flight. Returns -1 with err filled when this or an earlier
 * job failed; fd is closed then if close_fd.
 */
int tl_writer_give(struct tl_writer *w, int fd, bool close_fd, struct tl_buf *data,
                   const char *name, struct tl_err *err);
/** The same for bytes the caller keeps: they are copied. */
int tl_writer_write(struct tl_writer *w, int fd, bool close_fd, const void *p, size_t n,
                    const char *name, struct tl_err *err);
/**
 * Create a file and write p[0..n) to it, both on the worker: open(open_ctx, name) makes the
 * file and returns its fd (-1 with errno set: the job fails with that errno); the bytes are
 * copied; the file is closed when written. For a caller that knows already what the open
 * will do (the folder: a fresh name in its own temporary folder), so that where a file goes
 * still never depends on timing. open is not called after an earlier failure.
 */
int tl_writer_create_write(struct tl_writer *w, int (*open)(void *ctx, const char *name),
                           void *open_ctx, const void *p, size_t n, const char *name,
                           struct tl_err *err);
/** Whether a job for the file name[0..n) (as given to the calls here) is queued or running. */
bool tl_writer_pending(struct tl_writer *w, const char *name, size_t n);
/** Wait until every job has run; -1 with err filled if one failed. */
int tl_writer_sync(struct tl_writer *w, struct tl_err *err);
/**
 * Wait until the file name (as given to the calls above) is written, when
 * it has jobs queued or running; -1 with err filled if a job failed.
 */
int tl_writer_sync_file(struct tl_writer *w, const char *name, struct tl_err *err);
/**
 * Stop the worker and release everything. Jobs still queued are dropped,
 * their files closed unwritten: call tl_writer_sync() first to keep them.
 */
void tl_writer_free(struct tl_writer *w);

/** Write all of p[0..n) to fd, retrying short writes; -1 with errno set. */
int tl_write_all(int fd, const void *p, size_t n);

/**
 * Copy what is left of in to out: by the kernel (copy_file_range) when it can, else through a
 * buffer. Returns 0, or -1 with errno set.
 */
int tl_copy_fd(int in, int out);

/**
 * An unnamed temporary file (O_TMPFILE, else a name unlinked at once) in the folder of near
 * (the current folder for a plain name; $TMPDIR, else /tmp, for NULL), open for reading and
 * writing. Nothing is left behind, however the process ends. Returns the fd, or -1 with err.
 */
int tl_spool_open(const char *near, struct tl_err *err);

/**
 * The size bytes at off of the file fd, handed to each(ctx, piece, n, err) in pieces of at most
 * 256 KiB (one buffer). Returns 0, or -1: each failed, or fd could not be read (err names the
 * file as name; a file shorter than off + size is an error).
 */
int tl_spool_each(int fd, uint64_t off, uint64_t size, const char *name,
                  int (*each)(void *ctx, const void *p, size_t n, struct tl_err *err), void *ctx,
                  struct tl_err *err);

#endif
