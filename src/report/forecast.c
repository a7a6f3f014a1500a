/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The recompile forecast (d->fframes, model/diag_forecast.c) as summary JSON's fields of a
 * frame, as a section of --summary and as a part of the Diagnosis section: per frame its cache
 * entries, its recompile limit and where the limit comes from, the recompiles left, whether it
 * ran in eager mode and why, and the guards that differ entry by entry. Log text is escaped
 * (HTML) or made printable (terminal).
 */
#include "base/config.h"
#include "report/summary.h"
#include "report/html.h"
#include "report/terminal.h"

#include <string.h>

static const char *limit_from(enum tl_diag_limit_from f, bool words)
{
    switch (f) {
    case TL_LIMIT_CONFIG:
        return words ? "the log's dynamo config" : "config";
    case TL_LIMIT_MESSAGE:
        return words ? "the limit's message" : "limit_message";
    case TL_LIMIT_DEFAULT:
        break;
    }
    return words ? "PyTorch's default: the log does not say" : "default";
}

static const char *eager_cause(enum tl_diag_eager e)
{
    return e == TL_EAGER_LIMIT     ? "recompile_limit"
           : e == TL_EAGER_SKIPPED ? "skipped"
           : e == TL_EAGER_FAILED  ? "failed"
                                   : NULL;
}

static const struct tl_diag_fframe *fframe_of(const struct tl_diag *d, const char *key)
{
    for (uint32_t i = 0; key && i < d->nfframes; i++)
        if (!strcmp(d->fframes[i].frame, key))
            return &d->fframes[i];
    return NULL;
}

/* ---- JSON ----------------------------------------------------------------------------------- */

void tl_summary_forecast_json(struct tl_json_doc *w, const struct tl_diag *d, const char *key)
{
    const struct tl_diag_fframe *f = fframe_of(d, key);
    if (!f)
        return;
    tl_json_doc_ku64(w, "entries", f->entries);
    tl_json_doc_ku64(w, "limit", f->limit);
    tl_json_doc_kstr(w, "limit_name", f->limit_name);
    tl_json_doc_kstr(w, "limit_from", limit_from(f->limit_from, false));
    tl_json_doc_ku64(w, "left", f->left);
    tl_json_doc_kbool(w, "ran_in_eager", f->eager != TL_EAGER_NO);
    tl_json_doc_key(w, "eager");
    if (f->eager != TL_EAGER_NO) {
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "cause", eager_cause(f->eager));
        tl_json_doc_kstr(w, "compile_id", f->eager_cid);
        tl_json_doc_kstr(w, "why", f->eager_why);
        tl_json_doc_end(w, '}');
    } else {
        tl_json_doc_null(w);
    }
    tl_json_doc_key(w, "guards_differ");
    tl_json_doc_array(w);
    for (uint32_t i = 0; i < f->ndiffs; i++) {
        const struct tl_diag_entry_diff *x = &f->diffs[i];
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "compile_id", x->cid);
        tl_json_doc_kstr(w, "against", x->against);
        tl_json_doc_key(w, "changes");
        tl_json_doc_array(w);
        for (uint32_t k = 0; k < x->n; k++) {
            const struct tl_guard_change *c = &x->changes[k];
            tl_json_doc_object(w);
            tl_json_doc_kstr(w, "change", tl_guard_change_name(c->kind));
            tl_json_doc_kstr(w, "guard", c->guard);
            tl_json_doc_kstr(w, "before", c->before);
            tl_json_doc_kstr(w, "after", c->after);
            tl_json_doc_end(w, '}');
        }
        tl_json_doc_end(w, ']');
        tl_json_doc_ku64(w, "more", x->total - x->n);
        tl_json_doc_kstr(w, "failed_guard", x->failed);
        tl_json_doc_end(w, '}');
    }
    tl_json_doc_end(w, ']');
    tl_json_doc_ku64(w, "guards_differ_more", f->ndiffs_all - f->ndiffs);
}

void tl_summary_forecast_json_frames(struct tl_json_doc *w, const struct tl_diag *d)
{
    for (uint32_t i = 0; i < d->nfframes; i++) {
        const struct tl_diag_fframe *f = &d->fframes[i];
        uint32_t k = 0;
        while (k < d->nframes && strcmp(d->frames[k].key, f->frame))
            k++;
        if (k < d->nframes)
            continue;
        tl_json_doc_object(w);
        tl_json_doc_kstr(w, "frame", f->frame);
        tl_json_doc_kstr(w, "function", f->function);
        tl_json_doc_kstr(w, "name", f->name);
        tl_json_doc_kstr(w, "file", f->where.file);
        tl_json_doc_key(w, "line");
        if (f->where.line)
            tl_json_doc_u64(w, f->where.line);
        else
            tl_json_doc_null(w);
        tl_json_doc_key(w, "callers");
        tl_json_doc_null(w);
        tl_json_doc_ku64(w, "compiles", f->compiles);
        tl_json_doc_key(w, "compile_ids");
        tl_json_doc_array(w);
        if (f->eager_cid)
            tl_json_doc_str(w, f->eager_cid);
        tl_json_doc_end(w, ']');
        tl_json_doc_key(w, "compile_time_s");
        tl_json_doc_null(w);
        tl_json_doc_key(w, "graphs");
        tl_json_doc_array(w);
        tl_json_doc_end(w, ']');
        tl_summary_forecast_json(w, d, f->frame);
        tl_json_doc_end(w, '}');
    }
}

/* ---- text ----------------------------------------------------------------------------------- */

static void t_eager(struct tl_buf *out, const struct tl_diag_fframe *f)
{
    switch (f->eager) {
    case TL_EAGER_LIMIT:
        tl_buf_adds(out, "the recompile limit was hit");
        break;
    case TL_EAGER_SKIPPED:
        tl_buf_adds(out, "Dynamo skipped the frame");
        break;
    case TL_EAGER_FAILED:
        tl_buf_adds(out, "its compilation failed");
        break;
    case TL_EAGER_NO:
        return;
    }
    if (f->eager_cid) {
        tl_buf_adds(out, " at ");
        tl_term_safe(out, f->eager_cid);
    }
    if (f->eager_why) {
        tl_buf_adds(out, f->eager == TL_EAGER_FAILED ? " (" : ": ");
        tl_term_safe(out, f->eager_why);
        if (f->eager == TL_EAGER_FAILED)
            tl_buf_addch(out, ')');
    }
    if (f->eager == TL_EAGER_FAILED)
        tl_buf_adds(out, " and suppress_errors ran it in eager mode");
}

/* "2 cache entries, 6 recompiles left before recompile_limit = 8 (...)"; of a frame that made
 * no entry and ran in eager mode for another reason than the limit, only that. */
static bool no_entry_eager(const struct tl_diag_fframe *f)
{
    return !f->entries && f->eager != TL_EAGER_NO && f->eager != TL_EAGER_LIMIT;
}

static void t_change(struct tl_buf *out, const struct tl_guard_change *c)
{
    tl_buf_addf(out, "       %s ", tl_guard_change_name(c->kind));
    tl_term_safe(out, c->guard);
    if (c->kind == TL_GUARD_CHANGED) {
        tl_buf_addch(out, ' ');
        tl_term_safe(out, c->before);
        tl_buf_adds(out, " -> ");
        tl_term_safe(out, c->after);
    }
    tl_buf_addch(out, '\n');
}

void tl_summary_forecast_text(struct tl_buf *out, const struct tl_diag *d, bool color)
{
    if (!d->nfframes)
        return;
    tl_term_paint(out, color, "1", "Frames compiled more than once or run in eager mode:");
    tl_buf_addch(out, '\n');
    for (uint32_t i = 0; i < d->nfframes; i++) {
        const struct tl_diag_fframe *f = &d->fframes[i];
        tl_buf_adds(out, "  frame ");
        tl_term_safe(out, f->frame);
        if (f->function) {
            tl_buf_addch(out, ' ');
            tl_term_safe(out, f->function);
        }
        if (f->where.file) {
            struct tl_buf loc = TL_BUF_INIT;
            tl_summary_loc(&loc, &f->where);
            tl_buf_adds(out, " (");
            tl_term_safe(out, loc.buf);
            tl_buf_addch(out, ')');
            tl_buf_release(&loc);
        }
        if (no_entry_eager(f)) {
            tl_buf_adds(out, ": no cache entry\n");
        } else {
            tl_buf_addf(out, ": %u cache entr%s, %llu recompile%s left before ", f->entries,
                        f->entries == 1 ? "y" : "ies", (unsigned long long)f->left,
                        f->left == 1 ? "" : "s");
            tl_term_safe(out, f->limit_name);
            tl_buf_addf(out, " = %llu (%s)\n", (unsigned long long)f->limit,
                        limit_from(f->limit_from, true));
        }
        if (f->eager != TL_EAGER_NO) {
            tl_buf_adds(out, "     ");
            tl_term_paint(out, color, "1;31", "RAN IN EAGER MODE:");
            tl_buf_addch(out, ' ');
            t_eager(out, f);
            tl_buf_addch(out, '\n');
        }
        for (uint32_t k = 0; k < f->ndiffs; k++) {
            const struct tl_diag_entry_diff *x = &f->diffs[k];
            tl_buf_adds(out, "     ");
            tl_term_safe(out, x->cid);
            tl_buf_adds(out, " against ");
            tl_term_safe(out, x->against);
            if (!x->total) {
                tl_buf_adds(out, ": the same guards as logged (what failed is not printed in "
                                 "them");
                if (x->failed) {
                    tl_buf_adds(out, "; its recompile reason: ");
                    tl_term_safe(out, x->failed);
                }
                tl_buf_adds(out, ")\n");
                continue;
            }
            tl_buf_addf(out, ": %u guard%s differ%s\n", x->total, x->total == 1 ? "" : "s",
                        x->total == 1 ? "s" : "");
            for (uint32_t c = 0; c < x->n; c++)
                t_change(out, &x->changes[c]);
            if (x->total > x->n)
                tl_buf_addf(out, "       and %u more\n", x->total - x->n);
        }
        if (f->ndiffs_all > f->ndiffs)
            tl_buf_addf(out, "     and %u more entries\n", f->ndiffs_all - f->ndiffs);
    }
}

/* ---- HTML ----------------------------------------------------------------------------------- */

static void h_text(struct tl_buf *out, const char *s)
{
    if (s)
        tl_html_text_cstr(out, s);
}

static void h_code(struct tl_buf *out, const char *s)
{
    if (!s)
        return;
    tl_buf_adds(out, "<code>");
    tl_html_text_cstr(out, s);
    tl_buf_adds(out, "</code>");
}

static void h_frame(struct tl_buf *out, const struct tl_diag_fframe *f, const char *href)
{
    tl_buf_adds(out, f->eager != TL_EAGER_NO ? "<li class='finding sev-failure'>"
                                             : "<li class='finding sev-info'>");
    tl_buf_adds(out, "<span class='label'>");
    tl_buf_adds(out, f->eager != TL_EAGER_NO ? "Ran in eager mode" : "Compiled more than once");
    tl_buf_adds(out, "</span> frame ");
    h_text(out, f->frame);
    if (f->function) {
        tl_buf_adds(out, " <code>");
        h_text(out, f->function);
        tl_buf_adds(out, "</code>");
    }
    if (f->where.file) {
        struct tl_buf loc = TL_BUF_INIT;
        tl_summary_loc(&loc, &f->where);
        tl_buf_adds(out, " (defined at ");
        h_code(out, loc.buf);
        tl_buf_addch(out, ')');
        tl_buf_release(&loc);
    }
    if (no_entry_eager(f)) {
        tl_buf_adds(out, "\n<p>No cache entry.</p>\n");
    } else {
        tl_buf_addf(out, "\n<p>%u cache entr%s, %llu recompile%s left before ", f->entries,
                    f->entries == 1 ? "y" : "ies", (unsigned long long)f->left,
                    f->left == 1 ? "" : "s");
        h_code(out, f->limit_name);
        tl_buf_addf(out, " = %llu (%s).</p>\n", (unsigned long long)f->limit,
                    limit_from(f->limit_from, true));
    }
    if (f->eager != TL_EAGER_NO) {
        tl_buf_adds(out, "<p><strong>Ran in eager mode:</strong> ");
        tl_buf_adds(out, f->eager == TL_EAGER_LIMIT     ? "the recompile limit was hit"
                         : f->eager == TL_EAGER_SKIPPED ? "Dynamo skipped the frame"
                                                        : "its compilation failed (and "
                                                          "suppress_errors ran it so)");
        if (f->eager_cid) {
            tl_buf_adds(out, " at ");
            tl_html_cid_link(out, href, f->eager_cid);
        }
        if (f->eager_why) {
            tl_buf_adds(out, ": ");
            h_code(out, f->eager_why);
        }
        tl_buf_adds(out, ".</p>\n");
    }
    if (!f->ndiffs) {
        tl_buf_adds(out, "</li>\n");
        return;
    }
    tl_buf_adds(out, "<table class='guards'>\n<tr><th>Entry</th><th>Against</th><th>Change</th>"
                     "<th>Guard</th><th>Before</th><th>After</th></tr>\n");
    for (uint32_t k = 0; k < f->ndiffs; k++) {
        const struct tl_diag_entry_diff *x = &f->diffs[k];
        uint32_t rows = x->n + (x->total > x->n) + !x->total;
        for (uint32_t c = 0; c < rows; c++) {
            tl_buf_adds(out, "<tr>");
            if (c == 0) {
                tl_buf_addf(out, "<td rowspan='%u'>", rows);
                tl_html_cid_link(out, href, x->cid);
                tl_buf_addf(out, "</td><td rowspan='%u'>", rows);
                tl_html_cid_link(out, href, x->against);
                tl_buf_adds(out, "</td>");
            }
            if (!x->total) {
                tl_buf_adds(out, "<td colspan='4'>The same guards as logged: what failed is "
                                 "not printed in them");
                if (x->failed) {
                    tl_buf_adds(out, "; its recompile reason: ");
                    h_code(out, x->failed);
                }
                tl_buf_adds(out, ".</td></tr>\n");
                continue;
            }
            if (c == x->n) {
                tl_buf_addf(out, "<td colspan='4'>and %u more</td></tr>\n", x->total - x->n);
                continue;
            }
            const struct tl_guard_change *g = &x->changes[c];
            tl_buf_addf(out, "<td>%s</td><td>", tl_guard_change_name(g->kind));
            h_code(out, g->guard);
            tl_buf_adds(out, "</td><td>");
            h_code(out, g->before);
            tl_buf_adds(out, "</td><td>");
            h_code(out, g->after);
            tl_buf_adds(out, "</td></tr>\n");
        }
    }
    tl_buf_adds(out, "</table>\n");
    if (f->ndiffs_all > f->ndiffs)
        tl_buf_addf(out, "<p>and %u more entries</p>\n", f->ndiffs_all - f->ndiffs);
    tl_buf_adds(out, "</li>\n");
}

void tl_page_forecast(struct tl_buf *out, const struct tl_diag *d, const char *cid_href)
{
    if (!d->nfframes)
        return;
    tl_buf_adds(out, "<h3 id='forecast'>Frames compiled more than once or run in eager "
                     "mode</h3>\n<p>Per frame, its cache entries, the recompiles left before "
                     "the limit, and the guards that differ from each entry to the one "
                     "before.</p>\n<ul>\n");
    for (uint32_t i = 0; i < d->nfframes; i++)
        h_frame(out, &d->fframes[i], cid_href);
    tl_buf_adds(out, "</ul>\n");
}
