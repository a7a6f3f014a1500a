/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * raw.jsonl (spec core.md §5.1): one line per envelope, with its timestamp, thread, source
 * path and line, and the file that holds its payload; other ranks' entries and entries
 * whose envelope failed its type checks too, chromium events not. The string table, which
 * the log builds as it goes, comes first: the lines are streamed to a hidden body file and
 * appended behind it at the end.
 */
#include "base/config.h"
#include "sinks/sinks.h"
#include "base/json_write.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BODY "raw.jsonl (its body, spooled)"

struct rawjsonl {
    struct tl_outfile body;
    struct tl_rawjsonl_params params;
};

static void add_member(struct tl_json *obj, const char *key, struct tl_json v)
{
    struct tl_json_member *m = &obj->u.obj.items[obj->u.obj.n++];
    m->key = tl_str_cstr(key);
    m->value = v;
}

/* "YYYY-MM-DDTHH:MM:SS.ffffffZ" in the arena. By hand: one vsnprintf per
 * line was 5% of a run's instructions. */
static char *timestamp(struct tl_arena *a, int year, const struct tl_glog *g)
{
    if (year < 0 || year > 9999)
        return tl_arena_printf(a, "%04d-%.2s-%.2sT%.8s.%.6sZ", year, g->month, g->day, g->time,
                               g->micros);
    char *t = tl_arena_alloc(a, 28);
    t[0] = (char)('0' + year / 1000);
    t[1] = (char)('0' + year / 100 % 10);
    t[2] = (char)('0' + year / 10 % 10);
    t[3] = (char)('0' + year % 10);
    t[4] = '-';
    memcpy(t + 5, g->month, 2);
    t[7] = '-';
    memcpy(t + 8, g->day, 2);
    t[10] = 'T';
    memcpy(t + 11, g->time, 8);
    t[19] = '.';
    memcpy(t + 20, g->micros, 6);
    t[26] = 'Z';
    t[27] = '\0';
    return t;
}

/* One raw.jsonl line: the envelope plus where it came from (spec §5.1). */
static void raw_line(struct rawjsonl *rj, struct tl_sink_ctx *ctx, const struct tl_record *r)
{
    const struct tl_json *root = r->root;
    const struct tl_glog *g = r->glog;
    const char *payload_filename = r->payload_file.len ? r->payload_file.buf : NULL;
    static const char *const added[] = {"timestamp", "thread", "pathname", "lineno",
                                        "payload_filename"};
    size_t nadd = payload_filename ? 5 : 4;
    for (size_t i = 0; i < nadd; i++) {
        if (tl_json_get(root, added[i])) {
            ctx->stats->fail_key_conflict++;
            tl_sink_warn(ctx, TL_W_RAWJSONL, r->lineno,
                         "Key conflict: '%s' already exists in JSON payload, skipping raw.jsonl "
                         "JSONL conversion",
                         added[i]);
            return;
        }
    }
    struct tl_json obj;
    obj.type = TL_JSON_OBJECT;
    obj.u.obj.n = 0;
    obj.u.obj.items =
        tl_arena_alloc(ctx->scratch, (root->u.obj.n + 5) * sizeof(struct tl_json_member));
    for (size_t i = 0; i < root->u.obj.n; i++)
        obj.u.obj.items[obj.u.obj.n++] = root->u.obj.items[i];
    char *ts = timestamp(ctx->scratch, ctx->year, g);
    struct tl_json v;
    memset(&v, 0, sizeof(v));
    v.type = TL_JSON_STRING;
    v.u.str = tl_str_cstr(ts);
    add_member(&obj, "timestamp", v);
    memset(&v, 0, sizeof(v));
    v.type = TL_JSON_NUMBER;
    v.u.num.kind = TL_JSON_UINT;
    v.u.num.u = g->thread;
    v.u.num.d = (double)g->thread;
    add_member(&obj, "thread", v);
    memset(&v, 0, sizeof(v));
    v.type = TL_JSON_STRING;
    v.u.str = g->pathname;
    add_member(&obj, "pathname", v);
    memset(&v, 0, sizeof(v));
    v.type = TL_JSON_NUMBER;
    v.u.num.kind = TL_JSON_UINT;
    v.u.num.u = g->lineno;
    v.u.num.d = (double)g->lineno;
    add_member(&obj, "lineno", v);
    if (payload_filename) {
        memset(&v, 0, sizeof(v));
        v.type = TL_JSON_STRING;
        v.u.str = tl_str_cstr(payload_filename);
        add_member(&obj, "payload_filename", v);
    }
    tl_json_write_compact(&rj->body.buf, &obj);
    tl_buf_addch(&rj->body.buf, '\n');
}

static void *rawjsonl_create(struct tl_sink_ctx *ctx, const void *params)
{
    (void)ctx;
    struct rawjsonl *rj = tl_xcalloc(1, sizeof(*rj));
    if (params)
        rj->params = *(const struct tl_rawjsonl_params *)params;
    tl_outfile_init(&rj->body);
    return rj;
}

static int rawjsonl_start(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct rawjsonl *rj = self;
    return tl_outfile_open_spool(&rj->body, ctx->out, BODY, err);
}

static int rawjsonl_record(void *self, struct tl_sink_ctx *ctx, struct tl_record *r,
                           struct tl_err *err)
{
    struct rawjsonl *rj = self;
    if (tl_record_has(r, TL_K_CHROMIUM_EVENT))
        return 0;
    raw_line(rj, ctx, r);
    return tl_outfile_maybe_flush(&rj->body, err);
}

/* {"string_table": [...]} and then the body. */
static int rawjsonl_finish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct rawjsonl *rj = self;
    if (tl_outfile_flush(&rj->body, err) < 0)
        return -1;
    const struct tl_strtab *st = &ctx->model->strtab;
    struct tl_outfile f;
    if (tl_outfile_open(&f, ctx->out, "raw.jsonl", err) < 0)
        return -1;
    if (rj->params.header)
        rj->params.header(rj->params.header_ctx, st, &f.buf);
    else
        tl_strtab_json(&f.buf, st);
    /* The body is copied from its spool behind the header. */
    if (tl_outfile_append(&f, &rj->body, err) < 0)
        goto fail;
    if (tl_outfile_close(&rj->body, err) < 0)
        goto fail;
    return tl_outfile_close(&f, err);
fail:
    tl_outfile_close(&f, NULL);
    return -1;
}

static void rawjsonl_destroy(void *self)
{
    struct rawjsonl *rj = self;
    tl_outfile_close(&rj->body, NULL);
    free(rj);
}

const struct tl_sink_ops tl_sink_rawjsonl = {
    .name = "raw.jsonl",
    .wants = TL_WANT_OTHER_RANK | TL_WANT_BAD,
    .create = rawjsonl_create,
    .start = rawjsonl_start,
    .record = rawjsonl_record,
    .finish = rawjsonl_finish,
    .destroy = rawjsonl_destroy,
};
