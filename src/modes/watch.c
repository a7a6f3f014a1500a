/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --watch: a job's compiler, live. The logs of PATH (one log, or a folder whose rank logs
 * appear as the ranks start) are followed as they grow (input/follow.h); each is fed to an
 * engine of its own as its bytes come (with the report's sinks for the live log, none for the
 * others: the model and its diagnosis), and what the diagnosis gained since the last look is
 * said once (report/live_text.h): a recompile as soon as its recompile_reasons are written, a
 * graph break at its reason, and so on. Routine guards on sizes are counted, not said. The
 * lines go to the caller's view (tl_watch_view; the CLI's screen, cli/screen.h): one complete
 * line per event, or each event wrapped to a terminal's width, the job's own output (--run) in
 * between as it comes, and a panel of counts to keep below them. When the job pauses (no new bytes
 * for a moment) the entry being read is settled, so a finding shows within a second of being
 * written.
 *
 * The report folder is kept current by watch_report.c, and served with --serve (serve.h): the
 * live report while the job runs, the final one after it until Ctrl-C.
 */
#include "base/config.h"
#include "modes/watch_report.h"
#include "modes/plan.h"
#include "modes/serve.h"
#include "base/xalloc.h"
#include "input/follow.h"
#include "input/sniff.h"
#include "report/live_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long the logs must stay quiet before the entry being read is taken as complete. */
#define SETTLE_MS 150
/* How many bytes an engine fed again from its log's start catches up by at a time (about
 * 50 ms of work): the watch goes on with the other logs and the screen in between. */
#define CATCH_UP_BYTES (16u << 20)
/* How often what a log gave is looked at while its bytes keep coming. */
#define LOOK_MS 100
/* The most logs the panel gives a line each; more are summed on one line. */
#define PANEL_LOGS 4

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
static void panel(struct tl_watch_run *wt, const char *state)
{
    struct tl_buf s = TL_BUF_INIT;
    uint64_t secs = (tl_watch_now_ms() - wt->started_ms) / 1000;
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
            struct tl_watch_log *l = wt->logs[i];
            struct tl_live_who who = tl_watch_who_of(wt, l);
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

static const char *state_text(struct tl_watch_run *wt, char *buf, size_t size)
{
    if (!wt->nlogs)
        return "waiting for the job's first log";
    uint64_t quiet = tl_watch_now_ms() - wt->last_byte;
    if (quiet < 5000)
        return "the job is writing";
    snprintf(buf, size, "no new lines for %llu s", (unsigned long long)(quiet / 1000));
    return buf;
}

/* ---- the logs -------------------------------------------------------------------------------- */

static void drop_message(void *ctx, enum tl_message_kind kind, const char *line)
{
    (void)ctx, (void)kind, (void)line;
}

static struct tl_watch_log *log_at(struct tl_watch_run *wt, size_t file, const char *path,
                                   long rank)
{
    for (size_t i = 0; i < wt->nlogs; i++)
        if (wt->logs[i]->file == file)
            return wt->logs[i];
    TL_GROW(wt->logs, wt->nlogs + 1, wt->logs_alloc);
    struct tl_watch_log *l = tl_xcalloc(1, sizeof(*l));
    wt->logs[wt->nlogs++] = l;
    l->wt = wt;
    tl_buf_init(&l->head, 0);
    tl_buf_init(&l->kept, 0);
    l->file = file;
    l->path = tl_xstrdup(path ? path : "");
    l->rank = rank;
    const char *slash = strrchr(l->path, '/');
    l->name = slash ? slash + 1 : l->path;
    if (rank >= 0)
        snprintf(l->label, sizeof(l->label), "rank %ld", rank);
    else
        snprintf(l->label, sizeof(l->label), "%.60s", l->name);
    return l;
}

static void log_reset(struct tl_watch_run *wt, struct tl_watch_log *l)
{
    if (l == wt->live) { /* its report starts again with it */
        tl_watch_report_reap(wt, true);
        wt->live = NULL;
    }
    if (l->ranked) /* its rank is fed again from its start; the other ranks go on */
        tl_watch_report_forget_rank(wt, l, NULL);
    l->ranked = false;
    tl_feed_free(l->feed);
    l->feed = NULL;
    l->eng = NULL;
    tl_buf_reset(&l->kept);
    l->decided = l->text = l->failed = false;
    l->settled = true;
    l->bytes = 0;
    l->fed = 0;
    l->cut = false;
    tl_buf_reset(&l->head);
    tl_watch_said_release(l);
}

static void not_followed(struct tl_watch_run *wt, struct tl_watch_log *l, const char *why)
{
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_addf(&b, ": %s: not followed any further", why);
    tl_watch_notice(wt, l->path, b.buf);
    tl_buf_release(&b);
}

/* l's feed: the live report's when live (the report is of l from now on), else one for the
 * diagnosis only (also when the report cannot be made: said, and not tried again); false when
 * none could be made. */
static bool feed_new(struct tl_watch_run *wt, struct tl_watch_log *l, bool live)
{
    if (live) {
        tl_watch_report_give_up(wt); /* the report is of l from now on */
        tl_watch_report_options(wt, l);
        l->feed = tl_feed_live(&l->opt, l->path, l->text, true);
        l->eng = tl_feed_engine(l->feed);
        if (l->eng) {
            wt->live = l;
        } else { /* the report cannot be made: said, and the log followed all the same */
            const char *why = l->kept.len ? l->kept.buf + 1 : "";
            if (!strncmp(why, "tlparse: error: ", 16))
                why += 16;
            tl_watch_notice(wt, "warning: the live report could not be made: ", why);
            tl_buf_reset(&l->kept);
            tl_feed_free(l->feed);
            l->no_live = true;
        }
    }
    if (!l->eng) {
        tl_plan_live_options(&l->opt, wt->opt, (struct tl_plan_messages){drop_message, NULL});
        if (l->text) /* --redact reads traces: the report of text says so; its lines are said */
            l->opt.redact = false;
        l->feed = tl_feed_live(&l->opt, l->path, l->text, false);
        l->eng = tl_feed_engine(l->feed);
    }
    return l->eng != NULL;
}

/* p, n fed to l's engine: its rank's (a failure gives the ranks' report up), or its feed's;
 * false (said) when it failed. */
static bool log_feed(struct tl_watch_run *wt, struct tl_watch_log *l, const char *p, size_t n)
{
    struct tl_err err = {TL_ERR_NONE, "it could not be read"};
    if (l->ranked ? tl_engine_feed(l->eng, p, n, &err) == 0
                  : tl_feed_bytes(l->feed, p, n) == TL_EXIT_OK) {
        l->fed += n;
        return true;
    }
    if (l->ranked)
        tl_watch_report_drop_ranks(wt);
    l->failed = true;
    not_followed(wt, l, err.msg);
    return false;
}

/* What was read of l so far, to be fed again from its first byte to its new engine: by
 * catch_up, a piece at a time, so that the watch goes on with the other logs, the screen and
 * the live report meanwhile. */
static void feed_again(struct tl_watch_log *l)
{
    l->fed = 0;
    l->cut = false;
    l->settled = false;
}

/* Up to budget more bytes of l fed to its engine, read from the descriptor the watch holds. */
static void catch_up(struct tl_watch_run *wt, struct tl_watch_log *l, uint64_t budget)
{
    enum { CHUNK = 1 << 20 };
    int fd = tl_follow_fd(wt->follow, l->file);
    if (fd < 0) {
        l->failed = true;
        not_followed(wt, l, "it could not be read");
        return;
    }
    if (!wt->chunk)
        wt->chunk = tl_xmalloc(CHUNK);
    uint64_t to = l->bytes - l->fed < budget ? l->bytes : l->fed + budget;
    while (l->fed < to) {
        size_t want = to - l->fed < CHUNK ? (size_t)(to - l->fed) : CHUNK;
        ssize_t got = pread(fd, wt->chunk, want, (off_t)l->fed);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) { /* it shrank: the follow says it started over */
            l->cut = true;
            break;
        }
        if (!log_feed(wt, l, wt->chunk, (size_t)got))
            break;
    }
    l->fresh = true;
}

/* Every log whose engine is behind fed up to budget more bytes; whether one still is. */
static bool catch_up_all(struct tl_watch_run *wt, uint64_t budget)
{
    bool any = false;
    for (size_t i = 0; i < wt->nlogs; i++)
        if (tl_watch_log_behind(wt->logs[i])) {
            catch_up(wt, wt->logs[i], budget);
            any |= tl_watch_log_behind(wt->logs[i]);
        }
    return any;
}

/* l's engine made again (live: with the report's sinks, l the live log from now on; else for
 * the diagnosis only), fed from its first byte what was read of it so far, from the descriptor
 * the watch holds; the other logs' engines go on. What was said of it stands: the same bytes
 * give the same findings. */
static void log_refeed(struct tl_watch_run *wt, struct tl_watch_log *l, bool live)
{
    int fd = tl_follow_fd(wt->follow, l->file);
    tl_feed_free(l->feed);
    l->feed = NULL;
    l->eng = NULL;
    tl_buf_reset(&l->kept);
    if (fd < 0 || !feed_new(wt, l, live)) {
        l->failed = true;
        not_followed(wt, l, "it could not be read");
        return;
    }
    feed_again(l);
}

/* The log a batch run of PATH reports on, when the report is not of it (an older log of the
 * folder written again, the live one given up): made the live one, fed again from its start.
 * Looked for once a refresh period while the job runs (two logs written by turns would swap
 * it at every write), and at the end. */
static void follow_newest(struct tl_watch_run *wt, bool end)
{
    uint64_t now = tl_watch_now_ms();
    uint64_t period = wt->w->refresh_ms ? wt->w->refresh_ms : 2000;
    if (!end && now - wt->newest_at < period)
        return;
    wt->newest_at = now;
    struct tl_watch_log *l = tl_watch_report_newest(wt);
    if (l)
        log_refeed(wt, l, true);
}

/* A log of a rank already fed to the ranks' report, whose name sorts first: a batch run takes
 * it for the rank (and says the other is not used), so the rank is fed from it, and the other
 * log is read again from its start for its diagnosis only. */
static void rank_taken(struct tl_watch_run *wt, struct tl_watch_log *l)
{
    if (!wt->ranks || wt->ranks_dropped) /* its engines are read for the diagnosis only */
        return;
    for (size_t i = 0; i < wt->nlogs; i++) {
        struct tl_watch_log *o = wt->logs[i];
        if (o == l || !o->ranked || o->rank != l->rank || strcmp(l->name, o->name) >= 0)
            continue;
        tl_watch_report_forget_rank(wt, o, l);
        o->ranked = false;
        o->eng = NULL; /* the ranks' */
        log_refeed(wt, o, false);
    }
}

/* A rank log read on its own so far (under --run, the report of a job's first rank log is that
 * log's until a second one comes), fed to the ranks' report from its start, from the
 * descriptor the watch holds; a second log of a rank is read for its diagnosis only. What was
 * said of it stands: the same bytes give the same findings. */
static void rank_join(struct tl_watch_run *wt, struct tl_watch_log *l)
{
    int fd = tl_follow_fd(wt->follow, l->file);
    if (l == wt->live)
        tl_watch_report_give_up(wt);
    tl_feed_free(l->feed);
    l->feed = NULL;
    l->eng = NULL;
    tl_buf_reset(&l->kept);
    rank_taken(wt, l);
    if (fd < 0 || !tl_watch_report_add_rank(wt, l)) {
        log_refeed(wt, l, false);
        return;
    }
    feed_again(l);
}

static int log_start(struct tl_watch_run *wt, struct tl_watch_log *l, const char *p, size_t n)
{
    if (l->rank >= 0)
        rank_taken(wt, l);
    if (l->rank >= 0 && tl_watch_report_add_rank(wt, l)) {
        tl_watch_report_give_up(wt); /* the report is the ranks' */
        if (!log_feed(wt, l, p, n))
            return -1;
        /* the rank logs read on their own until this one came join it (of two logs of a
         * rank, rank_taken keeps the one a batch run takes) */
        for (size_t i = 0; i < wt->nlogs; i++) {
            struct tl_watch_log *o = wt->logs[i];
            if (o != l && o->rank >= 0 && o->decided && !o->ranked && !o->failed && o->feed)
                rank_join(wt, o);
        }
        return 0;
    }
    if (!feed_new(wt, l, tl_watch_report_wanted(wt, l))) {
        l->failed = true;
        not_followed(wt, l, "it could not be read");
        return -1;
    }
    return log_feed(wt, l, p, n) ? 0 : -1;
}

/* A line came that belonged to what l's engine took as complete at a pause (a message of text
 * that went on, a payload longer than its md5 said): its engine is made again and fed from the
 * log's start, the other logs' engines going on, and from then on its pauses are not taken as
 * the ends of entries (the job pauses inside them), so this happens once. */
static void restart_diverged(struct tl_watch_run *wt, struct tl_watch_log *l)
{
    if (!l->eng || !tl_engine_diverged(l->eng))
        return;
    l->hold = true;
    if (!l->ranked) {
        bool live = l == wt->live;
        if (live) /* its report is made again, with it */
            tl_watch_report_give_up(wt);
        log_refeed(wt, l, live);
        return;
    }
    tl_watch_report_forget_rank(wt, l, NULL);
    l->ranked = false;
    l->eng = NULL; /* the ranks' */
    rank_join(wt, l);
}

/* Bytes of a log: held until they tell a trace from TORCH_LOGS text, then fed. */
static void log_bytes(struct tl_watch_run *wt, struct tl_watch_log *l, const char *p, size_t n)
{
    if (l->failed || l->refused)
        return;
    l->bytes += n;
    l->settled = false;
    l->fresh = true;
    if (l->decided) {
        if (l->fed + n != l->bytes)
            return; /* its engine is behind: these bytes are read from the file in their turn */
        if (log_feed(wt, l, p, n))
            restart_diverged(wt, l);
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
        tl_watch_notice(wt, l->path, b.buf);
        tl_buf_release(&b);
        return;
    }
    l->decided = true;
    l->text = kind == TL_SNIFF_TEXT;
    log_start(wt, l, l->head.buf, l->head.len);
    tl_buf_reset(&l->head);
}

/* The logs fed since they were last settled, settled and looked at; whether there was one. */
static bool settle_all(struct tl_watch_run *wt)
{
    bool any = false;
    for (size_t i = 0; i < wt->nlogs; i++) {
        struct tl_watch_log *l = wt->logs[i];
        if (l->settled || !l->eng || l->failed || tl_watch_log_behind(l))
            continue;
        struct tl_err err = {TL_ERR_NONE, ""};
        if (!l->hold && tl_engine_settle(l->eng, &err) < 0) {
            l->failed = true;
            not_followed(wt, l, err.msg);
        }
        l->settled = true;
        tl_watch_look(wt, l);
        any = true;
    }
    return any;
}

/* The end: every log's engine finished (what waited for a later record, a graph break for the
 * compilation after it, a recompile for its metrics, is said too), and the live report with
 * it, unless its log is not the one a batch run of PATH takes (then a batch run makes it, as
 * it makes the report of several logs). A followed log that a batch run takes is made the live
 * one first (follow_newest). A log whose engine diverged was fed again (restart_diverged). */
static void finish_all(struct tl_watch_run *wt)
{
    tl_stop_clear(wt->opt->cancel); /* Ctrl-C ended the watch: what was read is said all the same */
    catch_up_all(wt, UINT64_MAX);
    settle_all(wt);
    follow_newest(wt, true);
    catch_up_all(wt, UINT64_MAX);
    settle_all(wt);
    if (wt->live && (tl_engine_diverged(wt->live->eng) || !tl_watch_report_still_newest(wt)))
        tl_watch_report_give_up(wt);
    tl_watch_report_reap(wt, true);
    for (size_t i = 0; i < wt->nlogs; i++) {
        struct tl_watch_log *l = wt->logs[i];
        if (!l->eng || l->failed || l->ranked)
            continue;
        tl_feed_on_end(l->feed, tl_watch_report_log_ended, l);
        l->code = tl_feed_finish(l->feed, &l->res);
        l->finished = true;
    }
    tl_watch_report_finish_ranks(wt); /* the ranks' engines, and their report */
    tl_watch_count_all(wt);
}

static void log_free(struct tl_watch_log *l)
{
    tl_feed_free(l->feed);
    tl_result_release(&l->res);
    tl_watch_said_release(l);
    tl_buf_release(&l->head);
    tl_buf_release(&l->kept);
    free(l->path);
    free(l);
}

/* ---- the job's output ------------------------------------------------------------------------ */

/* What the job wrote since the last tl_watch_look, to the view; at its end (or a failed read) it is
 * not looked at any more. */
static void job_output(struct tl_watch_run *wt)
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

static void on_event(struct tl_watch_run *wt, const struct tl_follow_event *ev)
{
    struct tl_watch_log *l = log_at(wt, ev->file, ev->path, ev->rank);
    switch (ev->kind) {
    case TL_FOLLOW_FILE:
        tl_watch_notice(wt, "following ", ev->path);
        break;
    case TL_FOLLOW_DATA:
        log_bytes(wt, l, ev->p, ev->n);
        wt->last_byte = tl_watch_now_ms();
        wt->last_byte_wall = tl_watch_wall_ms();
        break;
    case TL_FOLLOW_RESTART:
        tl_watch_notice(wt, ev->why, NULL);
        log_reset(wt, l);
        break;
    case TL_FOLLOW_REFUSED:
        tl_watch_notice(wt, ev->why, NULL);
        l->refused = true;
        break;
    case TL_FOLLOW_IDLE:
        break;
    }
}

static int check_counts(struct tl_watch_run *wt)
{
    tl_watch_count_all(wt);
    if (wt->w->check && wt->w->check(wt->w->check_ctx, &wt->counts) != 0) {
        wt->stopped = true;
        return 1;
    }
    return 0;
}

static void job_poll(struct tl_watch_run *wt)
{
    if (!wt->w->job || wt->job_ended || wt->w->job(wt->w->job_ctx, &wt->job_status) != 0)
        return;
    wt->job_ended = true;
    job_output(wt); /* its last words before ours */
    if (wt->job_status != 0) {
        char b[96];
        snprintf(b, sizeof(b), " exited with status %d; reporting on what it traced",
                 wt->job_status);
        tl_watch_notice(wt, wt->title, b);
    }
}

/* Follow until the job ends, Ctrl-C, or --fail-on. */
static int follow_loop(struct tl_watch_run *wt, struct tl_err *err)
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
        /* An engine fed again from its log's start catches up a piece at a time. The job
         * ended: what it wrote last is read, then the loop ends. */
        bool catching_up = catch_up_all(wt, CATCH_UP_BYTES);
        int timeout = wt->job_ended || catching_up ? 0 : 100;
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
        uint64_t now = tl_watch_now_ms();
        if (now - wt->last_byte >= SETTLE_MS) {
            if (settle_all(wt) && check_counts(wt))
                return 0;
        } else if (now - last_look >= LOOK_MS) {
            /* bytes keep coming: what the entries read so far gave */
            last_look = now;
            for (size_t i = 0; i < wt->nlogs; i++)
                if (wt->logs[i]->fresh)
                    tl_watch_look(wt, wt->logs[i]);
            if (check_counts(wt))
                return 0;
        }
        tl_watch_report_reap(wt, false);
        if (now - last_tick >= 1000) {
            last_tick = now;
            follow_newest(wt, false);
            tl_watch_report_tick(wt);
        }
        if (wt->w->panel && now - last_panel >= 100) { /* the panel, ten times a second */
            char buf[64];
            last_panel = now;
            tl_watch_count_all(wt);
            panel(wt, state_text(wt, buf, sizeof(buf)));
            if (wt->w->view.draw)
                wt->w->view.draw(wt->w->view.ctx);
        }
    }
}

static void watch_release(struct tl_watch_run *wt)
{
    tl_watch_report_release(wt);
    for (size_t i = 0; i < wt->nlogs; i++)
        log_free(wt->logs[i]);
    free(wt->logs);
    free(wt->chunk);
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
    bool serves = opt->serve || opt->has_port || opt->serve_bind;
    if (serves && w->no_report) {
        tl_error_code(&err, TL_ERR_USAGE, "cannot serve a watch that keeps no report");
        return tl_report_error(opt, &err);
    }
    if (serves && tl_plan_check(opt, &err) < 0)
        return tl_report_error(opt, &err);
    struct tl_watch_run wt = {.opt = opt, .w = w, .job_fd = -1};
    wt.out_dir = opt->out_dir ? opt->out_dir : "tl_out";
    struct tl_plan_serve serve; /* out of the options: the watch's runs serve nothing */
    tl_plan_take_serve(&serve, &taken, wt.out_dir);
    struct tl_serving srv = {0};
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
        (serve.root && tl_serving_open(&srv, &serve, true, opt, &err) < 0) ||
        tl_follow_open(&wt.follow, opt->path, w->poll ? TL_FOLLOW_POLL : 0, &err) < 0) {
        tl_serving_release(&srv);
        return tl_report_error(opt, &err);
    }
    if (srv.h && tl_serving_start(&srv, &err) < 0) {
        tl_serving_release(&srv);
        tl_follow_free(wt.follow);
        return tl_report_error(opt, &err);
    }
    tl_serving_tell(&srv, NULL);
    wt.width = w->width;
    if (w->job_output_fd > 0) {
        wt.job_fd = w->job_output_fd;
        fcntl(wt.job_fd, F_SETFL, fcntl(wt.job_fd, F_GETFL) | O_NONBLOCK);
        tl_follow_wake_on(wt.follow, wt.job_fd);
    }
    tl_watch_report_init(&wt);
    wt.started_ms = wt.last_byte = tl_watch_now_ms();
    int rc = follow_loop(&wt, &err);
    job_output(&wt);
    if (rc == 0) {
        finish_all(&wt);
        if (!wt.stopped) /* what only the end told (a graph break's compilation) is checked */
            check_counts(&wt);
    }
    tl_watch_report_wait(&wt);
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
        struct tl_live_who who = tl_watch_who_of(&wt, wt.logs[i]);
        tl_live_header(&line, &who, &tl_engine_model(wt.logs[i]->eng)->diag, wt.logs[i]->routine);
        tl_watch_show_lines(&wt, line.buf, line.len);
        tl_buf_release(&line);
    }
    int code = TL_EXIT_OK;
    if (rc < 0) {
        code = tl_report_error(opt, &err);
    } else if (wt.ranks_finished) { /* the ranks' live report is the final one */
        tl_watch_report_say_kept(&wt, &wt.ranks_kept);
        code = wt.ranks_code;
        *res = wt.ranks_res;
        memset(&wt.ranks_res, 0, sizeof(wt.ranks_res));
    } else if (wt.live && wt.live->finished) { /* the live report is the final one */
        code = wt.live->code;
        *res = wt.live->res;
        memset(&wt.live->res, 0, sizeof(wt.live->res));
        tl_watch_report_say_chosen(&wt, res);
        tl_watch_report_say_kept(&wt, &wt.live->kept);
        tl_watch_report_folder_counts(&wt, res, code);
    } else if (!w->no_report) {
        code = tl_watch_report_final(&wt, res);
    } else {
        res->has_counts = true;
        res->counts = wt.counts;
    }
    /* The job ended by itself: its final report stays served until Ctrl-C. (Ctrl-C, or
     * --fail-on, ended the watch: the caller is waiting for it to end.) */
    if (srv.h && rc == 0 && wt.job_ended && !wt.stopped && res->index_path) {
        tl_serving_tell(&srv, res);
        tl_serving_wait(opt->cancel);
    }
    tl_serving_release(&srv);
    watch_release(&wt);
    return code;
}
