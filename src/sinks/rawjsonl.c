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
#include "base/jobq.h"
#include "base/json.h"
#include "base/json_write.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BODY "raw.jsonl (its body, spooled)"

struct rawjsonl {
    struct tl_outfile body;
    struct tl_rawjsonl_params params;
    struct tl_jobq *q;         /* the lines' writing, behind the parser; NULL: done here */
    struct tl_buf job;         /* the next job's input */
    struct tl_arena job_arena; /* the worker's: one envelope's DOM */
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

/* What a line adds to its envelope (spec §5.1). */
struct line_info {
    uint64_t thread, lineno;
    struct tl_str timestamp, pathname;
    struct tl_str payload_filename; /* p NULL: none */
};

static void add_str(struct tl_json *obj, const char *key, struct tl_str s)
{
    struct tl_json v;
    memset(&v, 0, sizeof(v));
    tl_json_set_string(&v, s);
    add_member(obj, key, v);
}

static void add_u64(struct tl_json *obj, const char *key, uint64_t u)
{
    struct tl_json v;
    memset(&v, 0, sizeof(v));
    v.type = TL_JSON_NUMBER;
    v.u.num.kind = TL_JSON_UINT;
    v.u.num.u = u;
    v.u.num.d = (double)u;
    add_member(obj, key, v);
}

/* The line of the envelope root (checked for clashes already) into out. */
static void write_line(struct tl_buf *out, struct tl_arena *a, const struct tl_json *root,
                       const struct line_info *li)
{
    struct tl_json obj;
    obj.type = TL_JSON_OBJECT;
    obj.u.obj.n = 0;
    obj.u.obj.items = tl_arena_alloc(a, (root->u.obj.n + 5) * sizeof(struct tl_json_member));
    for (size_t i = 0; i < root->u.obj.n; i++)
        obj.u.obj.items[obj.u.obj.n++] = root->u.obj.items[i];
    add_str(&obj, "timestamp", li->timestamp);
    add_u64(&obj, "thread", li->thread);
    add_str(&obj, "pathname", li->pathname);
    add_u64(&obj, "lineno", li->lineno);
    if (li->payload_filename.p)
        add_str(&obj, "payload_filename", li->payload_filename);
    tl_json_write_compact(out, &obj);
    tl_buf_addch(out, '\n');
}

/*
 * A line's job for the queue (base/jobq.h): struct job_head, then the bytes of the timestamp,
 * the path name, the payload file's name and the envelope's text, which the worker parses again
 * (the record's DOM lives in memory that the next entry takes back). Compact JSON with sorted
 * keys was a tenth of a run's instructions on the parser's thread.
 */
struct job_head {
    uint64_t thread, lineno;
    size_t ts, path, pf, env; /* their lengths; pf SIZE_MAX: no payload file */
};

static void queue_line(struct rawjsonl *rj, const struct tl_record *r, const struct line_info *li)
{
    struct tl_buf *in = &rj->job;
    struct tl_str env = r->glog->envelope;
    struct job_head h = {li->thread,
                         li->lineno,
                         li->timestamp.n,
                         li->pathname.n,
                         li->payload_filename.p ? li->payload_filename.n : SIZE_MAX,
                         env.n};
    tl_buf_add(in, &h, sizeof(h));
    tl_buf_add(in, li->timestamp.p, li->timestamp.n);
    tl_buf_add(in, li->pathname.p, li->pathname.n);
    if (li->payload_filename.p)
        tl_buf_add(in, li->payload_filename.p, li->payload_filename.n);
    tl_buf_add(in, env.p, env.n);
    tl_jobq_submit(rj->q, in->buf, in->len);
    tl_buf_reset(in);
}

/* The worker's half of queue_line. */
static void line_job(void *ctx, const char *in, size_t n, struct tl_buf *out)
{
    struct tl_arena *a = ctx;
    struct job_head h;
    if (n < sizeof(h))
        return;
    memcpy(&h, in, sizeof(h));
    const char *p = in + sizeof(h);
    struct line_info li = {.thread = h.thread, .lineno = h.lineno};
    li.timestamp = tl_str_make(p, h.ts);
    p += h.ts;
    li.pathname = tl_str_make(p, h.path);
    p += h.path;
    if (h.pf != SIZE_MAX) {
        li.payload_filename = tl_str_make(p, h.pf);
        p += h.pf;
    }
    struct tl_json root;
    /* The text parsed once already, into the same DOM: this cannot fail. */
    if (tl_json_parse(a, p, h.env, &root, NULL) == 0 && root.type == TL_JSON_OBJECT)
        write_line(out, a, &root, &li);
    tl_arena_reset(a);
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
    struct line_info li = {
        .thread = g->thread,
        .lineno = g->lineno,
        .timestamp = tl_str_cstr(timestamp(ctx->scratch, ctx->year, g)),
        .pathname = g->pathname,
        .payload_filename = payload_filename ? tl_str_cstr(payload_filename) : TL_STR_NULL,
    };
    if (rj->q)
        queue_line(rj, r, &li);
    else
        write_line(&rj->body.buf, ctx->scratch, root, &li);
}

static void *rawjsonl_create(struct tl_sink_ctx *ctx, const void *params)
{
    struct rawjsonl *rj = tl_xcalloc(1, sizeof(*rj));
    if (params)
        rj->params = *(const struct tl_rawjsonl_params *)params;
    tl_outfile_init(&rj->body);
    tl_arena_init(&rj->job_arena, 0);
    tl_buf_init(&rj->job, 0);
    /* Behind the parser on a thread of its own when there are threads; not when the records
     * are redacted: the worker would parse the envelope as logged. */
    if (ctx->threads && !ctx->redacting)
        rj->q = tl_jobq_new(line_job, &rj->job_arena, 4u << 20, true);
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
    if (rj->q)
        tl_jobq_take(rj->q, &rj->body.buf);
    return tl_outfile_maybe_flush(&rj->body, err);
}

/* {"string_table": [...]} and then the body. */
static int rawjsonl_finish(void *self, struct tl_sink_ctx *ctx, struct tl_err *err)
{
    struct rawjsonl *rj = self;
    if (rj->q)
        tl_jobq_drain(rj->q, &rj->body.buf);
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
    tl_jobq_free(rj->q);
    tl_outfile_close(&rj->body, NULL);
    tl_arena_release(&rj->job_arena);
    tl_buf_release(&rj->job);
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
