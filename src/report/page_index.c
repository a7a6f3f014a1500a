/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * index.html (spec core.md §4.1): the stack trie, the failures summary, the
 * explanation of compile ids, and the listing of every artifact by compile
 * id. Written in pieces through a page sink, since with tens of
 * thousands of compile ids the listing runs to megabytes.
 */
#include "base/config.h"
#include "report/pages.h"
#include "report/assets.h"
#include "report/html.h"
#include "report/summary.h"

#include <string.h>

static const char intro[] =
    "<h2>Stack trie</h2>\n"
    "<p>\n"
    "The <strong>stack trie</strong> is a way of getting a quick orientation on where all the\n"
    "compilations in a model take place, esp., if you are compiling a codebase you are "
    "unfamiliar with.\n"
    "It is a tree of stack frames, for all stacks that triggered PT2 compilation.  If only a "
    "single\n"
    "stack is in the tree, you will simply see a plain list of frames (most recent call last).  "
    "With\n"
    "multiple stacks, at every point where two stacks diverge from having a common prefix, we "
    "increase\n"
    "the indentation of the list and have a separate sub-list per sub-tree.\n"
    "</p>\n"
    "<p>\n"
    "Legend: <span class='status-ok'>[Success]</span> <span class='status-break'>[Success with "
    "restart (e.g., graph break)]</span> <span class='status-empty'>[Empty graph]</span> <span "
    "class='status-error'>[Error]</span> <span class='status-missing'>[Metrics were "
    "missing]</span>\n"
    "</p>\n";

static const char ir_dumps[] =
    "<h2>IR dumps</h2>\n"
    "<p>\n"
    "The <strong>IR dumps</strong> collected from dynamo, aot autograd and inductor are grouped "
    "by compile id below,\n"
    "in chronological order of compilation.\n"
    "<strong>[x/y]</strong> is the compile id: x is the frame id (the n-th distinct frame that "
    "dynamo compiled)\n"
    "and y is the frame compile id (the n-th time that frame was compiled, for example after a "
    "recompile).\n"
    "A suffix <strong>_z</strong> is the attempt: dynamo restarted the analysis of the frame, "
    "for example\n"
    "after a graph break, and z counts the restarts.\n"
    "A prefix <strong>!a/</strong> marks a compilation made by compiled autograd, a being its "
    "compiled autograd id.\n"
    "</p>\n"
    "<p>\n"
    "Within a compile id, the products are listed in the order they were produced, which "
    "follows the phases of compilation:\n"
    "</p>\n"
    "<ol>\n"
    "<li>If compiled autograd is on, <code>compiled_autograd_graph</code>, the graph it "
    "captured.</li>\n"
    "<li><code>dynamo_output_graph</code>, the FX graph dynamo traced.</li>\n"
    "<li>With DDP, <code>optimize_ddp_split_graph</code> and the "
    "<code>optimize_ddp_split_child_submod</code> graphs it was split into.</li>\n"
    "<li>The AOT autograd graphs: <code>aot_joint_graph</code>, "
    "<code>aot_forward_graph</code> and <code>aot_backward_graph</code> for training, or "
    "<code>aot_inference_graph</code>.</li>\n"
    "<li><code>inductor_post_grad_graph</code>, the graph inductor lowers after its "
    "passes.</li>\n"
    "<li><code>inductor_output_code</code>, the code inductor generated.</li>\n"
    "</ol>\n";

/* The diagnosis names a compilation by [frame/compile], without its attempt: when only a
 * restart of it ([1/0_1]) has artifacts, its listing answers to [1/0] too. */
static void attempt_alias(struct tl_buf *out, const struct tl_directory *dir,
                          const struct tl_dirkey *k)
{
    struct tl_buf id = TL_BUF_INIT;
    if (tl_dirkey_attempt_base(&id, dir, k)) {
        tl_buf_adds(out, "<a id=\"");
        tl_html_attr(out, id.buf, id.len);
        tl_buf_adds(out, "\"></a>");
    }
    tl_buf_release(&id);
}

/* A compile id whose compilation made symbols or added shape guards links to its part of
 * dynamic_shapes.html. */
static void shapes_item(struct tl_buf *out, const struct tl_diag *d, const struct tl_directory *dir,
                        const struct tl_dirkey *k)
{
    if (!d)
        return;
    struct tl_buf id = TL_BUF_INIT;
    const char *cid = tl_dirkey_attempt_base(&id, dir, k) ? id.buf : k->display;
    uint32_t n = tl_diag_shapes_of(d, cid);
    if (n) {
        tl_buf_adds(out, "<li><a href=\"dynamic_shapes.html#");
        tl_html_attr_cstr(out, cid);
        tl_buf_addf(out, "\">dynamic shapes</a> (%u symbol%s and guard%s)</li>\n", n,
                    n == 1 ? "" : "s", n == 1 ? "" : "s");
    }
    tl_buf_release(&id);
}

/* A "Subgraph Name:" header (with a top margin) before each run of entries whose
 * regional-inductor subgraph differs from the previous entry's, as the reference 0.4.8 groups
 * them; *group is the previous entry's. A run of entries of no subgraph after a named one is
 * headed "(none)", so that it does not read as part of the run above it. */
static void subgraph_header(struct tl_buf *out, const char **group, const char *name)
{
    const bool change = name ? !*group || strcmp(*group, name) : *group != NULL;
    if (change) {
        tl_buf_adds(out, "<li style=\"list-style: none; margin-top: 0.8em\">Subgraph Name: "
                         "<strong>");
        tl_html_text_cstr(out, name ? name : "(none)");
        tl_buf_adds(out, "</strong></li>\n");
    }
    *group = name;
}

static void listing_key(struct tl_buf *out, const struct tl_directory *dir,
                        const struct tl_dirkey *k, const struct tl_diag *d)
{
    tl_buf_adds(out, "<li>");
    attempt_alias(out, dir, k);
    tl_buf_adds(out, "<a id=\"");
    tl_html_attr_cstr(out, k->display);
    tl_buf_adds(out, "\">");
    tl_html_attr_cstr(out, k->display);
    tl_buf_adds(out, "</a>\n<ul>\n");
    const char *group = NULL;
    for (const struct tl_artifact *a = k->first; a; a = a->next) {
        subgraph_header(out, &group, a->group);
        tl_buf_adds(out, "<li><a href=\"");
        tl_page_artifact_href(out, a);
        tl_buf_adds(out, "\">");
        tl_html_attr_cstr(out, a->name);
        tl_buf_adds(out, "</a>");
        if (a->readable_url && a->readable_url[0]) {
            tl_buf_adds(out, " (<a href=\"");
            tl_html_path(out, a->readable_url, strlen(a->readable_url));
            tl_buf_adds(out, "\">readable_html</a>)");
        }
        tl_buf_addch(out, ' ');
        tl_buf_adds(out, tl_cache_suffix_text(a->suffix));
        tl_buf_adds(out, " (");
        tl_buf_addu(out, a->number);
        tl_buf_adds(out, ")</li>\n");
    }
    shapes_item(out, d, dir, k);
    tl_buf_adds(out, "</ul>\n</li>\n");
}

/* The provenance pages, one per key in directory order (spec modes.md §3.2). */
static void provenance_section(struct tl_buf *out, const struct tl_directory *dir)
{
    tl_buf_adds(out, "<h2>Provenance Tracking</h2>\n<p>\nEach page shows a compilation's "
                     "pre-grad graph, post-grad graph and generated code side by side: point "
                     "at a line to see the lines it came from or became.\n</p>\n<ul>\n");
    struct tl_buf folder = TL_BUF_INIT;
    size_t n = tl_map_len(&dir->keys);
    for (size_t i = 0; i < n; i++) {
        tl_buf_reset(&folder);
        tl_dirkey_folder(&folder, tl_map_at(&dir->keys, i)->value);
        tl_buf_adds(out, "<li><a href='provenance_tracking_");
        tl_html_attr_cstr(out, folder.buf);
        tl_buf_adds(out, ".html'>provenance_tracking_");
        tl_html_attr_cstr(out, folder.buf);
        tl_buf_adds(out, "</a></li>\n");
    }
    tl_buf_release(&folder);
    tl_buf_adds(out, "</ul>\n");
}

/* The pages of a compile id's runtime records (sinks/report.c writes them, numbered from 1 in
 * its compile folder). */
static void runtime_links(struct tl_buf *out, const struct tl_compile *c, int bwd)
{
    struct tl_buf folder = TL_BUF_INIT;
    tl_compile_folder(&folder, c);
    tl_buf_adds(out, " (");
    for (uint32_t k = 1; k <= c->runtime[bwd].n; k++) {
        tl_buf_adds(out, k > 1 ? ", <a href=\"" : "<a href=\"");
        tl_html_attr_cstr(out, folder.buf);
        tl_buf_addf(out, "/%scompilation_metrics_runtime_%u.html\">%s%u</a>", bwd ? "bwd_" : "", k,
                    k > 1 ? "" : "record ", k);
    }
    tl_buf_adds(out, ")");
    tl_buf_release(&folder);
}

/* The first runs of each compiled graph (PyTorch 2.13's compilation_metrics_runtime): how long
 * they took, with the autotuning and CUDA-graph recording in them. */
static void runtime_section(struct tl_buf *out, const struct tl_model *m)
{
    static const char *const dir_name[2] = {"forward", "backward"};
    tl_buf_adds(out, "<h2>Runtime</h2>\n<p>\nThe first runs of the compiled code, as PyTorch "
                     "measured them (compilation_metrics_runtime): the work they did once, "
                     "such as autotuning kernels and recording CUDA graphs.\n</p>\n<ul>\n");
    size_t n = tl_model_ncompiles(m);
    for (size_t i = 0; i < n; i++) {
        const struct tl_compile *c = tl_model_compile_at(m, i);
        for (int b = 0; b < 2; b++) {
            const struct tl_runtime *rt = &c->runtime[b];
            if (!rt->n)
                continue;
            tl_buf_adds(out, "<li><a href=\"#");
            tl_html_attr_cstr(out, c->display);
            tl_buf_adds(out, "\">");
            tl_html_text_cstr(out, c->display);
            tl_buf_addf(out, "</a> %s: %u record%s, %llu us", dir_name[b], rt->n,
                        rt->n == 1 ? "" : "s", (unsigned long long)rt->duration_us);
            if (rt->autotune_us)
                tl_buf_addf(out, ", autotuning %llu us", (unsigned long long)rt->autotune_us);
            if (rt->cudagraphify_us)
                tl_buf_addf(out, ", CUDA graphs %llu us", (unsigned long long)rt->cudagraphify_us);
            runtime_links(out, c, b);
            tl_buf_adds(out, "</li>\n");
        }
    }
    tl_buf_adds(out, "</ul>\n");
}

/* "tlparse: NAME" with the last component of the input's name. */
static void index_title(struct tl_buf *out, const struct tl_runinfo *info)
{
    struct tl_buf t = TL_BUF_INIT;
    tl_buf_adds(&t, "tlparse");
    if (info && info->input && info->input[0]) {
        const char *base = strrchr(info->input, '/');
        base = base && base[1] ? base + 1 : info->input;
        tl_buf_adds(&t, ": ");
        tl_buf_adds(&t, base);
    }
    tl_page_head(out, t.buf);
    tl_buf_release(&t);
}

int tl_page_index(const struct tl_page_sink *sink, const struct tl_index_page *p)
{
    struct tl_buf *out = sink->buf;
    const struct tl_model *model = p->model;
    index_title(out, p->info);
    tl_buf_adds(out, "<style>\n");
    tl_buf_adds(out, tl_asset_style_css);
    tl_buf_adds(out, tl_asset_overview_css);
    tl_buf_adds(out, "</style>\n<script>\n");
    tl_buf_adds(out, tl_asset_toggle_js);
    tl_buf_adds(out, "</script>\n</head>\n<body>\n<div>\n");
    if (p->custom_header_html)
        tl_buf_adds(out, p->custom_header_html); /* raw by design: the user's own HTML */
    tl_page_redacted(out, p->info);
    tl_page_pytorch_version(out, model->diag.pytorch_version);
    tl_page_overview(out, model, p->nfailures, TL_OVERVIEW_MAX_BARS);
    if (p->diag) {
        tl_page_diagnosis(out, p->diag, "#", NULL);
        tl_page_shapes_link(out, p->diag);
    }
    tl_buf_adds(out, intro);
    tl_page_trie(out, &model->trie, "Stack", &model->strtab, true);
    tl_buf_adds(out, "\n</div>\n<div>\n");
    if (tl_page_flush(sink))
        return -1;
    if (p->nfailures) {
        tl_buf_adds(out, "<h2>Failures and Restarts</h2>\n<p>\nSome compilations restarted "
                         "(for example after a graph break) or failed. Each restart or failure "
                         "is listed with its reason.\n</p>\n<p>\nThis run had <strong><a "
                         "href=\"failures_and_restarts.html\">");
        tl_buf_addu(out, p->nfailures);
        tl_buf_adds(out, p->nfailures == 1
                             ? " restart or compilation failure</a></strong>.\n</p>\n"
                             : " restarts and/or compilation failures</a></strong>.\n</p>\n");
    }
    tl_buf_adds(out, ir_dumps);
    if (p->has_chromium)
        tl_buf_adds(out, "<h2>Chromium Events</h2>\n<p>\nThe compilation events of this run "
                         "are in <a href=\"chromium_events.json\">chromium_events.json</a>; "
                         "open it in <a href=\"https://ui.perfetto.dev/\">Perfetto</a> to see "
                         "a timeline.\n</p>\n");
    if (p->compile_time)
        tl_buf_adds(out, "<h2>Compile Time</h2>\n<p>\nWhere the compile time went, phase by "
                         "phase and per compile id, against the time the log spans: <a "
                         "href=\"compile_time.html\">compile_time.html</a>.\n</p>\n");
    if (p->collectives_parity)
        tl_buf_adds(out, "<p>\n<a href=\"collectives_parity.json\">Collectives Parity report</a>: "
                         "the collectives each graph's code calls, checked against the "
                         "schedule inductor planned\n</p>\n");
    tl_buf_adds(out, "Build products below:\n<ul>\n");
    size_t n = tl_map_len(&model->dir.keys);
    for (size_t i = 0; i < n; i++) {
        listing_key(out, &model->dir, tl_map_at(&model->dir.keys, i)->value, p->diag);
        if (tl_page_flush(sink))
            return -1;
    }
    tl_buf_adds(out, "</ul>\n</div>\n");
    if (model->has_runtime)
        runtime_section(out, model);
    if (p->provenance)
        provenance_section(out, &model->dir);
    if (!tl_trie_empty(&model->unknown_trie)) {
        tl_buf_adds(out, "<h2>Unknown stacks</h2>\n<p>\nThese stacks come from log entries "
                         "that were made without a compile context.\n</p>\n");
        tl_page_trie(out, &model->unknown_trie, "Stack", &model->strtab, true);
    }
    tl_page_footer(out, p->info);
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
    return tl_page_flush(sink) ? -1 : 0;
}
