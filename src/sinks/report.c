/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HTML report, as a sink of records: the parser table of the reference (spec core.md
 * §3.2: for each record, in a fixed order, every parser whose key is present turns the
 * payload into a file of the compile folder and a listing entry), the compilation-metrics
 * pages and the rows of failures_and_restarts.html (§3.4), chromium_events.json, and at the
 * end index.html and compile_directory.json. Pages are rendered by report/ into a buffer;
 * this file names the files and writes them.
 */
#include "base/config.h"
#include "sinks/sinks.h"
#include "sinks/files.h"
#include "base/json.h"
#include "base/json_write.h"
#include "base/xalloc.h"
#include "report/html.h"
#include "report/pages.h"
#include "report/pyhl.h"

#include <stdlib.h>
#include <string.h>

/* Earlier files of a compile id that its next metrics page still lists. */
#define METRICS_EARLIER_MAX 64

/* What a compile-directory key's last metrics page listed: a repeated compile id's next
 * page lists only what came after (the reference lists everything again, quadratic in the
 * number of repeats). */
struct listed {
    struct tl_artifact *last;
    size_t n;
};

struct report {
    struct tl_report_params params;
    struct tl_buf page; /* the page being written */
    struct tl_outfile failures, chromium;
    uint64_t nfailures, nchromium;
    struct tl_map listed; /* struct tl_dirkey * -> struct listed */
    struct tl_arena *arena;
};

/* ---- the parsers ------------------------------------------------------------------------- */

typedef int (*parser_fn)(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r,
                         enum tl_key k, struct tl_err *err);

/* A name from the log, made safe, plus an extension. */
static void safe_name(struct tl_buf *out, const char *prefix, struct tl_str name, bool slash,
                      const char *ext)
{
    tl_buf_adds(out, prefix);
    tl_path_safe(out, name, slash);
    tl_buf_adds(out, ext);
}

static int emit_payload_as(struct tl_sink_ctx *ctx, struct tl_record *r, struct tl_buf *name,
                           struct tl_err *err)
{
    int rc = tl_files_emit(ctx, r, tl_buf_str(name), r->payload.p, r->payload.n, true, NULL, err);
    tl_buf_release(name);
    return rc;
}

/* The payload verbatim as <key>_N.txt. */
static int p_payload(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                     struct tl_err *err)
{
    (void)rp;
    struct tl_buf name = TL_BUF_INIT;
    tl_buf_adds(&name, tl_key_name(k));
    tl_buf_adds(&name, ".txt");
    return emit_payload_as(ctx, r, &name, err);
}

static int p_graph_dump(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r,
                        enum tl_key k, struct tl_err *err)
{
    (void)rp, (void)k;
    struct tl_buf name = TL_BUF_INIT;
    safe_name(&name, "", r->graph_dump_name, true, ".txt");
    return emit_payload_as(ctx, r, &name, err);
}

static int p_split_child(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r,
                         enum tl_key k, struct tl_err *err)
{
    (void)rp, (void)k;
    struct tl_buf name = TL_BUF_INIT;
    safe_name(&name, "optimize_ddp_split_child_", r->split_child_name, true, ".txt");
    return emit_payload_as(ctx, r, &name, err);
}

static int p_guards(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                    struct tl_err *err)
{
    (void)rp, (void)k;
    struct tl_json v;
    struct tl_json_error je;
    const char *why = NULL;
    if (tl_json_parse(ctx->scratch, r->payload.p, r->payload.n, &v, &je) < 0)
        why = je.msg;
    else
        why = tl_guards_check(&v);
    if (why) {
        ctx->stats->fail_dynamo_guards_json++;
        tl_sink_warn(ctx, TL_W_GUARDS, r->lineno, "Failed to parse guards json: %s", why);
        return 0;
    }
    tl_buf_reset(&rp->page);
    tl_page_guards_of(&rp->page, &v, r->display);
    return tl_files_emit(ctx, r, TL_STR_LIT("dynamo_guards.html"), rp->page.buf, rp->page.len,
                         false, NULL, err);
}

/* "inductor_output_code" plus "_" and the stem of the last component of the filename. */
static void output_code_name(struct tl_buf *name, struct tl_str fn)
{
    tl_buf_adds(name, "inductor_output_code");
    if (!fn.p || !fn.n)
        return;
    const char *s = fn.p + fn.n;
    while (s > fn.p && s[-1] != '/')
        s--;
    struct tl_str base = tl_str_make(s, (size_t)(fn.p + fn.n - s));
    for (size_t i = base.n; i > 1; i--)
        if (base.p[i - 1] == '.') {
            base.n = i - 1;
            break;
        }
    if (base.n) {
        tl_buf_addch(name, '_');
        tl_path_safe(name, base, false);
    }
}

static int p_output_code(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r,
                         enum tl_key k, struct tl_err *err)
{
    (void)rp, (void)k;
    struct tl_buf name = TL_BUF_INIT;
    output_code_name(&name, r->output_code_filename);
    if (ctx->opt->plain_text) {
        tl_buf_adds(&name, ".txt");
        return emit_payload_as(ctx, r, &name, err);
    }
    tl_buf_adds(&name, ".html");
    tl_buf_reset(&rp->page);
    tl_page_output_code(&rp->page, r->payload.p, r->payload.n, r->display);
    int rc = tl_files_emit(ctx, r, tl_buf_str(&name), rp->page.buf, rp->page.len, false, NULL, err);
    tl_buf_release(&name);
    return rc;
}

static int p_aot_bwd(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                     struct tl_err *err)
{
    (void)rp, (void)k;
    tl_buf_reset(&rp->page);
    tl_page_aot_bwd_metrics(&rp->page, r->aot_bwd_metrics, r->display);
    return tl_files_emit(ctx, r, TL_STR_LIT("aot_autograd_backward_compilation_metrics.html"),
                         rp->page.buf, rp->page.len, false, NULL, err);
}

static int p_bwd(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                 struct tl_err *err)
{
    (void)rp, (void)k;
    tl_buf_reset(&rp->page);
    tl_page_bwd_metrics(&rp->page, r->bwd_metrics, r->display);
    return tl_files_emit(ctx, r, TL_STR_LIT("bwd_compilation_metrics.html"), rp->page.buf,
                         rp->page.len, false, NULL, err);
}

static int p_link(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                  struct tl_err *err)
{
    (void)rp, (void)k, (void)err;
    tl_files_add_link(ctx, r, r->link_name, r->link_url);
    return 0;
}

static int p_artifact(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r,
                      enum tl_key k, struct tl_err *err)
{
    (void)rp, (void)k;
    struct tl_str enc = r->artifact_encoding;
    struct tl_buf name = TL_BUF_INIT;
    if (tl_str_eq_cstr(enc, "string")) {
        safe_name(&name, "", r->artifact_name, true, ".txt");
        return emit_payload_as(ctx, r, &name, err);
    }
    if (!tl_str_eq_cstr(enc, "json")) {
        ctx->stats->fail_parser++;
        tl_sink_warn(ctx, TL_W_PARSER, r->lineno,
                     "Parser artifact failed: Unsupported encoding: %.*s",
                     (int)(enc.n > 200 ? 200 : enc.n), enc.p);
        return 0;
    }
    safe_name(&name, "", r->artifact_name, true, ".json");
    struct tl_json v;
    if (tl_json_parse(ctx->scratch, r->payload.p, r->payload.n, &v, NULL) < 0)
        return emit_payload_as(ctx, r, &name, err);
    tl_buf_reset(&rp->page);
    tl_json_write_pretty(&rp->page, &v, 0);
    int rc = tl_files_emit(ctx, r, tl_buf_str(&name), rp->page.buf, rp->page.len, true, NULL, err);
    tl_buf_release(&name);
    return rc;
}

static int p_dump_file(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r,
                       enum tl_key k, struct tl_err *err)
{
    (void)rp, (void)k;
    struct tl_buf path = TL_BUF_INIT;
    struct tl_str key;
    tl_buf_adds(&path, "dump_file/");
    if (tl_find_eval_with_key(r->dump_file_name, &key)) {
        tl_buf_adds(&path, "eval_with_key_");
        tl_path_safe(&path, key, false);
    } else {
        tl_path_safe(&path, r->dump_file_name, true);
    }
    tl_buf_adds(&path, ".html");
    tl_buf_reset(&rp->page);
    tl_page_dump_file(&rp->page, r->payload.p, r->payload.n);
    struct tl_buf used = TL_BUF_INIT;
    int rc = tl_outdir_write(ctx->out, path.buf, rp->page.buf, rp->page.len, &used, err);
    if (rc == 0)
        tl_sink_list_file(ctx, r->key, used.buf, used.buf, false);
    tl_buf_release(&path);
    tl_buf_release(&used);
    return rc;
}

static const struct parser {
    enum tl_key key;
    parser_fn fn;
} parsers[] = {
    {TL_K_OPTIMIZE_DDP_SPLIT_GRAPH, p_payload},
    {TL_K_COMPILED_AUTOGRAD_GRAPH, p_payload},
    {TL_K_AOT_FORWARD_GRAPH, p_payload},
    {TL_K_AOT_BACKWARD_GRAPH, p_payload},
    {TL_K_AOT_INFERENCE_GRAPH, p_payload},
    {TL_K_AOT_JOINT_GRAPH, p_payload},
    {TL_K_INDUCTOR_POST_GRAD_GRAPH, p_payload},
    {TL_K_INDUCTOR_PRE_GRAD_GRAPH, p_payload},
    {TL_K_DYNAMO_CPP_GUARDS_STR, p_payload},
    {TL_K_GRAPH_DUMP, p_graph_dump},
    {TL_K_DYNAMO_OUTPUT_GRAPH, p_payload},
    {TL_K_DYNAMO_GUARDS, p_guards},
    {TL_K_INDUCTOR_OUTPUT_CODE, p_output_code},
    {TL_K_OPTIMIZE_DDP_SPLIT_CHILD, p_split_child},
    {TL_K_AOT_AUTOGRAD_BACKWARD_COMPILATION_METRICS, p_aot_bwd},
    {TL_K_BWD_COMPILATION_METRICS, p_bwd},
    {TL_K_LINK, p_link},
    {TL_K_ARTIFACT, p_artifact},
    {TL_K_DUMP_FILE, p_dump_file},
};

/* ---- compilation_metrics (spec §3.4) ----------------------------------------------------- */

/* The metrics page: every file of the compile id so far (or, for a compile id repeated many
 * times, what came since its previous page). *page_path receives the path written. */
static int metrics_page(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r,
                        struct tl_buf *page_path, struct tl_err *err)
{
    struct tl_dirkey *key = r->key;
    struct tl_map_entry *e =
        tl_map_upsert(&rp->listed, tl_str_make((const char *)&key, sizeof(key)), NULL);
    if (!e->value)
        e->value = tl_arena_calloc(rp->arena, 1, sizeof(struct listed));
    struct listed *seen = e->value;
    struct tl_metrics_page p;
    memset(&p, 0, sizeof(p));
    p.m = r->metrics;
    p.raw = r->env->key[TL_K_COMPILATION_METRICS];
    p.display = r->display;
    p.strtab = &ctx->model->strtab;
    if (seen->n <= METRICS_EARLIER_MAX) {
        /* As the reference: every file of the compile id so far. */
        p.listing = key->first;
        p.nlisting = key->n;
    } else {
        p.listing = seen->last->next;
        p.nlisting = key->n - seen->n;
        p.nearlier = seen->n;
    }
    struct tl_artifact *snap_last = key->last;
    size_t snap_n = key->n;
    if (r->cid_ok) {
        struct tl_compile_id mid = tl_cid_metrics_key(r->cid);
        p.compile = tl_model_find(ctx->model, &mid);
    }
    tl_buf_reset(&rp->page);
    tl_page_metrics(&rp->page, &p);
    if (tl_files_emit(ctx, r, TL_STR_LIT("compilation_metrics.html"), rp->page.buf, rp->page.len,
                      false, page_path, err) < 0)
        return -1;
    seen->last = snap_last;
    seen->n = snap_n;
    return 0;
}

/* Its rows of failures_and_restarts.html, linked to the metrics page just written. */
static int failure_rows(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r,
                        const char *page_path, struct tl_err *err)
{
    const struct tl_metrics *m = r->metrics;
    struct tl_buf label = TL_BUF_INIT;
    if (r->cid_ok) {
        tl_buf_adds(&label, "<a href='");
        tl_html_path(&label, page_path, strlen(page_path));
        tl_buf_adds(&label, "'>");
        tl_buf_adds(&label, r->display);
        tl_buf_adds(&label, "</a> ");
    } else {
        tl_buf_adds(&label, "(unknown) ");
    }
    for (size_t i = 0; i < m->restart_reasons.n; i++) {
        tl_page_failures_restart_row(&rp->failures.buf, label.buf, m->restart_reasons.s[i]);
        rp->nfailures++;
    }
    if (m->fail.type.p) {
        struct tl_failure f = m->fail;
        if (!f.reason.p) {
            /* The reference aborts the whole run here; we report it and go on. */
            ctx->stats->fail_missing_fail_reason++;
            tl_sink_warn(ctx, TL_W_FAILREASON, r->lineno,
                         "compilation_metrics has fail_type but no fail_reason");
            f.reason = TL_STR_LIT("");
        }
        tl_page_failures_failure_row(&rp->failures.buf, label.buf, &f);
        rp->nfailures++;
    }
    tl_buf_release(&label);
    return tl_outfile_maybe_flush(&rp->failures, err);
}

/* ---- chromium events (spec §5.2) --------------------------------------------------------- */

static int chromium_event(struct report *rp, struct tl_sink_ctx *ctx, const struct tl_record *r,
                          struct tl_err *err)
{
    struct tl_json v;
    if (tl_json_parse(ctx->scratch, r->payload.p, r->payload.n, &v, NULL) < 0)
        return 0; /* dropped silently, as the reference does; the md5 tells */
    tl_buf_adds(&rp->chromium.buf, rp->nchromium ? ",\n  " : "[\n  ");
    tl_json_write_pretty(&rp->chromium.buf, &v, 1);
    rp->nchromium++;
    if (rp->params.chromium && rp->params.chromium(rp->params.chromium_ctx, &v, err) < 0)
        return -1;
    return tl_outfile_maybe_flush(&rp->chromium, err);
}

/* ---- the sink ------------------------------------------------------------------------ */

static void *report_create(struct tl_sink_ctx *ctx, const void *params)
{
    struct report *rp = tl_xcalloc(1, sizeof(*rp));
    if (params)
        rp->params = *(const struct tl_report_params *)params;
    tl_buf_init(&rp->page, 0);
    tl_outfile_init(&rp->failures);
    tl_outfile_init(&rp->chromium);
    rp->arena = ctx->arena;
    tl_map_init(&rp->listed, ctx->arena);
    return rp;
}

static int report_start(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct report *rp = self;
    if (tl_outfile_open(&rp->failures, ctx->out, "failures_and_restarts.html", err) < 0 ||
        tl_outfile_open(&rp->chromium, ctx->out, "chromium_events.json", err) < 0)
        return -1;
    tl_page_failures_head(&rp->failures.buf);
    return 0;
}

static int report_record(void *self, struct tl_sink_ctx *ctx, struct tl_record *r,
                         struct tl_err *err)
{
    struct report *rp = self;
    for (size_t i = 0; i < TL_ARRAY_LEN(parsers); i++) {
        if (tl_record_has(r, parsers[i].key) && parsers[i].fn(rp, ctx, r, parsers[i].key, err) < 0)
            return -1;
    }
    if (r->metrics) {
        struct tl_buf page_path = TL_BUF_INIT;
        int rc = metrics_page(rp, ctx, r, &page_path, err);
        if (rc == 0)
            rc = failure_rows(rp, ctx, r, page_path.buf, err);
        tl_buf_release(&page_path);
        if (rc < 0)
            return -1;
    }
    if (tl_record_has(r, TL_K_CHROMIUM_EVENT))
        return chromium_event(rp, ctx, r, err);
    return 0;
}

static int render_index(const struct tl_page_sink *sink, const void *arg)
{
    return tl_page_index(sink, arg);
}

static int render_directory(const struct tl_page_sink *sink, const void *arg)
{
    return tl_page_directory_json(sink, arg);
}

static int report_finish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct report *rp = self;
    tl_page_failures_tail(&rp->failures.buf);
    if (tl_outfile_close(&rp->failures, err) < 0)
        return -1;
    tl_buf_adds(&rp->chromium.buf, rp->nchromium ? "\n]" : "[]");
    if (tl_outfile_close(&rp->chromium, err) < 0)
        return -1;
    if (tl_files_stream_page(ctx, "compile_directory.json", render_directory, &ctx->model->dir,
                             err) < 0)
        return -1;
    struct tl_index_page ip = {
        .custom_header_html = ctx->opt->custom_header_html,
        .model = ctx->model,
        .diag = &ctx->model->diag,
        .nfailures = rp->nfailures,
        .has_chromium = rp->nchromium > 0,
        .provenance = ctx->opt->inductor_provenance,
        .collectives_parity = rp->params.collectives_parity,
        .info = ctx->info,
    };
    return tl_files_stream_page(ctx, "index.html", render_index, &ip, err);
}

static void report_destroy(void *self)
{
    struct report *rp = self;
    tl_outfile_close(&rp->failures, NULL);
    tl_outfile_close(&rp->chromium, NULL);
    tl_map_release(&rp->listed);
    tl_buf_release(&rp->page);
    free(rp);
}

const struct tl_sink_ops tl_sink_report = {
    .name = "report",
    .create = report_create,
    .start = report_start,
    .record = report_record,
    .finish = report_finish,
    .destroy = report_destroy,
};
