/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Decoding of the three compilation-metrics records into typed structs (metrics.h). The
 * envelope decoder has checked every field's type, so a present field is read as it is.
 */
#include "base/config.h"
#include "model/metrics.h"
#include "input/envelope.h"

#include <string.h>

static struct tl_opt_u64 opt_u64(const struct tl_json *rec, const char *field)
{
    const struct tl_json *v = tl_env_get(rec, field);
    struct tl_opt_u64 o = {false, 0};
    if (v && v->type == TL_JSON_NUMBER) {
        o.has = true;
        o.v = v->u.num.u;
    }
    return o;
}

static struct tl_opt_f64 opt_f64(const struct tl_json *rec, const char *field)
{
    const struct tl_json *v = tl_env_get(rec, field);
    struct tl_opt_f64 o = {false, 0.0};
    if (v && v->type == TL_JSON_NUMBER) {
        o.has = true;
        o.v = v->u.num.d;
    }
    return o;
}

static struct tl_opt_bool opt_bool(const struct tl_json *rec, const char *field)
{
    const struct tl_json *v = tl_env_get(rec, field);
    struct tl_opt_bool o = {false, false};
    if (v && v->type == TL_JSON_BOOL) {
        o.has = true;
        o.v = v->u.b;
    }
    return o;
}

static struct tl_str_list str_list(const struct tl_json *rec, const char *field, struct tl_arena *a)
{
    const struct tl_json *v = tl_env_get(rec, field);
    struct tl_str_list l = {false, NULL, 0};
    if (!v || v->type != TL_JSON_ARRAY)
        return l;
    l.present = true;
    if (!v->u.arr.n)
        return l;
    struct tl_str *s = tl_arena_alloc(a, v->u.arr.n * sizeof(*s));
    for (size_t i = 0; i < v->u.arr.n; i++) {
        const struct tl_json *e = &v->u.arr.items[i];
        s[i] = e->type == TL_JSON_STRING ? e->u.str : TL_STR_LIT("");
        if (!s[i].p)
            s[i].p = "";
    }
    l.s = s;
    l.n = v->u.arr.n;
    return l;
}

static void failure(struct tl_failure *f, const struct tl_json *rec)
{
    f->type = tl_env_str(rec, "fail_type");
    f->reason = tl_env_str(rec, "fail_reason");
    f->file = tl_env_str(rec, "fail_user_frame_filename");
    f->line = opt_u64(rec, "fail_user_frame_lineno");
}

void tl_metrics_decode(struct tl_metrics *m, const struct tl_json *rec, struct tl_arena *a)
{
    memset(m, 0, sizeof(*m));
    m->co_name = tl_env_str(rec, "co_name");
    m->co_filename = tl_env_str(rec, "co_filename");
    const struct tl_json *line = tl_env_get(rec, "co_firstlineno");
    if (line && line->type == TL_JSON_NUMBER) {
        m->has_co_firstlineno = true;
        m->co_firstlineno =
            line->u.num.kind == TL_JSON_INT ? (int32_t)line->u.num.i : (int32_t)line->u.num.u;
    }
    m->cache_size = opt_u64(rec, "cache_size");
    m->accumulated_cache_size = opt_u64(rec, "accumulated_cache_size");
    m->guard_count = opt_u64(rec, "guard_count");
    m->shape_env_guard_count = opt_u64(rec, "shape_env_guard_count");
    m->graph_op_count = opt_u64(rec, "graph_op_count");
    m->graph_node_count = opt_u64(rec, "graph_node_count");
    m->graph_input_count = opt_u64(rec, "graph_input_count");
    m->start_time = opt_f64(rec, "start_time");
    m->entire_frame_compile_time_s = opt_f64(rec, "entire_frame_compile_time_s");
    m->backend_compile_time_s = opt_f64(rec, "backend_compile_time_s");
    m->inductor_compile_time_s = opt_f64(rec, "inductor_compile_time_s");
    m->code_gen_time_s = opt_f64(rec, "code_gen_time_s");
    m->dynamo_time_before_restart_s = opt_f64(rec, "dynamo_time_before_restart_s");
    failure(&m->fail, rec);
    m->non_compliant_ops = str_list(rec, "non_compliant_ops", a);
    m->compliant_custom_ops = str_list(rec, "compliant_custom_ops", a);
    m->restart_reasons = str_list(rec, "restart_reasons", a);
    m->recompile_reason = tl_env_str(rec, "recompile_reason");
    const struct tl_json *us = tl_env_get(rec, "dynamo_cumulative_compile_time_us");
    if (us && us->type == TL_JSON_NUMBER && us->u.num.kind == TL_JSON_UINT)
        m->dynamo_cumulative_compile_time_us = (struct tl_opt_u64){true, us->u.num.u};
    m->config_suppress_errors = opt_bool(rec, "config_suppress_errors");
    m->has_guarded_code = opt_bool(rec, "has_guarded_code");
}

void tl_bwd_metrics_decode(struct tl_bwd_metrics *m, const struct tl_json *rec)
{
    memset(m, 0, sizeof(*m));
    m->inductor_compile_time_s = opt_f64(rec, "inductor_compile_time_s");
    m->code_gen_time_s = opt_f64(rec, "code_gen_time_s");
    failure(&m->fail, rec);
}

void tl_aot_bwd_metrics_decode(struct tl_aot_bwd_metrics *m, const struct tl_json *rec)
{
    memset(m, 0, sizeof(*m));
    m->start_time = opt_f64(rec, "start_time");
    m->elapsed_time = opt_f64(rec, "elapsed_time");
    failure(&m->fail, rec);
}
