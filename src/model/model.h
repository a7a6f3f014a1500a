/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The run's model: what stays in memory of a log once its records have gone by, for every
 * view that needs more than the record in hand (the index, the metrics pages, the
 * diagnosis, the rank summaries). It grows with the number of compile ids, distinct stacks
 * and distinct strings, never with the log's bytes:
 *   - the string table of the log (`str` entries), the compile directory (every artifact
 *     listed, by compile id), the stack tries (dynamo_start stacks, and the stacks of
 *     entries without a compile context);
 *   - per compile id, the facts of its records (struct tl_compile): status, its
 *     compilation_metrics (times, failure, restart reasons, graph sizes), its shape
 *     specializations and guards, its cache hits and misses;
 *   - per compile id as the index lists it, the status and time of its own metrics records,
 *     on its directory key (the overview at the top of index.html).
 * The engine calls tl_model_apply() once per record, after the sinks have seen it (so a
 * sink sees the model as it was before the record, plus the record). It knows no page and
 * no file. Strings live in the run arena given at init.
 */
#ifndef TL_MODEL_H
#define TL_MODEL_H

#include "base/config.h"
#include "base/arena.h"
#include "base/map.h"
#include "base/str.h"
#include "input/compile_id.h"
#include "model/directory.h"
#include "model/metrics.h"
#include "model/diagnosis.h"
#include "model/stack_trie.h"
#include "model/strtab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tl_record;

/* A symbolic-shape specialization or a guard added fast (spec §3.5); strings interned. */
struct tl_shape_rec {
    struct tl_shape_rec *next;
    const char *symbol, *value, *expr; /* NULL when absent */
    const char **sources;
    size_t nsources;
    struct tl_iframe *user_stack, *stack;
    size_t n_user_stack, n_stack;
};

struct tl_shape_list {
    struct tl_shape_rec *head, *tail;
    size_t n;
};

/* Status bits of a compile id, from its compilation_metrics records (spec §4.6). */
enum {
    TL_CS_METRICS = 1, /* it has metrics */
    TL_CS_FAIL = 2,    /* a fail_type */
    TL_CS_EMPTY = 4,   /* no graph ops */
    TL_CS_RESTART = 8, /* restart reasons (or none given) */
};

/* Caches whose hits and misses the artifacts report. */
enum tl_cache_kind {
    TL_CACHE_FX_GRAPH,
    TL_CACHE_AOTAUTOGRAD,
    TL_CACHE_OTHER,
    TL_CACHE_KINDS,
};

enum tl_cache_result {
    TL_CACHE_HIT,
    TL_CACHE_MISS,
    TL_CACHE_BYPASS,
    TL_CACHE_RESULTS,
};

/*
 * What the log said about one compile id. Entries are keyed by the compile id exactly as the
 * records give it: the metrics facts sit under the metrics form of the id (attempt 0 when a
 * frame compile id is present, spec §3.4), the stacks and shape records under the id as
 * logged (§3.5), as the reference keys them; most logs use the same form for both.
 */
struct tl_compile {
    struct tl_compile_id id;
    const char *display;                /* "[0/0]" */
    uint8_t status;                     /* TL_CS_* */
    const struct tl_trie_node *start;   /* its dynamo_start stack in the trie, or NULL */
    struct tl_shape_list specs, guards; /* all of them, in log order */
    /* The ones logged since its last compilation_metrics record: what the next metrics
     * page shows (the reference shows each on the first metrics page only). */
    const struct tl_shape_rec *specs_new, *guards_new;

    /* From its compilation_metrics records: the last one's values, times summed. */
    uint32_t nmetrics;
    double compile_time_s; /* entire_frame_compile_time_s */
    const char *co_name, *co_filename;
    int32_t co_firstlineno;
    bool has_co_firstlineno;
    const char *fail_type, *fail_reason, *fail_file; /* NULL: no failure */
    struct tl_opt_u64 fail_line;
    const char **restart_reasons; /* distinct, in log order */
    uint32_t nrestart_reasons, restart_alloc;
    struct tl_opt_u64 graph_op_count, graph_node_count;
    uint32_t cache[TL_CACHE_KINDS][TL_CACHE_RESULTS];
    /* AOT autograd cache verdicts its chromium events gave (PyTorch 2.6 has no artifact for
     * them); tl_model_finish() counts them in cache[] when no artifact said them. */
    uint32_t cache_events[TL_CACHE_RESULTS];

    /* From its compilation_metrics_runtime records (PyTorch 2.13: the first runs of its
     * compiled code), [0] forward, [1] backward: how many, and their times summed. */
    struct tl_runtime {
        uint32_t n;
        uint64_t duration_us, autotune_us, cudagraphify_us;
    } runtime[2];
};

/* A compile id of a TORCH_LOGS text log, and its lines. */
struct tl_textlog_cid {
    const char *cid;
    uint64_t first_line, lines;
};

/* What a TORCH_LOGS text log's index shows besides the diagnosis. */
struct tl_text_facts {
    struct tl_textlog_cid *cids; /* first-appearance order */
    size_t ncids;
    uint64_t lines, messages, unrecognized;
};

struct tl_model {
    struct tl_arena *arena; /* run lifetime; borrowed */
    struct tl_strtab strtab;
    struct tl_directory dir;
    struct tl_trie trie;         /* dynamo_start stacks */
    struct tl_trie unknown_trie; /* top-level stacks of entries */
    struct tl_map compiles;      /* tl_cid_key -> struct tl_compile */
    struct tl_map strings;       /* interned strings of the facts */
    struct tl_diag diag;         /* the diagnosis: whole once the log is read */
    struct tl_text_facts text;   /* TORCH_LOGS text only */
    bool has_runtime;            /* some compile has runtime metrics */
    uint32_t autograd_cache_events[TL_CACHE_RESULTS]; /* as tl_compile's, the log's */
};

void tl_model_init(struct tl_model *m, struct tl_arena *arena);
void tl_model_release(struct tl_model *m);

/** The entry of a compile id, created if new. Valid for the run. */
struct tl_compile *tl_model_compile(struct tl_model *m, const struct tl_compile_id *id);
/** The entry of a compile id, or NULL. */
const struct tl_compile *tl_model_find(const struct tl_model *m, const struct tl_compile_id *id);
/** Number of entries, and the i-th in first-appearance order. */
size_t tl_model_ncompiles(const struct tl_model *m);
const struct tl_compile *tl_model_compile_at(const struct tl_model *m, size_t i);

/** Append the folder name of c's compile id ("-_0_0_0"), where its pages are written. */
void tl_compile_folder(struct tl_buf *out, const struct tl_compile *c);

/** An interned C string copy of s (NULL for s.p == NULL; NUL bytes as tl_buf_add_nonul). */
const char *tl_model_intern(struct tl_model *m, struct tl_str s);

/**
 * Update the model with a record the sinks have seen (TL_REC_OK records only).
 * Temporary memory comes from scratch (the entry's arena).
 */
void tl_model_apply(struct tl_model *m, const struct tl_record *r, struct tl_arena *scratch);

/**
 * Once the log is read: where the log told the AOT autograd cache's verdicts only by chromium
 * events (PyTorch 2.6), count them as the aotautograd_cache_* artifacts of newer logs are, in
 * the compiles and the diagnosis (2.13 writes both: the artifacts count, once).
 */
void tl_model_finish(struct tl_model *m);

/** Whether tl_model_apply() reads the record's payload (torch_version, cache events). */
bool tl_model_wants_payload(const struct tl_record *r);

/** Which cache an artifact name reports on, and with what result; false for other names. */
bool tl_cache_event(struct tl_str artifact_name, enum tl_cache_kind *kind,
                    enum tl_cache_result *result);

#endif
