/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dynamic_shapes.html: which dimensions were dynamic and what became of them. For each compile
 * id, the symbols made for its dynamic sizes (s0 is L['x'].size()[0], the size it had, its
 * range, the user's line that made it), then the guards and specializations on them, each
 * with the symbols it involves and the line that caused it. Read from the diagnosis only.
 */
#include "base/config.h"
#include "report/summary.h"
#include "report/html.h"
#include "report/pages.h"

#include <string.h>

static void text(struct tl_buf *out, const char *s)
{
    if (s)
        tl_html_text_cstr(out, s);
}

static void code(struct tl_buf *out, const char *s)
{
    if (!s)
        return;
    tl_buf_adds(out, "<code>");
    tl_html_text_cstr(out, s);
    tl_buf_adds(out, "</code>");
}

static void where(struct tl_buf *out, const struct tl_diag_loc *l)
{
    struct tl_buf b = TL_BUF_INIT;
    tl_summary_loc(&b, l);
    if (b.len) {
        tl_buf_adds(out, "<code>");
        tl_html_text(out, b.buf, b.len);
        tl_buf_adds(out, "</code>");
    }
    if (l->function) {
        tl_buf_adds(out, b.len ? " in " : "");
        code(out, l->function);
    }
    if (l->code) {
        tl_buf_adds(out, "<br><code class='src'>");
        tl_html_text_cstr(out, l->code);
        tl_buf_adds(out, "</code>");
    }
    tl_buf_release(&b);
}

static bool same(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static const char *spec_label(enum tl_diag_spec_kind k)
{
    return k == TL_SPEC_SPECIALIZED ? "Specialized" : k == TL_SPEC_DUCK ? "Duck sized" : "Guard";
}

static void symbols_table(struct tl_buf *out, const struct tl_diag *d, const char *cid)
{
    bool any = false;
    for (uint32_t i = 0; i < d->ndynamic; i++) {
        const struct tl_diag_dynamic *x = &d->dynamic[i];
        if (!same(x->cid, cid))
            continue;
        if (!any)
            tl_buf_adds(out, "<table class='shapes'>\n<tr><th>Symbol</th><th>Source</th>"
                             "<th>Size when made</th><th>Range</th><th>Made at</th></tr>\n");
        any = true;
        tl_buf_adds(out, "<tr><td>");
        code(out, x->symbol);
        tl_buf_adds(out, "</td><td>");
        code(out, x->source);
        tl_buf_adds(out, "</td><td>");
        text(out, x->value);
        tl_buf_adds(out, "</td><td>");
        code(out, x->range);
        tl_buf_adds(out, "</td><td>");
        where(out, &x->where);
        tl_buf_adds(out, "</td></tr>\n");
    }
    if (any)
        tl_buf_adds(out, "</table>\n");
}

static void specs_table(struct tl_buf *out, const struct tl_diag *d, const char *cid)
{
    bool any = false;
    for (uint32_t i = 0; i < d->nspecs; i++) {
        const struct tl_diag_spec *x = &d->specs[i];
        if (!same(x->cid, cid))
            continue;
        if (!any)
            tl_buf_adds(out, "<table class='shapes'>\n<tr><th>What</th><th>Expression</th>"
                             "<th>Symbols</th><th>Caused at</th><th>Meaning</th></tr>\n");
        any = true;
        tl_buf_adds(out, "<tr><td>");
        tl_buf_adds(out, spec_label(x->kind));
        if (x->count > 1)
            tl_buf_addf(out, " (%u&times;)", x->count);
        tl_buf_adds(out, "</td><td>");
        if (x->expr)
            code(out, x->expr);
        else if (x->symbol && x->value) {
            code(out, x->symbol);
            tl_buf_adds(out, " = ");
            code(out, x->value);
        }
        if (x->readable) {
            tl_buf_adds(out, "<br>that is ");
            code(out, x->readable);
        }
        tl_buf_adds(out, "</td><td>");
        for (uint32_t k = 0; k < x->nsyms; k++) {
            if (k)
                tl_buf_adds(out, "<br>");
            code(out, x->syms[k].symbol);
            if (x->syms[k].source) {
                tl_buf_adds(out, " = ");
                code(out, x->syms[k].source);
            }
        }
        tl_buf_adds(out, "</td><td>");
        where(out, &x->where);
        tl_buf_adds(out, "</td><td>");
        if (x->advice)
            text(out, x->advice->title);
        tl_buf_adds(out, "</td></tr>\n");
    }
    if (any)
        tl_buf_adds(out, "</table>\n");
}

/* Whether cid was given a section already (it is in an earlier row of either array). */
static bool seen_before(const struct tl_diag *d, const char *cid, uint32_t dyn, uint32_t spec)
{
    for (uint32_t i = 0; i < dyn && i < d->ndynamic; i++)
        if (same(d->dynamic[i].cid, cid))
            return true;
    for (uint32_t i = 0; i < spec && i < d->nspecs; i++)
        if (same(d->specs[i].cid, cid))
            return true;
    return false;
}

static void section(struct tl_buf *out, const struct tl_diag *d, const char *cid,
                    const char *cid_href)
{
    tl_buf_adds(out, "<h2");
    if (cid) {
        tl_buf_adds(out, " id=\"");
        tl_html_attr_cstr(out, cid);
        tl_buf_adds(out, "\"");
    }
    tl_buf_adds(out, ">");
    if (cid && cid_href) {
        tl_buf_adds(out, "<a href=\"");
        tl_html_attr_cstr(out, cid_href);
        tl_html_attr_cstr(out, cid);
        tl_buf_adds(out, "\">");
        text(out, cid);
        tl_buf_adds(out, "</a>");
    } else {
        text(out, cid ? cid : "Without a compile id");
    }
    tl_buf_adds(out, "</h2>\n");
    symbols_table(out, d, cid);
    specs_table(out, d, cid);
}

static const char style[] =
    "<style>\n"
    "table.shapes { border-collapse: collapse; margin: 0.5em 0 1em 0; display: block; "
    "max-width: 100%; overflow-x: auto; }\n"
    "table.shapes td, table.shapes th { border: 1px solid var(--line, #d0d7de); padding: 0.2em "
    "0.5em; text-align: left; vertical-align: top; }\n"
    "table.shapes th { background: var(--head, #f6f8fa); white-space: nowrap; }\n"
    "table.shapes td:first-child { white-space: nowrap; }\n"
    "code { word-break: break-word; }\n"
    "code.src { color: #57606a; }\n"
    "</style>\n";

void tl_page_shapes_link(struct tl_buf *out, const struct tl_diag *d)
{
    if (tl_page_shapes_wanted(d))
        tl_buf_adds(out, "<p>Dynamic shapes: the symbols of dynamic sizes, their sources, and the "
                         "guards and specializations on them, per compile id, are in "
                         "<a href=\"dynamic_shapes.html\">dynamic_shapes.html</a>.</p>\n");
}

void tl_page_shapes(struct tl_buf *out, const struct tl_diag *d, const char *cid_href)
{
    tl_page_head(out, "Dynamic shapes");
    tl_buf_adds(out, style);
    tl_buf_adds(
        out,
        "</head>\n<body>\n<p><a href=\"index.html\">index</a></p>\n<h1>Dynamic shapes</h1>\n"
        "<p>A dimension that is dynamic gets a <em>symbol</em> (<code>s0</code>) for its size "
        "when dynamo first uses it; a Python float made a tensor input gets one too "
        "(<code>zf0</code>). The code then adds <em>guards</em> on these symbols (for example "
        "<code>2*s0 &gt;= 16</code>, or <code>Eq(Mod(s0, 2), 0)</code>: a multiple of 2), and "
        "the compiled code holds only for sizes that pass them; a guard that fixes a symbol to "
        "one value (<code>Eq(s0, 5)</code>) <em>specializes</em> the dimension, which is then "
        "no longer dynamic. Each table below lists, for one compile id, its symbols and what was "
        "added on them, with the line of your code that caused it.</p>\n");
    if (!d->ndynamic && !d->nspecs)
        tl_buf_adds(out, "<p>No dynamic dimension was recorded in this log.</p>\n");
    if (d->ndynamic_all > d->ndynamic)
        tl_buf_addf(out, "<p>The first %u of %u symbols are listed.</p>\n", d->ndynamic,
                    d->ndynamic_all);
    for (uint32_t i = 0; i < d->ndynamic; i++)
        if (!seen_before(d, d->dynamic[i].cid, i, 0))
            section(out, d, d->dynamic[i].cid, cid_href);
    for (uint32_t i = 0; i < d->nspecs; i++)
        if (!seen_before(d, d->specs[i].cid, d->ndynamic, i))
            section(out, d, d->specs[i].cid, cid_href);
    tl_buf_adds(out, "<p>The same as JSON: <code>dynamic_dimensions</code> and "
                     "<code>specializations</code> in <a href=\"summary.json\">summary.json</a>."
                     "</p>\n</body>\n</html>\n");
}
