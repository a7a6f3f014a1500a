/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compilation-metrics records (spec core.md §2.1, §3.4) as typed C structs: what the
 * metrics pages, the failures page and the run's per-compile facts read, instead of raw
 * JSON. Decoded from a record the envelope decoder has already type-checked, so every field
 * is either absent or of its declared type. Strings and lists are views into the JSON tree
 * (the entry's scratch arena): valid while the entry is processed. Depends on base only.
 */
#ifndef TL_METRICS_H
#define TL_METRICS_H

#include "base/config.h"
#include "base/json.h"
#include "base/str.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An optional number: has is false when the field was absent or null. */
struct tl_opt_u64 {
    bool has;
    uint64_t v;
};

struct tl_opt_f64 {
    bool has;
    double v;
};

/* An optional list of strings; present with n == 0 is an empty list. */
struct tl_str_list {
    bool present;
    const struct tl_str *s;
    size_t n;
};

/* A failure as the metrics records give it; type.p == NULL: no failure field. */
struct tl_failure {
    struct tl_str type, reason; /* .p NULL when absent */
    struct tl_str file;         /* fail_user_frame_filename */
    struct tl_opt_u64 line;     /* fail_user_frame_lineno */
};

/* compilation_metrics */
struct tl_metrics {
    struct tl_str co_name, co_filename; /* .p NULL when absent */
    bool has_co_firstlineno;
    int32_t co_firstlineno;
    struct tl_opt_u64 cache_size, accumulated_cache_size, guard_count, shape_env_guard_count,
        graph_op_count, graph_node_count, graph_input_count;
    struct tl_opt_f64 start_time, entire_frame_compile_time_s, backend_compile_time_s,
        inductor_compile_time_s, code_gen_time_s, dynamo_time_before_restart_s;
    struct tl_failure fail;
    struct tl_str_list non_compliant_ops, compliant_custom_ops, restart_reasons;
    /* Fields the reference does not type, read for the diagnosis when they have the expected
     * type (newer PyTorch versions write them): the first guard that failed before this
     * recompile, whether errors were suppressed (a failed frame then runs in eager mode),
     * whether compiled code came out. */
    struct tl_str recompile_reason;
    struct tl_opt_u64 dynamo_cumulative_compile_time_us; /* newer logs' frame compile time */
    struct tl_opt_bool {
        bool has, v;
    } config_suppress_errors, has_guarded_code;
};

/* bwd_compilation_metrics */
struct tl_bwd_metrics {
    struct tl_opt_f64 inductor_compile_time_s, code_gen_time_s;
    struct tl_failure fail;
};

/* aot_autograd_backward_compilation_metrics */
struct tl_aot_bwd_metrics {
    struct tl_opt_f64 start_time, elapsed_time;
    struct tl_failure fail;
};

/**
 * Decode a type-checked record (the value of its envelope key). Lists are allocated in a
 * (scratch arena); strings point into the tree.
 */
void tl_metrics_decode(struct tl_metrics *m, const struct tl_json *rec, struct tl_arena *a);

/** How long compiling the frame took, in seconds: entire_frame_compile_time_s, else (newer
 * logs, and failed compilations whose total is null) dynamo_cumulative_compile_time_us.
 * False when the metrics hold neither. One answer for the overview and the diagnosis. */
static inline bool tl_metrics_seconds(const struct tl_metrics *m, double *seconds)
{
    if (m->entire_frame_compile_time_s.has) {
        *seconds = m->entire_frame_compile_time_s.v;
        return true;
    }
    if (m->dynamo_cumulative_compile_time_us.has) {
        *seconds = (double)m->dynamo_cumulative_compile_time_us.v / 1e6;
        return true;
    }
    return false;
}
void tl_bwd_metrics_decode(struct tl_bwd_metrics *m, const struct tl_json *rec);
void tl_aot_bwd_metrics_decode(struct tl_aot_bwd_metrics *m, const struct tl_json *rec);

#endif
