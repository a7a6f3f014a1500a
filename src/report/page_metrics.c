/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compilation metrics pages (spec core.md §4.3, §4.4). They read the
 * typed compilation_metrics record and the compile id's facts in the model
 * (its dynamo_start stack, its shape specializations and guards).
 */
#include "base/config.h"
#include "report/pages.h"
#include "base/json_write.h"
#include "report/assets.h"
#include "report/html.h"
#include "base/xalloc.h"
#include "base/sort.h"

#include <stdlib.h>
#include <string.h>

/* Template values (spec §0.2): floats always print as floats, absent ones as nothing. */
static void f64_value(struct tl_buf *out, struct tl_opt_f64 v)
{
    if (v.has)
        tl_json_write_double(out, v.v);
}

static void u64_value(struct tl_buf *out, struct tl_opt_u64 v)
{
    if (v.has)
        tl_buf_addu(out, v.v);
}

static void str_value(struct tl_buf *out, struct tl_str s)
{
    if (s.p)
        tl_html_attr(out, s.p, s.n);
}

static void head(struct tl_buf *out, const char *title, const char *display)
{
    /* The reference escapes its own stylesheet here, which breaks the rules
     * that use quotes; ours is ours, so it goes in as it is. */
    tl_page_head_cid(out, title, display);
    tl_buf_adds(out, "<style>\n");
    tl_buf_adds(out, tl_asset_style_css);
    tl_buf_adds(out, "</style>\n<base href=\"..\">\n</head>\n<body>\n");
}

static void p_open(struct tl_buf *out, const char *label, const char *tip)
{
    tl_buf_adds(out, "<p>");
    tl_buf_adds(out, label);
    if (tip) {
        tl_buf_adds(out, " <abbr title=\"");
        tl_buf_adds(out, tip);
        tl_buf_adds(out, "\">[?]</abbr>");
    }
    tl_buf_adds(out, ": ");
}

/*
 * Why a value of a compilation_metrics record is absent: dynamo sets most of them as the
 * compilation goes, so a compile that failed or restarted leaves the later ones unset (the
 * backend time and the guard counts of a graph break, the guards of a backend failure).
 * The text is ours but for fail_type.
 */
struct why_absent {
    struct tl_str fail_type; /* .p set: the compile failed with it */
    bool restarted;          /* dynamo restarted the analysis */
};

static struct why_absent why_absent_of(const struct tl_metrics *m)
{
    struct why_absent w = {m->fail.type, m->restart_reasons.n > 0};
    return w;
}

static void not_recorded(struct tl_buf *out, const struct why_absent *w)
{
    tl_buf_adds(out, "<span class='na'>not recorded");
    if (w && w->fail_type.p) {
        tl_buf_adds(out, ": the compile failed (");
        tl_html_text(out, w->fail_type.p, w->fail_type.n);
        tl_buf_adds(out, ") before this was measured");
    } else if (w && w->restarted) {
        tl_buf_adds(out, ": dynamo restarted the analysis of the frame (see the restart "
                         "reasons below) before this was measured");
    } else {
        tl_buf_adds(out, " in the log");
    }
    tl_buf_adds(out, "</span>");
}

static void p_f64(struct tl_buf *out, const char *label, const char *tip, struct tl_opt_f64 v,
                  const struct why_absent *w)
{
    p_open(out, label, tip);
    if (v.has)
        f64_value(out, v);
    else if (w)
        not_recorded(out, w);
    tl_buf_adds(out, "</p>\n");
}

static void p_u64(struct tl_buf *out, const char *label, struct tl_opt_u64 v,
                  const struct why_absent *w)
{
    p_open(out, label, NULL);
    if (v.has)
        u64_value(out, v);
    else if (w)
        not_recorded(out, w);
    tl_buf_adds(out, "</p>\n");
}

static bool f64_truthy(struct tl_opt_f64 v)
{
    return v.has && v.v != 0.0;
}

static void failure_section(struct tl_buf *out, const struct tl_failure *f, bool with_file)
{
    if (f->type.n) {
        tl_buf_adds(out, "<p>Failure Exception: <pre>");
        str_value(out, f->type);
        tl_buf_adds(out, "</pre></p>\n<p>Failure Reason: <pre>");
        str_value(out, f->reason);
        tl_buf_adds(out, "</pre></p>\n");
        if (with_file && f->file.n) {
            tl_buf_adds(out, "<p>In file <pre>");
            str_value(out, f->file);
            tl_buf_adds(out, "</pre>, line ");
            u64_value(out, f->line);
            tl_buf_adds(out, "</p>\n");
        }
    } else {
        tl_buf_adds(out, "<p>No failures!</p>\n");
    }
}

static void str_list(struct tl_buf *out, const struct tl_str_list *v, const char *label,
                     const char *none)
{
    if (v->n) {
        tl_buf_adds(out, "<p>");
        tl_buf_adds(out, label);
        tl_buf_adds(out, "</p>\n<ul>\n");
        for (size_t i = 0; i < v->n; i++) {
            tl_buf_adds(out, "<li><code>");
            tl_html_attr(out, v->s[i].p, v->s[i].n);
            tl_buf_adds(out, "</code></li>\n");
        }
        tl_buf_adds(out, "</ul>\n");
    } else if (none) {
        tl_buf_adds(out, "<p>");
        tl_buf_adds(out, none);
        tl_buf_adds(out, "</p>\n");
    }
}

static void cstr_cell(struct tl_buf *out, const char *s)
{
    tl_buf_adds(out, "<td>");
    if (s)
        tl_html_attr_cstr(out, s);
    tl_buf_adds(out, "</td>");
}

static void stack_cell(struct tl_buf *out, const struct tl_iframe *f, size_t n, const char *caption,
                       const struct tl_strtab *strtab)
{
    tl_buf_adds(out, "<td>");
    tl_page_stack(out, f, n, caption, strtab);
    tl_buf_adds(out, "</td>");
}

/* The text shown for an entry of "Output files": its name without the folder. */
static const char *entry_text(const struct tl_artifact *a)
{
    if (a->is_link)
        return a->name;
    const char *slash = strchr(a->name, '/');
    return slash ? slash + 1 : a->name;
}

/* The compile id's shape specializations and guards logged since its last metrics page. */
static void shape_tables(struct tl_buf *out, const struct tl_metrics_page *p)
{
    const struct tl_shape_rec *specs = p->compile ? p->compile->specs_new : NULL;
    const struct tl_shape_rec *guards = p->compile ? p->compile->guards_new : NULL;
    tl_buf_adds(out, "<h2>Symbolic shape specializations</h2>\n<table>\n<tr><th>Sym</th> "
                     "<th>Source(s)</th> <th>Value</th> <th>User stack</th> <th>Framework "
                     "stack</th></tr>\n");
    for (const struct tl_shape_rec *s = specs; s; s = s->next) {
        tl_buf_adds(out, "<tr>");
        cstr_cell(out, s->symbol);
        tl_buf_adds(out, "<td>");
        for (size_t k = 0; k < s->nsources; k++) {
            tl_html_attr_cstr(out, s->sources[k]);
            tl_buf_adds(out, "<br>");
        }
        tl_buf_adds(out, "</td>");
        cstr_cell(out, s->value);
        stack_cell(out, s->user_stack, s->n_user_stack, "User Stack", p->strtab);
        stack_cell(out, s->stack, s->n_stack, "Framework Stack", p->strtab);
        tl_buf_adds(out, "</tr>\n");
    }
    tl_buf_adds(out, "</table>\n<h2>Guards added fast</h2>\n<table>\n<tr><th>Expr</th> <th>User "
                     "stack</th> <th>Framework stack</th></tr>\n");
    for (const struct tl_shape_rec *s = guards; s; s = s->next) {
        tl_buf_adds(out, "<tr>");
        cstr_cell(out, s->expr);
        stack_cell(out, s->user_stack, s->n_user_stack, "User Stack", p->strtab);
        stack_cell(out, s->stack, s->n_stack, "Framework Stack", p->strtab);
        tl_buf_adds(out, "</tr>\n");
    }
    tl_buf_adds(out, "</table>\n");
}

/* Fields of newer PyTorch's compilation_metrics (2.13) that the reference's page does not
 * show, in the order a reader looks for them: why it compiled, what it holds, where the time
 * went, what made it. */
static const struct newer_field {
    const char *name, *label;
} newer_fields[] = {
    {"recompile_reason", "Recompile reason"},
    {"num_graph_breaks", "Graph breaks"},
    {"cudagraph_skip_reason", "CUDA graphs skipped because"},
    {"guard_latency_us", "Guard latency (us)"},
    {"param_count", "Parameters"},
    {"param_numel", "Parameter elements"},
    {"param_bytes", "Parameter bytes"},
    {"ir_count", "IR nodes"},
    {"duration_us", "Duration (us)"},
    {"dynamo_cumulative_compile_time_us", "Dynamo (us)"},
    {"aot_autograd_cumulative_compile_time_us", "AOT autograd (us)"},
    {"inductor_cumulative_compile_time_us", "Inductor (us)"},
    {"pre_grad_pass_time_us", "Pre-grad passes (us)"},
    {"joint_graph_pass_time_us", "Joint graph passes (us)"},
    {"post_grad_pass_time_us", "Post-grad passes (us)"},
    {"triton_compile_time_us", "Triton compile (us)"},
    {"gc_time_us", "Garbage collection (us)"},
    {"aotautograd_local_cache_hit_count", "AOT autograd cache hits"},
    {"aotautograd_local_cache_miss_count", "AOT autograd cache misses"},
    {"inductor_fx_local_cache_hit_count", "FX graph cache hits"},
    {"inductor_fx_local_cache_miss_count", "FX graph cache misses"},
    {"pytorch_version", "PyTorch"},
    {"python_version", "Python"},
    {"triton_version", "Triton"},
    {"cuda_version", "CUDA"},
};

/* The newer fields the record has (null and "" are absent), as a table. */
static void newer_section(struct tl_buf *out, const struct tl_json *raw)
{
    bool any = false;
    for (size_t i = 0; raw && i < sizeof(newer_fields) / sizeof(newer_fields[0]); i++) {
        const struct tl_json *v = tl_json_get(raw, newer_fields[i].name);
        if (tl_json_is_null(v) || (v->type == TL_JSON_STRING && !v->u.str.n) ||
            (v->type != TL_JSON_STRING && v->type != TL_JSON_NUMBER))
            continue;
        if (!any)
            tl_buf_adds(out, "<h2>More from PyTorch</h2>\n<table>\n");
        any = true;
        tl_buf_adds(out, "<tr><td>");
        tl_buf_adds(out, newer_fields[i].label);
        tl_buf_adds(out, "</td><td>");
        if (v->type == TL_JSON_STRING)
            tl_html_text(out, v->u.str.p, v->u.str.n);
        else
            tl_json_write_number(out, v);
        tl_buf_adds(out, "</td></tr>\n");
    }
    if (any)
        tl_buf_adds(out, "</table>\n");
}

/* The fields of compilation_metrics this page shows or means to leave out: the reference's
 * typed ones (spec core.md §2.3; start_time is among them and not shown) and the newer ones
 * above. compile_id is the page's title. */
static const char *const page_fields[] = {
    "compile_id",
    "co_name",
    "co_filename",
    "co_firstlineno",
    "cache_size",
    "accumulated_cache_size",
    "guard_count",
    "shape_env_guard_count",
    "graph_op_count",
    "graph_node_count",
    "graph_input_count",
    "start_time",
    "entire_frame_compile_time_s",
    "backend_compile_time_s",
    "inductor_compile_time_s",
    "code_gen_time_s",
    "fail_type",
    "fail_reason",
    "fail_user_frame_filename",
    "fail_user_frame_lineno",
    "non_compliant_ops",
    "compliant_custom_ops",
    "restart_reasons",
    "dynamo_time_before_restart_s",
};

static bool page_field(struct tl_str key)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(page_fields); i++)
        if (tl_str_eq_cstr(key, page_fields[i]))
            return true;
    for (size_t i = 0; i < TL_ARRAY_LEN(newer_fields); i++)
        if (tl_str_eq_cstr(key, newer_fields[i].name))
            return true;
    return false;
}

static int member_cmp(const void *a, const void *b)
{
    const struct tl_json_member *x = *(const struct tl_json_member *const *)a;
    const struct tl_json_member *y = *(const struct tl_json_member *const *)b;
    size_t n = x->key.n < y->key.n ? x->key.n : y->key.n;
    int c = memcmp(x->key.p, y->key.p, n);
    return c ? c : (x->key.n > y->key.n) - (x->key.n < y->key.n);
}

/* A value longer than this folds into a <details> (the config dumps run to 20 KB). */
#define OTHER_FOLD 200

/* One value of the "Other Metrics" table: a string as its text, anything else as JSON. */
static void other_value(struct tl_buf *out, const struct tl_json *v)
{
    struct tl_buf text = TL_BUF_INIT;
    if (v->type == TL_JSON_STRING)
        tl_buf_add(&text, v->u.str.p, v->u.str.n);
    else
        tl_json_write_compact(&text, v);
    if (text.len > OTHER_FOLD) {
        tl_buf_adds(out, "<details><summary>");
        tl_buf_addu(out, text.len);
        tl_buf_adds(out, " characters</summary><pre>");
        tl_html_text(out, text.buf, text.len);
        tl_buf_adds(out, "</pre></details>");
    } else {
        tl_buf_adds(out, "<code>");
        tl_html_text(out, text.buf, text.len);
        tl_buf_adds(out, "</code>");
    }
    tl_buf_release(&text);
}

/* The members of an object that skip() lets through, null ones left out (PyTorch writes every
 * field it did not measure as null), as a table under heading: sorted by name, as serde_json's
 * map keeps them; a name given twice counts once, with its last value. Nothing when none is
 * left. */
static void member_table(struct tl_buf *out, const struct tl_json *raw, const char *heading,
                         bool (*skip)(struct tl_str key))
{
    if (!raw || raw->type != TL_JSON_OBJECT || !raw->u.obj.n)
        return;
    const struct tl_json_member **rows = tl_xcalloc(raw->u.obj.n, sizeof(*rows));
    size_t n = 0;
    for (size_t i = 0; i < raw->u.obj.n; i++) {
        const struct tl_json_member *m = &raw->u.obj.items[i];
        if (tl_json_is_null(&m->value) || skip(m->key))
            continue;
        bool later = false;
        for (size_t j = i + 1; j < raw->u.obj.n && !later; j++)
            later = tl_str_eq(raw->u.obj.items[j].key, m->key);
        if (!later)
            rows[n++] = m;
    }
    if (n) {
        tl_sort(rows, n, sizeof(*rows), member_cmp);
        tl_buf_adds(out, heading);
        tl_buf_adds(out, "<table>\n");
        for (size_t i = 0; i < n; i++) {
            tl_buf_adds(out, "<tr><td>");
            tl_html_text(out, rows[i]->key.p, rows[i]->key.n);
            tl_buf_adds(out, "</td><td>");
            other_value(out, &rows[i]->value);
            tl_buf_adds(out, "</td></tr>\n");
        }
        tl_buf_adds(out, "</table>\n");
    }
    free(rows);
}

/*
 * "Other Metrics": every member of the record that the page does not know, so that what a
 * newer PyTorch logs is seen rather than dropped. The reference 0.4.8 has such a section; its
 * layout is not known here: this is a table of name and value.
 */
static void other_section(struct tl_buf *out, const struct tl_json *raw)
{
    member_table(out, raw, "<h2>Other Metrics</h2>\n", page_field);
}

void tl_page_metrics(struct tl_buf *out, const struct tl_metrics_page *p)
{
    const struct tl_metrics *m = p->m;
    struct why_absent why = why_absent_of(m);
    const struct why_absent *w = &why;
    head(out, "Compilation metrics", p->display);
    tl_buf_adds(out, "<h1>Compilation Info for ");
    tl_buf_adds(out, p->display ? p->display : "(unknown)");
    tl_buf_adds(out, " </h1>\n<p>");
    if (m->co_name.p && m->co_filename.p && m->has_co_firstlineno) {
        /* A one-frame trie; strings are NUL-terminated copies. */
        struct tl_buf name = TL_BUF_INIT, file = TL_BUF_INIT;
        tl_buf_add_nonul(&name, m->co_name.p, m->co_name.n);
        tl_buf_add_nonul(&file, m->co_filename.p, m->co_filename.n);
        struct tl_iframe f = {0, m->co_firstlineno, name.buf, NULL, file.buf};
        tl_page_stack(out, &f, 1, "Stack", p->strtab);
        tl_buf_release(&name);
        tl_buf_release(&file);
    }
    tl_buf_adds(out, "</p>\n<h2>Output files:</h2>\n<ul>\n");
    size_t i = 0;
    for (const struct tl_artifact *a = p->listing; a && i < p->nlisting; a = a->next, i++) {
        tl_buf_adds(out, "<li><a href=\"");
        tl_page_artifact_href(out, a);
        tl_buf_adds(out, "\">");
        tl_html_attr_cstr(out, entry_text(a));
        tl_buf_adds(out, "</a> (");
        tl_buf_addu(out, a->number);
        tl_buf_adds(out, ")</li>\n");
    }
    tl_buf_adds(out, "</ul>\n");
    if (p->nearlier && p->display) {
        tl_buf_adds(out, "<p>");
        tl_buf_addu(out, p->nearlier);
        tl_buf_adds(out, p->nearlier == 1 ? " earlier file of this compile id is listed"
                                          : " earlier files of this compile id are listed");
        tl_buf_adds(out, " in <a href=\"index.html#");
        tl_html_attr_cstr(out, p->display);
        tl_buf_adds(out, "\">the index</a>.</p>\n");
    }
    tl_buf_adds(out, "<h2>Stack</h2>\n");
    if (p->compile && p->compile->start)
        tl_page_trie_path(out, p->compile->start, "Stack", p->strtab);
    tl_buf_adds(out, "\n<h2>Compile Time(seconds)</h2>\n");
    p_f64(out, "Entire Frame", "Total time spent in convert_frame compilation",
          m->entire_frame_compile_time_s, w);
    p_f64(out, "Backend", "Time spent running the backend compiler", m->backend_compile_time_s, w);
    if (f64_truthy(m->inductor_compile_time_s))
        p_f64(out, "Inductor", "Total time spent running inductor", m->inductor_compile_time_s, w);
    if (f64_truthy(m->code_gen_time_s))
        p_f64(out, "Code Gen Time", NULL, m->code_gen_time_s, w);
    p_f64(out, "Dynamo Time Before Restart", "Total time spent restarting dynamo analysis",
          m->dynamo_time_before_restart_s, w);
    tl_buf_adds(out, "<h2>Restarts and Failures</h2>\n");
    failure_section(out, &m->fail, true);
    str_list(out, &m->restart_reasons, "Restart Reasons:", "No restarts!");
    tl_buf_adds(out, "<h2>Cache Metrics</h2>\n");
    p_u64(out, "Cache Size", m->cache_size, w);
    p_u64(out, "Accumulated Cache Size", m->accumulated_cache_size, w);
    tl_buf_adds(out, "<h2>Graph Metrics</h2>\n");
    p_u64(out, "Guard Count", m->guard_count, w);
    p_u64(out, "Shape Env Guards", m->shape_env_guard_count, w);
    p_u64(out, "Graph Ops", m->graph_op_count, w);
    p_u64(out, "Graph Nodes", m->graph_node_count, w);
    p_u64(out, "Graph Inputs", m->graph_input_count, w);
    tl_buf_adds(out, "<h2>Custom Ops</h2>\n");
    str_list(out, &m->compliant_custom_ops, "Compliant Custom Ops:", NULL);
    str_list(out, &m->non_compliant_ops, "Non-Compliant Custom Ops:", NULL);
    newer_section(out, p->raw);
    other_section(out, p->raw);
    shape_tables(out, p);
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
}

void tl_page_bwd_metrics(struct tl_buf *out, const struct tl_bwd_metrics *m, const char *display)
{
    head(out, "Backward compilation metrics", display);
    tl_buf_adds(out, "<h1>Backward Compilation Info for ");
    tl_buf_adds(out, display ? display : "(unknown)");
    tl_buf_adds(out, " </h1>\n<h2>Compile Time(seconds)</h2>\n");
    if (f64_truthy(m->inductor_compile_time_s))
        p_f64(out, "Inductor", "Total time spent running inductor", m->inductor_compile_time_s,
              NULL);
    if (f64_truthy(m->code_gen_time_s))
        p_f64(out, "Code Gen Time", NULL, m->code_gen_time_s, NULL);
    tl_buf_adds(out, "<h2>Failures</h2>\n");
    failure_section(out, &m->fail, false);
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
}

void tl_page_aot_bwd_metrics(struct tl_buf *out, const struct tl_aot_bwd_metrics *m,
                             const char *display)
{
    head(out, "AOT autograd backward compilation metrics", display);
    tl_buf_adds(out, "<h1>Compilation Info for ");
    tl_buf_adds(out, display ? display : "(unknown)");
    tl_buf_adds(out, " </h1>\n<h2>Failures</h2>\n");
    failure_section(out, &m->fail, false);
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
}

/* compile_id is the page's title. */
static bool runtime_skip(struct tl_str key)
{
    return tl_str_eq_cstr(key, "compile_id");
}

void tl_page_runtime_metrics(struct tl_buf *out, const struct tl_json *raw, const char *display,
                             bool bwd)
{
    head(out, bwd ? "Backward runtime compilation metrics" : "Runtime compilation metrics",
         display);
    tl_buf_adds(out, bwd ? "<h1>Backward Runtime Compilation Info for "
                         : "<h1>Runtime Compilation Info for ");
    tl_buf_adds(out, display ? display : "(unknown)");
    tl_buf_adds(out, " </h1>\n<p>What PyTorch measured while the compiled code first ran "
                     "(autotuning, CUDA graph recording), as it logged it.</p>\n");
    member_table(out, raw, "<h2>Metrics</h2>\n", runtime_skip);
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
}
