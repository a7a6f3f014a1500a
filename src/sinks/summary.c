/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * summary.json (the diagnosis, for scripts and for `tlparse diff`) and dynamic_shapes.html
 * (the dynamic dimensions and what specialized them), written at the end of the log from
 * the model's finished diagnosis.
 */
#include "base/config.h"
#include "sinks/sinks.h"
#include "report/summary.h"

int tl_sink_write_summary(struct tl_sink_ctx *ctx, const struct tl_rank_summary *rank,
                          struct tl_err *err)
{
    struct tl_buf json = TL_BUF_INIT;
    const struct tl_diag *d = &ctx->model->diag;
    /* A rank's log is named by its file name: the folder differs from machine to machine,
     * and a rank's findings are the same whichever machine wrote them ("generated_by" says
     * which command and input file did). */
    const char *path = rank ? rank->log : ctx->input;
    struct tl_summary_source src = {path, ctx->text ? "torch_logs" : "torch_trace", rank,
                                    ctx->info};
    tl_summary_json(&json, d, &src, true);
    int rc = tl_outdir_write(ctx->out, "summary.json", json.buf, json.len, NULL, err);
    if (rc == 0 && !ctx->report->export_mode && tl_page_shapes_wanted(d)) {
        tl_buf_reset(&json);
        tl_page_shapes(&json, d, ctx->text ? "log.html#" : "index.html#");
        rc = tl_outdir_write(ctx->out, "dynamic_shapes.html", json.buf, json.len, NULL, err);
    }
    tl_buf_release(&json);
    return rc;
}

static void *summary_create(struct tl_sink_ctx *ctx, const void *params)
{
    (void)ctx, (void)params;
    return (void *)&tl_sink_summary; /* no state of its own */
}

static bool summary_wants_payload(void *self, const struct tl_record *r)
{
    (void)self, (void)r;
    return false;
}

static int summary_record(void *self, struct tl_sink_ctx *ctx, struct tl_record *r,
                          struct tl_err *err)
{
    (void)self, (void)ctx, (void)r, (void)err;
    return 0;
}

static int summary_finish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    (void)self;
    return tl_sink_write_summary(ctx, NULL, err);
}

static void summary_destroy(void *self)
{
    (void)self;
}

const struct tl_sink_ops tl_sink_summary = {
    .name = "summary",
    .wants_payload = summary_wants_payload,
    .create = summary_create,
    .record = summary_record,
    .finish = summary_finish,
    .publish = summary_finish, /* it streams nothing: the same files */
    .destroy = summary_destroy,
};
