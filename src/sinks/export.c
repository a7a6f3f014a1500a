/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Export mode (-e, spec modes.md §2), as a sink of records: in place of the report, the
 * exported program of each exported_program entry as <folder>/exported_program_N.txt, a
 * symbolic_guard_information_N.html page per guard or data-dependent expression that kept
 * export from producing a sound graph, and at the end index.html, which lists those problems
 * (model/export.h) with what to do about each. The diagnosis and the payloads sinks run
 * beside it (summary.json, payloads/<md5>.txt); nothing else of the report is written, as in
 * the reference.
 */
#include "base/config.h"
#include "sinks/sinks.h"
#include "base/xalloc.h"
#include "model/export.h"
#include "report/pages.h"

#include <stdlib.h>
#include <string.h>

struct export
{
    struct tl_export x;
    struct tl_trie pool; /* the export's strings and frames */
    struct tl_buf page;  /* the page being written */
};

static void *export_create(struct tl_sink_ctx *ctx, const void *params)
{
    (void)params;
    struct export *e = tl_xcalloc(1, sizeof(*e));
    tl_buf_init(&e->page, 0);
    tl_trie_init(&e->pool, ctx->arena);
    tl_export_init(&e->x, &e->pool);
    return e;
}

/* Only the exported program is written from a payload. */
static bool export_wants_payload(void *self, const struct tl_record *r)
{
    (void)self;
    return tl_record_has(r, TL_K_EXPORTED_PROGRAM);
}

/* A file of the record's compile folder, named NAME_N.EXT with the next output number and
 * listed under its key; its path goes to *path. */
static int emit(struct tl_sink_ctx *ctx, struct tl_record *r, const char *name, const char *ext,
                const char *data, size_t n, struct tl_buf *path, struct tl_err *err)
{
    struct tl_buf want = TL_BUF_INIT;
    tl_buf_addf(&want, "%s/%s_%u%s", r->folder, name, tl_sink_next_number(ctx), ext);
    int rc = tl_outdir_write(ctx->out, want.buf, data, n, path, err);
    tl_buf_release(&want);
    if (rc == 0)
        tl_sink_list_file(ctx, r->key, path->buf, path->buf, false);
    return rc;
}

static int exported_program(struct tl_sink_ctx *ctx, struct tl_record *r, struct tl_err *err)
{
    struct tl_buf path = TL_BUF_INIT;
    int rc = emit(ctx, r, "exported_program", ".txt", r->payload.p, r->payload.n, &path, err);
    if (rc == 0) {
        tl_buf_reset(&r->payload_file);
        tl_buf_addstr(&r->payload_file, tl_buf_str(&path));
    }
    tl_buf_release(&path);
    return rc;
}

static int export_record(void *self, struct tl_sink_ctx *ctx, struct tl_record *r,
                         struct tl_err *err)
{
    struct export *e = self;
    if (tl_record_has(r, TL_K_EXPORTED_PROGRAM) && r->has_payload &&
        exported_program(ctx, r, err) < 0)
        return -1;
    struct tl_export_view v;
    if (!tl_export_take(&e->x, r, &v, ctx->scratch))
        return 0;
    struct tl_buf path = TL_BUF_INIT;
    int rc = 0;
    if (v.problem.kind == TL_EXPORT_PROBLEM_GUARD || v.problem.kind == TL_EXPORT_PROBLEM_DATA) {
        tl_buf_reset(&e->page);
        tl_page_symbolic_guard(&e->page, &e->x, &v, &ctx->model->strtab);
        rc = emit(ctx, r, "symbolic_guard_information", ".html", e->page.buf, e->page.len, &path,
                  err);
        v.problem.page = path.buf;
    }
    if (rc == 0)
        tl_export_add_problem(&e->x, &v.problem);
    tl_buf_release(&path);
    return rc;
}

/* The index links the first file of the directory (keys in order) that is an exported
 * program (spec §2.4). */
static const char *first_exported_program(const struct tl_directory *dir)
{
    size_t n = tl_map_len(&dir->keys);
    for (size_t i = 0; i < n; i++) {
        const struct tl_dirkey *k = tl_map_at(&dir->keys, i)->value;
        for (const struct tl_artifact *a = k->first; a; a = a->next)
            if (strstr(a->url, "exported_program"))
                return a->url;
    }
    return NULL;
}

static int export_finish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct export *e = self;
    struct tl_export_index_page p = {
        .custom_header_html = ctx->report->custom_header_html,
        .x = &e->x,
        .exported_program = first_exported_program(&ctx->model->dir),
        .diag = &ctx->model->diag,
        .strtab = &ctx->model->strtab,
        .info = ctx->info,
    };
    tl_buf_reset(&e->page);
    tl_page_export_index(&e->page, &p);
    return tl_outdir_write(ctx->out, "index.html", e->page.buf, e->page.len, NULL, err);
}

static void export_destroy(void *self)
{
    struct export *e = self;
    tl_export_release(&e->x);
    tl_trie_release(&e->pool);
    tl_buf_release(&e->page);
    free(e);
}

const struct tl_sink_ops tl_sink_export = {
    .name = "export",
    .wants_payload = export_wants_payload,
    .create = export_create,
    .record = export_record,
    .finish = export_finish,
    .publish = export_finish, /* it streams nothing: the same page */
    .destroy = export_destroy,
};
