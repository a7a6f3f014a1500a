/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * provenance_tracking_<folder>.html (spec modes.md §3.5): a compile folder's pre-grad graph,
 * post-grad graph and generated code side by side, every line its own row (id "pre-12",
 * "post-12", "py-12", "cpp-12"), rows with an outgoing link bold, and the six line tables
 * embedded as JSON for provenance.js, which only toggles classes on rows it finds by id: the
 * rows are rendered here, so that a 10 000-line code file paints at once. Every byte of the
 * graphs and the code is escaped. Reads the tables of model/provenance.h; knows no file.
 */
#include "base/config.h"
#include "report/pages.h"
#include "base/json_write.h"
#include "base/xalloc.h"
#include "report/assets.h"
#include "report/html.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tables in the JSON object's key order (ascending bytes, as the reference sorts). */
static const struct {
    const char *name;
    enum tl_prov_table_id id;
} json_order[] = {
    {"cppCodeToPost", TL_PROV_CPP_TO_POST}, {"postToCppCode", TL_PROV_POST_TO_CPP},
    {"postToPre", TL_PROV_POST_TO_PRE},     {"postToPyCode", TL_PROV_POST_TO_PY},
    {"preToPost", TL_PROV_PRE_TO_POST},     {"pyCodeToPost", TL_PROV_PY_TO_POST},
};

/* Rows per chunk: a chunk is laid out only when it is near the view (content-visibility). */
enum { CHUNK = 64 };

/* What the page needs to know of a text before writing it. */
struct text_shape {
    size_t lines;   /* as the tables number them: a final newline starts no extra line */
    size_t columns; /* the widest line, in monospace columns (at most) */
    size_t start;   /* 1-based line holding `needle`, 0 if none (or no needle) */
};

/* An upper bound of the columns of a line: a tab moves to the next multiple of 8, every
 * other byte counts 1 (a character of 2 to 4 bytes is at most 2 columns wide). */
static size_t columns(const char *s, size_t n)
{
    size_t col = 0;
    for (size_t i = 0; i < n; i++)
        col = s[i] == '\t' ? (col / 8 + 1) * 8 : col + 1;
    return col;
}

static struct text_shape shape(struct tl_str t, const char *needle)
{
    struct text_shape sh = {0, 0, 0};
    for (const char *p = t.p, *end = t.p + t.n; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = (size_t)((nl ? nl : end) - p);
        sh.lines++;
        size_t c = columns(p, len);
        if (c > sh.columns)
            sh.columns = c;
        if (needle && !sh.start && tl_str_find(tl_str_make(p, len), needle) >= 0)
            sh.start = sh.lines;
        p = nl ? nl + 1 : end;
    }
    return sh;
}

/* Mark linked[line] for every row of the tables (lines outside 1..n are ignored). */
static void mark(uint8_t *linked, size_t n, const struct tl_prov_result *r, enum tl_prov_table_id a,
                 enum tl_prov_table_id b, enum tl_prov_table_id c)
{
    enum tl_prov_table_id ids[3] = {a, b, c};
    for (size_t k = 0; k < 3; k++) {
        if (ids[k] == TL_PROV__COUNT)
            continue;
        const struct tl_prov_table *t = &r->t[ids[k]];
        for (size_t i = 0; i < t->n; i++)
            if (t->rows[i].line >= 1 && (size_t)t->rows[i].line <= n && t->rows[i].n)
                linked[t->rows[i].line] = 1;
    }
}

/* Decimal digits of v (at least 1), for the width of the line-number column. */
static unsigned digits(size_t v)
{
    unsigned d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

struct pane {
    const char *id;      /* the element id tests and users rely on */
    const char *kind;    /* row id prefix and data-kind: pre, post, py, cpp */
    const char *caption; /* the column's heading */
    const char *empty;   /* shown when the text is empty */
    struct tl_str text;
    int32_t first; /* number of the first row; rows numbered <= 0 get no number and no id */
    enum tl_prov_table_id out[3]; /* tables whose rows make a row of this pane bold */
};

/*
 * One pane: a column with its heading, then the scrollable element with the rows. A C++ pane
 * notes in data-start the row of the AOT entry point, which the script centres on load.
 */
static void pane(struct tl_buf *out, const struct pane *p, const struct tl_prov_result *r)
{
    bool cpp = !strcmp(p->kind, "cpp");
    struct text_shape sh = shape(p->text, cpp ? "void AOTInductorModel::run_impl(" : NULL);
    /* Highest number a row gets (first + lines - 1), at least 0. */
    int64_t top = (int64_t)p->first + (int64_t)sh.lines - 1;
    size_t maxno = top > 0 ? (size_t)top : 0;
    uint8_t *linked = tl_xcalloc(maxno + 1, 1);
    mark(linked, maxno, r, p->out[0], p->out[1], p->out[2]);

    tl_buf_adds(out, "<section class=\"col\"><h2>");
    tl_buf_adds(out, p->caption);
    tl_buf_adds(out, "</h2><div class=\"pane\" id=\"");
    tl_buf_adds(out, p->id);
    tl_buf_adds(out, "\" data-kind=\"");
    tl_buf_adds(out, p->kind);
    tl_buf_adds(out, "\" tabindex=\"0\"");
    if (p->first != 1)
        tl_buf_addf(out, " data-first=\"%ld\"", (long)p->first);
    if (sh.start) {
        tl_buf_adds(out, " data-start=\"");
        tl_buf_addu(out, sh.start);
        tl_buf_addch(out, '"');
    }
    /* Widths known here spare the browser measuring every line of a long text. */
    tl_buf_addf(out, " style=\"--nw:%u;--cols:%zu\"><pre>", digits(maxno), sh.columns);

    size_t plen = strlen(p->kind);
    int64_t no = p->first;
    size_t i = 0;
    for (const char *s = p->text.p, *end = s + p->text.n; s < end; no++, i++) {
        if (i % CHUNK == 0) {
            if (i)
                tl_buf_adds(out, "</div>");
            tl_buf_adds(out, "<div class=\"k\"");
            if (sh.lines - i < CHUNK)
                tl_buf_addf(out, " style=\"--k:%zu\"", sh.lines - i);
            tl_buf_addch(out, '>');
        }
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t len = (size_t)((nl ? nl : end) - s);
        if (len && s[len - 1] == '\r')
            len--;
        tl_buf_adds(out, "<div");
        if (no >= 1) {
            tl_buf_adds(out, " id=\"");
            tl_buf_add(out, p->kind, plen);
            tl_buf_addch(out, '-');
            tl_buf_addi(out, no);
            tl_buf_adds(out, linked[no] ? "\" class=\"m\"" : "\"");
        } else {
            tl_buf_adds(out, " class=\"u\"");
        }
        /* The first row of a chunk starts its numbers: a chunk's content-visibility gives it
         * style containment, which scopes CSS counters to its rows. */
        if (i % CHUNK == 0)
            tl_buf_addf(out, " style=\"counter-reset:ln %lld\"", (long long)no - 1);
        tl_buf_addch(out, '>');
        tl_html_text(out, s, len);
        /* The newline keeps the pane's text the code's text (copy, find in page). */
        tl_buf_adds(out, "\n</div>");
        s = nl ? nl + 1 : end;
    }
    if (i)
        tl_buf_adds(out, "</div>");
    tl_buf_adds(out, "</pre>");
    if (!sh.lines) {
        tl_buf_adds(out, "<p class=\"empty\">");
        tl_buf_adds(out, p->empty);
        tl_buf_adds(out, "</p>");
    }
    tl_buf_adds(out, "</div></section>\n");
    free(linked);
}

/* The six tables (spec §3.4), one row a line; or {} without a node-mapping file. */
static void mappings_json(struct tl_buf *out, const struct tl_prov_result *r)
{
    struct tl_json_doc w;
    tl_json_doc_init(&w, out, TL_JSON_DOC_PRETTY | TL_JSON_DOC_SERDE_STRINGS);
    tl_json_doc_object(&w);
    for (size_t k = 0; r->have_mappings && k < TL_ARRAY_LEN(json_order); k++) {
        const struct tl_prov_table *t = &r->t[json_order[k].id];
        tl_json_doc_key(&w, json_order[k].name);
        tl_json_doc_object(&w);
        for (size_t i = 0; i < t->n; i++) {
            const struct tl_prov_row *row = &t->rows[i];
            char key[24];
            snprintf(key, sizeof(key), "%lld", (long long)row->line);
            tl_json_doc_key(&w, key);
            tl_json_doc_array_inline(&w);
            for (size_t j = 0; j < row->n; j++)
                tl_json_doc_i64(&w, row->to[j]);
            tl_json_doc_end(&w, ']');
        }
        tl_json_doc_end(&w, '}');
    }
    tl_json_doc_end(&w, '}');
}

static void divider(struct tl_buf *out, int n)
{
    tl_buf_addf(out,
                "<div class=\"divider\" id=\"divider%d\" role=\"separator\" "
                "aria-orientation=\"vertical\" aria-label=\"Resize the columns\" tabindex=\"0\" "
                "title=\"Drag to resize (or focus and press the arrow keys)\"></div>\n",
                n);
}

void tl_page_provenance(struct tl_buf *out, const struct tl_prov_page *p)
{
    const struct tl_prov_result *r = p->r;
    bool have_py = r->py_text.n > 0, have_cpp = r->cpp_text.n > 0;
    const char *folder = p->folder ? p->folder : "";

    tl_buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"UTF-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<title>Inductor Provenance Tracking Highlighter</title>\n<style>\n");
    tl_buf_adds(out, tl_asset_provenance_css);
    tl_buf_adds(out, "</style>\n</head>\n<body>\n<header>\n<a class=\"back\" href=\"index.html\">"
                     "&larr; tlparse report</a>\n<h1>Inductor provenance tracking <code>");
    tl_html_text_cstr(out, folder);
    tl_buf_adds(out, "</code></h1>\n<p class=\"hint\">");
    if (r->have_mappings)
        tl_buf_adds(out, "Point at a <b>bold</b> line to see the lines it came from and the ones "
                         "it became; click to keep it, <kbd>Esc</kbd> to clear, <kbd>n</kbd> / "
                         "<kbd>p</kbd> for the next or previous linked line of a column.");
    else
        tl_buf_adds(out, "Inductor logged no node mappings for this compile "
                         "(<code>inductor_provenance_tracking_node_mappings</code>), so the lines "
                         "are not linked.");
    tl_buf_adds(out, "</p>\n</header>\n<main>\n");

    struct pane pre = {"preGradGraph",
                       "pre",
                       "Pre-grad graph",
                       "No pre-grad graph was logged for this compile.",
                       p->pre,
                       1,
                       {TL_PROV_PRE_TO_POST, TL_PROV__COUNT, TL_PROV__COUNT}};
    struct pane post = {"postGradGraph",
                        "post",
                        "Post-grad graph",
                        "No post-grad graph was logged for this compile.",
                        p->post,
                        1,
                        {TL_PROV_POST_TO_PRE, TL_PROV_POST_TO_PY, TL_PROV_POST_TO_CPP}};
    struct pane py = {"generatedCode",
                      "py",
                      have_py ? "Generated code (Python)" : "Generated code",
                      "No generated code was logged for this compile.",
                      r->py_text,
                      (int32_t)(1 - (int64_t)r->py_skip),
                      {TL_PROV_PY_TO_POST, TL_PROV__COUNT, TL_PROV__COUNT}};
    struct pane cpp = {have_py ? "generatedCppCode" : "generatedCode",
                       "cpp",
                       "Generated code (C++ AOT wrapper)",
                       "",
                       r->cpp_text,
                       1,
                       {TL_PROV_CPP_TO_POST, TL_PROV__COUNT, TL_PROV__COUNT}};

    pane(out, &pre, r);
    divider(out, 1);
    pane(out, &post, r);
    divider(out, 2);
    if (have_py || !have_cpp)
        pane(out, &py, r);
    if (have_py && have_cpp)
        divider(out, 3);
    if (have_cpp)
        pane(out, &cpp, r);

    tl_buf_adds(out, "</main>\n<script id=\"lineMappings\" type=\"application/json\">\n");
    mappings_json(out, r);
    tl_buf_adds(out, "\n</script>\n<script>\n");
    tl_buf_adds(out, tl_asset_provenance_js);
    tl_buf_adds(out, "</script>\n</body>\n</html>\n");
}
