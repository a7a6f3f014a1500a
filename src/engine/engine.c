/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine (tl_engine_run): the stream of bytes -> lines -> glog prefix -> JSON envelope ->
 * payload and its md5 check -> a typed record, handed to each sink the mode chose, then to
 * the model and its diagnosis. Bad lines are counted and reported with their line number,
 * and the run goes on; only I/O errors and interruptions stop it.
 */
#include "base/config.h"
#include "engine/engine.h"
#include "base/json.h"
#include "base/map.h"
#include "base/utf8.h"
#include "input/envelope.h"
#include "input/glog.h"
#include "input/md5q.h"
#include "model/diag_trace.h"
#include "model/redact.h"

extern const char tl_revision[]; /* revision.c, written by cmake/Revision.cmake */

volatile sig_atomic_t tl_interrupted;

/* One log being run through the sinks. */
struct tl_engine {
    const struct tl_options *opt;
    bool threads; /* helper threads (md5 checks, writes, the raw.log copy) */
    struct tl_messages msg;
    struct tl_progress progress;
    struct tl_reader *reader;
    struct tl_arena arena;   /* run lifetime */
    struct tl_arena scratch; /* reset after every entry */
    struct tl_model model;
    struct tl_diag_trace *diag; /* the model's diagnosis, record by record */
    struct tl_stats stats;
    struct tl_map unknown_keys; /* names of unknown fields seen (at most 1000) */
    bool have_rank;
    uint32_t rank;
    bool saw_unknown_cid;
    struct tl_runinfo info; /* what made the report, for its footer and summary.json */
    bool all_payloads;      /* some sink reads every payload */
    /* --redact: every envelope and payload goes through it before any sink */
    bool redacting;
    struct tl_redact redact;
    char *redacted_input, *redacted_command; /* runinfo's, with --redact=paths */

    /* the entry being read */
    struct tl_buf env_text; /* its envelope, copied out of the reader */
    struct tl_buf payload;  /* its payload */
    struct tl_buf redacted; /* its payload as --redact leaves it */
    struct tl_buf utf8_fix; /* its line, with invalid UTF-8 repaired */
    struct tl_md5q *md5q;   /* payload checks, on a worker thread */
    bool md5_due;           /* the payload awaits its check */
    bool md5_truncated;
    struct tl_str md5_want; /* has_payload, borrowed until the entry is done */

    struct tl_sink_ctx ctx; /* what the sinks see */
    struct {
        const struct tl_sink_ops *ops;
        void *self;
    } sinks[TL_ENGINE_MAX_SINKS];
    size_t nsinks;
};

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>
#include <sys/stat.h>

/* ---- messages, in line order with the payload checks ------------------------------------ */

/* A payload check that failed (reported in line order, see md5q.h). */
static void md5_report(void *ctx, const struct tl_md5_result *r)
{
    struct tl_engine *eng = ctx;
    if (r->truncated) {
        /* A log cut off in the middle of a payload is the likely story
         * when the file ends without a newline inside it. */
        eng->stats.fail_payload_truncated++;
        tl_warn_at(&eng->msg, TL_W_TRUNCATED, r->lineno,
                   "the log ends in the middle of this entry's payload");
    } else {
        eng->stats.fail_payload_md5++;
        tl_warn_at(&eng->msg, TL_W_MD5, r->lineno,
                   "payload md5 mismatch (has_payload %s, payload %s)", r->want, r->got);
    }
}

static void drain_md5(struct tl_engine *eng)
{
    if (eng->md5q)
        tl_md5q_drain(eng->md5q, md5_report, eng);
}

static void engine_warn(struct tl_engine *eng, enum tl_warn_kind kind, uint64_t lineno,
                        const char *fmt, va_list ap) TL_PRINTF(4, 0);

static void engine_warn(struct tl_engine *eng, enum tl_warn_kind kind, uint64_t lineno,
                        const char *fmt, va_list ap)
{
    /* Earlier lines' payload checks first, so that messages stay in order. */
    drain_md5(eng);
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    tl_warn_at(&eng->msg, kind, lineno, "%s", msg);
}

static void engine_warnf(struct tl_engine *eng, enum tl_warn_kind kind, uint64_t lineno,
                         const char *fmt, ...) TL_PRINTF(4, 5);

static void engine_warnf(struct tl_engine *eng, enum tl_warn_kind kind, uint64_t lineno,
                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    engine_warn(eng, kind, lineno, fmt, ap);
    va_end(ap);
}

void tl_sink_warn(struct tl_sink_ctx *ctx, enum tl_warn_kind kind, uint64_t lineno, const char *fmt,
                  ...)
{
    va_list ap;
    va_start(ap, fmt);
    engine_warn(ctx->engine, kind, lineno, fmt, ap);
    va_end(ap);
}

void tl_sink_say(struct tl_sink_ctx *ctx, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    tl_say(&ctx->engine->msg, TL_MSG_INFO, "%s", msg);
}

struct tl_artifact *tl_sink_list_file(struct tl_sink_ctx *ctx, struct tl_dirkey *key,
                                      const char *url, const char *name, bool link)
{
    struct tl_directory *dir = &ctx->engine->model.dir;
    return tl_directory_add(dir, key, url, name, tl_directory_number(dir), link);
}

uint32_t tl_sink_take_number(struct tl_sink_ctx *ctx)
{
    return tl_directory_number(&ctx->engine->model.dir);
}

uint32_t tl_sink_next_number(const struct tl_sink_ctx *ctx)
{
    return ctx->model->dir.next_number;
}

/* A compressed log cut off: what was read is used, and said (reader.h). */
static void log_truncated(void *ctx, const char *format, uint64_t lines)
{
    struct tl_engine *eng = ctx;
    drain_md5(eng);
    tl_say_truncated(&eng->msg, format, lines);
}

static void long_line(struct tl_engine *eng, uint64_t lineno, uint64_t len)
{
    eng->stats.fail_line_too_long++;
    engine_warnf(eng, TL_W_LONG, lineno, "line of %llu bytes is over the %zu MiB limit; skipped",
                 (unsigned long long)len, TL_READER_MAX_LINE >> 20);
}

/* ---- the lines of an entry -------------------------------------------------------------- */

/*
 * The tab-indented payload lines after an envelope (spec §1.6), into eng->payload when keep,
 * else skipped; stops before the first line that is not one. *truncated: the log ended in
 * the middle of a kept payload line.
 */
static int payload_lines(struct tl_engine *eng, bool keep, bool *truncated, struct tl_err *err)
{
    struct tl_reader *r = eng->reader;
    struct tl_str line;
    bool first = true;
    int got;
    if (keep)
        tl_buf_reset(&eng->payload);
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
            long_line(eng, tl_reader_lineno(r), line.n);
            continue;
        }
        if (!keep)
            continue;
        if (!tl_utf8_valid(line.p, line.n)) {
            /* The reference drops the line and then fails the whole run; we
             * keep the bytes as they are (the md5 is over what was written). */
            eng->stats.fail_utf8++;
            engine_warnf(eng, TL_W_UTF8, tl_reader_lineno(r),
                         "invalid UTF-8 in a payload line; kept as is");
        }
        if (!first)
            tl_buf_addch(&eng->payload, '\n');
        first = false;
        tl_buf_add(&eng->payload, line.p + 1, line.n - 1);
        if (tl_interrupted)
            break;
    }
    if (got < 0)
        return -1;
    /* Ending at a line boundary is indistinguishable from a wrong md5. */
    *truncated = keep && got == 0 && !first && tl_reader_last_unterminated(r);
    return 0;
}

static void record_unknown(struct tl_engine *eng, const struct tl_envelope *env)
{
    eng->stats.unknown += env->n_unknown;
    for (size_t i = 0; i < env->n_unknown; i++) {
        if (eng->opt->verbose) {
            struct tl_buf b = TL_BUF_INIT;
            tl_buf_add_printable(&b, env->unknown[i].p, env->unknown[i].n);
            tl_say(&eng->msg, TL_MSG_INFO, "tlparse: Unknown field %s", b.buf);
            tl_buf_release(&b);
        }
        if (tl_map_len(&eng->unknown_keys) < 1000)
            tl_map_put(&eng->unknown_keys, env->unknown[i], (void *)1);
    }
}

/* A `str` entry: the string table (spec §1.7). */
static void string_table(struct tl_engine *eng, const struct tl_envelope *env, uint64_t lineno)
{
    const struct tl_json *pair = env->key[TL_K_STR];
    uint32_t id = (uint32_t)pair->u.arr.items[1].u.num.u;
    if (!tl_strtab_set(&eng->model.strtab, id, pair->u.arr.items[0].u.str)) {
        eng->stats.fail_str_table++;
        engine_warnf(eng, TL_W_STRTAB, lineno, "string table id %u is too large; entry ignored",
                     id);
    }
}

/* Whether a sink or the diagnosis needs this record's payload. */
static bool payload_needed(struct tl_engine *eng, const struct tl_record *rec)
{
    if (eng->all_payloads)
        return true;
    if (rec->status != TL_REC_OK)
        return false;
    if (tl_diag_trace_wants_payload(rec))
        return true;
    for (size_t i = 0; i < eng->nsinks; i++) {
        const struct tl_sink_ops *ops = eng->sinks[i].ops;
        if (ops->wants_payload && ops->wants_payload(eng->sinks[i].self, rec))
            return true;
    }
    return false;
}

/* The payload of the entry; its md5 is checked once the entry is done with it (md5q.h).
 * A payload no sink needs is skipped, unchecked. */
static int read_payload(struct tl_engine *eng, struct tl_record *rec, struct tl_err *err)
{
    const struct tl_json *hp = rec->env->key[TL_K_HAS_PAYLOAD];
    rec->payload = TL_STR_LIT("");
    if (!hp)
        return 0;
    bool truncated;
    if (!payload_needed(eng, rec))
        return payload_lines(eng, false, &truncated, err);
    if (payload_lines(eng, true, &truncated, err) < 0)
        return -1;
    if (tl_interrupted)
        return tl_error_code(err, TL_ERR_SIGNAL, "interrupted");
    eng->md5_due = true;
    eng->md5_want = hp->u.str;
    eng->md5_truncated = truncated;
    rec->has_payload = true;
    rec->payload = tl_buf_str(&eng->payload);
    return 0;
}

/* Entries of another rank than the log's first are not this log's (spec §1.8 step 5). */
static bool rank_is_ours(struct tl_engine *eng, const struct tl_envelope *env)
{
    const struct tl_json *rank = env->key[TL_K_RANK];
    if (eng->have_rank)
        return rank && rank->u.num.u == eng->rank;
    if (rank) {
        eng->have_rank = true;
        eng->rank = (uint32_t)rank->u.num.u;
        if (eng->opt->verbose)
            tl_say(&eng->msg, TL_MSG_INFO, "tlparse: Detected rank: %u", eng->rank);
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

/* The payload the sinks see: redacted into eng->redacted (the md5 check still reads the
 * payload as logged, in eng->payload). */
static void redact_payload(struct tl_engine *eng, struct tl_record *rec)
{
    tl_buf_reset(&eng->redacted);
    tl_redact_payload(&eng->redact, &eng->redacted, rec->payload, payload_kind(rec->env));
    rec->payload = tl_buf_str(&eng->redacted);
}

/* Hand the record to the sinks that take it, in order. */
static int dispatch(struct tl_engine *eng, struct tl_record *rec, struct tl_err *err)
{
    unsigned want = rec->status == TL_REC_OTHER_RANK ? TL_WANT_OTHER_RANK
                    : rec->status == TL_REC_BAD      ? TL_WANT_BAD
                                                     : 0;
    for (size_t i = 0; i < eng->nsinks; i++) {
        const struct tl_sink_ops *ops = eng->sinks[i].ops;
        if (want && !(ops->wants & want))
            continue;
        if (ops->record(eng->sinks[i].self, &eng->ctx, rec, err) < 0)
            return -1;
    }
    return 0;
}

/* An envelope that decoded: its payload, its rank, then the sinks and the model. */
static int use_envelope(struct tl_engine *eng, struct tl_record *rec, struct tl_err *err)
{
    const struct tl_envelope *env = rec->env;
    record_unknown(eng, env);
    if (env->key[TL_K_STR]) {
        string_table(eng, env, rec->lineno);
        return 0;
    }
    bool ours = rank_is_ours(eng, env);
    if (ours) {
        tl_record_decode(rec, &eng->model.dir, &eng->scratch);
        if (!rec->cid_ok)
            eng->saw_unknown_cid = true;
    } else {
        rec->status = TL_REC_OTHER_RANK;
    }
    if (read_payload(eng, rec, err) < 0)
        return -1;
    if (eng->redacting && rec->has_payload)
        redact_payload(eng, rec);
    if (!ours) {
        eng->stats.other_rank++;
        return dispatch(eng, rec, err);
    }
    eng->stats.ok++;
    if (dispatch(eng, rec, err) < 0)
        return -1;
    tl_diag_trace_record(eng->diag, &eng->model, rec, eng->have_rank ? (int64_t)eng->rank : -1,
                         &eng->scratch);
    tl_model_apply(&eng->model, rec, &eng->scratch);
    return 0;
}

/* The glog prefix and the envelope of a line; the payload lines that follow move the
 * reader's buffer, so the envelope and path are copied first. */
static bool split_line(struct tl_engine *eng, struct tl_str line, uint64_t lineno,
                       struct tl_glog *g)
{
    if (!tl_glog_parse(line, g)) {
        eng->stats.fail_glog++;
        engine_warnf(eng, TL_W_GLOG, lineno, "Failed to parse glog prefix");
        return false;
    }
    tl_buf_reset(&eng->env_text);
    tl_buf_add(&eng->env_text, g->envelope.p, g->envelope.n);
    size_t path_at = eng->env_text.len;
    tl_buf_addstr(&eng->env_text, g->pathname);
    g->envelope = tl_str_make(eng->env_text.buf, path_at);
    g->pathname = tl_str_make(eng->env_text.buf + path_at, g->pathname.n);
    return true;
}

/* One entry: its line, payload and records. */
static int entry(struct tl_engine *eng, struct tl_str line, struct tl_record *rec,
                 struct tl_err *err)
{
    uint64_t lineno = tl_reader_lineno(eng->reader);
    bool repaired = !tl_utf8_valid(line.p, line.n), skip;
    if (repaired) {
        /* The reference skips the line and then fails the whole run; we replace the bad
         * bytes and keep the entry. It is counted once: below, unless a worse problem
         * counts it first. */
        tl_buf_reset(&eng->utf8_fix);
        tl_utf8_sanitize(&eng->utf8_fix, line.p, line.n);
        line = tl_buf_str(&eng->utf8_fix);
    }
    struct tl_glog g;
    if (!split_line(eng, line, lineno, &g))
        return 0;
    struct tl_json root;
    struct tl_json_error je;
    struct tl_envelope env;
    char why[256];
    rec->lineno = lineno;
    rec->glog = &g;
    rec->root = &root;
    if (tl_json_parse(&eng->scratch, g.envelope.p, g.envelope.n, &root, &je) < 0) {
        eng->stats.fail_json++;
        engine_warnf(eng, TL_W_JSON, lineno, "Failed to parse metadata JSON: %s at column %zu",
                     je.msg, je.offset + 1);
        return payload_lines(eng, false, &skip, err);
    }
    /* Before anything reads it: the diagnosis, the pages and every file see it redacted. */
    if (eng->redacting)
        tl_redact_json(&eng->redact, &eng->scratch, &root, NULL);
    if (tl_envelope_decode(&root, &env, &eng->scratch, why, sizeof(why)) < 0) {
        eng->stats.fail_json++;
        engine_warnf(eng, TL_W_JSON, lineno, "Failed to parse metadata JSON: %s", why);
        rec->status = TL_REC_BAD;
        if (root.type == TL_JSON_OBJECT && dispatch(eng, rec, err) < 0)
            return -1;
        return payload_lines(eng, false, &skip, err);
    }
    if (repaired) {
        eng->stats.fail_utf8++;
        engine_warnf(eng, TL_W_UTF8, lineno, "invalid UTF-8 replaced by U+FFFD");
    }
    rec->env = &env;
    return use_envelope(eng, rec, err);
}

/* Every line of the log. */
static int parse(struct tl_engine *eng, struct tl_err *err)
{
    struct tl_str line;
    int got, rc = 0;
    while (rc == 0 && (got = tl_reader_next(eng->reader, &line, err)) >= 1) {
        if (tl_interrupted)
            return tl_error_code(err, TL_ERR_SIGNAL, "interrupted");
        tl_progress_update(&eng->progress, tl_reader_file_pos(eng->reader));
        if (got == TL_READER_LONG) {
            long_line(eng, tl_reader_lineno(eng->reader), line.n);
            continue;
        }
        if (line.n == 0)
            continue;
        uint64_t lineno = tl_reader_lineno(eng->reader);
        struct tl_record rec;
        tl_record_init(&rec);
        eng->md5_due = false;
        rc = entry(eng, line, &rec, err);
        if (eng->md5_due)
            tl_md5q_submit(eng->md5q, lineno, eng->md5_want, eng->md5_truncated, &eng->payload);
        tl_record_release(&rec);
        tl_arena_reset(&eng->scratch);
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
static void redact_init(struct tl_engine *eng)
{
    const struct tl_options *opt = eng->opt;
    uint8_t salt[16];
    if (opt->redact_salt)
        memcpy(salt, opt->redact_salt, sizeof(salt));
    else if (getrandom(salt, sizeof(salt), 0) != (ssize_t)sizeof(salt))
        for (size_t i = 0; i < sizeof(salt); i++) /* no entropy source: still a salt */
            salt[i] = (uint8_t)(rand() ^ (int)time(NULL) ^ (int)getpid());
    tl_redact_init(&eng->redact, salt, opt->redact_paths);
    eng->redacting = true;
    eng->info.redacted = opt->redact_paths ? "--redact=paths" : "--redact";
    if (!opt->redact_paths)
        return;
    struct tl_buf b = TL_BUF_INIT;
    if (eng->info.input) {
        tl_redact_path(&eng->redact, &b, tl_str_cstr(eng->info.input));
        eng->redacted_input = tl_buf_detach(&b, NULL);
        eng->info.input = eng->redacted_input;
    }
    if (eng->info.command_line) {
        tl_redact_hash(&eng->redact, &b, tl_str_cstr(eng->info.command_line));
        eng->redacted_command = tl_buf_detach(&b, NULL);
        eng->info.command_line = eng->redacted_command;
    }
}

static int current_year(void)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    return tm.tm_year + 1900;
}

static void engine_init(struct tl_engine *eng, const struct tl_engine_job *job)
{
    const struct tl_options *opt = job->opt;
    const char *name = job->name;
    memset(eng, 0, sizeof(*eng));
    eng->opt = opt;
    eng->reader = job->reader;
    /* In-memory runs (the fuzzer) stay single-threaded and deterministic. */
    eng->threads = !opt->no_threads && !opt->mem_input;
    eng->msg.opt = opt;
    eng->msg.progress = &eng->progress;
    eng->msg.input = name;
    tl_reader_on_truncated(eng->reader, log_truncated, eng);
    tl_runinfo_fill(&eng->info, opt, job->path, name);
    if (opt->redact)
        redact_init(eng);
    /* strbuf contract: an empty buffer points at the shared empty byte. */
    tl_buf_init(&eng->env_text, 0);
    tl_buf_init(&eng->payload, 0);
    tl_buf_init(&eng->redacted, 0);
    tl_buf_init(&eng->utf8_fix, 0);
    tl_arena_init(&eng->arena, 256 * 1024);
    tl_arena_init(&eng->scratch, 256 * 1024);
    tl_model_init(&eng->model, &eng->arena);
    tl_map_init(&eng->unknown_keys, &eng->arena);
    eng->diag = tl_diag_trace_new();
    eng->ctx = (struct tl_sink_ctx){
        .opt = opt,
        .out = job->out,
        .model = &eng->model,
        .info = &eng->info,
        .input = name,
        .stats = &eng->stats,
        .arena = &eng->arena,
        .scratch = &eng->scratch,
        .threads = eng->threads,
        .redacting = eng->redacting,
        .year = opt->year ? opt->year : current_year(),
        .engine = eng,
    };
    for (size_t i = 0; i < job->nsinks; i++) {
        const struct tl_sink_ops *ops = job->sinks[i].ops;
        eng->sinks[i].ops = ops;
        eng->sinks[i].self = ops->create(&eng->ctx, job->sinks[i].params);
        if (!ops->wants_payload)
            eng->all_payloads = true;
    }
    eng->nsinks = job->nsinks;
}

static void engine_release(struct tl_engine *eng)
{
    for (size_t i = 0; i < eng->nsinks; i++)
        eng->sinks[i].ops->destroy(eng->sinks[i].self);
    tl_reader_free(eng->reader);
    tl_md5q_free(eng->md5q);
    tl_diag_trace_free(eng->diag);
    tl_map_release(&eng->unknown_keys);
    tl_model_release(&eng->model);
    tl_arena_release(&eng->arena);
    tl_arena_release(&eng->scratch);
    tl_buf_release(&eng->env_text);
    tl_buf_release(&eng->payload);
    tl_buf_release(&eng->redacted);
    free(eng->redacted_input);
    free(eng->redacted_command);
    tl_buf_release(&eng->utf8_fix);
}

void tl_engine_job_add(struct tl_engine_job *job, const struct tl_sink_ops *ops, const void *params)
{
    if (job->nsinks >= TL_ENGINE_MAX_SINKS)
        abort(); /* a mode's mistake, not the log's */
    job->sinks[job->nsinks].ops = ops;
    job->sinks[job->nsinks].params = params;
    job->nsinks++;
}

/* The log's bytes, as the reader reads them, to the sinks that take them (raw.log). */
static int tee_bytes(void *ctx, const char *p, size_t n, struct tl_err *err)
{
    struct tl_engine *eng = ctx;
    for (size_t i = 0; i < eng->nsinks; i++) {
        const struct tl_sink_ops *ops = eng->sinks[i].ops;
        if (ops->bytes && ops->bytes(eng->sinks[i].self, &eng->ctx, p, n, err) < 0)
            return -1;
    }
    return 0;
}

static int start(struct tl_engine *eng, struct tl_err *err)
{
    tl_progress_init(&eng->progress, eng->opt->progress, tl_reader_file_size(eng->reader));
    eng->md5q = tl_md5q_new(4u << 20, eng->threads);
    if (eng->ctx.out)
        tl_outdir_write_behind(eng->ctx.out, eng->threads);
    bool tee = false;
    for (size_t i = 0; i < eng->nsinks; i++) {
        const struct tl_sink_ops *ops = eng->sinks[i].ops;
        tee |= ops->bytes != NULL;
        if (ops->start && ops->start(eng->sinks[i].self, &eng->ctx, err) < 0)
            return -1;
    }
    if (tee && tl_reader_set_tee(eng->reader, tee_bytes, eng, err) < 0)
        return -1;
    return 0;
}

static int finish(struct tl_engine *eng, struct tl_err *err)
{
    tl_diag_trace_finish(eng->diag, &eng->model);
    for (size_t i = 0; i < eng->nsinks; i++) {
        const struct tl_sink_ops *ops = eng->sinks[i].ops;
        if (ops->finish && ops->finish(eng->sinks[i].self, &eng->ctx, err) < 0)
            return -1;
    }
    return 0;
}

/* The Stats line, and what the log held that this tlparse does not know. */
static void print_stats(struct tl_engine *eng, uint64_t bytes)
{
    if (bytes == 0)
        tl_say(&eng->msg, TL_MSG_WARNING,
               "tlparse: warning: %s is empty: the report has nothing in it (was the trace "
               "written by a process that had not compiled anything yet?)",
               eng->msg.input);
    struct tl_buf b = TL_BUF_INIT;
    tl_stats_format(&b, &eng->stats);
    tl_say(&eng->msg, TL_MSG_INFO, "%s", b.buf);
    size_t n = tl_map_len(&eng->unknown_keys);
    if (n) {
        tl_buf_reset(&b);
        tl_buf_adds(&b, "Unknown fields: {");
        for (size_t i = 0; i < n; i++) {
            if (i)
                tl_buf_adds(&b, ", ");
            tl_buf_addch(&b, '"');
            struct tl_str k = tl_map_at(&eng->unknown_keys, i)->key;
            tl_buf_add_printable(&b, k.p, k.n);
            tl_buf_addch(&b, '"');
        }
        tl_buf_adds(&b, "} (consider updating tlparse to render these)");
        tl_say(&eng->msg, TL_MSG_INFO, "%s", b.buf);
    }
    tl_buf_release(&b);
}

int tl_engine_run(const struct tl_engine_job *job, struct tl_engine_result *res, struct tl_err *err)
{
    struct tl_engine eng;
    engine_init(&eng, job);
    int rc = start(&eng, err);
    if (rc == 0)
        rc = parse(&eng, err);
    memset(res, 0, sizeof(*res));
    res->bytes_in = tl_reader_offset(eng.reader);
    res->lines = tl_reader_lineno(eng.reader);
    res->truncated = tl_reader_truncated(eng.reader);
    tl_reader_free(eng.reader);
    eng.reader = NULL;
    tl_progress_clear(&eng.progress);
    drain_md5(&eng);
    if (rc == 0)
        rc = finish(&eng, err);
    if (rc == 0 && job->done)
        job->done(job->done_ctx, &eng.model, &eng.info);
    /* --summary and --json leave out the Stats line of a log that was read, unless --strict
     * fails on it: its error points at the line. */
    bool strict_fails = eng.opt->strict && (tl_stats_strict_failures(&eng.stats) || res->truncated);
    if (rc == 0 && !(eng.opt->summary && eng.stats.ok && !strict_fails))
        print_stats(&eng, res->bytes_in);
    res->stats = eng.stats;
    if (rc == 0)
        tl_counts_of(&res->counts, &eng.model.diag);
    res->saw_unknown_cid = eng.saw_unknown_cid;
    /* Lines, and not one entry in them (nor a string table): not a trace. */
    res->no_entries = !eng.stats.ok && !eng.stats.other_rank && !eng.model.strtab.len &&
                      (eng.stats.fail_glog || eng.stats.fail_json || eng.stats.fail_line_too_long);
    res->compile_ids = tl_map_len(&eng.model.dir.keys);
    engine_release(&eng);
    return rc;
}

/* ---- facts for the modes ------------------------------------------------------------------ */

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
