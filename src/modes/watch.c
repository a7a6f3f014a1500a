/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --watch: a job's compiler, live. The logs of PATH (one log, or a folder whose rank logs
 * appear as the ranks start) are followed as they grow (input/follow.h); each is fed to an
 * engine of its own as its bytes come (with the report's sinks for the live log, none for the
 * others: the model and its diagnosis), and what the diagnosis gained since the last look is
 * said once (report/live_text.h): a recompile as soon as its recompile_reasons are written, a
 * graph break at its reason, and so on. Routine
 * guards on sizes are counted, not said. The lines go to the caller's view (tl_watch_view;
 * the CLI's screen, cli/screen.h): one complete line per event, or each event wrapped to a
 * terminal's width, the job's own output (--run) in between as it comes, and a panel of counts
 * to keep below them. When the job pauses (no new bytes for a moment) the entry being read is
 * settled, so a finding shows within a second of being written.
 *
 * The report of one log is that log's engine itself (modes.h, tl_feed_live): its sinks write
 * each record's files as the record comes, and every refresh_ms (at most a fifth of the time) a
 * forked copy of the process finishes its copy of the model and puts the index, the directory
 * and the summary in place (a generation; the first one puts the hidden folder in place, whole),
 * with live.html (a page that follows it) and live.js (its status, rewritten every second). At
 * the end (the job ended, Ctrl-C, or --fail-on) the engine finishes as a batch run does, and its
 * report is the batch report of the log. When a line came that belonged to an entry taken as
 * complete at a pause (tl_engine_diverged), or when the report is of several logs (a folder of
 * ranks), the report is made by batch runs on what the logs hold so far (each read up to its
 * last newline, from the descriptors the watch holds), on a thread of its own, swapped into
 * place atomically, and at the end by a batch run of the whole logs.
 */
#include "base/config.h"
#include "modes/modes.h"
#include "modes/plan.h"
#include "base/xalloc.h"
#include "input/follow.h"
#include "input/sniff.h"
#include "report/live.h"
#include "report/live_text.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long the logs must stay quiet before the entry being read is taken as complete. */
#define SETTLE_MS 150
/* How often what a log gave is looked at while its bytes keep coming. */
#define LOOK_MS 100
/* The most logs the panel gives a line each; more are summed on one line. */
#define PANEL_LOGS 4

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* What has been said of the recompiles of one function: how many, how many of them early (by
 * their recompile_reasons), and its guards' counts. */
struct said_recompile {
    uint32_t count, early;
    uint32_t *guards;
    uint32_t nguards;
};

/* One followed log. Each is allocated on its own: its engine keeps a pointer to opt. */
struct wlog {
    char *path;
    size_t file; /* the follow's index */
    long rank;   /* -1: not a rank's log */
    char label[64];
    struct tl_options opt;
    struct tl_feed *feed;  /* its engine, and its report when it is the live one */
    struct tl_engine *eng; /* the feed's */
    struct tl_buf kept;    /* the messages of its report, said when the watch ends */
    struct watch *wt;
    int code;             /* its report's exit code (tl_feed_finish), once finished */
    struct tl_result res; /* and its result */
    bool decided, text, refused, failed, settled, finished;
    bool fresh;         /* fed since the last look */
    struct tl_buf head; /* its first bytes, until they tell a trace from text */
    uint64_t bytes;
    /* what has been said: the lengths of the diagnosis's arrays, and the recompiles' counts */
    uint32_t nbreaks, nspecs, nfailures, nlimits, nexports, nrestarts, nearly;
    uint32_t routine; /* routine guards on sizes: counted, not said */
    struct said_recompile *rec;
    uint32_t nrec;
};

struct rebuild {
    pthread_t thread;
    bool running;
    atomic_bool done;
    struct tl_options opt;
    struct tl_extra_file extra[2];
    struct tl_open_log *open; /* descriptors of the logs, duplicated for the thread */
    size_t nopen;
    struct tl_buf page, status;
    struct tl_buf why;  /* its last error message */
    struct tl_buf said; /* the last failure said */
    struct tl_result res;
    int rc;
    uint64_t started, took;
};

/* A generation of the live report being made by a forked copy of the process. */
struct generation {
    pid_t pid;                     /* 0: none running */
    int pipe;                      /* its error message comes through it */
    uint64_t started;              /* when (ms) */
    uint64_t cpu_ms;               /* what the last one cost */
    uint64_t bytes;                /* the logs' bytes it shows */
    struct tl_buf said;            /* the last failure said */
    bool failed_said;              /* the live report's folder failed, and it was said */
    struct tl_buf page, status;    /* live.html and the first live.js, of the live report */
    struct tl_extra_file extra[2]; /* the two, as its options give them */
};

struct watch {
    const struct tl_options *opt;
    const struct tl_watch *w;
    const char *title;
    const char *out_dir;
    struct tl_follow *follow;
    unsigned width; /* what an event line is wrapped to (0: one line) */
    struct wlog **logs;
    size_t nlogs, logs_alloc;
    int job_fd; /* the job's output (-1: none, or it ended) */
    uint64_t last_byte, last_byte_wall, started_ms;
    uint64_t generation, updated_wall, last_rebuild_bytes;
    bool job_ended, stopped;
    int job_status;
    struct wlog *live; /* the log whose report is made as it is fed (NULL: batch runs make it) */
    bool published;    /* the live report went into place */
    struct generation gen;
    struct rebuild rb;
    struct tl_counts counts;
};

/* A line's log: named when the job has several, or it is a rank's. */
static const char *label_of(const struct watch *wt, const struct wlog *l)
{
    return wt->nlogs > 1 || l->rank >= 0 ? l->label : NULL;
}

static struct tl_live_who who_of(const struct watch *wt, const struct wlog *l)
{
    return (struct tl_live_who){label_of(wt, l), wt->w->color, wt->width};
}

/* ---- the view ------------------------------------------------------------------------------- */

static void show_lines(struct watch *wt, const char *p, size_t n)
{
    if (wt->w->view.lines && n)
        wt->w->view.lines(wt->w->view.ctx, p, n);
}

/* "tlparse: A B" as a line of ours (log text made printable). */
static void notice(struct watch *wt, const char *a, const char *b)
{
    struct tl_buf line = TL_BUF_INIT;
    tl_buf_adds(&line, "tlparse: ");
    tl_buf_add_printable(&line, a, strlen(a));
    if (b)
        tl_buf_add_printable(&line, b, strlen(b));
    tl_buf_addch(&line, '\n');
    show_lines(wt, line.buf, line.len);
    tl_buf_release(&line);
}

static void counts_text(struct tl_buf *b, const struct tl_counts *c)
{
    tl_buf_addf(b,
                "%llu compile id%s \xc2\xb7 %llu graph break%s \xc2\xb7 %llu recompile%s \xc2\xb7 "
                "%llu failure%s",
                (unsigned long long)c->compile_ids, c->compile_ids == 1 ? "" : "s",
                (unsigned long long)c->graph_breaks, c->graph_breaks == 1 ? "" : "s",
                (unsigned long long)c->recompiles, c->recompiles == 1 ? "" : "s",
                (unsigned long long)c->failures, c->failures == 1 ? "" : "s");
}

/* The panel: what is watched, for how long, what the job does; the counts of each log (or
 * of all of them, when there are many). */
static void panel(struct watch *wt, const char *state)
{
    struct tl_buf s = TL_BUF_INIT;
    uint64_t secs = (now_ms() - wt->started_ms) / 1000;
    tl_buf_adds(&s, "tlparse --watch ");
    tl_buf_add_printable(&s, wt->title, strlen(wt->title));
    tl_buf_addf(&s, " \xc2\xb7 %llu:%02llu \xc2\xb7 %s\n", (unsigned long long)(secs / 60),
                (unsigned long long)(secs % 60), state);
    if (wt->nlogs > PANEL_LOGS) {
        tl_buf_addf(&s, "%zu logs: ", wt->nlogs);
        counts_text(&s, &wt->counts);
        tl_buf_addch(&s, '\n');
    } else {
        for (size_t i = 0; i < wt->nlogs; i++) {
            struct wlog *l = wt->logs[i];
            struct tl_live_who who = who_of(wt, l);
            if (l->eng) {
                tl_live_header(&s, &who, &tl_engine_model(l->eng)->diag, l->routine);
            } else {
                tl_buf_add_printable(&s, l->label, strlen(l->label));
                tl_buf_adds(&s, l->refused || l->failed ? ": not followed\n" : ": waiting\n");
            }
        }
    }
    if (wt->w->panel && wt->w->view.panel)
        wt->w->view.panel(wt->w->view.ctx, s.buf, s.len);
    tl_buf_release(&s);
}

static const char *state_text(struct watch *wt, char *buf, size_t size)
{
    if (!wt->nlogs)
        return "waiting for the job's first log";
    uint64_t quiet = now_ms() - wt->last_byte;
    if (quiet < 5000)
        return "the job is writing";
    snprintf(buf, size, "no new lines for %llu s", (unsigned long long)(quiet / 1000));
    return buf;
}

/* ---- what the diagnosis gained -------------------------------------------------------------- */

static void said_release(struct wlog *l)
{
    for (uint32_t i = 0; i < l->nrec; i++)
        free(l->rec[i].guards);
    free(l->rec);
    l->rec = NULL;
    l->nrec = 0;
    l->nbreaks = l->nspecs = l->nfailures = l->nlimits = l->nexports = l->nrestarts = 0;
    l->nearly = l->routine = 0;
}

/* A new finding, a recompile said early, or a recompile seen again: where in the diagnosis,
 * and when. */
struct fresh {
    enum tl_diag_finding_kind kind;
    bool early; /* an entry of d->early */
    uint32_t index;
    uint64_t seq;
};

static int cmp_fresh(const void *a, const void *b)
{
    uint64_t x = ((const struct fresh *)a)->seq, y = ((const struct fresh *)b)->seq;
    return x < y ? -1 : x > y;
}

struct fresh_list {
    struct fresh *v;
    size_t n, alloc;
};

static void add_fresh(struct fresh_list *f, enum tl_diag_finding_kind kind, bool early,
                      uint32_t index, uint64_t seq)
{
    TL_GROW(f->v, f->n + 1, f->alloc);
    f->v[f->n++] = (struct fresh){kind, early, index, seq};
}

/* The findings of a kind not said yet (their count now; *said: how many were said). */
#define FRESH_OF(list, kind, arr, now, said)                                                       \
    for (uint32_t i_ = (said); i_ < (now); i_++)                                                   \
        add_fresh(list, kind, false, i_, (arr)[i_].seq);                                           \
    (said) = (now)

/* Which guard of a recompile failed this time (its count grew), and the counts remembered. */
static const struct tl_diag_guard *guard_now(struct said_recompile *s,
                                             const struct tl_diag_recompile *r)
{
    const struct tl_diag_guard *g = NULL;
    if (r->nguards > s->nguards) {
        s->guards = tl_xrealloc(s->guards, r->nguards * sizeof(*s->guards));
        memset(s->guards + s->nguards, 0, (r->nguards - s->nguards) * sizeof(*s->guards));
        s->nguards = r->nguards;
    }
    for (uint32_t k = 0; k < r->nguards; k++) {
        if (r->guards[k].count != s->guards[k] && !g)
            g = &r->guards[k];
        s->guards[k] = r->guards[k].count;
    }
    return g;
}

/* The newest compile id of r that its recompile_reasons did not say already, when r keeps
 * them all (NULL: not known). */
static const char *newest_unsaid(const struct tl_diag *d, const struct tl_diag_recompile *r)
{
    if (!r->cids.kept || r->cids.kept != r->cids.n)
        return NULL;
    for (uint32_t i = r->cids.kept; i-- > 0;) {
        bool early = false;
        for (uint32_t k = 0; k < d->nearly && !early; k++)
            early = d->early[k].cid == r->cids.s[i]; /* interned: one pointer per text */
        if (!early)
            return r->cids.s[i];
    }
    return NULL;
}

static void say(struct watch *wt, struct wlog *l, const struct tl_diag *d, const struct fresh *f,
                struct tl_buf *line)
{
    struct tl_live_who who = who_of(wt, l);
    tl_buf_reset(line);
    if (f->early) {
        tl_live_recompile_early(line, &who, d, &d->early[f->index]);
    } else if (f->kind != TL_FIND_RECOMPILE) {
        tl_live_finding(line, &who, d, f->kind, f->index);
    } else {
        const struct tl_diag_recompile *r = &d->recompiles[f->index];
        struct said_recompile *s = &l->rec[f->index];
        const struct tl_diag_guard *g = guard_now(s, r);
        s->count = r->count;
        s->early = r->early;
        tl_live_recompile(line, &who, d, r, g, newest_unsaid(d, r));
    }
    show_lines(wt, line->buf, line->len);
}

/* What the log's diagnosis gained since the last look, said in the order it was seen. */
static void look(struct watch *wt, struct wlog *l)
{
    l->fresh = false;
    if (!l->eng)
        return;
    const struct tl_diag *d = &tl_engine_model(l->eng)->diag;
    struct fresh_list f = {NULL, 0, 0};
    FRESH_OF(&f, TL_FIND_FAILURE, d->failures, d->nfailures, l->nfailures);
    FRESH_OF(&f, TL_FIND_LIMIT, d->limits, d->nlimits, l->nlimits);
    FRESH_OF(&f, TL_FIND_EXPORT, d->exports, d->nexports, l->nexports);
    FRESH_OF(&f, TL_FIND_BREAK, d->breaks, d->nbreaks, l->nbreaks);
    FRESH_OF(&f, TL_FIND_RESTART, d->restarts, d->nrestarts, l->nrestarts);
    for (; l->nspecs < d->nspecs; l->nspecs++) {
        if (tl_diag_spec_routine(&d->specs[l->nspecs]))
            l->routine++; /* what torch.compile always does: counted in the panel */
        else
            add_fresh(&f, TL_FIND_SPEC, false, l->nspecs, d->specs[l->nspecs].seq);
    }
    for (; l->nearly < d->nearly; l->nearly++)
        add_fresh(&f, TL_FIND_RECOMPILE, true, l->nearly, d->early[l->nearly].seq);
    if (d->nrecompiles > l->nrec) {
        l->rec = tl_xrealloc(l->rec, d->nrecompiles * sizeof(*l->rec));
        memset(l->rec + l->nrec, 0, (d->nrecompiles - l->nrec) * sizeof(*l->rec));
        l->nrec = d->nrecompiles;
    }
    for (uint32_t i = 0; i < d->nrecompiles; i++) {
        const struct tl_diag_recompile *r = &d->recompiles[i];
        struct said_recompile *s = &l->rec[i];
        if (r->count == s->count)
            continue;
        if (r->count - s->count > r->early - s->early) {
            add_fresh(&f, TL_FIND_RECOMPILE, false, i, r->seq);
        } else { /* every one of them was said by its recompile_reasons */
            guard_now(s, r);
            s->count = r->count;
            s->early = r->early;
        }
    }
    if (f.n)
        qsort(f.v, f.n, sizeof(*f.v), cmp_fresh);
    struct tl_buf line = TL_BUF_INIT;
    for (size_t i = 0; i < f.n; i++)
        say(wt, l, d, &f.v[i], &line);
    tl_buf_release(&line);
    free(f.v);
}

/* The counts of every log so far, for --fail-on, the panel and live.js: a recompile said by
 * its recompile_reasons counts from then. */
static void count_all(struct watch *wt)
{
    memset(&wt->counts, 0, sizeof(wt->counts));
    wt->counts.compile_time_s = -1;
    for (size_t i = 0; i < wt->nlogs; i++) {
        if (!wt->logs[i]->eng || wt->logs[i]->failed)
            continue;
        const struct tl_diag *d = &tl_engine_model(wt->logs[i]->eng)->diag;
        struct tl_counts c;
        tl_counts_of(&c, d);
        for (uint32_t k = 0; k < d->nearly; k++)
            c.recompiles += !d->early[k].counted;
        tl_counts_add(&wt->counts, &c);
    }
}

/* ---- the logs -------------------------------------------------------------------------------- */

static void status_of(struct watch *wt, struct tl_buf *out, enum tl_live_state state, uint64_t gen,
                      uint64_t updated, const char *message);
static enum tl_live_state state_now(struct watch *wt);
static void gen_reap(struct watch *wt, bool wait);

static void drop_message(void *ctx, enum tl_message_kind kind, const char *line)
{
    (void)ctx, (void)kind, (void)line;
}

/* A message of the live report's run, kept to be said when the watch ends, where a batch run
 * would say it: its kind, its text, a NUL. */
static void keep_message(void *ctx, enum tl_message_kind kind, const char *line)
{
    struct wlog *l = ctx;
    tl_buf_addch(&l->kept, (char)kind);
    tl_buf_adds(&l->kept, line);
    tl_buf_addch(&l->kept, '\0');
}

static void say_kept(struct watch *wt, const struct tl_buf *kept)
{
    for (size_t at = 0; at < kept->len;) {
        enum tl_message_kind kind = (enum tl_message_kind)kept->buf[at];
        const char *line = kept->buf + at + 1;
        tl_message_emit(wt->opt->message, wt->opt->message_ctx, kind, line);
        at += 2 + strlen(line);
    }
}

/* Whether the log l is the one the report is of, and so is fed to it as it comes: the only log
 * of the watch so far (a log that is not one does not count), unless every rank is reported. */
static bool live_wanted(const struct watch *wt, const struct wlog *l)
{
    if (wt->w->no_report || wt->opt->all_ranks_html || wt->live)
        return false;
    for (size_t i = 0; i < wt->nlogs; i++)
        if (wt->logs[i] != l && !wt->logs[i]->refused)
            return false;
    return true;
}

/* The report is not of one log any more (another came): a batch run makes it from now on, and
 * the live log is read for its diagnosis only. */
static void live_give_up(struct watch *wt)
{
    if (!wt->live)
        return;
    gen_reap(wt, true);
    tl_feed_drop_report(wt->live->feed);
    tl_buf_reset(&wt->live->kept);
    wt->live = NULL;
}

/* The options of the live report of l: a batch run's of its log, into the watch's folder, with
 * live.html and a first live.js; its messages kept for the end. */
static void live_options(struct watch *wt, struct wlog *l)
{
    struct generation *g = &wt->gen;
    tl_plan_live_options(&l->opt, wt->opt, (struct tl_plan_messages){keep_message, l});
    l->opt.path = l->path;
    l->opt.out_dir = wt->out_dir;
    l->opt.overwrite = wt->opt->overwrite || wt->published || wt->rb.started;
    tl_buf_reset(&g->page);
    tl_live_page(&g->page, wt->title);
    status_of(wt, &g->status, state_now(wt), wt->generation, wall_ms(), NULL);
    g->extra[0] = (struct tl_extra_file){"live.html", g->page.buf, g->page.len};
    g->extra[1] = (struct tl_extra_file){"live.js", g->status.buf, g->status.len};
    l->opt.extra_files = g->extra;
    l->opt.nextra_files = 2;
}

static struct wlog *log_at(struct watch *wt, size_t file, const char *path, long rank)
{
    for (size_t i = 0; i < wt->nlogs; i++)
        if (wt->logs[i]->file == file)
            return wt->logs[i];
    TL_GROW(wt->logs, wt->nlogs + 1, wt->logs_alloc);
    struct wlog *l = tl_xcalloc(1, sizeof(*l));
    wt->logs[wt->nlogs++] = l;
    l->wt = wt;
    tl_buf_init(&l->head, 0);
    tl_buf_init(&l->kept, 0);
    l->file = file;
    l->path = tl_xstrdup(path ? path : "");
    l->rank = rank;
    const char *base = strrchr(l->path, '/');
    if (rank >= 0)
        snprintf(l->label, sizeof(l->label), "rank %ld", rank);
    else
        snprintf(l->label, sizeof(l->label), "%.60s", base ? base + 1 : l->path);
    return l;
}

static void log_reset(struct watch *wt, struct wlog *l)
{
    if (l == wt->live) { /* its report starts again with it */
        gen_reap(wt, true);
        wt->live = NULL;
    }
    tl_feed_free(l->feed);
    l->feed = NULL;
    l->eng = NULL;
    tl_buf_reset(&l->kept);
    l->decided = l->text = l->failed = false;
    l->settled = true;
    l->bytes = 0;
    tl_buf_reset(&l->head);
    said_release(l);
}

static void not_followed(struct watch *wt, struct wlog *l, const char *why)
{
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_addf(&b, ": %s: not followed any further", why);
    notice(wt, l->path, b.buf);
    tl_buf_release(&b);
}

static int log_start(struct watch *wt, struct wlog *l, const char *p, size_t n)
{
    if (wt->live && wt->live != l)
        live_give_up(wt);
    if (live_wanted(wt, l)) {
        live_options(wt, l);
        l->feed = tl_feed_live(&l->opt, l->path, l->text, true);
        l->eng = tl_feed_engine(l->feed);
        if (l->eng) {
            wt->live = l;
        } else { /* the report cannot be made: said, and the log followed all the same */
            const char *why = l->kept.len ? l->kept.buf + 1 : "";
            if (!strncmp(why, "tlparse: error: ", 16))
                why += 16;
            notice(wt, "warning: the live report could not be made: ", why);
            tl_buf_reset(&l->kept);
            tl_feed_free(l->feed);
        }
    }
    if (!l->eng) {
        tl_plan_live_options(&l->opt, wt->opt, (struct tl_plan_messages){drop_message, NULL});
        l->feed = tl_feed_live(&l->opt, l->path, l->text, false);
        l->eng = tl_feed_engine(l->feed);
    }
    if (!l->eng || tl_feed_bytes(l->feed, p, n) != TL_EXIT_OK) {
        l->failed = true;
        not_followed(wt, l, "it could not be read");
        return -1;
    }
    return 0;
}

/* Bytes of a log: held until they tell a trace from TORCH_LOGS text, then fed. */
static void log_bytes(struct watch *wt, struct wlog *l, const char *p, size_t n)
{
    if (l->failed || l->refused)
        return;
    l->bytes += n;
    l->settled = false;
    l->fresh = true;
    if (l->decided) {
        if (tl_feed_bytes(l->feed, p, n) != TL_EXIT_OK) {
            l->failed = true;
            not_followed(wt, l, "it could not be read");
        }
        return;
    }
    tl_buf_add(&l->head, p, n);
    /* Told by whole lines, or by a full window. */
    const char *nl = memrchr(l->head.buf, '\n', l->head.len);
    if (!nl && l->head.len < TL_SNIFF_WINDOW)
        return;
    size_t upto =
        l->head.len < TL_SNIFF_WINDOW ? (nl ? (size_t)(nl - l->head.buf) + 1 : 0) : TL_SNIFF_WINDOW;
    char why[256];
    enum tl_sniff_kind kind = tl_sniff(l->head.buf, upto, false, why, sizeof(why));
    if (kind == TL_SNIFF_EMPTY && l->head.len < TL_SNIFF_WINDOW)
        return;
    if (kind == TL_SNIFF_NOT_LOG) {
        l->refused = true;
        struct tl_buf b = TL_BUF_INIT;
        tl_buf_addf(&b, " is not a TORCH_TRACE log or TORCH_LOGS text: %s", why);
        notice(wt, l->path, b.buf);
        tl_buf_release(&b);
        return;
    }
    l->decided = true;
    l->text = kind == TL_SNIFF_TEXT;
    log_start(wt, l, l->head.buf, l->head.len);
    tl_buf_reset(&l->head);
}

/* The logs fed since they were last settled, settled and looked at; whether there was one. */
static bool settle_all(struct watch *wt)
{
    bool any = false;
    for (size_t i = 0; i < wt->nlogs; i++) {
        struct wlog *l = wt->logs[i];
        if (l->settled || !l->eng || l->failed)
            continue;
        struct tl_err err = {TL_ERR_NONE, ""};
        if (tl_engine_settle(l->eng, &err) < 0) {
            l->failed = true;
            not_followed(wt, l, err.msg);
        }
        l->settled = true;
        look(wt, l);
        any = true;
    }
    return any;
}

/* What the live report's live.js says at the end: how the watch ended. */
static void final_status(struct watch *wt, struct tl_buf *js)
{
    enum tl_live_state state = wt->job_ended ? TL_LIVE_FINISHED : TL_LIVE_STOPPED;
    const char *message = wt->stopped                    ? "stopped by --fail-on"
                          : wt->job_ended || !wt->w->job ? NULL
                                                         : "stopped before the job ended (Ctrl-C)";
    status_of(wt, js, state, wt->generation + 1, wall_ms(), message);
}

/* A log's engine finished: what waited for the end is said; the live report gets its last
 * live.js before it is committed. */
static void log_ended(void *ctx, struct tl_feed *f, const struct tl_counts *counts)
{
    struct wlog *l = ctx;
    struct watch *wt = l->wt;
    (void)counts;
    look(wt, l);
    if (l != wt->live)
        return;
    count_all(wt);
    struct tl_buf js = TL_BUF_INIT;
    final_status(wt, &js);
    struct tl_err err;
    tl_feed_replace(f, "live.js", js.buf, js.len, &err);
    tl_buf_release(&js);
}

/* The end: every log's engine finished (what waited for a later record, a graph break for the
 * compilation after it, a recompile for its metrics, is said too), and the live report with
 * it, unless a line came that belonged to an entry taken as complete when the job paused (then
 * a batch run makes it, as it makes the report of several logs). */
static void finish_all(struct watch *wt)
{
    tl_stop_clear(wt->opt->cancel); /* Ctrl-C ended the watch: what was read is said all the same */
    settle_all(wt);
    if (wt->live && tl_engine_diverged(wt->live->eng))
        live_give_up(wt);
    gen_reap(wt, true);
    for (size_t i = 0; i < wt->nlogs; i++) {
        struct wlog *l = wt->logs[i];
        if (!l->eng || l->failed)
            continue;
        tl_feed_on_end(l->feed, log_ended, l);
        l->code = tl_feed_finish(l->feed, &l->res);
        l->finished = true;
    }
    count_all(wt);
}

static void log_free(struct wlog *l)
{
    tl_feed_free(l->feed);
    tl_result_release(&l->res);
    said_release(l);
    tl_buf_release(&l->head);
    tl_buf_release(&l->kept);
    free(l->path);
    free(l);
}

/* ---- the report, kept current ---------------------------------------------------------------- */

static void live_counts(struct tl_live_counts *c, const struct tl_counts *from)
{
    c->compile_ids = from->compile_ids;
    c->graph_breaks = from->graph_breaks;
    c->recompiles = from->recompiles;
    c->failures = from->failures;
}

/* live.js of the report of generation gen, built at updated (Unix ms). */
static void status_of(struct watch *wt, struct tl_buf *out, enum tl_live_state state, uint64_t gen,
                      uint64_t updated, const char *message)
{
    struct tl_live_status st;
    memset(&st, 0, sizeof(st));
    st.final = state == TL_LIVE_FINISHED || state == TL_LIVE_STOPPED;
    st.generation = gen;
    st.updated_ms = (int64_t)updated;
    st.heartbeat_ms = (int64_t)wall_ms();
    st.last_input_ms = (int64_t)wt->last_byte_wall;
    st.state = state;
    live_counts(&st.total, &wt->counts);
    struct tl_live_rank *ranks = tl_xcalloc(wt->nlogs ? wt->nlogs : 1, sizeof(*ranks));
    for (size_t i = 0; i < wt->nlogs; i++) {
        const struct wlog *l = wt->logs[i];
        if (l->rank < 0 || !l->eng)
            continue;
        struct tl_counts c;
        tl_counts_of(&c, &tl_engine_model(l->eng)->diag);
        ranks[st.nranks].rank = (uint32_t)l->rank;
        live_counts(&ranks[st.nranks].counts, &c);
        st.nranks++;
    }
    st.ranks = st.nranks > 1 ? ranks : NULL;
    st.nranks = st.nranks > 1 ? st.nranks : 0;
    st.input = wt->title;
    st.message = message;
    tl_buf_reset(out);
    tl_live_status(out, &st);
    free(ranks);
}

static enum tl_live_state state_now(struct watch *wt)
{
    return now_ms() - wt->last_byte < 5000 ? TL_LIVE_WRITING : TL_LIVE_IDLE;
}

/* The rank logs followed; *single: the log of one process when it is the only other log
 * followed (NULL: none, or several, of which a batch run takes the newest). */
static size_t rank_logs(const struct watch *wt, const struct wlog **single)
{
    size_t n = 0, others = 0;
    *single = NULL;
    for (size_t i = 0; i < wt->nlogs; i++) {
        const struct wlog *l = wt->logs[i];
        if (l->rank >= 0) {
            n++;
        } else if (!l->refused) {
            *single = l;
            others++;
        }
    }
    if (others != 1)
        *single = NULL;
    return n;
}

/* The options of a report of what the logs hold: a batch run of PATH, the ranks' report when
 * several rank logs are followed (--all-ranks-html, or what --run gives), of the one log when
 * PATH is a folder of one process's log; its logs read from the descriptors in open. */
static void report_options(const struct watch *wt, struct tl_options *o,
                           const struct tl_open_log *open, size_t nopen)
{
    *o = *wt->opt;
    const struct wlog *single;
    size_t ranks = rank_logs(wt, &single);
    o->all_ranks_html = wt->opt->all_ranks_html || (wt->w->ranks_report && ranks > 1);
    if (!o->all_ranks_html && !ranks && single && strcmp(single->path, wt->opt->path) != 0)
        o->path = single->path; /* the folder's log: read by the descriptor held */
    o->out_dir = wt->out_dir;
    o->open_logs = open;
    o->nopen_logs = nopen;
}

/* The logs' descriptors, as open_logs lists them; dup: duplicated (for another thread). */
static struct tl_open_log *open_logs(const struct watch *wt, bool dup, size_t *n)
{
    struct tl_open_log *v = tl_xcalloc(wt->nlogs ? wt->nlogs : 1, sizeof(*v));
    *n = 0;
    for (size_t i = 0; i < wt->nlogs; i++) {
        int fd = tl_follow_fd(wt->follow, wt->logs[i]->file);
        if (fd >= 0 && dup)
            fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (fd >= 0)
            v[(*n)++] = (struct tl_open_log){wt->logs[i]->path, fd};
    }
    return v;
}

static void close_open(struct tl_open_log *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        close(v[i].fd);
    free(v);
}

/* The rebuild's messages: the last error is kept, to be said if it fails. */
static void keep_error(void *ctx, enum tl_message_kind kind, const char *line)
{
    struct rebuild *rb = ctx;
    if (kind == TL_MSG_ERROR) {
        tl_buf_reset(&rb->why);
        tl_buf_adds(&rb->why, line);
    }
}

static void *rebuild_thread(void *arg)
{
    struct rebuild *rb = arg;
    rb->rc = tl_run(&rb->opt, &rb->res);
    atomic_store(&rb->done, true);
    return NULL;
}

static uint64_t all_bytes(const struct watch *wt)
{
    uint64_t n = 0;
    for (size_t i = 0; i < wt->nlogs; i++)
        n += wt->logs[i]->bytes;
    return n;
}

/* A rebuild that ended: its generation is in place, or why not is said (once for a reason). */
static void rebuild_joined(struct watch *wt)
{
    struct rebuild *rb = &wt->rb;
    pthread_join(rb->thread, NULL);
    rb->running = false;
    rb->took = now_ms() - rb->started;
    close_open(rb->open, rb->nopen);
    rb->open = NULL;
    rb->nopen = 0;
    bool written = rb->res.index_path != NULL; /* (--strict may have failed on it: it is there) */
    tl_result_release(&rb->res);
    if (written) {
        wt->generation++;
        wt->updated_wall = wall_ms();
        tl_buf_reset(&rb->said);
    } else if (rb->rc != TL_EXIT_INTERRUPTED &&
               (rb->said.len != rb->why.len || memcmp(rb->said.buf, rb->why.buf, rb->why.len))) {
        tl_buf_reset(&rb->said);
        tl_buf_addbuf(&rb->said, &rb->why);
        const char *why = rb->why.buf;
        if (!strncmp(why, "tlparse: error: ", 16))
            why += 16;
        notice(wt, "warning: the live report could not be updated: ", why);
    }
}

/* Start a rebuild when one is due: new bytes since the last, refresh_ms since it, and at most a
 * fifth of the time spent rebuilding. */
static void rebuild_maybe(struct watch *wt)
{
    struct rebuild *rb = &wt->rb;
    uint64_t now = now_ms();
    if (rb->running && atomic_load(&rb->done))
        rebuild_joined(wt);
    uint64_t period = wt->w->refresh_ms ? wt->w->refresh_ms : 2000;
    uint64_t bytes = all_bytes(wt);
    bool started = false; /* a log was told apart: else it may become the live one */
    for (size_t i = 0; i < wt->nlogs; i++)
        started |= wt->logs[i]->eng != NULL;
    if (wt->live || !started || rb->running || wt->w->no_report ||
        bytes == wt->last_rebuild_bytes ||
        (rb->started && (now - rb->started < period || now - rb->started < 5 * rb->took)))
        return;
    wt->last_rebuild_bytes = bytes;
    rb->open = open_logs(wt, true, &rb->nopen);
    report_options(wt, &rb->opt, rb->open, rb->nopen);
    rb->opt.overwrite = true;
    rb->opt.complete_lines = true;
    rb->opt.progress = NULL;
    rb->opt.message = keep_error;
    rb->opt.message_ctx = rb;
    rb->opt.summary = TL_SUMMARY_NONE;
    rb->opt.bundle = NULL;
    tl_buf_reset(&rb->why);
    tl_buf_reset(&rb->page);
    tl_live_page(&rb->page, wt->title);
    status_of(wt, &rb->status, state_now(wt), wt->generation + 1, wall_ms(), NULL);
    rb->extra[0] = (struct tl_extra_file){"live.html", rb->page.buf, rb->page.len};
    rb->extra[1] = (struct tl_extra_file){"live.js", rb->status.buf, rb->status.len};
    rb->opt.extra_files = rb->extra;
    rb->opt.nextra_files = 2;
    atomic_store(&rb->done, false);
    rb->started = now;
    rb->running = pthread_create(&rb->thread, NULL, rebuild_thread, rb) == 0;
    if (!rb->running) {
        close_open(rb->open, rb->nopen);
        rb->open = NULL;
        rb->nopen = 0;
    }
}

/* live.js replaced at once in the live report, through the output: the page's heartbeat. The
 * live log's report is written in place; the report of a batch run is opened afresh each time,
 * as the folder a rebuild last swapped into place, and written within it. A failure is left for
 * the next beat. */
static void heartbeat(struct watch *wt, enum tl_live_state state)
{
    if (wt->w->no_report || !wt->generation)
        return;
    struct tl_buf js = TL_BUF_INIT;
    status_of(wt, &js, state, wt->generation, wt->updated_wall, NULL);
    struct tl_err err;
    if (wt->live) {
        tl_feed_replace(wt->live->feed, "live.js", js.buf, js.len, &err);
    } else {
        struct tl_outdir live;
        if (tl_outdir_open_in_place(&live, wt->out_dir, &err) == 0) {
            tl_outdir_replace(&live, "live.js", js.buf, js.len, &err);
            tl_outdir_commit(&live, &err);
        }
    }
    tl_buf_release(&js);
}

/* ---- the live report's generations ----------------------------------------------------------- */

/*
 * A generation shows the live log as it was read so far: its report's index, directory and
 * summary rendered from the model (the files of each record are written as they come). They
 * are rendered from a finished model, and finishing changes the model for good, so a copy of
 * the process makes them: fork() gives a snapshot of every structure at once for the cost of
 * the pages the watch changes meanwhile (copy-on-write), where a deep copy of the model and the
 * diagnosis would have to follow every field they have and will have. The copy writes the
 * pages (each replaced at once) and ends; the watch goes on reading. The live engine runs
 * without helper threads, so the copy holds no lock of another thread.
 */

static uint64_t ms_of(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000u + (uint64_t)tv.tv_usec / 1000u;
}

/* The generation being made ended (wait: wait for it): its pages are in place (the first puts
 * the folder in place), and live.js says so at once; or why not is said (once for a reason). */
static void gen_reap(struct watch *wt, bool wait)
{
    struct generation *g = &wt->gen;
    if (g->pid <= 0)
        return;
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof(ru));
    pid_t got;
    do
        got = wait4(g->pid, &status, wait ? 0 : WNOHANG, &ru);
    while (got < 0 && errno == EINTR);
    if (got == 0)
        return;
    g->pid = 0;
    g->cpu_ms = ms_of(ru.ru_utime) + ms_of(ru.ru_stime);
    char why[512];
    ssize_t n = read(g->pipe, why, sizeof(why) - 1);
    close(g->pipe);
    g->pipe = -1;
    if (got > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        struct tl_err err = {TL_ERR_NONE, ""};
        if (!wt->published && wt->live && tl_feed_go_live(wt->live->feed, &err) < 0) {
            notice(wt, "warning: the live report could not be put in place: ", err.msg);
            live_give_up(wt);
            return;
        }
        wt->published = true;
        wt->generation++;
        wt->updated_wall = wall_ms();
        tl_buf_reset(&g->said);
        heartbeat(wt, state_now(wt));
        return;
    }
    if (n <= 0)
        n = snprintf(why, sizeof(why), "the process that made it ended abnormally");
    why[n] = '\0';
    if (g->said.len == (size_t)n && !memcmp(g->said.buf, why, (size_t)n))
        return;
    tl_buf_reset(&g->said);
    tl_buf_add(&g->said, why, (size_t)n);
    notice(wt, "warning: the live report could not be updated: ", why);
}

/* The live report's folder cannot be written any more: said once (its log is still read, and
 * the end report fails with why). */
static void live_check(struct watch *wt)
{
    struct tl_err err;
    if (!wt->live || wt->gen.failed_said || !tl_feed_report_failed(wt->live->feed, &err))
        return;
    wt->gen.failed_said = true;
    notice(wt, "warning: the live report could not be updated: ", err.msg);
}

/* Make a generation when one is due: new bytes since the last, refresh_ms since it started, and
 * at most a fifth of the time spent making them. The first is made in the hidden folder, which
 * then goes into place, whole. */
static void gen_maybe(struct watch *wt)
{
    struct generation *g = &wt->gen;
    struct wlog *l = wt->live;
    gen_reap(wt, false);
    live_check(wt);
    if (!l || g->pid > 0 || l->failed || !tl_feed_has_report(l->feed) || l->bytes == g->bytes)
        return;
    uint64_t now = now_ms();
    uint64_t period = wt->w->refresh_ms ? wt->w->refresh_ms : 2000;
    if (g->started && (now - g->started < period || now - g->started < 5 * g->cpu_ms))
        return;
    struct tl_err err = {TL_ERR_NONE, ""};
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        int rc = tl_feed_snapshot(l->feed, &err);
        if (rc < 0 && write(fds[1], err.msg, strlen(err.msg)) < 0)
            rc = -1;
        _exit(rc < 0);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return;
    }
    g->pid = pid;
    g->pipe = fds[0];
    g->started = now;
    g->bytes = l->bytes;
}

/* ---- the job's output ------------------------------------------------------------------------ */

/* What the job wrote since the last look, to the view; at its end (or a failed read) it is
 * not looked at any more. */
static void job_output(struct watch *wt)
{
    char buf[16384];
    for (int k = 0; k < 64 && wt->job_fd >= 0; k++) {
        ssize_t n = read(wt->job_fd, buf, sizeof(buf));
        if (n > 0) {
            if (wt->w->view.job_bytes)
                wt->w->view.job_bytes(wt->w->view.ctx, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        /* its end (a pseudo-terminal says EIO once the job closed it) */
        wt->job_fd = -1;
        tl_follow_wake_on(wt->follow, -1);
    }
}

/* ---- the loop -------------------------------------------------------------------------------- */

static void on_event(struct watch *wt, const struct tl_follow_event *ev)
{
    struct wlog *l = log_at(wt, ev->file, ev->path, ev->rank);
    switch (ev->kind) {
    case TL_FOLLOW_FILE:
        notice(wt, "following ", ev->path);
        break;
    case TL_FOLLOW_DATA:
        log_bytes(wt, l, ev->p, ev->n);
        wt->last_byte = now_ms();
        wt->last_byte_wall = wall_ms();
        break;
    case TL_FOLLOW_RESTART:
        notice(wt, ev->why, NULL);
        log_reset(wt, l);
        break;
    case TL_FOLLOW_REFUSED:
        notice(wt, ev->why, NULL);
        l->refused = true;
        break;
    case TL_FOLLOW_IDLE:
        break;
    }
}

static int check_counts(struct watch *wt)
{
    count_all(wt);
    if (wt->w->check && wt->w->check(wt->w->check_ctx, &wt->counts) != 0) {
        wt->stopped = true;
        return 1;
    }
    return 0;
}

static void job_poll(struct watch *wt)
{
    if (!wt->w->job || wt->job_ended || wt->w->job(wt->w->job_ctx, &wt->job_status) != 0)
        return;
    wt->job_ended = true;
    job_output(wt); /* its last words before ours */
    if (wt->job_status != 0) {
        char b[96];
        snprintf(b, sizeof(b), " exited with status %d; reporting on what it traced",
                 wt->job_status);
        notice(wt, wt->title, b);
    }
}

/* Follow until the job ends, Ctrl-C, or --fail-on. */
static int follow_loop(struct watch *wt, struct tl_err *err)
{
    uint64_t last_tick = 0, last_look = 0, last_panel = 0;
    for (;;) {
        if (tl_stop_asked(wt->opt->cancel) || wt->stopped)
            return 0;
        if (!wt->job_ended) {
            job_poll(wt);
            if (wt->job_ended)
                tl_follow_rescan(wt->follow);
        }
        /* The job ended: what it wrote last is read, then the loop ends. */
        int timeout = wt->job_ended ? 0 : 100;
        struct tl_follow_event ev;
        if (tl_follow_next(wt->follow, timeout, &ev, err) < 0)
            return -1;
        job_output(wt);
        if (ev.kind != TL_FOLLOW_IDLE) {
            on_event(wt, &ev);
            if (ev.kind != TL_FOLLOW_DATA)
                continue;
        } else if (wt->job_ended) {
            settle_all(wt);
            check_counts(wt);
            return 0;
        }
        uint64_t now = now_ms();
        if (now - wt->last_byte >= SETTLE_MS) {
            if (settle_all(wt) && check_counts(wt))
                return 0;
        } else if (now - last_look >= LOOK_MS) {
            /* bytes keep coming: what the entries read so far gave */
            last_look = now;
            for (size_t i = 0; i < wt->nlogs; i++)
                if (wt->logs[i]->fresh)
                    look(wt, wt->logs[i]);
            if (check_counts(wt))
                return 0;
        }
        gen_reap(wt, false);
        if (now - last_tick >= 1000) {
            last_tick = now;
            gen_maybe(wt);
            rebuild_maybe(wt);
            heartbeat(wt, state_now(wt));
        }
        if (wt->w->panel && now - last_panel >= 100) { /* the panel, ten times a second */
            char buf[64];
            last_panel = now;
            count_all(wt);
            panel(wt, state_text(wt, buf, sizeof(buf)));
            if (wt->w->view.draw)
                wt->w->view.draw(wt->w->view.ctx);
        }
    }
}

/* The final report: a batch run of what the logs hold, read from the files the watch holds,
 * with live.html and a last live.js saying how the watch ended. */
static int final_report(struct watch *wt, struct tl_result *res)
{
    size_t nopen;
    struct tl_open_log *open = open_logs(wt, false, &nopen);
    struct tl_options o;
    report_options(wt, &o, open, nopen);
    /* the live report is ours to replace */
    o.overwrite = wt->opt->overwrite || wt->rb.started || wt->published;
    struct tl_buf page = TL_BUF_INIT, js = TL_BUF_INIT;
    tl_live_page(&page, wt->title);
    final_status(wt, &js);
    struct tl_extra_file extra[2] = {{"live.html", page.buf, page.len},
                                     {"live.js", js.buf, js.len}};
    o.extra_files = extra;
    o.nextra_files = 2;
    int rc = tl_run(&o, res);
    tl_buf_release(&page);
    tl_buf_release(&js);
    free(open); /* the descriptors are the follow's */
    return rc;
}

static void watch_release(struct watch *wt)
{
    gen_reap(wt, true);
    tl_buf_release(&wt->gen.said);
    tl_buf_release(&wt->gen.page);
    tl_buf_release(&wt->gen.status);
    if (wt->rb.running)
        rebuild_joined(wt);
    tl_buf_release(&wt->rb.page);
    tl_buf_release(&wt->rb.status);
    tl_buf_release(&wt->rb.why);
    tl_buf_release(&wt->rb.said);
    for (size_t i = 0; i < wt->nlogs; i++)
        log_free(wt->logs[i]);
    free(wt->logs);
    tl_follow_free(wt->follow);
}

/* PATH must be there: a folder (its logs may come later), or a log whose first bytes are not
 * a compressed file's or anything but a log's. */
static int check_path(const char *path, struct tl_err *err)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return tl_error_code(err, TL_ERR_INPUT,
                             "cannot follow %s: %s (a TORCH_TRACE folder that the job will "
                             "write: create it first, or let tlparse start the job with --watch "
                             "--run -- CMD)",
                             path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return 0;
    if (!S_ISREG(st.st_mode))
        return tl_error_code(err, TL_ERR_INPUT,
                             "cannot follow %s: not a regular file (--watch follows a log file "
                             "or a folder of logs)",
                             path);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return tl_error_code(err, TL_ERR_INPUT, "cannot follow %s: %s", path, strerror(errno));
    char *head = tl_xmalloc(TL_SNIFF_WINDOW);
    ssize_t n = pread(fd, head, TL_SNIFF_WINDOW, 0);
    close(fd);
    int rc = 0;
    if (n < 0) {
        rc = tl_error_code(err, TL_ERR_INPUT, "cannot follow %s: %s", path, strerror(errno));
    } else if ((n >= 2 && !memcmp(head, "\x1f\x8b", 2)) ||
               (n >= 4 && !memcmp(head, "\x28\xb5\x2f\xfd", 4))) {
        rc = tl_error_code(err, TL_ERR_INPUT,
                           "%s is %s-compressed: --watch follows a plain log while it is "
                           "written; read this one with: tlparse %s",
                           path, head[0] == '\x1f' ? "gzip" : "zstd", path);
    } else {
        /* Judged by its whole lines (the last may still be being written). */
        const char *nl = n > 0 ? memrchr(head, '\n', (size_t)n) : NULL;
        size_t whole = nl ? (size_t)(nl - head) + 1 : 0;
        char why[256];
        if (whole && tl_sniff(head, whole, false, why, sizeof(why)) == TL_SNIFF_NOT_LOG)
            rc = tl_error_code(err, TL_ERR_INPUT,
                               "%s is not a TORCH_TRACE log or TORCH_LOGS text: %s", path, why);
    }
    free(head);
    return rc;
}

int tl_watch(const struct tl_options *caller, const struct tl_watch *w, struct tl_result *res)
{
    struct tl_result ignored;
    res = res ? res : &ignored;
    memset(res, 0, sizeof(*res));
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_options taken;
    if (tl_options_take(&taken, caller, &err) < 0)
        return tl_report_error(caller, &err);
    const struct tl_options *opt = &taken;
    if (!opt->path || opt->mem_input || opt->summary != TL_SUMMARY_NONE || opt->bundle ||
        opt->rank_only || opt->from_summaries) {
        tl_error_code(&err, TL_ERR_USAGE,
                      "--watch follows a log file or a folder of logs into a report folder (not "
                      "with --summary, --json, --bundle, --rank-only or --from-summaries)");
        return tl_report_error(opt, &err);
    }
    struct watch wt = {.opt = opt, .w = w, .job_fd = -1};
    wt.out_dir = opt->out_dir ? opt->out_dir : "tl_out";
    wt.title = w->title ? w->title : opt->path;
    struct stat st;
    if (!w->no_report && !opt->overwrite && lstat(wt.out_dir, &st) == 0) {
        tl_error_code(&err, TL_ERR_EXISTS,
                      "Directory %s already exists; pass --overwrite to replace it or -o to "
                      "choose another",
                      wt.out_dir);
        return tl_report_error(opt, &err);
    }
    if (check_path(opt->path, &err) < 0 ||
        tl_follow_open(&wt.follow, opt->path, w->poll ? TL_FOLLOW_POLL : 0, &err) < 0)
        return tl_report_error(opt, &err);
    wt.width = w->width;
    if (w->job_output_fd > 0) {
        wt.job_fd = w->job_output_fd;
        fcntl(wt.job_fd, F_SETFL, fcntl(wt.job_fd, F_GETFL) | O_NONBLOCK);
        tl_follow_wake_on(wt.follow, wt.job_fd);
    }
    tl_buf_init(&wt.rb.page, 0);
    tl_buf_init(&wt.rb.status, 0);
    tl_buf_init(&wt.rb.why, 0);
    tl_buf_init(&wt.rb.said, 0);
    tl_buf_init(&wt.gen.said, 0);
    tl_buf_init(&wt.gen.page, 0);
    tl_buf_init(&wt.gen.status, 0);
    wt.gen.pipe = -1;
    wt.started_ms = wt.last_byte = now_ms();
    int rc = follow_loop(&wt, &err);
    job_output(&wt);
    if (rc == 0)
        finish_all(&wt);
    if (wt.rb.running)
        rebuild_joined(&wt);
    panel(&wt, wt.stopped                ? "stopped by --fail-on"
               : wt.job_ended || !w->job ? (wt.job_ended ? "finished" : "stopped")
                                         : "stopped");
    if (w->view.end)
        w->view.end(w->view.ctx);
    /* The counts of each log at the end, as plain lines (the panel, for the record). */
    for (size_t i = 0; i < wt.nlogs && !w->panel; i++) {
        if (!wt.logs[i]->eng)
            continue;
        struct tl_buf line = TL_BUF_INIT;
        struct tl_live_who who = who_of(&wt, wt.logs[i]);
        tl_live_header(&line, &who, &tl_engine_model(wt.logs[i]->eng)->diag, wt.logs[i]->routine);
        show_lines(&wt, line.buf, line.len);
        tl_buf_release(&line);
    }
    int code = TL_EXIT_OK;
    if (rc < 0) {
        code = tl_report_error(opt, &err);
    } else if (wt.live && wt.live->finished) { /* the live report is the final one */
        say_kept(&wt, &wt.live->kept);
        code = wt.live->code;
        *res = wt.live->res;
        memset(&wt.live->res, 0, sizeof(wt.live->res));
    } else if (!w->no_report) {
        code = final_report(&wt, res);
    } else {
        res->has_counts = true;
        res->counts = wt.counts;
    }
    watch_release(&wt);
    return code;
}
