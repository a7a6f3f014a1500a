/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compile directory (spec core.md §1.8 step 8, §4.1, §5.4): for every
 * compile-directory key, in first-appearance order, the list of artifacts
 * (files and links) it produced, with their global numbers. This is what
 * index.html, compile_directory.json and the metrics pages list, and all of
 * it that stays in memory: a few dozen bytes per artifact. It also hands out
 * the output numbers N (the `_N` of file names, spec §3.1). The JSON file is
 * written by report/directory_json.c.
 * Depends on arena, map, buf, compile_id.
 */
#ifndef TL_DIRECTORY_H
#define TL_DIRECTORY_H

#include "base/config.h"
#include "base/arena.h"
#include "base/buf.h"
#include "input/compile_id.h"
#include "base/map.h"

#include <stdbool.h>
#include <stdint.h>

enum tl_cache_suffix {
    TL_SUFFIX_NONE,
    TL_SUFFIX_MISS,   /* ❌ */
    TL_SUFFIX_HIT,    /* ✅ */
    TL_SUFFIX_BYPASS, /* ❓ */
};

struct tl_artifact {
    struct tl_artifact *next;
    const char *url;          /* relative path, or a link's URL */
    const char *name;         /* == url for files; a link's name */
    const char *readable_url; /* NULL: none; "" for a failed readable page */
    const char *group;        /* the entry's subgraph_name (regional inductor), or NULL */
    uint32_t number;
    uint8_t suffix;  /* enum tl_cache_suffix */
    uint8_t is_link; /* url is a link from the log, not a file of the report */
};

/* What the compilation_metrics records of one compile id said. */
struct tl_overview_cid {
    double time_s;        /* entire_frame_compile_time_s, summed over its records */
    const char *function; /* co_name of its last record that had one (interned), or NULL */
    uint32_t nmetrics;    /* its compilation_metrics records */
    uint8_t status;       /* TL_CS_* bits (model.h) of its records, or'ed */
    bool has_time;        /* some record gave a (finite, non-negative) time */
};

struct tl_dirkey {
    bool unknown; /* the "unknown" key (absent compile id) */
    struct tl_compile_id id;
    const char *display; /* "[0/0]" or "(unknown)" */
    struct tl_artifact *first, *last;
    size_t n;
    struct tl_overview_cid *overview; /* what its own metrics records said (overview.h);
                                         NULL: none */
};

struct tl_directory {
    struct tl_arena *arena; /* borrowed */
    struct tl_map keys;     /* cid key bytes (or "unknown") -> struct tl_dirkey */
    uint32_t next_number;   /* the next output number N */
};

void tl_directory_init(struct tl_directory *d, struct tl_arena *arena);
void tl_directory_release(struct tl_directory *d);
/** The key for a compile id (NULL: the unknown key), created if new. */
struct tl_dirkey *tl_directory_key(struct tl_directory *d, const struct tl_compile_id *id);
/** Take the next output number N. */
static inline uint32_t tl_directory_number(struct tl_directory *d)
{
    return d->next_number++;
}
/** Append an artifact to k. Strings are copied. readable may be NULL. */
struct tl_artifact *tl_directory_add(struct tl_directory *d, struct tl_dirkey *k, const char *url,
                                     const char *name, uint32_t number, bool is_link);
/**
 * A compilation_metrics record of the compile id listed under key (kept in key->overview,
 * allocated in arena): or its status bits in, add its time (has_time false: none given), keep
 * its function (NULL: none; borrowed, must live as long as the run).
 */
void tl_dirkey_add_metrics(struct tl_arena *arena, struct tl_dirkey *key, uint8_t status,
                           bool has_time, double seconds, const char *function);
/** Append the folder name of a key: its compile id's folder ("-_0_0_0"), "(unknown)" for the
 * unknown key (the name its provenance page takes, spec modes.md §3.2). */
void tl_dirkey_folder(struct tl_buf *out, const struct tl_dirkey *k);

/**
 * k is a restart of a compilation ([1/0_1]) whose first attempt has no key of its own: append
 * the compilation's name without the attempt ("[1/0]", how the diagnosis names it) and
 * return true; else append nothing and return false.
 */
bool tl_dirkey_attempt_base(struct tl_buf *out, const struct tl_directory *d,
                            const struct tl_dirkey *k);
/** The cache suffix of a path (spec §3.1). */
enum tl_cache_suffix tl_cache_suffix_of(const char *path);
/** The suffix's text ("", "❌", "✅", "❓"). */
const char *tl_cache_suffix_text(uint8_t s);

#endif
