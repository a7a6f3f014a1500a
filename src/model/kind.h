/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kinds of record that carry a payload or make a file of the report, in one table indexed
 * by enum tl_key: what the payload is (which says how --redact treats it), the page the report
 * renders it as, and the stem of the file's name. The report (sinks/report.c) keeps one
 * renderer per page; the engine and the redaction read the payload class. A kind that is no
 * row here (dynamo_start, the shape events...) has neither payload nor file.
 *
 * Adding a kind: its key in input/envelope.h (name and JSON type), one row of TL_KINDS below,
 * and, for a page of a new sort, its renderer in sinks/report.c.
 * Depends on envelope (the keys) only; data, no code of the layers above.
 */
#ifndef TL_KIND_H
#define TL_KIND_H

#include "base/config.h"
#include "input/envelope.h"

/* What a kind's payload is. */
enum tl_kind_payload {
    TL_KIND_NO_PAYLOAD, /* none, or none that is read */
    TL_KIND_GRAPH,      /* a graph, guards or a program, as text: code */
    TL_KIND_JSON,       /* a JSON value */
    TL_KIND_ENCODED,    /* JSON or a string, as the entry's "encoding" says */
    TL_KIND_GENERATED,  /* code inductor generated */
    TL_KIND_SOURCE,     /* a source file dumped whole */
};

/* The page of the report a kind's entry becomes (each has one renderer in sinks/report.c). */
enum tl_kind_page {
    TL_KIND_NO_PAGE,         /* no file of the report */
    TL_KIND_VERBATIM,        /* the payload as <stem>.txt */
    TL_KIND_NAMED,           /* the payload as <stem><the entry's name>.txt */
    TL_KIND_GUARDS,          /* the guards page <stem>.html */
    TL_KIND_OUTPUT_CODE,     /* highlighted as <stem>_<filename's stem>.html (or .txt) */
    TL_KIND_AOT_BWD_METRICS, /* <stem>.html */
    TL_KIND_BWD_METRICS,     /* <stem>.html */
    TL_KIND_LINK,            /* a link of the listing, no file */
    TL_KIND_ARTIFACT,        /* <stem><name>.txt or pretty .json, as its encoding says */
    TL_KIND_DUMP_FILE,       /* <stem><name>.html, highlighted, out of the compile folders */
    TL_KIND_METRICS,         /* the compile id's metrics page <stem>.html and its failures */
    TL_KIND_CHROMIUM,        /* an event of chromium_events.json */
    TL_KIND_RUNTIME_METRICS, /* <stem>_<k>.html, k counting the compile folder's records of it */
    TL_KIND_PAGE__COUNT,
};

/*
 * The table: X(key, payload, page, stem), one row per kind, in the order the report's parsers
 * run on an entry (spec core.md §3.2; an entry with two of these keys gets its files in this
 * order). stem: the start of the file's name; NULL: the key's name.
 */
#define TL_KINDS(X)                                                                                \
    X(OPTIMIZE_DDP_SPLIT_GRAPH, GRAPH, VERBATIM, NULL)                                             \
    X(COMPILED_AUTOGRAD_GRAPH, GRAPH, VERBATIM, NULL)                                              \
    X(AOT_FORWARD_GRAPH, GRAPH, VERBATIM, NULL)                                                    \
    X(AOT_BACKWARD_GRAPH, GRAPH, VERBATIM, NULL)                                                   \
    X(AOT_INFERENCE_GRAPH, GRAPH, VERBATIM, NULL)                                                  \
    X(AOT_JOINT_GRAPH, GRAPH, VERBATIM, NULL)                                                      \
    X(INDUCTOR_POST_GRAD_GRAPH, GRAPH, VERBATIM, NULL)                                             \
    X(INDUCTOR_PRE_GRAD_GRAPH, GRAPH, VERBATIM, NULL)                                              \
    X(DYNAMO_CPP_GUARDS_STR, GRAPH, VERBATIM, NULL)                                                \
    X(GRAPH_DUMP, GRAPH, NAMED, "")                                                                \
    X(DYNAMO_OUTPUT_GRAPH, GRAPH, VERBATIM, NULL)                                                  \
    X(DYNAMO_GUARDS, JSON, GUARDS, NULL)                                                           \
    X(INDUCTOR_OUTPUT_CODE, GENERATED, OUTPUT_CODE, NULL)                                          \
    X(OPTIMIZE_DDP_SPLIT_CHILD, GRAPH, NAMED, "optimize_ddp_split_child_")                         \
    X(AOT_AUTOGRAD_BACKWARD_COMPILATION_METRICS, NO_PAYLOAD, AOT_BWD_METRICS, NULL)                \
    X(BWD_COMPILATION_METRICS, NO_PAYLOAD, BWD_METRICS, NULL)                                      \
    X(LINK, NO_PAYLOAD, LINK, NULL)                                                                \
    X(ARTIFACT, ENCODED, ARTIFACT, "")                                                             \
    X(DUMP_FILE, SOURCE, DUMP_FILE, "dump_file/")                                                  \
    X(COMPILATION_METRICS, NO_PAYLOAD, METRICS, NULL)                                              \
    X(COMPILATION_METRICS_RUNTIME, NO_PAYLOAD, RUNTIME_METRICS, NULL)                              \
    X(BWD_COMPILATION_METRICS_RUNTIME, NO_PAYLOAD, RUNTIME_METRICS, NULL)                          \
    X(CHROMIUM_EVENT, JSON, CHROMIUM, NULL)                                                        \
    X(EXPORTED_PROGRAM, GRAPH, NO_PAGE, NULL)

struct tl_kind {
    enum tl_kind_payload payload;
    enum tl_kind_page page;
    const char *stem; /* as in the table: NULL for the key's name (tl_kind_stem) */
};

/* The row of every key (zeros for a key that is no row), and the rows' keys in table order. */
extern const struct tl_kind tl_kinds[TL_K__COUNT];
extern const enum tl_key tl_kind_order[];
extern const size_t tl_kind_norder;

/** The row of k. */
static inline const struct tl_kind *tl_kind_of(enum tl_key k)
{
    return &tl_kinds[k];
}

/** The stem of k's files (static). */
const char *tl_kind_stem(enum tl_key k);

#endif
