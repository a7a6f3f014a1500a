/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Page writers: hand-written emitters that append one HTML page (or a piece
 * of a streamed page) to a buffer. They read the model and never parse log
 * text; every value that came from a log is escaped for its context through
 * html.h. Spec core.md §4.
 */
#ifndef TL_PAGES_H
#define TL_PAGES_H

#include "base/config.h"
#include "base/buf.h"
#include "input/compile_id.h"
#include "model/directory.h"
#include "base/json.h"
#include "model/stack_trie.h"
#include "model/strtab.h"

#include <stdbool.h>
#include <stddef.h>

/* A symbolic-shape specialization or a fast guard, kept until its metrics
 * page is written (spec §3.5). Strings live in the run arena. */
struct tl_shape_rec {
    struct tl_shape_rec *next;
    const char *symbol, *value, *expr;
    const char **sources;
    size_t nsources;
    struct tl_iframe *user_stack, *stack;
    size_t n_user_stack, n_stack;
};

/* The records kept for one compile id, in log order. */
struct tl_shape_list {
    struct tl_shape_rec *head, *tail;
};

struct tl_metrics_page {
    const struct tl_json *m;           /* the compilation_metrics record */
    const char *display;               /* "[0/0]" or NULL for an absent id */
    const struct tl_artifact *listing; /* the first of the `nlisting` entries to show */
    size_t nlisting;
    size_t nearlier;                   /* entries of this key listed on its earlier metrics pages */
    const struct tl_trie_node *stack;  /* dynamo_start stack, or NULL */
    const struct tl_shape_rec *specs;  /* symbolic shape specializations */
    const struct tl_shape_rec *guards; /* guards added fast */
    const struct tl_strtab *strtab;
};

void tl_page_metrics(struct tl_buf *out, const struct tl_metrics_page *p);
/** bwd_compilation_metrics_N.html */
void tl_page_bwd_metrics(struct tl_buf *out, const struct tl_json *m, const char *display);
/** aot_autograd_backward_compilation_metrics_N.html */
void tl_page_aot_bwd_metrics(struct tl_buf *out, const struct tl_json *m, const char *display);

/** dynamo_guards_N.html from a validated guard list (array of objects with "code"). */
void tl_page_guards(struct tl_buf *out, const struct tl_json *guards);
/** Check a dynamo_guards payload; returns NULL or a reason. */
const char *tl_guards_check(const struct tl_json *v);

/** dump_file/<name>.html: the payload as numbered source lines. */
void tl_page_dump_file(struct tl_buf *out, const char *p, size_t n);

/** The readable companion of a kernel-stack-traces JSON file (spec §3.3). */
void tl_page_readable_stack_traces(struct tl_buf *out, const struct tl_json *v);

/** failures_and_restarts.html: the head (rows follow, then the tail). */
void tl_page_failures_head(struct tl_buf *out);
/** One row. label_html is markup we built; the rest comes from the log. */
void tl_page_failures_restart_row(struct tl_buf *out, const char *label_html, struct tl_str reason);
void tl_page_failures_failure_row(struct tl_buf *out, const char *label_html, struct tl_str type,
                                  struct tl_str reason, struct tl_str file, bool has_line,
                                  uint64_t line);
void tl_page_failures_tail(struct tl_buf *out);

/** Append the href of a listed artifact: a file of the report, or a link from the log. */
void tl_page_artifact_href(struct tl_buf *out, const struct tl_artifact *a);

/** Append the query-parameter script block. */
void tl_page_query_script(struct tl_buf *out);

#include "base/err.h"
#include "output/outdir.h"

struct tl_index_page {
    const char *custom_header_html; /* raw, by design (documented) */
    const struct tl_trie *trie;
    const struct tl_trie *unknown_trie;
    const struct tl_strtab *strtab;
    tl_trie_status_fn status;
    void *status_ctx;
    uint64_t nfailures;
    bool has_chromium;
    const struct tl_directory *dir;
};

/** Write index.html into f, flushing as it goes (the listing can be large). */
int tl_page_index(struct tl_outfile *f, const struct tl_index_page *p, struct tl_err *err);
#endif
