/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One log into one report (or into --summary's text): find the log (a folder gives its
 * newest), tell what it is, open the report folder (a hidden temporary folder beside the
 * target), run it through the engine with the sinks of its report (a trace) or through the
 * TORCH_LOGS text reader (text.c), apply --strict, commit the report into place or remove it.
 */
#include "base/config.h"
#include "modes/modes.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void keep_summary(void *ctx, const struct tl_model *model, const struct tl_runinfo *info)
{
    struct tl_log_run *lr = ctx;
    lr->summary = tl_summary_of(lr->job.opt, &model->diag, lr->job.name,
                                lr->job.text ? "torch_logs" : "torch_trace", info);
}

int tl_log_run_init(struct tl_log_run *lr, const struct tl_options *opt, struct tl_reader *reader,
                    const char *path, const char *name, struct tl_outdir *out, bool text,
                    struct tl_err *err)
{
    memset(lr, 0, sizeof(*lr));
    if (text && opt->redact)
        return tl_error_code(err, TL_ERR_USAGE,
                             "--redact reads structured traces (TORCH_TRACE) only, and %s is "
                             "TORCH_LOGS text: share its --summary, or the trace",
                             name);
    lr->job = (struct tl_engine_job){
        .opt = opt, .reader = reader, .path = path, .name = name, .out = out, .text = text};
    tl_log_sinks(&lr->job, &lr->params, NULL);
    if (opt->summary != TL_SUMMARY_NONE) {
        lr->job.done = keep_summary;
        lr->job.done_ctx = lr;
    }
    return 0;
}

int tl_run_log(const struct tl_options *opt, struct tl_reader *reader, const char *path,
               struct tl_outdir *out, struct tl_engine_result *sum, struct tl_err *err)
{
    const char *name = path ? path : "<memory>";
    enum tl_sniff_kind kind;
    struct tl_log_run lr;
    if (tl_log_sniff(reader, name, &kind, err) < 0 ||
        tl_log_run_init(&lr, opt, reader, path, name, out, kind == TL_SNIFF_TEXT, err) < 0) {
        memset(sum, 0, sizeof(*sum));
        tl_reader_free(reader);
        return -1;
    }
    int rc = tl_engine_run(&lr.job, sum, err);
    sum->summary = lr.summary;
    if (rc < 0)
        return -1;
    return tl_log_check_entries(name, sum, err);
}

/* --summary, --json: the diagnosis, and no report. */
static int summary_only(const struct tl_options *opt, struct tl_reader *reader, char *path,
                        struct tl_result *res)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_engine_result sum;
    int rc = tl_run_log(opt, reader, path, NULL, &sum, &err);
    if (rc == 0 && tl_stop_asked(opt->cancel))
        rc = tl_error_code(&err, TL_ERR_SIGNAL, "interrupted");
    res->bytes_in = sum.bytes_in;
    res->lines = sum.lines;
    if (rc < 0) {
        /* no diagnosis of what is no log */
        free(path);
        free(sum.summary);
        return tl_report_error(opt, &err);
    }
    res->summary = sum.summary;
    res->has_counts = true;
    res->counts = sum.counts;
    /* --strict means the same as with a report: the diagnosis is printed, the exit code 1 */
    struct tl_messages msg = {.opt = opt, .input = path ? path : "<memory>"};
    int code = tl_strict_exit(opt, &msg, &sum);
    free(path);
    return code;
}

int tl_single_run(const struct tl_options *opt, size_t ranks, struct tl_result *res,
                  char **log_read)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_messages msg = {.opt = opt};
    char *path = NULL;
    struct tl_reader *reader = NULL;
    if (tl_open_log(opt, &msg, &path, &reader, &err) < 0) {
        free(path);
        return tl_report_error(opt, &err);
    }
    /* Not a log: said before anything is written (or an existing folder is named). */
    enum tl_sniff_kind kind;
    if (tl_log_sniff(reader, path ? path : "<memory>", &kind, &err) < 0) {
        tl_reader_free(reader);
        free(path);
        return tl_report_error(opt, &err);
    }
    struct tl_options o = *opt;
    o.out_dir = opt->out_dir ? opt->out_dir : "tl_out";
    if (opt->summary != TL_SUMMARY_NONE)
        return summary_only(&o, reader, path, res);
    struct tl_outdir out;
    if (tl_output_open(&o, &out, &err) < 0) {
        tl_reader_free(reader);
        free(path);
        return tl_report_error(opt, &err);
    }
    if (ranks > 1) {
        res->newest_of = (uint32_t)ranks;
        tl_say(&msg, TL_MSG_INFO,
               "tlparse: %s holds the logs of %zu ranks; this report is of the newest "
               "(--all-ranks-html reports on all)",
               opt->path, ranks);
    }
    tl_output_say_leftovers(&out, &msg, o.out_dir);
    struct tl_engine_result sum;
    memset(&sum, 0, sizeof(sum));
    int rc = tl_output_extras(opt, &out, &err);
    if (rc == 0)
        rc = tl_run_log(&o, reader, path, &out, &sum, &err);
    else
        tl_reader_free(reader);
    res->bytes_in = sum.bytes_in;
    res->lines = sum.lines;
    res->has_counts = rc == 0;
    res->counts = sum.counts;
    msg.input = path ? path : "<memory>";
    int code = rc == 0 ? tl_strict_exit(opt, &msg, &sum) : TL_EXIT_OK;
    rc = tl_output_end(&out, rc, opt->cancel, &err);
    if (rc == 0 && code == TL_EXIT_OK && ranks > 1 && opt->all_ranks_counts && path && log_read)
        *log_read = tl_xstrdup(path);
    if (rc == 0 && o.bundle)
        res->bundle_path = tl_xstrdup(o.bundle);
    else if (rc == 0)
        res->index_path = tl_index_path(o.out_dir);
    free(path);
    return rc < 0 ? tl_report_error(opt, &err) : code;
}
