/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The small pages: guards (§4.5), dump_file sources (§4.8), the readable
 * kernel stack traces (§3.3), the output code page (§4.7) and the
 * failures-and-restarts table (§4.2).
 */
#include "base/config.h"
#include "report/pages.h"
#include "base/xalloc.h"
#include "report/assets.h"
#include "report/html.h"
#include "report/pyhl.h"

#include <stdlib.h>
#include <string.h>

void tl_page_query_script(struct tl_buf *out)
{
    tl_buf_adds(out, "<script>\n");
    tl_buf_adds(out, tl_asset_query_js);
    tl_buf_adds(out, "</script>\n");
}

void tl_page_artifact_href(struct tl_buf *out, const struct tl_artifact *a)
{
    if (a->is_link)
        tl_html_url(out, a->url, strlen(a->url));
    else
        tl_html_path(out, a->url, strlen(a->url));
}

const char *tl_guards_check(const struct tl_json *v)
{
    if (v->type != TL_JSON_ARRAY)
        return "expected a list of guards";
    for (size_t i = 0; i < v->u.arr.n; i++) {
        const struct tl_json *g = &v->u.arr.items[i];
        if (g->type != TL_JSON_OBJECT)
            return "expected a guard object";
        const struct tl_json *code = tl_json_get(g, "code");
        if (!code || code->type != TL_JSON_STRING)
            return "a guard lacks its \"code\" string";
    }
    return NULL;
}

void tl_page_guards_of(struct tl_buf *out, const struct tl_json *guards, const char *display)
{
    tl_page_head_cid(out, "Guards", display);
    tl_buf_adds(out, "<style>\nli code { white-space: pre-wrap; }\n</style>\n</head>\n<body>\n"
                     "<h2>Guards</h2>\n<ul>\n");
    for (size_t i = 0; i < guards->u.arr.n; i++) {
        const struct tl_json *code = tl_json_get(&guards->u.arr.items[i], "code");
        tl_buf_adds(out, "<li><code>");
        tl_html_attr(out, code->u.str.p, code->u.str.n);
        tl_buf_adds(out, "</code></li>\n");
    }
    tl_buf_adds(out, "</ul>\n");
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
}

void tl_page_dump_file(struct tl_buf *out, const char *p, size_t n)
{
    tl_page_head(out, "Source Code");
    tl_buf_adds(out, "<style>\n");
    tl_buf_adds(out, tl_asset_dump_css);
    tl_buf_adds(out, "</style>\n</head>\n<body>\n<pre>");
    size_t i = 0, lineno = 1;
    while (i < n) {
        const char *nl = memchr(p + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - p) : n;
        size_t len = e - i;
        if (len && p[i + len - 1] == '\r')
            len--;
        tl_buf_adds(out, "<span id=\"L");
        tl_buf_addu(out, lineno++);
        tl_buf_adds(out, "\">");
        tl_html_text(out, p + i, len);
        tl_buf_adds(out, "</span>");
        i = nl ? e + 1 : n;
    }
    tl_buf_adds(out, "</pre>\n");
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
}

static int cmp_member(const void *a, const void *b, void *ctx)
{
    const struct tl_json_member *base = ctx;
    size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
    struct tl_str ka = base[ia].key, kb = base[ib].key;
    size_t mn = ka.n < kb.n ? ka.n : kb.n;
    int c = mn ? memcmp(ka.p, kb.p, mn) : 0;
    if (c == 0)
        c = (ka.n > kb.n) - (ka.n < kb.n);
    if (c == 0)
        c = (ia > ib) - (ia < ib); /* equal keys: document order */
    return c;
}

static void readable_entry(struct tl_buf *out, const struct tl_json_member *m)
{
    tl_buf_adds(out, "<h3>");
    tl_html_text(out, m->key.p, m->key.n);
    tl_buf_adds(out, "</h3>\n");
    if (m->value.type != TL_JSON_ARRAY)
        return;
    struct tl_buf t = TL_BUF_INIT;
    for (size_t j = 0; j < m->value.u.arr.n; j++) {
        const struct tl_json *s = &m->value.u.arr.items[j];
        if (s->type != TL_JSON_STRING)
            continue;
        /* A backslash followed by 'n' becomes a newline; trailing newlines go. */
        tl_buf_reset(&t);
        const char *p = s->u.str.p;
        size_t sn = s->u.str.n;
        for (size_t k = 0; k < sn; k++) {
            if (p[k] == '\\' && k + 1 < sn && p[k + 1] == 'n') {
                tl_buf_addch(&t, '\n');
                k++;
            } else {
                tl_buf_addch(&t, p[k]);
            }
        }
        while (t.len && t.buf[t.len - 1] == '\n')
            t.len--;
        tl_buf_adds(out, "<pre>");
        tl_html_text(out, t.buf, t.len);
        tl_buf_adds(out, "</pre>\n");
    }
    tl_buf_release(&t);
}

void tl_page_readable_stack_traces(struct tl_buf *out, const struct tl_json *v)
{
    tl_page_head(out, "Kernel stack traces");
    tl_buf_adds(out, "<style>\npre { white-space: pre-wrap; }\n</style>\n</head>\n<body>\n");
    if (v->type == TL_JSON_OBJECT && v->u.obj.n) {
        /* The reference walks a key-sorted map: sort, and of equal keys keep
         * the last. */
        size_t n = v->u.obj.n;
        size_t *idx = tl_xcalloc(n, sizeof(*idx));
        for (size_t i = 0; i < n; i++)
            idx[i] = i;
        qsort_r(idx, n, sizeof(*idx), cmp_member, (void *)v->u.obj.items);
        for (size_t i = 0; i < n; i++) {
            const struct tl_json_member *m = &v->u.obj.items[idx[i]];
            if (i + 1 < n && tl_str_eq(m->key, v->u.obj.items[idx[i + 1]].key))
                continue;
            readable_entry(out, m);
        }
        free(idx);
    }
    tl_buf_adds(out, "</body></html>\n");
}

void tl_page_failures_head(struct tl_buf *out)
{
    tl_page_head(out, "Failures and restarts");
    tl_buf_adds(out, "<style>\n");
    tl_buf_adds(out, tl_asset_failures_css);
    tl_buf_adds(out, "</style>\n</head>\n<body>\n<h1>Failures and Restarts</h1>\n<table>\n"
                     "<tr> <th> Compile Id </th> <th> Failure Type </th> <th> Failure "
                     "Description </th> <th> Failure Source (compilation failures only) </th> "
                     "</tr>\n");
}

void tl_page_output_code(struct tl_buf *out, const char *src, size_t n, const char *display)
{
    tl_page_head_cid(out, "Output code", display);
    tl_buf_adds(out, "<style>\n");
    tl_buf_adds(out, tl_asset_code_css);
    tl_buf_adds(out, "</style>\n</head>\n<body>\n");
    tl_pyhl_render(out, src, n);
    tl_buf_adds(out, "</body>\n</html>\n");
}

void tl_page_failures_restart_row(struct tl_buf *out, const char *label_html, struct tl_str reason)
{
    tl_buf_adds(out, "<tr> <td> ");
    tl_buf_adds(out, label_html);
    tl_buf_adds(out, " </td><td> RestartAnalysis </td><td><pre>");
    /* The reference inserts the reason raw; we escape it. */
    tl_html_text(out, reason.p, reason.n);
    /* The reference says "Not availble for restarts(yet)!" here: a restart has no failure
     * source to show, which is what the cell says. */
    tl_buf_adds(out, "</pre></td><td>(none: a restart is not a failure)</td></tr>\n");
}

void tl_page_failures_failure_row(struct tl_buf *out, const char *label_html,
                                  const struct tl_failure *f)
{
    tl_buf_adds(out, "<tr> <td> ");
    tl_buf_adds(out, label_html);
    tl_buf_adds(out, " </td><td><pre>");
    tl_html_text(out, f->type.p, f->type.n);
    tl_buf_adds(out, "</pre></td><td><pre>");
    tl_html_text(out, f->reason.p, f->reason.n);
    tl_buf_adds(out, "</pre></td><td><pre>");
    if (f->file.p)
        tl_html_text(out, f->file.p, f->file.n);
    else
        tl_buf_adds(out, "N/A");
    tl_buf_addch(out, ':');
    tl_buf_addu(out, f->line.has ? f->line.v : 0);
    tl_buf_adds(out, "</pre></td></tr>\n");
}

void tl_page_failures_tail(struct tl_buf *out)
{
    /* The reference never closes its table; we do. */
    tl_buf_adds(out, "</table>\n");
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
}
