/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tl_run(): the one place that knows both the parsing and the rendering
 * side. It resolves the input, streams the log line by line (bytes ->
 * glog prefix -> JSON envelope -> payload -> parsers -> model), writes each
 * artifact as soon as its record is complete, and at the end writes the
 * pages that need the whole model (index, compile directory) and moves the
 * finished report into place.
 */
#include "base/config.h"
#include "run.h"
#include "report/html.h"
#include "base/json.h"
#include "base/json_write.h"
#include "input/md5q.h"
#include "input/reader.h"
#include "base/utf8.h"
#include "base/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t tl_interrupted;

#define WARN_CAP 20

const char *tl_version(void)
{
    return TL_VERSION;
}

static void vwarn(struct tl_ctx *c, enum tl_warn_kind kind, uint64_t lineno, const char *fmt,
                  va_list ap) TL_PRINTF(4, 0);

static void vwarn(struct tl_ctx *c, enum tl_warn_kind kind, uint64_t lineno, const char *fmt,
                  va_list ap)
{
    uint64_t n = ++c->warned[kind];
    if (n > WARN_CAP)
        return;
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    tl_progress_clear(&c->progress);
    /* Messages quote log text: keep control characters off the terminal. */
    struct tl_buf clean = TL_BUF_INIT;
    tl_buf_add_printable(&clean, msg, strlen(msg));
    if (lineno)
        fprintf(stderr, "tlparse: warning: %s:%llu: %s\n", c->input_name,
                (unsigned long long)lineno, clean.buf);
    else
        fprintf(stderr, "tlparse: warning: %s: %s\n", c->input_name, clean.buf);
    tl_buf_release(&clean);
    if (n == WARN_CAP)
        fprintf(stderr,
                "tlparse: warning: %s: further messages of this kind are not shown; "
                "the Stats line counts them\n",
                c->input_name);
}

static void warn_now(struct tl_ctx *c, enum tl_warn_kind kind, uint64_t lineno, const char *fmt,
                     ...) TL_PRINTF(4, 5);

static void warn_now(struct tl_ctx *c, enum tl_warn_kind kind, uint64_t lineno, const char *fmt,
                     ...)
{
    va_list ap;
    va_start(ap, fmt);
    vwarn(c, kind, lineno, fmt, ap);
    va_end(ap);
}

/* A payload check that failed (reported in line order, see md5q.h). */
static void md5_report(void *ctx, const struct tl_md5_result *r)
{
    struct tl_ctx *c = ctx;
    if (r->truncated) {
        /* A log cut off in the middle of a payload is the likely story
         * when the file ends without a newline inside it. */
        c->stats.fail_payload_truncated++;
        warn_now(c, TL_W_TRUNCATED, r->lineno,
                 "the log ends in the middle of this entry's payload");
    } else {
        c->stats.fail_payload_md5++;
        warn_now(c, TL_W_MD5, r->lineno, "payload md5 mismatch (has_payload %s, payload %s)",
                 r->want, r->got);
    }
}

static void drain_md5(struct tl_ctx *c)
{
    if (c->md5q)
        tl_md5q_drain(c->md5q, md5_report, c);
}

void tl_warn(struct tl_ctx *c, enum tl_warn_kind kind, uint64_t lineno, const char *fmt, ...)
{
    /* Earlier lines' payload checks first, so that messages stay in order. */
    drain_md5(c);
    va_list ap;
    va_start(ap, fmt);
    vwarn(c, kind, lineno, fmt, ap);
    va_end(ap);
}

/* ---- input selection -------------------------------------------------------------- */

static bool is_log_name(const char *name)
{
    return name[0] != '.';
}

/* The newest regular file of dir (ties: the name that sorts last). */
static int newest_in(const char *dir, char **out, size_t *others, struct tl_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return tl_error_code(err, TL_ERR_INPUT, "Couldn't access directory %s: %s", dir,
                             strerror(errno));
    struct dirent *e;
    char *best = NULL;
    struct timespec best_t = {0, 0};
    size_t count = 0;
    while ((e = readdir(d))) {
        if (!is_log_name(e->d_name))
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = tl_xmalloc(len);
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        count++;
        bool newer = !best || st.st_mtim.tv_sec > best_t.tv_sec ||
                     (st.st_mtim.tv_sec == best_t.tv_sec && st.st_mtim.tv_nsec > best_t.tv_nsec) ||
                     (st.st_mtim.tv_sec == best_t.tv_sec && st.st_mtim.tv_nsec == best_t.tv_nsec &&
                      strcmp(p, best) > 0);
        if (newer) {
            free(best);
            best = p;
            best_t = st.st_mtim;
        } else {
            free(p);
        }
    }
    closedir(d);
    if (!best)
        return tl_error_code(err, TL_ERR_INPUT, "No files found in directory %s", dir);
    *out = best;
    *others = count - 1;
    return 0;
}

static int resolve_input(const struct tl_options *opt, char **path, struct tl_err *err)
{
    struct stat st;
    if (stat(opt->path, &st) < 0) {
        if (opt->latest)
            return tl_error_code(err, TL_ERR_INPUT,
                                 "Input path %s is not a directory (required when using "
                                 "--latest)",
                                 opt->path);
        return tl_error_code(err, TL_ERR_INPUT, "cannot open %s: %s", opt->path, strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) {
        size_t others = 0;
        if (newest_in(opt->path, path, &others, err) < 0)
            return -1;
        fprintf(stderr, "tlparse: parsing %s, the newest log in %s (%zu other file%s skipped)\n",
                *path, opt->path, others, others == 1 ? "" : "s");
        return 0;
    }
    if (opt->latest)
        return tl_error_code(err, TL_ERR_INPUT,
                             "Input path %s is not a directory (required when using --latest)",
                             opt->path);
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
        return tl_error_code(err, TL_ERR_INPUT, "%s is not a file", opt->path);
    *path = tl_xstrdup(opt->path);
    return 0;
}

/* ---- context ------------------------------------------------------------------------ */

static void ctx_init(struct tl_ctx *c, const struct tl_options *opt)
{
    memset(c, 0, sizeof(*c));
    c->opt = opt;
    /* strbuf contract: an empty buffer points at the shared empty byte. */
    tl_buf_init(&c->page, 0);
    tl_buf_init(&c->env_text, 0);
    tl_buf_init(&c->payload, 0);
    tl_buf_init(&c->utf8_fix, 0);
    tl_arena_init(&c->arena, 256 * 1024);
    tl_arena_init(&c->scratch, 256 * 1024);
    tl_strtab_init(&c->strtab, &c->arena);
    tl_directory_init(&c->dir, &c->arena);
    tl_trie_init(&c->trie, &c->arena);
    tl_trie_init(&c->unknown_trie, &c->arena);
    tl_map_init(&c->metrics, &c->arena);
    tl_map_init(&c->starts, &c->arena);
    tl_map_init(&c->specs, &c->arena);
    tl_map_init(&c->fast_guards, &c->arena);
    tl_map_init(&c->unknown_keys, &c->arena);
    c->failures.fd = c->chromium.fd = c->raw_body.fd = -1;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    c->year = tm.tm_year + 1900;
    const char *y = getenv("TLPARSE_YEAR"); /* reproducible raw.jsonl for tests */
    if (y && *y)
        c->year = atoi(y);
}

static void ctx_release(struct tl_ctx *c)
{
    struct tl_err ignore;
    if (c->failures.fd >= 0)
        tl_outfile_close(&c->failures, &ignore);
    if (c->chromium.fd >= 0)
        tl_outfile_close(&c->chromium, &ignore);
    if (c->raw_body.fd >= 0)
        tl_outfile_close(&c->raw_body, &ignore);
    tl_trie_release(&c->trie);
    tl_trie_release(&c->unknown_trie);
    tl_map_release(&c->metrics);
    tl_map_release(&c->starts);
    tl_map_release(&c->specs);
    tl_map_release(&c->fast_guards);
    tl_map_release(&c->unknown_keys);
    tl_directory_release(&c->dir);
    tl_strtab_release(&c->strtab);
    tl_arena_release(&c->arena);
    tl_arena_release(&c->scratch);
    tl_buf_release(&c->page);
    tl_buf_release(&c->env_text);
    tl_buf_release(&c->payload);
    tl_buf_release(&c->utf8_fix);
    tl_md5q_free(c->md5q);
}

/* ---- raw.jsonl ---------------------------------------------------------------------- */

static void add_member(struct tl_json *obj, const char *key, struct tl_json v)
{
    struct tl_json_member *m = &obj->u.obj.items[obj->u.obj.n++];
    m->key = tl_str_cstr(key);
    m->value = v;
}

/* One raw.jsonl line: the envelope plus where it came from (spec §5.1). */
/* "YYYY-MM-DDTHH:MM:SS.ffffffZ" in the arena. By hand: one vsnprintf per
 * line was 5% of a run's instructions. */
static char *timestamp(struct tl_arena *a, int year, const struct tl_glog *g)
{
    if (year < 0 || year > 9999)
        return tl_arena_printf(a, "%04d-%.2s-%.2sT%.8s.%.6sZ", year, g->month, g->day, g->time,
                               g->micros);
    char *t = tl_arena_alloc(a, 28);
    t[0] = (char)('0' + year / 1000);
    t[1] = (char)('0' + year / 100 % 10);
    t[2] = (char)('0' + year / 10 % 10);
    t[3] = (char)('0' + year % 10);
    t[4] = '-';
    memcpy(t + 5, g->month, 2);
    t[7] = '-';
    memcpy(t + 8, g->day, 2);
    t[10] = 'T';
    memcpy(t + 11, g->time, 8);
    t[19] = '.';
    memcpy(t + 20, g->micros, 6);
    t[26] = 'Z';
    t[27] = '\0';
    return t;
}

static void raw_line(struct tl_ctx *c, const struct tl_json *root, const struct tl_glog *g,
                     const char *payload_filename, uint64_t lineno)
{
    static const char *const added[] = {"timestamp", "thread", "pathname", "lineno",
                                        "payload_filename"};
    size_t nadd = payload_filename ? 5 : 4;
    for (size_t i = 0; i < nadd; i++) {
        if (tl_json_get(root, added[i])) {
            c->stats.fail_key_conflict++;
            tl_warn(c, TL_W_RAWJSONL, lineno,
                    "Key conflict: '%s' already exists in JSON payload, skipping raw.jsonl "
                    "JSONL conversion",
                    added[i]);
            return;
        }
    }
    struct tl_json obj;
    obj.type = TL_JSON_OBJECT;
    obj.u.obj.n = 0;
    obj.u.obj.items =
        tl_arena_alloc(&c->scratch, (root->u.obj.n + 5) * sizeof(struct tl_json_member));
    for (size_t i = 0; i < root->u.obj.n; i++)
        obj.u.obj.items[obj.u.obj.n++] = root->u.obj.items[i];
    char *ts = timestamp(&c->scratch, c->year, g);
    struct tl_json v;
    memset(&v, 0, sizeof(v));
    v.type = TL_JSON_STRING;
    v.u.str = tl_str_cstr(ts);
    add_member(&obj, "timestamp", v);
    memset(&v, 0, sizeof(v));
    v.type = TL_JSON_NUMBER;
    v.u.num.kind = TL_JSON_UINT;
    v.u.num.u = g->thread;
    v.u.num.d = (double)g->thread;
    add_member(&obj, "thread", v);
    memset(&v, 0, sizeof(v));
    v.type = TL_JSON_STRING;
    v.u.str = g->pathname;
    add_member(&obj, "pathname", v);
    memset(&v, 0, sizeof(v));
    v.type = TL_JSON_NUMBER;
    v.u.num.kind = TL_JSON_UINT;
    v.u.num.u = g->lineno;
    v.u.num.d = (double)g->lineno;
    add_member(&obj, "lineno", v);
    if (payload_filename) {
        memset(&v, 0, sizeof(v));
        v.type = TL_JSON_STRING;
        v.u.str = tl_str_cstr(payload_filename);
        add_member(&obj, "payload_filename", v);
    }
    tl_json_write_compact(&c->raw_body.buf, &obj);
    tl_buf_addch(&c->raw_body.buf, '\n');
}

/* ---- per-line processing -------------------------------------------------------------- */

static void long_line(struct tl_ctx *c, uint64_t lineno, uint64_t len)
{
    c->stats.fail_line_too_long++;
    tl_warn(c, TL_W_LONG, lineno, "line of %llu bytes is over the %zu MiB limit; skipped",
            (unsigned long long)len, TL_READER_MAX_LINE >> 20);
}

/* Read the payload lines that follow an envelope (spec §1.6) into c->payload,
 * noting whether the log ended inside it. */
static int read_payload(struct tl_ctx *c, struct tl_reader *r, bool *truncated, struct tl_err *err)
{
    struct tl_str line;
    bool first = true;
    int got;
    tl_buf_reset(&c->payload);
    *truncated = false;
    while ((got = tl_reader_next(r, &line, err)) >= 1) {
        if (got == TL_READER_LONG) {
            if (tl_reader_long_first(r) != '\t') {
                tl_reader_unread(r);
                got = 1;
                break;
            }
            long_line(c, tl_reader_lineno(r), line.n);
            continue;
        }
        if (line.n == 0)
            continue;
        if (line.p[0] != '\t') {
            tl_reader_unread(r);
            break;
        }
        if (!tl_utf8_valid(line.p, line.n)) {
            /* The reference drops the line and then fails the whole run; we
             * keep the bytes as they are (the md5 is over what was written). */
            c->stats.fail_utf8++;
            tl_warn(c, TL_W_UTF8, tl_reader_lineno(r),
                    "invalid UTF-8 in a payload line; kept as is");
        }
        if (!first)
            tl_buf_addch(&c->payload, '\n');
        first = false;
        tl_buf_add(&c->payload, line.p + 1, line.n - 1);
        if (tl_interrupted)
            break;
    }
    if (got < 0)
        return -1;
    if (got == 1 || got == 0)
        /* The log ends inside this payload, mid-line: it was cut off. (Ending
         * at a line boundary is indistinguishable from a wrong md5.) */
        *truncated = got == 0 && !first && tl_reader_last_unterminated(r);
    return 0;
}

/* Skip the payload lines of an envelope we could not use. */
static int skip_payload(struct tl_ctx *c, struct tl_reader *r, struct tl_err *err)
{
    struct tl_str line;
    int got;
    while ((got = tl_reader_next(r, &line, err)) >= 1) {
        bool tab =
            got == TL_READER_LONG ? tl_reader_long_first(r) == '\t' : line.n && line.p[0] == '\t';
        if (got == 1 && line.n == 0)
            continue;
        if (!tab) {
            tl_reader_unread(r);
            return 0;
        }
        if (got == TL_READER_LONG)
            long_line(c, tl_reader_lineno(r), line.n);
    }
    return got;
}

static void record_unknown(struct tl_ctx *c, const struct tl_envelope *env)
{
    c->stats.unknown += env->n_unknown;
    for (size_t i = 0; i < env->n_unknown; i++) {
        if (c->opt->verbose) {
            struct tl_buf b = TL_BUF_INIT;
            tl_buf_add_printable(&b, env->unknown[i].p, env->unknown[i].n);
            tl_progress_clear(&c->progress);
            fprintf(stderr, "tlparse: Unknown field %s\n", b.buf);
            tl_buf_release(&b);
        }
        if (tl_map_len(&c->unknown_keys) < 1000)
            tl_map_put(&c->unknown_keys, env->unknown[i], (void *)1);
    }
}

static struct tl_iframe *copy_frames(struct tl_ctx *c, const struct tl_json *stack, size_t *n)
{
    size_t cnt;
    struct tl_frame *f = tl_envelope_frames(stack, &c->scratch, &cnt);
    *n = cnt;
    if (!cnt)
        return NULL;
    struct tl_iframe *out = tl_arena_alloc(&c->arena, cnt * sizeof(*out));
    for (size_t i = 0; i < cnt; i++) {
        out[i].filename = f[i].filename;
        out[i].line = f[i].line;
        out[i].name = tl_trie_intern(&c->trie, f[i].name.p ? f[i].name : TL_STR_LIT(""));
        out[i].loc = tl_trie_intern(&c->trie, f[i].loc);
        out[i].uninterned = tl_trie_intern(&c->trie, f[i].uninterned_filename);
    }
    return out;
}

static const char *intern_cstr(struct tl_ctx *c, struct tl_str s)
{
    return s.p ? tl_trie_intern(&c->trie, s) : NULL;
}

static void keep_shape_rec(struct tl_ctx *c, struct tl_map *m, const struct tl_line *l,
                           const struct tl_json *rec)
{
    if (!l->env.cid_ok)
        return; /* keyed by compile id: without one it can never be shown */
    struct tl_shape_rec *s = tl_arena_calloc(&c->arena, 1, sizeof(*s));
    s->symbol = intern_cstr(c, tl_env_str(rec, "symbol"));
    s->value = intern_cstr(c, tl_env_str(rec, "value"));
    s->expr = intern_cstr(c, tl_env_str(rec, "expr"));
    const struct tl_json *src = tl_env_get(rec, "sources");
    if (src && src->u.arr.n) {
        s->sources = tl_arena_alloc(&c->arena, src->u.arr.n * sizeof(*s->sources));
        for (size_t i = 0; i < src->u.arr.n; i++)
            s->sources[i] = intern_cstr(c, src->u.arr.items[i].u.str);
        s->nsources = src->u.arr.n;
    }
    s->user_stack = copy_frames(c, tl_env_get(rec, "user_stack"), &s->n_user_stack);
    s->stack = copy_frames(c, tl_env_get(rec, "stack"), &s->n_stack);
    char key[TL_CID_KEY_LEN];
    tl_cid_key(&l->env.cid, key);
    struct tl_map_entry *e = tl_map_upsert(m, tl_str_make(key, sizeof(key)), NULL);
    if (!e->value)
        e->value = tl_arena_calloc(&c->arena, 1, sizeof(struct tl_shape_list));
    struct tl_shape_list *list = e->value;
    if (list->tail)
        list->tail->next = s;
    else
        list->head = s;
    list->tail = s;
}

/* Spec §4.6: drop the three convert_frame wrapper frames at the end. */
static size_t strip_convert_frame(const struct tl_ctx *c, const struct tl_frame *f, size_t n)
{
    if (n < 3)
        return n;
    static const char *const a[3] = {"catch_errors", "_convert_frame", "_convert_frame_assert"};
    static const char *const b[3] = {"__call__", "__call__", "__call__"};
    bool ma = true, mb = true;
    for (size_t i = 0; i < 3; i++) {
        const struct tl_frame *x = &f[n - 3 + i];
        struct tl_str file = tl_strtab_get(&c->strtab, x->filename);
        if (!file.p || !tl_str_eq_cstr(tl_frame_simplify(file), "torch/_dynamo/convert_frame.py"))
            return n;
        ma = ma && tl_str_eq_cstr(x->name, a[i]);
        mb = mb && tl_str_eq_cstr(x->name, b[i]);
    }
    return ma || mb ? n - 3 : n;
}

static int write_chromium(struct tl_ctx *c, const struct tl_line *l, struct tl_err *err)
{
    struct tl_json v;
    if (tl_json_parse(&c->scratch, l->payload.p, l->payload.n, &v, NULL) < 0)
        return 0; /* dropped silently, as the reference does; the md5 tells */
    tl_buf_adds(&c->chromium.buf, c->nchromium ? ",\n  " : "[\n  ");
    tl_json_write_pretty(&c->chromium.buf, &v, 1);
    c->nchromium++;
    return tl_outfile_maybe_flush(&c->chromium, err);
}

static int entry(struct tl_ctx *c, struct tl_reader *r, struct tl_str line, struct tl_err *err);

/* One log entry: its line, payload and outputs; then its payload check. */
static int process_entry(struct tl_ctx *c, struct tl_reader *r, struct tl_str line,
                         struct tl_err *err)
{
    c->md5_due = false;
    uint64_t lineno = tl_reader_lineno(r);
    int rc = entry(c, r, line, err);
    if (c->md5_due)
        tl_md5q_submit(c->md5q, lineno, c->md5_want, c->md5_truncated, &c->payload);
    return rc;
}

static int entry(struct tl_ctx *c, struct tl_reader *r, struct tl_str line, struct tl_err *err)
{
    uint64_t lineno = tl_reader_lineno(r);
    bool repaired = false;
    if (!tl_utf8_valid(line.p, line.n)) {
        /* The reference skips the line and then fails the whole run; we
         * replace the bad bytes and keep the entry. It is counted once:
         * below, unless a worse problem counts it first. */
        tl_buf_reset(&c->utf8_fix);
        tl_utf8_sanitize(&c->utf8_fix, line.p, line.n);
        line = tl_buf_str(&c->utf8_fix);
        repaired = true;
    }
    struct tl_glog g;
    if (!tl_glog_parse(line, &g)) {
        c->stats.fail_glog++;
        tl_warn(c, TL_W_GLOG, lineno, "Failed to parse glog prefix");
        return 0;
    }
    /* The payload lines that follow may move the reader's buffer: keep a copy
     * of this line's envelope and path. */
    tl_buf_reset(&c->env_text);
    tl_buf_add(&c->env_text, g.envelope.p, g.envelope.n);
    size_t path_at = c->env_text.len;
    tl_buf_addstr(&c->env_text, g.pathname);
    g.envelope = tl_str_make(c->env_text.buf, path_at);
    g.pathname = tl_str_make(c->env_text.buf + path_at, g.pathname.n);

    struct tl_line l;
    memset(&l, 0, sizeof(l));
    l.lineno = lineno;
    l.glog = &g;
    struct tl_json root;
    struct tl_json_error je;
    if (tl_json_parse(&c->scratch, g.envelope.p, g.envelope.n, &root, &je) < 0) {
        c->stats.fail_json++;
        tl_warn(c, TL_W_JSON, lineno, "Failed to parse metadata JSON: %s at column %zu", je.msg,
                je.offset + 1);
        return skip_payload(c, r, err);
    }
    char why[256];
    if (tl_envelope_decode(&root, &l.env, &c->scratch, why, sizeof(why)) < 0) {
        c->stats.fail_json++;
        tl_warn(c, TL_W_JSON, lineno, "Failed to parse metadata JSON: %s", why);
        if (root.type == TL_JSON_OBJECT)
            raw_line(c, &root, &g, NULL, lineno);
        return skip_payload(c, r, err);
    }
    if (repaired) {
        c->stats.fail_utf8++;
        tl_warn(c, TL_W_UTF8, lineno, "invalid UTF-8 replaced by U+FFFD");
    }
    record_unknown(c, &l.env);
    const struct tl_envelope *env = &l.env;

    if (env->key[TL_K_STR]) {
        const struct tl_json *pair = env->key[TL_K_STR];
        uint32_t id = (uint32_t)pair->u.arr.items[1].u.num.u;
        if (!tl_strtab_set(&c->strtab, id, pair->u.arr.items[0].u.str)) {
            c->stats.fail_str_table++;
            tl_warn(c, TL_W_STRTAB, lineno, "string table id %u is too large; entry ignored", id);
        }
        return 0;
    }

    if (env->key[TL_K_HAS_PAYLOAD]) {
        bool truncated;
        if (read_payload(c, r, &truncated, err) < 0)
            return -1;
        if (tl_interrupted)
            return tl_error_code(err, TL_ERR_SIGNAL, "interrupted");
        /* Checked once the entry is done with the payload (see md5q.h). */
        c->md5_due = true;
        c->md5_want = env->key[TL_K_HAS_PAYLOAD]->u.str;
        c->md5_truncated = truncated;
        l.payload = tl_buf_str(&c->payload);
    } else {
        l.payload = TL_STR_LIT("");
    }

    const struct tl_json *rank = env->key[TL_K_RANK];
    if (c->have_rank) {
        if (!rank || rank->u.num.u != c->rank) {
            c->stats.other_rank++;
            if (!env->key[TL_K_CHROMIUM_EVENT])
                raw_line(c, &root, &g, NULL, lineno);
            return 0;
        }
    } else if (rank) {
        c->have_rank = true;
        c->rank = (uint32_t)rank->u.num.u;
        if (c->opt->verbose)
            fprintf(stderr, "tlparse: Detected rank: %u\n", c->rank);
    }
    c->stats.ok++;

    /* Compile folder, key and display id. */
    struct tl_buf folder = TL_BUF_INIT;
    struct tl_buf display = TL_BUF_INIT;
    if (env->cid_ok) {
        tl_cid_folder(&folder, &env->cid);
        tl_cid_display(&display, &env->cid);
        struct tl_compile_id dk = tl_cid_dir_key(env->cid);
        l.key = tl_directory_key(&c->dir, &dk);
        l.display = display.buf;
    } else {
        tl_buf_addf(&folder, "unknown_%llu", (unsigned long long)lineno);
        l.key = tl_directory_key(&c->dir, NULL);
        c->saw_unknown_cid = true;
    }
    l.folder = folder.buf;
    l.root = &root;

    int rc = tl_parsers_run(c, &l, err);
    if (rc == 0 && env->key[TL_K_COMPILATION_METRICS])
        rc = tl_metrics_process(c, &l, err);
    if (rc < 0)
        goto out;

    if (env->key[TL_K_STACK]) {
        size_t n;
        struct tl_frame *f = tl_envelope_frames(env->key[TL_K_STACK], &c->scratch, &n);
        struct tl_terminal t = {.unknown = true};
        tl_trie_insert(&c->unknown_trie, f, n, &t);
    }
    if (env->key[TL_K_CHROMIUM_EVENT] && (rc = write_chromium(c, &l, err)) < 0)
        goto out;
    if (env->key[TL_K_SYMBOLIC_SHAPE_SPECIALIZATION])
        keep_shape_rec(c, &c->specs, &l, env->key[TL_K_SYMBOLIC_SHAPE_SPECIALIZATION]);
    if (env->key[TL_K_GUARD_ADDED_FAST])
        keep_shape_rec(c, &c->fast_guards, &l, env->key[TL_K_GUARD_ADDED_FAST]);
    const struct tl_json *ds = env->key[TL_K_DYNAMO_START];
    const struct tl_json *ds_stack = ds ? tl_env_get(ds, "stack") : NULL;
    if (ds_stack) {
        size_t n;
        struct tl_frame *f = tl_envelope_frames(ds_stack, &c->scratch, &n);
        n = strip_convert_frame(c, f, n);
        struct tl_terminal t = {.unknown = !env->cid_ok, .id = env->cid};
        struct tl_trie_node *leaf = tl_trie_insert(&c->trie, f, n, &t);
        if (env->cid_ok) {
            char key[TL_CID_KEY_LEN];
            tl_cid_key(&env->cid, key);
            tl_map_put(&c->starts, tl_str_make(key, sizeof(key)), leaf);
        }
    }
    if (!env->key[TL_K_CHROMIUM_EVENT]) {
        if (env->key[TL_K_HAS_PAYLOAD] && !l.payload_filename.len && l.payload.n) {
            struct tl_buf path = TL_BUF_INIT;
            tl_buf_adds(&path, "payloads/");
            tl_path_safe(&path, env->key[TL_K_HAS_PAYLOAD]->u.str, false);
            tl_buf_adds(&path, ".txt");
            /* Named by content: the same payload repeats, and a name that
             * repeats with other bytes (a bad has_payload) gets a variant. */
            tl_buf_reset(&l.payload_filename);
            rc = tl_outdir_write_once(&c->out, path.buf, l.payload.p, l.payload.n,
                                      &l.payload_filename, err);
            tl_buf_release(&path);
            if (rc < 0)
                goto out;
        }
        raw_line(c, &root, &g, l.payload_filename.len ? l.payload_filename.buf : NULL, lineno);
        rc = tl_outfile_maybe_flush(&c->raw_body, err);
    }
out:
    tl_buf_release(&folder);
    tl_buf_release(&display);
    tl_buf_release(&l.payload_filename);
    return rc;
}

/* ---- the end of the run ----------------------------------------------------------------- */

static const char *status_of(void *ctx, const struct tl_terminal *t)
{
    struct tl_ctx *c = ctx;
    char key[TL_CID_KEY_LEN];
    tl_cid_key(&t->id, key);
    uintptr_t bits = (uintptr_t)tl_map_get(&c->metrics, tl_str_make(key, sizeof(key)));
    if (!bits)
        return "status-missing";
    if (bits & TL_MS_FAIL)
        return "status-error";
    if (bits & TL_MS_EMPTY)
        return "status-empty";
    if (bits & TL_MS_RESTART)
        return "status-break";
    return "status-ok";
}

static int copy_fd(int in, int out)
{
    for (;;) {
        ssize_t n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
        if (n == 0)
            return 0;
        if (n > 0)
            continue;
        if (errno == EINTR)
            continue;
        if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
            return -1;
        break;
    }
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(in, buf, sizeof(buf));
        if (n == 0)
            return 0;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (tl_write_all(out, buf, (size_t)n) < 0)
            return -1;
    }
}

/* raw.log is a copy of a plain input. The kernel does the copying
 * (copy_file_range), in a thread of its own, so that on two cores it costs
 * no wall time: it runs while the log is parsed. */
struct raw_copy {
    pthread_t thread;
    int in, out;
    int rc, err;
    bool started;
};

static void *raw_copy_main(void *arg)
{
    struct raw_copy *rc = arg;
    rc->rc = copy_fd(rc->in, rc->out);
    rc->err = errno;
    return NULL;
}

static int raw_copy_start(struct tl_ctx *c, struct raw_copy *rc, const char *path,
                          struct tl_err *err)
{
    memset(rc, 0, sizeof(*rc));
    rc->out = -1;
    if (c->opt->mem_input)
        return tl_outdir_write(&c->out, "raw.log", c->opt->mem_input, c->opt->mem_len, NULL, err);
    rc->in = open(path, O_RDONLY | O_CLOEXEC);
    if (rc->in < 0)
        return tl_error(err, "cannot read %s: %s", path, strerror(errno));
    if (tl_outdir_create(&c->out, "raw.log", &rc->out, NULL, err) < 0) {
        close(rc->in);
        return -1;
    }
    if (pthread_create(&rc->thread, NULL, raw_copy_main, rc) == 0) {
        rc->started = true;
        return 0;
    }
    /* No thread to be had: copy now. */
    raw_copy_main(rc);
    return 0;
}

static int raw_copy_finish(struct tl_ctx *c, struct raw_copy *rc, struct tl_err *err)
{
    if (rc->out < 0)
        return 0;
    if (rc->started)
        pthread_join(rc->thread, NULL);
    rc->started = false;
    close(rc->in);
    int e = rc->err;
    int status = rc->rc;
    if (close(rc->out) < 0 && status == 0) {
        status = -1;
        e = errno;
    }
    rc->out = -1;
    if (status < 0 && err)
        return tl_error(err, "cannot write %s/raw.log: %s", c->opt->out_dir, strerror(e));
    return status;
}

static int tee_raw(void *ctx, const char *p, size_t n, struct tl_err *err)
{
    struct tl_outfile *f = ctx;
    tl_buf_add(&f->buf, p, n);
    return tl_outfile_maybe_flush(f, err);
}

static int write_raw_jsonl(struct tl_ctx *c, struct tl_err *err)
{
    if (tl_outfile_close(&c->raw_body, err) < 0)
        return -1;
    struct tl_outfile f;
    if (tl_outfile_open(&f, &c->out, "raw.jsonl", err) < 0)
        return -1;
    tl_buf_adds(&f.buf, "{\"string_table\":[");
    if (!c->strtab.len)
        tl_buf_adds(&f.buf, "null");
    for (size_t i = 0; i < c->strtab.len; i++) {
        if (i)
            tl_buf_addch(&f.buf, ',');
        struct tl_str s = c->strtab.s[i];
        if (s.p)
            tl_json_write_string(&f.buf, s.p, s.n);
        else
            tl_buf_adds(&f.buf, "null");
        if (tl_outfile_maybe_flush(&f, err) < 0)
            goto fail;
    }
    tl_buf_adds(&f.buf, "]}\n");
    /* The body is read back and appended behind the header: both must be
     * on disk first. */
    if (tl_outfile_flush(&f, err) < 0 || tl_outdir_sync(&c->out, err) < 0)
        goto fail;
    int in = openat(c->out.dirfd, ".raw.jsonl.body", O_RDONLY | O_CLOEXEC);
    if (in < 0 || copy_fd(in, f.fd) < 0) {
        tl_error(err, "cannot write %s/raw.jsonl: %s", c->opt->out_dir, strerror(errno));
        if (in >= 0)
            close(in);
        goto fail;
    }
    close(in);
    unlinkat(c->out.dirfd, ".raw.jsonl.body", 0);
    return tl_outfile_close(&f, err);
fail:
    tl_outfile_close(&f, err);
    return -1;
}

static int finish(struct tl_ctx *c, struct tl_err *err)
{
    tl_page_failures_tail(&c->failures.buf);
    if (tl_outfile_close(&c->failures, err) < 0)
        return -1;
    tl_buf_adds(&c->chromium.buf, c->nchromium ? "\n]" : "[]");
    if (tl_outfile_close(&c->chromium, err) < 0)
        return -1;
    struct tl_outfile cd;
    if (tl_outfile_open(&cd, &c->out, "compile_directory.json", err) < 0)
        return -1;
    if (tl_directory_write_json_file(&cd, &c->dir, err) < 0) {
        tl_outfile_close(&cd, err);
        return -1;
    }
    if (tl_outfile_close(&cd, err) < 0)
        return -1;
    struct tl_outfile idx;
    if (tl_outfile_open(&idx, &c->out, "index.html", err) < 0)
        return -1;
    struct tl_index_page ip = {
        .custom_header_html = c->opt->custom_header_html,
        .trie = &c->trie,
        .unknown_trie = &c->unknown_trie,
        .strtab = &c->strtab,
        .status = status_of,
        .status_ctx = c,
        .nfailures = c->nfailures,
        .has_chromium = c->nchromium > 0,
        .dir = &c->dir,
    };
    if (tl_page_index(&idx, &ip, err) < 0) {
        tl_outfile_close(&idx, err);
        return -1;
    }
    if (tl_outfile_close(&idx, err) < 0)
        return -1;
    return write_raw_jsonl(c, err);
}

static void print_summary(struct tl_ctx *c)
{
    if (!c->stats.ok && !c->strtab.len && (c->stats.fail_glog || c->stats.fail_json))
        fprintf(stderr,
                "tlparse: warning: %s has no TORCH_TRACE entries: is it a trace? (traces are "
                "the files written with TORCH_TRACE=/some/dir, not TORCH_LOGS output)\n",
                c->input_name);
    struct tl_buf b = TL_BUF_INIT;
    tl_stats_format(&b, &c->stats);
    fprintf(stderr, "%s\n", b.buf);
    size_t n = tl_map_len(&c->unknown_keys);
    if (n) {
        tl_buf_reset(&b);
        tl_buf_adds(&b, "Unknown fields: {");
        for (size_t i = 0; i < n; i++) {
            if (i)
                tl_buf_adds(&b, ", ");
            tl_buf_addch(&b, '"');
            struct tl_str k = tl_map_at(&c->unknown_keys, i)->key;
            tl_buf_add_printable(&b, k.p, k.n);
            tl_buf_addch(&b, '"');
        }
        tl_buf_adds(&b, "} (consider updating tlparse to render these)");
        fprintf(stderr, "%s\n", b.buf);
    }
    tl_buf_release(&b);
}

static int open_streams(struct tl_ctx *c, struct tl_err *err)
{
    if (tl_outfile_open(&c->failures, &c->out, "failures_and_restarts.html", err) < 0 ||
        tl_outfile_open(&c->chromium, &c->out, "chromium_events.json", err) < 0 ||
        tl_outfile_open(&c->raw_body, &c->out, ".raw.jsonl.body", err) < 0)
        return -1;
    tl_page_failures_head(&c->failures.buf);
    return 0;
}

static int report(struct tl_err *err)
{
    switch (err->code) {
    case TL_ERR_SIGNAL:
        fprintf(stderr, "tlparse: interrupted; no report written\n");
        return TL_EXIT_INTERRUPTED;
    case TL_ERR_USAGE:
        fprintf(stderr, "tlparse: error: %s\n", err->msg);
        return TL_EXIT_USAGE;
    default:
        fprintf(stderr, "tlparse: error: %s\n", err->msg);
        return TL_EXIT_ERROR;
    }
}

int tl_run(const struct tl_options *opt, struct tl_result *res)
{
    struct tl_err err = {TL_ERR_NONE, ""};
    if (res)
        memset(res, 0, sizeof(*res));
    if (opt->all_ranks_html && opt->latest) {
        tl_error_code(&err, TL_ERR_INPUT, "--latest cannot be used with --all-ranks-html");
        return report(&err);
    }
    if (opt->export_mode || opt->inductor_provenance || opt->all_ranks_html) {
        tl_error_code(&err, TL_ERR_USAGE, "%s is not yet supported by this tlparse",
                      opt->export_mode           ? "--export"
                      : opt->inductor_provenance ? "--inductor-provenance"
                                                 : "--all-ranks-html");
        return report(&err);
    }
    char *path = NULL;
    if (!opt->mem_input && resolve_input(opt, &path, &err) < 0)
        return report(&err);
    const char *out_dir = opt->out_dir ? opt->out_dir : "tl_out";
    struct tl_options o = *opt;
    o.out_dir = out_dir;

    struct tl_reader *r = NULL;
    if (opt->mem_input)
        r = tl_reader_open_mem(opt->mem_input, opt->mem_len);
    else if (tl_reader_open(&r, path, &err) < 0) {
        free(path);
        return report(&err);
    }
    struct tl_ctx c;
    ctx_init(&c, &o);
    c.input_name = path ? path : "<memory>";
    if (tl_outdir_open(&c.out, out_dir, opt->overwrite, &err) < 0) {
        tl_reader_free(r);
        ctx_release(&c);
        free(path);
        return report(&err);
    }
    tl_progress_init(&c.progress, opt->progress, tl_reader_file_size(r));
    /* In-memory runs (the fuzzer) stay single-threaded and deterministic. */
    bool threads = !opt->mem_input && !getenv("TLPARSE_NO_THREADS");
    c.md5q = tl_md5q_new(4u << 20, threads);
    tl_outdir_write_behind(&c.out, threads);
    int rc = open_streams(&c, &err);
    struct tl_outfile raw_log = {.fd = -1};
    struct raw_copy copy = {.out = -1};
    if (rc == 0 && (tl_reader_kind(r) != TL_READER_PLAIN || tl_reader_is_stream(r))) {
        rc = tl_outfile_open(&raw_log, &c.out, "raw.log", &err);
        if (rc == 0)
            tl_reader_set_tee(r, tee_raw, &raw_log);
    } else if (rc == 0) {
        rc = raw_copy_start(&c, &copy, path, &err);
    }
    struct tl_str line;
    int got = 0;
    while (rc == 0 && (got = tl_reader_next(r, &line, &err)) >= 1) {
        if (tl_interrupted) {
            rc = tl_error_code(&err, TL_ERR_SIGNAL, "interrupted");
            break;
        }
        tl_progress_update(&c.progress, tl_reader_file_pos(r));
        if (got == TL_READER_LONG) {
            long_line(&c, tl_reader_lineno(r), line.n);
            continue;
        }
        if (line.n == 0)
            continue;
        rc = process_entry(&c, r, line, &err);
        tl_arena_reset(&c.scratch);
    }
    if (got < 0)
        rc = -1;
    if (rc == 0 && tl_interrupted)
        rc = tl_error_code(&err, TL_ERR_SIGNAL, "interrupted");
    if (res) {
        res->bytes_in = tl_reader_offset(r);
        res->lines = tl_reader_lineno(r);
    }
    tl_reader_free(r);
    tl_progress_clear(&c.progress);
    if (raw_log.fd >= 0 && tl_outfile_close(&raw_log, rc == 0 ? &err : &(struct tl_err){0}) < 0)
        rc = -1;
    drain_md5(&c);
    if (raw_copy_finish(&c, &copy, rc == 0 ? &err : NULL) < 0)
        rc = -1;
    if (rc == 0)
        rc = finish(&c, &err);
    if (rc == 0)
        print_summary(&c);
    int exit_code = TL_EXIT_OK;
    if (rc == 0 && opt->strict && tl_stats_strict_failures(&c.stats)) {
        fprintf(stderr, "tlparse: error: Something went wrong (--strict: the log has problems; "
                        "see the Stats line)\n");
        exit_code = TL_EXIT_ERROR;
    }
    if (rc == 0 && opt->strict_compile_id && c.saw_unknown_cid) {
        fprintf(stderr, "tlparse: error: Some log entries did not have compile id\n");
        exit_code = TL_EXIT_ERROR;
    }
    if (rc == 0 && tl_interrupted)
        rc = tl_error_code(&err, TL_ERR_SIGNAL, "interrupted");
    if (rc == 0) {
        rc = tl_outdir_commit(&c.out, &err);
        if (rc == 0 && res)
            snprintf(res->index_path, sizeof(res->index_path), "%s/index.html", out_dir);
    } else {
        tl_outdir_abort(&c.out);
    }
    ctx_release(&c);
    free(path);
    if (rc < 0)
        return report(&err);
    return exit_code;
}
