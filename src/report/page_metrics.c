/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compilation metrics pages (spec core.md §4.3, §4.4). They read the
 * validated compilation_metrics record and the model's side indices.
 */
#include "base/config.h"
#include "report/pages.h"
#include "report/assets.h"
#include "input/envelope.h"
#include "report/html.h"
#include "base/json_write.h"

#include <string.h>

/* A template value (spec §0.2); floats always print as floats. */
static void value(struct tl_buf *out, const struct tl_json *rec, const char *field, bool is_float)
{
    const struct tl_json *v = tl_env_get(rec, field);
    if (!v)
        return;
    switch (v->type) {
    case TL_JSON_NUMBER:
        if (is_float)
            tl_json_write_double(out, v->u.num.d);
        else
            tl_json_write_number(out, v);
        break;
    case TL_JSON_STRING:
        tl_html_attr(out, v->u.str.p, v->u.str.n);
        break;
    case TL_JSON_BOOL:
        tl_buf_adds(out, v->u.b ? "true" : "false");
        break;
    default:
        break;
    }
}

static bool truthy(const struct tl_json *rec, const char *field)
{
    const struct tl_json *v = tl_env_get(rec, field);
    if (!v)
        return false;
    switch (v->type) {
    case TL_JSON_NUMBER:
        return v->u.num.d != 0.0;
    case TL_JSON_STRING:
        return v->u.str.n > 0;
    case TL_JSON_ARRAY:
        return v->u.arr.n > 0;
    case TL_JSON_BOOL:
        return v->u.b;
    default:
        return true;
    }
}

static void head(struct tl_buf *out, const char *title)
{
    /* The reference escapes its own stylesheet here, which breaks the rules
     * that use quotes; ours is ours, so it goes in as it is. */
    tl_buf_adds(out, "<html>\n<head>\n<meta charset=\"UTF-8\">\n<style>\n");
    tl_buf_adds(out, tl_asset_style_css);
    tl_buf_adds(out, "</style>\n<title>");
    tl_buf_adds(out, title);
    tl_buf_adds(out, "</title>\n<base href=\"..\">\n</head>\n<body>\n");
}

static void p_line(struct tl_buf *out, const char *label, const char *tip, const struct tl_json *m,
                   const char *field, bool is_float)
{
    tl_buf_adds(out, "<p>");
    tl_buf_adds(out, label);
    if (tip) {
        tl_buf_adds(out, " <abbr title=\"");
        tl_buf_adds(out, tip);
        tl_buf_adds(out, "\">[?]</abbr>");
    }
    tl_buf_adds(out, ": ");
    value(out, m, field, is_float);
    tl_buf_adds(out, "</p>\n");
}

static void failure_section(struct tl_buf *out, const struct tl_json *m, bool with_file)
{
    if (truthy(m, "fail_type")) {
        tl_buf_adds(out, "<p>Failure Exception: <pre>");
        value(out, m, "fail_type", false);
        tl_buf_adds(out, "</pre></p>\n<p>Failure Reason: <pre>");
        value(out, m, "fail_reason", false);
        tl_buf_adds(out, "</pre></p>\n");
        if (with_file && truthy(m, "fail_user_frame_filename")) {
            tl_buf_adds(out, "<p>In file <pre>");
            value(out, m, "fail_user_frame_filename", false);
            tl_buf_adds(out, "</pre>, line ");
            value(out, m, "fail_user_frame_lineno", false);
            tl_buf_adds(out, "</p>\n");
        }
    } else {
        tl_buf_adds(out, "<p>No failures!</p>\n");
    }
}

static void str_list(struct tl_buf *out, const struct tl_json *m, const char *field,
                     const char *label, const char *none)
{
    const struct tl_json *v = tl_env_get(m, field);
    if (v && v->type == TL_JSON_ARRAY && v->u.arr.n) {
        tl_buf_adds(out, "<p>");
        tl_buf_adds(out, label);
        tl_buf_adds(out, "</p>\n<ul>\n");
        for (size_t i = 0; i < v->u.arr.n; i++) {
            const struct tl_json *s = &v->u.arr.items[i];
            tl_buf_adds(out, "<li><code>");
            if (s->type == TL_JSON_STRING)
                tl_html_attr(out, s->u.str.p, s->u.str.n);
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
    tl_stack_render(out, f, n, caption, strtab);
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

void tl_page_metrics(struct tl_buf *out, const struct tl_metrics_page *p)
{
    const struct tl_json *m = p->m;
    head(out, "Compilation Metrics");
    tl_buf_adds(out, "<h1>Compilation Info for ");
    tl_buf_adds(out, p->display ? p->display : "(unknown)");
    tl_buf_adds(out, " </h1>\n<p>");
    struct tl_str co_name = tl_env_str(m, "co_name"), co_file = tl_env_str(m, "co_filename");
    const struct tl_json *co_line = tl_env_get(m, "co_firstlineno");
    if (co_name.p && co_file.p && co_line) {
        /* A one-frame trie; strings are NUL-terminated copies. */
        struct tl_buf name = TL_BUF_INIT, file = TL_BUF_INIT;
        tl_buf_add_nonul(&name, co_name.p, co_name.n);
        tl_buf_add_nonul(&file, co_file.p, co_file.n);
        struct tl_iframe f = {0, 0, name.buf, NULL, file.buf};
        f.line = co_line->u.num.kind == TL_JSON_INT ? (int32_t)co_line->u.num.i
                                                    : (int32_t)co_line->u.num.u;
        tl_stack_render(out, &f, 1, "Stack", p->strtab);
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
        tl_buf_adds(out, " earlier file(s) of this compile id are listed in <a href=\"index.html#");
        tl_html_attr_cstr(out, p->display);
        tl_buf_adds(out, "\">the index</a>.</p>\n");
    }
    tl_buf_adds(out, "<h2>Stack</h2>\n");
    if (p->stack)
        tl_trie_render_path(out, p->stack, "Stack", p->strtab);
    tl_buf_adds(out, "\n<h2>Compile Time(seconds)</h2>\n");
    p_line(out, "Entire Frame", "Total time spent in convert_frame compilation", m,
           "entire_frame_compile_time_s", true);
    p_line(out, "Backend", "Time spent running the backend compiler", m, "backend_compile_time_s",
           true);
    if (truthy(m, "inductor_compile_time_s"))
        p_line(out, "Inductor", "Total time spent running inductor", m, "inductor_compile_time_s",
               true);
    if (truthy(m, "code_gen_time_s"))
        p_line(out, "Code Gen Time", NULL, m, "code_gen_time_s", true);
    p_line(out, "Dynamo Time Before Restart", "Total time spent restarting dynamo analysis", m,
           "dynamo_time_before_restart_s", true);
    tl_buf_adds(out, "<h2>Restarts and Failures</h2>\n");
    failure_section(out, m, true);
    str_list(out, m, "restart_reasons", "Restart Reasons:", "No restarts!");
    tl_buf_adds(out, "<h2>Cache Metrics</h2>\n");
    p_line(out, "Cache Size", NULL, m, "cache_size", false);
    p_line(out, "Accumulated Cache Size", NULL, m, "accumulated_cache_size", false);
    tl_buf_adds(out, "<h2>Graph Metrics</h2>\n");
    p_line(out, "Guard Count", NULL, m, "guard_count", false);
    p_line(out, "Shape Env Guards", NULL, m, "shape_env_guard_count", false);
    p_line(out, "Graph Ops", NULL, m, "graph_op_count", false);
    p_line(out, "Graph Nodes", NULL, m, "graph_node_count", false);
    p_line(out, "Graph Inputs", NULL, m, "graph_input_count", false);
    tl_buf_adds(out, "<h2>Custom Ops</h2>\n");
    str_list(out, m, "compliant_custom_ops", "Compliant Custom Ops:", NULL);
    str_list(out, m, "non_compliant_ops", "Non-Compliant Custom Ops:", NULL);
    tl_buf_adds(out, "<h2>Symbolic shape specializations</h2>\n<table>\n<tr><th>Sym</th> "
                     "<th>Source(s)</th> <th>Value</th> <th>User stack</th> <th>Framework "
                     "stack</th></tr>\n");
    for (const struct tl_shape_rec *s = p->specs; s; s = s->next) {
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
    for (const struct tl_shape_rec *s = p->guards; s; s = s->next) {
        tl_buf_adds(out, "<tr>");
        cstr_cell(out, s->expr);
        stack_cell(out, s->user_stack, s->n_user_stack, "User Stack", p->strtab);
        stack_cell(out, s->stack, s->n_stack, "Framework Stack", p->strtab);
        tl_buf_adds(out, "</tr>\n");
    }
    tl_buf_adds(out, "</table>\n");
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
}

void tl_page_bwd_metrics(struct tl_buf *out, const struct tl_json *m, const char *display)
{
    head(out, "Backward Compilation Metrics");
    tl_buf_adds(out, "<h1>Backward Compilation Info for ");
    tl_buf_adds(out, display ? display : "(unknown)");
    tl_buf_adds(out, " </h1>\n<h2>Compile Time(seconds)</h2>\n");
    if (truthy(m, "inductor_compile_time_s"))
        p_line(out, "Inductor", "Total time spent running inductor", m, "inductor_compile_time_s",
               true);
    if (truthy(m, "code_gen_time_s"))
        p_line(out, "Code Gen Time", NULL, m, "code_gen_time_s", true);
    tl_buf_adds(out, "<h2>Failures</h2>\n");
    failure_section(out, m, false);
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
}

void tl_page_aot_bwd_metrics(struct tl_buf *out, const struct tl_json *m, const char *display)
{
    head(out, "AOT Autograd Backward Compilation Metrics");
    tl_buf_adds(out, "<h1>Compilation Info for ");
    tl_buf_adds(out, display ? display : "(unknown)");
    tl_buf_adds(out, " </h1>\n<h2>Failures</h2>\n");
    failure_section(out, m, false);
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
}
