/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a torch.export trace says (spec modes.md §2): the symbolic expressions export built
 * (expression_created, create_unbacked_symbol), indexed by id so that a guard's expression
 * can be shown as the tree it came from; the problems that kept export from producing a
 * sound graph (a guard evaluated on a dynamic size, a data-dependent expression export had
 * to specialize, a missing or wrong fake kernel), in log order; and the guards and
 * specializations export added. Records of the current and the older PyTorch formats are
 * understood: propagate_real_tensors_provenance and propagate_real_tensors, guard_added and
 * guard_added_fast; a field that is missing is shown as missing, never assumed.
 *
 * Memory grows with the expressions and problems of the log (each kept once), not with its
 * bytes; the list of guards added is capped. Strings and frames are interned in the model's
 * string pool (the trie's). Depends on base, input and model.
 */
#ifndef TL_EXPORT_H
#define TL_EXPORT_H

#include "base/config.h"
#include "base/arena.h"
#include "base/json.h"
#include "base/map.h"
#include "base/str.h"
#include "model/stack_trie.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_record;

/* One symbolic expression (a node of a guard's expression tree). */
struct tl_export_node {
    uint64_t id;
    const char *result; /* "u0", "Eq(s0, 3)" */
    const char *method; /* NULL for an unbacked symbol */
    const char **arguments;
    size_t narguments;
    uint64_t *argument_ids; /* its children, in order */
    size_t nargument_ids;
    const struct tl_iframe *user_stack, *stack;
    size_t n_user_stack, n_stack;
};

enum tl_export_problem_kind {
    TL_EXPORT_PROBLEM_GUARD,           /* guard_added with prefix "eval" */
    TL_EXPORT_PROBLEM_DATA,            /* propagate_real_tensors(_provenance) */
    TL_EXPORT_PROBLEM_MISSING_FAKE,    /* missing_fake_kernel */
    TL_EXPORT_PROBLEM_MISMATCHED_FAKE, /* mismatched_fake_kernel */
};

/* A problem that blocked export, with what the page shows of it. */
struct tl_export_problem {
    enum tl_export_problem_kind kind;
    const char *expr, *result; /* the guard or expression, and what it was specialized to */
    const char *op, *reason;   /* a fake kernel's op and why it is wrong */
    const char *page;          /* its symbolic_guard_information page, or NULL */
    uint64_t lineno;
};

/* A guard or specialization export added (what the export report lists besides its
 * problems). */
struct tl_export_guard {
    const char *kind; /* "guard", "guard (fast path)", "specialization" */
    const char *expr;
    const struct tl_iframe *where; /* the user's frame (the last of its user stack), or NULL */
    const char *code;              /* else the line of code the log names (frame_locals.loc) */
    uint64_t lineno;
};

/* At most this many guards added are listed (the count goes on). */
#define TL_EXPORT_MAX_GUARDS 1000

struct tl_export {
    struct tl_trie *pool;  /* interns strings and frames (the model's trie); borrowed */
    struct tl_arena arena; /* the nodes, problems and lists */
    struct tl_map nodes;   /* id (8 bytes) -> struct tl_export_node */
    struct tl_export_problem *problems;
    size_t nproblems, problems_alloc;
    struct tl_export_guard *guards;
    size_t nguards, guards_alloc;
    uint64_t guards_total;
};

void tl_export_init(struct tl_export *x, struct tl_trie *pool);
void tl_export_release(struct tl_export *x);

/* What a record means for export (tl_export_view). */
struct tl_export_view {
    /* a problem, when has_problem; its expression node, when has_node */
    bool has_problem, has_node;
    struct tl_export_problem problem;
    uint64_t node_id;
    /* the record's fields for the symbolic-guard page (NULL when absent) */
    const struct tl_json *frame_locals;
    const struct tl_iframe *user_stack, *stack;
    size_t n_user_stack, n_stack;
};

/**
 * Take in a record of an export trace: index its expression, keep its guard; when it is a
 * problem, fill *v (strings interned, stacks interned) and return true. The problem is not
 * kept yet: the caller adds it with tl_export_add_problem() once its page is named.
 * v->frame_locals points into the record (valid during the record only).
 */
bool tl_export_take(struct tl_export *x, const struct tl_record *r, struct tl_export_view *v,
                    struct tl_arena *scratch);
/** Keep a problem (page copied). */
void tl_export_add_problem(struct tl_export *x, const struct tl_export_problem *p);
/** The node of an id, or NULL. */
const struct tl_export_node *tl_export_node(const struct tl_export *x, uint64_t id);

#endif
