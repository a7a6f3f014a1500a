/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Why a cache missed: the FX graph and AOT autograd cache lookups of a log (their artifacts:
 * fx_graph_cache_{hit,miss,bypass}, aotautograd_cache_{hit,miss,bypass} and PyTorch 2.6's
 * aotautograd_cache_hash), each with the components of its key as PyTorch lists them
 * ("[hash] name: value"). For every miss, the nearest earlier entry of the same cache that hit
 * or was stored (a miss is stored once compiled; a bypass never is) and the components whose
 * hashes differ from it, in words. Nearest: among the earlier entries of the same cache for the
 * same kind of graph (forward, backward, inference, when the keys say), the one sharing the
 * most component hashes; among equals, the one whose differing tensor inputs differ in the
 * fewest fields; then the latest. None: the miss is of a cold cache.
 * It knows no page and no output; strings live in its own arena.
 */
#ifndef TL_CACHEKEY_H
#define TL_CACHEKEY_H

#include "base/config.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/map.h"
#include "base/str.h"

#include <stdbool.h>
#include <stdint.h>

struct tl_json;

enum { TL_CK_FX_GRAPH, TL_CK_AOTAUTOGRAD };
enum { TL_CK_HIT, TL_CK_MISS, TL_CK_BYPASS };

/* One component of a key: "[hash] name: value"; strings interned in the set's arena. */
struct tl_ck_comp {
    const char *name, *hash, *value;
};

/* One cache lookup. */
struct tl_ck_entry {
    const char *cid;                       /* "[0/1]", or NULL when the record had none */
    uint8_t cache, state;                  /* TL_CK_FX_GRAPH..., TL_CK_HIT... */
    const char *key, *detail, *guard_expr; /* NULL when not given */
    const char *reason;                    /* a bypass's reason, or NULL */
    struct tl_ck_comp *comps;              /* by interned name (pointer order) once finished */
    uint32_t ncomps, comps_alloc;
    bool from_event;   /* said by a chromium event (PyTorch 2.6's AOT autograd verdicts) */
    bool comps_shared; /* comps is an earlier entry's (the same key, the same components) */
    const char *role;  /* tl_cachekey_role(), set by tl_cachekey_finish() */
    uint32_t origin;   /* the log it is of, when several are compared (tl_cachekey_across) */
};

/* A component that differs between a miss and its nearest entry. */
struct tl_ck_diff {
    const char *component;
    const char *before, *after; /* values, or the hashes shortened when a value says nothing;
                                   NULL: absent on that side */
    const char *words;          /* "inductor config `max_autotune` changed (False → True)" */
};

/* A miss explained. Its own facts are copied out of the entries, so that a summary read
 * back (tl_cachekey_read) gives the same misses without them. */
struct tl_ck_miss {
    const struct tl_ck_entry *e;       /* NULL when read back */
    const struct tl_ck_entry *nearest; /* NULL: none (cold), or read back */
    const char *cid, *role, *key;      /* the miss's: compile id, tl_cachekey_role(), key */
    uint8_t cache;
    bool has_nearest; /* an earlier entry to compare with */
    const char *nearest_cid, *nearest_key;
    bool listed;              /* the log lists the components of its key */
    bool new_graph;           /* the nearest entry is of another graph (gm differs) */
    const char *note;         /* what the differing components do not say, or NULL */
    struct tl_ck_diff *diffs; /* by component name */
    uint32_t ndiffs;
};

/* A bypass: the cache was not used for this lookup. */
struct tl_ck_bypass {
    const char *cid, *reason; /* NULL when not given */
    uint8_t cache;
};

struct tl_ck_digest;

struct tl_cachekey {
    struct tl_arena arena;
    struct tl_map strings;
    struct tl_map lines;         /* component lines seen: their parts (struct tl_ck_comp) */
    struct tl_ck_entry *entries; /* log order */
    uint32_t nentries, entries_alloc;
    struct tl_map by_key;      /* (key, cache, from_event) -> index + 1 of its entry owning comps */
    struct tl_ck_miss *misses; /* after tl_cachekey_finish(), log order */
    uint32_t nmisses, misses_alloc;
    struct tl_ck_bypass *bypasses; /* the same */
    uint32_t nbypasses, bypasses_alloc;
    bool finished;
    const struct tl_ck_digest *digest; /* read back (tl_cachekey_read): the summary's "keys" */
};

void tl_cachekey_init(struct tl_cachekey *ck);
void tl_cachekey_release(struct tl_cachekey *ck);

/**
 * Whether an artifact name is a cache lookup this module reads; sets *cache (TL_CK_*) and
 * *state (TL_CK_HIT..., or -1 when the payload's cache_state says it: aotautograd_cache_hash).
 */
bool tl_cachekey_artifact(struct tl_str name, int *cache, int *state);

/**
 * A lookup of the log: the artifact's name, the display of its compile id (NULL: none) and its
 * JSON payload (borrowed for the call). Ignored when the name is not a cache lookup or the
 * payload not an object. Returns the lookup's state (TL_CK_HIT...), or -1 when ignored.
 */
int tl_cachekey_add(struct tl_cachekey *ck, struct tl_str name, const char *cid,
                    const struct tl_json *payload);

/**
 * A chromium event's AOT autograd verdict ("autograd_cache_hit", "_miss", "_bypass", with the
 * lookup in its args): counted only when the log has no aotautograd_cache_* artifact (2.6
 * writes both, older logs the event only).
 */
void tl_cachekey_add_event(struct tl_cachekey *ck, struct tl_str event_name, const char *cid,
                           const struct tl_json *args);

/** Add one entry directly (for tests and other sources); strings are copied. */
struct tl_ck_entry *tl_cachekey_entry(struct tl_cachekey *ck, int cache, int state, const char *cid,
                                      const char *key);
/** Add a component line "[hash] name: value" to e (the last entry added). */
void tl_cachekey_component(struct tl_cachekey *ck, struct tl_ck_entry *e, struct tl_str line);

/** Explain every miss (idempotent; call once the log is read). */
void tl_cachekey_finish(struct tl_cachekey *ck);

/**
 * The misses and bypasses of a summary's "cache" object read back (what tl_cachemiss_json
 * wrote); ck has no entries then. Members of the wrong type are skipped.
 */
void tl_cachekey_read(struct tl_cachekey *ck, const struct tl_json *cache);

/**
 * Compare miss with an earlier entry (both of a finished set): how many components share their hash
 * (*shared) and how many differ, counting a tensor input by the fields of its metadata that differ
 * (*cost).
 */
void tl_cachekey_distance(const struct tl_ck_entry *miss, const struct tl_ck_entry *other,
                          uint32_t *shared, uint32_t *cost);

/** The words for a differing component (before or after NULL: absent), appended to out. */
void tl_cachekey_words(struct tl_buf *out, const char *component, const char *before,
                       const char *after);

/** "fx_graph" or "aotautograd". */
const char *tl_cachekey_cache_name(int cache);
/** The graph a lookup is for, from its fx_kwargs: "forward", "backward", "inference", or NULL. */
const char *tl_cachekey_role(const struct tl_ck_entry *e);

/* ---- across logs: the ranks of a run, the two sides of a diff ---------------------------- */

/* At most this many lookups of a log are kept in its digest (the first, in log order, of each
 * key and state); the others are counted as dropped. */
#define TL_CK_DIGEST_MAX 64
/* At most this many components of a lookup are kept. */
#define TL_CK_DIGEST_MAX_COMPS 1024

/* A lookup of a digest: its components by index into the digest's table. */
struct tl_ck_digest_entry {
    const char *cid, *key, *role; /* NULL when not given */
    uint8_t cache, state;         /* TL_CK_*; never a bypass */
    const uint32_t *comps;
    uint32_t ncomps;
};

/* A log's hits and misses with the components of their keys, compactly: each distinct
 * component once (its value only when short enough to be said in words, else ""), each
 * lookup by indexes; what summary.json's "cache"."keys" holds, so that a log can be compared
 * with another from its summary alone. All of it lives in the arena it was made in. */
struct tl_ck_digest {
    struct tl_ck_comp *comps;
    uint32_t ncomps;
    struct tl_ck_digest_entry *entries;
    uint32_t nentries;
    uint32_t dropped; /* lookups with components left out (over TL_CK_DIGEST_MAX) */
};

/** The digest of a finished set (NULL: ck has no hit or miss with components; a set read back
 *  gives its digest read back); allocated in arena. */
const struct tl_ck_digest *tl_cachekey_digest(const struct tl_cachekey *ck, struct tl_arena *arena);

/** A digest from summary.json's "cache"."keys" (NULL: not there, or not a digest); allocated
 *  in arena. Indexes out of range and members of the wrong type are skipped. */
const struct tl_ck_digest *tl_cachekey_digest_read(const struct tl_json *keys,
                                                   struct tl_arena *arena);

/* The misses of one key in one or more logs, explained against the nearest entry of another
 * log. */
struct tl_ck_across_miss {
    const uint32_t *origins; /* the logs that missed with this key, ascending */
    const char **cids;       /* the compile id of each log's first such miss (NULL: none) */
    uint32_t nlogs;
    const char *role, *key;       /* the key's */
    uint8_t cache, against_state; /* TL_CK_*: the other entry hit (TL_CK_HIT) or was stored */
    uint32_t against;             /* the other entry's log */
    const char *against_cid, *against_key;
    struct tl_ck_diff *diffs; /* by component name; never empty */
    uint32_t ndiffs;
};

struct tl_ck_across {
    struct tl_ck_across_miss *misses; /* by the first log that missed, then log order */
    uint32_t nmisses;
    uint32_t unexplained; /* keys that missed with no like entry elsewhere (only other graphs,
                             or none of that cache and kind of graph) */
    uint32_t dropped;     /* lookups the digests left out, summed */
    uint32_t uncompared;  /* keys that missed over the first TL_CK_ACROSS_MAX, not compared */
};

/* At most this many keys that missed are compared with the other logs' entries (each costs a
 * pass over them all). */
#define TL_CK_ACROSS_MAX 128

enum {
    TL_CK_ACROSS_ANY,   /* a miss of any log against the entries of every other log */
    TL_CK_ACROSS_FIRST, /* a miss of the later logs against the entries of the first only */
};

/**
 * Explain the misses of the digests (of logs named origins[i]) against each other's entries,
 * key by key, as within a log: the nearest entry of the same cache and kind of graph, with
 * another key, that hit or was stored in another log (most components alike; then fewest
 * tensor fields apart; then the first log, the first entry). A key is left out when another
 * log allowed to be compared with has it too (TL_CK_ACROSS_FIRST), or when it hit in some
 * log (TL_CK_ACROSS_ANY: its misses were a cold cache, not a difference), or when an earlier
 * entry of the first log that missed it is as near as the other logs' nearest
 * (TL_CK_ACROSS_ANY: a recompile its own log explains, such as a new shape no rank had), or
 * when its nearest entry is of another graph (counted as unexplained). NULL digests are
 * skipped. Everything out points to is in arena.
 */
void tl_cachekey_across(struct tl_ck_across *out, const struct tl_ck_digest *const *digests,
                        const uint32_t *origins, size_t n, int how, struct tl_arena *arena);

#endif
