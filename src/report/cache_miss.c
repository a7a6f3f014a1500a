/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Why the caches missed, written for summary.json, --summary and the Diagnosis section
 * (cache_miss.h). Misses with no earlier entry (a cold cache) and misses of graphs the log
 * had not seen are listed by compile id; the others with what differs, in words.
 */
#include "base/config.h"
#include "report/cache_miss.h"
#include "report/html.h"
#include "report/terminal.h"

#include <string.h>

/* At most this many misses are explained one by one in the text and the page. */
#define MAX_SHOWN_MISSES 20
/* At most this many differing components are named per miss in the text and the page. */
#define MAX_SHOWN_DIFFS 8

enum kind { COLD, NEW_GRAPH, UNLISTED, EXPLAINED };

static enum kind kind_of(const struct tl_ck_miss *m)
{
    if (!m->has_nearest && !m->note)
        return COLD;
    if (!m->has_nearest && !m->listed)
        return UNLISTED;
    if (m->new_graph)
        return NEW_GRAPH;
    return EXPLAINED;
}

static bool anything(const struct tl_cachekey *ck)
{
    return ck && (ck->nmisses || ck->nbypasses);
}

/* ---- JSON ---- */

static void kstr_or_null(struct tl_json_doc *w, const char *k, const char *v)
{
    tl_json_doc_key(w, k);
    if (v)
        tl_json_doc_str(w, v);
    else
        tl_json_doc_null(w);
}

void tl_cachemiss_json(struct tl_json_doc *w, const struct tl_cachekey *ck)
{
    if (!anything(ck))
        return;
    tl_json_doc_key(w, "misses");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < ck->nmisses; i++) {
        const struct tl_ck_miss *m = &ck->misses[i];
        tl_json_doc_object(w);
        kstr_or_null(w, "compile_id", m->cid);
        tl_json_doc_kstr(w, "cache", tl_cachekey_cache_name(m->cache));
        kstr_or_null(w, "graph", m->role);
        kstr_or_null(w, "key", m->key);
        kstr_or_null(w, "nearest", m->has_nearest ? (m->nearest_cid ? m->nearest_cid : "") : NULL);
        kstr_or_null(w, "nearest_key", m->nearest_key);
        tl_json_doc_kbool(w, "components_listed", m->listed);
        tl_json_doc_kbool(w, "new_graph", m->new_graph);
        tl_json_doc_key(w, "differs");
        tl_json_doc_array(w);
        for (uint32_t j = 0; j < m->ndiffs; j++) {
            const struct tl_ck_diff *d = &m->diffs[j];
            tl_json_doc_object(w);
            tl_json_doc_kstr(w, "component", d->component);
            kstr_or_null(w, "before", d->before);
            kstr_or_null(w, "after", d->after);
            tl_json_doc_kstr(w, "words", d->words);
            tl_json_doc_end(w, '}');
        }
        tl_json_doc_end(w, ']');
        kstr_or_null(w, "note", m->note);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    tl_json_doc_key(w, "bypasses");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < ck->nbypasses; i++) {
        const struct tl_ck_bypass *e = &ck->bypasses[i];
        tl_json_doc_object(w);
        kstr_or_null(w, "compile_id", e->cid);
        tl_json_doc_kstr(w, "cache", tl_cachekey_cache_name(e->cache));
        kstr_or_null(w, "reason", e->reason);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

/* ---- text ---- */

static const char *cache_words(int cache)
{
    return cache == TL_CK_FX_GRAPH ? "FX graph" : "AOT autograd";
}

/* The compile ids of the misses of one kind, ", "-separated; how many. */
/* The misses listed by compile id only, in groups, with what each group says. */
static const struct {
    enum kind k;
    const char *what;
} groups[] = {
    {NEW_GRAPH, "of graphs this log had not cached before"},
    {COLD, "with no earlier entry in this log (a cold cache)"},
    {UNLISTED, "whose keys' components the log does not list (PyTorch lists the AOT "
               "autograd key's only with DEBUG logging on)"},
};

static uint32_t cids_of(const struct tl_cachekey *ck, enum kind k, struct tl_buf *ids)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < ck->nmisses; i++) {
        const struct tl_ck_miss *m = &ck->misses[i];
        if (kind_of(m) != k)
            continue;
        if (n < MAX_SHOWN_MISSES) {
            if (n)
                tl_buf_adds(ids, ", ");
            tl_buf_adds(ids, m->cid ? m->cid : "?");
            tl_buf_addch(ids, ' ');
            tl_buf_adds(ids, cache_words(m->cache));
            if (m->role) {
                tl_buf_addch(ids, ' ');
                tl_buf_adds(ids, m->role);
            }
        } else if (n == MAX_SHOWN_MISSES) {
            tl_buf_adds(ids, ", ...");
        }
        n++;
    }
    return n;
}

void tl_cachemiss_text(struct tl_buf *out, const struct tl_cachekey *ck, bool color)
{
    if (!anything(ck))
        return;
    uint32_t shown = 0;
    for (uint32_t i = 0; i < ck->nmisses; i++) {
        const struct tl_ck_miss *m = &ck->misses[i];
        if (kind_of(m) != EXPLAINED)
            continue;
        if (shown++ == MAX_SHOWN_MISSES) {
            tl_buf_adds(out, "  ... (--json lists every miss)\n");
            break;
        }
        tl_buf_adds(out, "  ");
        tl_term_paint(out, color, "1", "Cache miss");
        tl_buf_addch(out, ' ');
        tl_term_safe(out, m->cid ? m->cid : "?");
        tl_buf_addf(out, " (%s", cache_words(m->cache));
        if (m->role) {
            tl_buf_adds(out, ", ");
            tl_term_safe(out, m->role);
        }
        tl_buf_adds(out, ")");
        if (m->has_nearest) {
            tl_buf_adds(out, " against ");
            tl_term_safe(out, m->nearest_cid ? m->nearest_cid : "?");
        }
        tl_buf_adds(out, ":");
        for (uint32_t j = 0; j < m->ndiffs && j < MAX_SHOWN_DIFFS; j++) {
            tl_buf_adds(out, j ? "; " : " ");
            tl_term_safe(out, m->diffs[j].words);
        }
        if (m->ndiffs > MAX_SHOWN_DIFFS)
            tl_buf_addf(out, "; and %u more", m->ndiffs - MAX_SHOWN_DIFFS);
        if (m->note) {
            tl_buf_adds(out, m->ndiffs ? "; " : " ");
            tl_term_safe(out, m->note);
        }
        tl_buf_addch(out, '\n');
    }
    for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
        struct tl_buf ids = TL_BUF_INIT;
        uint32_t n = cids_of(ck, groups[g].k, &ids);
        if (n) {
            tl_buf_addf(out, "  %u cache miss%s %s: ", n, n == 1 ? "" : "es", groups[g].what);
            tl_term_safe(out, ids.buf);
            tl_buf_addch(out, '\n');
        }
        tl_buf_release(&ids);
    }
    for (uint32_t i = 0; i < ck->nbypasses; i++) {
        const struct tl_ck_bypass *e = &ck->bypasses[i];
        tl_buf_adds(out, "  ");
        tl_term_paint(out, color, "1", "Cache bypass");
        tl_buf_addch(out, ' ');
        tl_term_safe(out, e->cid ? e->cid : "?");
        tl_buf_addf(out, " (%s): ", cache_words(e->cache));
        tl_term_safe(out, e->reason ? e->reason : "no reason given");
        tl_buf_addch(out, '\n');
    }
}

/* ---- HTML ---- */

static void cid_html(struct tl_buf *out, const char *href, const char *cid)
{
    if (cid)
        tl_html_cid_link(out, href, cid);
    else
        tl_buf_adds(out, "<code class='cid'>?</code>");
}

static void lookup_html(struct tl_buf *out, const char *cid, int cache, const char *role,
                        const char *href)
{
    cid_html(out, href, cid);
    tl_buf_adds(out, " ");
    tl_buf_adds(out, cache_words(cache));
    if (role) {
        tl_buf_addch(out, ' ');
        tl_html_text_cstr(out, role);
    }
}

void tl_cachemiss_html(struct tl_buf *out, const struct tl_cachekey *ck, const char *href)
{
    if (!anything(ck))
        return;
    tl_buf_adds(out, "<div class='cache-misses' id='cache-misses'>\n");
    uint32_t shown = 0;
    for (uint32_t i = 0; i < ck->nmisses; i++) {
        const struct tl_ck_miss *m = &ck->misses[i];
        if (kind_of(m) != EXPLAINED)
            continue;
        if (shown++ == MAX_SHOWN_MISSES) {
            tl_buf_adds(out, "<p>&hellip; (summary.json lists every miss)</p>\n");
            break;
        }
        tl_buf_adds(out, "<p>Cache miss ");
        lookup_html(out, m->cid, m->cache, m->role, href);
        if (m->has_nearest) {
            tl_buf_adds(out, ", against ");
            cid_html(out, href, m->nearest_cid);
        }
        tl_buf_adds(out, ":</p>\n<ul>\n");
        for (uint32_t j = 0; j < m->ndiffs && j < MAX_SHOWN_DIFFS; j++) {
            tl_buf_adds(out, "<li>");
            tl_html_text_cstr(out, m->diffs[j].words);
            tl_buf_adds(out, "</li>\n");
        }
        if (m->ndiffs > MAX_SHOWN_DIFFS)
            tl_buf_addf(out, "<li>and %u more</li>\n", m->ndiffs - MAX_SHOWN_DIFFS);
        if (m->note) {
            tl_buf_adds(out, "<li>");
            tl_html_text_cstr(out, m->note);
            tl_buf_adds(out, "</li>\n");
        }
        tl_buf_adds(out, "</ul>\n");
    }
    for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < ck->nmisses; i++) {
            const struct tl_ck_miss *m = &ck->misses[i];
            if (kind_of(m) != groups[g].k)
                continue;
            if (!n)
                tl_buf_addf(out, "<p>Cache misses %s:", groups[g].what);
            if (n < MAX_SHOWN_MISSES) {
                tl_buf_adds(out, n ? ", " : " ");
                lookup_html(out, m->cid, m->cache, m->role, href);
            } else if (n == MAX_SHOWN_MISSES) {
                tl_buf_adds(out, ", &hellip;");
            }
            n++;
        }
        if (n)
            tl_buf_addf(out, " (%u)</p>\n", n);
    }
    for (uint32_t i = 0; i < ck->nbypasses; i++) {
        const struct tl_ck_bypass *e = &ck->bypasses[i];
        tl_buf_adds(out, "<p>Cache bypass ");
        lookup_html(out, e->cid, e->cache, NULL, href);
        tl_buf_adds(out, ": ");
        tl_html_text_cstr(out, e->reason ? e->reason : "no reason given");
        tl_buf_adds(out, "</p>\n");
    }
    tl_buf_adds(out, "</div>\n");
}
