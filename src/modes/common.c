/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The steps the modes share (modes.h): open the log and tell what it is, choose the sinks of
 * a trace's report, make the --summary text of a diagnosis, apply --strict.
 */
#include "base/config.h"
#include "modes/modes.h"
#include "input/locate.h"
#include "report/summary.h"

#include <string.h>

int tl_open_log(const struct tl_options *opt, struct tl_messages *msg, char **path,
                struct tl_reader **reader, struct tl_err *err)
{
    *path = NULL;
    if (opt->mem_input) {
        *reader = tl_reader_open_mem(opt->mem_input, opt->mem_len);
        return 0;
    }
    long others;
    if (tl_input_locate(opt->path, opt->latest, path, &others, err) < 0)
        return -1;
    if (others == 0)
        tl_say(msg, TL_MSG_INFO, "tlparse: parsing %s, the only file in %s", *path, opt->path);
    else if (others > 0)
        tl_say(msg, TL_MSG_INFO,
               "tlparse: parsing %s, the newest log in %s (%ld other file%s skipped)", *path,
               opt->path, others, others == 1 ? "" : "s");
    return tl_log_open_file(opt, *path, reader, err);
}

int tl_log_open_file(const struct tl_options *opt, const char *path, struct tl_reader **reader,
                     struct tl_err *err)
{
    if (tl_reader_open(reader, path, err) < 0)
        return -1;
    if (opt->complete_lines && tl_reader_complete_lines(*reader, err) < 0) {
        tl_reader_free(*reader);
        *reader = NULL;
        return -1;
    }
    return 0;
}

int tl_log_sniff(struct tl_reader *reader, const char *name, enum tl_sniff_kind *kind,
                 struct tl_err *err)
{
    const char *p;
    size_t n;
    if (tl_reader_peek(reader, TL_SNIFF_WINDOW, &p, &n, err) < 0)
        return -1;
    char why[256];
    *kind = tl_sniff(p, n, n < TL_SNIFF_WINDOW, why, sizeof(why));
    if (*kind == TL_SNIFF_EMPTY && tl_reader_truncated(reader))
        return tl_error_code(err, TL_ERR_INPUT,
                             "%s is truncated (its %s data is cut off) before its first line: "
                             "nothing could be read",
                             name, tl_reader_kind(reader) == TL_READER_GZIP ? "gzip" : "zstd");
    if (*kind == TL_SNIFF_NOT_LOG)
        return tl_error_code(err, TL_ERR_INPUT,
                             "%s is not a TORCH_TRACE log or TORCH_LOGS text: %s", name, why);
    return 0;
}

int tl_log_is_text(struct tl_reader *reader, bool *text, struct tl_err *err)
{
    const char *p;
    size_t n;
    if (tl_reader_peek(reader, TL_SNIFF_WINDOW, &p, &n, err) < 0)
        return -1;
    *text = tl_sniff(p, n, n < TL_SNIFF_WINDOW, NULL, 0) == TL_SNIFF_TEXT;
    return 0;
}

int tl_log_check_entries(const char *name, const struct tl_engine_result *sum, struct tl_err *err)
{
    if (!sum->no_entries)
        return 0;
    const char *what = "TORCH_TRACE entry (JSON after a glog prefix)";
    if (sum->lines == 1)
        return tl_error_code(err, TL_ERR_INPUT,
                             "%s is not a TORCH_TRACE log or TORCH_LOGS text: its one line holds "
                             "no %s",
                             name, what);
    return tl_error_code(err, TL_ERR_INPUT,
                         "%s is not a TORCH_TRACE log or TORCH_LOGS text: none of its %llu lines "
                         "holds a %s",
                         name, (unsigned long long)sum->lines, what);
}

void tl_log_sinks(struct tl_engine_job *job, struct tl_log_sinks *p,
                  const struct tl_rank_params *rank)
{
    const struct tl_options *opt = job->opt;
    memset(p, 0, sizeof(*p));
    if (!job->out)
        return; /* --summary, --json */
    if (job->text) {
        tl_engine_job_add(job, &tl_sink_textlog, NULL);
        if (job->path && tl_reader_kind(job->reader) == TL_READER_PLAIN &&
            !tl_reader_is_stream(job->reader))
            p->rawlog.copy_path = job->path;
        tl_engine_job_add(job, &tl_sink_rawlog, &p->rawlog);
        tl_engine_job_add(job, &tl_sink_summary, NULL);
        return;
    }
    if (opt->export_mode) {
        tl_engine_job_add(job, &tl_sink_export, NULL);
        tl_engine_job_add(job, &tl_sink_payloads, NULL);
        tl_engine_job_add(job, &tl_sink_summary, NULL);
        return;
    }
    p->report.collectives_parity = rank != NULL; /* the rank's sink writes it */
    tl_engine_job_add(job, &tl_sink_report, &p->report);
    if (opt->nparsers)
        tl_engine_job_add(job, &tl_sink_custom, NULL);
    tl_engine_job_add(job, &tl_sink_payloads, NULL);
    /* A redacted report leaves out the log itself, as logged and as JSON lines. */
    if (!opt->redact) {
        tl_engine_job_add(job, &tl_sink_rawjsonl, &p->rawjsonl);
        /* A plain file is copied by the kernel; anything else as it is read. */
        if (job->path && tl_reader_kind(job->reader) == TL_READER_PLAIN &&
            !tl_reader_is_stream(job->reader))
            p->rawlog.copy_path = job->path;
        tl_engine_job_add(job, &tl_sink_rawlog, &p->rawlog);
    }
    if (opt->inductor_provenance)
        tl_engine_job_add(job, &tl_sink_provenance, NULL);
    if (rank) {
        p->rank = *rank;
        tl_engine_job_add(job, &tl_sink_rank, &p->rank);
    } else {
        tl_engine_job_add(job, &tl_sink_summary, NULL);
    }
}

char *tl_summary_of(const struct tl_options *opt, const struct tl_diag *d, const char *input,
                    const char *kind, const struct tl_runinfo *info)
{
    struct tl_buf b = TL_BUF_INIT;
    struct tl_summary_source src = {input, kind, NULL, info};
    if (opt->summary == TL_SUMMARY_JSON)
        tl_summary_json(&b, d, &src, true);
    else
        tl_summary_text(&b, d, &src, opt->color);
    return tl_buf_detach(&b, NULL);
}

int tl_output_extras(const struct tl_options *opt, struct tl_outdir *out, struct tl_err *err)
{
    for (size_t i = 0; i < opt->nextra_files; i++) {
        const struct tl_extra_file *f = &opt->extra_files[i];
        if (!f->name || !f->name[0] || f->name[0] == '.' || strchr(f->name, '/'))
            return tl_error_code(err, TL_ERR_USAGE, "an extra file of the report is named %s",
                                 f->name ? f->name : "(null)");
        if (tl_outdir_write(out, f->name, f->data, f->len, NULL, err) < 0)
            return -1;
    }
    return 0;
}

int tl_output_end(struct tl_outdir *out, int rc, struct tl_err *err)
{
    if (rc == 0 && tl_interrupted)
        rc = tl_error_code(err, TL_ERR_SIGNAL, "interrupted");
    if (rc == 0)
        return tl_outdir_commit(out, err);
    tl_outdir_abort(out);
    return -1;
}

/* Export mode never fails on them, as in the reference: an export trace's problems are the
 * report (and the corpus's export logs have a payload whose md5 PyTorch wrote wrong). */
bool tl_strict_failed(const struct tl_options *opt, const struct tl_engine_result *sum)
{
    if (opt->export_mode)
        return false;
    return (opt->strict && (tl_stats_strict_failures(&sum->stats) || sum->truncated)) ||
           (opt->strict_compile_id && sum->saw_unknown_cid);
}

bool tl_nothing_to_check(const struct tl_options *opt, struct tl_messages *msg,
                         const struct tl_engine_result *sum)
{
    if (!sum->nothing[0] || !tl_engine_content_required(opt))
        return false;
    tl_say(msg, TL_MSG_ERROR, "tlparse: error: %s: %s holds nothing to check: %s",
           opt->strict && !opt->export_mode ? "--strict" : "--fail-on",
           msg->input ? msg->input : "the log", sum->nothing);
    return true;
}

int tl_strict_exit(const struct tl_options *opt, struct tl_messages *msg,
                   const struct tl_engine_result *sum)
{
    int code = TL_EXIT_OK;
    if (tl_nothing_to_check(opt, msg, sum))
        code = TL_EXIT_ERROR;
    if (!tl_strict_failed(opt, sum))
        return code;
    if (opt->strict && tl_stats_strict_failures(&sum->stats)) {
        tl_say(msg, TL_MSG_ERROR,
               "tlparse: error: Something went wrong (--strict: the log has problems; see the "
               "Stats line)");
        code = TL_EXIT_ERROR;
    } else if (opt->strict && sum->truncated) {
        tl_say(msg, TL_MSG_ERROR, "tlparse: error: --strict: the log is truncated");
        code = TL_EXIT_ERROR;
    }
    if (opt->strict_compile_id && sum->saw_unknown_cid) {
        tl_say(msg, TL_MSG_ERROR, "tlparse: error: Some log entries did not have compile id");
        code = TL_EXIT_ERROR;
    }
    return code;
}
