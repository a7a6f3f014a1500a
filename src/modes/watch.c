/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --watch: a job's compiler, live. The logs of PATH (one log, or a folder whose rank logs
 * appear as the ranks start) are followed as they grow (input/follow.h); each is fed to an
 * engine of its own as its bytes come (no sink: the model and its diagnosis only), and what
 * the diagnosis gained since the last look is printed once, as one complete line per event
 * (report/live_text.h): on a terminal a screen redrawn in place, else appended lines. When the
 * job pauses (no new bytes for a moment) the entry being read is settled, so a finding shows
 * within a second of being written.
 *
 * The report folder is kept current by a batch run on what the logs hold so far (each read up
 * to its last newline), on a thread of its own, at most every refresh_ms and never taking more
 * than a fifth of the time; it is swapped into place atomically with live.html (a page that
 * follows it) and live.js (its status, rewritten every second). At the end (the job ended,
 * Ctrl-C, or --fail-on) the report of the whole logs is made exactly as a batch run makes it.
 */
#include "base/config.h"
#include "modes/modes.h"
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Events kept for the screen (the newest). */
#define KEEP_EVENTS 200
/* How long the logs must stay quiet before the entry being read is taken as complete. */
#define SETTLE_MS 150
/* How often what a log gave is looked at while its bytes keep coming. */
#define LOOK_MS 100

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

/* What has been said of a recompile: its count and its guards' counts. */
struct said_recompile {
    uint32_t count;
    uint32_t *guards;
    uint32_t nguards;
};

/* One followed log. */
struct wlog {
    char *path;
    long rank; /* -1: not a rank's log */
    char label[64];
    struct tl_options opt;
    struct tl_engine *eng;
    bool decided, text, refused, failed, settled;
    bool fresh;         /* fed since the last look */
    struct tl_buf head; /* its first bytes, until they tell a trace from text */
    uint64_t bytes;
    /* what has been said: the lengths of the diagnosis's arrays, and the recompiles' counts */
    uint32_t nbreaks, nspecs, nfailures, nlimits, nexports, nrestarts;
    struct said_recompile *rec;
    uint32_t nrec;
};

struct rebuild {
    pthread_t thread;
    bool running;
    atomic_bool done;
    struct tl_options opt;
    struct tl_extra_file extra[2];
    struct tl_buf page, status;
    int rc;
    uint64_t started, took;
};

struct watch {
    const struct tl_options *opt;
    const struct tl_watch *w;
    int fd;
    const char *out_dir;
    struct tl_follow *follow;
    struct wlog *logs;
    size_t nlogs, logs_alloc;
    char *events[KEEP_EVENTS]; /* a ring of the newest lines */
    size_t nevents, next_event;
    bool changed; /* the screen wants a redraw */
    uint64_t last_draw, last_byte, last_byte_wall, started_ms;
    uint64_t generation, updated_wall, last_rebuild_bytes;
    bool job_ended, stopped;
    struct rebuild rb;
    struct tl_counts counts;
};

/* A line's log: named when the job has several, or it is a rank's. */
static const char *label_of(const struct watch *wt, const struct wlog *l)
{
    return wt->nlogs > 1 || l->rank >= 0 ? l->label : NULL;
}

/* ---- the screen ---------------------------------------------------------------------------- */

static void out_write(struct watch *wt, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(wt->fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return; /* the screen went away: the watch goes on */
        p += k;
        n -= (size_t)k;
    }
}

/* An event line: printed at once (not a terminal) or kept for the next redraw. */
static void event(struct watch *wt, const struct tl_buf *line)
{
    if (!line->len)
        return;
    if (!wt->w->tty) {
        out_write(wt, line->buf, line->len);
        return;
    }
    free(wt->events[wt->next_event]);
    wt->events[wt->next_event] = tl_xstrdup(line->buf);
    wt->next_event = (wt->next_event + 1) % KEEP_EVENTS;
    if (wt->nevents < KEEP_EVENTS)
        wt->nevents++;
    wt->changed = true;
}

/* "tlparse: A B" as an event line (log text made printable). */
static void notice(struct watch *wt, const char *a, const char *b)
{
    struct tl_buf line = TL_BUF_INIT;
    tl_buf_adds(&line, "tlparse: ");
    tl_buf_add_printable(&line, a, strlen(a));
    if (b)
        tl_buf_add_printable(&line, b, strlen(b));
    tl_buf_addch(&line, '\n');
    event(wt, &line);
    tl_buf_release(&line);
}

/* At most columns visible characters of a line (ANSI sequences kept, UTF-8 whole). */
static void clip(struct tl_buf *out, const char *s, size_t n, unsigned columns)
{
    unsigned seen = 0;
    size_t i = 0;
    while (i < n && s[i] != '\n') {
        if (s[i] == '\033') {
            size_t j = i + 1;
            while (j < n && !((s[j] >= '@' && s[j] <= '~') && j > i + 1))
                j++;
            tl_buf_add(out, s + i, j < n ? j + 1 - i : n - i);
            i = j + 1;
            continue;
        }
        if (((unsigned char)s[i] & 0xc0) != 0x80) {
            if (seen == columns)
                break;
            seen++;
        }
        tl_buf_addch(out, s[i]);
        i++;
    }
    tl_buf_adds(out, "\033[0m\033[K\n");
}

static void draw(struct watch *wt, bool final)
{
    unsigned rows = wt->w->rows ? wt->w->rows : 24, cols = wt->w->columns ? wt->w->columns : 80;
    struct tl_buf s = TL_BUF_INIT, line = TL_BUF_INIT;
    tl_buf_adds(&s, "\033[H");
    uint64_t secs = (now_ms() - wt->started_ms) / 1000;
    tl_buf_addf(&line, "tlparse --watch %s \xc2\xb7 %llu:%02llu \xc2\xb7 %s", wt->opt->path,
                (unsigned long long)(secs / 60), (unsigned long long)(secs % 60),
                final                             ? "finished"
                : now_ms() - wt->last_byte < 5000 ? "the job is writing"
                                                  : "no new lines");
    clip(&s, line.buf, line.len, cols);
    unsigned used = 1;
    for (size_t i = 0; i < wt->nlogs && used + 3 < rows; i++) {
        struct wlog *l = &wt->logs[i];
        tl_buf_reset(&line);
        if (l->eng) {
            struct tl_live_who who = {label_of(wt, l), wt->w->color};
            tl_live_header(&line, &who, &tl_engine_model(l->eng)->diag);
        } else {
            tl_buf_addf(&line, "%s: %s", l->label, l->refused ? "not followed" : "waiting");
        }
        clip(&s, line.buf, line.len, cols);
        used++;
    }
    tl_buf_adds(&s, "\033[K\n");
    used++;
    size_t room = rows > used ? rows - used : 0;
    size_t n = wt->nevents < room ? wt->nevents : room;
    for (size_t k = 0; k < n; k++) {
        size_t at = (wt->next_event + KEEP_EVENTS - n + k) % KEEP_EVENTS;
        clip(&s, wt->events[at], strlen(wt->events[at]), cols);
    }
    tl_buf_adds(&s, "\033[J");
    out_write(wt, s.buf, s.len);
    tl_buf_release(&s);
    tl_buf_release(&line);
    wt->changed = false;
    wt->last_draw = now_ms();
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
}

/* A new finding, or a recompile seen again: where in the diagnosis, and when. */
struct fresh {
    enum tl_diag_finding_kind kind;
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

static void add_fresh(struct fresh_list *f, enum tl_diag_finding_kind kind, uint32_t index,
                      uint64_t seq)
{
    TL_GROW(f->v, f->n + 1, f->alloc);
    f->v[f->n++] = (struct fresh){kind, index, seq};
}

/* The findings of a kind not said yet (their count now; *said: how many were said). */
#define FRESH_OF(list, kind, arr, now, said)                                                       \
    for (uint32_t i_ = (said); i_ < (now); i_++)                                                   \
        add_fresh(list, kind, i_, (arr)[i_].seq);                                                  \
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

static void say(struct watch *wt, struct wlog *l, const struct tl_diag *d,
                const struct tl_live_who *who, const struct fresh *f, struct tl_buf *line)
{
    tl_buf_reset(line);
    if (f->kind != TL_FIND_RECOMPILE) {
        tl_live_finding(line, who, d, f->kind, f->index);
    } else {
        const struct tl_diag_recompile *r = &d->recompiles[f->index];
        struct said_recompile *s = &l->rec[f->index];
        const struct tl_diag_guard *g = guard_now(s, r);
        s->count = r->count;
        const char *cid =
            r->cids.kept && r->cids.kept == r->cids.n ? r->cids.s[r->cids.kept - 1] : NULL;
        tl_live_recompile(line, who, d, r, g, cid);
    }
    event(wt, line);
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
    FRESH_OF(&f, TL_FIND_SPEC, d->specs, d->nspecs, l->nspecs);
    FRESH_OF(&f, TL_FIND_RESTART, d->restarts, d->nrestarts, l->nrestarts);
    if (d->nrecompiles > l->nrec) {
        l->rec = tl_xrealloc(l->rec, d->nrecompiles * sizeof(*l->rec));
        memset(l->rec + l->nrec, 0, (d->nrecompiles - l->nrec) * sizeof(*l->rec));
        l->nrec = d->nrecompiles;
    }
    for (uint32_t i = 0; i < d->nrecompiles; i++)
        if (d->recompiles[i].count != l->rec[i].count)
            add_fresh(&f, TL_FIND_RECOMPILE, i, d->recompiles[i].seq);
    if (f.n)
        qsort(f.v, f.n, sizeof(*f.v), cmp_fresh);
    struct tl_live_who who = {label_of(wt, l), wt->w->color};
    struct tl_buf line = TL_BUF_INIT;
    for (size_t i = 0; i < f.n; i++)
        say(wt, l, d, &who, &f.v[i], &line);
    tl_buf_release(&line);
    free(f.v);
    wt->changed = true;
}

/* The counts of every log so far, for --fail-on and live.js. */
static void count_all(struct watch *wt)
{
    memset(&wt->counts, 0, sizeof(wt->counts));
    wt->counts.compile_time_s = -1;
    for (size_t i = 0; i < wt->nlogs; i++) {
        if (!wt->logs[i].eng)
            continue;
        struct tl_counts c;
        tl_counts_of(&c, &tl_engine_model(wt->logs[i].eng)->diag);
        tl_counts_add(&wt->counts, &c);
    }
}

/* ---- the logs -------------------------------------------------------------------------------- */

static void drop_message(void *ctx, enum tl_message_kind kind, const char *line)
{
    (void)ctx, (void)kind, (void)line;
}

static struct wlog *log_at(struct watch *wt, size_t file, const char *path, long rank)
{
    while (wt->nlogs <= file) {
        TL_GROW(wt->logs, wt->nlogs + 1, wt->logs_alloc);
        memset(&wt->logs[wt->nlogs], 0, sizeof(wt->logs[0]));
        tl_buf_init(&wt->logs[wt->nlogs].head, 0);
        wt->nlogs++;
    }
    struct wlog *l = &wt->logs[file];
    if (!l->path && path) {
        l->path = tl_xstrdup(path);
        l->rank = rank;
        const char *base = strrchr(path, '/');
        if (rank >= 0)
            snprintf(l->label, sizeof(l->label), "rank %ld", rank);
        else
            snprintf(l->label, sizeof(l->label), "%.60s", base ? base + 1 : path);
    }
    return l;
}

static void log_reset(struct wlog *l)
{
    tl_engine_free(l->eng);
    l->eng = NULL;
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
    struct tl_err err = {TL_ERR_NONE, ""};
    l->opt = *wt->opt;
    l->opt.message = drop_message; /* the final report says what is wrong with a log */
    l->opt.progress = false;
    l->opt.no_threads = true;
    l->opt.summary = TL_SUMMARY_NONE;
    l->opt.bundle = NULL;
    struct tl_engine_job job = {
        .opt = &l->opt, .path = l->path, .name = l->path, .out = NULL, .text = l->text};
    l->eng = tl_engine_new(&job);
    if (tl_engine_start(l->eng, 0, &err) < 0 || tl_engine_feed(l->eng, p, n, &err) < 0) {
        l->failed = true;
        not_followed(wt, l, err.msg);
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
        struct tl_err err = {TL_ERR_NONE, ""};
        if (tl_engine_feed(l->eng, p, n, &err) < 0) {
            l->failed = true;
            not_followed(wt, l, err.msg);
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
        struct wlog *l = &wt->logs[i];
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

/* The end: what waited for a later record (a graph break for the compilation after it, a
 * recompile for its metrics) is said too. */
static void finish_all(struct watch *wt)
{
    tl_interrupted = 0; /* Ctrl-C ended the watch: what was read is said all the same */
    settle_all(wt);
    for (size_t i = 0; i < wt->nlogs; i++) {
        struct wlog *l = &wt->logs[i];
        if (!l->eng || l->failed)
            continue;
        struct tl_err err = {TL_ERR_NONE, ""};
        struct tl_engine_result res;
        if (tl_engine_finish(l->eng, NULL, 0, &res, &err) == 0)
            look(wt, l);
        free(res.summary);
    }
    count_all(wt);
}

static void log_free(struct wlog *l)
{
    tl_engine_free(l->eng);
    said_release(l);
    tl_buf_release(&l->head);
    free(l->path);
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
                      uint64_t updated)
{
    struct tl_live_status st;
    memset(&st, 0, sizeof(st));
    st.generation = gen;
    st.updated_ms = (int64_t)updated;
    st.heartbeat_ms = (int64_t)wall_ms();
    st.last_input_ms = (int64_t)wt->last_byte_wall;
    st.state = state;
    live_counts(&st.total, &wt->counts);
    struct tl_live_rank *ranks = tl_xcalloc(wt->nlogs ? wt->nlogs : 1, sizeof(*ranks));
    for (size_t i = 0; i < wt->nlogs; i++) {
        const struct wlog *l = &wt->logs[i];
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
    st.input = wt->opt->path;
    tl_buf_reset(out);
    tl_live_status(out, &st);
    free(ranks);
}

static enum tl_live_state state_now(struct watch *wt)
{
    return now_ms() - wt->last_byte < 5000 ? TL_LIVE_WRITING : TL_LIVE_IDLE;
}

/* Whether the report is the ranks' (--all-ranks-html, or a folder of several rank logs when
 * the caller asked for that). */
static bool ranks_report(const struct watch *wt)
{
    return wt->opt->all_ranks_html ||
           (wt->w->ranks_report && tl_rank_folder_ranks(wt->opt->path) > 1);
}

static void *rebuild_thread(void *arg)
{
    struct rebuild *rb = arg;
    rb->rc = tl_run(&rb->opt, NULL);
    atomic_store(&rb->done, true);
    return NULL;
}

static uint64_t all_bytes(const struct watch *wt)
{
    uint64_t n = 0;
    for (size_t i = 0; i < wt->nlogs; i++)
        n += wt->logs[i].bytes;
    return n;
}

/* Start a rebuild when one is due: new bytes since the last, refresh_ms since it, and at most a
 * fifth of the time spent rebuilding. */
static void rebuild_maybe(struct watch *wt)
{
    struct rebuild *rb = &wt->rb;
    uint64_t now = now_ms();
    if (rb->running && atomic_load(&rb->done)) {
        pthread_join(rb->thread, NULL);
        rb->running = false;
        rb->took = now - rb->started;
        if (rb->rc == TL_EXIT_OK || rb->rc == TL_EXIT_ERROR) {
            wt->generation++;
            wt->updated_wall = wall_ms();
        }
    }
    uint64_t period = wt->w->refresh_ms ? wt->w->refresh_ms : 2000;
    uint64_t bytes = all_bytes(wt);
    if (rb->running || wt->w->no_report || bytes == wt->last_rebuild_bytes ||
        (rb->started && (now - rb->started < period || now - rb->started < 5 * rb->took)))
        return;
    wt->last_rebuild_bytes = bytes;
    rb->opt = *wt->opt;
    rb->opt.all_ranks_html = ranks_report(wt);
    rb->opt.out_dir = wt->out_dir;
    rb->opt.overwrite = true;
    rb->opt.complete_lines = true;
    rb->opt.progress = false;
    rb->opt.message = drop_message;
    rb->opt.summary = TL_SUMMARY_NONE;
    rb->opt.bundle = NULL;
    tl_buf_reset(&rb->page);
    tl_live_page(&rb->page, wt->opt->path);
    status_of(wt, &rb->status, state_now(wt), wt->generation + 1, wall_ms());
    rb->extra[0] = (struct tl_extra_file){"live.html", rb->page.buf, rb->page.len};
    rb->extra[1] = (struct tl_extra_file){"live.js", rb->status.buf, rb->status.len};
    rb->opt.extra_files = rb->extra;
    rb->opt.nextra_files = 2;
    atomic_store(&rb->done, false);
    rb->started = now;
    rb->running = pthread_create(&rb->thread, NULL, rebuild_thread, rb) == 0;
}

/* live.js rewritten in place (beside it, then renamed over it): the page's heartbeat. */
static void heartbeat(struct watch *wt, enum tl_live_state state)
{
    if (wt->w->no_report || !wt->generation)
        return;
    struct tl_buf js = TL_BUF_INIT, path = TL_BUF_INIT, tmp = TL_BUF_INIT;
    status_of(wt, &js, state, wt->generation, wt->updated_wall);
    tl_buf_addf(&path, "%s/live.js", wt->out_dir);
    tl_buf_addf(&tmp, "%s/.live.js.tmp", wt->out_dir);
    int fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0) {
        bool ok = write(fd, js.buf, js.len) == (ssize_t)js.len;
        close(fd);
        if (!ok || rename(tmp.buf, path.buf) < 0)
            unlink(tmp.buf);
    }
    tl_buf_release(&js);
    tl_buf_release(&path);
    tl_buf_release(&tmp);
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
        log_reset(l);
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
    int status = 0; /* the caller keeps it */
    if (wt->w->job && !wt->job_ended && wt->w->job(wt->w->job_ctx, &status) == 0)
        wt->job_ended = true;
}

/* Follow until the job ends, Ctrl-C, or --fail-on. */
static int follow_loop(struct watch *wt, struct tl_err *err)
{
    uint64_t last_tick = 0, last_look = 0;
    for (;;) {
        if (tl_interrupted || wt->stopped)
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
                if (wt->logs[i].fresh)
                    look(wt, &wt->logs[i]);
            if (check_counts(wt))
                return 0;
        }
        if (now - last_tick >= 1000) {
            last_tick = now;
            rebuild_maybe(wt);
            heartbeat(wt, state_now(wt));
            wt->changed = wt->changed || wt->w->tty;
        }
        if (wt->w->tty && wt->changed && now - wt->last_draw >= 100)
            draw(wt, false);
    }
}

/* The final report: a batch run of what the logs hold. */
static int final_report(struct watch *wt, struct tl_result *res)
{
    struct tl_options o = *wt->opt;
    o.all_ranks_html = ranks_report(wt);
    o.out_dir = wt->out_dir;
    o.overwrite = wt->opt->overwrite || wt->rb.started; /* the live report is ours to replace */
    return tl_run(&o, res);
}

static void watch_release(struct watch *wt)
{
    if (wt->rb.running)
        pthread_join(wt->rb.thread, NULL);
    tl_buf_release(&wt->rb.page);
    tl_buf_release(&wt->rb.status);
    for (size_t i = 0; i < wt->nlogs; i++)
        log_free(&wt->logs[i]);
    free(wt->logs);
    for (size_t i = 0; i < KEEP_EVENTS; i++)
        free(wt->events[i]);
    tl_follow_free(wt->follow);
}

int tl_watch(const struct tl_options *opt, const struct tl_watch *w, struct tl_result *res)
{
    struct tl_result ignored;
    res = res ? res : &ignored;
    memset(res, 0, sizeof(*res));
    struct tl_err err = {TL_ERR_NONE, ""};
    if (!opt->path || opt->mem_input || opt->summary != TL_SUMMARY_NONE || opt->bundle ||
        opt->rank_only || opt->from_summaries) {
        tl_error_code(&err, TL_ERR_USAGE,
                      "--watch follows a log file or a folder of logs into a report folder (not "
                      "with --summary, --json, --bundle, --rank-only or --from-summaries)");
        return tl_report_error(opt, &err);
    }
    struct watch wt = {.opt = opt, .w = w, .fd = w->screen_fd ? w->screen_fd : 1};
    wt.out_dir = opt->out_dir ? opt->out_dir : "tl_out";
    struct stat st;
    if (!w->no_report && !opt->overwrite && lstat(wt.out_dir, &st) == 0) {
        tl_error_code(&err, TL_ERR_EXISTS,
                      "Directory %s already exists; pass --overwrite to replace it or -o to "
                      "choose another",
                      wt.out_dir);
        return tl_report_error(opt, &err);
    }
    if (tl_follow_open(&wt.follow, opt->path, w->poll ? TL_FOLLOW_POLL : 0, &err) < 0)
        return tl_report_error(opt, &err);
    tl_buf_init(&wt.rb.page, 0);
    tl_buf_init(&wt.rb.status, 0);
    wt.started_ms = wt.last_byte = now_ms();
    if (w->tty)
        out_write(&wt, "\033[2J", 4);
    int rc = follow_loop(&wt, &err);
    if (rc == 0)
        finish_all(&wt);
    if (wt.rb.running) {
        pthread_join(wt.rb.thread, NULL);
        wt.rb.running = false;
    }
    if (w->tty)
        draw(&wt, true);
    /* The counts of each log at the end, as plain lines (the screen's header, for the record). */
    for (size_t i = 0; i < wt.nlogs && !w->tty; i++) {
        if (!wt.logs[i].eng)
            continue;
        struct tl_buf line = TL_BUF_INIT;
        struct tl_live_who who = {label_of(&wt, &wt.logs[i]), w->color};
        tl_live_header(&line, &who, &tl_engine_model(wt.logs[i].eng)->diag);
        out_write(&wt, line.buf, line.len);
        tl_buf_release(&line);
    }
    if (rc < 0) {
        watch_release(&wt);
        return tl_report_error(opt, &err);
    }
    int code = TL_EXIT_OK;
    if (!w->no_report) {
        code = final_report(&wt, res);
    } else {
        res->has_counts = true;
        res->counts = wt.counts;
    }
    watch_release(&wt);
    return code;
}
