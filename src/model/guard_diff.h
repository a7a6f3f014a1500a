/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The guards a cache entry was built with, made comparable, and what differs between two
 * entries of a frame. A guard comes as a line of PyTorch's guard tree (dynamo_cpp_guards_str,
 * TORCH_LOGS "guards": "| | +- EQUALS_MATCH: L['k'] == 0   # return x + k  # f.py:11") or as the
 * code of a dynamo_guards record. Normalizing drops the tree, the guard's kind and the user-code
 * comment, and numbers that name a compilation's own globals (G['__builtins_dict___2']); a
 * guard's key is what it guards with object ids and addresses masked, its value the rest as
 * logged, so that two entries' guards on one thing pair up as "changed". Depends on base only.
 */
#ifndef TL_GUARD_DIFF_H
#define TL_GUARD_DIFF_H

#include "base/config.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/str.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One guard, normalized; strings in its set's arena. */
struct tl_guard {
    const char *text;  /* as shown: "L['k'] == 0", "___check_obj_id(L['m'], <id>)" */
    const char *key;   /* what it guards: "L['k'] ==", "___check_obj_id(L['m'], ...)" */
    const char *value; /* the part that may change, as logged: "0", "140234" ("" if none) */
};

/* The guards of one cache entry, in the order logged. */
struct tl_guard_set {
    struct tl_arena arena;
    struct tl_guard *g;
    uint32_t n, alloc;
};

void tl_guard_set_init(struct tl_guard_set *s);
void tl_guard_set_release(struct tl_guard_set *s);

/**
 * A guard tree line into text, key and value (each reset first); false for a line that is
 * no guard (the tree's managers, its header, "Guard latency = ...", blank lines).
 */
bool tl_guard_normalize(struct tl_str line, struct tl_buf *text, struct tl_buf *key,
                        struct tl_buf *value);

/** Add a line of a guard tree (skipped when it is no guard). */
void tl_guard_set_add_line(struct tl_guard_set *s, struct tl_str line);
/** Add every guard of a guard tree's text (lines separated by '\n'). */
void tl_guard_set_add_tree(struct tl_guard_set *s, struct tl_str tree);

enum tl_guard_change_kind {
    TL_GUARD_CHANGED, /* the same thing guarded, with another value */
    TL_GUARD_ADDED,   /* in the later entry only */
    TL_GUARD_REMOVED, /* in the earlier entry only */
};

/* A difference between two entries. guard: the text of an added or removed guard, the key of
 * a changed one; before and after: a changed guard's values, only the parts that differ
 * (arguments of a call, fields of a JSON object), NULL otherwise. */
struct tl_guard_change {
    enum tl_guard_change_kind kind;
    const char *guard, *before, *after;
};

/** The name of a change's kind: "changed", "added", "removed". */
const char *tl_guard_change_name(enum tl_guard_change_kind k);

/**
 * What differs from a (the earlier entry) to b: changed guards first, then added, then
 * removed, each in the order its entry logged them; at most max kept in out, their strings in
 * arena. Returns how many differences there are in all (those past max too).
 */
size_t tl_guard_diff(const struct tl_guard_set *a, const struct tl_guard_set *b,
                     struct tl_guard_change *out, size_t max, struct tl_arena *arena);

#endif
