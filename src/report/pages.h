/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Page writers: hand-written emitters that append one HTML page (or a piece
 * of a streamed page, or one of the report's JSON files) to a buffer. They read
 * the model and typed records, never the log's text, and they know no file:
 * long pages go through a page sink whose owner moves the bytes on (md4c's
 * process_output). Every value that came from a log is escaped for its
 * context through html.h. Spec core.md §4.
 */
#ifndef TL_PAGES_H
#define TL_PAGES_H

#include "base/config.h"
#include "base/buf.h"
#include "base/json.h"
#include "model/diagnosis.h"
#include "model/export.h"
#include "model/directory.h"
#include "model/overview.h"
#include "model/metrics.h"
#include "model/model.h"
#include "model/overview.h"
#include "model/provenance.h"
#include "model/runinfo.h"
#include "model/stack_trie.h"
#include "model/vllm.h"
#include "model/strtab.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Where a long page goes: its bytes are appended to buf, and flush (when set)
 * is called every so often so that its owner can move them on; a non-zero
 * return from flush stops the page, which then returns -1.
 */
struct tl_page_sink {
    struct tl_buf *buf;
    int (*flush)(void *ctx);
    void *ctx;
};

static inline int tl_page_flush(const struct tl_page_sink *s)
{
    return s->flush ? s->flush(s->ctx) : 0;
}

/* ---- what every page shares (page_common.c) ---- */

/**
 * The start of a page: doctype, charset, viewport, <title> (title is escaped: it may hold
 * text from the log) and the stylesheet every page shares (readable at phone width, dark
 * with the system's dark mode). Leaves <head> open for the page's own style and scripts.
 */
void tl_page_head(struct tl_buf *out, const char *title);

/** A title with a compile id: "Guards [0/1]" (display NULL: the prefix alone). */
void tl_page_head_cid(struct tl_buf *out, const char *prefix, const char *display);

/**
 * The footer of an index: what made the report, "tlparse 0.4.3 (revision ...) · command:
 * ... · input: NAME, SIZE bytes, modified YYYY-MM-DD HH:MM:SS UTC", each part present only
 * when known; everything escaped. Nothing when info is NULL.
 */
void tl_page_footer(struct tl_buf *out, const struct tl_runinfo *info);
/** What --redact did, at the top of an index (nothing when info says it was not redacted). */
void tl_page_redacted(struct tl_buf *out, const struct tl_runinfo *info);
/** "Logged by PyTorch VERSION": the version the log says it was written by (nothing for
 * NULL: logs before PyTorch 2.13 do not say). */
void tl_page_pytorch_version(struct tl_buf *out, const char *version);

/** Append a time (seconds since the epoch) in UTC: "2023-11-14 22:13:20 UTC", or with iso
 * "2023-11-14T22:13:20Z". False (nothing appended) when it cannot be represented. */
bool tl_page_utc(struct tl_buf *out, int64_t seconds, bool iso);

/* ---- the overview at the top of a trace's index (page_overview.c) ---- */

/* The most bars the overview's chart draws; beyond, the slowest (and it says so). */
#define TL_OVERVIEW_MAX_BARS 30

/**
 * The overview: the compile ids by status, the total compile time, the cache hits and misses,
 * the restarts and failures (nfailures rows of failures_and_restarts.html), and an inline SVG
 * chart of the compile time of each compile id (at most max_bars, each linked to the compile
 * id's listing). Reads the model's overview (model/overview.h); escapes all it shows.
 */
void tl_page_overview(struct tl_buf *out, const struct tl_model *m, uint64_t nfailures,
                      size_t max_bars);

/* ---- stacks (page_trie.c) ---- */

/** CSS class of each status colour: "status-ok" ... (spec §4.6). */
extern const char *const tl_page_status_classes[TL_OV__COUNT];
/** CSS class of a compile id's status (tl_overview_status_of); NULL: "status-missing". */
const char *tl_page_status_class(const struct tl_compile *c);
/** A trie as collapsed `<details>` with the caption; terminals: show the compile ids. */
void tl_page_trie(struct tl_buf *out, const struct tl_trie *t, const char *caption,
                  const struct tl_strtab *strtab, bool terminals);
/** The same, expanded when open. */
void tl_page_stack_as(struct tl_buf *out, const struct tl_iframe *frames, size_t n,
                      const char *caption, const struct tl_strtab *strtab, bool open);
/** The single stack that leads from the root to node, as a trie would show it. */
void tl_page_trie_path(struct tl_buf *out, const struct tl_trie_node *node, const char *caption,
                       const struct tl_strtab *strtab);
/** frames[0..n) as a one-path trie. */
void tl_page_stack(struct tl_buf *out, const struct tl_iframe *frames, size_t n,
                   const char *caption, const struct tl_strtab *strtab);
/** One frame's HTML (spec §4.6 "Frame F text"). */
void tl_page_frame(struct tl_buf *out, const struct tl_iframe *f, const struct tl_strtab *strtab);

/* ---- metrics pages (page_metrics.c) ---- */

struct tl_metrics_page {
    const struct tl_metrics *m;        /* the compilation_metrics record */
    const struct tl_json *raw;         /* the same as logged (its newer fields), or NULL */
    const char *display;               /* "[0/0]" or NULL for an absent id */
    const struct tl_artifact *listing; /* the first of the `nlisting` entries to show */
    size_t nlisting;
    size_t nearlier;                  /* entries of this key listed on its earlier metrics pages */
    const struct tl_compile *compile; /* its facts (stack, shape records), or NULL */
    const struct tl_strtab *strtab;
};

void tl_page_metrics(struct tl_buf *out, const struct tl_metrics_page *p);
/** bwd_compilation_metrics_N.html */
void tl_page_bwd_metrics(struct tl_buf *out, const struct tl_bwd_metrics *m, const char *display);
/** aot_autograd_backward_compilation_metrics_N.html */
void tl_page_aot_bwd_metrics(struct tl_buf *out, const struct tl_aot_bwd_metrics *m,
                             const char *display);

/** compilation_metrics_runtime_<k>.html (bwd: bwd_compilation_metrics_runtime_<k>.html) of
 * one runtime metrics record raw (its members, null ones left out), titled with its compile
 * id (display NULL: "(unknown)"). */
void tl_page_runtime_metrics(struct tl_buf *out, const struct tl_json *raw, const char *display,
                             bool bwd);

/* ---- small pages (page_misc.c) ---- */

/** dynamo_guards_N.html from a validated guard list (array of objects with "code"), titled
 * with its compile id: "Guards [0/1]" (display NULL: "Guards"). */
void tl_page_guards_of(struct tl_buf *out, const struct tl_json *guards, const char *display);

/**
 * inductor_output_code_*.html: the code highlighted (tl_pyhl_render) in a whole page titled
 * "Output code [0/1]" (display NULL: "Output code"), dark with the system's dark mode.
 */
void tl_page_output_code(struct tl_buf *out, const char *src, size_t n, const char *display);
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
void tl_page_failures_failure_row(struct tl_buf *out, const char *label_html,
                                  const struct tl_failure *f);
void tl_page_failures_tail(struct tl_buf *out);

/** Append the href of a listed artifact: a file of the report, or a link from the log. */
void tl_page_artifact_href(struct tl_buf *out, const struct tl_artifact *a);

/** Append the query-parameter script block. */
void tl_page_query_script(struct tl_buf *out);

/* ---- the index and the directory (page_index.c, directory_json.c) ---- */

struct tl_index_page {
    const char *custom_header_html; /* raw, by design (documented) */
    const struct tl_model *model;
    const struct tl_diag *diag; /* its Diagnosis section; NULL: none */
    uint64_t nfailures;
    bool has_chromium;
    bool compile_time;             /* link compile_time.html */
    bool provenance;               /* list the provenance_tracking_<folder>.html pages (-i) */
    bool collectives_parity;       /* link collectives_parity.json (a rank of a multi-rank run) */
    const struct tl_runinfo *info; /* the footer: what made the report; NULL: none */
};

/** compile_time.html: where the compile time went (the ledger, summed); -1 if a flush
 * failed. */
int tl_page_ledger(const struct tl_page_sink *sink, const struct tl_ledger *l);

/** index.html, streamed through sink (the listing can be large); -1 if a flush failed. */
int tl_page_index(const struct tl_page_sink *sink, const struct tl_index_page *p);

/* index.html of a vLLM run (page_vllm.c); the classic index is then tlparse_index.html. */
struct tl_vllm_page {
    const char *custom_header_html; /* raw, by design (documented) */
    const struct tl_vllm *vllm;
    const struct tl_directory *dir; /* its compile ids, anchors into the classic index */
};

/** The vLLM compilation summary, into sink; -1 if a flush failed. */
int tl_page_vllm(const struct tl_page_sink *sink, const struct tl_vllm_page *p);

/** compile_directory.json (pretty, keys sorted bytewise), streamed; -1 if a flush failed. */
int tl_page_directory_json(const struct tl_page_sink *sink, const struct tl_directory *d);

/* ---- export mode (page_export.c, spec modes.md §2.3-2.4) ---- */

struct tl_export_index_page {
    const char *custom_header_html; /* raw, by design (documented) */
    const struct tl_export *x;      /* the problems and guards */
    const char *exported_program;   /* the first exported program's path, or NULL */
    const struct tl_diag *diag;     /* its Diagnosis section; NULL: none */
    const struct tl_strtab *strtab;
    const struct tl_runinfo *info; /* the footer: what made the report; NULL: none */
};

/** The export report's index.html. */
void tl_page_export_index(struct tl_buf *out, const struct tl_export_index_page *p);

/** symbolic_guard_information_N.html of one problem: its expression, stacks, locals, and the
 * tree of expressions it was built from (spec §2.3). */
void tl_page_symbolic_guard(struct tl_buf *out, const struct tl_export *x,
                            const struct tl_export_view *v, const struct tl_strtab *strtab);

/** The cells of a problem's row (failure type, reason, additional info) as HTML. */
void tl_page_export_problem_cells(struct tl_buf *out, const struct tl_export_problem *p);

/* ---- provenance tracking (page_provenance.c, spec modes.md §3.5) ---- */

/* One compile folder's provenance_tracking_<folder>.html. */
struct tl_prov_page {
    const char *folder;             /* "-_0_0_0": the page's compile folder (from the log) */
    struct tl_str pre, post;        /* the pre-grad and post-grad graph texts */
    const struct tl_prov_result *r; /* the tables, and the code texts as numbered */
};

/**
 * The interactive page: the graphs and the code side by side, each line linked to the lines
 * it came from or became; the tables embedded as
 * <script id="lineMappings" type="application/json">. Self-contained (no network).
 */
void tl_page_provenance(struct tl_buf *out, const struct tl_prov_page *p);

#endif
