/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live page of `tlparse --watch` (live.html) and the status it loads every second
 * (live.js). The page's behaviour is in assets/livepage.js; this file only lays out its
 * markup and writes the status as a script. Knows no model, no file and no clock.
 */
#include "base/config.h"
#include "report/live.h"
#include "base/json_write.h"
#include "report/assets.h"
#include "report/html.h"
#include "report/pages.h"

const char *tl_live_state_name(enum tl_live_state state)
{
    switch (state) {
    case TL_LIVE_WRITING:
        return "writing";
    case TL_LIVE_IDLE:
        return "idle";
    case TL_LIVE_FINISHED:
        return "finished";
    case TL_LIVE_STOPPED:
        return "stopped";
    }
    return "stopped";
}

void tl_live_page(struct tl_buf *out, const char *title)
{
    if (!title)
        title = "tlparse";
    tl_page_head(out, title);
    tl_buf_adds(out, "<style>\n");
    tl_buf_adds(out, tl_asset_livepage_css);
    /* The bar says "connecting" until the first live.js, and the report area says "loading"
     * until the first index.html has loaded: neither frame is shown before it has a report. */
    tl_buf_adds(out, "</style>\n</head>\n<body class=\"tl-live\">\n"
                     "<header id=\"tl-live-bar\" data-state=\"connecting\">\n"
                     "<span id=\"tl-live-badge\">Live</span>\n"
                     "<span id=\"tl-live-title\">");
    tl_html_text_cstr(out, title);
    tl_buf_adds(
        out, "</span>\n"
             "<span id=\"tl-live-text\"><span id=\"tl-live-age\"></span>"
             "<span id=\"tl-live-say\" role=\"status\">connecting to the watcher…</span></span>\n"
             "<span id=\"tl-live-counts\"></span>\n"
             "<details id=\"tl-live-ranks\" hidden><summary>per rank</summary>"
             "<table><thead><tr><th>rank</th><th>compile ids</th><th>graph breaks</th>"
             "<th>recompiles</th><th>failures</th></tr></thead><tbody></tbody></table>"
             "</details>\n"
             "<span id=\"tl-live-end\">"
             "<button type=\"button\" id=\"tl-live-show\" hidden></button>"
             "<a id=\"tl-live-index\" href=\"index.html\" target=\"_top\" hidden>"
             "open index.html</a>"
             "<span id=\"tl-live-gen\"></span></span>\n"
             "</header>\n"
             "<main id=\"tl-live-view\">\n"
             "<p id=\"tl-live-wait\">Loading the report…"
             "<noscript> The live view needs JavaScript: open "
             "<a href=\"index.html\">index.html</a>.</noscript></p>\n"
             "<iframe id=\"tl-live-a\" name=\"tl-live-a\" class=\"tl-live-frame tl-live-back\" "
             "title=\"Report\"></iframe>\n"
             "<iframe id=\"tl-live-b\" name=\"tl-live-b\" class=\"tl-live-frame tl-live-back\" "
             "title=\"Report\"></iframe>\n"
             "</main>\n<script>\n");
    tl_buf_adds(out, tl_asset_livepage_js);
    tl_buf_adds(out, "</script>\n</body>\n</html>\n");
}

static void counts(struct tl_json_doc *w, const struct tl_live_counts *c)
{
    tl_json_doc_ku64(w, "compile_ids", c->compile_ids);
    tl_json_doc_ku64(w, "graph_breaks", c->graph_breaks);
    tl_json_doc_ku64(w, "recompiles", c->recompiles);
    tl_json_doc_ku64(w, "failures", c->failures);
}

void tl_live_status(struct tl_buf *out, const struct tl_live_status *s)
{
    /* Guarded, so that live.js opened on its own (or by an older live.html) does nothing. */
    tl_buf_adds(out, "if (typeof tlLive === \"function\") tlLive(");
    /* Compact, its strings safe in any <script> and ASCII (tl_json_write_script). */
    struct tl_json_doc w;
    tl_json_doc_init(&w, out, TL_JSON_DOC_SCRIPT_STRINGS);
    tl_json_doc_object(&w);
    tl_json_doc_ku64(&w, "generation", s->generation);
    tl_json_doc_ki64(&w, "updated", s->updated_ms);
    tl_json_doc_ki64(&w, "heartbeat", s->heartbeat_ms);
    tl_json_doc_ki64(&w, "last_input", s->last_input_ms);
    tl_json_doc_kstr(&w, "state", tl_live_state_name(s->state));
    tl_json_doc_kbool(&w, "final", s->final);
    counts(&w, &s->total);
    tl_json_doc_key(&w, "ranks");
    tl_json_doc_array(&w);
    for (size_t i = 0; i < s->nranks; i++) {
        tl_json_doc_object(&w);
        tl_json_doc_ku64(&w, "rank", s->ranks[i].rank);
        counts(&w, &s->ranks[i].counts);
        tl_json_doc_end(&w, '}');
    }
    tl_json_doc_end(&w, ']');
    if (s->input)
        tl_json_doc_kstr(&w, "input", s->input);
    if (s->message)
        tl_json_doc_kstr(&w, "message", s->message);
    tl_json_doc_end(&w, '}');
    tl_buf_adds(out, ");\n");
}
