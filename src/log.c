/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One log into one report folder (tl_log_run): the stream of bytes -> lines -> glog prefix
 * -> JSON envelope -> payload and its md5 check -> a typed record, handed to each consumer
 * the options chose, then to the model. Bad lines are counted and reported with their line
 * number, and the run goes on; only I/O errors and interruptions stop it.
 */
#include "base/config.h"
#include "run.h"
#include "base/json.h"
#include "base/utf8.h"
#include "input/envelope.h"
#include "input/glog.h"
#include "report/summary.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

/* ---- messages, in line order with the payload checks ------------------------------------ */

/* A payload check that failed (reported in line order, see md5q.h). */
static void md5_report(void *ctx, const struct tl_md5_result *r)
{
    struct tl_log *log = ctx;
    if (r->truncated) {
        /* A log cut off in the middle of a payload is the likely story
         * when the file ends without a newline inside it. */
        log->stats.fail_payload_truncated++;
        tl_warn_at(&log->msg, TL_W_TRUNCATED, r->lineno,
                   "the log ends in the middle of this entry's payload");
    } else {
        log->stats.fail_payload_md5++;
        tl_warn_at(&log->msg, TL_W_MD5, r->lineno,
                   "payload md5 mismatch (has_payload %s, payload %s)", r->want, r->got);
    }
}

static void drain_md5(struct tl_log *log)
{
    if (log->md5q)
        tl_md5q_drain(log->md5q, md5_report, log);
}

void tl_log_warn(struct tl_log *log, enum tl_warn_kind kind, uint64_t lineno, const char *fmt, ...)
{
    /* Earlier lines' payload checks first, so that messages stay in order. */
    drain_md5(log);
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    tl_warn_at(&log->msg, kind, lineno, "%s", msg);
}

/* A compressed log cut off: what was read is used, and said (reader.h). */
static void log_truncated(void *ctx, const char *format, uint64_t lines)
{
    struct tl_log *log = ctx;
    drain_md5(log);
    tl_say_truncated(&log->msg, format, lines);
}

static void long_line(struct tl_log *log, uint64_t lineno, uint64_t len)
{
    log->stats.fail_line_too_long++;
    tl_log_warn(log, TL_W_LONG, lineno, "line of %llu bytes is over the %zu MiB limit; skipped",
                (unsigned long long)len, TL_READER_MAX_LINE >> 20);
}

/* ---- the lines of an entry -------------------------------------------------------------- */

/*
 * The tab-indented payload lines after an envelope (spec §1.6), into log->payload when keep,
 * else skipped; stops before the first line that is not one. *truncated: the log ended in
 * the middle of a kept payload line.
 */
static int payload_lines(struct tl_log *log, bool keep, bool *truncated, struct tl_err *err)
{
    struct tl_reader *r = log->reader;
    struct tl_str line;
    bool first = true;
    int got;
    if (keep)
        tl_buf_reset(&log->payload);
    *truncated = false;
    while ((got = tl_reader_next(r, &line, err)) >= 1) {
        bool tab =
            got == TL_READER_LONG ? tl_reader_long_first(r) == '\t' : line.n && line.p[0] == '\t';
        if (got == 1 && line.n == 0)
            continue;
        if (!tab) {
            tl_reader_unread(r);
            got = 1;
            break;
        }
        if (got == TL_READER_LONG) {
            long_line(log, tl_reader_lineno(r), line.n);
            continue;
        }
        if (!keep)
            continue;
        if (!tl_utf8_valid(line.p, line.n)) {
            /* The reference drops the line and then fails the whole run; we
             * keep the bytes as they are (the md5 is over what was written). */
            log->stats.fail_utf8++;
            tl_log_warn(log, TL_W_UTF8, tl_reader_lineno(r),
                        "invalid UTF-8 in a payload line; kept as is");
        }
        if (!first)
            tl_buf_addch(&log->payload, '\n');
        first = false;
        tl_buf_add(&log->payload, line.p + 1, line.n - 1);
        if (tl_interrupted)
            break;
    }
    if (got < 0)
        return -1;
    /* Ending at a line boundary is indistinguishable from a wrong md5. */
    *truncated = keep && got == 0 && !first && tl_reader_last_unterminated(r);
    return 0;
}

static void record_unknown(struct tl_log *log, const struct tl_envelope *env)
{
    log->stats.unknown += env->n_unknown;
    for (size_t i = 0; i < env->n_unknown; i++) {
        if (log->opt->verbose) {
            struct tl_buf b = TL_BUF_INIT;
            tl_buf_add_printable(&b, env->unknown[i].p, env->unknown[i].n);
            tl_say(&log->msg, TL_MSG_INFO, "tlparse: Unknown field %s", b.buf);
            tl_buf_release(&b);
        }
        if (tl_map_len(&log->unknown_keys) < 1000)
            tl_map_put(&log->unknown_keys, env->unknown[i], (void *)1);
    }
}

/* A `str` entry: the string table (spec §1.7). */
static void string_table(struct tl_log *log, const struct tl_envelope *env, uint64_t lineno)
{
    const struct tl_json *pair = env->key[TL_K_STR];
    uint32_t id = (uint32_t)pair->u.arr.items[1].u.num.u;
    if (!tl_strtab_set(&log->model.strtab, id, pair->u.arr.items[0].u.str)) {
        log->stats.fail_str_table++;
        tl_log_warn(log, TL_W_STRTAB, lineno, "string table id %u is too large; entry ignored", id);
    }
}

/* Whether a consumer needs this record's payload. */
static bool payload_needed(struct tl_log *log, const struct tl_record *rec)
{
    if (log->all_payloads)
        return true;
    if (rec->status != TL_REC_OK)
        return false;
    for (size_t i = 0; i < log->ncons; i++) {
        const struct tl_consumer_ops *ops = log->cons[i].ops;
        if (ops->wants_payload && ops->wants_payload(log->cons[i].self, rec))
            return true;
    }
    return false;
}

/* The payload of the entry; its md5 is checked once the entry is done with it (md5q.h).
 * A payload no consumer needs is skipped, unchecked. */
static int read_payload(struct tl_log *log, struct tl_record *rec, struct tl_err *err)
{
    const struct tl_json *hp = rec->env->key[TL_K_HAS_PAYLOAD];
    rec->payload = TL_STR_LIT("");
    if (!hp)
        return 0;
    bool truncated;
    if (!payload_needed(log, rec))
        return payload_lines(log, false, &truncated, err);
    if (payload_lines(log, true, &truncated, err) < 0)
        return -1;
    if (tl_interrupted)
        return tl_error_code(err, TL_ERR_SIGNAL, "interrupted");
    log->md5_due = true;
    log->md5_want = hp->u.str;
    log->md5_truncated = truncated;
    rec->has_payload = true;
    rec->payload = tl_buf_str(&log->payload);
    return 0;
}

/* Entries of another rank than the log's first are not this log's (spec §1.8 step 5). */
static bool rank_is_ours(struct tl_log *log, const struct tl_envelope *env)
{
    const struct tl_json *rank = env->key[TL_K_RANK];
    if (log->have_rank)
        return rank && rank->u.num.u == log->rank;
    if (rank) {
        log->have_rank = true;
        log->rank = (uint32_t)rank->u.num.u;
        if (log->opt->verbose)
            tl_say(&log->msg, TL_MSG_INFO, "tlparse: Detected rank: %u", log->rank);
    }
    return true;
}

/* ---- --redact ------------------------------------------------------------------------------ */

/* How --redact treats the payload of an entry: graphs and guards keep their structure, JSON
 * artifacts and chromium events their keys and numbers, the rest (generated code, dumped
 * files, strings of unknown kinds) is dropped. */
static enum tl_redact_payload payload_kind(const struct tl_envelope *env)
{
    static const enum tl_key code[] = {
        TL_K_DYNAMO_OUTPUT_GRAPH,
        TL_K_OPTIMIZE_DDP_SPLIT_GRAPH,
        TL_K_COMPILED_AUTOGRAD_GRAPH,
        TL_K_AOT_FORWARD_GRAPH,
        TL_K_AOT_BACKWARD_GRAPH,
        TL_K_AOT_INFERENCE_GRAPH,
        TL_K_AOT_JOINT_GRAPH,
        TL_K_INDUCTOR_PRE_GRAD_GRAPH,
        TL_K_INDUCTOR_POST_GRAD_GRAPH,
        TL_K_DYNAMO_CPP_GUARDS_STR,
        TL_K_EXPORTED_PROGRAM,
        TL_K_OPTIMIZE_DDP_SPLIT_CHILD,
        TL_K_GRAPH_DUMP,
    };
    for (size_t i = 0; i < TL_ARRAY_LEN(code); i++)
        if (env->key[code[i]])
            return TL_REDACT_CODE;
    if (env->key[TL_K_DYNAMO_GUARDS] || env->key[TL_K_CHROMIUM_EVENT])
        return TL_REDACT_JSON;
    if (env->key[TL_K_ARTIFACT] &&
        tl_str_eq_cstr(tl_env_str(env->key[TL_K_ARTIFACT], "encoding"), "json"))
        return TL_REDACT_JSON;
    return TL_REDACT_DROP;
}

/* The payload the consumers see: redacted into log->redacted (the md5 check still reads the
 * payload as logged, in log->payload). */
static void redact_payload(struct tl_log *log, struct tl_record *rec)
{
    tl_buf_reset(&log->redacted);
    tl_redact_payload(&log->redact, &log->redacted, rec->payload, payload_kind(rec->env));
    rec->payload = tl_buf_str(&log->redacted);
}

/* Hand the record to the consumers that take it, in order. */
static int dispatch(struct tl_log *log, struct tl_record *rec, struct tl_err *err)
{
    unsigned want = rec->status == TL_REC_OTHER_RANK ? TL_WANT_OTHER_RANK
                    : rec->status == TL_REC_BAD      ? TL_WANT_BAD
                                                     : 0;
    for (size_t i = 0; i < log->ncons; i++) {
        const struct tl_consumer_ops *ops = log->cons[i].ops;
        if (want && !(ops->wants & want))
            continue;
        if (ops->record(log->cons[i].self, log, rec, err) < 0)
            return -1;
    }
    return 0;
}

/* An envelope that decoded: its payload, its rank, then the consumers and the model. */
static int use_envelope(struct tl_log *log, struct tl_record *rec, struct tl_err *err)
{
    const struct tl_envelope *env = rec->env;
    record_unknown(log, env);
    if (env->key[TL_K_STR]) {
        string_table(log, env, rec->lineno);
        return 0;
    }
    bool ours = rank_is_ours(log, env);
    if (ours) {
        tl_record_decode(rec, &log->model.dir, &log->scratch);
        if (!rec->cid_ok)
            log->saw_unknown_cid = true;
    } else {
        rec->status = TL_REC_OTHER_RANK;
    }
    if (read_payload(log, rec, err) < 0)
        return -1;
    if (log->redacting && rec->has_payload)
        redact_payload(log, rec);
    if (!ours) {
        log->stats.other_rank++;
        return dispatch(log, rec, err);
    }
    log->stats.ok++;
    if (dispatch(log, rec, err) < 0)
        return -1;
    tl_model_apply(&log->model, rec, &log->scratch);
    return 0;
}

/* The glog prefix and the envelope of a line; the payload lines that follow move the
 * reader's buffer, so the envelope and path are copied first. */
static bool split_line(struct tl_log *log, struct tl_str line, uint64_t lineno, struct tl_glog *g)
{
    if (!tl_glog_parse(line, g)) {
        log->stats.fail_glog++;
        tl_log_warn(log, TL_W_GLOG, lineno, "Failed to parse glog prefix");
        return false;
    }
    tl_buf_reset(&log->env_text);
    tl_buf_add(&log->env_text, g->envelope.p, g->envelope.n);
    size_t path_at = log->env_text.len;
    tl_buf_addstr(&log->env_text, g->pathname);
    g->envelope = tl_str_make(log->env_text.buf, path_at);
    g->pathname = tl_str_make(log->env_text.buf + path_at, g->pathname.n);
    return true;
}

/* One entry: its line, payload and records. */
static int entry(struct tl_log *log, struct tl_str line, struct tl_record *rec, struct tl_err *err)
{
    uint64_t lineno = tl_reader_lineno(log->reader);
    bool repaired = !tl_utf8_valid(line.p, line.n), skip;
    if (repaired) {
        /* The reference skips the line and then fails the whole run; we replace the bad
         * bytes and keep the entry. It is counted once: below, unless a worse problem
         * counts it first. */
        tl_buf_reset(&log->utf8_fix);
        tl_utf8_sanitize(&log->utf8_fix, line.p, line.n);
        line = tl_buf_str(&log->utf8_fix);
    }
    struct tl_glog g;
    if (!split_line(log, line, lineno, &g))
        return 0;
    struct tl_json root;
    struct tl_json_error je;
    struct tl_envelope env;
    char why[256];
    rec->lineno = lineno;
    rec->glog = &g;
    rec->root = &root;
    if (tl_json_parse(&log->scratch, g.envelope.p, g.envelope.n, &root, &je) < 0) {
        log->stats.fail_json++;
        tl_log_warn(log, TL_W_JSON, lineno, "Failed to parse metadata JSON: %s at column %zu",
                    je.msg, je.offset + 1);
        return payload_lines(log, false, &skip, err);
    }
    /* Before anything reads it: the diagnosis, the pages and every file see it redacted. */
    if (log->redacting)
        tl_redact_json(&log->redact, &log->scratch, &root, NULL);
    if (tl_envelope_decode(&root, &env, &log->scratch, why, sizeof(why)) < 0) {
        log->stats.fail_json++;
        tl_log_warn(log, TL_W_JSON, lineno, "Failed to parse metadata JSON: %s", why);
        rec->status = TL_REC_BAD;
        if (root.type == TL_JSON_OBJECT && dispatch(log, rec, err) < 0)
            return -1;
        return payload_lines(log, false, &skip, err);
    }
    if (repaired) {
        log->stats.fail_utf8++;
        tl_log_warn(log, TL_W_UTF8, lineno, "invalid UTF-8 replaced by U+FFFD");
    }
    rec->env = &env;
    return use_envelope(log, rec, err);
}

/* Every line of the log. */
static int parse(struct tl_log *log, struct tl_err *err)
{
    struct tl_str line;
    int got, rc = 0;
    while (rc == 0 && (got = tl_reader_next(log->reader, &line, err)) >= 1) {
        if (tl_interrupted)
            return tl_error_code(err, TL_ERR_SIGNAL, "interrupted");
        tl_progress_update(&log->progress, tl_reader_file_pos(log->reader));
        if (got == TL_READER_LONG) {
            long_line(log, tl_reader_lineno(log->reader), line.n);
            continue;
        }
        if (line.n == 0)
            continue;
        uint64_t lineno = tl_reader_lineno(log->reader);
        struct tl_record rec;
        tl_record_init(&rec);
        log->md5_due = false;
        rc = entry(log, line, &rec, err);
        if (log->md5_due)
            tl_md5q_submit(log->md5q, lineno, log->md5_want, log->md5_truncated, &log->payload);
        tl_record_release(&rec);
        tl_arena_reset(&log->scratch);
    }
    if (rc == 0 && got < 0)
        rc = -1;
    if (rc == 0 && tl_interrupted)
        rc = tl_error_code(err, TL_ERR_SIGNAL, "interrupted");
    return rc;
}

/* ---- set-up and the end ----------------------------------------------------------------- */

/*
 * --redact: a salt for the hashes (random, so that a hash cannot be looked up in a table of
 * likely names; the options may fix it, for tests), and what the report says of itself: that
 * it was redacted, and with paths, its input's name and command line hashed too.
 */
static void redact_init(struct tl_log *log)
{
    const struct tl_options *opt = log->opt;
    uint8_t salt[16];
    if (opt->redact_salt)
        memcpy(salt, opt->redact_salt, sizeof(salt));
    else if (getrandom(salt, sizeof(salt), 0) != (ssize_t)sizeof(salt))
        for (size_t i = 0; i < sizeof(salt); i++) /* no entropy source: still a salt */
            salt[i] = (uint8_t)(rand() ^ (int)time(NULL) ^ (int)getpid());
    tl_redact_init(&log->redact, salt, opt->redact_paths);
    log->redacting = true;
    log->info.redacted = opt->redact_paths ? "--redact=paths" : "--redact";
    if (!opt->redact_paths)
        return;
    struct tl_buf b = TL_BUF_INIT;
    if (log->info.input) {
        tl_redact_path(&log->redact, &b, tl_str_cstr(log->info.input));
        log->redacted_input = tl_buf_detach(&b, NULL);
        log->info.input = log->redacted_input;
    }
    if (log->info.command_line) {
        tl_redact_hash(&log->redact, &b, tl_str_cstr(log->info.command_line));
        log->redacted_command = tl_buf_detach(&b, NULL);
        log->info.command_line = log->redacted_command;
    }
}

static int current_year(void)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    return tm.tm_year + 1900;
}

static void log_init(struct tl_log *log, const struct tl_log_job *job)
{
    const struct tl_options *opt = job->opt;
    const char *name = job->name;
    memset(log, 0, sizeof(*log));
    log->opt = opt;
    log->reader = job->reader;
    log->path = job->path;
    log->out = job->out;
    log->rank_summary = job->rank_summary;
    log->rank_arena = job->rank_arena;
    log->entry_fn = job->entry_fn;
    log->entry_ctx = job->entry_ctx;
    /* In-memory runs (the fuzzer) stay single-threaded and deterministic. */
    log->threads = !opt->no_threads && !opt->mem_input;
    log->year = opt->year ? opt->year : current_year();
    log->msg.opt = opt;
    log->msg.progress = &log->progress;
    log->msg.input = name;
    tl_reader_on_truncated(log->reader, log_truncated, log);
    tl_runinfo_fill(&log->info, opt, job->path, name);
    if (opt->redact)
        redact_init(log);
    /* strbuf contract: an empty buffer points at the shared empty byte. */
    tl_buf_init(&log->page, 0);
    tl_buf_init(&log->env_text, 0);
    tl_buf_init(&log->payload, 0);
    tl_buf_init(&log->redacted, 0);
    tl_buf_init(&log->utf8_fix, 0);
    tl_arena_init(&log->arena, 256 * 1024);
    tl_arena_init(&log->scratch, 256 * 1024);
    tl_model_init(&log->model, &log->arena);
    tl_map_init(&log->unknown_keys, &log->arena);
    tl_diag_init(&log->diag);
}

static void log_release(struct tl_log *log)
{
    for (size_t i = 0; i < log->ncons; i++)
        log->cons[i].ops->destroy(log->cons[i].self);
    tl_reader_free(log->reader);
    tl_md5q_free(log->md5q);
    tl_map_release(&log->unknown_keys);
    tl_model_release(&log->model);
    tl_diag_release(&log->diag);
    tl_arena_release(&log->arena);
    tl_arena_release(&log->scratch);
    tl_buf_release(&log->page);
    tl_buf_release(&log->env_text);
    tl_buf_release(&log->payload);
    tl_buf_release(&log->redacted);
    free(log->redacted_input);
    free(log->redacted_command);
    tl_buf_release(&log->utf8_fix);
}

static void add_consumer(struct tl_log *log, const struct tl_consumer_ops *ops)
{
    log->cons[log->ncons].ops = ops;
    log->cons[log->ncons].self = ops->create(log);
    if (!ops->wants_payload)
        log->all_payloads = true;
    log->ncons++;
}

/*
 * The consumers the options choose, in the order they see each record: the diagnosis first
 * (the index page shows it); custom parsers right after the report (their files are numbered
 * in the same sequence as its own); the payloads after the writers of files (it writes what none of
 * them did); provenance after the payloads (it reads the raw code they name); a rank's
 * summary last (it reads back what the others wrote).
 */
static void choose_consumers(struct tl_log *log)
{
    const struct tl_options *opt = log->opt;
    if (log->entry_fn) {
        add_consumer(log, &tl_consumer_entries); /* tl_each_entry() */
        return;
    }
    add_consumer(log, &tl_consumer_diagnosis);
    if (!log->out)
        return; /* --summary, --json */
    if (opt->export_mode) {
        add_consumer(log, &tl_consumer_export);
        add_consumer(log, &tl_consumer_payloads);
        return;
    }
    add_consumer(log, &tl_consumer_report);
    if (opt->nparsers)
        add_consumer(log, &tl_consumer_custom);
    add_consumer(log, &tl_consumer_payloads);
    /* A redacted report leaves out the log itself, as logged and as JSON lines. */
    if (!log->redacting) {
        add_consumer(log, &tl_consumer_rawjsonl);
        add_consumer(log, &tl_consumer_rawlog);
    }
    if (opt->inductor_provenance)
        add_consumer(log, &tl_consumer_provenance);
    if (log->rank_summary)
        add_consumer(log, &tl_consumer_rank);
}

static int start(struct tl_log *log, struct tl_err *err)
{
    tl_progress_init(&log->progress, log->opt->progress, tl_reader_file_size(log->reader));
    log->md5q = tl_md5q_new(4u << 20, log->threads);
    if (log->out)
        tl_outdir_write_behind(log->out, log->threads);
    for (size_t i = 0; i < log->ncons; i++) {
        const struct tl_consumer_ops *ops = log->cons[i].ops;
        if (ops->start && ops->start(log->cons[i].self, log, err) < 0)
            return -1;
    }
    return 0;
}

static int finish(struct tl_log *log, struct tl_err *err)
{
    for (size_t i = 0; i < log->ncons; i++) {
        const struct tl_consumer_ops *ops = log->cons[i].ops;
        if (ops->finish && ops->finish(log->cons[i].self, log, err) < 0)
            return -1;
    }
    return 0;
}

/* The Stats line, and what the log held that this tlparse does not know. */
static void print_stats(struct tl_log *log, uint64_t bytes)
{
    if (bytes == 0)
        tl_say(&log->msg, TL_MSG_WARNING,
               "tlparse: warning: %s is empty: the report has nothing in it (was the trace "
               "written by a process that had not compiled anything yet?)",
               log->msg.input);
    struct tl_buf b = TL_BUF_INIT;
    tl_stats_format(&b, &log->stats);
    tl_say(&log->msg, TL_MSG_INFO, "%s", b.buf);
    size_t n = tl_map_len(&log->unknown_keys);
    if (n) {
        tl_buf_reset(&b);
        tl_buf_adds(&b, "Unknown fields: {");
        for (size_t i = 0; i < n; i++) {
            if (i)
                tl_buf_adds(&b, ", ");
            tl_buf_addch(&b, '"');
            struct tl_str k = tl_map_at(&log->unknown_keys, i)->key;
            tl_buf_add_printable(&b, k.p, k.n);
            tl_buf_addch(&b, '"');
        }
        tl_buf_adds(&b, "} (consider updating tlparse to render these)");
        tl_say(&log->msg, TL_MSG_INFO, "%s", b.buf);
    }
    tl_buf_release(&b);
}

/* The diagnosis as --summary or --json print it. */
static char *summary_text(struct tl_log *log)
{
    struct tl_buf b = TL_BUF_INIT;
    struct tl_summary_source src = {log->msg.input, "torch_trace", NULL, &log->info};
    if (log->opt->summary == TL_SUMMARY_JSON)
        tl_summary_json(&b, &log->diag, &src, true);
    else
        tl_summary_text(&b, &log->diag, &src, log->opt->color);
    return tl_buf_detach(&b, NULL);
}

/* summary.json: the diagnosis, and a rank's summary. */
static int write_summary(struct tl_log *log, struct tl_err *err)
{
    struct tl_buf json = TL_BUF_INIT;
    /* A rank's log is named by its file name: the folder differs from machine to machine,
     * and a rank's findings are the same whichever machine wrote them ("generated_by" says
     * which command and input file did). */
    const char *path = log->rank_summary ? log->rank_summary->log : log->msg.input;
    struct tl_summary_source src = {path, "torch_trace", log->rank_summary, &log->info};
    tl_summary_json(&json, &log->diag, &src, true);
    int rc = tl_outdir_write(log->out, "summary.json", json.buf, json.len, NULL, err);
    if (rc == 0 && !log->opt->export_mode && tl_page_shapes_wanted(&log->diag)) {
        tl_buf_reset(&json);
        tl_page_shapes(&json, &log->diag, "index.html#");
        rc = tl_outdir_write(log->out, "dynamic_shapes.html", json.buf, json.len, NULL, err);
    }
    tl_buf_release(&json);
    return rc;
}

int tl_log_run(const struct tl_log_job *job, struct tl_log_summary *sum, struct tl_err *err)
{
    struct tl_log log;
    log_init(&log, job);
    choose_consumers(&log);
    int rc = start(&log, err);
    if (rc == 0)
        rc = parse(&log, err);
    memset(sum, 0, sizeof(*sum));
    sum->bytes_in = tl_reader_offset(log.reader);
    sum->lines = tl_reader_lineno(log.reader);
    sum->truncated = tl_reader_truncated(log.reader);
    tl_reader_free(log.reader);
    log.reader = NULL;
    tl_progress_clear(&log.progress);
    drain_md5(&log);
    if (rc == 0)
        rc = finish(&log, err);
    if (rc == 0 && log.out)
        rc = write_summary(&log, err);
    for (size_t i = 0; rc == 0 && job->strtab_out && i < log.model.strtab.len; i++)
        if (log.model.strtab.s[i].p)
            tl_strtab_set(job->strtab_out, (uint32_t)i, log.model.strtab.s[i]);
    if (rc == 0 && log.opt->summary != TL_SUMMARY_NONE)
        sum->summary = summary_text(&log);
    /* --summary and --json leave out the Stats line of a log that was read, unless --strict
     * fails on it: its error points at the line. */
    bool strict_fails = log.opt->strict && (tl_stats_strict_failures(&log.stats) || sum->truncated);
    if (rc == 0 && !(log.opt->summary && log.stats.ok && !strict_fails))
        print_stats(&log, sum->bytes_in);
    sum->stats = log.stats;
    if (log.diag_ready)
        tl_counts_of(&sum->counts, &log.diag);
    sum->saw_unknown_cid = log.saw_unknown_cid;
    /* Lines, and not one entry in them (nor a string table): not a trace (tl_run_log). */
    sum->no_entries = !log.stats.ok && !log.stats.other_rank && !log.model.strtab.len &&
                      (log.stats.fail_glog || log.stats.fail_json || log.stats.fail_line_too_long);
    sum->compile_ids = tl_map_len(&log.model.dir.keys);
    log_release(&log);
    return rc;
}
