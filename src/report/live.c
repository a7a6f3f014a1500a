/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live page of `tlparse --watch` (live.html) and the status it loads every second
 * (live.js). The page's behaviour is in assets/livepage.js; this file only lays out its
 * markup and writes the status as a script. Knows no model, no file and no clock.
 */
#include "base/config.h"
#include "report/live.h"
#include "base/json_write.h"
#include "base/utf8.h"
#include "report/assets.h"
#include "report/html.h"
#include "report/pages.h"

#include <stdint.h>
#include <string.h>

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

/* The code point of the well-formed UTF-8 sequence at p (n bytes left); its length in *len. */
static uint32_t decode(const unsigned char *p, size_t n, size_t *len)
{
    size_t k = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : 2;
    if (k > n) { /* cannot happen after tl_utf8_sanitize; keep the byte as U+FFFD */
        *len = 1;
        return 0xFFFD;
    }
    uint32_t cp = p[0] & (0x7F >> k);
    for (size_t i = 1; i < k; i++)
        cp = cp << 6 | (p[i] & 0x3F);
    *len = k;
    return cp;
}

/*
 * A JSON string that is also safe inside any <script> and in any encoding: the JSON writer's
 * escapes, plus '<', '>' and '&' (no "</script" or "<!--" can form) and every non-ASCII
 * character (U+2028 and U+2029 end a line in older JavaScript) as \u escapes, ill-formed
 * UTF-8 first made U+FFFD. The writer leaves these bytes alone, so each of them in its output
 * is a character of the string, never part of an escape.
 */
static void script_string(struct tl_buf *out, const char *s)
{
    struct tl_buf clean = TL_BUF_INIT;
    struct tl_buf json = TL_BUF_INIT;
    tl_utf8_sanitize(&clean, s, strlen(s));
    tl_json_write_string(&json, clean.buf, clean.len);
    const unsigned char *p = (const unsigned char *)json.buf;
    for (size_t i = 0; i < json.len;) {
        size_t len = 1;
        if (p[i] == '<' || p[i] == '>' || p[i] == '&') {
            tl_buf_addf(out, "\\u%04x", p[i]);
        } else if (p[i] >= 0x80) {
            uint32_t cp = decode(p + i, json.len - i, &len);
            if (cp >= 0x10000)
                tl_buf_addf(out, "\\u%04x\\u%04x", (unsigned)(0xD800 + ((cp - 0x10000) >> 10)),
                            (unsigned)(0xDC00 + ((cp - 0x10000) & 0x3FF)));
            else
                tl_buf_addf(out, "\\u%04x", (unsigned)cp);
        } else {
            tl_buf_addch(out, (char)p[i]);
        }
        i += len;
    }
    tl_buf_release(&json);
    tl_buf_release(&clean);
}

static void counts(struct tl_buf *out, const struct tl_live_counts *c)
{
    tl_buf_addf(out,
                "\"compile_ids\":%llu,\"graph_breaks\":%llu,\"recompiles\":%llu,\"failures\":%llu",
                (unsigned long long)c->compile_ids, (unsigned long long)c->graph_breaks,
                (unsigned long long)c->recompiles, (unsigned long long)c->failures);
}

void tl_live_status(struct tl_buf *out, const struct tl_live_status *s)
{
    /* Guarded, so that live.js opened on its own (or by an older live.html) does nothing. */
    tl_buf_adds(out, "if (typeof tlLive === \"function\") tlLive({");
    tl_buf_addf(out, "\"generation\":%llu,\"updated\":%lld,\"heartbeat\":%lld,\"last_input\":%lld,",
                (unsigned long long)s->generation, (long long)s->updated_ms,
                (long long)s->heartbeat_ms, (long long)s->last_input_ms);
    tl_buf_addf(out, "\"state\":\"%s\",\"final\":%s,", tl_live_state_name(s->state),
                s->final ? "true" : "false");
    counts(out, &s->total);
    tl_buf_adds(out, ",\"ranks\":[");
    for (size_t i = 0; i < s->nranks; i++) {
        tl_buf_addf(out, "%s{\"rank\":%lu,", i ? "," : "", (unsigned long)s->ranks[i].rank);
        counts(out, &s->ranks[i].counts);
        tl_buf_addch(out, '}');
    }
    tl_buf_addch(out, ']');
    if (s->input) {
        tl_buf_adds(out, ",\"input\":");
        script_string(out, s->input);
    }
    if (s->message) {
        tl_buf_adds(out, ",\"message\":");
        script_string(out, s->message);
    }
    tl_buf_adds(out, "});\n");
}
