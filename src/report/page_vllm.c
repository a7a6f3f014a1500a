/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The vLLM compilation summary (model/vllm.h): index.html of a vLLM run, the classic index
 * being tlparse_index.html. As the reference 0.4.8 lays it out: a note linking the classic
 * index, the compilation config, the chromium events, dynamo's files, the piecewise split
 * graph, then the piecewise compiles grouped by compile size or range (in the order each
 * group was first seen), each subgraph with the files its compile wrote. Of several compile
 * calls, each is a section of its own ("Compile Call 2: prefix", the first one open) holding
 * its config, files and compiles; a config all calls share is shown once, above them. The
 * markup and the style are ours. Every value from the log is escaped.
 */
#include "base/config.h"
#include "report/pages.h"
#include "report/html.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The page's own style, beside the one every page shares. */
static const char vllm_css[] =
    ".vllm-note { border: 1px solid var(--line); border-radius: 5px; padding: 0.6em 1em; }\n"
    ".vllm-group { border: 1px solid var(--line); border-radius: 8px; padding: 0.4em 1em; "
    "margin: 1em 0; }\n"
    ".vllm-subgraph { margin: 0.6em 0 0.6em 1.5em; }\n"
    ".vllm-subgraph h4 { margin: 0.3em 0; }\n";

/* ... and with several compile calls. */
static const char vllm_calls_css[] =
    ".vllm-call { border: 1px solid var(--line); border-radius: 8px; margin: 1em 0; "
    "padding: 0 1em; }\n"
    ".vllm-call > summary { cursor: pointer; padding: 0.6em 0; }\n"
    ".vllm-call > summary h2 { display: inline; font-size: 1.2em; }\n";

static void file_item(struct tl_buf *out, const struct tl_vllm_file *f)
{
    tl_buf_adds(out, "<li><a href=\"");
    tl_html_path(out, f->url, strlen(f->url));
    tl_buf_adds(out, "\">");
    tl_html_attr_cstr(out, f->name);
    tl_buf_adds(out, "</a> ");
    tl_buf_adds(out, tl_cache_suffix_text(f->suffix));
    tl_buf_adds(out, "</li>\n");
}

static void config_table(struct tl_buf *out, const struct tl_vllm_call *v, int table,
                         const char *title)
{
    tl_buf_adds(out, "<details open>\n<summary><strong>");
    tl_buf_adds(out, title);
    tl_buf_adds(out, "</strong></summary>\n<table>\n");
    for (int f = 0; f < TL_VLLM_F__COUNT; f++) {
        if (tl_vllm_fields[f].table != table)
            continue;
        tl_buf_adds(out, "<tr><td><strong>");
        tl_buf_adds(out, tl_vllm_fields[f].label);
        tl_buf_adds(out, "</strong></td><td>");
        if (v->config[f])
            tl_html_attr_cstr(out, v->config[f]);
        tl_buf_adds(out, "</td></tr>\n");
    }
    tl_buf_adds(out, "</table>\n</details>\n");
}

/* A subgraph's name: its submod_name, or subgraph_<index>. */
static void submod_name(struct tl_buf *out, const struct tl_vllm_subgraph *s)
{
    if (s->submod)
        tl_html_attr_cstr(out, s->submod);
    else
        tl_buf_addf(out, "subgraph_%d", (int)s->index);
}

/* The subgraphs in groups of one size or range, groups in the order first seen. */
static void compile_groups(struct tl_buf *out, const struct tl_vllm_call *v)
{
    const struct tl_vllm_subgraph **subs = tl_xcalloc(v->nsubgraphs + 1, sizeof(*subs));
    char **keys = tl_xcalloc(v->nsubgraphs + 1, sizeof(*keys));
    bool *done = tl_xcalloc(v->nsubgraphs + 1, sizeof(*done));
    size_t n = 0;
    struct tl_buf k = TL_BUF_INIT;
    for (const struct tl_vllm_subgraph *s = v->first; s; s = s->next) {
        tl_buf_reset(&k);
        tl_vllm_size_or_range(&k, s);
        subs[n] = s;
        keys[n++] = tl_buf_detach(&k, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        size_t count = 0;
        for (size_t j = i; j < n; j++)
            count += !strcmp(keys[i], keys[j]);
        tl_buf_adds(out, "<div class=\"vllm-group\">\n<h3>");
        tl_html_text_cstr(out, keys[i]);
        tl_buf_addf(out, "</h3>\n<details open>\n<summary>Subgraphs (%zu)</summary>\n", count);
        for (size_t j = i; j < n; j++) {
            if (done[j] || strcmp(keys[i], keys[j]))
                continue;
            done[j] = true;
            const struct tl_vllm_subgraph *s = subs[j];
            tl_buf_adds(out, "<div class=\"vllm-subgraph\">\n<h4>");
            submod_name(out, s);
            if (s->cudagraph_size)
                tl_buf_adds(out, " <small>(CUDA graph capture size)</small>");
            tl_buf_adds(out, "</h4>\n");
            if (s->files.n) {
                tl_buf_addf(out, "<details open>\n<summary>Artifacts (%zu files)</summary>\n<ul>\n",
                            s->files.n);
                for (const struct tl_vllm_file *f = s->files.first; f; f = f->next)
                    file_item(out, f);
                tl_buf_adds(out, "</ul>\n</details>\n");
            }
            tl_buf_adds(out, "</div>\n");
        }
        tl_buf_adds(out, "</details>\n</div>\n");
    }
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    free(subs);
    free(done);
}

/* The compile ids, each linking its files in the classic index. Their ids are the ones the
 * classic index gives them ("[0/0]"), so that the other pages' links into index.html#[0/0]
 * (the dynamic shapes page, a metrics page) land here, one click from the files. */
static void compile_ids(struct tl_buf *out, const struct tl_directory *dir)
{
    size_t n = dir ? tl_map_len(&dir->keys) : 0;
    if (!n)
        return;
    tl_buf_adds(out, "<p>Compile ids (their files in the classic view):");
    for (size_t i = 0; i < n; i++) {
        const struct tl_dirkey *k = tl_map_at(&dir->keys, i)->value;
        tl_buf_adds(out, " <a id=\"");
        tl_html_attr_cstr(out, k->display);
        tl_buf_adds(out, "\" href=\"tlparse_index.html#");
        tl_html_attr_cstr(out, k->display);
        tl_buf_adds(out, "\">");
        tl_html_attr_cstr(out, k->display);
        tl_buf_adds(out, "</a>");
    }
    tl_buf_adds(out, "</p>\n");
}

static void config_tables(struct tl_buf *out, const struct tl_vllm_call *c, const char *heading)
{
    tl_buf_adds(out, heading);
    config_table(out, c, 0, "Core Settings");
    config_table(out, c, 1, "Compile Settings");
}

static const char chromium_note[] =
    "<p>PT2 generates <a href=\"chromium_events.json\">Chromium Trace "
    "Events</a> in JSON on specific events during compilation. You can "
    "download and view them in a tool like <a "
    "href=\"https://ui.perfetto.dev/\">Perfetto</a>.</p>\n";

/* A call's dynamo files, split graph and compiles. */
static void call_files(struct tl_buf *out, const struct tl_vllm_call *c)
{
    bool any_dynamo = false;
    for (const struct tl_vllm_file *f = c->pre.first; f && !any_dynamo; f = f->next)
        any_dynamo = tl_vllm_dynamo_file(f);
    if (any_dynamo) {
        tl_buf_adds(out, "<h2>Dynamo Compilation</h2>\n<ul>\n");
        for (const struct tl_vllm_file *f = c->pre.first; f; f = f->next)
            if (tl_vllm_dynamo_file(f))
                file_item(out, f);
        tl_buf_adds(out, "</ul>\n");
    }
    if (c->split_graph_url) {
        tl_buf_adds(out, "<h2>Piecewise Split Graph</h2>\n<ul>\n<li><a href=\"");
        tl_html_path(out, c->split_graph_url, strlen(c->split_graph_url));
        tl_buf_adds(out, "\">vllm_piecewise_split_graph</a></li>\n</ul>\n");
    }
}

/* Several compile calls: a config they all share once, then a section per call. */
static void calls(struct tl_buf *out, const struct tl_vllm *v)
{
    const struct tl_vllm_call *model = v->first; /* the first with a config */
    while (model && !model->has_config)
        model = model->next;
    bool shared = true;
    size_t configs = 0;
    for (const struct tl_vllm_call *c = v->first; c; c = c->next)
        if (c->has_config) {
            shared &= tl_vllm_same_config(model, c);
            configs++;
        }
    shared &= configs >= 2;
    if (shared)
        config_tables(out, model, "<h2>Compilation Configuration (shared)</h2>\n");
    tl_buf_adds(out, chromium_note);
    size_t i = 0;
    for (const struct tl_vllm_call *c = v->first; c; c = c->next) {
        tl_buf_addf(out, "<details class=\"vllm-call\"%s>\n<summary><h2>Compile Call %zu",
                    i ? "" : " open", i + 1);
        i++;
        const char *label = c->has_config ? c->config[TL_VLLM_F_PREFIX] : NULL;
        if (label && label[0]) {
            tl_buf_adds(out, ": ");
            tl_html_attr_cstr(out, label);
        }
        if (c->cache_hit)
            tl_buf_adds(out, " <span title=\"loaded from vLLM's compile cache\">✅</span>");
        tl_buf_adds(out, "</h2></summary>\n<div class=\"vllm-call-body\">\n");
        if (c->has_config && !shared)
            config_tables(out, c, "<h2>Compilation Configuration</h2>\n");
        call_files(out, c);
        if (c->nsubgraphs) {
            tl_buf_adds(out, "<h2>Inductor Compilation</h2>\n");
            compile_groups(out, c);
        }
        tl_buf_adds(out, "</div>\n</details>\n");
    }
}

int tl_page_vllm(const struct tl_page_sink *sink, const struct tl_vllm_page *p)
{
    struct tl_buf *out = sink->buf;
    const struct tl_vllm *v = p->vllm;
    static const struct tl_vllm_call none; /* no call: the run's vLLM entries said nothing */
    const struct tl_vllm_call *one = v->first ? v->first : &none;
    tl_page_head(out, "vLLM Compilation Summary");
    tl_buf_adds(out, "<style>\n");
    tl_buf_adds(out, vllm_css);
    if (v->ncalls > 1)
        tl_buf_adds(out, vllm_calls_css);
    tl_buf_adds(out, "</style>\n</head>\n<body>\n");
    if (p->custom_header_html)
        tl_buf_adds(out, p->custom_header_html); /* raw by design: the user's own HTML */
    tl_buf_adds(out, "<p class=\"vllm-note\">This is the vLLM compilation view. <a "
                     "href=\"tlparse_index.html\">View original tlparse output →</a></p>\n"
                     "<h1>vLLM Compilation Summary</h1>\n");
    compile_ids(out, p->dir);
    if (v->ncalls > 1) {
        calls(out, v);
    } else {
        if (one->has_config)
            config_tables(out, one, "<h2>Compilation Configuration</h2>\n");
        tl_buf_adds(out, chromium_note);
        call_files(out, one);
        tl_buf_adds(out, "<h2>Inductor Compilation</h2>\n");
        compile_groups(out, one);
    }
    tl_page_query_script(out);
    tl_buf_adds(out, "</body>\n</html>\n");
    return tl_page_flush(sink);
}
