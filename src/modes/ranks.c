/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-rank runs (spec modes.md §1):
 *   --all-ranks-html DIR      the rank logs of DIR parsed on a pool of threads, each into its
 *                             rank_N/ folder of one report folder, then the landing page;
 *   --rank-only LOG -o OUT/rank_N   one rank's report with its summary, on the machine that
 *                             holds its log;
 *   --all-ranks-html --from-summaries OUT   the landing page of rank_N/ folders made that way.
 * The last step is the same for all: it takes each rank's summary (struct tl_rank_summary,
 * in memory or from rank_N/summary.json) and its chromium events (spooled by the rank's run
 * as the combined file holds them, or from rank_N/chromium_events.json), never a log. Ranks
 * are taken in the order the file system lists them, as the reference does (in name order
 * with --name-order), and their messages printed together in that order; the files do not
 * depend on the number of threads. ranks_live.c feeds the same steps as the logs come
 * (--watch); ranks_impl.h is what the two share.
 */
#include "base/config.h"
#include "modes/modes.h"
#include "modes/plan.h"
#include "modes/ranks_impl.h"
#include "base/json.h"
#include "base/json_write.h"
#include "base/pool.h"
#include "base/xalloc.h"
#include "input/json_elements.h"
#include "input/rankfiles.h"
#include "model/cachekey.h"
#include "model/model.h"
#include "model/ranks_read.h"
#include "model/strtab.h"
#include "output/writer.h"
#include "report/landing.h"
#include "report/summary.h"
#include "base/sort.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest rank summary.json read back. */
#define MAX_SUMMARY ((size_t)64 << 20)

/* ---- messages ------------------------------------------------------------------------------ */

void tl_ranks_capture(void *ctx, enum tl_message_kind kind, const char *line)
{
    struct rank *r = ctx;
    tl_buf_addch(&r->msgs, (char)('0' + kind));
    tl_buf_adds(&r->msgs, line);
    tl_buf_addch(&r->msgs, '\0');
}

static void print_captured(struct multi *m, struct rank *r)
{
    for (size_t at = 0; at < r->msgs.len;) {
        const char *line = r->msgs.buf + at;
        size_t len = strlen(line);
        tl_say(&m->msg, (enum tl_message_kind)(line[0] - '0'), "%s", line + 1);
        at += len + 1;
    }
    tl_buf_release(&r->msgs);
}

/* A rank is done: print the messages of the ranks done so far, in order. */
void tl_ranks_rank_done(struct multi *m, struct rank *r)
{
    pthread_mutex_lock(&m->mu);
    r->done = true;
    while (m->printed < m->n && m->ranks[m->printed]->done)
        print_captured(m, m->ranks[m->printed++]);
    pthread_mutex_unlock(&m->mu);
}

static void set_fatal(struct multi *m, const struct tl_err *err)
{
    pthread_mutex_lock(&m->mu);
    if (!m->fatal)
        m->err = *err;
    m->fatal = true;
    pthread_mutex_unlock(&m->mu);
}

static bool stopping(struct multi *m)
{
    pthread_mutex_lock(&m->mu);
    bool stop = m->fatal;
    pthread_mutex_unlock(&m->mu);
    return stop || tl_stop_asked(m->opt->cancel);
}

/* ---- one rank ------------------------------------------------------------------------------ */

/* The folder of a rank without a report holds only its summary.json, which says what went
 * wrong: a landing page lists the rank with it, made here or from the summaries. */
static int write_broken(struct tl_outdir *o, const struct tl_rank_summary *s, struct tl_err *err)
{
    struct tl_diag d;
    tl_diag_init(&d);
    tl_diag_finish(&d);
    struct tl_buf b = TL_BUF_INIT;
    struct tl_summary_source src = {s->log, "torch_trace", s, NULL};
    tl_summary_json(&b, &d, &src, true);
    int rc = tl_outdir_write(o, "summary.json", b.buf, b.len, NULL, err);
    tl_buf_release(&b);
    tl_diag_release(&d);
    return rc;
}

static void rank_broken(struct multi *m, struct rank *r, const char *name, const char *why)
{
    r->s.error = tl_arena_memdupz(&r->arena, why, strlen(why));
    struct tl_messages msg = {.opt = &r->opt, .input = r->log.path};
    tl_say(&msg, TL_MSG_WARNING, "tlparse: warning: rank %u: %s; it has no report", r->log.rank,
           why);
    struct tl_outdir sub; /* (the folder its parse began is gone with its output's abort) */
    struct tl_err err = {TL_ERR_NONE, ""};
    if (tl_outdir_open_sub(&m->root, name, &sub, &err) < 0 || write_broken(&sub, &r->s, &err) < 0 ||
        tl_outdir_commit(&sub, &err) < 0)
        set_fatal(m, &err);
}

/* The rank's string table, for the ranks after it (raw.jsonl's first line). */
static void keep_strtab(void *ctx, const struct tl_model *model, const struct tl_runinfo *info)
{
    (void)info;
    struct tl_strtab *out = ctx;
    for (size_t i = 0; i < model->strtab.len; i++)
        if (model->strtab.s[i].p)
            tl_strtab_set(out, (uint32_t)i, model->strtab.s[i]);
}

/* A rank's string table is final (or it will have none): the ranks after it may carry it. */
void tl_ranks_settle(struct multi *m, struct rank *r)
{
    pthread_mutex_lock(&m->mu);
    r->settled = true;
    while (m->settled < m->n && m->ranks[m->settled]->settled) {
        const struct rank *s = m->ranks[m->settled++];
        if (s->s.error)
            continue; /* a rank without a report carries nothing */
        for (size_t id = 0; id < s->strtab.len; id++)
            if (s->strtab.s[id].p)
                tl_strtab_set(&m->carry, (uint32_t)id, s->strtab.s[id]);
    }
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
}

/*
 * raw.jsonl's first line. The reference keeps one string table for the whole run, so a rank's
 * raw.jsonl lists the strings of the ranks taken before it as well, its own on top (spec
 * modes.md §1.3). Here each rank parses with its own table, and its raw.jsonl, written at the
 * end of its log, waits for the ranks before it to tl_ranks_settle (the pool starts them first, so
 * they run or ran: no wait goes round in a circle). The cost: a thread whose rank ends before
 * an earlier one idles until that one ends; memory is the string tables, not the logs.
 */
static void carried_header(void *ctx, const struct tl_strtab *own, struct tl_buf *out)
{
    struct rank *r = ctx;
    struct multi *m = r->m;
    size_t i = r->index;
    pthread_mutex_lock(&m->mu);
    while (m->settled < i)
        pthread_cond_wait(&m->cv, &m->mu);
    bool differs = false;
    for (size_t id = 0; id < m->carry.len && !differs; id++)
        differs = m->carry.s[id].p && !tl_strtab_get(own, (uint32_t)id).p;
    if (!differs) {
        pthread_mutex_unlock(&m->mu);
        tl_strtab_json(out, own);
        return;
    }
    struct tl_arena arena;
    tl_arena_init(&arena, 16 * 1024);
    struct tl_strtab t;
    tl_strtab_init(&t, &arena);
    for (size_t id = 0; id < m->carry.len; id++)
        if (m->carry.s[id].p)
            tl_strtab_set(&t, (uint32_t)id, m->carry.s[id]);
    pthread_mutex_unlock(&m->mu);
    for (size_t id = 0; id < own->len; id++)
        if (own->s[id].p)
            tl_strtab_set(&t, (uint32_t)id, own->s[id]);
    tl_strtab_json(out, &t);
    tl_strtab_release(&t);
    tl_arena_release(&arena);
}

/* A chromium event of the rank, into its spool as the combined file holds it: with pid = the
 * rank (a last "pid" member wins when written, sorted, see json_write.h). Memory: one event's
 * members and the spool's buffer; the spool on disk is as big as the rank's events. */
static int spool_event(void *ctx, const struct tl_json *event, struct tl_err *err)
{
    struct rank *r = ctx;
    struct tl_json j = *event;
    if (j.type == TL_JSON_OBJECT) {
        size_t k = j.u.obj.n;
        if (k + 1 > r->nmembers) {
            r->nmembers = 2 * (k + 1);
            r->members = tl_xrealloc(r->members, r->nmembers * sizeof(*r->members));
        }
        if (k)
            memcpy(r->members, j.u.obj.items, k * sizeof(*r->members));
        struct tl_json_member *pid = &r->members[k];
        pid->key = TL_STR_LIT("pid");
        memset(&pid->value, 0, sizeof(pid->value));
        pid->value.type = TL_JSON_NUMBER;
        pid->value.u.num.kind = TL_JSON_UINT;
        pid->value.u.num.u = r->log.rank;
        pid->value.u.num.d = r->log.rank;
        j.u.obj.items = r->members;
        j.u.obj.n = k + 1;
    }
    if (!tl_outfile_is_open(&r->events) &&
        tl_outfile_open_spool(&r->events, r->sub, EVENTS_SPOOL, err) < 0)
        return -1;
    r->nevents++;
    tl_json_doc_value(&r->events_doc, &j);
    return tl_outfile_maybe_flush(&r->events, err);
}

/* A rank's log begins: its folder rank_N of the report, and the job of its engine (reader: its
 * log, NULL when it is fed as it comes): the sinks of a rank's report, its raw.jsonl carrying
 * the string tables of the ranks before it, its chromium events spooled. -1 (the run's fatal
 * error set) when the folder cannot be made. */
int tl_ranks_rank_begin(struct multi *m, struct rank *r, struct tl_reader *reader)
{
    char name[32];
    snprintf(name, sizeof(name), "rank_%u", r->log.rank);
    struct tl_err err = {TL_ERR_NONE, ""};
    if (tl_outdir_open_sub(&m->root, name, &r->sub_out, &err) < 0) {
        set_fatal(m, &err);
        return -1;
    }
    r->job = (struct tl_engine_job){.opt = &r->opt,
                                    .reader = reader,
                                    .path = r->log.path,
                                    .name = r->log.path,
                                    .out = &r->sub_out,
                                    .done = keep_strtab,
                                    .done_ctx = &r->strtab};
    struct tl_rank_params rank = {&r->s, &r->arena};
    tl_log_sinks(&r->job, &r->params, &rank);
    r->params.rawjsonl.header = carried_header;
    r->params.rawjsonl.header_ctx = r;
    r->params.report.chromium = spool_event;
    r->params.report.chromium_ctx = r;
    r->sub = &r->sub_out;
    tl_outfile_init(&r->events);
    tl_json_doc_init_items(&r->events_doc, &r->events.buf, TL_JSON_DOC_PRETTY, 1);
    return 0;
}

/* A rank's log ended (rc: how its engine finished, sum: what it gave, err: why it failed): its
 * events' spool kept on the root's output, its folder committed (or removed), and what the run
 * keeps of it. */
void tl_ranks_rank_end(struct multi *m, struct rank *r, int rc, const struct tl_engine_result *sum,
                       struct tl_err *err)
{
    char name[32];
    snprintf(name, sizeof(name), "rank_%u", r->log.rank);
    struct tl_messages msg = {.opt = &r->opt, .input = r->log.path};
    /* the spool outlives the rank's output: the root's writes and closes it */
    if (rc == 0 && tl_outfile_move(&r->events, &m->root, err) < 0)
        rc = -1;
    if (rc < 0)
        tl_outfile_close(&r->events, NULL);
    r->sub = NULL;
    if (rc == 0)
        rc = tl_log_check_entries(r->log.path, sum, err);
    rc = tl_output_end(&r->sub_out, rc, m->opt->cancel, err);
    if (rc < 0)
        tl_outfile_close(&r->events, NULL);
    if (rc < 0 && (err->code != TL_ERR_INPUT || tl_stop_asked(m->opt->cancel))) {
        /* Writing the report failed (a full disk, EIO), or a signal: the run fails, not the
         * rank. Only what is wrong with the log itself leaves a rank without a report. */
        set_fatal(m, err);
    } else if (rc < 0) {
        rank_broken(m, r, name, err->msg);
    } else {
        r->strict_failed = tl_strict_failed(&r->opt, sum);
        r->nothing = tl_nothing_to_check(&r->opt, &msg, sum);
        r->parsed = true;
        r->counts = sum->counts;
    }
}

static void parse_rank(struct multi *m, struct rank *r)
{
    struct tl_messages msg = {.opt = &r->opt, .input = r->log.path};
    char name[32];
    snprintf(name, sizeof(name), "rank_%u", r->log.rank);
    tl_say(&msg, TL_MSG_INFO, "Processing rank %u \xe2\x86\x92 %s/%s", r->log.rank, m->out_name,
           name);
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_reader *reader;
    enum tl_sniff_kind kind;
    if (tl_log_open_file(&r->opt, r->log.path, &reader, &err) < 0) {
        rank_broken(m, r, name, err.msg);
        return;
    }
    if (tl_log_sniff(reader, r->log.path, &kind, &err) < 0) {
        tl_reader_free(reader);
        rank_broken(m, r, name, err.msg);
        return;
    }
    if (tl_ranks_rank_begin(m, r, reader) < 0) {
        tl_reader_free(reader);
        return;
    }
    struct tl_engine_result sum;
    int rc = tl_engine_run(&r->job, &sum, &err);
    free(sum.summary);
    tl_ranks_rank_end(m, r, rc, &sum, &err);
}

/* The diagnosis's own hook, then the keys of the rank's cache lookups kept in its summary (for
 * the misses across ranks). */
struct keys_hook {
    void (*done)(void *ctx, const struct tl_model *model, const struct tl_runinfo *info);
    void *done_ctx;
    struct rank *r;
};

static void keep_keys(void *ctx, const struct tl_model *model, const struct tl_runinfo *info)
{
    struct keys_hook *h = ctx;
    if (h->done)
        h->done(h->done_ctx, model, info);
    if (model->diag.cachekey)
        h->r->s.cache_keys = tl_cachekey_digest(model->diag.cachekey, &h->r->arena);
}

/* tl_run_log() of the rank's log, its cache lookups' keys kept. */
static int run_rank_log(struct rank *r, struct tl_reader *reader, struct tl_engine_result *sum,
                        struct tl_err *err)
{
    const char *name = r->log.path;
    enum tl_sniff_kind kind;
    struct tl_log_run lr;
    if (tl_log_sniff(reader, name, &kind, err) < 0 ||
        tl_log_run_init(&lr, &r->opt, reader, name, name, NULL, kind == TL_SNIFF_TEXT, err) < 0) {
        memset(sum, 0, sizeof(*sum));
        tl_reader_free(reader);
        return -1;
    }
    struct keys_hook h = {lr.job.done, lr.job.done_ctx, r};
    lr.job.done = keep_keys;
    lr.job.done_ctx = &h;
    int rc = tl_engine_run(&lr.job, sum, err);
    sum->summary = lr.summary;
    if (rc < 0)
        return -1;
    return tl_log_check_entries(name, sum, err);
}

/* --summary, --json: the rank's diagnosis, and no report. A log that cannot be read is the
 * rank's error (said, and its exit code 1). */
static void diagnose_rank(struct multi *m, struct rank *r)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_reader *reader;
    struct tl_engine_result sum;
    int rc = tl_log_open_file(&r->opt, r->log.path, &reader, &err);
    if (rc == 0)
        rc = run_rank_log(r, reader, &sum, &err);
    if (rc < 0 && (err.code == TL_ERR_SIGNAL || tl_stop_asked(m->opt->cancel))) {
        set_fatal(m, &err);
        return;
    }
    if (rc < 0) {
        r->s.error = tl_arena_memdupz(&r->arena, err.msg, strlen(err.msg));
        struct tl_messages msg = {.opt = &r->opt, .input = r->log.path};
        tl_say(&msg, TL_MSG_ERROR, "tlparse: error: rank %u: %s", r->log.rank, err.msg);
        return;
    }
    r->diagnosis = sum.summary;
    r->strict_failed = tl_strict_failed(&r->opt, &sum);
    struct tl_messages msg = {.opt = &r->opt, .input = r->log.path};
    r->nothing = tl_nothing_to_check(&r->opt, &msg, &sum);
    r->parsed = true;
    r->counts = sum.counts;
    r->s.diag.ledger = sum.ledger;
}

static void rank_job(void *ctx, size_t i)
{
    struct multi *m = ctx;
    struct rank *r = m->ranks[i];
    if (!stopping(m))
        parse_rank(m, r);
    tl_ranks_settle(m, r);
    tl_ranks_rank_done(m, r);
}

static void diagnose_job(void *ctx, size_t i)
{
    struct multi *m = ctx;
    struct rank *r = m->ranks[i];
    if (m->known_path && !strcmp(r->log.path, m->known_path)) {
        r->parsed = true;
        r->counts = *m->known_counts;
    } else if (!stopping(m)) {
        diagnose_rank(m, r);
    }
    tl_ranks_rank_done(m, r);
}

/* ---- the landing page and the combined files ----------------------------------------------- */

/* The combined chromium_events.json, opened with its first event. */
struct combined {
    struct tl_outfile file;
    struct tl_json_doc doc; /* an array of the events */
    uint64_t count;         /* events in it */
};

static int combined_open(struct multi *m, struct combined *out, struct tl_err *err)
{
    if (tl_outfile_is_open(&out->file))
        return 0;
    if (tl_outfile_open(&out->file, &m->root, "chromium_events.json", err) < 0)
        return -1;
    tl_json_doc_array(&out->doc);
    return 0;
}

/* A file of the report, read back in pieces. */
static long read_in(void *ctx, void *p, size_t n)
{
    return (long)tl_outread_some(ctx, p, n);
}

/* --from-summaries: append the events of a rank's chromium_events.json (written by its
 * --rank-only run) to the combined file, with pid = the rank
 * (a last "pid" member wins when written, sorted, see json_write.h). A file that is not a JSON
 * array adds nothing; an element that is not JSON is skipped. */
static int combine_rank_events(struct multi *m, const struct tl_rank_summary *s,
                               struct combined *out, struct tl_err *err)
{
    char rel[64];
    snprintf(rel, sizeof(rel), "rank_%u/chromium_events.json", s->rank);
    struct tl_outread in;
    if (tl_outdir_read_open(&m->root, rel, &in, NULL) < 0)
        return 0;
    struct tl_json_elements e;
    tl_json_elements_init(&e, read_in, &in);
    struct tl_arena scratch;
    tl_arena_init(&scratch, 64 * 1024);
    struct tl_str v;
    int got, rc = 0;
    while ((got = tl_json_elements_next(&e, &v)) == 1) {
        struct tl_json j;
        if (tl_json_parse(&scratch, v.p, v.n, &j, NULL) < 0)
            continue;
        if (j.type == TL_JSON_OBJECT) {
            size_t k = j.u.obj.n;
            struct tl_json_member *items = tl_arena_alloc(&scratch, (k + 1) * sizeof(*items));
            if (k)
                memcpy(items, j.u.obj.items, k * sizeof(*items));
            items[k].key = TL_STR_LIT("pid");
            memset(&items[k].value, 0, sizeof(items[k].value));
            items[k].value.type = TL_JSON_NUMBER;
            items[k].value.u.num.kind = TL_JSON_UINT;
            items[k].value.u.num.u = s->rank;
            items[k].value.u.num.d = s->rank;
            j.u.obj.items = items;
            j.u.obj.n = k + 1;
        }
        if (combined_open(m, out, err) < 0) {
            rc = -1;
            break;
        }
        tl_json_doc_value(&out->doc, &j);
        out->count++;
        tl_arena_reset(&scratch);
        if (tl_outfile_maybe_flush(&out->file, err) < 0) {
            rc = -1;
            break;
        }
    }
    tl_arena_release(&scratch);
    tl_json_elements_release(&e);
    tl_outread_close(&in);
    return rc;
}

/* The rank parsed in this run whose summary is s, or NULL (--from-summaries). */
static struct rank *parsed_rank(struct multi *m, const struct tl_rank_summary *s)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->ranks[i]->parsed && m->ranks[i]->s.rank == s->rank)
            return m->ranks[i];
    return NULL;
}

/* Append the spool of a rank parsed in this run (its events as the combined file holds
 * them) to the combined file, and close it. */
static int append_spool(struct multi *m, struct rank *r, struct combined *out, struct tl_err *err)
{
    if (!r->nevents || !tl_outfile_is_open(&r->events))
        return 0;
    if (combined_open(m, out, err) < 0)
        return -1;
    tl_json_doc_next(&out->doc); /* the spool holds the items and the separators between */
    out->count += r->nevents;
    int rc = tl_outfile_append(&out->file, &r->events, err);
    tl_outfile_close(&r->events, NULL);
    return rc;
}

/* The combined chromium_events.json (§1.7), written only when there are events: the ranks'
 * spools, or (--from-summaries) the chromium_events.json of each rank_N/ folder. */
static int combined_events(struct multi *m, const struct tl_ranks *an, bool *written,
                           struct tl_err *err)
{
    struct combined out;
    tl_outfile_init(&out.file);
    out.count = 0;
    tl_json_doc_init(&out.doc, &out.file.buf, TL_JSON_DOC_PRETTY);
    for (size_t i = 0; i < an->nranks; i++) {
        if (an->ranks[i].error)
            continue;
        struct rank *r = parsed_rank(m, &an->ranks[i]);
        if ((r ? append_spool(m, r, &out, err) : combine_rank_events(m, &an->ranks[i], &out, err)) <
            0) {
            tl_outfile_close(&out.file, NULL);
            return -1;
        }
    }
    *written = out.count > 0;
    if (!tl_outfile_is_open(&out.file)) {
        tl_buf_release(&out.file.buf);
        return 0;
    }
    tl_json_doc_end(&out.doc, ']');
    return tl_outfile_close(&out.file, err);
}

/* Write name from b (non-empty) to out, or remove a stale one of an earlier run (in place). */
static int root_file(struct tl_outdir *out, const char *name, const struct tl_buf *b, bool write,
                     struct tl_err *err)
{
    if (!write)
        return tl_outdir_remove(out, name);
    return tl_outdir_write(out, name, b->buf, b->len, NULL, err);
}

static int cmp_rank(const void *a, const void *b)
{
    const struct tl_rank_summary *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Everything at the top of the report folder, from the ranks' summaries (§1.4), into out (the
 * root's output; with live, a live report's generation: the ranks' events are not combined, as
 * their spools are still written). */
int tl_ranks_landing(struct multi *m, struct tl_outdir *out, bool live, struct tl_err *err)
{
    struct tl_rank_summary *sorted = tl_xcalloc(m->n ? m->n : 1, sizeof(*sorted));
    for (size_t i = 0; i < m->n; i++)
        sorted[i] = m->ranks[i]->s;
    /* equal ranks do not happen (duplicates are dropped first) */
    tl_sort(sorted, m->n, sizeof(*sorted), cmp_rank);
    struct tl_arena arena;
    tl_arena_init(&arena, 64 * 1024);
    struct tl_ranks an;
    tl_ranks_analyze(&an, sorted, m->n, &arena);
    bool chromium = false;
    struct tl_buf b = TL_BUF_INIT;
    int rc = live ? 0 : combined_events(m, &an, &chromium, err);
    if (rc == 0 && !chromium)
        root_file(out, "chromium_events.json", &b, false, err);
    if (rc == 0) {
        tl_ranks_runtime_json(&b, &an);
        rc = root_file(out, "runtime_estimations.json", &b, an.has_runtime, err);
    }
    if (rc == 0) {
        tl_buf_reset(&b);
        tl_ranks_runtime_trace_json(&b, &an);
        rc = root_file(out, "chromium_trace_with_runtime.json", &b, an.has_runtime, err);
    }
    if (rc == 0) {
        tl_buf_reset(&b);
        tl_ranks_schedules_json(&b, &an);
        rc = root_file(out, "collective_schedules.json", &b, an.has_schedules, err);
    }
    if (rc == 0) {
        tl_buf_reset(&b);
        tl_summary_json_ranks(&b, &an);
        rc = root_file(out, "summary.json", &b, true, err);
    }
    if (rc == 0) {
        tl_buf_reset(&b);
        struct tl_landing page = {m->opt->custom_header_html, &an, chromium,
                                  !m->opt->redact        ? NULL
                                  : m->opt->redact_paths ? "--redact=paths"
                                                         : "--redact",
                                  NULL};
        /* the footer: the tlparse and the command line, and the folder of logs (or of
         * reports, --from-summaries) it read */
        struct tl_runinfo info;
        tl_runinfo_fill(&info, m->opt, NULL, m->opt->path);
        info.redacted = page.redacted;
        if (m->opt->redact_paths) /* the paths a command names are the user's */
            info.command_line = info.input = NULL;
        page.info = &info;
        tl_page_landing(&b, &page);
        rc = root_file(out, "index.html", &b, true, err);
    }
    if (rc == 0 && !live) {
        /* said once the folder is in place (tl_ranks_finish_run): a write that fails later
         * takes the whole report back */
        m->landed = true;
        m->landed_runtime = an.has_runtime;
        m->landed_schedules = an.has_schedules;
    }
    tl_buf_release(&b);
    tl_arena_release(&arena);
    free(sorted);
    return rc;
}

/* ---- the runs ------------------------------------------------------------------------------- */

/* A new rank at the end of m->ranks, zeroed. */
struct rank *tl_ranks_new_rank(struct multi *m)
{
    TL_GROW(m->ranks, m->n + 1, m->alloc);
    struct rank *r = tl_xcalloc(1, sizeof(*r));
    r->m = m;
    r->index = m->n;
    m->ranks[m->n++] = r;
    return r;
}

void tl_ranks_multi_init(struct multi *m, const struct tl_options *opt)
{
    memset(m, 0, sizeof(*m));
    m->opt = opt;
    m->out_name = opt->out_dir ? opt->out_dir : "tl_out";
    m->msg.opt = opt;
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    tl_arena_init(&m->carry_arena, 16 * 1024);
    tl_strtab_init(&m->carry, &m->carry_arena);
}

void tl_ranks_rank_release(struct rank *r)
{
    tl_outfile_close(&r->events, NULL);
    tl_strtab_release(&r->strtab);
    tl_arena_release(&r->arena);
    tl_buf_release(&r->msgs);
    free(r->diagnosis);
    free(r->members);
    free(r);
}

void tl_ranks_multi_release(struct multi *m)
{
    for (size_t i = 0; i < m->n; i++)
        tl_ranks_rank_release(m->ranks[i]);
    free(m->ranks);
    tl_strtab_release(&m->carry);
    tl_arena_release(&m->carry_arena);
    pthread_cond_destroy(&m->cv);
    pthread_mutex_destroy(&m->mu);
}

/* A rank of the log (its name and path copied; free_logs frees them). */
void tl_ranks_rank_init(struct rank *r, const struct tl_rank_log *log)
{
    r->log = *log;
    r->log.name = tl_xstrdup(log->name);
    r->log.path = tl_xstrdup(log->path);
    tl_arena_init(&r->arena, 16 * 1024);
    tl_buf_init(&r->msgs, 0);
    tl_strtab_init(&r->strtab, &r->arena);
    r->s.rank = r->log.rank;
    r->s.log = r->log.name;
    tl_outfile_init(&r->events);
}

/* The ranks of the logs found; of two logs of one rank, the first by name is used and the
 * other dropped with a word. */
static void take_logs(struct multi *m, struct tl_rank_log *logs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct tl_rank_log *first = &logs[i];
        for (size_t k = 0; k < n; k++)
            if (logs[k].rank == logs[i].rank && strcmp(logs[k].name, first->name) < 0)
                first = &logs[k];
        if (first != &logs[i]) {
            tl_say(&m->msg, TL_MSG_WARNING, "tlparse: warning: %s is rank %u too; only %s is used",
                   logs[i].path, logs[i].rank, first->path);
            continue;
        }
        tl_ranks_rank_init(tl_ranks_new_rank(m), &logs[i]);
    }
}

static void free_logs(struct multi *m, struct tl_rank_log *logs, size_t n)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->ranks[i]->log.name);
        free(m->ranks[i]->log.path);
    }
    tl_rank_logs_free(logs, n);
}

/* The diagnoses of every rank, counted: from the rank's parse, or (--from-summaries) from
 * the counts its summary.json holds. */
static void sum_counts(const struct multi *m, struct tl_counts *c)
{
    memset(c, 0, sizeof(*c));
    c->compile_time_s = -1;
    for (size_t i = 0; i < m->n; i++) {
        const struct rank *r = m->ranks[i];
        if (r->parsed) {
            tl_counts_add(c, &r->counts);
        } else if (!r->s.error) {
            /* the diagnosis's count, as a parse gives it (ncompile_ids counts [-/-] too) */
            c->compile_ids += r->s.diag.compile_ids;
            c->graph_breaks += r->s.diag.graph_breaks;
            c->recompiles += r->s.diag.recompiles;
            c->failures += r->s.diag.failures;
            c->recompile_limits += r->s.diag.limits;
        }
    }
}

/* The end of a run: commit or abort, and the exit code. */
int tl_ranks_finish_run(struct multi *m, int rc, struct tl_err *err, struct tl_result *res)
{
    if (tl_output_end(&m->root, rc, m->opt->cancel, err) < 0)
        return tl_report_error(m->opt, err);
    if (m->landed_runtime)
        tl_say(&m->msg, TL_MSG_INFO, "Runtime estimations: %s/runtime_estimations.json",
               m->out_name);
    if (m->landed_schedules)
        tl_say(&m->msg, TL_MSG_INFO, "Collective schedules: %s/collective_schedules.json",
               m->out_name);
    if (m->landed) {
        tl_say(&m->msg, TL_MSG_INFO, "Multi-rank report generated under %s", m->out_name);
        tl_say(&m->msg, TL_MSG_INFO, "Individual pages: rank_*/index.html");
    }
    if (res) {
        if (m->opt->bundle)
            res->bundle_path = tl_xstrdup(m->out_name);
        else
            res->index_path = tl_index_path(m->out_name);
        sum_counts(m, &res->counts);
        res->has_counts = true;
        for (size_t i = 0; i < m->n; i++)
            res->ranks_left += m->ranks[i]->s.error != NULL;
        res->ranks = (uint32_t)m->n - res->ranks_left;
    }
    int code = TL_EXIT_OK;
    for (size_t i = 0; i < m->n; i++) {
        if (m->ranks[i]->nothing)
            code = TL_EXIT_ERROR; /* said as it was read */
        if (!m->ranks[i]->strict_failed)
            continue;
        tl_say(&m->msg, TL_MSG_ERROR,
               "tlparse: error: Something went wrong (--strict: the log of rank %u has problems; "
               "see its Stats line)",
               m->ranks[i]->log.rank);
        code = TL_EXIT_ERROR;
    }
    return code;
}

/* Each rank's options: the run's, with its messages captured when ranks run side by side. */
static void ranks_setup(struct multi *m, unsigned *threads)
{
    const struct tl_options *opt = m->opt;
    *threads = opt->no_threads ? 1 : opt->jobs;
    if (*threads == 0)
        *threads = tl_pool_cores();
    m->direct = *threads == 1 || m->n == 1;
    for (size_t i = 0; i < m->n; i++) {
        struct rank *r = m->ranks[i];
        tl_plan_rank_options(&r->opt, opt, !m->direct,
                             (struct tl_plan_messages){tl_ranks_capture, r});
    }
}

/* --all-ranks-html DIR: every rank log of DIR. */
/* Whether the caller holds open a rank log of the folder (opt->open_logs). */
static bool holds_rank_logs(const struct tl_options *opt)
{
    for (size_t i = 0; i < opt->nopen_logs; i++) {
        const char *slash = strrchr(opt->open_logs[i].path, '/');
        if (tl_open_log_in(&opt->open_logs[i], opt->path) &&
            tl_rank_of_name(slash ? slash + 1 : opt->open_logs[i].path) >= 0)
            return true;
    }
    return false;
}

/* The rank logs of the folder that the caller holds open and the folder no longer lists
 * (deleted since it opened them), added to the list: they are read from their descriptors. */
static void add_held_logs(const struct tl_options *opt, struct tl_rank_log **v, size_t *n)
{
    for (size_t i = 0; i < opt->nopen_logs; i++) {
        const struct tl_open_log *o = &opt->open_logs[i];
        const char *slash = strrchr(o->path, '/');
        const char *name = slash ? slash + 1 : o->path;
        long rank = tl_rank_of_name(name);
        if (rank < 0 || !tl_open_log_in(o, opt->path))
            continue;
        bool listed = false;
        for (size_t k = 0; k < *n && !listed; k++)
            listed = !strcmp((*v)[k].name, name);
        if (listed)
            continue;
        *v = tl_xreallocarray(*v, *n + 1, sizeof(**v));
        (*v)[*n].rank = (uint32_t)rank;
        (*v)[*n].name = tl_xstrdup(name);
        (*v)[*n].path = tl_xstrdup(o->path);
        (*n)++;
    }
}

static int all_ranks(struct multi *m, struct tl_result *res)
{
    const struct tl_options *opt = m->opt;
    struct tl_err err = {TL_ERR_NONE, ""};
    struct stat st;
    bool held = holds_rank_logs(opt); /* the folder itself may be gone */
    if (!held && (stat(opt->path, &st) < 0 || !S_ISDIR(st.st_mode))) {
        tl_error_code(&err, TL_ERR_INPUT,
                      "Input path %s must be a directory when using --all-ranks-html", opt->path);
        return tl_report_error(opt, &err);
    }
    /* The output first, as the reference: its errors come before the rank logs'. A bundle is
     * written straight into its file (its ranks' folders held until each is complete). */
    if (opt->bundle)
        m->out_name = opt->bundle;
    if ((opt->bundle ? tl_bundle_open(&m->root, opt->bundle, opt->overwrite, &err)
                     : tl_outdir_open(&m->root, m->out_name, opt->overwrite, &err)) < 0)
        return tl_report_error(opt, &err);
    if (tl_output_extras(opt, &m->root, &err) < 0) {
        tl_outdir_abort(&m->root);
        return tl_report_error(opt, &err);
    }
    struct tl_rank_log *logs;
    size_t nlogs;
    /* A bundle lists its names in name order (it has no file system's): the logs too. */
    bool listed = !opt->name_order && !opt->bundle;
    int rc = tl_rank_logs_find(opt->path, listed, &logs, &nlogs, &err);
    if (rc < 0 && held) { /* the folder is gone: its logs are the ones held */
        rc = 0;
        err = (struct tl_err){TL_ERR_NONE, ""};
    }
    if (rc == 0)
        add_held_logs(opt, &logs, &nlogs);
    if (rc == 0 && !nlogs)
        rc =
            tl_error_code(&err, TL_ERR_INPUT, "No rank log files found in directory %s", opt->path);
    if (rc < 0) {
        tl_rank_logs_free(logs, nlogs);
        tl_outdir_abort(&m->root);
        return tl_report_error(opt, &err);
    }
    take_logs(m, logs, nlogs);
    unsigned threads;
    ranks_setup(m, &threads);
    tl_pool_run(m->n, threads, rank_job, m);
    if (m->fatal) {
        err = m->err;
        rc = -1;
    }
    if (rc == 0 && !tl_stop_asked(m->opt->cancel))
        rc = tl_ranks_landing(m, &m->root, false, &err);
    rc = tl_ranks_finish_run(m, rc, &err, res);
    free_logs(m, logs, nlogs);
    return rc;
}

/* ---- --summary, --json: the diagnosis of every rank ----------------------------------------- */

static void summary_counts(struct tl_summary_counts *o, const struct tl_counts *c)
{
    o->compile_ids = c->compile_ids;
    o->graph_breaks = c->graph_breaks;
    o->recompiles = c->recompiles;
    o->specializations = c->specializations;
    o->failures = c->failures;
    o->recompile_limits = c->recompile_limits;
    o->export_problems = c->export_problems;
}

/* --summary or --json of the folder: the ranks together, then each rank's (report/summary.h). */
static void rank_folder_summary(struct tl_buf *b, const struct multi *m, const struct tl_counts *c,
                                bool json)
{
    struct tl_summary_rank_diag *v = tl_xcalloc(m->n ? m->n : 1, sizeof(*v));
    struct tl_rank_summary *keys = tl_xcalloc(m->n ? m->n : 1, sizeof(*keys));
    for (size_t i = 0; i < m->n; i++) {
        const struct rank *r = m->ranks[i];
        keys[i] = (struct tl_rank_summary){.rank = r->log.rank,
                                           .error = r->parsed ? NULL : "not read",
                                           .cache_keys = r->s.cache_keys};
        v[i].rank = r->log.rank;
        v[i].log = r->log.name;
        v[i].error = r->s.error;
        v[i].diagnosis = r->diagnosis;
        v[i].read = r->parsed;
        v[i].ledger = r->s.diag.ledger;
        summary_counts(&v[i].counts, &r->counts);
    }
    struct tl_arena arena;
    tl_arena_init(&arena, 16 * 1024);
    struct tl_summary_rank_folder f = {.path = m->opt->path, .ranks = v, .n = m->n};
    f.cache_across = tl_ranks_cache_across(keys, m->n, &arena);
    summary_counts(&f.total, c);
    if (json)
        tl_summary_json_rank_folder(b, &f);
    else
        tl_summary_text_rank_folder(b, &f);
    tl_arena_release(&arena);
    free(keys);
    free(v);
}

static int cmp_log_rank(const void *a, const void *b)
{
    const struct tl_rank_log *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* --summary, --json of a folder of rank logs: every rank's diagnosis in rank order, and what
 * they are together; no report. */
static int diagnose_all(struct multi *m, struct tl_result *res)
{
    const struct tl_options *opt = m->opt;
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_rank_log *logs;
    size_t nlogs;
    int rc = tl_rank_logs_find(opt->path, false, &logs, &nlogs, &err);
    if (rc == 0 && !nlogs)
        rc =
            tl_error_code(&err, TL_ERR_INPUT, "No rank log files found in directory %s", opt->path);
    if (rc < 0) {
        tl_rank_logs_free(logs, nlogs);
        return tl_report_error(opt, &err);
    }
    tl_sort(logs, nlogs, sizeof(*logs), cmp_log_rank);
    take_logs(m, logs, nlogs);
    unsigned threads;
    ranks_setup(m, &threads);
    tl_pool_run(m->n, threads, diagnose_job, m);
    int code = TL_EXIT_OK;
    if (m->fatal || tl_stop_asked(m->opt->cancel)) {
        err = m->err;
        if (!m->fatal)
            tl_error_code(&err, TL_ERR_SIGNAL, "interrupted");
        code = tl_report_error(opt, &err);
    } else {
        sum_counts(m, &res->counts);
        if (!m->counts_only) {
            struct tl_buf b = TL_BUF_INIT;
            rank_folder_summary(&b, m, &res->counts, opt->summary == TL_SUMMARY_JSON);
            res->summary = tl_buf_detach(&b, NULL);
        }
        res->has_counts = true;
        for (size_t i = 0; i < m->n; i++) {
            /* a rank that could not be read fails the run, as a log that cannot */
            if (m->ranks[i]->s.error) {
                res->ranks_left++;
                code = TL_EXIT_ERROR;
            }
            if (m->ranks[i]->nothing)
                code = TL_EXIT_ERROR; /* said as it was read */
            if (m->ranks[i]->strict_failed) {
                tl_say(&m->msg, TL_MSG_ERROR,
                       "tlparse: error: Something went wrong (--strict: the log of rank %u has "
                       "problems; see its Stats line)",
                       m->ranks[i]->log.rank);
                code = TL_EXIT_ERROR;
            }
        }
    }
    res->ranks = (uint32_t)m->n - res->ranks_left;
    free_logs(m, logs, nlogs);
    return code;
}

/* --all-ranks-html --from-summaries OUT: the rank_N/ folders of OUT, by their summaries. */
static int from_summaries(struct multi *m, struct tl_result *res)
{
    const struct tl_options *opt = m->opt;
    struct tl_err err = {TL_ERR_NONE, ""};
    m->out_name = opt->path;
    if (tl_outdir_open_in_place(&m->root, opt->path, &err) < 0)
        return tl_report_error(opt, &err);
    char **names;
    size_t nnames;
    if (tl_outdir_list(&m->root, "", false, &names, &nnames) < 0) {
        tl_error_code(&err, TL_ERR_INPUT, "cannot list %s", opt->path);
        tl_outdir_abort(&m->root);
        return tl_report_error(opt, &err);
    }
    struct tl_buf text = TL_BUF_INIT;
    for (size_t i = 0; i < nnames; i++) {
        const char *p = names[i];
        if (strncmp(p, "rank_", 5) != 0 || !p[5] || strspn(p + 5, "0123456789") != strlen(p + 5) ||
            strlen(p + 5) > 10 || strtoull(p + 5, NULL, 10) > UINT32_MAX ||
            !tl_outdir_is_dir(&m->root, p))
            continue;
        struct rank *r = tl_ranks_new_rank(m);
        tl_outfile_init(&r->events);
        tl_arena_init(&r->arena, 16 * 1024);
        tl_buf_init(&r->msgs, 0);
        uint32_t number = (uint32_t)strtoull(p + 5, NULL, 10);
        char rel[64], why[512];
        snprintf(rel, sizeof(rel), "%s/summary.json", p);
        tl_buf_reset(&text);
        struct tl_err rerr;
        struct tl_buf problem = TL_BUF_INIT;
        if (tl_outdir_read(&m->root, rel, &text, MAX_SUMMARY, &rerr) < 0) {
            tl_buf_adds(&problem, rerr.msg);
        } else if (tl_rank_summary_parse(text.buf, text.len, &r->s, &r->arena, why, sizeof(why)) <
                   0) {
            tl_buf_addf(&problem, "%s: %s", rel, why);
        } else if (r->s.rank != number) {
            tl_buf_addf(&problem, "%s says rank %u", rel, r->s.rank);
        } else {
            continue;
        }
        memset(&r->s, 0, sizeof(r->s));
        r->s.rank = number;
        r->s.log = "";
        r->s.error = tl_arena_memdupz(&r->arena, problem.buf, problem.len);
        tl_say(&m->msg, TL_MSG_WARNING, "tlparse: warning: rank %u: %s; it has no report", number,
               problem.buf);
        tl_buf_release(&problem);
    }
    tl_buf_release(&text);
    tl_outdir_list_free(names, nnames);
    int rc = 0;
    if (!m->n)
        rc = tl_error_code(&err, TL_ERR_INPUT,
                           "No rank reports (rank_N/summary.json) found in %s; write them with "
                           "tlparse --rank-only LOG -o %s/rank_N",
                           opt->path, opt->path);
    if (rc == 0)
        rc = tl_ranks_landing(m, &m->root, false, &err);
    return tl_ranks_finish_run(m, rc, &err, res);
}

long tl_rank_of_log_name(const char *name)
{
    return tl_rank_of_name(name);
}

int tl_ranks_run(const struct tl_options *opt, struct tl_result *res)
{
    struct multi m;
    tl_ranks_multi_init(&m, opt);
    int code = opt->from_summaries               ? from_summaries(&m, res)
               : opt->summary != TL_SUMMARY_NONE ? diagnose_all(&m, res)
                                                 : all_ranks(&m, res);
    tl_ranks_multi_release(&m);
    return code;
}

/* The messages of the ranks counted for a gate: errors only, to the caller's messages. */
static void errors_only(void *ctx, enum tl_message_kind kind, const char *line)
{
    const struct tl_options *opt = ctx;
    if (kind != TL_MSG_ERROR)
        return;
    if (opt->message)
        opt->message(opt->message_ctx, kind, line);
    else
        fprintf(stderr, "%s\n", line);
}

int tl_ranks_counts(const struct tl_options *opt, const char *known,
                    const struct tl_counts *known_counts, struct tl_result *res)
{
    struct tl_options o;
    tl_plan_diagnosis_options(&o, opt, TL_SUMMARY_JSON);
    o.all_ranks_counts = false;
    o.message = errors_only;
    o.message_ctx = (void *)opt;
    struct multi m;
    tl_ranks_multi_init(&m, &o);
    m.counts_only = true;
    m.known_path = known;
    m.known_counts = known_counts;
    struct tl_result all;
    memset(&all, 0, sizeof(all));
    int code = diagnose_all(&m, &all);
    tl_ranks_multi_release(&m);
    res->has_folder_counts = all.has_counts;
    res->folder_exit = code;
    res->folder_counts = all.counts;
    res->folder_ranks = all.ranks;
    return code;
}

/* --rank-only --rank N --rank-failed REASON -o OUT/rank_N: a rank whose task failed (a
 * scheduler's, tlparse-slurm) gets the folder of a rank without a report, which says why. */
static int rank_failed(const struct tl_options *opt, struct tl_messages *msg, struct tl_outdir *out,
                       uint32_t rank, struct tl_result *res)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_rank_summary s;
    memset(&s, 0, sizeof(s));
    s.rank = rank;
    s.log = "";
    s.error = opt->rank_failed;
    if (write_broken(out, &s, &err) < 0) {
        tl_outdir_abort(out);
        return tl_report_error(opt, &err);
    }
    if (tl_outdir_commit(out, &err) < 0)
        return tl_report_error(opt, &err);
    tl_say(msg, TL_MSG_INFO, "Rank %u has no report (%s): said in %s/summary.json", rank,
           opt->rank_failed, opt->out_dir ? opt->out_dir : "tl_out");
    if (res)
        res->ranks_left = 1;
    return TL_EXIT_OK;
}

/* --rank-only LOG -o OUT/rank_N: one rank's report and its summary. */
int tl_rank_only_run(const struct tl_options *opt, struct tl_result *res)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_messages msg = {.opt = opt, .input = opt->path};
    const char *base = opt->path ? strrchr(opt->path, '/') : NULL;
    base = base ? base + 1 : opt->path ? opt->path : "";
    long rank = opt->has_rank ? (long)opt->rank : tl_rank_of_name(base);
    if (rank < 0) {
        tl_error_code(&err, TL_ERR_USAGE,
                      "cannot tell the rank of %s from its name "
                      "(dedicated_log_torch_trace_rank_N.log): pass --rank N",
                      opt->path);
        return tl_report_error(opt, &err);
    }
    const char *out_name = opt->out_dir ? opt->out_dir : "tl_out";
    struct tl_outdir out;
    if (tl_outdir_open(&out, out_name, opt->overwrite, &err) < 0)
        return tl_report_error(opt, &err);
    if (opt->rank_failed)
        return rank_failed(opt, &msg, &out, (uint32_t)rank, res);
    struct tl_arena arena;
    tl_arena_init(&arena, 16 * 1024);
    struct tl_rank_summary s;
    memset(&s, 0, sizeof(s));
    s.rank = (uint32_t)rank;
    s.log = base;
    struct tl_engine_result sum;
    memset(&sum, 0, sizeof(sum));
    struct tl_reader *reader;
    int rc = tl_log_open_file(opt, opt->path, &reader, &err);
    enum tl_sniff_kind kind;
    /* what is no log is a broken rank here as in a one-step run (parse_rank) */
    if (rc == 0 && (rc = tl_log_sniff(reader, opt->path, &kind, &err)) < 0)
        tl_reader_free(reader);
    if (rc == 0) {
        struct tl_engine_job job = {
            .opt = opt, .reader = reader, .path = opt->path, .name = opt->path, .out = &out};
        struct tl_rank_params rp = {&s, &arena};
        struct tl_log_sinks params;
        tl_log_sinks(&job, &params, &rp);
        rc = tl_engine_run(&job, &sum, &err);
        free(sum.summary);
    }
    if (rc == 0 && tl_stop_asked(opt->cancel))
        rc = tl_error_code(&err, TL_ERR_SIGNAL, "interrupted");
    if (rc < 0 && err.code == TL_ERR_INPUT) {
        /* The log cannot be read: the folder says so in its summary.json, for the landing
         * page; the exit code says so too. (Writing the report failed: the error alone.) */
        tl_outdir_abort(&out);
        struct tl_err werr = {TL_ERR_NONE, ""};
        s.error = err.msg;
        if (tl_outdir_open(&out, out_name, opt->overwrite, &werr) == 0) {
            if (write_broken(&out, &s, &werr) == 0)
                tl_outdir_commit(&out, &werr);
            else
                tl_outdir_abort(&out);
        }
        tl_arena_release(&arena);
        return tl_report_error(opt, &err);
    }
    rc = tl_output_end(&out, rc, opt->cancel, &err);
    tl_arena_release(&arena);
    if (rc < 0)
        return tl_report_error(opt, &err);
    if (res) {
        res->bytes_in = sum.bytes_in;
        res->lines = sum.lines;
        res->has_counts = true;
        res->counts = sum.counts;
        res->index_path = tl_index_path(out_name);
    }
    return tl_strict_exit(opt, &msg, &sum);
}
