/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Following logs while a job writes them (for tlparse --watch). PATH is one log file or a
 * TORCH_TRACE folder: its rank logs (rankfiles.h; a rank whose file appears later is picked up)
 * and the log of a job of one process (dedicated_log_torch_trace_<random>.log); other files
 * are ignored. PATH need not exist yet: it is waited for. tl_follow_next() hands out the bytes
 * appended since the last call as they are on disk, a line possibly cut anywhere (splitting
 * them is the caller's: lines.h), and what happened to the files: one is followed from now,
 * was truncated or replaced (start over from byte 0), or is refused (compressed, unreadable).
 * Knows nothing of the log format. Depends on err, xalloc, buf, arena, map, utf8, rankfiles.
 *
 * Why inotify and a poll: waiting should cost no CPU, and a change should be seen at once.
 * inotify gives both: the kernel says when a followed file is written, closed, unlinked or
 * moved, and when a file is created or renamed into the folder, so an idle follow sleeps in
 * poll() on one descriptor. But inotify only sees what this machine's kernel does: a log on
 * NFS (or another network file system) written from another host sends nothing, and events are
 * dropped when the kernel's queue overflows. So the sizes are also looked at every
 * TL_FOLLOW_SAFETY_MS as a safety net, and every TL_FOLLOW_POLL_MS when inotify is not there
 * (TL_FOLLOW_POLL, inotify_init1 failing, a watch that could not be added).
 *
 * Conventions: memory is one read buffer of TL_FOLLOW_CHUNK bytes plus a few bytes per file,
 * whatever the files' sizes. Files with new bytes are served in turn (round robin), a chunk
 * each, so that a busy rank does not starve the others. Each followed file is held open (one
 * descriptor per file): a log unlinked while the job still writes it reads to its end, and the
 * old file cannot free its inode number for the new one that replaces it. A file truncated
 * and written again past its old size between two looks cannot be told from one appended to.
 * Not thread-safe: one thread uses a follow.
 */
#ifndef TL_FOLLOW_H
#define TL_FOLLOW_H

#include "base/config.h"
#include "base/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Flags of tl_follow_open(). */
enum {
    TL_FOLLOW_POLL = 1,      /* no inotify: look at the sizes every TL_FOLLOW_POLL_MS */
    TL_FOLLOW_NO_SAFETY = 2, /* inotify without the look every TL_FOLLOW_SAFETY_MS (tests: what
                                inotify alone sees) */
};

/** The most bytes one TL_FOLLOW_DATA event hands out. */
#define TL_FOLLOW_CHUNK ((size_t)1 << 20)
/** How often the files are looked at without inotify. */
#define TL_FOLLOW_POLL_MS 500
/** How often they are looked at with inotify all the same (network file systems). */
#define TL_FOLLOW_SAFETY_MS 3000

struct tl_follow;

enum tl_follow_kind {
    TL_FOLLOW_FILE,    /* a file is followed from now: the first event of every file */
    TL_FOLLOW_DATA,    /* bytes appended: p[0..n) at byte off of the file */
    TL_FOLLOW_RESTART, /* truncated or replaced: drop what it gave, DATA from byte 0 follows */
    TL_FOLLOW_REFUSED, /* compressed, not a regular file, unreadable: never read again */
    TL_FOLLOW_IDLE,    /* the timeout passed (or a signal came) with nothing new */
};

struct tl_follow_event {
    enum tl_follow_kind kind;
    size_t file;      /* the file's index: 0, 1, 2... in the order of their FILE events */
    const char *path; /* the file's path (PATH, or PATH/name), valid until tl_follow_free;
                         NULL for IDLE */
    const char *name; /* its last component (in path) */
    long rank;        /* the rank its name gives (tl_rank_of_name), or -1 */
    const char *p;    /* DATA: the bytes (not NUL-terminated), valid until the next call */
    size_t n;         /* DATA: 1..TL_FOLLOW_CHUNK */
    uint64_t off;     /* DATA: where p starts in the file */
    const char *why;  /* RESTART, REFUSED: a sentence naming the file, valid until the next call
                         ("PATH was truncated (12345 -> 0 bytes): starting over") */
};

/**
 * Follow path (a log file or a folder of rank logs; a missing one is waited for). flags:
 * TL_FOLLOW_* bits. Returns 0 and *f (free with tl_follow_free), or -1 and err: TL_ERR_USAGE
 * for an empty path, TL_ERR_INPUT when path cannot be looked at (a folder that cannot be
 * read, a part of the path that is not a folder, no permission).
 */
int tl_follow_open(struct tl_follow **f, const char *path, unsigned flags, struct tl_err *err);
/** Close the files and free f (NULL is fine). */
void tl_follow_free(struct tl_follow *f);

/**
 * The next event: waits up to timeout_ms (-1: forever, 0: not at all) for one, else gives
 * TL_FOLLOW_IDLE. For each file: FILE first, then DATA, RESTART and DATA again, or one REFUSED
 * after which nothing more of it. Returns 0 and *ev, or -1 and err (TL_ERR_IO with the path: a
 * read failed, too many open files).
 */
int tl_follow_next(struct tl_follow *f, int timeout_ms, struct tl_follow_event *ev,
                   struct tl_err *err);

/**
 * Look at every file and the folder again at the next call, without waiting for inotify or
 * the next poll. For a final drain when the job ended: call it, then tl_follow_next(f, 0, ...)
 * until TL_FOLLOW_IDLE to get all that is on disk now.
 */
void tl_follow_rescan(struct tl_follow *f);

/**
 * The descriptor the follow holds open on the file of index file (as its events give it),
 * or -1 (refused, or not opened yet). It stays the file that was read even when its path is
 * unlinked or names another file since: read it with pread (or open /proc/self/fd/N), do not
 * close it. Valid until tl_follow_free.
 */
int tl_follow_fd(const struct tl_follow *f, size_t file);

/** tl_follow_next also ends its wait (with TL_FOLLOW_IDLE) when fd has something to read or
 * is closed at its other end (a job's output, read by the caller); -1: no longer. */
void tl_follow_wake_on(struct tl_follow *f, int fd);

/** Whether changes are seen through inotify (else the files are polled). */
bool tl_follow_inotify(const struct tl_follow *f);

#endif
