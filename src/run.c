/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tl_run(), in stages: check the options; find the log (a folder gives its newest); open it;
 * open the report folder (a hidden temporary folder beside the target); parse the log into
 * it (log.c); apply --strict; commit the report into place, or remove it on any failure.
 */
#include "base/config.h"
#include "run.h"
#include "input/locate.h"
#include "input/sniff.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern const char tl_revision[]; /* revision.c, written by cmake/Revision.cmake */

volatile sig_atomic_t tl_interrupted;

const char *tl_version(void)
{
    return TL_VERSION;
}

const char *tl_version_revision(void)
{
    return tl_revision;
}

void tl_runinfo_fill(struct tl_runinfo *ri, const struct tl_options *opt, const char *path,
                     const char *name)
{
    memset(ri, 0, sizeof(*ri));
    ri->version = TL_VERSION;
    ri->revision = tl_revision;
    ri->command_line = opt->command_line;
    ri->input = name;
    struct stat st;
    if (path && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        ri->has_stat = true;
        ri->input_size = (uint64_t)st.st_size;
        ri->input_mtime = (int64_t)st.st_mtime;
    }
}

void tl_counts_of(struct tl_counts *out, const struct tl_diag *d)
{
    struct tl_diag_counts c;
    tl_diag_counts(d, &c);
    out->compile_ids = c.compile_ids;
    out->graph_breaks = c.graph_breaks;
    out->recompiles = c.recompiles;
    out->specializations = c.specializations;
    out->failures = c.failures;
    out->recompile_limits = c.limits;
    out->export_problems = c.export_problems;
    out->compile_time_s = c.have_times ? c.total_s : -1;
}

/* Options that do not go together. */
static int check_modes(const struct tl_options *opt, struct tl_err *err)
{
    if (opt->all_ranks_html && opt->latest)
        return tl_error_code(err, TL_ERR_INPUT, "--latest cannot be used with --all-ranks-html");
    const char *clash =
        opt->all_ranks_html && opt->rank_only         ? "--rank-only with --all-ranks-html"
        : opt->from_summaries && !opt->all_ranks_html ? "--from-summaries without --all-ranks-html"
        : opt->from_summaries && opt->out_dir
            ? "-o with --from-summaries (the landing page goes into PATH)"
        : opt->has_rank && !opt->rank_only ? "--rank without --rank-only"
        : opt->rank_only && opt->latest    ? "--latest with --rank-only"
        : opt->rank_only && opt->summary
            ? "--summary or --json with --rank-only (it writes summary.json)"
        : opt->from_summaries && opt->summary
            ? "--summary or --json with --from-summaries (it writes the landing "
              "page)"
        : opt->summary && opt->out_dir ? "-o with --summary or --json (they write no report)"
        : opt->summary && opt->overwrite
            ? "--overwrite with --summary or --json (they write no report)"
        : opt->summary && opt->custom_header_html
            ? "--custom-header-html with --summary or --json (they write no "
              "report)"
        : opt->summary && opt->plain_text
            ? "--plain-text with --summary or --json (they write no report)"
        : opt->summary && opt->inductor_provenance
            ? "--inductor-provenance with --summary or --json (they write no "
              "report)"
        : (opt->all_ranks_html || opt->rank_only) && opt->export_mode
            ? "--export with a multi-rank run (an export trace is one process's)"
            : NULL;
    if (clash)
        return tl_error_code(err, TL_ERR_USAGE, "cannot use %s", clash);
    return 0;
}

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
    if (others >= 0)
        tl_say(msg, TL_MSG_INFO,
               "tlparse: parsing %s, the newest log in %s (%ld other file%s skipped)", *path,
               opt->path, others, others == 1 ? "" : "s");
    return tl_reader_open(reader, *path, err);
}

void tl_say_truncated(void *msg, const char *format, uint64_t lines)
{
    struct tl_messages *m = msg;
    if (!lines) {
        tl_say(m, TL_MSG_WARNING,
               "tlparse: warning: %s is truncated (its %s data is cut off): no line of it could "
               "be read",
               m->input, format);
        return;
    }
    tl_say(m, TL_MSG_WARNING,
           "tlparse: warning: %s is truncated (its %s data is cut off): only its first %llu "
           "line%s could be read",
           m->input, format, (unsigned long long)lines, lines == 1 ? "" : "s");
}

/* A text log cut off (textlog.c reads it): said, and marked for --strict. */
static void text_truncated(void *msg, const char *format, uint64_t lines)
{
    struct tl_messages *m = msg;
    m->warned[TL_W_TRUNCATED]++;
    tl_say_truncated(m, format, lines);
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

int tl_log_check_entries(const char *name, const struct tl_log_summary *sum, struct tl_err *err)
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

int tl_run_log(const struct tl_options *opt, struct tl_reader *reader, const char *path,
               struct tl_outdir *out, struct tl_log_summary *sum, struct tl_err *err)
{
    const char *name = path ? path : "<memory>";
    enum tl_sniff_kind kind;
    if (tl_log_sniff(reader, name, &kind, err) < 0) {
        memset(sum, 0, sizeof(*sum));
        tl_reader_free(reader);
        return -1;
    }
    bool text = kind == TL_SNIFF_TEXT;
    if (text && opt->redact) {
        memset(sum, 0, sizeof(*sum));
        tl_reader_free(reader);
        return tl_error_code(err, TL_ERR_USAGE,
                             "--redact reads structured traces (TORCH_TRACE) only, and %s is "
                             "TORCH_LOGS text: share its --summary, or the trace",
                             name);
    }
    if (text) {
        struct tl_messages msg = {.opt = opt, .input = name};
        tl_reader_on_truncated(reader, text_truncated, &msg);
        int rc = tl_textlog_run(opt, reader, name, out, sum, err);
        sum->truncated = msg.warned[TL_W_TRUNCATED] > 0;
        return rc;
    }
    struct tl_log_job job = {.opt = opt, .reader = reader, .path = path, .name = name, .out = out};
    if (tl_log_run(&job, sum, err) < 0)
        return -1;
    return tl_log_check_entries(name, sum, err);
}

/* Export mode never fails on them, as in the reference: an export trace's problems are the
 * report (and the corpus's export logs have a payload whose md5 PyTorch wrote wrong). */
bool tl_strict_failed(const struct tl_options *opt, const struct tl_log_summary *sum)
{
    if (opt->export_mode)
        return false;
    return (opt->strict && (tl_stats_strict_failures(&sum->stats) || sum->truncated)) ||
           (opt->strict_compile_id && sum->saw_unknown_cid);
}

int tl_strict_exit(const struct tl_options *opt, struct tl_messages *msg,
                   const struct tl_log_summary *sum)
{
    int code = TL_EXIT_OK;
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

/* --summary, --json: the diagnosis, and no report. */
static int summary_only(const struct tl_options *opt, struct tl_reader *reader, char *path,
                        struct tl_result *res)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_log_summary sum;
    int rc = tl_run_log(opt, reader, path, NULL, &sum, &err);
    free(path);
    if (rc == 0 && tl_interrupted)
        rc = tl_error_code(&err, TL_ERR_SIGNAL, "interrupted");
    res->bytes_in = sum.bytes_in;
    res->lines = sum.lines;
    if (rc < 0) {
        /* no diagnosis of what is no log */
        free(sum.summary);
        return tl_report_error(opt, &err);
    }
    res->summary = sum.summary;
    res->has_counts = true;
    res->counts = sum.counts;
    /* --strict means the same as with a report: the diagnosis is printed, the exit code 1 */
    struct tl_messages msg = {.opt = opt};
    return tl_strict_exit(opt, &msg, &sum);
}

static int run(const struct tl_options *opt, struct tl_result *res);

/* The folder a run writes its report to: out_dir, or PATH itself with --from-summaries. */
static const char *report_folder(const struct tl_options *opt)
{
    return opt->from_summaries ? opt->path : opt->out_dir ? opt->out_dir : "tl_out";
}

/*
 * --bundle: the report, then the report as one file. Without -o (and for a --from-summaries
 * landing page, whose folder is PATH) the report is written into a temporary folder beside
 * the bundle and removed once the bundle is complete.
 */
static int run_bundled(const struct tl_options *opt, struct tl_result *res)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    if (opt->summary != TL_SUMMARY_NONE)
        tl_error_code(&err, TL_ERR_USAGE, "cannot use --bundle with --summary or --json");
    else if (opt->rank_only)
        tl_error_code(&err, TL_ERR_USAGE, "cannot use --bundle with --rank-only");
    if (err.code != TL_ERR_NONE || tl_bundle_check(opt->bundle, opt->overwrite, &err) < 0)
        return tl_report_error(opt, &err);
    struct tl_options o = *opt;
    o.bundle = NULL;
    char *tmp = NULL;
    if (!opt->out_dir && !opt->from_summaries) {
        struct tl_buf t = TL_BUF_INIT;
        const char *slash = strrchr(opt->bundle, '/');
        if (slash)
            tl_buf_add(&t, opt->bundle, (size_t)(slash - opt->bundle + 1));
        tl_buf_adds(&t, ".tlparse-bundle-XXXXXX");
        tmp = tl_buf_detach(&t, NULL);
        if (!mkdtemp(tmp)) {
            tl_error(&err, "cannot create a folder beside %s: %s", opt->bundle, strerror(errno));
            free(tmp);
            return tl_report_error(opt, &err);
        }
        struct tl_buf r = TL_BUF_INIT;
        tl_buf_addf(&r, "%s/report", tmp);
        o.out_dir = tl_buf_detach(&r, NULL);
    }
    int code = run(&o, res);
    if (code == TL_EXIT_OK || (code == TL_EXIT_ERROR && res->index_path[0])) {
        /* a report was written (--strict failures too): bundle it */
        if (tl_bundle_write(report_folder(&o), opt->bundle, opt->overwrite, &err) < 0)
            code = tl_report_error(opt, &err);
        else
            snprintf(res->bundle_path, sizeof(res->bundle_path), "%s", opt->bundle);
    }
    if (tmp) {
        tl_remove_tree(tmp);
        res->index_path[0] = '\0';
        free((char *)o.out_dir);
        free(tmp);
    }
    return code;
}

int tl_run(const struct tl_options *opt, struct tl_result *res)
{
    struct tl_result ignored;
    res = res ? res : &ignored;
    memset(res, 0, sizeof(*res)); /* whatever fails first, the caller reads a clean result */
    if (opt->bundle)
        return run_bundled(opt, res);
    return run(opt, res);
}

static int run(const struct tl_options *opt, struct tl_result *res)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    struct tl_messages msg = {.opt = opt};
    struct tl_result ignored;
    res = res ? res : &ignored;
    memset(res, 0, sizeof(*res));
    char *path = NULL;
    struct tl_reader *reader = NULL;
    if (check_modes(opt, &err) < 0)
        return tl_report_error(opt, &err);
    if (opt->all_ranks_html)
        return tl_ranks_run(opt, res);
    if (opt->rank_only)
        return tl_rank_only_run(opt, res);
    /* A folder of rank logs: --summary and --json answer for every rank; a report is of its
     * newest log, and says so. */
    size_t ranks = opt->latest || opt->mem_input ? 0 : tl_rank_folder_ranks(opt->path);
    if (ranks > 1 && opt->summary != TL_SUMMARY_NONE)
        return tl_ranks_run(opt, res);
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
    if (tl_outdir_open(&out, o.out_dir, o.overwrite, &err) < 0) {
        tl_reader_free(reader);
        free(path);
        return tl_report_error(opt, &err);
    }
    if (ranks > 1) {
        res->ranks_left = (uint32_t)(ranks - 1);
        tl_say(&msg, TL_MSG_INFO,
               "tlparse: %s holds the logs of %zu ranks; this report is of the newest "
               "(--all-ranks-html reports on all)",
               opt->path, ranks);
    }
    if (out.nleftovers)
        tl_say(&msg, TL_MSG_WARNING,
               "tlparse: warning: removed %zu unfinished report folder%s of killed runs into "
               "%s: %s",
               out.nleftovers, out.nleftovers == 1 ? "" : "s", o.out_dir, out.leftovers.buf);
    struct tl_log_summary sum;
    int rc = tl_run_log(&o, reader, path, &out, &sum, &err);
    res->bytes_in = sum.bytes_in;
    res->lines = sum.lines;
    res->has_counts = rc == 0;
    res->counts = sum.counts;
    int code = rc == 0 ? tl_strict_exit(opt, &msg, &sum) : TL_EXIT_OK;
    if (rc == 0 && tl_interrupted)
        rc = tl_error_code(&err, TL_ERR_SIGNAL, "interrupted");
    if (rc == 0) {
        rc = tl_outdir_commit(&out, &err);
        if (rc == 0)
            snprintf(res->index_path, sizeof(res->index_path), "%s/index.html", o.out_dir);
    } else {
        tl_outdir_abort(&out);
    }
    free(path);
    return rc < 0 ? tl_report_error(opt, &err) : code;
}
