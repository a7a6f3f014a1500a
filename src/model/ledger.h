/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compile-time ledger: where a run's time went, per compile id and for the whole log.
 *
 * PyTorch times its compiler with nested spans (chromium events "B"/"E": dynamo,
 * entire_frame_compile, bytecode_tracing, backend_compile, inductor_compile, code_gen,
 * compile_file, async_compile.wait, gc, ...). Each span's own time (its length less its
 * children's) goes to one phase of the ledger, by the span's name (an unknown name takes its
 * parent's phase), and to the compile id that span belongs to (its own, or its parent's for the
 * worker spans PyTorch logs without one). So a compile id's phases add up exactly to the length
 * of its outermost spans. A compile id without events falls back on its compilation metrics
 * (entire frame, backend, inductor and code generation times).
 *
 * The run's ledger spans the log, from its first record's time to its last: the compiling (the
 * union of the outermost spans), the first runs of compiled code that runtime metrics time, and
 * what no event accounts for, as a line of its own. Cold compiles (a cache missed) and warm ones
 * (every lookup hit) are summed apart.
 *
 * Memory grows with the compile ids and the depth of the spans, never with the log. Depends
 * on base and input (compile ids).
 */
#ifndef TL_LEDGER_H
#define TL_LEDGER_H

#include "base/config.h"
#include "base/arena.h"
#include "base/json.h"
#include "base/map.h"
#include "input/chromium.h"
#include "input/compile_id.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tl_ledger_phase {
    TL_LP_DYNAMO,   /* tracing the bytecode, building guards */
    TL_LP_AOT,      /* AOT autograd: metadata, joint graph, partitioning, the backward's */
    TL_LP_INDUCTOR, /* Inductor's graph passes and lowering */
    TL_LP_CODEGEN,  /* generating the kernels' and the wrapper's code */
    TL_LP_COMPILE,  /* compiling and loading the generated code (C++, Triton) */
    TL_LP_AUTOTUNE, /* autotuning, benchmarking kernels */
    TL_LP_CACHE,    /* cache keys, lookups and saves */
    TL_LP_REMOTE,   /* remote caches and state */
    TL_LP_GC,       /* garbage collection */
    TL_LP_BACKEND,  /* the backend, outside AOT autograd and Inductor */
    TL_LP_OTHER,    /* spans of no phase this table knows, with no parent that has one */
    TL_LP_COUNT
};

/** The phase's key in JSON ("dynamo"), its short name ("Dynamo") and its label for people. */
const char *tl_ledger_phase_key(enum tl_ledger_phase p);
const char *tl_ledger_phase_name(enum tl_ledger_phase p);
const char *tl_ledger_phase_label(enum tl_ledger_phase p);
/** The phase a span of this name belongs to; TL_LP_COUNT: its parent's. */
enum tl_ledger_phase tl_ledger_phase_of(struct tl_str name);

/* Cache verdicts of a compile id. */
enum {
    TL_LEDGER_HIT = 1,
    TL_LEDGER_MISS = 2,
    TL_LEDGER_BYPASS = 4,
};

/* One compile id's ledger (its metrics form: "[0/1]", attempts summed). */
struct tl_ledger_cid {
    const char *cid;
    double us[TL_LP_COUNT]; /* each phase's own time, microseconds */
    double total_us;        /* its outermost spans, summed (= the phases' sum) */
    /* The same for the spans still open at tl_ledger_finish(), as if they ended then. */
    double open_us[TL_LP_COUNT], open_total_us;
    /* Of total_us: outermost spans other than the frame's compile (dynamo,
     * entire_frame_compile): its backward's compile on the first backward() call
     * (entire_backward_compile), or a lazy compile_fx_inner. The metrics do not time them. */
    double backward_us;
    bool has_events;
    /* From its compilation_metrics records, summed (0 when absent). */
    double m_entire_s, m_backend_s, m_inductor_s, m_codegen_s;
    bool has_metrics;
    double runtime_us; /* its first runs (compilation_metrics_runtime) */
    unsigned cache;    /* TL_LEDGER_* bits */
};

/* A span still open on a thread. */
struct tl_ledger_span {
    uint64_t name; /* hash of its name: an "E" closes the innermost span of the same name */
    enum tl_ledger_phase phase;
    struct tl_ledger_cid *cid; /* NULL: outside any compile id */
    double start_us, child_us;
    bool backward; /* outermost, and no frame's compile (see backward_us) */
};

#define TL_LEDGER_THREADS 16
#define TL_LEDGER_DEPTH 64

struct tl_ledger_thread {
    int64_t pid, tid;
    struct tl_ledger_span stack[TL_LEDGER_DEPTH];
    uint32_t depth;   /* spans kept on stack */
    uint32_t dropped; /* spans opened past TL_LEDGER_DEPTH, not timed */
};

struct tl_ledger {
    struct tl_arena *arena;      /* borrowed */
    struct tl_map index;         /* cid text -> struct tl_ledger_cid */
    struct tl_ledger_cid **cids; /* first-appearance order */
    uint32_t ncids, cids_alloc;
    struct tl_ledger_cid outside; /* spans of no compile id */
    struct tl_ledger_thread threads[TL_LEDGER_THREADS];
    uint32_t nthreads;
    /* The outermost spans, [start, end) in microseconds, for their union. */
    double (*roots)[2];
    uint32_t nroots, roots_alloc;
    uint64_t events; /* spans timed */
    /* The last compile id looked up and its entry: events come in runs of one compile id. */
    struct tl_compile_id last_cid;
    struct tl_ledger_cid *last_entry;
    /* Span names seen, by hash: their phase (+1; 0 empty), as tl_ledger_phase_of() said. */
    struct {
        uint64_t hash;
        uint8_t phase1;
    } phase_cache[256];
    double last_ts; /* the latest event time seen: where spans still open end */
    /* The log's first and last record times (microseconds into the year). */
    double first_us, last_us;
    bool has_time;

    /* After tl_ledger_finish(): the run's lines, in seconds. */
    struct tl_ledger_run {
        double span_s;                /* the log's first record to its last */
        double compiling_s;           /* the union of the outermost spans */
        double phases_s[TL_LP_COUNT]; /* every compile id's and the outside's, summed */
        double overlap_s;             /* phases' sum less compiling_s: spans that ran at once */
        double runtime_s;             /* first runs of compiled code */
        double metrics_s;             /* the compilation metrics' entire frame times, summed */
        double backward_s;            /* compiles after the frame's (backward_us), not in those */
        double unaccounted_s;         /* span_s less compiling_s and runtime_s (>= 0) */
        uint32_t cold_n, warm_n;      /* compile ids that missed a cache / hit every lookup */
        double cold_s, warm_s;
        bool from_events; /* some compile id's time came from events, not metrics */
    } run;
    bool seen;    /* an event or metrics times came */
    bool present; /* after tl_ledger_finish(): something to show */
};

void tl_ledger_init(struct tl_ledger *l, struct tl_arena *arena);
void tl_ledger_release(struct tl_ledger *l);

/** A record's time from its glog prefix (MMDD, HH:MM:SS, microseconds as written). */
void tl_ledger_time(struct tl_ledger *l, const char month[2], const char day[2], const char hms[8],
                    const char micros[6]);
/** A chromium event (the fields of its payload) of compile id cid (NULL: the envelope gave
 * none). */
void tl_ledger_event(struct tl_ledger *l, const struct tl_compile_id *cid,
                     const struct tl_chromium_peek *ev);
/** A compilation_metrics record's times (seconds; negative: absent). */
void tl_ledger_metrics(struct tl_ledger *l, const struct tl_compile_id *cid, double entire_s,
                       double backend_s, double inductor_s, double codegen_s);
/** A first run of cid's compiled code (compilation_metrics_runtime), microseconds. */
void tl_ledger_runtime(struct tl_ledger *l, const struct tl_compile_id *cid, double us);
/** A cache verdict for cid (TL_LEDGER_HIT, _MISS or _BYPASS). */
void tl_ledger_cache(struct tl_ledger *l, const struct tl_compile_id *cid, unsigned verdict);
/** Sum the run's lines: spans still open count as ending at the last time seen. It changes
 * nothing else, so the ledger may go on taking events and be summed again. */
void tl_ledger_finish(struct tl_ledger *l);

/**
 * The ledger a summary.json holds (compile_time.ledger, as report/summary_json.c writes it),
 * summed already: for the views of a report folder. v NULL or null: none.
 */
void tl_ledger_read(struct tl_ledger *l, const struct tl_json *v);

/* The run's lines a view of many logs shows for each (the multi-rank landing page, --summary
 * and --json of a folder of rank logs), in seconds rounded to the microsecond as summary.json
 * writes them: the same numbers as each log's own compile_time.ledger. */
struct tl_ledger_lines {
    bool present; /* the log timed some compiling (tl_ledger.present) */
    double span_s, compiling_s, runtime_s, unaccounted_s;
};

/** The lines of a finished (or read) ledger l. */
void tl_ledger_lines_of(struct tl_ledger_lines *out, const struct tl_ledger *l);

/**
 * Of n logs' lines (v[i] NULL or not present: none), the index of the one that compiled
 * longest (the straggler; of two as long, the first), when two or more have lines and one
 * compiled longer than another; else -1.
 */
long tl_ledger_straggler(const struct tl_ledger_lines *const *v, size_t n);

/** A compile id's time in seconds (its events', else its metrics'). */
double tl_ledger_cid_seconds(const struct tl_ledger_cid *c);
/** A compile id's phase p in seconds (events, else the metrics' split). */
double tl_ledger_cid_phase_s(const struct tl_ledger_cid *c, enum tl_ledger_phase p);

#endif
