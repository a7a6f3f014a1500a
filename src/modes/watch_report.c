/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --watch's report folder, kept current (watch.h). The report of one log is that log's engine
 * itself (modes.h, tl_feed_live): its sinks write each record's files as the record comes, and
 * every refresh_ms (at most a fifth of the time) a forked copy of the process finishes its copy
 * of the model and puts the index, the directory and the summary in place (a generation; the
 * first one puts the hidden folder in place, whole), with live.html (a page that follows it)
 * and live.js (its status, rewritten every second). At the end the engine finishes as a batch
 * run does, and its report is the batch report of the log; of the newest log of a folder of
 * rank logs, the other ranks are counted (--fail-on) from their own engines. When the log a
 * batch run of the folder takes becomes another one (a newer log, or an older one written
 * again), that log's engine is made again with the report's sinks, fed from its start from the
 * descriptor the watch holds (watch.c), and the other logs' engines go on. The ranks' report
 * (--all-ranks-html, --run) is made the same way by their engines (ranks_live.c); a log that
 * starts over (truncated, replaced) is fed again from its start to a fresh engine, its rank's
 * folder written again, and a second log of a rank whose name sorts first (the one a batch run
 * reads) takes the rank over the same way (the other is read again for its diagnosis only),
 * while the other ranks go on. A line that belonged to an entry taken as complete at a pause
 * (tl_engine_diverged: a message of text that went on, a payload longer than its md5 said)
 * restarts that log's engine the same way (watch.c). Under --run, a job's first rank log is
 * reported alone until a second comes (a batch run of its trace gives the ranks' report for
 * several rank logs only), then joins the ranks' report, fed again from its start. When the
 * ranks' report is not of the logs a batch run reads at the end (tl_ranks_live_matches: a rank
 * log that could not be read), the report is made by batch runs on what the logs hold so far
 * (each read up to its last newline, from the descriptors the watch holds), on a thread of its
 * own, swapped into place atomically, and at the end by a batch run of the whole logs.
 */
#include "base/config.h"
#include "modes/watch_report.h"
#include "modes/plan.h"
#include "base/xalloc.h"
#include "input/follow.h"
#include "input/locate.h"
#include "input/rankfiles.h"
#include "report/live.h"

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
#include <unistd.h>

static size_t rank_logs(const struct tl_watch_run *wt, const struct tl_watch_log **single);

/* Whether the ranks' report is made as their logs are fed (not given up). */
static bool ranks_active(const struct tl_watch_run *wt)
{
    return wt->ranks && !wt->ranks_dropped;
}

/* ---- live.js -------------------------------------------------------------------------------- */

static void live_counts(struct tl_live_counts *c, const struct tl_counts *from)
{
    c->compile_ids = from->compile_ids;
    c->graph_breaks = from->graph_breaks;
    c->recompiles = from->recompiles;
    c->failures = from->failures;
}

/* live.js of the report of generation gen, built at updated (Unix ms). */
static void status_of(struct tl_watch_run *wt, struct tl_buf *out, enum tl_live_state state,
                      uint64_t gen, uint64_t updated, const char *message)
{
    struct tl_live_status st;
    memset(&st, 0, sizeof(st));
    st.final = state == TL_LIVE_FINISHED || state == TL_LIVE_STOPPED;
    st.generation = gen;
    st.updated_ms = (int64_t)updated;
    st.heartbeat_ms = (int64_t)tl_watch_wall_ms();
    st.last_input_ms = (int64_t)wt->last_byte_wall;
    st.state = state;
    live_counts(&st.total, &wt->counts);
    struct tl_live_rank *ranks = tl_xcalloc(wt->nlogs ? wt->nlogs : 1, sizeof(*ranks));
    for (size_t i = 0; i < wt->nlogs; i++) {
        const struct tl_watch_log *l = wt->logs[i];
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

static enum tl_live_state state_now(struct tl_watch_run *wt)
{
    return tl_watch_now_ms() - wt->last_byte < 5000 ? TL_LIVE_WRITING : TL_LIVE_IDLE;
}

/* live.js replaced at once in the live report, through the output: the page's heartbeat. The
 * live log's report is written in place; the report of a batch run is opened afresh each time,
 * as the folder a rebuild last swapped into place, and written within it. A failure is left for
 * the next beat. */
static void heartbeat(struct tl_watch_run *wt, enum tl_live_state state)
{
    if (wt->w->no_report || !wt->generation)
        return;
    struct tl_buf js = TL_BUF_INIT;
    status_of(wt, &js, state, wt->generation, wt->updated_wall, NULL);
    struct tl_err err;
    if (wt->live) {
        tl_feed_replace(wt->live->feed, "live.js", js.buf, js.len, &err);
    } else if (ranks_active(wt)) {
        tl_ranks_live_replace(wt->ranks, "live.js", js.buf, js.len, &err);
    } else {
        struct tl_outdir live;
        if (tl_outdir_open_in_place(&live, wt->out_dir, &err) == 0) {
            tl_outdir_replace(&live, "live.js", js.buf, js.len, &err);
            tl_outdir_commit(&live, &err);
        }
    }
    tl_buf_release(&js);
}

/* ---- the live log's report ------------------------------------------------------------------ */

/* A message of the live report's run, kept to be said when the watch ends, where a batch run
 * would say it: its kind, its text, a NUL. */
static void keep_message(void *ctx, enum tl_message_kind kind, const char *line)
{
    struct tl_watch_log *l = ctx;
    tl_buf_addch(&l->kept, (char)kind);
    tl_buf_adds(&l->kept, line);
    tl_buf_addch(&l->kept, '\0');
}

void tl_watch_report_say_kept(struct tl_watch_run *wt, const struct tl_buf *kept)
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
/* Whether l is the log a batch run of PATH reports on now: PATH itself, or the newest log of
 * the folder PATH (input/locate.h). */
static bool is_newest(const struct tl_watch_run *wt, const struct tl_watch_log *l)
{
    char *path = NULL;
    long others;
    struct tl_err err;
    struct stat a, b;
    bool same = tl_input_locate(wt->opt->path, false, &path, &others, &err) == 0 &&
                stat(path, &a) == 0 && stat(l->path, &b) == 0 && a.st_dev == b.st_dev &&
                a.st_ino == b.st_ino;
    free(path);
    return same;
}

bool tl_watch_report_wanted(const struct tl_watch_run *wt, const struct tl_watch_log *l)
{
    return !wt->w->no_report && !wt->opt->all_ranks_html && !ranks_active(wt) && wt->live != l &&
           is_newest(wt, l);
}

static uint64_t mtime_ns(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0
               ? (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec
               : 0;
}

struct tl_watch_log *tl_watch_report_newest(struct tl_watch_run *wt)
{
    if (wt->w->no_report || wt->opt->all_ranks_html || ranks_active(wt) ||
        (wt->live && wt->nlogs < 2))
        return NULL;
    /* The followed logs' times first: the folder is looked at as a batch run looks (which
     * reads the head of its newest log) only when a log other than the live one was written
     * after it, and after the folder was last looked at. */
    uint64_t live_t = wt->live ? mtime_ns(wt->live->path) : 0, newest = 0;
    for (size_t i = 0; i < wt->nlogs; i++)
        if (wt->logs[i] != wt->live && wt->logs[i]->eng) {
            uint64_t t = mtime_ns(wt->logs[i]->path);
            newest = t > newest ? t : newest;
        }
    if (newest <= live_t || newest <= wt->newest_seen)
        return NULL;
    wt->newest_seen = newest;
    char *path = NULL;
    long others;
    struct tl_err err;
    struct stat a, b;
    struct tl_watch_log *found = NULL;
    if (tl_input_locate(wt->opt->path, false, &path, &others, &err) == 0 && stat(path, &a) == 0)
        for (size_t i = 0; i < wt->nlogs && !found; i++) {
            struct tl_watch_log *l = wt->logs[i];
            if (stat(l->path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                found = l;
        }
    free(path);
    if (!found || found == wt->live || !found->eng || found->failed || found->refused ||
        found->ranked || found->no_live)
        return NULL;
    return found;
}

bool tl_watch_report_still_newest(struct tl_watch_run *wt)
{
    /* what a batch run takes now, kept for what it says of it (tl_watch_report_say_chosen):
     * finding it reads the head of the folder's logs */
    free(wt->chosen);
    wt->chosen = NULL;
    struct tl_err err;
    if (tl_input_locate(wt->opt->path, false, &wt->chosen, &wt->chosen_others, &err) < 0) {
        free(wt->chosen);
        wt->chosen = NULL;
        return false;
    }
    struct stat a, b;
    return wt->live && stat(wt->chosen, &a) == 0 && stat(wt->live->path, &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The ranks whose logs PATH holds, as a batch run of it counts them (0: not a folder). */
static size_t folder_ranks(const struct tl_watch_run *wt)
{
    return wt->opt->latest ? 0 : tl_rank_folder_ranks(wt->opt->path);
}

/* What a batch run of the folder PATH says of the log it chose, when it is not given it. */
static void say_chosen(struct tl_watch_run *wt)
{
    const struct tl_watch_log *single;
    size_t ranks = rank_logs(wt, &single);
    if (!ranks && single)
        return; /* a batch run of the one log itself */
    char *path = wt->chosen;
    long others = wt->chosen_others;
    wt->chosen = NULL;
    struct tl_err err;
    if ((!path && tl_input_locate(wt->opt->path, false, &path, &others, &err) < 0) || others < 0) {
        free(path);
        return;
    }
    struct tl_messages msg = {.opt = wt->opt};
    if (others == 0)
        tl_say(&msg, TL_MSG_INFO, "tlparse: parsing %s, the only file in %s", path, wt->opt->path);
    else
        tl_say(&msg, TL_MSG_INFO,
               "tlparse: parsing %s, the newest log in %s (%ld other file%s skipped)", path,
               wt->opt->path, others, others == 1 ? "" : "s");
    free(path);
}

void tl_watch_report_say_chosen(struct tl_watch_run *wt, struct tl_result *res)
{
    say_chosen(wt);
    size_t nranks = folder_ranks(wt);
    if (nranks < 2)
        return;
    /* the newest of a folder of rank logs: said as its batch run says it */
    res->newest_of = (uint32_t)nranks;
    struct tl_messages msg = {.opt = wt->opt};
    tl_say(&msg, TL_MSG_INFO,
           "tlparse: %s holds the logs of %zu ranks; this report is of the newest "
           "(--all-ranks-html reports on all)",
           wt->opt->path, nranks);
}

/* The watched log of rank log, the first of its rank (as a batch run takes them), finished and
 * counted; NULL: none such (not followed, not read, or its run failed). */
static const struct tl_watch_log *counted_rank(const struct tl_watch_run *wt,
                                               const struct tl_rank_log *log)
{
    for (size_t i = 0; i < wt->nlogs; i++) {
        const struct tl_watch_log *l = wt->logs[i];
        if (l->rank == (long)log->rank && !strcmp(l->name, log->name))
            return l->finished && l->code == TL_EXIT_OK && l->res.has_counts &&
                           !tl_engine_diverged(l->eng)
                       ? l
                       : NULL;
    }
    return NULL;
}

void tl_watch_report_folder_counts(struct tl_watch_run *wt, struct tl_result *res, int code)
{
    if (!res->newest_of || !wt->opt->all_ranks_counts || code != TL_EXIT_OK || !wt->live)
        return;
    struct tl_rank_log *logs = NULL;
    size_t nlogs = 0;
    struct tl_err err;
    bool whole = tl_rank_logs_find(wt->opt->path, false, &logs, &nlogs, &err) == 0 && nlogs;
    struct tl_counts sum;
    memset(&sum, 0, sizeof(sum));
    sum.compile_time_s = -1;
    uint32_t ranks = 0;
    for (size_t k = 0; k < nlogs && whole; k++) {
        bool first = true; /* of its rank, by name: the one a batch run reads */
        for (size_t j = 0; j < nlogs; j++)
            first &= logs[j].rank != logs[k].rank || strcmp(logs[j].name, logs[k].name) >= 0;
        if (!first)
            continue;
        const struct tl_watch_log *l = counted_rank(wt, &logs[k]);
        whole = l != NULL;
        if (l) {
            tl_counts_add(&sum, l == wt->live ? &res->counts : &l->res.counts);
            ranks++;
        }
    }
    tl_rank_logs_free(logs, nlogs);
    if (!whole) { /* a rank the watch did not count (or that failed): read by a batch run */
        tl_ranks_counts(wt->opt, wt->live->path, &res->counts, res);
        return;
    }
    res->has_folder_counts = true;
    res->folder_exit = TL_EXIT_OK;
    res->folder_counts = sum;
    res->folder_ranks = ranks;
}

/* The report is not of one log any more (another came): a batch run makes it from now on, and
 * the live log is read for its diagnosis only. */
void tl_watch_report_give_up(struct tl_watch_run *wt)
{
    if (!wt->live)
        return;
    tl_watch_report_reap(wt, true);
    tl_feed_drop_report(wt->live->feed);
    tl_buf_reset(&wt->live->kept);
    wt->live = NULL;
}

/* The options of the live report of l: a batch run's of its log, into the watch's folder, with
 * live.html and a first live.js; its messages kept for the end. */
void tl_watch_report_options(struct tl_watch_run *wt, struct tl_watch_log *l)
{
    struct tl_watch_generation *g = &wt->gen;
    tl_plan_live_options(&l->opt, wt->opt, (struct tl_plan_messages){keep_message, l});
    l->opt.path = l->path;
    l->opt.out_dir = wt->out_dir;
    l->opt.overwrite = wt->opt->overwrite || wt->published || wt->rb.started;
    tl_buf_reset(&g->page);
    tl_live_page(&g->page, wt->title);
    status_of(wt, &g->status, state_now(wt), wt->generation, tl_watch_wall_ms(), NULL);
    g->extra[0] = (struct tl_extra_file){"live.html", g->page.buf, g->page.len};
    g->extra[1] = (struct tl_extra_file){"live.js", g->status.buf, g->status.len};
    l->opt.extra_files = g->extra;
    l->opt.nextra_files = 2;
}

/* What the live report's live.js says at the end: how the watch ended. */
static void final_status(struct tl_watch_run *wt, struct tl_buf *js)
{
    enum tl_live_state state = wt->job_ended ? TL_LIVE_FINISHED : TL_LIVE_STOPPED;
    const char *message = wt->stopped                    ? "stopped by --fail-on"
                          : wt->job_ended || !wt->w->job ? NULL
                                                         : "stopped before the job ended (Ctrl-C)";
    status_of(wt, js, state, wt->generation + 1, tl_watch_wall_ms(), message);
}

/* A log's engine finished: what waited for the end is said; the live report gets its last
 * live.js before it is committed. */
void tl_watch_report_log_ended(void *ctx, struct tl_feed *f, const struct tl_counts *counts)
{
    struct tl_watch_log *l = ctx;
    struct tl_watch_run *wt = l->wt;
    (void)counts;
    tl_watch_look(wt, l);
    if (l != wt->live)
        return;
    tl_watch_count_all(wt);
    struct tl_buf js = TL_BUF_INIT;
    final_status(wt, &js);
    struct tl_err err;
    tl_feed_replace(f, "live.js", js.buf, js.len, &err);
    tl_buf_release(&js);
}

static uint64_t all_bytes(const struct tl_watch_run *wt);

/* ---- the ranks' live report ------------------------------------------------------------------ */

static void keep_ranks_message(void *ctx, enum tl_message_kind kind, const char *line)
{
    struct tl_watch_run *wt = ctx;
    tl_buf_addch(&wt->ranks_kept, (char)kind);
    tl_buf_adds(&wt->ranks_kept, line);
    tl_buf_addch(&wt->ranks_kept, '\0');
}

/* Whether a rank log other than l is followed. */
static bool other_rank_log(const struct tl_watch_run *wt, const struct tl_watch_log *l)
{
    for (size_t i = 0; i < wt->nlogs; i++)
        if (wt->logs[i] != l && wt->logs[i]->rank >= 0)
            return true;
    return false;
}

/* The ranks' report is fed as their logs come: for a folder of rank logs, when every rank is
 * reported (--all-ranks-html, or what --run gives), once (given up, batch runs make it). --run
 * gives it when the job wrote several rank logs (a batch run of its trace counts them): until a
 * second one comes, the report is of its one log. */
static bool ranks_wanted(const struct tl_watch_run *wt, const struct tl_watch_log *l)
{
    if (wt->w->no_report || l->rank < 0 || wt->ranks_dropped ||
        !(wt->opt->all_ranks_html || wt->w->ranks_report))
        return false;
    if (wt->ranks)
        return true;
    return !wt->ranks_tried && (wt->opt->all_ranks_html || other_rank_log(wt, l));
}

bool tl_watch_report_add_rank(struct tl_watch_run *wt, struct tl_watch_log *l)
{
    if (!ranks_wanted(wt, l))
        return false;
    struct tl_watch_generation *g = &wt->gen;
    struct tl_err err = {TL_ERR_NONE, ""};
    if (!wt->ranks) {
        wt->ranks_tried = true;
        struct tl_options *o = &wt->ranks_opt;
        tl_plan_live_options(o, wt->opt, (struct tl_plan_messages){keep_ranks_message, wt});
        o->all_ranks_html = true;
        o->out_dir = wt->out_dir;
        o->overwrite = wt->opt->overwrite || wt->published || wt->rb.started;
        tl_buf_reset(&g->page);
        tl_live_page(&g->page, wt->title);
        status_of(wt, &g->status, state_now(wt), wt->generation, tl_watch_wall_ms(), NULL);
        g->extra[0] = (struct tl_extra_file){"live.html", g->page.buf, g->page.len};
        g->extra[1] = (struct tl_extra_file){"live.js", g->status.buf, g->status.len};
        o->extra_files = g->extra;
        o->nextra_files = 2;
        wt->ranks = tl_ranks_live_new(o, &err);
        if (!wt->ranks) {
            tl_watch_notice(wt, "warning: the live report could not be made: ", err.msg);
            return false;
        }
    }
    l->eng = tl_ranks_live_add(wt->ranks, (uint32_t)l->rank, l->path, l, &err);
    if (!l->eng) { /* a second log of a rank: read for the diagnosis only, said as a batch
                      run says it */
        if (err.code == TL_ERR_USAGE) {
            struct tl_buf b = TL_BUF_INIT;
            tl_buf_addf(&b, "tlparse: warning: %s", err.msg);
            keep_ranks_message(wt, TL_MSG_WARNING, b.buf);
            tl_buf_release(&b);
        }
        return false;
    }
    l->ranked = true;
    return true;
}

void tl_watch_report_forget_rank(struct tl_watch_run *wt, struct tl_watch_log *l,
                                 const struct tl_watch_log *taken_by)
{
    if (!wt->ranks || wt->ranks_finished)
        return;
    if (taken_by && !wt->ranks_dropped) { /* said as a batch run says it */
        struct tl_buf b = TL_BUF_INIT;
        tl_buf_addf(&b, "tlparse: warning: %s is rank %ld too; only %s is used", l->path, l->rank,
                    taken_by->path);
        keep_ranks_message(wt, TL_MSG_WARNING, b.buf);
        tl_buf_release(&b);
    }
    tl_watch_report_reap(wt, true); /* a generation writes into its folder */
    struct tl_err err = {TL_ERR_NONE, ""};
    if (tl_ranks_live_forget(wt->ranks, l, &err) < 0) {
        tl_watch_notice(wt, "warning: the live report could not be updated: ", err.msg);
        tl_watch_report_drop_ranks(wt);
    }
}

void tl_watch_report_drop_ranks(struct tl_watch_run *wt)
{
    if (!wt->ranks || wt->ranks_finished)
        return;
    tl_watch_report_reap(wt, true);
    tl_ranks_live_drop(wt->ranks);
    tl_buf_reset(&wt->ranks_kept);
    /* its engines stay, still fed for the diagnosis: the ranks' logs keep them */
    wt->ranks_dropped = true;
}

static void rank_ended(void *user)
{
    struct tl_watch_log *l = user;
    tl_watch_look(l->wt, l);
}

/* The last live.js of the ranks' report, before it is committed. */
static void ranks_before_commit(void *ctx)
{
    struct tl_watch_run *wt = ctx;
    tl_watch_count_all(wt);
    struct tl_buf js = TL_BUF_INIT;
    final_status(wt, &js);
    struct tl_err err;
    tl_ranks_live_replace(wt->ranks, "live.js", js.buf, js.len, &err);
    tl_buf_release(&js);
}

void tl_watch_report_finish_ranks(struct tl_watch_run *wt)
{
    if (!wt->ranks)
        return;
    const struct tl_watch_log *single;
    if (!wt->ranks_dropped && (!tl_ranks_live_matches(wt->ranks) ||
                               (!wt->opt->all_ranks_html && rank_logs(wt, &single) < 2)))
        tl_watch_report_drop_ranks(wt); /* one rank log: the report of it, not the ranks' */
    tl_watch_report_reap(wt, true);
    struct tl_ranks_live_hooks h = {rank_ended, wt->ranks_dropped ? NULL : ranks_before_commit, wt};
    int code = tl_ranks_live_finish(wt->ranks, &h, &wt->ranks_res);
    if (!wt->ranks_dropped) {
        wt->ranks_finished = true;
        wt->ranks_code = code;
    } else {
        tl_result_release(&wt->ranks_res);
    }
}

/* ---- the live report's generations ---------------------------------------------------------- */

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
void tl_watch_report_reap(struct tl_watch_run *wt, bool wait)
{
    struct tl_watch_generation *g = &wt->gen;
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
        bool ranks = g->of_ranks && ranks_active(wt), live = !g->of_ranks && wt->live;
        if (!ranks && !live)
            return; /* its report was given up meanwhile */
        if (!wt->published && (ranks ? tl_ranks_live_go_live(wt->ranks, &err)
                                     : tl_feed_go_live(wt->live->feed, &err)) < 0) {
            tl_watch_notice(wt, "warning: the live report could not be put in place: ", err.msg);
            if (ranks)
                tl_watch_report_drop_ranks(wt);
            else
                tl_watch_report_give_up(wt);
            return;
        }
        wt->published = true;
        wt->generation++;
        wt->updated_wall = tl_watch_wall_ms();
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
    tl_watch_notice(wt, "warning: the live report could not be updated: ", why);
}

/* The live report's folder cannot be written any more: said once (its log is still read, and
 * the end report fails with why). */
static void live_check(struct tl_watch_run *wt)
{
    struct tl_err err;
    if (!wt->live || wt->gen.failed_said || !tl_feed_report_failed(wt->live->feed, &err))
        return;
    wt->gen.failed_said = true;
    tl_watch_notice(wt, "warning: the live report could not be updated: ", err.msg);
}

/* Make a generation when one is due: new bytes since the last, refresh_ms since it started, and
 * at most a fifth of the time spent making them. The first is made in the hidden folder, which
 * then goes into place, whole. */
static void gen_maybe(struct tl_watch_run *wt)
{
    struct tl_watch_generation *g = &wt->gen;
    struct tl_watch_log *l = wt->live;
    tl_watch_report_reap(wt, false);
    live_check(wt);
    uint64_t bytes = all_bytes(wt);
    bool single = l && !l->failed && tl_feed_has_report(l->feed);
    if ((!single && !ranks_active(wt)) || g->pid > 0 || bytes == g->bytes)
        return;
    for (size_t i = 0; i < wt->nlogs; i++) /* a report fed again from its start: not yet */
        if ((wt->logs[i] == l || wt->logs[i]->ranked) && tl_watch_log_behind(wt->logs[i]))
            return;
    uint64_t now = tl_watch_now_ms();
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
        int rc = single ? tl_feed_snapshot(l->feed, &err) : tl_ranks_live_snapshot(wt->ranks, &err);
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
    g->bytes = bytes;
    g->of_ranks = !single;
}

/* ---- batch runs of what the logs hold (several logs) ---------------------------------------- */

/* The rank logs followed; *single: the log of one process when it is the only other log
 * followed (NULL: none, or several, of which a batch run takes the newest). */
static size_t rank_logs(const struct tl_watch_run *wt, const struct tl_watch_log **single)
{
    size_t n = 0, others = 0;
    *single = NULL;
    for (size_t i = 0; i < wt->nlogs; i++) {
        const struct tl_watch_log *l = wt->logs[i];
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
static void report_options(const struct tl_watch_run *wt, struct tl_options *o,
                           const struct tl_open_log *open, size_t nopen)
{
    *o = *wt->opt;
    const struct tl_watch_log *single;
    size_t ranks = rank_logs(wt, &single);
    o->all_ranks_html = wt->opt->all_ranks_html || (wt->w->ranks_report && ranks > 1);
    if (!o->all_ranks_html && !ranks && single && strcmp(single->path, wt->opt->path) != 0)
        o->path = single->path; /* the folder's log: read by the descriptor held */
    o->out_dir = wt->out_dir;
    o->open_logs = open;
    o->nopen_logs = nopen;
}

/* The logs' descriptors, as open_logs lists them; dup: duplicated (for another thread). */
static struct tl_open_log *open_logs(const struct tl_watch_run *wt, bool dup, size_t *n)
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
    struct tl_watch_rebuild *rb = ctx;
    if (kind == TL_MSG_ERROR) {
        tl_buf_reset(&rb->why);
        tl_buf_adds(&rb->why, line);
    }
}

static void *rebuild_thread(void *arg)
{
    struct tl_watch_rebuild *rb = arg;
    rb->rc = tl_run(&rb->opt, &rb->res);
    atomic_store(&rb->done, true);
    return NULL;
}

static uint64_t all_bytes(const struct tl_watch_run *wt)
{
    uint64_t n = 0;
    for (size_t i = 0; i < wt->nlogs; i++)
        n += wt->logs[i]->bytes;
    return n;
}

/* A rebuild that ended: its generation is in place, or why not is said (once for a reason). */
static void rebuild_joined(struct tl_watch_run *wt)
{
    struct tl_watch_rebuild *rb = &wt->rb;
    pthread_join(rb->thread, NULL);
    rb->running = false;
    rb->took = tl_watch_now_ms() - rb->started;
    close_open(rb->open, rb->nopen);
    rb->open = NULL;
    rb->nopen = 0;
    bool written = rb->res.index_path != NULL; /* (--strict may have failed on it: it is there) */
    tl_result_release(&rb->res);
    if (written) {
        wt->generation++;
        wt->updated_wall = tl_watch_wall_ms();
        tl_buf_reset(&rb->said);
    } else if (rb->rc != TL_EXIT_INTERRUPTED &&
               (rb->said.len != rb->why.len || memcmp(rb->said.buf, rb->why.buf, rb->why.len))) {
        tl_buf_reset(&rb->said);
        tl_buf_addbuf(&rb->said, &rb->why);
        const char *why = rb->why.buf;
        if (!strncmp(why, "tlparse: error: ", 16))
            why += 16;
        tl_watch_notice(wt, "warning: the live report could not be updated: ", why);
    }
}

/* Start a rebuild when one is due: new bytes since the last, refresh_ms since it, and at most a
 * fifth of the time spent rebuilding. */
static void rebuild_maybe(struct tl_watch_run *wt)
{
    struct tl_watch_rebuild *rb = &wt->rb;
    uint64_t now = tl_watch_now_ms();
    if (rb->running && atomic_load(&rb->done))
        rebuild_joined(wt);
    uint64_t period = wt->w->refresh_ms ? wt->w->refresh_ms : 2000;
    uint64_t bytes = all_bytes(wt);
    bool started = false; /* a log was told apart: else it may become the live one */
    for (size_t i = 0; i < wt->nlogs; i++)
        started |= wt->logs[i]->eng != NULL;
    if (wt->live || ranks_active(wt) || !started || rb->running || wt->w->no_report ||
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
    status_of(wt, &rb->status, state_now(wt), wt->generation + 1, tl_watch_wall_ms(), NULL);
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

/* ---- the end -------------------------------------------------------------------------------- */

/* The final report: a batch run of what the logs hold, read from the files the watch holds,
 * with live.html and a last live.js saying how the watch ended. */
int tl_watch_report_final(struct tl_watch_run *wt, struct tl_result *res)
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

void tl_watch_report_init(struct tl_watch_run *wt)
{
    tl_buf_init(&wt->rb.page, 0);
    tl_buf_init(&wt->rb.status, 0);
    tl_buf_init(&wt->rb.why, 0);
    tl_buf_init(&wt->rb.said, 0);
    tl_buf_init(&wt->gen.said, 0);
    tl_buf_init(&wt->gen.page, 0);
    tl_buf_init(&wt->gen.status, 0);
    wt->gen.pipe = -1;
    tl_buf_init(&wt->ranks_kept, 0);
}

void tl_watch_report_tick(struct tl_watch_run *wt)
{
    gen_maybe(wt);
    rebuild_maybe(wt);
    heartbeat(wt, state_now(wt));
}

void tl_watch_report_wait(struct tl_watch_run *wt)
{
    if (wt->rb.running)
        rebuild_joined(wt);
}

void tl_watch_report_release(struct tl_watch_run *wt)
{
    tl_watch_report_reap(wt, true);
    tl_watch_report_wait(wt);
    tl_buf_release(&wt->gen.said);
    tl_buf_release(&wt->gen.page);
    tl_buf_release(&wt->gen.status);
    tl_buf_release(&wt->rb.page);
    tl_buf_release(&wt->rb.status);
    tl_buf_release(&wt->rb.why);
    tl_buf_release(&wt->rb.said);
    tl_buf_release(&wt->ranks_kept);
    free(wt->chosen);
    tl_result_release(&wt->ranks_res);
    tl_ranks_live_free(wt->ranks);
    wt->ranks = NULL;
}
