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

/* ---- the components that differ, as JSON, words and a list --------------------------------- */

static void diffs_json(struct tl_json_doc *w, const struct tl_ck_diff *d, uint32_t n)
{
    tl_json_doc_key(w, "differs");
    tl_json_doc_array(w);
    for (uint32_t j = 0; j < n; j++) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "component", d[j].component);
        tl_json_doc_kstr(w, "before", d[j].before);
        tl_json_doc_kstr(w, "after", d[j].after);
        tl_json_doc_kstr(w, "words", d[j].words);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
}

/* "; "-separated words, each after a space or "; ", the first MAX_SHOWN_DIFFS; printable:
 * made safe for a terminal here (else by the caller). */
static void diffs_words(struct tl_buf *out, const struct tl_ck_diff *d, uint32_t n, bool printable)
{
    for (uint32_t j = 0; j < n && j < MAX_SHOWN_DIFFS; j++) {
        tl_buf_adds(out, j ? "; " : " ");
        if (printable)
            tl_term_safe(out, d[j].words);
        else
            tl_buf_adds(out, d[j].words);
    }
    if (n > MAX_SHOWN_DIFFS)
        tl_buf_addf(out, "; and %u more", n - MAX_SHOWN_DIFFS);
}

/* The list items of the first MAX_SHOWN_DIFFS words. */
static void diffs_items(struct tl_buf *out, const struct tl_ck_diff *d, uint32_t n)
{
    for (uint32_t j = 0; j < n && j < MAX_SHOWN_DIFFS; j++) {
        tl_buf_adds(out, "<li>");
        tl_html_text_cstr(out, d[j].words);
        tl_buf_adds(out, "</li>\n");
    }
    if (n > MAX_SHOWN_DIFFS)
        tl_buf_addf(out, "<li>and %u more</li>\n", n - MAX_SHOWN_DIFFS);
}

static const char *state_name(int state)
{
    return state == TL_CK_HIT ? "hit" : state == TL_CK_MISS ? "miss" : "bypass";
}

/* "keys": the hits and misses with their components (model/cachekey.h's digest), for
 * comparing this log with another from its summary. */
static void keys_json(struct tl_json_doc *w, const struct tl_cachekey *ck)
{
    struct tl_arena arena;
    tl_arena_init(&arena, 64 * 1024);
    const struct tl_ck_digest *dg = tl_cachekey_digest(ck, &arena);
    if (dg) {
        tl_json_doc_key(w, "keys");
        tl_json_doc_object(w);
        tl_json_doc_ku64(w, "lookups_dropped", dg->dropped);
        tl_json_doc_key(w, "components");
        tl_json_doc_array(w);
        for (uint32_t i = 0; i < dg->ncomps; i++) {
            tl_json_doc_array_inline(w);
            tl_json_doc_str(w, dg->comps[i].name);
            tl_json_doc_str(w, dg->comps[i].hash);
            tl_json_doc_str(w, dg->comps[i].value);
            tl_json_doc_end(w, ']');
        }
        tl_json_doc_end(w, ']');
        tl_json_doc_key(w, "lookups");
        tl_json_doc_array(w);
        for (uint32_t i = 0; i < dg->nentries; i++) {
            const struct tl_ck_digest_entry *e = &dg->entries[i];
            tl_json_doc_object(w);
            tl_json_doc_kstr(w, "compile_id", e->cid);
            tl_json_doc_kstr(w, "cache", tl_cachekey_cache_name(e->cache));
            tl_json_doc_kstr(w, "state", state_name(e->state));
            tl_json_doc_kstr(w, "graph", e->role);
            tl_json_doc_kstr(w, "key", e->key);
            tl_json_doc_key(w, "components");
            tl_json_doc_array_inline(w);
            for (uint32_t j = 0; j < e->ncomps; j++)
                tl_json_doc_u64(w, e->comps[j]);
            tl_json_doc_end(w, ']');
            tl_json_doc_end(w, '}');
        }
        tl_json_doc_end(w, ']');
        tl_json_doc_end(w, '}');
    }
    tl_arena_release(&arena);
}

void tl_cachemiss_json(struct tl_json_doc *w, const struct tl_cachekey *ck)
{
    if (ck && !anything(ck))
        keys_json(w, ck);
    if (!anything(ck))
        return;
    tl_json_doc_key(w, "misses");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < ck->nmisses; i++) {
        const struct tl_ck_miss *m = &ck->misses[i];
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "compile_id", m->cid);
        tl_json_doc_kstr(w, "cache", tl_cachekey_cache_name(m->cache));
        tl_json_doc_kstr(w, "graph", m->role);
        tl_json_doc_kstr(w, "key", m->key);
        tl_json_doc_kstr(w, "nearest",
                         m->has_nearest ? (m->nearest_cid ? m->nearest_cid : "") : NULL);
        tl_json_doc_kstr(w, "nearest_key", m->nearest_key);
        tl_json_doc_kbool(w, "components_listed", m->listed);
        tl_json_doc_kbool(w, "new_graph", m->new_graph);
        diffs_json(w, m->diffs, m->ndiffs);
        tl_json_doc_kstr(w, "note", m->note);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    tl_json_doc_key(w, "bypasses");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < ck->nbypasses; i++) {
        const struct tl_ck_bypass *e = &ck->bypasses[i];
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "compile_id", e->cid);
        tl_json_doc_kstr(w, "cache", tl_cachekey_cache_name(e->cache));
        tl_json_doc_kstr(w, "reason", e->reason);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    keys_json(w, ck);
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
        diffs_words(out, m->diffs, m->ndiffs, true);
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
        diffs_items(out, m->diffs, m->ndiffs);
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

/* ---- across logs ---------------------------------------------------------------------------- */

static const char *against_state(const struct tl_ck_across_miss *m)
{
    return m->against_state == TL_CK_HIT ? "hit" : "stored";
}

void tl_cachemiss_across_json(struct tl_json_doc *w, const struct tl_ck_across *a, bool ranks)
{
    for (uint32_t i = 0; a && i < a->nmisses; i++) {
        const struct tl_ck_across_miss *m = &a->misses[i];
        tl_json_doc_object(w);
        if (ranks) {
            tl_json_doc_key(w, "ranks");
            tl_json_doc_array_inline(w);
            for (uint32_t k = 0; k < m->nlogs; k++)
                tl_json_doc_u64(w, m->origins[k]);
            tl_json_doc_end(w, ']');
        }
        tl_json_doc_key(w, "compile_ids");
        tl_json_doc_array_inline(w);
        for (uint32_t k = 0; k < m->nlogs; k++)
            tl_json_doc_str(w, m->cids[k]);
        tl_json_doc_end(w, ']');
        tl_json_doc_kstr(w, "cache", tl_cachekey_cache_name(m->cache));
        tl_json_doc_kstr(w, "graph", m->role);
        tl_json_doc_kstr(w, "key", m->key);
        tl_json_doc_key(w, "against");
        tl_json_doc_object(w);
        if (ranks)
            tl_json_doc_ku64(w, "rank", m->against);
        tl_json_doc_kstr(w, "compile_id", m->against_cid);
        tl_json_doc_kstr(w, "key", m->against_key);
        tl_json_doc_kstr(w, "state", against_state(m));
        tl_json_doc_end(w, '}');
        diffs_json(w, m->diffs, m->ndiffs);
        tl_json_doc_end(w, '}');
    }
}

/* "rank 1 [0/0]", "ranks 1 [0/0], 3 [0/2]", or "[0/0]" (a diff's after side) */
static void missed_on(struct tl_buf *b, const struct tl_ck_across_miss *m, bool ranks)
{
    if (ranks)
        tl_buf_adds(b, m->nlogs == 1 ? "rank " : "ranks ");
    for (uint32_t k = 0; k < m->nlogs && k < MAX_SHOWN_MISSES; k++) {
        if (k)
            tl_buf_adds(b, ", ");
        if (ranks)
            tl_buf_addf(b, "%u ", m->origins[k]);
        tl_buf_adds(b, m->cids[k] ? m->cids[k] : "?");
    }
    if (m->nlogs > MAX_SHOWN_MISSES)
        tl_buf_adds(b, ", ...");
}

/* "rank 0's [0/0] (stored)", "before's [0/0] (hit)" */
static void against_words(struct tl_buf *b, const struct tl_ck_across_miss *m, bool ranks)
{
    if (ranks)
        tl_buf_addf(b, "rank %u's ", m->against);
    else
        tl_buf_adds(b, "the before side's ");
    tl_buf_adds(b, m->against_cid ? m->against_cid : "?");
    tl_buf_addf(b, " (%s)", against_state(m));
}

static void lookup_words(struct tl_buf *b, const struct tl_ck_across_miss *m)
{
    tl_buf_adds(b, cache_words(m->cache));
    if (m->role) {
        tl_buf_adds(b, ", ");
        tl_buf_adds(b, m->role);
    }
}

void tl_cachemiss_across_text(struct tl_buf *out, const struct tl_ck_across *a, bool ranks,
                              bool color)
{
    for (uint32_t i = 0; a && i < a->nmisses; i++) {
        const struct tl_ck_across_miss *m = &a->misses[i];
        if (i == MAX_SHOWN_MISSES) {
            tl_buf_adds(out, "  ... (--json lists every miss)\n");
            break;
        }
        struct tl_buf b = TL_BUF_INIT;
        tl_buf_adds(out, "  ");
        tl_term_paint(out, color, "1", "Cache miss");
        tl_buf_adds(&b, ranks ? " on " : " ");
        missed_on(&b, m, ranks);
        tl_buf_adds(&b, " (");
        lookup_words(&b, m);
        tl_buf_adds(&b, ") against ");
        against_words(&b, m, ranks);
        tl_buf_addch(&b, ':');
        diffs_words(&b, m->diffs, m->ndiffs, false);
        tl_term_safe(out, b.buf);
        tl_buf_addch(out, '\n');
        tl_buf_release(&b);
    }
}

void tl_cachemiss_across_html(struct tl_buf *out, const struct tl_ck_across *a, bool ranks)
{
    for (uint32_t i = 0; a && i < a->nmisses; i++) {
        const struct tl_ck_across_miss *m = &a->misses[i];
        if (i == MAX_SHOWN_MISSES) {
            tl_buf_adds(out, "<p>&hellip; (summary.json lists every miss)</p>\n");
            break;
        }
        struct tl_buf b = TL_BUF_INIT;
        tl_buf_adds(&b, ranks ? "Cache miss on " : "Cache miss ");
        missed_on(&b, m, ranks);
        tl_buf_adds(&b, " (");
        lookup_words(&b, m);
        tl_buf_adds(&b, "), against ");
        against_words(&b, m, ranks);
        tl_buf_addch(&b, ':');
        tl_buf_adds(out, "<p>");
        tl_html_text_cstr(out, b.buf);
        tl_buf_adds(out, "</p>\n<ul>\n");
        diffs_items(out, m->diffs, m->ndiffs);
        tl_buf_adds(out, "</ul>\n");
        tl_buf_release(&b);
    }
}
