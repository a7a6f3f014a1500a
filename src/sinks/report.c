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
#include "base/jobq.h"
#include "base/json_write.h"
#include "base/xalloc.h"
#include "report/html.h"
#include "report/pages.h"
#include "report/pyhl.h"
#include "model/kind.h"
#include "sinks/vllm.h"

#include <assert.h>
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

/* chromium_events.json's items: each event's payload parsed and written pretty behind its
 * separator. On the worker of a queue when nothing else reads the events (see p_chromium). */
struct chromium_items {
    struct tl_arena arena; /* one event's DOM */
    uint64_t n;            /* events written */
};

struct report {
    struct tl_report_params params;
    struct tl_buf *pages; /* the pages of the current record, one per file (next_page) */
    size_t npages, apages;
    struct tl_outfile failures, chromium;
    uint64_t nfailures;
    struct chromium_items items; /* the worker's until the queue is drained */
    struct tl_jobq *chromium_q;  /* NULL: the events are written here (no threads, or
                                  * params.chromium reads them) */
    struct tl_map listed;        /* struct tl_dirkey * -> struct listed */
    struct tl_map runtime;       /* struct tl_dirkey * -> uint32_t[2], its runtime pages so far */
    struct tl_map groups;        /* subgraph name -> its copy (char *) */
    struct tl_vllm vllm;         /* vLLM mode: seen, index.html is its summary */
    struct tl_arena *arena;
};

/* ---- the parsers ------------------------------------------------------------------------- */

/* A page of a kind (model/kind.h) for a record that has its key k. */
typedef int (*parser_fn)(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r,
                         enum tl_key k, struct tl_err *err);

/* A buffer for the next file of the record: the files of a record stay whole until the next
 * record, for the sinks after this one (tl_record_wrote). */
static struct tl_buf *next_page(struct report *rp)
{
    if (rp->npages == rp->apages) {
        TL_GROW(rp->pages, rp->npages + 1, rp->apages);
        for (size_t i = rp->npages; i < rp->apages; i++)
            tl_buf_init(&rp->pages[i], 0);
    }
    struct tl_buf *b = &rp->pages[rp->npages++];
    tl_buf_reset(b);
    return b;
}

/* A file of the record's compile folder (files.h), and what it holds said to the sinks after
 * this one. */
static int emit(struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k, struct tl_str fname,
                struct tl_str bytes, bool payload_file, struct tl_buf *used, struct tl_err *err)
{
    if (tl_files_emit(ctx, r, fname, bytes.p, bytes.n, payload_file, used, err) < 0)
        return -1;
    tl_record_wrote(r, r->key->last, k, bytes, ctx->scratch); /* the file just listed */
    return 0;
}

static int emit_page(struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                     struct tl_str fname, const struct tl_buf *page, struct tl_err *err)
{
    return emit(ctx, r, k, fname, tl_buf_str(page), false, NULL, err);
}

static int emit_payload_as(struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                           struct tl_buf *name, struct tl_err *err)
{
    int rc = emit(ctx, r, k, tl_buf_str(name), r->payload, true, NULL, err);
    tl_buf_release(name);
    return rc;
}

/* The kind's stem, a name from the log made safe, and an extension. */
static void stem_name(struct tl_buf *out, enum tl_key k, struct tl_str name, bool slash,
                      const char *ext)
{
    tl_buf_adds(out, tl_kind_stem(k));
    tl_path_safe(out, name, slash);
    tl_buf_adds(out, ext);
}

/* The kind's stem and an extension. */
static struct tl_str fixed_name(struct tl_buf *out, enum tl_key k, const char *ext)
{
    tl_buf_adds(out, tl_kind_stem(k));
    tl_buf_adds(out, ext);
    return tl_buf_str(out);
}

/* The payload verbatim as <stem>_N.txt. */
static int p_verbatim(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r,
                      enum tl_key k, struct tl_err *err)
{
    (void)rp;
    struct tl_buf name = TL_BUF_INIT;
    fixed_name(&name, k, ".txt");
    return emit_payload_as(ctx, r, k, &name, err);
}

/* The payload verbatim as <stem><name>_N.txt, its name from the entry's "name". */
static int p_named(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                   struct tl_err *err)
{
    (void)rp;
    struct tl_buf name = TL_BUF_INIT;
    stem_name(&name, k, tl_env_str(r->env->key[k], "name"), true, ".txt");
    return emit_payload_as(ctx, r, k, &name, err);
}

static int p_guards(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                    struct tl_err *err)
{
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
    struct tl_buf *page = next_page(rp);
    tl_page_guards_of(page, &v, r->display);
    struct tl_buf name = TL_BUF_INIT;
    int rc = emit_page(ctx, r, k, fixed_name(&name, k, ".html"), page, err);
    tl_buf_release(&name);
    return rc;
}

/* The stem, plus "_" and the stem of the last component of the filename. */
static void output_code_name(struct tl_buf *name, enum tl_key k, struct tl_str fn)
{
    tl_buf_adds(name, tl_kind_stem(k));
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
    struct tl_buf name = TL_BUF_INIT;
    output_code_name(&name, k, r->output_code_filename);
    if (ctx->report->plain_text) {
        tl_buf_adds(&name, ".txt");
        return emit_payload_as(ctx, r, k, &name, err);
    }
    tl_buf_adds(&name, ".html");
    struct tl_buf *page = next_page(rp);
    tl_page_output_code(page, r->payload.p, r->payload.n, r->display);
    int rc = emit_page(ctx, r, k, tl_buf_str(&name), page, err);
    tl_buf_release(&name);
    return rc;
}

static int p_aot_bwd(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                     struct tl_err *err)
{
    struct tl_buf *page = next_page(rp);
    tl_page_aot_bwd_metrics(page, r->aot_bwd_metrics, r->display);
    struct tl_buf name = TL_BUF_INIT;
    int rc = emit_page(ctx, r, k, fixed_name(&name, k, ".html"), page, err);
    tl_buf_release(&name);
    return rc;
}

static int p_bwd(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                 struct tl_err *err)
{
    struct tl_buf *page = next_page(rp);
    tl_page_bwd_metrics(page, r->bwd_metrics, r->display);
    struct tl_buf name = TL_BUF_INIT;
    int rc = emit_page(ctx, r, k, fixed_name(&name, k, ".html"), page, err);
    tl_buf_release(&name);
    return rc;
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
    struct tl_str enc = r->artifact_encoding;
    struct tl_buf name = TL_BUF_INIT;
    if (tl_str_eq_cstr(enc, "string")) {
        stem_name(&name, k, r->artifact_name, true, ".txt");
        return emit_payload_as(ctx, r, k, &name, err);
    }
    if (!tl_str_eq_cstr(enc, "json")) {
        ctx->stats->fail_parser++;
        tl_sink_warn(ctx, TL_W_PARSER, r->lineno,
                     "Parser artifact failed: Unsupported encoding: %.*s",
                     (int)(enc.n > 200 ? 200 : enc.n), enc.p);
        return 0;
    }
    stem_name(&name, k, r->artifact_name, true, ".json");
    /* parsed once for the diagnosis too (a cache lookup's artifact: record.h) */
    const struct tl_json *v = tl_record_payload_json(r, ctx->scratch);
    if (!v)
        return emit_payload_as(ctx, r, k, &name, err);
    struct tl_buf *page = next_page(rp);
    tl_json_write_pretty(page, v, 0);
    int rc = emit(ctx, r, k, tl_buf_str(&name), tl_buf_str(page), true, NULL, err);
    tl_buf_release(&name);
    return rc;
}

/* Highlighted as dump_file/<name>.html, outside the compile folders: no _N. */
static int p_dump_file(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r,
                       enum tl_key k, struct tl_err *err)
{
    struct tl_buf path = TL_BUF_INIT;
    struct tl_str key;
    tl_buf_adds(&path, tl_kind_stem(k));
    if (tl_find_eval_with_key(r->dump_file_name, &key)) {
        tl_buf_adds(&path, "eval_with_key_");
        tl_path_safe(&path, key, false);
    } else {
        tl_path_safe(&path, r->dump_file_name, true);
    }
    tl_buf_adds(&path, ".html");
    struct tl_buf *page = next_page(rp);
    tl_page_dump_file(page, r->payload.p, r->payload.n);
    struct tl_buf used = TL_BUF_INIT;
    int rc = tl_outdir_write(ctx->out, path.buf, page->buf, page->len, &used, err);
    if (rc == 0) {
        struct tl_artifact *a = tl_sink_list_file(ctx, r->key, used.buf, used.buf, false);
        tl_record_wrote(r, a, k, tl_buf_str(page), ctx->scratch);
    }
    tl_buf_release(&path);
    tl_buf_release(&used);
    return rc;
}

/* ---- compilation_metrics (spec §3.4) ----------------------------------------------------- */

/* The metrics page: every file of the compile id so far (or, for a compile id repeated many
 * times, what came since its previous page). *page_path receives the path written. */
static int metrics_page(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r,
                        enum tl_key k, struct tl_buf *page_path, struct tl_err *err)
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
    p.raw = r->env->key[k];
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
    struct tl_buf *page = next_page(rp);
    tl_page_metrics(page, &p);
    struct tl_buf name = TL_BUF_INIT;
    int rc =
        emit(ctx, r, k, fixed_name(&name, k, ".html"), tl_buf_str(page), false, page_path, err);
    tl_buf_release(&name);
    if (rc < 0)
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

/* The metrics page, then its failure rows. */
static int p_metrics(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                     struct tl_err *err)
{
    struct tl_buf page_path = TL_BUF_INIT;
    int rc = metrics_page(rp, ctx, r, k, &page_path, err);
    if (rc == 0)
        rc = failure_rows(rp, ctx, r, page_path.buf, err);
    tl_buf_release(&page_path);
    return rc;
}

/* ---- chromium events (spec §5.2) --------------------------------------------------------- */

static void chromium_item(void *ctx, const char *in, size_t n, struct tl_buf *out)
{
    struct chromium_items *ci = ctx;
    struct tl_json v;
    /* Unparsable: dropped silently, as the reference does; the md5 tells. */
    if (tl_json_parse(&ci->arena, in, n, &v, NULL) == 0) {
        tl_buf_adds(out, ci->n ? ",\n  " : "[\n  ");
        tl_json_write_pretty(out, &v, 1);
        ci->n++;
    }
    tl_arena_reset(&ci->arena);
}

/* An event, written behind the caller through the queue (the parse and the pretty JSON were an
 * eighth of a run's instructions on the parser's thread), or here. */
static int p_chromium(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r,
                      enum tl_key k, struct tl_err *err)
{
    (void)k;
    if (rp->chromium_q) {
        tl_jobq_submit(rp->chromium_q, r->payload.p, r->payload.n);
        tl_jobq_take(rp->chromium_q, &rp->chromium.buf);
        return tl_outfile_maybe_flush(&rp->chromium, err);
    }
    const struct tl_json *v = tl_record_payload_json(r, ctx->scratch);
    if (!v)
        return 0; /* dropped silently, as the reference does; the md5 tells */
    tl_buf_adds(&rp->chromium.buf, rp->items.n ? ",\n  " : "[\n  ");
    tl_json_write_pretty(&rp->chromium.buf, v, 1);
    rp->items.n++;
    if (rp->params.chromium && rp->params.chromium(rp->params.chromium_ctx, v, err) < 0)
        return -1;
    return tl_outfile_maybe_flush(&rp->chromium, err);
}

/* The events written so far, all of them: the queue's output in the file's buffer. */
static uint64_t chromium_drain(struct report *rp)
{
    if (rp->chromium_q)
        tl_jobq_drain(rp->chromium_q, &rp->chromium.buf);
    return rp->items.n;
}

/* ---- compilation_metrics_runtime ----------------------------------------------------------- */

/*
 * A runtime metrics record (PyTorch 2.13 logs one per compiled graph's first runs) as its own
 * page <folder>/<stem>_<k>.html, k = 1, 2, ... counting the folder's records of the kind, the
 * same count as the model's (tl_compile.runtime[].n: the index links the pages by it). The
 * reference this tool conforms to drops these records; how 0.4.8 shows them is not known
 * here. The page takes no number of the listing and is not listed, so that every other file
 * keeps the name the reference gives it; the index's "Runtime" section links it.
 */
static int p_runtime(struct report *rp, struct tl_sink_ctx *ctx, struct tl_record *r, enum tl_key k,
                     struct tl_err *err)
{
    const struct tl_json *v = r->env->key[k];
    if (!r->cid_ok || !v || v->type != TL_JSON_OBJECT)
        return 0; /* as the model: no compile id, nothing to file it under */
    const bool bwd = k == TL_K_BWD_COMPILATION_METRICS_RUNTIME;
    struct tl_dirkey *key = r->key;
    struct tl_map_entry *e =
        tl_map_upsert(&rp->runtime, tl_str_make((const char *)&key, sizeof(key)), NULL);
    if (!e->value)
        e->value = tl_arena_calloc(rp->arena, 2, sizeof(uint32_t));
    uint32_t *count = e->value;
    count[bwd]++;
    struct tl_buf *page = next_page(rp);
    tl_page_runtime_metrics(page, v, r->display, bwd);
    struct tl_buf path = TL_BUF_INIT;
    tl_dirkey_folder(&path, key);
    tl_buf_addch(&path, '/');
    tl_buf_adds(&path, tl_kind_stem(k));
    tl_buf_addf(&path, "_%u.html", count[bwd]);
    int rc = tl_outdir_write(ctx->out, path.buf, page->buf, page->len, NULL, err);
    tl_buf_release(&path);
    return rc;
}

/* The renderer of each page of model/kind.h, in the order of enum tl_kind_page (the assert
 * below fails on a page without one). */
static const parser_fn renderers[] = {
    NULL,          /* TL_KIND_NO_PAGE */
    p_verbatim,    /* TL_KIND_VERBATIM */
    p_named,       /* TL_KIND_NAMED */
    p_guards,      /* TL_KIND_GUARDS */
    p_output_code, /* TL_KIND_OUTPUT_CODE */
    p_aot_bwd,     /* TL_KIND_AOT_BWD_METRICS */
    p_bwd,         /* TL_KIND_BWD_METRICS */
    p_link,        /* TL_KIND_LINK */
    p_artifact,    /* TL_KIND_ARTIFACT */
    p_dump_file,   /* TL_KIND_DUMP_FILE */
    p_metrics,     /* TL_KIND_METRICS */
    p_chromium,    /* TL_KIND_CHROMIUM */
    p_runtime,     /* TL_KIND_RUNTIME_METRICS */
};
static_assert(TL_ARRAY_LEN(renderers) == TL_KIND_PAGE__COUNT, "a renderer for every page");

/* ---- the sink ------------------------------------------------------------------------ */

static void *report_create(struct tl_sink_ctx *ctx, const void *params)
{
    struct report *rp = tl_xcalloc(1, sizeof(*rp));
    if (params)
        rp->params = *(const struct tl_report_params *)params;
    tl_outfile_init(&rp->failures);
    tl_outfile_init(&rp->chromium);
    tl_arena_init(&rp->items.arena, 0);
    if (ctx->threads && !rp->params.chromium)
        rp->chromium_q = tl_jobq_new(chromium_item, &rp->items, 4u << 20, true);
    rp->arena = ctx->arena;
    tl_map_init(&rp->listed, ctx->arena);
    tl_map_init(&rp->runtime, ctx->arena);
    tl_map_init(&rp->groups, ctx->arena);
    tl_vllm_init(&rp->vllm, ctx->arena);
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

/* The entries the record listed (after `before`, its key's last entry before it) are of its
 * subgraph_name, if it has one: the index groups them under "Subgraph Name:" headers, as the
 * reference 0.4.8 does for regional inductor's subgraphs. The names are kept once each. */
static void group_entries(struct report *rp, const struct tl_record *r,
                          const struct tl_artifact *before)
{
    const struct tl_json *v = r->env && r->key ? r->env->key[TL_K_SUBGRAPH_NAME] : NULL;
    if (!v || v->type != TL_JSON_STRING)
        return;
    struct tl_artifact *a = before ? before->next : r->key->first;
    if (!a)
        return;
    struct tl_map_entry *e = tl_map_upsert(&rp->groups, v->u.str, NULL);
    if (!e->value) {
        /* A C string: a NUL of the name shows as U+FFFD, as everywhere else. */
        struct tl_buf name = TL_BUF_INIT;
        tl_buf_add_nonul(&name, v->u.str.p, v->u.str.n);
        e->value = tl_arena_memdupz(rp->arena, name.buf, name.len);
        tl_buf_release(&name);
    }
    for (; a; a = a->next)
        a->group = e->value;
}

/* Every page the record's keys make, in the table's order (spec core.md §3.2). */
static int report_record(void *self, struct tl_sink_ctx *ctx, struct tl_record *r,
                         struct tl_err *err)
{
    struct report *rp = self;
    rp->npages = 0; /* the previous record's files are done with */
    struct tl_artifact *before = r->key ? r->key->last : NULL;
    for (size_t i = 0; i < tl_kind_norder; i++) {
        enum tl_key k = tl_kind_order[i];
        parser_fn fn = renderers[tl_kind_of(k)->page];
        if (fn && tl_record_has(r, k) && fn(rp, ctx, r, k, err) < 0)
            return -1;
    }
    if (tl_vllm_record(&rp->vllm, ctx, r, before, err) < 0)
        return -1;
    group_entries(rp, r, before);
    return 0;
}

static int render_index(const struct tl_page_sink *sink, const void *arg)
{
    return tl_page_index(sink, arg);
}

static int render_vllm(const struct tl_page_sink *sink, const void *arg)
{
    return tl_page_vllm(sink, arg);
}

static int render_directory(const struct tl_page_sink *sink, const void *arg)
{
    return tl_page_directory_json(sink, arg);
}

static int render_ledger(const struct tl_page_sink *sink, const void *arg)
{
    return tl_page_ledger(sink, arg);
}

/* compile_directory.json, compile_time.html (when the log times its compiles) and index.html,
 * of the model as it is. */
static int report_pages(struct report *rp, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    if (tl_files_stream_page(ctx, "compile_directory.json", render_directory, &ctx->model->dir,
                             err) < 0)
        return -1;
    const struct tl_ledger *ledger = &ctx->model->diag.ledger;
    if (ledger->present &&
        tl_files_stream_page(ctx, "compile_time.html", render_ledger, ledger, err) < 0)
        return -1;
    struct tl_index_page ip = {
        .custom_header_html = ctx->report->custom_header_html,
        .model = ctx->model,
        .diag = &ctx->model->diag,
        .nfailures = rp->nfailures,
        .has_chromium = chromium_drain(rp) > 0,
        .compile_time = ledger->present,
        .provenance = ctx->report->provenance,
        .collectives_parity = rp->params.collectives_parity,
        .info = ctx->info,
    };
    if (!rp->vllm.seen)
        return tl_files_stream_page(ctx, "index.html", render_index, &ip, err);
    /* vLLM mode, as the reference: the summary is the index, the classic one moves. */
    struct tl_vllm_page vp = {ctx->report->custom_header_html, &rp->vllm, &ctx->model->dir};
    if (tl_files_stream_page(ctx, "tlparse_index.html", render_index, &ip, err) < 0)
        return -1;
    return tl_files_stream_page(ctx, "index.html", render_vllm, &vp, err);
}

static int report_finish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct report *rp = self;
    tl_page_failures_tail(&rp->failures.buf);
    if (tl_outfile_close(&rp->failures, err) < 0)
        return -1;
    tl_buf_adds(&rp->chromium.buf, chromium_drain(rp) ? "\n]" : "[]");
    if (tl_outfile_close(&rp->chromium, err) < 0)
        return -1;
    return report_pages(rp, ctx, err);
}

static int report_publish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    return report_pages(self, ctx, err);
}

static void report_destroy(void *self)
{
    struct report *rp = self;
    tl_outfile_close(&rp->failures, NULL);
    tl_jobq_free(rp->chromium_q);
    tl_outfile_close(&rp->chromium, NULL);
    tl_arena_release(&rp->items.arena);
    tl_map_release(&rp->listed);
    tl_map_release(&rp->runtime);
    tl_map_release(&rp->groups);
    for (size_t i = 0; i < rp->apages; i++)
        tl_buf_release(&rp->pages[i]);
    free(rp->pages);
    free(rp);
}

const struct tl_sink_ops tl_sink_report = {
    .name = "report",
    .create = report_create,
    .start = report_start,
    .record = report_record,
    .finish = report_finish,
    .publish = report_publish,
    .destroy = report_destroy,
};
