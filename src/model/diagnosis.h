/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The diagnosis: what a log says about why a model recompiles, where its graphs break, which
 * dynamic dimension got specialized, what failed, what blocked torch.export, and what compiling
 * cost. Facts come in one at a time, from a structured trace (model/diag_trace.c) or from
 * TORCH_LOGS text (modes/text.c), in the same calls; tl_diag_finish() groups them into
 * findings, each with the plain-language explanation and fix of its rule (advice.h), ordered
 * most costly first.
 *
 * Memory grows with the distinct findings (reasons, functions, symbols), never with the log:
 * repeated facts are counted, lists of locations and compile ids are capped, and only the
 * slowest compilations and largest graphs are kept. Strings are copied into the diagnosis's
 * own arena. Depends on base, input (compile ids) and model/advice.
 */
#ifndef TL_DIAGNOSIS_H
#define TL_DIAGNOSIS_H

#include "base/config.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/map.h"
#include "base/str.h"
#include "input/compile_id.h"
#include "model/advice.h"
#include "model/export.h"
#include "model/guard_diff.h"
#include "model/ledger.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many locations and compile ids are kept per finding (the counts go on). */
#define TL_DIAG_MAX_LOCS 16
#define TL_DIAG_MAX_CIDS 64
#define TL_DIAG_MAX_VALUES 8
/* The slowest compilations and largest graphs kept. */
#define TL_DIAG_TOP 10
/* A function compiled this many times or more is a finding (even below the limit). */
#define TL_DIAG_MANY_COMPILES 4

/* A place in the user's code; file NULL when unknown. */
struct tl_cachekey;

struct tl_diag_loc {
    const char *file;
    uint32_t line;
    const char *function;
    const char *code; /* its line of source, when the log shows it */
    bool def;         /* file:line is where the function starts, not the statement */
};

/* A list of distinct strings (compile ids "[0/1]", or values), capped; n counts them all (each
 * once, those past the cap too). */
struct tl_diag_strs {
    const char **s;
    uint32_t kept, n;
};

/* The ranks a finding was seen on (a multi-rank text log's "[rank1]:", a rank's trace),
 * sorted, the lowest TL_DIAG_MAX_CIDS kept; n counts them (exactly while none was dropped). */
struct tl_diag_ranks {
    int32_t *r;
    uint32_t kept, n;
};

/* At most this many symbols of an expression are listed with it. */
#define TL_DIAG_MAX_SYMS 4

/* A symbol of a dynamic size and what it stands for ("s0", "L['x'].size()[0]"; source NULL
 * when the log did not say). */
struct tl_diag_sym {
    const char *symbol, *source;
};

/* At most this many hints of a graph break are kept. */
#define TL_DIAG_MAX_HINTS 8

/* Graph breaks with the same reason: what PyTorch names them by (from 2.7 on, the graph
 * break's type and its id in the graph-break site: GB0124), else the reason's first line. */
struct tl_diag_break {
    uint64_t seq;       /* when it was seen (of d->seq), for a live view's order */
    const char *reason; /* the type when the log gives one, else the reason's first line */
    const char *explanation, *hint, *url; /* PyTorch's own words, when the log gives them */
    /* PyTorch 2.7 on: the graph break's type ("Unsupported Tensor.item() call with
     * capture_scalar_outputs=False"), its id ("GB0124", from url), what dynamo was tracing
     * ("CALL: a function call, e.g. f(x, y)"), the developer debug context; NULL when not
     * given. hints: every hint, hint the first of them. */
    const char *type, *gb_id, *context, *debug_context;
    const char *hints[TL_DIAG_MAX_HINTS];
    uint32_t nhints;
    uint32_t count;
    struct tl_diag_loc locs[TL_DIAG_MAX_LOCS];
    uint32_t loc_counts[TL_DIAG_MAX_LOCS]; /* how often it broke at each of locs */
    uint32_t nlocs;
    struct tl_diag_strs cids;
    bool fell_back; /* "Skipping the function and falling back to eager" */
    /* It broke inside PyTorch's own code (torch/optim/optimizer.py calling
     * torch._dynamo.graph_break(), say): locs are the user's lines that led there, inside is
     * where in PyTorch it broke (the first such place). */
    bool in_framework;
    struct tl_diag_loc inside;
    struct tl_diag_ranks ranks;
    uint64_t log_line; /* the first log line that said it (text logs), 0 when unknown */
    const struct tl_advice *advice;
};

/* Dynamo restarted the analysis of a frame for a reason that is not a graph break: to turn a
 * Python float into a tensor input (TensorifyScalarRestartAnalysis), to trace an nn.Module
 * without specializing on it (UnspecializeRestartAnalysis), to compile a collective
 * (CompileCollectiveRestartAnalysis). Grouped by kind and function. */
struct tl_diag_restart {
    uint64_t seq;       /* when it was seen (of d->seq), for a live view's order */
    const char *kind;   /* "TensorifyScalarRestartAnalysis" */
    const char *reason; /* as logged */
    const char *function;
    struct tl_diag_loc where;       /* where the function is defined */
    struct tl_diag_loc called_from; /* the function is PyTorch's: the user's line calling it */
    struct tl_diag_strs what;       /* what it was for: the floats made tensors, by source */
    uint32_t count;
    struct tl_diag_strs cids;
    struct tl_diag_ranks ranks;
    uint64_t log_line;
    const struct tl_advice *advice;
};

/* A guard that failed, grouped with the ones that differ only by a value. */
struct tl_diag_guard {
    const char *guard;   /* "tensor 'x' size mismatch at index 0", "L['c'] == <value>" */
    const char *example; /* the first failure as logged */
    uint32_t count;
    struct tl_diag_strs values; /* "expected 3, actual 4", "8.5" */
    const char *last_value;     /* the latest of them (NULL: none) */
    const struct tl_advice *advice;
};

/* The recompiles of one function. */
struct tl_diag_recompile {
    uint64_t seq; /* when it was last seen (of d->seq), for a live view's order */
    const char *function;
    struct tl_diag_loc where; /* where the function is defined */
    uint32_t count;           /* recompiles seen */
    struct tl_diag_guard *guards;
    uint32_t nguards, guards_alloc;
    struct tl_diag_strs cids;
    /* The function's code after a graph break at this line (a resume function,
     * "torch_dynamo_resume_in_forward_at_13"); 0: the function from its start. */
    uint32_t resume_line;
    struct tl_diag_loc called_from; /* the function is PyTorch's: the user's line calling it */
    struct tl_diag_ranks ranks;
    uint64_t log_line;
    const struct tl_advice *advice; /* of its most frequent guard */
    uint32_t early;                 /* of count, the recompiles said early (struct tl_diag_early) */
    /* Of its latest recompile, the guard PyTorch's limit warning calls its last reason (as
     * logged; NULL: none), tl_diag_last_reason()'s. */
    const char *last_reason;
};

/*
 * A recompile as its recompile_reasons say it, before its compilation ends: a live view says it
 * then (a compilation may take minutes), the diagnosis counts it when the compilation ends (its
 * metrics) or the log does, and that recompile then counts it in its `early`.
 */
struct tl_diag_early {
    uint64_t seq;             /* when it was seen (of d->seq) */
    const char *cid;          /* the compile id it makes */
    const char *function;     /* its frame's function, when an earlier compilation said it */
    struct tl_diag_loc where; /* where that function is defined */
    uint32_t compiles;        /* the function's compilations, this one included */
    const char *guard;        /* the first guard that failed, grouped (NULL: none given) */
    const char *example;      /* as logged */
    const char *value;        /* its value this time (NULL: none) */
    const struct tl_advice *advice;
    bool counted; /* its recompile has been counted */
};

enum tl_diag_spec_kind {
    TL_SPEC_SPECIALIZED, /* a dynamic dimension became a constant */
    TL_SPEC_GUARD,       /* a guard on sizes was added */
    TL_SPEC_DUCK,        /* two dimensions share a symbol */
};

struct tl_diag_spec {
    uint64_t seq; /* when it was seen (of d->seq), for a live view's order */
    enum tl_diag_spec_kind kind;
    const char *symbol, *expr, *source, *value, *range;
    const char *readable; /* expr with its symbols replaced by their sources; NULL: same */
    struct tl_diag_sym syms[TL_DIAG_MAX_SYMS]; /* the symbols it involves, in expr's order */
    uint32_t nsyms;
    struct tl_diag_loc where;
    const char *cid;
    uint32_t count; /* the same one again (another compile id) */
    struct tl_diag_ranks ranks;
    uint64_t log_line;
    const struct tl_advice *advice;
};

/* A dimension that was made dynamic (a symbol was created for it): its symbol, the size
 * it had when it was made (the hint), its source, its range ("[2, int_oo]"), the user's line
 * that made it. */
struct tl_diag_dynamic {
    const char *symbol, *value, *source, *range;
    struct tl_diag_loc where;
    const char *cid;
};

struct tl_diag_failure {
    uint64_t seq; /* when it was seen (of d->seq), for a live view's order */
    const char *cid;
    const char *type, *reason;
    struct tl_diag_loc where;
    bool fell_back_to_eager;
    bool backward;            /* a failure of the backward graph */
    const char *forward_node; /* the forward node with the backward failure's seq_nr */
    struct tl_diag_loc forward_where;
    struct tl_diag_ranks ranks;
    uint64_t log_line;
    const struct tl_advice *advice;
};

struct tl_diag_limit {
    uint64_t seq; /* when it was seen (of d->seq), for a live view's order */
    const char *function;
    struct tl_diag_loc where;
    const char *limit_name; /* "cache_size_limit", "recompile_limit" */
    uint64_t limit;
    const char *last_reason;
    const char *cid;
    struct tl_diag_ranks ranks;
    uint64_t log_line;
    const struct tl_advice *advice;
    const struct tl_advice *reason_advice; /* the advice of its last reason */
    bool reason_listed; /* a recompile of the function has that advice: it says it, not this */
};

/* A graph of a frame's compilation: its size and a hash of its code (NULL when unknown). */
struct tl_diag_fgraph {
    const char *cid;
    const char *hash;
    uint64_t nodes;
    bool has_nodes;
};

/* At most this many callers of a frame are kept (the innermost ones). */
#define TL_DIAG_MAX_CALLERS 8

/* A function and how often it was compiled (recompiles included): one frame of the log, with
 * what `tlparse diff` matches it on across runs (its code location and its callers) and
 * compares (compiles, compile time, graphs). */
struct tl_diag_frame {
    const char *key; /* the frame ("0", "!1/3") */
    const char *function;
    struct tl_diag_loc where;
    const char *name;  /* the code object's own name ("torch_dynamo_resume_in_f_at_9") */
    const char *stack; /* its callers, outermost first, "file:line in fn" joined by '\n' */
    uint32_t compiles;
    struct tl_diag_strs cids;
    double seconds; /* compile time, summed */
    bool have_time;
    struct tl_diag_fgraph *graphs; /* one per compile id, the first TL_DIAG_MAX_CIDS */
    uint32_t ngraphs;
};

struct tl_diag_time {
    const char *cid;
    const char *function;
    double seconds;
};

struct tl_diag_graph {
    const char *cid;
    const char *name; /* the graph's name when the log gives it */
    uint64_t nodes;
};

/** The name of an export problem's kind: "data_dependent", "guard_evaluated",
 * "missing_fake_kernel", "mismatched_fake_kernel" (summary.json's, and what its rule in
 * advice.c's export table is matched on). */
const char *tl_diag_export_kind_name(enum tl_export_problem_kind k);

/* At most this many unbacked symbols of an expression are traced to where they were made. */
#define TL_DIAG_MAX_UNBACKED 4

/* An unbacked symbol (u0): a number export only knows at run time, and the user's line that
 * made it (`a = x.item()`). */
struct tl_diag_unbacked {
    const char *symbol;
    struct tl_diag_loc where;
};

/* Export problems of one kind with the same expression (or operator) at the same place. */
struct tl_diag_export {
    uint64_t seq; /* when it was seen (of d->seq), for a live view's order */
    enum tl_export_problem_kind kind;
    const char *expr;     /* the condition (data dependent, guard evaluated) */
    const char *readable; /* expr with its symbols replaced by their sources; NULL: same */
    const char *result;   /* what a data-dependent expr was specialized to ("False") */
    const char *op;       /* the operator (fake kernels): "mylib.foo.default" */
    const char *reason;   /* why the fake kernel disagrees, as logged (the first one) */
    struct tl_diag_loc where;
    struct tl_diag_unbacked unbacked[TL_DIAG_MAX_UNBACKED]; /* expr's unbacked symbols */
    uint32_t nunbacked;
    uint32_t count;
    struct tl_diag_strs cids;
    struct tl_diag_ranks ranks;
    uint64_t log_line;
    const struct tl_advice *advice;
};

enum tl_diag_finding_kind {
    TL_FIND_FAILURE,
    TL_FIND_LIMIT,
    TL_FIND_RECOMPILE,
    TL_FIND_BREAK,
    TL_FIND_SPEC,
    TL_FIND_FRAME,
    TL_FIND_EXPORT,
    TL_FIND_RESTART,
};

/* One line of the "most costly first" list: points at a finding of one of the arrays. */
struct tl_diag_finding {
    enum tl_diag_finding_kind kind;
    uint32_t index; /* into the array of its kind */
    double cost;    /* its rank: export problems, failures and limits first, then by count */
    /* What torch.compile always does, not a problem: a guard on dynamic sizes that needs no
     * action (Ne(s0, 1), 2 <= s0, 2*s0 >= 16), the one recompile that makes a changed size
     * dynamic. Ranked after every problem. */
    bool normal;
};

struct tl_diag {
    struct tl_arena arena;
    struct tl_map strings; /* interned strings */
    /* The last compile id named and its interned text: most records name the one before's. */
    struct tl_compile_id last_cid;
    const char *last_cid_text;
    struct tl_map index;   /* grouping keys -> index + 1 into an array below */
    struct tl_map dropped; /* (list's s, string) pairs a capped tl_diag_strs counted, not kept */

    struct tl_diag_break *breaks;
    uint32_t nbreaks, breaks_alloc;
    struct tl_diag_recompile *recompiles;
    uint32_t nrecompiles, recompiles_alloc;
    struct tl_diag_spec *specs;
    uint32_t nspecs, specs_alloc;
    struct tl_diag_failure *failures;
    uint32_t nfailures, failures_alloc;
    struct tl_diag_limit *limits;
    uint32_t nlimits, limits_alloc;
    struct tl_diag_frame *frames; /* every frame (the ones compiled many times are findings) */
    uint32_t nframes, frames_alloc;
    struct tl_diag_export *exports;
    uint32_t nexports, exports_alloc;
    struct tl_diag_restart *restarts;
    uint32_t nrestarts, restarts_alloc;
    struct tl_diag_early *early; /* recompiles said by their recompile_reasons */
    uint32_t nearly, early_alloc;

    uint64_t compile_ids; /* distinct compile ids seen */
    struct tl_map cids;   /* their display strings */
    double total_s;       /* compile time, summed */
    bool have_times;
    struct tl_diag_time slowest[TL_DIAG_TOP];
    uint32_t nslowest;
    struct tl_diag_graph largest[TL_DIAG_TOP];
    uint32_t nlargest;
    uint64_t ngraphs;
    uint32_t cache[2][3]; /* [fx_graph, aotautograd][hit, miss, bypass] */
    bool have_cache;
    /* The cache lookups with their keys' components, and the misses explained (cachekey.h);
     * NULL when the log has none (a text log, a summary read back). Owned. */
    struct tl_cachekey *cachekey;
    /* The PyTorch that wrote the log ("2.13.0+cpu"): its torch_version artifact's, else the
     * first compilation_metrics' pytorch_version; NULL when the log does not say. */
    const char *pytorch_version;
    bool pytorch_version_firm;
    struct tl_map symbols;    /* symbol -> its source, the latest create_symbol's */
    struct tl_map shape_cids; /* compile id -> how many symbols and shape guards it has */
    struct tl_map unbacked;   /* unbacked symbol -> struct tl_diag_loc * where it was made */
    struct tl_diag_dynamic dynamic[TL_DIAG_MAX_CIDS]; /* the first dynamic dimensions */
    uint32_t ndynamic, ndynamic_all;

    struct tl_diag_ranks ranks; /* every rank a finding was seen on */
    uint64_t seq;               /* findings made and recompiles seen so far: their order */
    /* The recompile limit the log's dynamo config gives (0: not given), and its name
     * ("recompile_limit", "cache_size_limit"). */
    uint64_t recompile_limit;
    const char *recompile_limit_name;
    /* The major and minor of pytorch_version (0: unknown; a text log gives neither, only the
     * wording of its messages, which tl_diag_limit_setting() reads from its limit). */
    uint32_t torch_major, torch_minor;
    /* The log's dynamo config sets automatic_dynamic_shapes: 1 true, 0 false, -1 not said. */
    int automatic_dynamic;

    /* Compile ids whose frame Dynamo skipped, so that it ran in eager mode: display -> flags
     * (TL_DIAG_SKIPPED, TL_DIAG_SKIPPED_LOOP), applied to their breaks and failures by
     * tl_diag_finish(). */
    struct tl_map skipped;

    /* Where the compile time went: fed by the trace's chromium events and metrics, summed by
     * tl_diag_finish(). */
    struct tl_ledger ledger;

    struct tl_diag_finding *findings; /* after tl_diag_finish() */
    uint32_t nfindings;

    /* The log line the facts being added come from (a text log's), set by the caller before
     * each fact; findings remember the first. 0: unknown. */
    uint64_t at_line;
    /* The rank the facts being added come from ("[rank1]:" of a text log, the envelope's rank
     * of a trace), set like at_line; findings list the ranks they were seen on. -1: unknown. */
    int32_t at_rank;

    /* The recompile forecast (diag_forecast.c): the guard sets it compares (NULL until a
     * guard comes), and after tl_diag_finish() the frames compiled more than once or run in
     * eager mode, those that ran in eager mode first. */
    struct tl_diag_forecast *forecast;
    size_t guards_budget; /* TL_DIAG_GUARDS_BUDGET when 0; set before the first guard */
    const struct tl_diag_fframe *fframes;
    uint32_t nfframes;
};

void tl_diag_init(struct tl_diag *d);
void tl_diag_release(struct tl_diag *d);

/* ---- facts (strings are copied; a NULL or empty one is unknown) ---- */

struct tl_diag_fact_loc {
    struct tl_str file, function, code;
    uint32_t line;
    bool def; /* line is the function's first line, not the statement's */
};

/** A compile id was seen (any record of it). */
void tl_diag_compile_id(struct tl_diag *d, const struct tl_compile_id *cid);
/** A compilation of cid: its function and where it is defined (the frame's identity). */
void tl_diag_compile(struct tl_diag *d, const struct tl_compile_id *cid,
                     const struct tl_diag_fact_loc *function);
/** How long compiling cid took (seconds; summed into the total). */
void tl_diag_compile_time(struct tl_diag *d, const struct tl_compile_id *cid, double seconds);
/** A graph of cid and its size. */
void tl_diag_graph(struct tl_diag *d, const struct tl_compile_id *cid, struct tl_str name,
                   uint64_t nodes);
/** The hash of cid's graph (the code with its comments taken out), for matching across runs. */
void tl_diag_graph_hash(struct tl_diag *d, const struct tl_compile_id *cid, struct tl_str hash);
/**
 * The callers of cid's frame when it was compiled (the first time counts), outermost first;
 * its innermost TL_DIAG_MAX_CALLERS are kept.
 */
void tl_diag_frame_stack(struct tl_diag *d, const struct tl_compile_id *cid,
                         const struct tl_diag_fact_loc *callers, size_t n);
/** A cache lookup: kind 0 fx_graph, 1 aotautograd; result 0 hit, 1 miss, 2 bypass. */
void tl_diag_cache(struct tl_diag *d, int kind, int result);
/** The PyTorch version the log says it was written by; a firm one (the torch_version
 * artifact's) replaces one read from metrics, a second firm one is ignored. */
void tl_diag_pytorch_version(struct tl_diag *d, struct tl_str version, bool firm);

/** cid recompiled function (defined at where) because these guards failed. */
void tl_diag_recompile(struct tl_diag *d, const struct tl_compile_id *cid,
                       const struct tl_diag_fact_loc *function, const struct tl_str *guards,
                       size_t nguards);
/** Whether x is a guard on sizes PyTorch adds as a matter of course (Ne(s0, 1), 2 <= s0):
 * nothing to do, a "normal" finding. */
bool tl_diag_spec_routine(const struct tl_diag_spec *x);
/** cid is a recompile, its recompile_reasons say (guards as given), before its compilation
 * ended: a struct tl_diag_early, once per compile id; tl_diag_recompile() counts it later. */
void tl_diag_recompile_early(struct tl_diag *d, const struct tl_compile_id *cid,
                             const struct tl_str *guards, size_t nguards);

struct tl_diag_fact_break {
    /* reason: the first line of the reason as logged ("Encountered graph break when attempting
     * to trace CALL: a function call, e.g. f(x, y):", "Unsupported: Tensor.item"); type: the
     * graph break's type (PyTorch 2.7 on: the line before its "Explanation:"). */
    struct tl_str reason, type, explanation, url, debug_context;
    const struct tl_str *hints;
    size_t nhints;
    struct tl_diag_fact_loc where; /* the user code where the graph broke */
    bool fell_back;
    /* The user code traceback PyTorch logged with the break, outermost first (may be none).
     * Its innermost frame is where it broke; when that frame is PyTorch's own, the break is
     * inside PyTorch, and where becomes the innermost frame of the user's (or stays as given
     * when the traceback has none: the caller's best guess, such as the frame that called the
     * compiled function). */
    const struct tl_diag_fact_loc *stack;
    size_t nstack;
};
void tl_diag_graph_break(struct tl_diag *d, const struct tl_compile_id *cid,
                         const struct tl_diag_fact_break *b);
/**
 * What kind of hint PyTorch gives (graph_break_hints.py): "fundamental", "supportable",
 * "user_error", "dynamo_bug", "difficult", "caused_by_earlier_graph_break"; NULL for a hint
 * of the graph break's own.
 */
const char *tl_diag_hint_category(const char *hint);

struct tl_diag_fact_failure {
    struct tl_str type, reason;
    struct tl_str kernel; /* the Triton kernel its traceback names, matched with the advice */
    struct tl_diag_fact_loc where;
    bool fell_back_to_eager, backward;
    struct tl_str forward_node;
    struct tl_diag_fact_loc forward_where;
};
void tl_diag_failure(struct tl_diag *d, const struct tl_compile_id *cid,
                     const struct tl_diag_fact_failure *f);

#define TL_DIAG_SKIPPED 1u      /* the frame ran in eager mode after an error Dynamo tolerates */
#define TL_DIAG_SKIPPED_LOOP 2u /* ... because a graph break is inside a for/while loop */

/**
 * cid's frame was skipped, so nothing of it was compiled and it ran in eager mode: after a graph
 * break inside a loop (loop), or after an error Dynamo treats as a graph break it cannot handle
 * ("Graph break: skip:", a backend's fake tensor exception). tl_diag_finish() marks the frame's
 * graph breaks and failures so (fell back to eager, the advice of the cause); the failure PyTorch
 * 2.13 records for a break in a loop is no failure of its own and is dropped. A graph break
 * whose reason is "graph break in loop" (2.13's) calls this itself.
 */
void tl_diag_frame_skipped(struct tl_diag *d, const struct tl_compile_id *cid, bool loop);

/**
 * A restart reason that is not a graph break ("<class '...TensorifyScalarRestartAnalysis'>"):
 * the name of its kind, else an empty string.
 */
struct tl_str tl_diag_restart_kind(struct tl_str reason);
/**
 * cid's frame was analysed again for reason (tl_diag_restart_kind() says it is no graph
 * break); what: what it was for (the sources of the floats made tensor inputs), may be none.
 * called_from: the user's line that called function when function is PyTorch's (or NULL).
 */
void tl_diag_restart(struct tl_diag *d, const struct tl_compile_id *cid,
                     const struct tl_diag_fact_loc *function,
                     const struct tl_diag_fact_loc *called_from, struct tl_str reason,
                     const struct tl_str *what, size_t nwhat);
/** The user's line that called cid's recompiled function, when that function is PyTorch's. */
void tl_diag_recompile_caller(struct tl_diag *d, const struct tl_compile_id *cid,
                              const struct tl_diag_fact_loc *function,
                              const struct tl_diag_fact_loc *called_from);

void tl_diag_limit(struct tl_diag *d, const struct tl_compile_id *cid,
                   const struct tl_diag_fact_loc *function, struct tl_str limit_name,
                   uint64_t limit, struct tl_str last_reason);

struct tl_diag_fact_spec {
    enum tl_diag_spec_kind kind;
    struct tl_str symbol, expr, source, value, range;
    struct tl_diag_fact_loc where;
};
void tl_diag_spec(struct tl_diag *d, const struct tl_compile_id *cid,
                  const struct tl_diag_fact_spec *s);
/** A symbol was created for a source ("s77" for "L['x'].size()[0]"), for later guards. */
void tl_diag_symbol(struct tl_diag *d, struct tl_str symbol, struct tl_str source);
/** A dimension made dynamic: the symbol created for its source, with its value and range. */
void tl_diag_dynamic(struct tl_diag *d, const struct tl_compile_id *cid, struct tl_str symbol,
                     struct tl_str value, struct tl_str source, struct tl_str range,
                     const struct tl_diag_fact_loc *where);
/** The source of a symbol given to tl_diag_symbol(), or NULL. */
const char *tl_diag_symbol_source(const struct tl_diag *d, struct tl_str symbol);
/** How many symbols were made, and shape guards and specializations added, while compiling
 * the compile id named cid ("[0/1]"): what the dynamic-shapes page has on it. */
uint32_t tl_diag_shapes_of(const struct tl_diag *d, const char *cid);

struct tl_diag_fact_export {
    enum tl_export_problem_kind kind;
    struct tl_str expr, result, op, reason;
    struct tl_diag_fact_loc where; /* the user's line */
};
/**
 * A problem that stops torch.export. Give the sources of its symbols first with
 * tl_diag_symbol() (a guard's symbol_to_sources) to have its expression made readable.
 */
void tl_diag_export(struct tl_diag *d, const struct tl_compile_id *cid,
                    const struct tl_diag_fact_export *e);
/** An unbacked symbol ("u0") was made at where (create_unbacked_symbol); later export
 * problems whose expression names it say where it comes from. The first place is kept. */
void tl_diag_unbacked(struct tl_diag *d, struct tl_str symbol,
                      const struct tl_diag_fact_loc *where);

/** A file of PyTorch itself or of Python's standard library ("<frozen runpy>" too). A library
 * in site-packages other than torch counts as the user's: a model from transformers is code
 * they run. An unknown file (empty) is neither: false. */
bool tl_diag_framework_file(struct tl_str file);

/** The function a frame is part of: "fn" for fn and its resume functions
 * ("torch_dynamo_resume_in_fn_at_61"). */
struct tl_str tl_diag_function_name(struct tl_str name);

/**
 * The name of the recompile limit's setting in the PyTorch that wrote the log:
 * "recompile_limit" from 2.7 on, "cache_size_limit" before; as the log's config or limit
 * message names it, else from its version; "recompile_limit" when nothing says. Static.
 */
const char *tl_diag_limit_setting(const struct tl_diag *d);

/**
 * Of the guards a recompile lists (as its recompile_reasons give them), the one PyTorch's
 * recompile-limit warning names as the last reason: the last one listed before PyTorch 2.7,
 * the first one from then on (2.13 lists the newest compilation's failure first and names
 * it). Borrowed from guards; TL_STR_NULL when there are none.
 */
struct tl_str tl_diag_last_reason(const struct tl_diag *d, const struct tl_str *guards, size_t n);

/** Whether a recompile of l's function failed on a guard with the advice of l's last reason
 * (its finding gives that advice, so the limit's need not repeat it). */
bool tl_diag_limit_listed(const struct tl_diag *d, const struct tl_diag_limit *l);

/* ---- the recompile forecast (diag_forecast.c) ---- */

/* At most this many guard differences are kept per cache entry, and entries per frame. */
#define TL_DIAG_GUARD_CHANGES 20
#define TL_DIAG_MAX_ENTRIES 64
/* The guard texts kept to compare a frame's next entry with its last, in bytes (the same text
 * counts once); past it the frames whose last entry is oldest are not compared. */
#define TL_DIAG_GUARDS_BUDGET ((size_t)16 << 20)
/* PyTorch's recompile limit when the log does not say it (2.6 and 2.13 alike). */
#define TL_DIAG_DEFAULT_LIMIT 8

/* Why a frame ran in eager mode. */
enum tl_diag_eager {
    TL_EAGER_NO,
    TL_EAGER_LIMIT,   /* the recompile limit was hit: calls its entries do not match */
    TL_EAGER_SKIPPED, /* Dynamo skipped the frame (a graph break in a loop, an error it skips) */
    TL_EAGER_FAILED,  /* its compilation failed and suppress_errors ran it in eager mode */
};

/* Where a frame's recompile limit comes from. */
enum tl_diag_limit_from {
    TL_LIMIT_DEFAULT, /* nothing in the log says it: PyTorch's default */
    TL_LIMIT_CONFIG,  /* the dynamo config of the log's compilation metrics */
    TL_LIMIT_MESSAGE, /* the message of the limit being hit */
};

/* The guards of a cache entry against those of the frame's entry before it. */
struct tl_diag_entry_diff {
    const char *cid, *against;
    const struct tl_guard_change *changes; /* the first TL_DIAG_GUARD_CHANGES */
    uint32_t n, total;                     /* kept, and in all */
    const char *failed; /* the guard its recompile reasons name first, NULL when not said */
};

/* A frame compiled more than once, or run in eager mode. */
struct tl_diag_fframe {
    const char *frame;    /* "0", "!1/3" */
    const char *function; /* NULL when the log does not say */
    const char *name;     /* the code object's name, NULL when unknown */
    struct tl_diag_loc where;
    uint32_t compiles; /* compile ids of the frame (its attempts at compiling) */
    uint32_t entries;  /* cache entries it made: compilations that gave guarded code */
    uint64_t limit, left;
    const char *limit_name; /* "recompile_limit", "cache_size_limit" */
    enum tl_diag_limit_from limit_from;
    enum tl_diag_eager eager;
    const char *eager_cid; /* the compile id that ran in eager mode, NULL when unknown */
    const char *eager_why; /* "graph break in a loop", a failure's type; NULL for the limit */
    const struct tl_diag_entry_diff *diffs;
    uint32_t ndiffs, ndiffs_all; /* kept (TL_DIAG_MAX_ENTRIES), in all */
};

/** The guard tree cid's cache entry was built with (dynamo_cpp_guards_str's payload), whole. */
void tl_diag_guards(struct tl_diag *d, const struct tl_compile_id *cid, struct tl_str tree);
/** A line of cid's guard tree as TORCH_LOGS "guards" prints it, one log line each. */
void tl_diag_guard_line(struct tl_diag *d, const struct tl_compile_id *cid, struct tl_str line);
/** The end of cid's guard tree in TORCH_LOGS text (its blank line). */
void tl_diag_guards_end(struct tl_diag *d, const struct tl_compile_id *cid);
/** Fill d->fframes (tl_diag_finish calls it; limit_name: tl_diag_limit_setting()'s). */
void tl_diag_forecast_finish(struct tl_diag *d, const char *limit_name);
/** Free d->forecast (tl_diag_release calls it). */
void tl_diag_forecast_free(struct tl_diag *d);
struct tl_json;
/** d->fframes from a summary's "frames" (the forecast fields of its entries; d->frames read
 * from the same array first, in its order); strings and arrays in d's arena. */
void tl_diag_forecast_read(struct tl_diag *d, const struct tl_json *frames);

/** Group what came in into findings, most costly first. */
void tl_diag_finish(struct tl_diag *d);

/** The ranks a finding was seen on (none for a function compiled many times). */
const struct tl_diag_ranks *tl_diag_finding_ranks(const struct tl_diag *d,
                                                  const struct tl_diag_finding *f);

/* What the diagnosis found, counted: each occurrence (a graph break seen twice counts 2). */
struct tl_diag_counts {
    uint64_t compile_ids;
    uint64_t graph_breaks;
    uint64_t recompiles;
    uint64_t specializations; /* dynamic dimensions specialized to a constant */
    uint64_t failures;        /* compilations that failed */
    uint64_t limits;          /* recompile limits hit */
    uint64_t restarts;        /* analyses restarted for a reason other than a graph break */
    uint64_t export_problems;
    uint64_t eager_frames; /* frames that ran in eager mode (d->fframes) */
    double total_s;        /* compile time, summed */
    bool have_times;       /* the log recorded compile times */
};

/** Count what d holds. */
void tl_diag_counts(const struct tl_diag *d, struct tl_diag_counts *c);

/**
 * A failing guard as it is grouped: key gets its text with the part that varies from call to
 * call taken out ("tensor 'x' size mismatch at index 0", "L['c'] == <value>"), value that
 * part ("expected 3, actual 4", "8.5"; left empty when none). A leading "0/3: " (the compile
 * id whose guard failed) is dropped, curly quotes are made straight, spaces trimmed.
 */
void tl_diag_guard_key(struct tl_str guard, struct tl_buf *key, struct tl_buf *value);

#endif
