/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parser table (spec core.md §3.2): for every envelope, in a fixed
 * order, each parser whose key is present turns the payload into a file of
 * the compile folder (and a listing entry). The C form of the reference's
 * StructuredLogParser list: {key, name, function}.
 */
#include "base/config.h"
#include "run.h"
#include "report/html.h"
#include "base/json.h"
#include "base/json_write.h"
#include "report/pages.h"
#include "report/pyhl.h"

#include <string.h>

/* ---- file naming and emission --------------------------------------------------- */

/* Insert "_N" before the extension of the last path component (Rust's
 * file_stem/extension rules: a name whose only dot is its first character
 * has no extension). */
static void add_suffixed(struct tl_buf *out, struct tl_str name, uint32_t n)
{
    const char *slash = NULL;
    for (size_t i = name.n; i > 0; i--)
        if (name.p[i - 1] == '/') {
            slash = name.p + i - 1;
            break;
        }
    const char *base = slash ? slash + 1 : name.p;
    size_t blen = (size_t)(name.p + name.n - base);
    const char *dot = NULL;
    for (size_t i = blen; i > 1; i--)
        if (base[i - 1] == '.') {
            dot = base + i - 1;
            break;
        }
    if (blen == 2 && base[0] == '.' && base[1] == '.')
        dot = NULL;
    if (dot) {
        tl_buf_add(out, name.p, (size_t)(dot - name.p));
        tl_buf_addf(out, "_%u", n);
        tl_buf_add(out, dot, (size_t)(name.p + name.n - dot));
    } else {
        tl_buf_addstr(out, name);
        tl_buf_addf(out, "_%u", n);
    }
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

int tl_emit_file(struct tl_ctx *c, struct tl_line *l, struct tl_str fname, const char *data,
                 size_t n, bool payload_file, struct tl_err *err)
{
    struct tl_buf want = TL_BUF_INIT, path = TL_BUF_INIT;
    tl_buf_adds(&want, l->folder);
    tl_buf_addch(&want, '/');
    add_suffixed(&want, fname, c->counter);
    /* The name written can differ from the one wanted when it collides. */
    int rc = tl_outdir_write(&c->out, want.buf, data, n, &path, err);
    tl_buf_release(&want);
    if (rc < 0) {
        tl_buf_release(&path);
        return -1;
    }
    const char *base = strrchr(path.buf, '/');
    base = base ? base + 1 : path.buf;
    const char *readable = NULL;
    static const char kst[] = "inductor_provenance_tracking_kernel_stack_traces";
    if (!strncmp(base, kst, sizeof(kst) - 1) && ends_with(path.buf, path.len, ".json")) {
        /* The readable companion page (spec §3.3), numbering skew included. */
        struct tl_json v;
        readable = "";
        if (tl_json_parse(&c->scratch, data, n, &v, NULL) == 0) {
            /* Its own buffer: data (and so v's strings) may live in c->page. */
            struct tl_buf rp = TL_BUF_INIT, rused = TL_BUF_INIT, page = TL_BUF_INIT;
            tl_buf_add(&rp, path.buf, path.len - 5);
            tl_buf_adds(&rp, "_readable.html");
            tl_page_readable_stack_traces(&page, &v);
            rc = tl_outdir_write(&c->out, rp.buf, page.buf, page.len, &rused, err);
            readable = tl_arena_memdupz(&c->arena, rused.buf, rused.len);
            tl_buf_release(&rp);
            tl_buf_release(&rused);
            tl_buf_release(&page);
            c->counter++;
        }
    }
    if (rc == 0) {
        struct tl_artifact *a =
            tl_directory_add(&c->dir, l->key, path.buf, path.buf, c->counter++, false);
        a->readable_url = readable;
        if (payload_file) {
            tl_buf_reset(&l->payload_filename);
            tl_buf_add(&l->payload_filename, path.buf, path.len);
        }
    }
    tl_buf_release(&path);
    return rc;
}

/* ---- the parsers ----------------------------------------------------------------- */

typedef int (*parser_fn)(struct tl_ctx *c, struct tl_line *l, enum tl_key k, struct tl_err *err);

/* The payload verbatim as <key>_N.txt. */
static int p_payload(struct tl_ctx *c, struct tl_line *l, enum tl_key k, struct tl_err *err)
{
    struct tl_buf name = TL_BUF_INIT;
    tl_buf_adds(&name, tl_key_name(k));
    tl_buf_adds(&name, ".txt");
    int rc = tl_emit_file(c, l, tl_buf_str(&name), l->payload.p, l->payload.n, true, err);
    tl_buf_release(&name);
    return rc;
}

/* A name from the log, made safe, plus an extension. */
static void safe_name(struct tl_buf *out, const char *prefix, struct tl_str name, bool slash,
                      const char *ext)
{
    tl_buf_adds(out, prefix);
    tl_path_safe(out, name, slash);
    tl_buf_adds(out, ext);
}

static int p_graph_dump(struct tl_ctx *c, struct tl_line *l, enum tl_key k, struct tl_err *err)
{
    struct tl_buf name = TL_BUF_INIT;
    safe_name(&name, "", tl_env_str(l->env.key[k], "name"), true, ".txt");
    int rc = tl_emit_file(c, l, tl_buf_str(&name), l->payload.p, l->payload.n, true, err);
    tl_buf_release(&name);
    return rc;
}

static int p_split_child(struct tl_ctx *c, struct tl_line *l, enum tl_key k, struct tl_err *err)
{
    struct tl_buf name = TL_BUF_INIT;
    safe_name(&name, "optimize_ddp_split_child_", tl_env_str(l->env.key[k], "name"), true, ".txt");
    int rc = tl_emit_file(c, l, tl_buf_str(&name), l->payload.p, l->payload.n, true, err);
    tl_buf_release(&name);
    return rc;
}

static int p_guards(struct tl_ctx *c, struct tl_line *l, enum tl_key k, struct tl_err *err)
{
    (void)k;
    struct tl_json v;
    struct tl_json_error je;
    const char *why = NULL;
    if (tl_json_parse(&c->scratch, l->payload.p, l->payload.n, &v, &je) < 0)
        why = je.msg;
    else
        why = tl_guards_check(&v);
    if (why) {
        c->stats.fail_dynamo_guards_json++;
        tl_warn(c, TL_W_GUARDS, l->lineno, "Failed to parse guards json: %s", why);
        return 0;
    }
    tl_buf_reset(&c->page);
    tl_page_guards(&c->page, &v);
    return tl_emit_file(c, l, TL_STR_LIT("dynamo_guards.html"), c->page.buf, c->page.len, false,
                        err);
}

static int p_output_code(struct tl_ctx *c, struct tl_line *l, enum tl_key k, struct tl_err *err)
{
    struct tl_str fn = tl_env_str(l->env.key[k], "filename");
    struct tl_buf name = TL_BUF_INIT;
    tl_buf_adds(&name, "inductor_output_code");
    if (fn.p && fn.n) {
        /* stem of the last path component */
        const char *s = fn.p + fn.n;
        while (s > fn.p && s[-1] != '/')
            s--;
        struct tl_str base = tl_str_make(s, (size_t)(fn.p + fn.n - s));
        const char *dot = NULL;
        for (size_t i = base.n; i > 1; i--)
            if (base.p[i - 1] == '.') {
                dot = base.p + i - 1;
                break;
            }
        if (dot)
            base.n = (size_t)(dot - base.p);
        if (base.n) {
            tl_buf_addch(&name, '_');
            tl_path_safe(&name, base, false);
        }
    }
    int rc;
    if (c->opt->plain_text) {
        tl_buf_adds(&name, ".txt");
        rc = tl_emit_file(c, l, tl_buf_str(&name), l->payload.p, l->payload.n, true, err);
    } else {
        tl_buf_adds(&name, ".html");
        tl_buf_reset(&c->page);
        tl_pyhl_render(&c->page, l->payload.p, l->payload.n);
        rc = tl_emit_file(c, l, tl_buf_str(&name), c->page.buf, c->page.len, false, err);
    }
    tl_buf_release(&name);
    return rc;
}

static int p_aot_bwd(struct tl_ctx *c, struct tl_line *l, enum tl_key k, struct tl_err *err)
{
    tl_buf_reset(&c->page);
    tl_page_aot_bwd_metrics(&c->page, l->env.key[k], l->display);
    return tl_emit_file(c, l, TL_STR_LIT("aot_autograd_backward_compilation_metrics.html"),
                        c->page.buf, c->page.len, false, err);
}

static int p_bwd(struct tl_ctx *c, struct tl_line *l, enum tl_key k, struct tl_err *err)
{
    tl_buf_reset(&c->page);
    tl_page_bwd_metrics(&c->page, l->env.key[k], l->display);
    return tl_emit_file(c, l, TL_STR_LIT("bwd_compilation_metrics.html"), c->page.buf, c->page.len,
                        false, err);
}

static int p_link(struct tl_ctx *c, struct tl_line *l, enum tl_key k, struct tl_err *err)
{
    (void)err;
    struct tl_str name = tl_env_str(l->env.key[k], "name");
    struct tl_str url = tl_env_str(l->env.key[k], "url");
    struct tl_buf u = TL_BUF_INIT, nm = TL_BUF_INIT;
    tl_buf_add_nonul(&u, url.p, url.n);
    tl_buf_add_nonul(&nm, name.p, name.n);
    tl_directory_add(&c->dir, l->key, u.buf, nm.buf, c->counter++, true);
    tl_buf_release(&u);
    tl_buf_release(&nm);
    return 0;
}

static int p_artifact(struct tl_ctx *c, struct tl_line *l, enum tl_key k, struct tl_err *err)
{
    struct tl_str enc = tl_env_str(l->env.key[k], "encoding");
    struct tl_str an = tl_env_str(l->env.key[k], "name");
    struct tl_buf name = TL_BUF_INIT;
    int rc = 0;
    if (tl_str_eq_cstr(enc, "string")) {
        safe_name(&name, "", an, true, ".txt");
        rc = tl_emit_file(c, l, tl_buf_str(&name), l->payload.p, l->payload.n, true, err);
    } else if (tl_str_eq_cstr(enc, "json")) {
        safe_name(&name, "", an, true, ".json");
        struct tl_json v;
        if (tl_json_parse(&c->scratch, l->payload.p, l->payload.n, &v, NULL) == 0) {
            tl_buf_reset(&c->page);
            tl_json_write_pretty(&c->page, &v, 0);
            rc = tl_emit_file(c, l, tl_buf_str(&name), c->page.buf, c->page.len, true, err);
        } else {
            rc = tl_emit_file(c, l, tl_buf_str(&name), l->payload.p, l->payload.n, true, err);
        }
    } else {
        c->stats.fail_parser++;
        tl_warn(c, TL_W_PARSER, l->lineno, "Parser artifact failed: Unsupported encoding: %.*s",
                (int)(enc.n > 200 ? 200 : enc.n), enc.p);
    }
    tl_buf_release(&name);
    return rc;
}

static int p_dump_file(struct tl_ctx *c, struct tl_line *l, enum tl_key k, struct tl_err *err)
{
    struct tl_str name = tl_env_str(l->env.key[k], "name");
    struct tl_buf path = TL_BUF_INIT;
    struct tl_str key;
    tl_buf_adds(&path, "dump_file/");
    if (tl_find_eval_with_key(name, &key)) {
        tl_buf_adds(&path, "eval_with_key_");
        tl_path_safe(&path, key, false);
    } else {
        tl_path_safe(&path, name, true);
    }
    tl_buf_adds(&path, ".html");
    tl_buf_reset(&c->page);
    tl_page_dump_file(&c->page, l->payload.p, l->payload.n);
    struct tl_buf used = TL_BUF_INIT;
    int rc = tl_outdir_write(&c->out, path.buf, c->page.buf, c->page.len, &used, err);
    if (rc == 0)
        tl_directory_add(&c->dir, l->key, used.buf, used.buf, c->counter++, false);
    tl_buf_release(&path);
    tl_buf_release(&used);
    return rc;
}

struct parser {
    enum tl_key key;
    parser_fn fn;
};

static const struct parser parsers[] = {
    {TL_K_OPTIMIZE_DDP_SPLIT_GRAPH, p_payload},
    {TL_K_COMPILED_AUTOGRAD_GRAPH, p_payload},
    {TL_K_AOT_FORWARD_GRAPH, p_payload},
    {TL_K_AOT_BACKWARD_GRAPH, p_payload},
    {TL_K_AOT_INFERENCE_GRAPH, p_payload},
    {TL_K_AOT_JOINT_GRAPH, p_payload},
    {TL_K_INDUCTOR_POST_GRAD_GRAPH, p_payload},
    {TL_K_INDUCTOR_PRE_GRAD_GRAPH, p_payload},
    {TL_K_DYNAMO_CPP_GUARDS_STR, p_payload},
    {TL_K_GRAPH_DUMP, p_graph_dump},
    {TL_K_DYNAMO_OUTPUT_GRAPH, p_payload},
    {TL_K_DYNAMO_GUARDS, p_guards},
    {TL_K_INDUCTOR_OUTPUT_CODE, p_output_code},
    {TL_K_OPTIMIZE_DDP_SPLIT_CHILD, p_split_child},
    {TL_K_AOT_AUTOGRAD_BACKWARD_COMPILATION_METRICS, p_aot_bwd},
    {TL_K_BWD_COMPILATION_METRICS, p_bwd},
    {TL_K_LINK, p_link},
    {TL_K_ARTIFACT, p_artifact},
    {TL_K_DUMP_FILE, p_dump_file},
};

int tl_parsers_run(struct tl_ctx *c, struct tl_line *l, struct tl_err *err)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(parsers); i++) {
        if (!l->env.key[parsers[i].key])
            continue;
        if (parsers[i].fn(c, l, parsers[i].key, err) < 0)
            return -1;
    }
    return 0;
}

/* Earlier files of a compile id that its next metrics page still lists. */
#define TL_METRICS_EARLIER_MAX 64

/* ---- compilation_metrics (spec §3.4) ------------------------------------------- */

static struct tl_shape_rec *take_list(struct tl_map *m, const char *key)
{
    struct tl_shape_list *list = tl_map_get(m, tl_str_make(key, TL_CID_KEY_LEN));
    if (!list)
        return NULL;
    struct tl_shape_rec *r = list->head;
    list->head = list->tail = NULL;
    return r;
}

int tl_metrics_process(struct tl_ctx *c, struct tl_line *l, struct tl_err *err)
{
    const struct tl_json *m = l->env.key[TL_K_COMPILATION_METRICS];
    struct tl_metrics_page p;
    memset(&p, 0, sizeof(p));
    p.m = m;
    p.display = l->display;
    struct tl_dirkey *key = l->key;
    if (key->listed <= TL_METRICS_EARLIER_MAX) {
        /* As the reference: every file of the compile id so far. */
        p.listing = key->first;
        p.nlisting = key->n;
    } else {
        /* A compile id repeated many times: the reference's listing would
         * grow quadratically; list what came since its previous page. */
        p.listing = key->listed_last->next;
        p.nlisting = key->n - key->listed;
        p.nearlier = key->listed;
    }
    struct tl_artifact *snap_last = key->last;
    size_t snap_n = key->n;
    p.strtab = &c->strtab;
    char mkey[TL_CID_KEY_LEN];
    if (l->env.cid_ok) {
        struct tl_compile_id mid = tl_cid_metrics_key(l->env.cid);
        tl_cid_key(&mid, mkey);
        struct tl_str k = tl_str_make(mkey, sizeof(mkey));
        p.stack = tl_map_get(&c->starts, k);
        p.specs = take_list(&c->specs, mkey);
        p.guards = take_list(&c->fast_guards, mkey);
    }
    tl_buf_reset(&c->page);
    tl_page_metrics(&c->page, &p);
    if (tl_emit_file(c, l, TL_STR_LIT("compilation_metrics.html"), c->page.buf, c->page.len, false,
                     err) < 0)
        return -1;
    key->listed_last = snap_last;
    key->listed = snap_n;

    /* Failures and restarts rows. */
    struct tl_buf label = TL_BUF_INIT;
    if (l->env.cid_ok) {
        tl_buf_addf(&label, "<a href='%s/compilation_metrics_%u.html'>%s</a> ", l->folder,
                    c->counter - 1, l->display);
    } else {
        tl_buf_adds(&label, "(unknown) ");
    }
    const struct tl_json *rr = tl_env_get(m, "restart_reasons");
    for (size_t i = 0; rr && i < rr->u.arr.n; i++) {
        tl_page_failures_restart_row(&c->failures.buf, label.buf, rr->u.arr.items[i].u.str);
        c->nfailures++;
    }
    struct tl_str ft = tl_env_str(m, "fail_type");
    if (ft.p) {
        struct tl_str fr = tl_env_str(m, "fail_reason");
        if (!fr.p) {
            /* The reference aborts the whole run here; we report it and go on. */
            c->stats.fail_missing_fail_reason++;
            tl_warn(c, TL_W_FAILREASON, l->lineno,
                    "compilation_metrics has fail_type but no fail_reason");
            fr = TL_STR_LIT("");
        }
        const struct tl_json *ln = tl_env_get(m, "fail_user_frame_lineno");
        tl_page_failures_failure_row(&c->failures.buf, label.buf, ft, fr,
                                     tl_env_str(m, "fail_user_frame_filename"), ln != NULL,
                                     ln ? ln->u.num.u : 0);
        c->nfailures++;
    }
    tl_buf_release(&label);
    if (tl_outfile_maybe_flush(&c->failures, err) < 0)
        return -1;

    /* Status bits for the trie (spec §4.6). */
    if (l->env.cid_ok) {
        struct tl_map_entry *e = tl_map_upsert(&c->metrics, tl_str_make(mkey, sizeof(mkey)), NULL);
        uintptr_t bits = (uintptr_t)e->value | TL_MS_PRESENT;
        if (ft.p)
            bits |= TL_MS_FAIL;
        const struct tl_json *ops = tl_env_get(m, "graph_op_count");
        if (!ops || ops->u.num.u == 0)
            bits |= TL_MS_EMPTY;
        if (!rr || rr->u.arr.n > 0)
            bits |= TL_MS_RESTART;
        e->value = (void *)bits;
    }
    return 0;
}
