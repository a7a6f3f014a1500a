/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tl_diff_run(): `tlparse diff BEFORE AFTER`. Each side becomes a summary (tlparse-summary/1):
 * a summary.json is read as it is; a log is parsed (both at once, on two threads), into its
 * own report in the diff folder (OUT/before/, OUT/after/) or, for --summary and --json, into
 * its diagnosis only. The summaries are compared (model/diff.c) and the diff is written as a
 * page and diff.json in OUT, or returned as text or JSON.
 */
#include "base/config.h"
#include "modes/modes.h"
#include "modes/plan.h"
#include "input/reportdir.h"
#include "base/pool.h"
#include "base/xalloc.h"
#include "model/diff.h"
#include "output/outdir.h"
#include "report/diff.h"
#include "report/summary.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum side_kind {
    SIDE_LOG,     /* a trace or a TORCH_LOGS text (a file, a folder of logs, "-") */
    SIDE_SUMMARY, /* a summary.json */
    SIDE_REPORT,  /* a report folder: its summary.json */
};

struct side_job {
    const struct tl_diff_options *dopt;
    const char *label; /* "before", "after" */
    const char *path;
    enum side_kind kind;
    struct tl_outdir *out; /* the diff folder; NULL without one */
    int rc;                /* 0, or -1 with err */
    struct tl_err err;
    struct tl_buf json; /* its summary */
    char *report;       /* its report folder as the JSON names it; NULL: none */
    char *report_abs;   /* the same, absolute (for the page's links); NULL: none */
    struct tl_diff_side side;
};

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A file that starts (after spaces) with '{' and names the summary schema near its start. */
static bool looks_like_summary(const char *path)
{
    if (!strcmp(path, "-") || !is_file(path))
        return false;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    size_t i = strspn(buf, " \t\r\n");
    return buf[i] == '{' && strstr(buf, "\"schema\"") &&
           (strstr(buf, "\"tlparse-summary/") || strstr(buf, "\"tlparse-ranks/"));
}

static enum side_kind classify(const char *path)
{
    if (is_dir(path)) {
        struct tl_buf s = TL_BUF_INIT;
        tl_buf_addf(&s, "%s/summary.json", path);
        bool report = looks_like_summary(s.buf);
        tl_buf_release(&s);
        return report ? SIDE_REPORT : SIDE_LOG;
    }
    return looks_like_summary(path) ? SIDE_SUMMARY : SIDE_LOG;
}

/* The folder of a summary.json when it is a report's (index.html beside it); else NULL. */
static char *report_of_summary(const char *summary_path)
{
    char *dir = tl_xstrdup(summary_path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    struct tl_buf idx = TL_BUF_INIT;
    tl_buf_addf(&idx, "%s/index.html", dir);
    bool ok = is_file(idx.buf);
    tl_buf_release(&idx);
    if (!ok) {
        free(dir);
        return NULL;
    }
    return dir;
}

static void say(const struct tl_diff_options *opt, enum tl_message_kind kind, const char *line)
{
    tl_message_emit(opt->message, opt->message_ctx, kind, line);
}

/* A side's messages, said to be its own: the two sides are read at once, and each says its
 * Stats line. */
static void side_message(void *ctx, enum tl_message_kind kind, const char *line)
{
    const struct side_job *j = ctx;
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_addf(&b, "%s: %s", j->label, line);
    say(j->dopt, kind, b.buf);
    tl_buf_release(&b);
}

/* A log's summary, made from the engine's finished model: the bytes its report's
 * summary.json holds (the summary sink writes them with the same call), kept in memory. */
struct side_done {
    struct side_job *j;
    const char *name;
    const char *kind; /* "torch_trace", "torch_logs" */
};

static void keep_side_summary(void *ctx, const struct tl_model *model,
                              const struct tl_runinfo *info)
{
    const struct side_done *s = ctx;
    struct tl_summary_source src = {s->name, s->kind, NULL, info};
    tl_buf_reset(&s->j->json);
    tl_summary_json(&s->j->json, &model->diag, &src, true);
}

/* A log (a trace, or TORCH_LOGS text) into its report in sub, its summary taken from the
 * model as the run ends. */
static int side_report(struct side_job *j, const struct tl_options *opt, struct tl_reader *reader,
                       const char *path, bool text, struct tl_outdir *sub)
{
    const char *name = path ? path : "<memory>";
    struct tl_engine_job job = {
        .opt = opt, .reader = reader, .path = path, .name = name, .out = sub, .text = text};
    struct tl_log_sinks params;
    tl_log_sinks(&job, &params, NULL);
    struct side_done done = {j, name, text ? "torch_logs" : "torch_trace"};
    job.done = keep_side_summary;
    job.done_ctx = &done;
    struct tl_engine_result sum;
    int rc = tl_engine_run(&job, &sum, &j->err);
    free(sum.summary);
    if (rc == 0)
        rc = tl_log_check_entries(name, &sum, &j->err);
    return rc;
}

/* A log side: parsed into out/<label>/ (its report), or into its diagnosis alone. */
static int side_log(struct side_job *j)
{
    const struct tl_diff_options *d = j->dopt;
    struct tl_options opt;
    tl_plan_diff_side_options(&opt, d, j->path, j->out != NULL,
                              (struct tl_plan_messages){side_message, j});
    struct tl_messages msg = {.opt = &opt, .input = j->path};
    char *path = NULL;
    struct tl_reader *reader = NULL;
    if (tl_open_log(&opt, &msg, &path, &reader, &j->err) < 0) {
        free(path);
        return -1;
    }
    struct tl_engine_result sum;
    if (!j->out) {
        int rc = tl_run_log(&opt, reader, path, NULL, &sum, &j->err);
        free(path);
        if (rc == 0 && sum.summary)
            tl_buf_adds(&j->json, sum.summary);
        free(sum.summary);
        return rc;
    }
    struct tl_outdir sub;
    if (tl_outdir_open_sub(j->out, j->label, &sub, &j->err) < 0) {
        tl_reader_free(reader);
        free(path);
        return -1;
    }
    /* What is no log is said as a one-log run says it. */
    enum tl_sniff_kind kind;
    int rc = tl_log_sniff(reader, path ? path : "<memory>", &kind, &j->err);
    if (rc < 0)
        tl_reader_free(reader);
    else
        rc = side_report(j, &opt, reader, path, kind == TL_SNIFF_TEXT, &sub);
    free(path);
    return tl_output_end(&sub, rc, j->dopt->cancel, &j->err);
}

static void side_job(void *ctx, size_t i)
{
    struct side_job *j = &((struct side_job *)ctx)[i];
    if (tl_stop_asked(j->dopt->cancel)) {
        j->rc = tl_error_code(&j->err, TL_ERR_SIGNAL, "interrupted");
        return;
    }
    const char *kind = NULL;
    if (j->kind == SIDE_LOG) {
        j->rc = side_log(j);
    } else {
        struct tl_buf p = TL_BUF_INIT;
        if (j->kind == SIDE_REPORT)
            tl_buf_addf(&p, "%s/summary.json", j->path);
        else
            tl_buf_adds(&p, j->path);
        j->rc = tl_summary_file_read(p.buf, &j->json, &j->err);
        j->report = j->kind == SIDE_REPORT ? tl_xstrdup(j->path) : report_of_summary(p.buf);
        tl_buf_release(&p);
        kind = "summary";
    }
    if (j->rc == 0)
        j->rc = tl_diff_side_read(&j->side, j->path, kind, j->report, j->json.buf, j->json.len,
                                  &j->err);
    if (j->rc == 0 && !kind) /* a log: what it was made from */
        j->side.kind = j->side.source_kind;
}

/* The absolute form of path (which exists), or NULL. */
static char *absolute(const char *path)
{
    char *r = realpath(path, NULL);
    return r;
}

/*
 * href of folder `to` from folder `from` (both absolute, no "." or ".." parts): "../x/y/".
 */
static void relative_href(struct tl_buf *out, const char *from, const char *to)
{
    size_t common = 0, i = 0;
    while (from[i] && from[i] == to[i]) {
        i++;
        if (from[i - 1] == '/')
            common = i;
    }
    if ((!from[i] || from[i] == '/') && (!to[i] || to[i] == '/'))
        common = i;
    for (const char *p = from + common; *p;) {
        if (*p == '/') {
            p++;
            continue;
        }
        tl_buf_adds(out, "../");
        while (*p && *p != '/')
            p++;
    }
    const char *rest = to + common;
    while (*rest == '/')
        rest++;
    /* percent-encode what a URL path cannot hold as it is */
    for (const char *p = rest; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c <= ' ' || c == '%' || c == '#' || c == '?' || c == '"' || c >= 0x7f)
            tl_buf_addf(out, "%%%02X", c);
        else
            tl_buf_addch(out, (char)c);
    }
    if (*rest)
        tl_buf_addch(out, '/');
}

static void fill_tally(struct tl_diff_tally *t, const struct tl_diff *d)
{
    struct tl_diff_counts c;
    tl_diff_counts(d, &c);
    memset(t, 0, sizeof(*t));
    t->new_failures = c.added[TL_DIFF_FAILURES] + c.more[TL_DIFF_FAILURES];
    t->new_recompiles = c.added[TL_DIFF_RECOMPILES] + c.more[TL_DIFF_RECOMPILES];
    t->new_graph_breaks = c.added[TL_DIFF_BREAKS] + c.more[TL_DIFF_BREAKS];
    t->new_specializations = c.added[TL_DIFF_SPECS] + c.more[TL_DIFF_SPECS];
    t->fixed_failures = c.fixed[TL_DIFF_FAILURES];
    t->fixed_recompiles = c.fixed[TL_DIFF_RECOMPILES];
    t->fixed_graph_breaks = c.fixed[TL_DIFF_BREAKS];
    t->fixed_specializations = c.fixed[TL_DIFF_SPECS];
    t->frames_more = c.frames_more;
    t->frames_fewer = c.frames_fewer;
    t->before_s = d->before->has_time ? d->before->total_s : -1;
    t->after_s = d->after->has_time ? d->after->total_s : -1;
}

static int fail(const struct tl_diff_options *opt, const struct tl_err *err)
{
    struct tl_buf b = TL_BUF_INIT;
    int code = err->code == TL_ERR_SIGNAL  ? TL_EXIT_INTERRUPTED
               : err->code == TL_ERR_USAGE ? TL_EXIT_USAGE
                                           : TL_EXIT_ERROR;
    if (err->code == TL_ERR_SIGNAL)
        tl_buf_adds(&b, "tlparse: interrupted; no diff written");
    else
        tl_buf_addf(&b, "tlparse: error: %s", err->msg);
    say(opt, TL_MSG_ERROR, b.buf);
    tl_buf_release(&b);
    return code;
}

/* The page and diff.json, into the open diff folder. */
static int write_folder(const struct tl_diff_options *opt, struct tl_outdir *out,
                        const char *out_dir, struct side_job *jobs, const struct tl_diff *d,
                        struct tl_err *err)
{
    /* Links to each side's report, relative to where the diff folder will be. */
    char *parent_abs = NULL;
    {
        char *dup = tl_xstrdup(out_dir);
        char *slash = strrchr(dup, '/');
        const char *base = slash ? slash + 1 : dup;
        if (slash)
            *slash = '\0';
        char *p = absolute(slash ? (dup[0] ? dup : "/") : ".");
        if (p) {
            struct tl_buf b = TL_BUF_INIT;
            tl_buf_addf(&b, "%s/%s", strcmp(p, "/") ? p : "", base);
            parent_abs = tl_buf_detach(&b, NULL);
            free(p);
        }
        free(dup);
    }
    struct tl_buf href[2] = {TL_BUF_INIT, TL_BUF_INIT};
    struct tl_diff_links links = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        struct side_job *j = &jobs[i];
        if (j->kind == SIDE_LOG) {
            tl_buf_addf(&href[i], "%s/", j->label);
        } else if (j->report_abs && parent_abs) {
            relative_href(&href[i], parent_abs, j->report_abs);
            if (!href[i].len)
                tl_buf_adds(&href[i], "./");
        } else {
            continue;
        }
        if (i == 0)
            links.before = href[i].buf;
        else
            links.after = href[i].buf;
    }
    struct tl_runinfo info;
    memset(&info, 0, sizeof(info));
    info.version = tl_version();
    info.revision = tl_version_revision();
    info.command_line = opt->command_line;
    struct tl_buf page = TL_BUF_INIT, json = TL_BUF_INIT;
    tl_diff_page(&page, d, &links, &info);
    tl_diff_json(&json, d);
    int rc = tl_outdir_write(out, "index.html", page.buf, page.len, NULL, err);
    if (rc == 0)
        rc = tl_outdir_write(out, "diff.json", json.buf, json.len, NULL, err);
    tl_buf_release(&page);
    tl_buf_release(&json);
    tl_buf_release(&href[0]);
    tl_buf_release(&href[1]);
    free(parent_abs);
    return rc;
}

/* Both sides at once (on two threads when both are logs): 0, or -1 with err the first side's
 * error. */
static int run_sides(const struct tl_diff_options *opt, struct side_job jobs[2],
                     struct tl_outdir *out, struct tl_err *err)
{
    const char *paths[2] = {opt->before, opt->after};
    static const char *const labels[2] = {"before", "after"};
    for (int i = 0; i < 2; i++) {
        jobs[i].dopt = opt;
        jobs[i].label = labels[i];
        jobs[i].path = paths[i];
        jobs[i].kind = classify(paths[i]);
        jobs[i].json = (struct tl_buf)TL_BUF_INIT;
        jobs[i].err.code = TL_ERR_NONE;
        jobs[i].out = out;
    }
    bool threads = !opt->no_threads && jobs[0].kind == SIDE_LOG && jobs[1].kind == SIDE_LOG;
    tl_pool_run(2, threads ? 2 : 1, side_job, jobs);
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++)
        if (jobs[i].rc < 0) {
            *err = jobs[i].err;
            rc = -1;
        }
    if (rc == 0 && tl_stop_asked(opt->cancel))
        rc = tl_error_code(err, TL_ERR_SIGNAL, "interrupted");
    for (int i = 0; i < 2; i++)
        if (jobs[i].report)
            jobs[i].report_abs = absolute(jobs[i].report);
    return rc;
}

/* The diff of the two sides: into the folder (out not NULL), else as text or JSON. */
static int compare(const struct tl_diff_options *opt, struct side_job jobs[2],
                   struct tl_outdir *out, const char *out_dir, struct tl_diff *d,
                   struct tl_diff_result *res, struct tl_err *err)
{
    /* a log's report is the diff folder's before/ and after/ */
    for (int i = 0; i < 2; i++)
        if (jobs[i].kind == SIDE_LOG && out) {
            struct tl_buf r = TL_BUF_INIT;
            tl_buf_addf(&r, "%s/%s", out_dir, jobs[i].label);
            jobs[i].side.report = tl_arena_memdupz(&jobs[i].side.arena, r.buf, r.len);
            tl_buf_release(&r);
        }
    tl_diff_compute(d, &jobs[0].side, &jobs[1].side);
    res->has_tally = true;
    fill_tally(&res->tally, d);
    if (out)
        return write_folder(opt, out, out_dir, jobs, d, err);
    struct tl_buf b = TL_BUF_INIT;
    if (opt->summary == TL_SUMMARY_JSON)
        tl_diff_json(&b, d);
    else
        tl_diff_text(&b, d, opt->color);
    res->summary = tl_buf_detach(&b, NULL);
    return 0;
}

void tl_diff_result_release(struct tl_diff_result *res)
{
    if (!res)
        return;
    free(res->index_path);
    free(res->summary);
    memset(res, 0, sizeof(*res));
}

static int diff_run(const struct tl_diff_options *opt, struct tl_diff_result *res);

int tl_diff_run(const struct tl_diff_options *caller, struct tl_diff_result *res)
{
    struct tl_diff_result ignored;
    struct tl_diff_options opt;
    size_t n = caller->size ? caller->size : sizeof(opt);
    memset(&opt, 0, sizeof(opt));
    memcpy(&opt, caller, n < sizeof(opt) ? n : sizeof(opt));
    opt.size = (uint32_t)sizeof(opt);
    if (n > sizeof(opt) || n < sizeof(opt.size)) {
        if (res)
            memset(res, 0, sizeof(*res));
        struct tl_err err = {TL_ERR_NONE, ""};
        tl_error_code(&err, TL_ERR_USAGE,
                      "struct tl_diff_options of %zu bytes: this libtlparse %s knows %zu (the "
                      "program was built against another tlparse.h)",
                      n, TL_VERSION, sizeof(opt));
        return fail(&opt, &err);
    }
    int rc = diff_run(&opt, res ? res : &ignored);
    if (!res)
        tl_diff_result_release(&ignored);
    return rc;
}

static int diff_run(const struct tl_diff_options *opt, struct tl_diff_result *res)
{
    memset(res, 0, sizeof(*res));
    struct tl_err err = {TL_ERR_NONE, ""};
    if (!opt->before || !opt->after) {
        tl_error_code(&err, TL_ERR_USAGE, "diff wants two runs: BEFORE and AFTER");
        return fail(opt, &err);
    }
    if (!strcmp(opt->before, "-") && !strcmp(opt->after, "-")) {
        tl_error_code(&err, TL_ERR_USAGE, "only one side of a diff can be standard input");
        return fail(opt, &err);
    }
    const char *out_dir = opt->out_dir ? opt->out_dir : "tl_diff";
    bool folder = opt->summary == TL_SUMMARY_NONE;
    struct tl_outdir out;
    if (folder && tl_outdir_open(&out, out_dir, opt->overwrite, &err) < 0)
        return fail(opt, &err);
    struct side_job jobs[2];
    memset(jobs, 0, sizeof(jobs));
    struct tl_diff d;
    memset(&d, 0, sizeof(d));
    int rc = run_sides(opt, jobs, folder ? &out : NULL, &err);
    if (rc == 0)
        rc = compare(opt, jobs, folder ? &out : NULL, out_dir, &d, res, &err);
    if (folder) {
        rc = tl_output_end(&out, rc, opt->cancel, &err);
        if (rc == 0)
            res->index_path = tl_index_path(out_dir);
    }
    tl_diff_release(&d);
    for (int i = 0; i < 2; i++) {
        tl_diff_side_release(&jobs[i].side);
        tl_buf_release(&jobs[i].json);
        free(jobs[i].report);
        free(jobs[i].report_abs);
    }
    if (rc < 0) {
        res->has_tally = false;
        return fail(opt, &err);
    }
    return TL_EXIT_OK;
}
