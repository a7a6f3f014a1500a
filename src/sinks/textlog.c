/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report of a TORCH_LOGS text log, as a sink of its lines: log.html, streamed a line at
 * a time (numbered, tagged with its compile id, the first line of each compile id anchored),
 * and at the end index.html with the diagnosis and the compile ids from the model.
 */
#include "base/config.h"
#include "sinks/sinks.h"
#include "base/xalloc.h"
#include "report/page_textlog.h"
#include "sinks/files.h"

#include <stdlib.h>

struct textlog {
    struct tl_outfile page; /* log.html */
};

static void *textlog_create(struct tl_sink_ctx *ctx, const void *params)
{
    (void)ctx, (void)params;
    struct textlog *t = tl_xcalloc(1, sizeof(*t));
    tl_outfile_init(&t->page);
    return t;
}

static int textlog_start(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct textlog *t = self;
    if (tl_outfile_open(&t->page, ctx->out, "log.html", err) < 0)
        return -1;
    tl_page_textlog_head(&t->page.buf, ctx->input);
    return 0;
}

static int textlog_line(void *self, struct tl_sink_ctx *ctx, const struct tl_text_line *l,
                        struct tl_err *err)
{
    (void)ctx;
    struct textlog *t = self;
    tl_page_textlog_line(&t->page.buf, l->lineno, l->cid, l->first_of_cid, l->text);
    return tl_outfile_maybe_flush(&t->page, err);
}

static int render_index(const struct tl_page_sink *sink, const void *arg)
{
    return tl_page_textlog_index(sink, arg);
}

/* index.html, of the lines read so far. */
static int textlog_index(struct tl_sink_ctx *ctx, struct tl_err *err)
{
    const struct tl_text_facts *tx = &ctx->model->text;
    struct tl_textlog_index ix = {ctx->input,        ctx->report->custom_header_html,
                                  &ctx->model->diag, tx->lines,
                                  tx->messages,      tx->unrecognized,
                                  tx->cids,          tx->ncids,
                                  ctx->info};
    return tl_files_stream_page(ctx, "index.html", render_index, &ix, err);
}

static int textlog_finish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct textlog *t = self;
    tl_page_textlog_tail(&t->page.buf);
    if (tl_outfile_close(&t->page, err) < 0)
        return -1;
    return textlog_index(ctx, err);
}

static int textlog_publish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    (void)self;
    return textlog_index(ctx, err);
}

static void textlog_destroy(void *self)
{
    struct textlog *t = self;
    tl_outfile_close(&t->page, NULL);
    free(t);
}

const struct tl_sink_ops tl_sink_textlog = {
    .name = "textlog",
    .create = textlog_create,
    .start = textlog_start,
    .text_line = textlog_line,
    .finish = textlog_finish,
    .publish = textlog_publish,
    .destroy = textlog_destroy,
};
