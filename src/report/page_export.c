/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pages of export mode (spec modes.md §2.3-2.4): index.html, which says whether export
 * could produce a sound graph and lists what kept it from doing so, with a remedy for each;
 * and a symbolic_guard_information_N.html page per guard or data-dependent expression, with
 * the user's and the framework's stacks, the frame's locals, and the tree of expressions the
 * guard was built from. Unlike the reference, expressions and reasons from the log are
 * escaped like every other value.
 */
#include "base/config.h"
#include "report/pages.h"
#include "base/arena.h"
#include "base/map.h"
#include "base/xalloc.h"
#include "report/assets.h"
#include "report/html.h"
#include "report/summary.h"

#include <stdlib.h>
#include <string.h>

static const char fake_kernel_doc[] =
    "https://docs.google.com/document/d/1_W62p8WJOQQUzPsJYa7s701JXt0qf2OfLub2sbkHOaU/"
    "edit#heading=h.ahugy69p2jmz";

static void code(struct tl_buf *out, const char *s)
{
    tl_buf_adds(out, "<code>");
    tl_html_text_cstr(out, s ? s : "(not in the log)");
    tl_buf_adds(out, "</code>");
}

static const char *kind_name(enum tl_export_problem_kind k)
{
    switch (k) {
    case TL_EXPORT_PROBLEM_GUARD:
        return "Guard Evaluated";
    case TL_EXPORT_PROBLEM_DATA:
        return "Data Dependent Error";
    case TL_EXPORT_PROBLEM_MISSING_FAKE:
        return "Missing Fake Kernel";
    case TL_EXPORT_PROBLEM_MISMATCHED_FAKE:
        return "Mismatched Fake Kernel";
    }
    return "";
}

void tl_page_export_problem_cells(struct tl_buf *out, const struct tl_export_problem *p)
{
    tl_buf_adds(out, "<td>");
    tl_buf_adds(out, kind_name(p->kind));
    tl_buf_adds(out, "</td>\n<td>");
    switch (p->kind) {
    case TL_EXPORT_PROBLEM_GUARD:
        tl_buf_adds(out, "While exporting, the guard ");
        code(out, p->expr);
        tl_buf_adds(out, " was evaluated. This may have caused a constraint violation error: a "
                         "dimension you marked dynamic was found to be constrained (or "
                         "constant) by the code.");
        break;
    case TL_EXPORT_PROBLEM_DATA:
        tl_buf_adds(out, "Export could not tell whether ");
        code(out, p->expr);
        tl_buf_adds(out, " always holds (it depends on the data), so it specialized it to ");
        code(out, p->result);
        tl_buf_adds(out, " and inserted runtime asserts into the graph.");
        break;
    case TL_EXPORT_PROBLEM_MISSING_FAKE:
        tl_buf_adds(out, "<code>torch.ops.");
        tl_html_text_cstr(out, p->op ? p->op : "(not in the log)");
        tl_buf_adds(out, "</code> has no fake kernel implementation.");
        break;
    case TL_EXPORT_PROBLEM_MISMATCHED_FAKE:
        tl_buf_adds(out, "<code>torch.ops.");
        tl_html_text_cstr(out, p->op ? p->op : "(not in the log)");
        tl_buf_adds(out, "</code> has a fake kernel whose behaviour differs from the real "
                         "kernel.<br>");
        tl_html_text_cstr(out, p->reason ? p->reason : "");
        break;
    }
    tl_buf_adds(out, "</td>\n<td>");
    if (p->page) {
        tl_buf_adds(out, "Please click <a href='");
        tl_html_path(out, p->page, strlen(p->page));
        tl_buf_adds(out, "'>here</a> for more information.");
    } else if (p->kind == TL_EXPORT_PROBLEM_MISSING_FAKE ||
               p->kind == TL_EXPORT_PROBLEM_MISMATCHED_FAKE) {
        tl_buf_adds(out, "Please refer to <a href='");
        tl_buf_adds(out, fake_kernel_doc);
        tl_buf_adds(out, "'>this doc</a> for instructions on how to write a fake kernel.");
    }
    tl_buf_adds(out, "</td>\n");
}

/* "file:line in function" of a frame, escaped; else the code the log names. */
static void where(struct tl_buf *out, const struct tl_iframe *f, const char *loc,
                  const struct tl_strtab *strtab)
{
    if (!f && loc) {
        code(out, loc);
        return;
    }
    if (!f) {
        tl_buf_adds(out, "<span class='muted'>(no user frame in the log)</span>");
        return;
    }
    tl_page_frame(out, f, strtab);
}

static void guards_section(struct tl_buf *out, const struct tl_export *x,
                           const struct tl_strtab *strtab)
{
    if (!x->guards_total)
        return;
    tl_buf_adds(out, "<h3>Guards and specializations export added</h3>\n<p>These hold for "
                     "every input the exported program accepts; export checks them on the "
                     "sample inputs only.");
    if (x->guards_total > x->nguards) {
        tl_buf_adds(out, " The first ");
        tl_buf_addu(out, x->nguards);
        tl_buf_adds(out, " of ");
        tl_buf_addu(out, x->guards_total);
        tl_buf_adds(out, " are listed.");
    }
    tl_buf_adds(out, "</p>\n<table>\n<tr><th class='kind'>Kind</th><th>Expression</th>"
                     "<th>Where in your code</th></tr>\n");
    for (size_t i = 0; i < x->nguards; i++) {
        const struct tl_export_guard *g = &x->guards[i];
        tl_buf_adds(out, "<tr><td>");
        tl_buf_adds(out, g->kind);
        tl_buf_adds(out, "</td><td>");
        code(out, g->expr);
        tl_buf_adds(out, "</td><td>");
        where(out, g->where, g->code, strtab);
        tl_buf_adds(out, "</td></tr>\n");
    }
    tl_buf_adds(out, "</table>\n");
}

void tl_page_export_index(struct tl_buf *out, const struct tl_export_index_page *p)
{
    const struct tl_export *x = p->x;
    tl_page_head(out, "Export report");
    tl_buf_adds(out, "<style>\n");
    tl_buf_adds(out, tl_asset_export_css);
    tl_buf_adds(out, "</style>\n<script>\n");
    tl_buf_adds(out, tl_asset_toggle_js);
    tl_buf_adds(out, "</script>\n</head>\n<body>\n<div>\n");
    if (p->custom_header_html)
        tl_buf_adds(out, p->custom_header_html); /* raw by design: the user's own HTML */
    tl_page_redacted(out, p->info);
    tl_page_pytorch_version(out, p->diag ? p->diag->pytorch_version : NULL);
    tl_buf_adds(out, "<h2>Draft Export Report</h2>\n");
    uint32_t failed = p->diag ? p->diag->nfailures : 0;
    if (!x->nproblems && failed) {
        /* Not a draft export's problems: the export raised, and no graph was produced. */
        tl_buf_addf(out,
                    "<p class='failed'><strong>Export failed</strong>: %u compilation%s raised "
                    "an error, so no graph was produced. The diagnosis below says what and "
                    "how to fix it.</p>\n",
                    failed, failed == 1 ? "" : "s");
    } else if (!x->nproblems) {
        tl_buf_adds(out, "<p class='ok'>No issues were found while exporting: a sound graph "
                         "was produced. You can switch back to "
                         "<code>torch.export.export()</code>.</p>\n");
    } else {
        tl_buf_adds(out, "<p><strong>");
        tl_buf_addu(out, x->nproblems);
        tl_buf_adds(out, x->nproblems == 1 ? " issue</strong> was" : " issues</strong> were");
        tl_buf_adds(out, " found during export, so no sound graph could be produced. ");
        tl_buf_adds(out, x->nproblems == 1 ? "The issue and its remedy are listed below.</p>\n"
                                           : "Each issue and its remedy are listed below.</p>\n");
    }
    if (p->diag)
        tl_page_diagnosis(out, p->diag, NULL, NULL); /* it lists no compile ids */
    if (x->nproblems) {
        tl_buf_adds(out, "<table>\n<tr><th class='kind'>Failure Type</th><th>Reason</th>"
                         "<th>Additional Info</th></tr>\n");
        for (size_t i = 0; i < x->nproblems; i++) {
            tl_buf_adds(out, "<tr>\n");
            tl_page_export_problem_cells(out, &x->problems[i]);
            tl_buf_adds(out, "</tr>\n");
        }
        tl_buf_adds(out, "</table>\n");
    }
    if (p->exported_program || !failed) {
        tl_buf_adds(out, "<p>The exported program is at this <a href=\"");
        if (p->exported_program)
            tl_html_path(out, p->exported_program, strlen(p->exported_program));
        tl_buf_adds(out, "\">link</a>.</p>\n");
    }
    guards_section(out, x, p->strtab);
    tl_buf_adds(out, "</div>\n");
    tl_page_footer(out, p->info);
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
}

/* ---- the symbolic-guard page --------------------------------------------------------------- */

/* "Locals:" or "Symbols:" and a line per entry that has a value. */
static void locals(struct tl_buf *out, const struct tl_json *fl, const char *member,
                   const char *title)
{
    const struct tl_json *m = fl ? tl_json_get(fl, member) : NULL;
    if (!m || m->type != TL_JSON_OBJECT)
        return;
    tl_buf_adds(out, "<p>");
    tl_buf_adds(out, title);
    tl_buf_adds(out, "</p>\n<pre>\n");
    for (size_t i = 0; i < m->u.obj.n; i++) {
        const struct tl_json_member *e = &m->u.obj.items[i];
        if (e->value.type != TL_JSON_STRING)
            continue;
        tl_buf_adds(out, "    ");
        tl_html_text(out, e->key.p, e->key.n);
        tl_buf_adds(out, ": ");
        tl_html_text(out, e->value.u.str.p, e->value.u.str.n);
        tl_buf_addch(out, '\n');
    }
    tl_buf_adds(out, "</pre>\n");
}

/* One expression as a card, indented by its depth. */
static void node_card(struct tl_buf *out, const struct tl_export_node *n, size_t depth,
                      const struct tl_strtab *strtab)
{
    tl_buf_adds(out, "<div class='node' style='margin-left: ");
    tl_buf_addu(out, (uint64_t)(depth > 50 ? 50 : depth) * 20);
    tl_buf_adds(out, "px'>\n<h4>");
    tl_html_text_cstr(out, n->result ? n->result : "");
    tl_buf_adds(out, "</h4>\n<div>Method: <code>");
    tl_html_text_cstr(out, n->method ? n->method : "");
    tl_buf_adds(out, "</code></div>\n<div>Arguments: <code>");
    for (size_t i = 0; i < n->narguments; i++) {
        if (i)
            tl_buf_adds(out, ", ");
        tl_html_text_cstr(out, n->arguments[i] ? n->arguments[i] : "");
    }
    tl_buf_adds(out, "</code></div>\n");
    tl_page_stack_as(out, n->user_stack, n->n_user_stack, "User Stack", strtab, true);
    tl_page_stack_as(out, n->stack, n->n_stack, "Stack", strtab, false);
    tl_buf_adds(out, "</div>\n");
}

/* The tree below the guard's expression, depth first, each node once (an explicit stack: a
 * hostile log can chain a million expressions). */
static void expression_tree(struct tl_buf *out, const struct tl_export *x, uint64_t root,
                            const struct tl_strtab *strtab)
{
    struct item {
        uint64_t id;
        size_t depth;
    } *stack = NULL;
    size_t len = 0, alloc = 0;
    struct tl_arena arena;
    tl_arena_init(&arena, 4096);
    struct tl_map seen;
    tl_map_init(&seen, &arena);
    TL_GROW(stack, 1, alloc);
    stack[len++] = (struct item){root, 0};
    while (len) {
        struct item it = stack[--len];
        int created = 0;
        tl_map_upsert(&seen, tl_str_make((const char *)&it.id, sizeof(it.id)), &created);
        const struct tl_export_node *n = tl_export_node(x, it.id);
        if (!created || !n)
            continue;
        node_card(out, n, it.depth, strtab);
        /* Children in order: pushed last to first. */
        TL_GROW(stack, len + n->nargument_ids, alloc);
        for (size_t i = n->nargument_ids; i > 0; i--)
            stack[len++] = (struct item){n->argument_ids[i - 1], it.depth + 1};
    }
    free(stack);
    tl_map_release(&seen);
    tl_arena_release(&arena);
}

void tl_page_symbolic_guard(struct tl_buf *out, const struct tl_export *x,
                            const struct tl_export_view *v, const struct tl_strtab *strtab)
{
    tl_page_head(out, "Symbolic Shapes Information");
    tl_buf_adds(out, "<base href=\"..\">\n<style>\n");
    tl_buf_adds(out, tl_asset_style_css);
    tl_buf_adds(out, tl_asset_export_css);
    tl_buf_adds(out, "</style>\n<script>\n");
    tl_buf_adds(out, tl_asset_toggle_js);
    tl_buf_adds(out, "</script>\n</head>\n<body>\n<p><a href=\"index.html\">Export report</a></p>\n"
                     "<h2>Symbolic Shapes Information</h2>\n<h3>");
    tl_buf_adds(out, v->problem.kind == TL_EXPORT_PROBLEM_GUARD ? "Guard evaluated: "
                                                                : "Data-dependent expression: ");
    code(out, v->problem.expr);
    if (v->problem.result) {
        tl_buf_adds(out, " (specialized to ");
        code(out, v->problem.result);
        tl_buf_adds(out, ")");
    }
    tl_buf_adds(out, "</h3>\n<h3>Stacktrace</h3>\n");
    tl_page_stack_as(out, v->user_stack, v->n_user_stack, "User Stack", strtab, true);
    tl_page_stack_as(out, v->stack, v->n_stack, "Framework Stack", strtab, false);
    tl_buf_adds(out, "<h3>Locals Information</h3>\n");
    if (v->frame_locals) {
        locals(out, v->frame_locals, "locals", "Locals:");
        locals(out, v->frame_locals, "symbols", "Symbols:");
    } else {
        tl_buf_adds(out, "<p class='muted'>The log gives no locals for this frame.</p>\n");
    }
    tl_buf_adds(out, "<h3>Provenance information</h3>\n<details open>\n"
                     "<summary>Provenance Information</summary>\n");
    if (v->has_node)
        expression_tree(out, x, v->node_id, strtab);
    else
        tl_buf_adds(out, "<p class='muted'>The log does not say which expressions this one "
                         "was built from (older PyTorch versions do not log it).</p>\n");
    tl_buf_adds(out, "</details>\n</body>\n</html>\n");
}
