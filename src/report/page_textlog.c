/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pages of a TORCH_LOGS text log: log.html, the log itself with every line numbered and
 * anchored (L123), each compile id's first line anchored by the id ([0/1]) and every line
 * tagged with its compile id so that ?cid=[0/1] shows only that compile id's lines; and its
 * index.html: the diagnosis, then the compile ids with their lines. Everything is escaped.
 */
#include "base/config.h"
#include "report/page_textlog.h"
#include "report/assets.h"
#include "report/html.h"
#include "report/summary.h"

#include <string.h>

void tl_page_textlog_head(struct tl_buf *out, const char *title)
{
    tl_page_head(out, title);
    tl_buf_adds(out, "<style>\n");
    tl_buf_adds(out, tl_asset_textlog_css);
    tl_buf_adds(out, "</style>\n</head>\n<body>\n<p class='nav'><a href=\"index.html\">"
                     "&larr; Diagnosis and compile ids</a> <span id='filter'></span></p>\n"
                     "<div class='log'>\n");
}

void tl_page_textlog_line(struct tl_buf *out, uint64_t lineno, const char *cid, bool first_of_cid,
                          struct tl_str text)
{
    if (first_of_cid) {
        tl_buf_adds(out, "<a id=\"");
        tl_html_attr_cstr(out, cid);
        tl_buf_adds(out, "\"></a>");
    }
    tl_buf_addf(out, "<div id=\"L%llu\"", (unsigned long long)lineno);
    if (cid) {
        tl_buf_adds(out, " data-cid=\"");
        tl_html_attr_cstr(out, cid);
        tl_buf_addch(out, '"');
    }
    tl_buf_addf(out, "><a class='n' href=\"#L%llu\">%llu</a>", (unsigned long long)lineno,
                (unsigned long long)lineno);
    tl_html_text(out, text.p, text.n);
    tl_buf_adds(out, "</div>\n");
}

void tl_page_textlog_tail(struct tl_buf *out)
{
    tl_buf_adds(out, "</div>\n<script>\n");
    tl_buf_adds(out, tl_asset_textlog_js);
    tl_buf_adds(out, "</script>\n</body>\n</html>\n");
}

int tl_page_textlog_index(const struct tl_page_sink *sink, const struct tl_textlog_index *p)
{
    struct tl_buf *out = sink->buf;
    struct tl_buf title = TL_BUF_INIT;
    tl_buf_adds(&title, "tlparse: ");
    tl_buf_adds(&title, p->name);
    tl_page_head(out, title.buf);
    tl_buf_release(&title);
    tl_buf_adds(out, "<style>\n");
    tl_buf_adds(out, tl_asset_style_css);
    tl_buf_adds(out, tl_asset_textlog_css);
    tl_buf_adds(out, "</style>\n</head>\n<body>\n");
    if (p->custom_header_html)
        tl_buf_adds(out, p->custom_header_html); /* raw by design: the user's own HTML */
    tl_buf_adds(out, "<h1>tlparse <span class='path'>");
    tl_html_text_cstr(out, p->name);
    tl_buf_adds(out, "</span></h1>\n<p>This is TORCH_LOGS text (not a TORCH_TRACE structured log): "
                     "the diagnosis below comes from its messages. ");
    tl_buf_addf(out,
                "%llu line%s, %llu message%s read; %llu line%s not understood. The log itself, "
                "line by line: <a href=\"log.html\">log.html</a>.</p>\n",
                (unsigned long long)p->lines, p->lines == 1 ? "" : "s",
                (unsigned long long)p->messages, p->messages == 1 ? "" : "s",
                (unsigned long long)p->unrecognized, p->unrecognized == 1 ? "" : "s");
    tl_page_diagnosis(out, p->diag, "log.html#", "log.html#L");
    tl_page_shapes_link(out, p->diag);
    if (tl_page_flush(sink))
        return -1;
    tl_buf_adds(out, "<h2>Compile ids</h2>\n");
    if (!p->ncids)
        tl_buf_adds(out, "<p>No line of this log names a compile id.</p>\n");
    else
        tl_buf_adds(out, "<table class='cids'>\n<tr><th>Compile id</th><th>First line</th>"
                         "<th>Lines</th><th></th></tr>\n");
    for (size_t i = 0; i < p->ncids; i++) {
        const struct tl_textlog_cid *c = &p->cids[i];
        tl_buf_adds(out, "<tr><td><a href=\"log.html#");
        tl_html_attr_cstr(out, c->cid);
        tl_buf_adds(out, "\">");
        tl_html_text_cstr(out, c->cid);
        tl_buf_addf(out, "</a></td><td><a href=\"log.html#L%llu\">%llu</a></td><td>%llu</td>",
                    (unsigned long long)c->first_line, (unsigned long long)c->first_line,
                    (unsigned long long)c->lines);
        tl_buf_adds(out, "<td><a href=\"log.html?cid=");
        tl_html_url(out, c->cid, strlen(c->cid));
        tl_buf_adds(out, "\">only its lines</a>");
        uint32_t shapes = tl_diag_shapes_of(p->diag, c->cid);
        if (shapes) {
            tl_buf_adds(out, " &middot; <a href=\"dynamic_shapes.html#");
            tl_html_attr_cstr(out, c->cid);
            tl_buf_addf(out, "\">dynamic shapes</a> (%u)", shapes);
        }
        tl_buf_adds(out, "</td></tr>\n");
        if (tl_page_flush(sink))
            return -1;
    }
    if (p->ncids)
        tl_buf_adds(out, "</table>\n");
    tl_page_footer(out, p->info);
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
    return tl_page_flush(sink) ? -1 : 0;
}
