/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rules of the diagnosis, in one place: for each symptom a log can show (a failing guard,
 * a graph-break reason, a specialization, a failure), what it means in plain words and how
 * to fix it, after PyTorch's own troubleshooting guides. Rules match text by substrings, in
 * table order; the last rule of each table catches everything. Depends on base only.
 */
#ifndef TL_ADVICE_H
#define TL_ADVICE_H

#include "base/config.h"
#include "base/buf.h"
#include "base/str.h"

#include <stdbool.h>
#include <stddef.h>

enum tl_advice_table {
    TL_ADVICE_GUARD,           /* a guard that failed, so the function compiled again */
    TL_ADVICE_GRAPH_BREAK,     /* a graph-break reason */
    TL_ADVICE_SHAPE,           /* a specialization or guard on a symbolic size */
    TL_ADVICE_FAILURE,         /* a failed compilation (its exception type and reason) */
    TL_ADVICE_LIMIT,           /* the recompile limit was hit */
    TL_ADVICE_FRAME,           /* a function compiled many times */
    TL_ADVICE_EXPORT,          /* a problem that stops torch.export (matched on its kind's name) */
    TL_ADVICE_FRAMEWORK_BREAK, /* a graph break inside PyTorch's own code (its reason) */
    TL_ADVICE_RESTART,         /* a restart that is no graph break (matched on its kind) */
};

struct tl_advice {
    const char *category;    /* stable id for tools and tests: "shape_changed", ... */
    const char *title;       /* one line: what happened */
    const char *explanation; /* why, in plain words */
    const char *fix;         /* what to do; may name {tensor}, {index}, {expr}, {value}, {limit},
                                {limit_name}, {op}, {qualname}, {inside}, {what}, {check},
                                {dim}, {callee} */
};

/* The text a recompile is matched on in TL_ADVICE_GUARD when it is automatic dynamic shapes
 * at work (a size changed once and became dynamic): no guard reads so. */
#define TL_ADVICE_AUTOMATIC_DYNAMIC "\x01automatic dynamic"
/* ... and when it made a Python number (an int or a float argument) dynamic. */
#define TL_ADVICE_AUTOMATIC_DYNAMIC_NUMBER "\x01automatic dynamic number"
/* ... a float, in a log of PyTorch before 2.7 or of no known version: compile(dynamic=True)
 * does not make a float dynamic from the first call in 2.6, as it does in 2.13. */
#define TL_ADVICE_AUTOMATIC_DYNAMIC_FLOAT "\x01automatic dynamic float"
/* The text a guard on dynamic sizes is matched on in TL_ADVICE_SHAPE when a recompile shows
 * that sizes outside the range it bounds came: the branch it is on compiled both sides. */
#define TL_ADVICE_SIZE_BRANCH "\x01size branch"
/* The text a limit is matched on in TL_ADVICE_LIMIT when the log's config turned automatic
 * dynamic shapes off, and sizes or numbers that changed made it recompile. */
#define TL_ADVICE_LIMIT_STATIC "\x01automatic dynamic off"

/* The text a dimension specialized inside PyTorch's nn.Module code (Eq(s27, 16) at linear.py)
 * is matched on in TL_ADVICE_SHAPE, and a recompile on that dimension's size in
 * TL_ADVICE_GUARD: the size must equal a parameter's, whose shape is static. */
#define TL_ADVICE_PARAMETER_SHAPE "\x01parameter shape"
/* The text a recompile is matched on in TL_ADVICE_GUARD when its size changed on a dimension
 * that a compile of the same frame had specialized to the size it expected. */
#define TL_ADVICE_SPECIALIZED_SHAPE "\x01specialized shape"

/* The texts a graph break is matched on in TL_ADVICE_GRAPH_BREAK when Dynamo skipped its whole
 * frame: because the break is inside a for/while loop, or because it could not handle it
 * ("Graph break: skip:"). No reason reads so. */
#define TL_ADVICE_LOOP_BREAK "\x01graph break in loop"
#define TL_ADVICE_SKIPPED_FRAME "\x01frame skipped"

/** The rule of table t that matches text (never NULL: each table ends with a catch-all). */
const struct tl_advice *tl_advice_match(enum tl_advice_table t, struct tl_str text);

/* Values for the placeholders of a rule's text. */
struct tl_advice_vars {
    struct tl_str tensor, index, expr, value, limit; /* .p NULL: unknown */
    struct tl_str limit_name; /* the limit as the log names it: "cache_size_limit" */
    struct tl_str inside;     /* where in PyTorch a graph broke: "torch/optim/optimizer.py:90" */
    struct tl_str what;       /* what a restart was for: "L['alpha']" */
    struct tl_str callee;     /* the function a graph break's call names: "record" */
    struct tl_str op;         /* an operator as logged: "mylib.foo.default" */
    struct tl_str qualname;   /* its name for torch.library: "mylib::foo" */
    struct tl_str backend;    /* the compiler backend a failure names: "broken_backend" */
    struct tl_str check;      /* a data-dependent condition as the user's code would assert
                                 it: "torch._check(n < 10)" (tl_advice_export_check) */
    struct tl_str dim;        /* the dimension a guard is on, in the user's terms: "x.shape[0]"
                                 (tl_advice_dim) */
};

/**
 * Append s with its placeholders filled from v; a placeholder whose value is unknown
 * becomes a readable stand-in ("the tensor", "DIM", ...).
 */
void tl_advice_format(struct tl_buf *out, const char *s, const struct tl_advice_vars *v);

/**
 * The name torch.library registers an operator under, from the operator as a log prints it:
 * "mylib::foo" for "mylib.foo.default", "torch.ops.mylib.foo" or "mylib::foo.default".
 * Appends nothing when op has no namespace.
 */
void tl_advice_op_qualname(struct tl_buf *out, struct tl_str op);

/** The placeholder values a failing guard's text gives (tensor name and index of a size
 * mismatch, the expression and value of `expr == value`). */
void tl_advice_guard_vars(struct tl_str guard, struct tl_advice_vars *v);

/** The backend a failure's reason names ("backend='inductor' raised: ..."), else empty. */
struct tl_str tl_advice_backend(struct tl_str reason);

/* An unbacked symbol of a data-dependent condition and the line of the user's code that made
 * it ("u0", "n = x.item()"). */
struct tl_advice_unbacked {
    struct tl_str symbol, code;
};

/**
 * Append the torch._check() that tells export what a data-dependent condition gave, written
 * on the user's values: expr ("u0 < 10", "Eq(u0, 0)") as it came out (result "True" or
 * "False"), each unbacked symbol replaced by the variable its line assigns ("n" of
 * "n = x.item()"): "torch._check(n < 10)", "torch._check(n != 0)". Appends nothing when it
 * cannot be written so: another result, a condition that is not one comparison, a symbol whose
 * line assigns no one variable, or a function of the expression language (Mod, Max, ...).
 */
void tl_advice_export_check(struct tl_buf *out, struct tl_str expr, struct tl_str result,
                            const struct tl_advice_unbacked *syms, size_t n);

/**
 * Append the first dimension a guard's readable expression names, as the user's code writes
 * it: "x.shape[0]" for "Eq(L['x'].size()[0], 4)". Appends nothing when it names none so.
 */
void tl_advice_dim(struct tl_buf *out, struct tl_str readable);

#endif
