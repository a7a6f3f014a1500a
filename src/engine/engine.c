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
#include "base/md5.h"
#include "base/progress.h"
#include "base/utf8.h"
#include "base/xalloc.h"
#include "input/envelope.h"
#include "input/glog.h"
#include "input/lines.h"
#include "input/md5q.h"
#include "model/diag_text.h"
#include "model/diag_trace.h"
#include "model/redact.h"

extern const char tl_revision[]; /* revision.c, written by cmake/Revision.cmake */

/* One log being run through the sinks. */
struct tl_engine {
    const struct tl_options *opt;
    struct tl_report_settings report; /* what the sinks read of opt */
    bool threads;                     /* helper threads (md5 checks, writes, the raw.log copy) */
    struct tl_messages msg;
    struct tl_progress progress;
    struct tl_arena arena;   /* run lifetime */
    struct tl_arena scratch; /* reset after every entry */
    struct tl_model model;
    struct tl_diag_trace *diag; /* the model's diagnosis, record by record (a trace) */
    struct tl_diag_text *text;  /* the model's diagnosis, line by line (TORCH_LOGS text) */
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

    /* the bytes fed, as lines */
    struct tl_lines lines;
    /* the entry being read: its head line is decoded as it comes; its payload lines follow
     * (kept when some sink or the diagnosis reads them), and it is handed on when a line
     * that is not one of them comes, or the input ends */
    enum { ENTRY_NONE, ENTRY_SKIP, ENTRY_PAYLOAD } state;
    bool keep;            /* ENTRY_PAYLOAD: its payload is kept (else skipped) */
    bool ours;            /* ENTRY_PAYLOAD: an entry of the log's rank */
    bool payload_started; /* a payload line was kept */
    struct tl_record rec; /* its record */
    struct tl_glog glog;  /* its prefix (views into env_text) */
    struct tl_json root;  /* its envelope's JSON (in scratch) */
    struct tl_envelope env;
    struct tl_buf env_text; /* its envelope and path, copied out of the line */
    struct tl_buf payload;  /* its payload */
    struct tl_buf redacted; /* its payload as --redact leaves it */
    struct tl_buf utf8_fix; /* its line, with invalid UTF-8 repaired */
    struct tl_md5q *md5q;   /* payload checks, on a worker thread */
    bool md5_due;           /* the payload awaits its check */
    bool md5_truncated;
    struct tl_str md5_want; /* has_payload, borrowed until the entry is done */
    /* tl_engine_settle: an entry (a message of text) was taken as complete early; and a line
     * that belonged to it came after all (the records differ from a batch run's) */
    bool settle_cut, diverged;
    /* tl_engine_settle handed on an entry whose payload nobody reads: its payload lines still
     * to come are skipped (ENTRY_SKIP) as a batch run skips them */
    bool quiet_cut;
    const char *path; /* the log's file (the footer's size and time); NULL: none */

    void (*job_done)(void *ctx, const struct tl_model *model, const struct tl_runinfo *info);
    void *job_done_ctx;
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

static void long_line(struct tl_engine *eng, uint64_t lineno, uint64_t len)
{
    eng->stats.fail_line_too_long++;
    engine_warnf(eng, TL_W_LONG, lineno, "line of %llu bytes is over the %zu MiB limit; skipped",
                 (unsigned long long)len, TL_READER_MAX_LINE >> 20);
}

/* ---- an entry ---------------------------------------------------------------------------- */

static void record_unknown(struct tl_engine *eng, const struct tl_envelope *env)
{
    eng->stats.unknown += env->n_unknown;
    for (size_t i = 0; i < env->n_unknown; i++) {
        if (eng->opt->verbose) {
            struct tl_buf b = TL_BUF_INIT;
            tl_buf_add_nonul(&b, env->unknown[i].p, env->unknown[i].n);
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
    if (tl_diag_trace_wants_payload(rec) || tl_model_wants_payload(rec))
        return true;
    for (size_t i = 0; i < eng->nsinks; i++) {
        const struct tl_sink_ops *ops = eng->sinks[i].ops;
        if (ops->wants_payload && ops->wants_payload(eng->sinks[i].self, rec))
            return true;
    }
    return false;
}

/* PyTorch 2.13 logs its version once per process, without a rank even in a distributed run
 * (the reference would count it as another rank's entry): it is the log's own. */
static bool rankless_ours(const struct tl_envelope *env)
{
    const struct tl_json *a = env->key[TL_K_ARTIFACT];
    struct tl_str name = a ? tl_env_str(a, "name") : TL_STR_NULL;
    return name.p && tl_str_eq_cstr(name, "torch_version");
}

/* Entries of another rank than the log's first are not this log's (spec §1.8 step 5). */
static bool rank_is_ours(struct tl_engine *eng, const struct tl_envelope *env)
{
    const struct tl_json *rank = env->key[TL_K_RANK];
    if (eng->have_rank)
        return rank ? rank->u.num.u == eng->rank : rankless_ours(env);
    if (rank) {
        eng->have_rank = true;
        eng->rank = (uint32_t)rank->u.num.u;
        if (eng->opt->verbose)
            tl_say(&eng->msg, TL_MSG_INFO, "tlparse: Detected rank: %u", eng->rank);
    }
    return true;
}

/* ---- --redact ------------------------------------------------------------------------------ */

/* The payload the sinks see: redacted into eng->redacted (the md5 check still reads the
 * payload as logged, in eng->payload). */
static void redact_payload(struct tl_engine *eng, struct tl_record *rec)
{
    tl_buf_reset(&eng->redacted);
    tl_redact_payload(&eng->redact, &eng->redacted, rec->payload, tl_redact_kind(rec->env));
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
        if (!ops->record || (want && !(ops->wants & want)))
            continue;
        if (ops->record(eng->sinks[i].self, &eng->ctx, rec, err) < 0)
            return -1;
    }
    return 0;
}

/* The entry is done: its scratch memory and record go, its payload check is queued. */
static void end_entry(struct tl_engine *eng)
{
    if (eng->md5_due)
        tl_md5q_submit(eng->md5q, eng->rec.lineno, eng->md5_want, eng->md5_truncated,
                       &eng->payload);
    eng->md5_due = false;
    tl_record_release(&eng->rec);
    tl_arena_reset(&eng->scratch);
    eng->state = ENTRY_NONE;
}

/* An entry with its payload (truncated: the input ended in the middle of it): to the sinks,
 * the diagnosis and the model. Its payload's md5 is checked once it is done (md5q.h). */
static int complete_entry(struct tl_engine *eng, bool truncated, struct tl_err *err)
{
    struct tl_record *rec = &eng->rec;
    int rc = 0;
    if (eng->keep) {
        eng->md5_due = true;
        eng->md5_want = rec->env->key[TL_K_HAS_PAYLOAD]->u.str;
        eng->md5_truncated = truncated;
        rec->has_payload = true;
        rec->payload = tl_buf_str(&eng->payload);
    }
    if (eng->redacting && rec->has_payload)
        redact_payload(eng, rec);
    if (!eng->ours) {
        eng->stats.other_rank++;
        rc = dispatch(eng, rec, err);
    } else {
        eng->stats.ok++;
        rc = dispatch(eng, rec, err);
        if (rc == 0) {
            tl_diag_trace_record(eng->diag, &eng->model, rec,
                                 eng->have_rank ? (int64_t)eng->rank : -1, &eng->scratch);
            tl_model_apply(&eng->model, rec, &eng->scratch);
        }
    }
    end_entry(eng);
    return rc;
}

/* An envelope that decoded: its string table, or its rank and record; with a payload to
 * come, the entry waits for it. */
static int use_envelope(struct tl_engine *eng, struct tl_err *err)
{
    struct tl_record *rec = &eng->rec;
    const struct tl_envelope *env = rec->env;
    record_unknown(eng, env);
    if (env->key[TL_K_STR]) {
        string_table(eng, env, rec->lineno);
        end_entry(eng);
        return 0;
    }
    eng->ours = rank_is_ours(eng, env);
    if (eng->ours) {
        tl_record_decode(rec, &eng->model.dir, &eng->scratch);
        if (!rec->cid_ok)
            eng->saw_unknown_cid = true;
    } else {
        rec->status = TL_REC_OTHER_RANK;
    }
    rec->payload = TL_STR_LIT("");
    eng->keep = false;
    if (!env->key[TL_K_HAS_PAYLOAD])
        return complete_entry(eng, false, err);
    /* A payload nobody reads is skipped, unchecked. */
    eng->keep = payload_needed(eng, rec);
    eng->payload_started = false;
    if (eng->keep)
        tl_buf_reset(&eng->payload);
    eng->state = ENTRY_PAYLOAD;
    return 0;
}

/* The glog prefix and the envelope of a line, copied out of it (the line is gone by the time
 * the payload has come). */
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

/* The first line of an entry: its prefix and envelope, decoded. Its payload lines, if any,
 * come next (ENTRY_SKIP: skipped, the entry being unusable). */
static int entry_head(struct tl_engine *eng, struct tl_str line, uint64_t lineno, bool utf8,
                      struct tl_err *err)
{
    struct tl_record *rec = &eng->rec;
    tl_record_init(rec);
    eng->md5_due = false;
    bool repaired = !utf8 && !tl_utf8_valid(line.p, line.n);
    if (repaired) {
        /* The reference skips the line and then fails the whole run; we replace the bad
         * bytes and keep the entry. It is counted once: below, unless a worse problem
         * counts it first. */
        tl_buf_reset(&eng->utf8_fix);
        tl_utf8_sanitize(&eng->utf8_fix, line.p, line.n);
        line = tl_buf_str(&eng->utf8_fix);
    }
    if (!split_line(eng, line, lineno, &eng->glog)) {
        end_entry(eng);
        return 0;
    }
    struct tl_json_error je;
    char why[256];
    rec->lineno = lineno;
    rec->glog = &eng->glog;
    rec->root = &eng->root;
    const struct tl_str e = eng->glog.envelope;
    if (tl_json_parse(&eng->scratch, e.p, e.n, &eng->root, &je) < 0) {
        eng->stats.fail_json++;
        engine_warnf(eng, TL_W_JSON, lineno, "Failed to parse metadata JSON: %s at column %zu",
                     je.msg, je.offset + 1);
        eng->state = ENTRY_SKIP;
        return 0;
    }
    /* Before anything reads it: the diagnosis, the pages and every file see it redacted. */
    if (eng->redacting)
        tl_redact_json(&eng->redact, &eng->scratch, &eng->root, NULL);
    if (tl_envelope_decode(&eng->root, &eng->env, &eng->scratch, why, sizeof(why)) < 0) {
        eng->stats.fail_json++;
        engine_warnf(eng, TL_W_JSON, lineno, "Failed to parse metadata JSON: %s", why);
        rec->status = TL_REC_BAD;
        if (eng->root.type == TL_JSON_OBJECT && dispatch(eng, rec, err) < 0)
            return -1;
        eng->state = ENTRY_SKIP;
        return 0;
    }
    if (repaired) {
        eng->stats.fail_utf8++;
        engine_warnf(eng, TL_W_UTF8, lineno, "invalid UTF-8 replaced by U+FFFD");
    }
    rec->env = &eng->env;
    return use_envelope(eng, err);
}

/* A payload line of the entry (its leading tab included): kept, or skipped. */
static void payload_line(struct tl_engine *eng, const struct tl_line *l)
{
    if (l->long_line) {
        long_line(eng, l->lineno, l->len);
        return;
    }
    if (eng->state != ENTRY_PAYLOAD || !eng->keep)
        return;
    struct tl_str t = l->text;
    if (!l->utf8 && !tl_utf8_valid(t.p, t.n)) {
        /* The reference drops the line and then fails the whole run; we keep the bytes as
         * they are (the md5 is over what was written). */
        eng->stats.fail_utf8++;
        engine_warnf(eng, TL_W_UTF8, l->lineno, "invalid UTF-8 in a payload line; kept as is");
    }
    if (eng->payload_started)
        tl_buf_addch(&eng->payload, '\n');
    eng->payload_started = true;
    tl_buf_add(&eng->payload, t.p + 1, t.n - 1);
}

/* A line of TORCH_LOGS text: its compile id counted, to the sinks, then to the text reader. */
static int text_line(struct tl_engine *eng, const struct tl_line *l, struct tl_err *err)
{
    struct tl_text_line tl = {.lineno = l->lineno, .text = l->text};
    if (l->long_line)
        tl.text = TL_STR_LIT("(a line too long to read)");
    struct tl_tlog_line split;
    tl_tlog_split(tl.text, &split);
    tl.cid = tl_diag_text_cid(eng->text, &split, l->lineno, &tl.first_of_cid);
    for (size_t i = 0; i < eng->nsinks; i++) {
        const struct tl_sink_ops *ops = eng->sinks[i].ops;
        if (ops->text_line && ops->text_line(eng->sinks[i].self, &eng->ctx, &tl, err) < 0)
            return -1;
    }
    tl_diag_text_feed(eng->text, l->lineno, tl.text);
    return 0;
}

/* Every line of the log (tl_lines): an entry's first line, one of its payload lines, or a
 * line that ends the entry before it; or a line of TORCH_LOGS text. */
static int on_line(void *ctx, const struct tl_line *l, struct tl_err *err)
{
    struct tl_engine *eng = ctx;
    if (tl_stop_asked(eng->opt->cancel))
        return tl_error_code(err, TL_ERR_SIGNAL, "interrupted");
    if (eng->settle_cut && (l->long_line || l->len)) {
        /* The first line after an early end: a trace's payload line was part of the entry. */
        eng->diverged |= l->first == '\t';
        eng->settle_cut = false;
    }
    if (eng->quiet_cut && (l->long_line || l->len)) {
        /* Skipped as a batch run skips them, but a long one is said after the entry, not
         * before it. */
        eng->diverged |= l->long_line && l->first == '\t';
        eng->quiet_cut = l->first == '\t';
    }
    if (eng->text)
        return text_line(eng, l, err);
    if (eng->state != ENTRY_NONE) {
        if (!l->long_line && l->len == 0)
            return 0; /* blank lines inside a payload are not part of it */
        if (l->first == '\t') {
            payload_line(eng, l);
            return 0;
        }
        if (eng->state == ENTRY_PAYLOAD && complete_entry(eng, false, err) < 0)
            return -1;
        end_entry(eng);
    }
    if (l->long_line) {
        long_line(eng, l->lineno, l->len);
        return 0;
    }
    if (l->len == 0)
        return 0;
    return entry_head(eng, l->text, l->lineno, l->utf8, err);
}

/* The end of the input (truncated: the name of a compressed format whose data was cut off):
 * its last line, what is said of a cut-off input, and the entry it cut short, if any. */
static int end_of_input(struct tl_engine *eng, const char *truncated, struct tl_err *err)
{
    if (tl_lines_finish(&eng->lines, on_line, eng, err) < 0)
        return -1;
    if (truncated) {
        drain_md5(eng);
        tl_say_truncated(&eng->msg, truncated, eng->lines.lineno);
    }
    if (eng->state == ENTRY_PAYLOAD) {
        /* Ending at a line boundary is indistinguishable from a wrong md5. */
        bool cut = eng->keep && eng->payload_started && eng->lines.last_unterminated;
        return complete_entry(eng, cut, err);
    }
    if (eng->state != ENTRY_NONE)
        end_entry(eng);
    return 0;
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
    eng->job_done = job->done;
    eng->job_done_ctx = job->done_ctx;
    /* In-memory runs (the fuzzer) stay single-threaded and deterministic. */
    eng->threads = !opt->no_threads && !opt->mem_input;
    eng->msg.opt = opt;
    eng->msg.input = name;
    tl_lines_init(&eng->lines, TL_READER_MAX_LINE);
    tl_runinfo_fill(&eng->info, opt, job->path, name);
    eng->path = job->path;
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
    if (job->text)
        eng->text = tl_diag_text_new(&eng->model);
    else
        eng->diag = tl_diag_trace_new();
    eng->report = (struct tl_report_settings){
        .custom_header_html = opt->custom_header_html,
        .plain_text = opt->plain_text,
        .provenance = opt->inductor_provenance,
        .export_mode = opt->export_mode,
        .name_order = opt->name_order,
        .parsers = opt->parsers,
        .nparsers = opt->nparsers,
    };
    eng->ctx = (struct tl_sink_ctx){
        .report = &eng->report,
        .out = job->out,
        .model = &eng->model,
        .info = &eng->info,
        .input = name,
        .text = job->text,
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
    if (eng->state != ENTRY_NONE)
        end_entry(eng);
    tl_lines_release(&eng->lines);
    tl_md5q_free(eng->md5q);
    tl_diag_trace_free(eng->diag);
    tl_diag_text_free(eng->text);
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

struct tl_engine *tl_engine_new(const struct tl_engine_job *job)
{
    struct tl_engine *eng = tl_xmalloc(sizeof(*eng));
    engine_init(eng, job);
    return eng;
}

void tl_engine_free(struct tl_engine *eng)
{
    if (!eng)
        return;
    engine_release(eng);
    free(eng);
}

int tl_engine_start(struct tl_engine *eng, uint64_t size, struct tl_err *err)
{
    tl_progress_init(&eng->progress, eng->opt->progress, eng->opt->progress_ctx, size);
    eng->md5q = tl_md5q_new(4u << 20, eng->threads);
    if (eng->ctx.out)
        tl_outdir_write_behind(eng->ctx.out, eng->threads);
    for (size_t i = 0; i < eng->nsinks; i++) {
        const struct tl_sink_ops *ops = eng->sinks[i].ops;
        if (ops->start && ops->start(eng->sinks[i].self, &eng->ctx, err) < 0)
            return -1;
    }
    return 0;
}

int tl_engine_feed(struct tl_engine *eng, const char *p, size_t n, struct tl_err *err)
{
    /* The bytes as they came, to the sinks that take them (raw.log), before their records. */
    for (size_t i = 0; i < eng->nsinks; i++) {
        const struct tl_sink_ops *ops = eng->sinks[i].ops;
        if (ops->bytes && ops->bytes(eng->sinks[i].self, &eng->ctx, p, n, err) < 0)
            return -1;
    }
    return tl_lines_feed(&eng->lines, p, n, on_line, eng, err);
}

/* Whether the payload read so far is the one the entry announced (its md5 is has_payload's). */
static bool payload_whole(const struct tl_engine *eng)
{
    struct tl_str want = eng->rec.env->key[TL_K_HAS_PAYLOAD]->u.str;
    char got[33];
    tl_md5_hex(eng->payload.buf, eng->payload.len, got);
    return want.n == 32 && !memcmp(want.p, got, 32);
}

int tl_engine_settle(struct tl_engine *eng, struct tl_err *err)
{
    if (tl_lines_pending(&eng->lines))
        return 0;    /* a line is being written: its entry is not complete */
    if (eng->text) { /* said as it is, kept open: tl_diag_text_diverged tells */
        tl_diag_text_settle(eng->text);
        return 0;
    }
    drain_md5(eng);
    /* An unusable entry gives nothing: its lines are skipped as they come. A payload that is
     * read and is not yet the one announced is held until the rest of it, or the next entry,
     * comes: handed on now, the entry would differ from a batch run's. */
    if (eng->state != ENTRY_PAYLOAD || (eng->keep && !payload_whole(eng)))
        return 0;
    bool kept = eng->keep;
    eng->settle_cut |= kept; /* a payload line after it would have changed it */
    if (complete_entry(eng, false, err) < 0)
        return -1;
    if (!kept) {
        tl_record_init(&eng->rec);
        eng->state = ENTRY_SKIP;
        eng->quiet_cut = true;
    }
    return 0;
}

bool tl_engine_diverged(const struct tl_engine *eng)
{
    return eng->diverged || (eng->text && tl_diag_text_diverged(eng->text));
}

/* The log's size and time as they are now (a log still written: its final ones at the end). */
static void restat(struct tl_engine *eng)
{
    struct stat st;
    if (eng->path && stat(eng->path, &st) == 0 && S_ISREG(st.st_mode)) {
        eng->info.has_stat = true;
        eng->info.input_size = (uint64_t)st.st_size;
        eng->info.input_mtime = (int64_t)st.st_mtime;
    }
}

void tl_engine_restat(struct tl_engine *eng)
{
    restat(eng);
}

int tl_engine_publish(struct tl_engine *eng, struct tl_outdir *out, struct tl_err *err)
{
    drain_md5(eng);
    restat(eng);
    if (eng->text) {
        tl_diag_text_finish(eng->text);
    } else {
        tl_model_finish(&eng->model);
        tl_diag_trace_finish(eng->diag, &eng->model);
    }
    eng->ctx.out = out;
    for (size_t i = 0; i < eng->nsinks; i++) {
        const struct tl_sink_ops *ops = eng->sinks[i].ops;
        if (ops->publish && ops->publish(eng->sinks[i].self, &eng->ctx, err) < 0)
            return -1;
    }
    return 0;
}

const struct tl_model *tl_engine_model(const struct tl_engine *eng)
{
    return &eng->model;
}

static int finish(struct tl_engine *eng, struct tl_err *err)
{
    if (eng->text)
        tl_diag_text_finish(eng->text);
    else {
        tl_model_finish(&eng->model);
        tl_diag_trace_finish(eng->diag, &eng->model);
    }
    for (size_t i = 0; i < eng->nsinks; i++) {
        const struct tl_sink_ops *ops = eng->sinks[i].ops;
        if (ops->finish && ops->finish(eng->sinks[i].self, &eng->ctx, err) < 0)
            return -1;
    }
    return 0;
}

/* The Stats line, and what the log held that this tlparse does not know; for TORCH_LOGS text,
 * how much of it the text reader understood. */
static void print_stats(struct tl_engine *eng, uint64_t bytes)
{
    if (eng->text) {
        const struct tl_text_facts *t = &eng->model.text;
        if (eng->opt->summary == TL_SUMMARY_NONE)
            tl_say(&eng->msg, TL_MSG_INFO,
                   "TORCH_LOGS text: %llu lines, %llu messages, %llu lines not understood",
                   (unsigned long long)t->lines, (unsigned long long)t->messages,
                   (unsigned long long)t->unrecognized);
        return;
    }
    if (bytes == 0 && !tl_engine_content_required(eng->opt)) /* else an error says it */
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
            tl_buf_add_nonul(&b, k.p, k.n);
            tl_buf_addch(&b, '"');
        }
        tl_buf_adds(&b, "} (consider updating tlparse to render these)");
        tl_say(&eng->msg, TL_MSG_INFO, "%s", b.buf);
    }
    tl_buf_release(&b);
}

/* Why the log holds nothing to check, into res->nothing ("" when it holds something): no
 * entry for a trace (its string table is none; the first entry's rank is the log's, so one of
 * another rank comes after one of its own), no message and no compile id for TORCH_LOGS text. */
static void nothing_to_check(const struct tl_engine *eng, struct tl_engine_result *res)
{
    char *why = res->nothing;
    size_t n = sizeof(res->nothing);
    unsigned long long lines = (unsigned long long)res->lines;
    const char *s = lines == 1 ? "" : "s";
    why[0] = '\0';
    if (eng->text) {
        const struct tl_text_facts *t = &eng->model.text;
        if (t->messages || t->ncids)
            return;
        if (!res->bytes_in)
            snprintf(why, n, "it is empty");
        else
            snprintf(why, n, "its %llu line%s hold%s no compile id and no message tlparse reads",
                     lines, s, lines == 1 ? "s" : "");
        return;
    }
    const struct tl_stats *st = &eng->stats;
    if (st->ok)
        return;
    if (!res->bytes_in)
        snprintf(why, n, "it is empty");
    else if (eng->model.strtab.len)
        snprintf(why, n, "its %llu line%s hold%s a string table and no TORCH_TRACE entry", lines, s,
                 lines == 1 ? "s" : "");
    else if (!tl_stats_strict_failures(st))
        snprintf(why, n, "its %llu line%s %s blank", lines, s, lines == 1 ? "is" : "are");
    else
        snprintf(why, n, "its %llu line%s hold%s no TORCH_TRACE entry", lines, s,
                 lines == 1 ? "s" : "");
}

int tl_engine_finish(struct tl_engine *eng, const char *truncated, int rc,
                     struct tl_engine_result *res, struct tl_err *err)
{
    if (rc == 0)
        rc = end_of_input(eng, truncated, err);
    if (rc == 0 && tl_stop_asked(eng->opt->cancel))
        rc = tl_error_code(err, TL_ERR_SIGNAL, "interrupted");
    memset(res, 0, sizeof(*res));
    res->bytes_in = eng->lines.bytes;
    res->lines = eng->lines.lineno;
    res->truncated = truncated != NULL;
    drain_md5(eng);
    if (rc == 0)
        rc = finish(eng, err);
    if (rc == 0 && eng->job_done)
        eng->job_done(eng->job_done_ctx, &eng->model, &eng->info);
    nothing_to_check(eng, res);
    /* --summary and --json leave out the Stats line of a log that was read, unless --strict
     * fails on it: its error points at the line; and of a log that holds nothing, when that
     * is an error: the error says it. */
    bool strict_fails = eng->opt->strict && (tl_stats_strict_failures(&eng->stats) || truncated);
    bool said = eng->stats.ok || (res->nothing[0] && tl_engine_content_required(eng->opt));
    if (rc == 0 && !(eng->opt->summary && said && !strict_fails))
        print_stats(eng, res->bytes_in);
    res->stats = eng->stats;
    if (rc == 0) {
        tl_counts_of(&res->counts, &eng->model.diag);
        tl_ledger_lines_of(&res->ledger, &eng->model.diag.ledger);
    }
    res->saw_unknown_cid = eng->saw_unknown_cid;
    /* Lines, and not one entry in them (nor a string table): not a trace. */
    res->no_entries =
        !eng->text && !eng->stats.ok && !eng->stats.other_rank && !eng->model.strtab.len &&
        (eng->stats.fail_glog || eng->stats.fail_json || eng->stats.fail_line_too_long);
    res->compile_ids = eng->text ? eng->model.text.ncids : tl_map_len(&eng->model.dir.keys);
    return rc;
}

/* A compressed log cut off (reader.h): said by tl_engine_finish, after the last line. */
static void note_truncated(void *ctx, const char *format, uint64_t lines)
{
    (void)lines;
    *(const char **)ctx = format;
}

int tl_engine_run(const struct tl_engine_job *job, struct tl_engine_result *res, struct tl_err *err)
{
    struct tl_engine *eng = tl_engine_new(job);
    struct tl_reader *r = job->reader;
    const char *truncated = NULL;
    tl_reader_on_truncated(r, note_truncated, &truncated);
    int rc = tl_engine_start(eng, tl_reader_file_size(r), err);
    const char *p;
    size_t n;
    int got = 0;
    while (rc == 0 && (got = tl_reader_read(r, &p, &n, err)) > 0) {
        rc = tl_engine_feed(eng, p, n, err);
        tl_progress_update(&eng->progress, tl_reader_file_pos(r));
    }
    if (rc == 0 && got < 0)
        rc = -1;
    tl_reader_free(r);
    rc = tl_engine_finish(eng, truncated, rc, res, err);
    tl_engine_free(eng);
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
    out->eager_frames = c.eager_frames;
    out->compile_time_s = c.have_times ? c.total_s : -1;
}

void tl_counts_add(struct tl_counts *sum, const struct tl_counts *c)
{
    sum->compile_ids += c->compile_ids;
    sum->graph_breaks += c->graph_breaks;
    sum->recompiles += c->recompiles;
    sum->specializations += c->specializations;
    sum->failures += c->failures;
    sum->recompile_limits += c->recompile_limits;
    sum->export_problems += c->export_problems;
    sum->eager_frames += c->eager_frames;
    if (c->compile_time_s >= 0)
        sum->compile_time_s =
            (sum->compile_time_s < 0 ? 0 : sum->compile_time_s) + c->compile_time_s;
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
