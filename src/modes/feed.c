/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tl_feed_*(): one log whose bytes the caller gives, as cmark's parser is fed
 * (cmark_parser_feed, cmark_parser_finish). The bytes are held until they tell a trace from
 * TORCH_LOGS text as tl_run() tells it (the first TL_SNIFF_WINDOW bytes, or all of them when
 * fewer come); then the output is opened and the engine is fed as they come. The report is
 * the one tl_run() makes of the same bytes; only its footer (the input's size and time) is
 * not known.
 */
#include "base/config.h"
#include "modes/modes.h"
#include "modes/plan.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tl_feed {
    struct tl_plan plan;
    struct tl_messages msg;
    const char *name;   /* the log's, in messages: opt->path, or "<stream>" */
    const char *path;   /* its file, for the footer (a followed log); NULL: none */
    struct tl_buf head; /* the first bytes, until they tell what the log is */
    bool started;       /* the engine was started */
    bool out_open;      /* out is open (a report is written) */
    int code;           /* TL_EXIT_OK until the run failed (said) */
    struct tl_outdir out;
    struct tl_log_run lr;
    struct tl_engine *eng;
    void (*on_end)(void *ctx, struct tl_feed *f, const struct tl_counts *counts);
    void *on_end_ctx;
    bool keep_engine; /* finished, the engine stays until tl_feed_free (its model is read) */
};

struct tl_feed *tl_feed_new(const struct tl_options *opt)
{
    struct tl_feed *f = tl_xcalloc(1, sizeof(*f));
    struct tl_err err = {TL_ERR_NONE, ""};
    if (tl_plan_make_stream(&f->plan, opt, &err) < 0) {
        tl_report_error(opt, &err);
        tl_plan_release(&f->plan);
        free(f);
        return NULL;
    }
    f->name = f->plan.opt.path ? f->plan.opt.path : "<stream>";
    f->msg = (struct tl_messages){.opt = &f->plan.opt, .input = f->name};
    tl_buf_init(&f->head, 0);
    return f;
}

/* The run failed: said once; what follows is not read. */
static int failed(struct tl_feed *f, const struct tl_err *err)
{
    if (f->code == TL_EXIT_OK)
        f->code = tl_report_error(&f->plan.opt, err);
    return f->code;
}

/* The log is text or a trace: the output opened, the engine started and given the head. */
static int begin(struct tl_feed *f, bool text)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    const struct tl_options *opt = &f->plan.opt;
    if (f->plan.output != TL_PLAN_OUT_NONE) {
        if (tl_output_open(opt, &f->out, &err) < 0)
            return failed(f, &err);
        f->out_open = true;
        if (f->keep_engine) /* live: a folder that cannot be written stops the report only */
            tl_outdir_keep_failures(&f->out);
        tl_output_say_leftovers(&f->out, &f->msg, opt->out_dir);
        if (tl_output_extras(opt, &f->out, &err) < 0)
            return failed(f, &err);
    }
    if (tl_log_run_init(&f->lr, opt, NULL, f->path, f->name, f->out_open ? &f->out : NULL, text,
                        &err) < 0)
        return failed(f, &err);
    f->eng = tl_engine_new(&f->lr.job);
    f->started = true;
    if (tl_engine_start(f->eng, 0, &err) < 0 ||
        tl_engine_feed(f->eng, f->head.buf, f->head.len, &err) < 0)
        return failed(f, &err);
    tl_buf_release(&f->head);
    return TL_EXIT_OK;
}

/* The head tells what the log is (whole: no more bytes come). */
static int start(struct tl_feed *f, bool whole)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    size_t n = f->head.len < TL_SNIFF_WINDOW ? f->head.len : TL_SNIFF_WINDOW;
    char why[256];
    enum tl_sniff_kind kind = tl_sniff(f->head.buf, n, whole, why, sizeof(why));
    if (kind == TL_SNIFF_NOT_LOG) {
        tl_error_code(&err, TL_ERR_INPUT, "%s is not a TORCH_TRACE log or TORCH_LOGS text: %s",
                      f->name, why);
        return failed(f, &err);
    }
    return begin(f, kind == TL_SNIFF_TEXT);
}

int tl_feed_bytes(struct tl_feed *f, const void *p, size_t n)
{
    if (f->code != TL_EXIT_OK || !n)
        return f->code;
    if (f->started) {
        struct tl_err err = {TL_ERR_NONE, ""};
        if (tl_engine_feed(f->eng, p, n, &err) < 0)
            return failed(f, &err);
        return TL_EXIT_OK;
    }
    tl_buf_add(&f->head, p, n);
    return f->head.len >= TL_SNIFF_WINDOW ? start(f, false) : TL_EXIT_OK;
}

int tl_feed_finish(struct tl_feed *f, struct tl_result *res)
{
    struct tl_result ignored;
    res = res ? res : &ignored;
    memset(res, 0, sizeof(*res));
    if (f->code == TL_EXIT_OK && !f->started)
        start(f, true);
    struct tl_err err = {TL_ERR_NONE, ""};
    const struct tl_options *opt = &f->plan.opt;
    struct tl_engine_result sum;
    memset(&sum, 0, sizeof(sum));
    int rc = f->code == TL_EXIT_OK ? 0 : -1;
    if (f->started) {
        if (f->path)
            tl_engine_restat(f->eng); /* the log as it ended */
        rc = tl_engine_finish(f->eng, NULL, rc, &sum, &err);
        if (f->on_end)
            f->on_end(f->on_end_ctx, f, rc == 0 ? &sum.counts : NULL);
        if (!f->keep_engine) {
            tl_engine_free(f->eng);
            f->eng = NULL;
        }
        if (rc == 0)
            rc = tl_log_check_entries(f->name, &sum, &err);
        if (rc == 0 && tl_stop_asked(opt->cancel))
            rc = tl_error_code(&err, TL_ERR_SIGNAL, "interrupted");
    }
    res->bytes_in = sum.bytes_in;
    res->lines = sum.lines;
    int code = rc == 0 ? tl_strict_exit(opt, &f->msg, &sum) : TL_EXIT_OK;
    if (rc == 0) {
        res->has_counts = true;
        res->counts = sum.counts;
        res->summary = f->lr.summary;
        f->lr.summary = NULL;
    }
    if (f->out_open) {
        f->out_open = false;
        rc = tl_output_end(&f->out, rc, opt->cancel, &err);
        if (rc == 0 && opt->bundle)
            res->bundle_path = tl_xstrdup(opt->bundle);
        else if (rc == 0)
            res->index_path = tl_index_path(opt->out_dir);
    }
    if (f->code != TL_EXIT_OK)
        return f->code;
    if (rc < 0) {
        free(res->summary);
        res->summary = NULL;
        res->has_counts = false;
        return failed(f, &err);
    }
    return code;
}

void tl_feed_free(struct tl_feed *f)
{
    if (!f)
        return;
    tl_engine_free(f->eng);
    if (f->out_open)
        tl_outdir_abort(&f->out);
    free(f->lr.summary);
    tl_buf_release(&f->head);
    tl_plan_release(&f->plan);
    free(f);
}

/* ---- a log followed live (modes.h) ------------------------------------------------------ */

struct tl_feed *tl_feed_live(const struct tl_options *opt, const char *path, bool text, bool report)
{
    struct tl_feed *f = tl_xcalloc(1, sizeof(*f));
    f->plan.opt = *opt;
    f->plan.mode = TL_PLAN_LOG;
    f->plan.output = report ? TL_PLAN_OUT_FOLDER : TL_PLAN_OUT_NONE;
    f->plan.folder = report ? opt->out_dir : NULL;
    f->name = f->path = path;
    f->msg = (struct tl_messages){.opt = &f->plan.opt, .input = f->name};
    f->keep_engine = true;
    tl_buf_init(&f->head, 0);
    begin(f, text);
    return f;
}

struct tl_engine *tl_feed_engine(struct tl_feed *f)
{
    return f->code == TL_EXIT_OK ? f->eng : NULL;
}

bool tl_feed_has_report(const struct tl_feed *f)
{
    return f->out_open && f->code == TL_EXIT_OK && !tl_outdir_failed(&f->out, NULL);
}

bool tl_feed_report_failed(const struct tl_feed *f, struct tl_err *err)
{
    return f->out_open && tl_outdir_failed(&f->out, err);
}

int tl_feed_go_live(struct tl_feed *f, struct tl_err *err)
{
    return tl_outdir_publish(&f->out, err);
}

int tl_feed_replace(struct tl_feed *f, const char *name, const void *p, size_t n,
                    struct tl_err *err)
{
    return tl_outdir_replace(&f->out, name, p, n, err);
}

int tl_feed_snapshot(struct tl_feed *f, struct tl_err *err)
{
    int rc = tl_live_pages(&f->out, f->eng, err);
    if (rc == 0 && tl_outdir_failed(&f->out, err))
        rc = -1;
    return rc;
}

void tl_feed_drop_report(struct tl_feed *f)
{
    if (f->out_open)
        tl_outdir_detach(&f->out);
}

void tl_feed_on_end(struct tl_feed *f,
                    void (*fn)(void *ctx, struct tl_feed *f, const struct tl_counts *counts),
                    void *ctx)
{
    f->on_end = fn;
    f->on_end_ctx = ctx;
}
