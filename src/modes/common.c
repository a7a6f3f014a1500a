/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The steps the modes share (modes.h): open the log and tell what it is, choose the sinks of
 * a trace's report, make the --summary text of a diagnosis, apply --strict.
 */
#include "base/config.h"
#include "modes/modes.h"
#include "base/xalloc.h"
#include "input/locate.h"
#include "report/summary.h"

#include <stdio.h>
#include <string.h>

/* path with its repeated slashes made one and its trailing ones taken out ("a//b/" is "a/b"). */
static void plain_path(struct tl_buf *b, const char *path)
{
    for (const char *p = path; *p; p++)
        if (*p != '/' || !b->len || b->buf[b->len - 1] != '/')
            tl_buf_addch(b, *p);
    while (b->len > 1 && b->buf[b->len - 1] == '/')
        tl_buf_setlen(b, b->len - 1);
}

const struct tl_open_log *tl_open_log_find(const struct tl_options *opt, const char *path)
{
    if (!opt->nopen_logs || !path)
        return NULL;
    struct tl_buf want = TL_BUF_INIT, have = TL_BUF_INIT;
    plain_path(&want, path);
    const struct tl_open_log *found = NULL;
    for (size_t i = 0; i < opt->nopen_logs && !found; i++) {
        tl_buf_reset(&have);
        plain_path(&have, opt->open_logs[i].path);
        if (have.len == want.len && !memcmp(have.buf, want.buf, want.len))
            found = &opt->open_logs[i];
    }
    tl_buf_release(&want);
    tl_buf_release(&have);
    return found;
}

bool tl_open_log_in(const struct tl_open_log *log, const char *folder)
{
    const char *slash = strrchr(log->path, '/');
    if (!slash)
        return false;
    struct tl_buf dir = TL_BUF_INIT, want = TL_BUF_INIT, a = TL_BUF_INIT;
    tl_buf_add(&dir, log->path, (size_t)(slash - log->path));
    plain_path(&a, dir.buf);
    plain_path(&want, folder);
    bool in = a.len == want.len && !memcmp(a.buf, want.buf, a.len);
    tl_buf_release(&dir);
    tl_buf_release(&want);
    tl_buf_release(&a);
    return in;
}

int tl_open_log(const struct tl_options *opt, struct tl_messages *msg, char **path,
                struct tl_reader **reader, struct tl_err *err)
{
    *path = NULL;
    if (opt->mem_input) {
        *reader = tl_reader_open_mem(opt->mem_input, opt->mem_len);
        return 0;
    }
    if (tl_open_log_find(opt, opt->path)) { /* held open: it need not be on disk any more */
        *path = tl_xstrdup(opt->path);
        return tl_log_open_file(opt, *path, reader, err);
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
    const struct tl_open_log *held = tl_open_log_find(opt, path);
    if (held) {
        /* The file the caller holds, from its start, by a description of its own (its offset
         * is not the caller's): the link /proc gives a descriptor opens it even when it has
         * been unlinked. Named by path in every message. */
        char proc[64];
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", held->fd);
        if (tl_reader_open(reader, proc, err) < 0) {
            char why[sizeof(err->msg)];
            snprintf(why, sizeof(why), "%s", err->msg);
            return tl_error_code(err, TL_ERR_INPUT, "cannot read %s again (%s)", path, why);
        }
    } else if (tl_reader_open(reader, path, err) < 0) {
        return -1;
    }
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

/* raw.log of a plain file is a copy the kernel makes of it, by path (of a log held open, the
 * path /proc gives its descriptor); NULL: of anything else, the bytes as they are read. */
static const char *copy_path(const struct tl_engine_job *job, struct tl_log_sinks *p)
{
    if (!job->path || !job->reader || tl_reader_kind(job->reader) != TL_READER_PLAIN ||
        tl_reader_is_stream(job->reader))
        return NULL;
    const struct tl_open_log *held = tl_open_log_find(job->opt, job->path);
    if (!held)
        return job->path;
    snprintf(p->held_path, sizeof(p->held_path), "/proc/self/fd/%d", held->fd);
    return p->held_path;
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
        p->rawlog.copy_path = copy_path(job, p);
        p->rawlog.mem = opt->mem_input;
        p->rawlog.mem_len = opt->mem_len;
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
        p->rawlog.copy_path = copy_path(job, p);
        p->rawlog.mem = opt->mem_input;
        p->rawlog.mem_len = opt->mem_len;
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

char *tl_index_path(const char *folder)
{
    struct tl_buf b = TL_BUF_INIT;
    tl_buf_addf(&b, "%s/index.html", folder);
    return tl_buf_detach(&b, NULL);
}

int tl_output_open(const struct tl_options *opt, struct tl_outdir *out, struct tl_err *err)
{
    return opt->bundle ? tl_bundle_open(out, opt->bundle, opt->overwrite, err)
                       : tl_outdir_open(out, opt->out_dir, opt->overwrite, err);
}

void tl_output_say_leftovers(const struct tl_outdir *out, struct tl_messages *msg,
                             const char *folder)
{
    if (out->nleftovers)
        tl_say(msg, TL_MSG_WARNING,
               "tlparse: warning: removed %zu unfinished report folder%s of killed runs into "
               "%s: %s",
               out->nleftovers, out->nleftovers == 1 ? "" : "s", folder, out->leftovers.buf);
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

int tl_output_end(struct tl_outdir *out, int rc, volatile sig_atomic_t *cancel, struct tl_err *err)
{
    if (rc == 0 && tl_stop_asked(cancel))
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

int tl_live_pages(struct tl_outdir *out, struct tl_engine *eng, struct tl_err *err)
{
    struct tl_outdir mem, over;
    tl_outdir_open_memory(&mem);
    tl_outdir_open_overlay(&over, out, &mem);
    int rc = tl_engine_publish(eng, &over, err);
    if (rc == 0)
        rc = tl_outdir_commit(&over, err);
    else
        tl_outdir_abort(&over);
    rc = tl_live_put(out, &mem, rc, err);
    return rc;
}

int tl_live_put(struct tl_outdir *out, struct tl_outdir *mem, int rc, struct tl_err *err)
{
    const char *const *names = NULL;
    const struct tl_buf *const *files = NULL;
    size_t n = 0;
    if (rc == 0 && tl_outdir_memory_files(mem, &names, &files, &n) < 0)
        rc = tl_error(err, "the live report's pages were not kept");
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = tl_outdir_replace(out, names[i], files[i]->buf, files[i]->len, err);
    tl_outdir_abort(mem);
    return rc;
}
