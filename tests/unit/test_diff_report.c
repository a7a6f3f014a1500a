/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for report/diff.c: a diff built by hand (two sides with findings, frames and
 * graphs, the pairs filled in without tl_diff_compute) written as JSON and as text, compared
 * byte for byte, and as the HTML page, checked for its pieces: the links of compile ids into
 * each side's report, and the escaping of every string that came from a log.
 */
#include "base/config.h"
#include "report/diff.h"
#include "base/buf.h"
#include "model/diff.h"
#include "testutil.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ---- the sides ------------------------------------------------------------------------------ */

static const char *cids_00[] = {"[0/0]"};
static const char *cids_01_02[] = {"[0/1]", "[0/2]"};
static const char *cids_fail[] = {"[1/0]\"'<b>"};
static const char *cids_g_before[] = {"[2/0]", "[2/1]", "[2/2]"};
static const char *cids_g_after[] = {"[2/0]"};
static const char *callers_h[] = {"main.py:1 in <module>", "main.py:9 in run"};

static struct tl_diff_item before_recompiles[] = {
    {.text = "___check_obj_id(L['self'].mode, 140001)",
     .key = "k1",
     .category = "guard",
     .loc = {"a.py", 7, "g"},
     .count = 3,
     .cids = cids_g_before,
     .ncids = 3},
    {.text = "len(L['xs']) == 2",
     .key = "k2",
     .loc = {"a.py", 30, "h"},
     .count = 1,
     .cids = cids_00,
     .ncids = 1},
};
static struct tl_diff_item before_breaks[] = {
    {.text = "call to builtin print", .key = "k3", .loc = {"a.py", 0, "f"}, .count = 1},
};

static struct tl_diff_item after_failures[] = {
    {.text = "Unsupported <op> \x1b[31mred\nsecond line",
     .key = "k4",
     .detail = "Unsupported",
     .category = "unsupported & more",
     .loc = {"/m.py", 15, "forward"},
     .count = 1,
     .cids = cids_fail,
     .ncids = 1},
};
static struct tl_diff_item after_recompiles[] = {
    {.text = "tensor 'L['x']' size mismatch at index 0",
     .key = "k5",
     .loc = {"/m.py", 15, "forward"},
     .count = 2,
     .cids = cids_01_02,
     .ncids = 2},
    {.text = "___check_obj_id(L['self'].mode, 140002)",
     .key = "k1",
     .category = "guard",
     .loc = {"a.py", 9, "g"},
     .count = 1,
     .cids = cids_g_after,
     .ncids = 1},
};

static struct tl_diff_graph before_graphs[] = {{"[0/0]", "aaa", 120, true}};
static struct tl_diff_graph after_graphs[] = {{"[0/1]", "bbb", 98, true}};

static struct tl_diff_frame before_frames[] = {
    {.function = "forward",
     .loc = {"/m.py", 15, "forward"},
     .compiles = 1,
     .cids = cids_00,
     .ncids = 1,
     .seconds = 0.5,
     .has_time = true,
     .graphs = before_graphs,
     .ngraphs = 1},
    {.function = "g",
     .name = "torch_dynamo_resume_in_g_at_9",
     .loc = {"a.py", 7, "g"},
     .compiles = 3,
     .cids = cids_g_before,
     .ncids = 3,
     .seconds = 2.0,
     .has_time = true},
    {.function = "k", .loc = {"k.py", 1, "k"}, .compiles = 1, .seconds = 0.5, .has_time = true},
    {.function = "old", .loc = {NULL, 0, NULL}, .compiles = 1},
};
static struct tl_diff_frame after_frames[] = {
    {.function = "forward",
     .loc = {"/m.py", 15, "forward"},
     .compiles = 3,
     .cids = cids_01_02,
     .ncids = 2,
     .seconds = 1.75,
     .has_time = true,
     .graphs = after_graphs,
     .ngraphs = 1},
    {.function = "g",
     .name = "torch_dynamo_resume_in_g_at_9",
     .loc = {"a.py", 9, "g"},
     .compiles = 1,
     .cids = cids_g_after,
     .ncids = 1,
     .seconds = 1.0,
     .has_time = true},
    {.function = "k", .loc = {"k.py", 1, "k"}, .compiles = 1, .seconds = 0.5, .has_time = true},
    {.function = "h",
     .loc = {"/n.py", 3, "h"},
     .callers = callers_h,
     .ncallers = 2,
     .compiles = 1,
     .seconds = 0.25,
     .has_time = true},
};

static struct tl_diff_side before, after;
static struct tl_diff_pair pairs[TL_DIFF_NCATS][4];
static struct tl_diff_fpair fpairs[5];
static struct tl_diff_gpair gpairs[1];
static struct tl_diff diff;

static void make_sides(void)
{
    memset(&before, 0, sizeof(before));
    before.path = "runs/a";
    before.kind = "torch_trace";
    before.source_kind = "torch_trace";
    before.report = "runs/a/tl_out";
    before.compile_ids = 4;
    before.total_s = 40.5;
    before.has_time = true;
    before.has_cache = true;
    before.cache[0][1] = 3;
    before.cache[1][0] = 1;
    before.cache[1][1] = 2;
    before.items[TL_DIFF_RECOMPILES] = before_recompiles;
    before.nitems[TL_DIFF_RECOMPILES] = 2;
    before.items[TL_DIFF_BREAKS] = before_breaks;
    before.nitems[TL_DIFF_BREAKS] = 1;
    before.frames = before_frames;
    before.nframes = 4;

    memset(&after, 0, sizeof(after));
    after.path = "runs/b/log.txt";
    after.kind = "torch_logs";
    after.source_kind = "torch_logs";
    after.compile_ids = 6;
    after.total_s = 12.25;
    after.has_time = true;
    after.has_cache = true;
    after.cache[0][0] = 3;
    after.cache[1][0] = 1;
    after.cache[1][1] = 2;
    after.items[TL_DIFF_FAILURES] = after_failures;
    after.nitems[TL_DIFF_FAILURES] = 1;
    after.items[TL_DIFF_RECOMPILES] = after_recompiles;
    after.nitems[TL_DIFF_RECOMPILES] = 2;
    after.frames = after_frames;
    after.nframes = 4;
}

/* The diff of the two sides, as tl_diff_compute would make it (new, changed, fixed). */
static int setup(void **state)
{
    (void)state;
    make_sides();
    memset(&diff, 0, sizeof(diff));
    diff.before = &before;
    diff.after = &after;

    pairs[TL_DIFF_FAILURES][0] = (struct tl_diff_pair){TL_DIFF_NEW, NULL, &after_failures[0], 0};
    diff.pairs[TL_DIFF_FAILURES] = pairs[TL_DIFF_FAILURES];
    diff.npairs[TL_DIFF_FAILURES] = 1;

    pairs[TL_DIFF_RECOMPILES][0] =
        (struct tl_diff_pair){TL_DIFF_NEW, NULL, &after_recompiles[0], 0};
    pairs[TL_DIFF_RECOMPILES][1] =
        (struct tl_diff_pair){TL_DIFF_CHANGED, &before_recompiles[0], &after_recompiles[1], 0};
    pairs[TL_DIFF_RECOMPILES][2] =
        (struct tl_diff_pair){TL_DIFF_FIXED, &before_recompiles[1], NULL, 1};
    diff.pairs[TL_DIFF_RECOMPILES] = pairs[TL_DIFF_RECOMPILES];
    diff.npairs[TL_DIFF_RECOMPILES] = 3;

    pairs[TL_DIFF_BREAKS][0] = (struct tl_diff_pair){TL_DIFF_FIXED, &before_breaks[0], NULL, 0};
    diff.pairs[TL_DIFF_BREAKS] = pairs[TL_DIFF_BREAKS];
    diff.npairs[TL_DIFF_BREAKS] = 1;
    diff.nsame[TL_DIFF_BREAKS] = 2;
    diff.nsame[TL_DIFF_SPECS] = 1;

    diff.nchange[TL_DIFF_FAILURES][TL_DIFF_NEW] = 1;
    diff.nchange[TL_DIFF_RECOMPILES][TL_DIFF_NEW] = 1;
    diff.nchange[TL_DIFF_RECOMPILES][TL_DIFF_CHANGED] = 1;
    diff.nchange[TL_DIFF_RECOMPILES][TL_DIFF_FIXED] = 1;
    diff.nchange[TL_DIFF_BREAKS][TL_DIFF_FIXED] = 1;
    diff.nchange[TL_DIFF_BREAKS][TL_DIFF_SAME] = 2;
    diff.nchange[TL_DIFF_SPECS][TL_DIFF_SAME] = 1;

    /* the largest change in compile time first */
    fpairs[0] = (struct tl_diff_fpair){&before_frames[0], &after_frames[0]}; /* +1.25 s */
    fpairs[1] = (struct tl_diff_fpair){&before_frames[1], &after_frames[1]}; /* -1.00 s */
    fpairs[2] = (struct tl_diff_fpair){NULL, &after_frames[3]};              /* new, 0.25 s */
    fpairs[3] = (struct tl_diff_fpair){&before_frames[2], &after_frames[2]}; /* the same */
    fpairs[4] = (struct tl_diff_fpair){&before_frames[3], NULL};             /* gone, no time */
    diff.frames = fpairs;
    diff.nframes = 5;

    gpairs[0] = (struct tl_diff_gpair){&fpairs[0], &before_graphs[0], &after_graphs[0], false};
    diff.graphs = gpairs;
    diff.ngraphs = 1;
    diff.graphs_matched = 5;
    diff.graphs_same = 4;
    diff.graphs_by_hash = 3;
    return 0;
}

/* Two sides with nothing that differs. */
static void make_empty(struct tl_diff *d)
{
    make_sides();
    memset(d, 0, sizeof(*d));
    after.cache[0][0] = 0;
    after.cache[0][1] = 3;
    d->before = &before;
    d->after = &after;
    d->nsame[TL_DIFF_BREAKS] = 2;
}

/* ---- JSON ----------------------------------------------------------------------------------- */

/* one string per line: a single literal would be longer than C requires compilers to take */
static const char *const expected_json[] = {
    "{\n",
    "  \"schema\": \"tlparse-diff/1\",\n",
    "  \"before\": {\n",
    "    \"path\": \"runs/a\",\n",
    "    \"kind\": \"torch_trace\",\n",
    "    \"source_kind\": \"torch_trace\",\n",
    "    \"report\": \"runs/a/tl_out\",\n",
    "    \"compile_ids\": 4,\n",
    "    \"compile_time_s\": 40.5\n",
    "  },\n",
    "  \"after\": {\n",
    "    \"path\": \"runs/b/log.txt\",\n",
    "    \"kind\": \"torch_logs\",\n",
    "    \"source_kind\": \"torch_logs\",\n",
    "    \"report\": null,\n",
    "    \"compile_ids\": 6,\n",
    "    \"compile_time_s\": 12.25\n",
    "  },\n",
    "  \"changes\": 10,\n",
    "  \"failures\": {\n",
    "    \"new\": [\n",
    "      {\n",
    "        \"reason\": \"Unsupported <op> \\u001b[31mred\\nsecond line\",\n",
    "        \"type\": \"Unsupported\",\n",
    "        \"function\": \"forward\",\n",
    "        \"location\": \"/m.py:15\",\n",
    "        \"location_before\": null,\n",
    "        \"count_before\": 0,\n",
    "        \"count_after\": 1,\n",
    "        \"compile_ids_before\": [],\n",
    "        \"compile_ids_after\": [\n",
    "          \"[1/0]\\\"'<b>\"\n",
    "        ],\n",
    "        \"category\": \"unsupported & more\"\n",
    "      }\n",
    "    ],\n",
    "    \"changed\": [],\n",
    "    \"fixed\": [],\n",
    "    \"unchanged\": 0\n",
    "  },\n",
    "  \"recompiles\": {\n",
    "    \"new\": [\n",
    "      {\n",
    "        \"guard\": \"tensor 'L['x']' size mismatch at index 0\",\n",
    "        \"function\": \"forward\",\n",
    "        \"location\": \"/m.py:15\",\n",
    "        \"location_before\": null,\n",
    "        \"count_before\": 0,\n",
    "        \"count_after\": 2,\n",
    "        \"compile_ids_before\": [],\n",
    "        \"compile_ids_after\": [\n",
    "          \"[0/1]\",\n",
    "          \"[0/2]\"\n",
    "        ],\n",
    "        \"category\": null\n",
    "      }\n",
    "    ],\n",
    "    \"changed\": [\n",
    "      {\n",
    "        \"guard\": \"___check_obj_id(L['self'].mode, 140002)\",\n",
    "        \"function\": \"g\",\n",
    "        \"location\": \"a.py:9\",\n",
    "        \"location_before\": \"a.py:7\",\n",
    "        \"count_before\": 3,\n",
    "        \"count_after\": 1,\n",
    "        \"compile_ids_before\": [\n",
    "          \"[2/0]\",\n",
    "          \"[2/1]\",\n",
    "          \"[2/2]\"\n",
    "        ],\n",
    "        \"compile_ids_after\": [\n",
    "          \"[2/0]\"\n",
    "        ],\n",
    "        \"category\": \"guard\"\n",
    "      }\n",
    "    ],\n",
    "    \"fixed\": [\n",
    "      {\n",
    "        \"guard\": \"len(L['xs']) == 2\",\n",
    "        \"function\": \"h\",\n",
    "        \"location\": \"a.py:30\",\n",
    "        \"location_before\": null,\n",
    "        \"count_before\": 1,\n",
    "        \"count_after\": 0,\n",
    "        \"compile_ids_before\": [\n",
    "          \"[0/0]\"\n",
    "        ],\n",
    "        \"compile_ids_after\": [],\n",
    "        \"category\": null\n",
    "      }\n",
    "    ],\n",
    "    \"unchanged\": 0\n",
    "  },\n",
    "  \"graph_breaks\": {\n",
    "    \"new\": [],\n",
    "    \"changed\": [],\n",
    "    \"fixed\": [\n",
    "      {\n",
    "        \"reason\": \"call to builtin print\",\n",
    "        \"function\": \"f\",\n",
    "        \"location\": \"a.py\",\n",
    "        \"location_before\": null,\n",
    "        \"count_before\": 1,\n",
    "        \"count_after\": 0,\n",
    "        \"compile_ids_before\": [],\n",
    "        \"compile_ids_after\": [],\n",
    "        \"category\": null\n",
    "      }\n",
    "    ],\n",
    "    \"unchanged\": 2\n",
    "  },\n",
    "  \"specializations\": {\n",
    "    \"new\": [],\n",
    "    \"changed\": [],\n",
    "    \"fixed\": [],\n",
    "    \"unchanged\": 1\n",
    "  },\n",
    "  \"frames\": {\n",
    "    \"more\": [\n",
    "      {\n",
    "        \"function\": \"forward\",\n",
    "        \"name\": null,\n",
    "        \"location\": \"/m.py:15\",\n",
    "        \"callers\": null,\n",
    "        \"compiles_before\": 1,\n",
    "        \"compiles_after\": 3,\n",
    "        \"compile_ids_before\": [\n",
    "          \"[0/0]\"\n",
    "        ],\n",
    "        \"compile_ids_after\": [\n",
    "          \"[0/1]\",\n",
    "          \"[0/2]\"\n",
    "        ]\n",
    "      },\n",
    "      {\n",
    "        \"function\": \"h\",\n",
    "        \"name\": null,\n",
    "        \"location\": \"/n.py:3\",\n",
    "        \"callers\": [\n",
    "          \"main.py:1 in <module>\",\n",
    "          \"main.py:9 in run\"\n",
    "        ],\n",
    "        \"compiles_before\": 0,\n",
    "        \"compiles_after\": 1,\n",
    "        \"compile_ids_before\": [],\n",
    "        \"compile_ids_after\": []\n",
    "      }\n",
    "    ],\n",
    "    \"fewer\": [\n",
    "      {\n",
    "        \"function\": \"g\",\n",
    "        \"name\": \"torch_dynamo_resume_in_g_at_9\",\n",
    "        \"location\": \"a.py:9\",\n",
    "        \"callers\": null,\n",
    "        \"compiles_before\": 3,\n",
    "        \"compiles_after\": 1,\n",
    "        \"compile_ids_before\": [\n",
    "          \"[2/0]\",\n",
    "          \"[2/1]\",\n",
    "          \"[2/2]\"\n",
    "        ],\n",
    "        \"compile_ids_after\": [\n",
    "          \"[2/0]\"\n",
    "        ]\n",
    "      },\n",
    "      {\n",
    "        \"function\": \"old\",\n",
    "        \"name\": null,\n",
    "        \"location\": null,\n",
    "        \"callers\": null,\n",
    "        \"compiles_before\": 1,\n",
    "        \"compiles_after\": 0,\n",
    "        \"compile_ids_before\": [],\n",
    "        \"compile_ids_after\": []\n",
    "      }\n",
    "    ],\n",
    "    \"unchanged\": 1\n",
    "  },\n",
    "  \"compile_time\": {\n",
    "    \"before_s\": 40.5,\n",
    "    \"after_s\": 12.25,\n",
    "    \"change_s\": -28.25,\n",
    "    \"change_pct\": -69.7531,\n",
    "    \"frames\": [\n",
    "      {\n",
    "        \"function\": \"forward\",\n",
    "        \"name\": null,\n",
    "        \"location\": \"/m.py:15\",\n",
    "        \"before_s\": 0.5,\n",
    "        \"after_s\": 1.75,\n",
    "        \"change_s\": 1.25\n",
    "      },\n",
    "      {\n",
    "        \"function\": \"g\",\n",
    "        \"name\": \"torch_dynamo_resume_in_g_at_9\",\n",
    "        \"location\": \"a.py:9\",\n",
    "        \"before_s\": 2.0,\n",
    "        \"after_s\": 1.0,\n",
    "        \"change_s\": -1.0\n",
    "      },\n",
    "      {\n",
    "        \"function\": \"h\",\n",
    "        \"name\": null,\n",
    "        \"location\": \"/n.py:3\",\n",
    "        \"before_s\": null,\n",
    "        \"after_s\": 0.25,\n",
    "        \"change_s\": null\n",
    "      },\n",
    "      {\n",
    "        \"function\": \"k\",\n",
    "        \"name\": null,\n",
    "        \"location\": \"k.py:1\",\n",
    "        \"before_s\": 0.5,\n",
    "        \"after_s\": 0.5,\n",
    "        \"change_s\": 0.0\n",
    "      }\n",
    "    ],\n",
    "    \"ledger\": null\n",
    "  },\n",
    "  \"cache\": {\n",
    "    \"before\": {\n",
    "      \"fx_graph\": {\n",
    "        \"hit\": 0,\n",
    "        \"miss\": 3,\n",
    "        \"bypass\": 0\n",
    "      },\n",
    "      \"aotautograd\": {\n",
    "        \"hit\": 1,\n",
    "        \"miss\": 2,\n",
    "        \"bypass\": 0\n",
    "      }\n",
    "    },\n",
    "    \"after\": {\n",
    "      \"fx_graph\": {\n",
    "        \"hit\": 3,\n",
    "        \"miss\": 0,\n",
    "        \"bypass\": 0\n",
    "      },\n",
    "      \"aotautograd\": {\n",
    "        \"hit\": 1,\n",
    "        \"miss\": 2,\n",
    "        \"bypass\": 0\n",
    "      }\n",
    "    }\n",
    "  },\n",
    "  \"graphs\": {\n",
    "    \"matched\": 5,\n",
    "    \"same\": 4,\n",
    "    \"by_hash\": 3,\n",
    "    \"changed\": [\n",
    "      {\n",
    "        \"function\": \"forward\",\n",
    "        \"location\": \"/m.py:15\",\n",
    "        \"before\": {\n",
    "          \"compile_id\": \"[0/0]\",\n",
    "          \"hash\": \"aaa\",\n",
    "          \"nodes\": 120\n",
    "        },\n",
    "        \"after\": {\n",
    "          \"compile_id\": \"[0/1]\",\n",
    "          \"hash\": \"bbb\",\n",
    "          \"nodes\": 98\n",
    "        }\n",
    "      }\n",
    "    ]\n",
    "  }\n",
    "}\n",
};

static void test_json(void **state)
{
    (void)state;
    struct tl_buf out = TL_BUF_INIT;
    tl_diff_json(&out, &diff);
    struct tl_buf want = TL_BUF_INIT;
    for (size_t i = 0; i < sizeof(expected_json) / sizeof(expected_json[0]); i++)
        tl_buf_adds(&want, expected_json[i]);
    assert_string_equal(out.buf, want.buf);
    tl_buf_release(&want);
    tl_buf_release(&out);
}

static void test_json_empty(void **state)
{
    (void)state;
    struct tl_diff d;
    make_empty(&d);
    before.has_time = false;
    before.has_cache = false;
    before.report = NULL;
    struct tl_buf out = TL_BUF_INIT;
    tl_diff_json(&out, &d);
    assert_non_null(strstr(out.buf, "\"changes\": 0,\n"));
    assert_non_null(strstr(out.buf, "\"report\": null,\n    \"compile_ids\": 4,\n"
                                    "    \"compile_time_s\": null\n"));
    assert_non_null(strstr(out.buf,
                           "  \"graph_breaks\": {\n    \"new\": [],\n    \"changed\": [],\n"
                           "    \"fixed\": [],\n    \"unchanged\": 2\n  },\n"));
    assert_non_null(strstr(out.buf, "  \"frames\": {\n    \"more\": [],\n    \"fewer\": [],\n"
                                    "    \"unchanged\": 0\n  },\n"));
    assert_non_null(strstr(out.buf, "\"compile_time\": {\n    \"before_s\": null,\n"
                                    "    \"after_s\": 12.25,\n    \"change_s\": null,\n"
                                    "    \"change_pct\": null,\n    \"frames\": [],\n"
                                    "    \"ledger\": null\n  },\n"));
    assert_non_null(strstr(out.buf, "  \"cache\": {\n    \"before\": null,\n"));
    assert_non_null(strstr(out.buf, "  \"graphs\": {\n    \"matched\": 0,\n    \"same\": 0,\n"
                                    "    \"by_hash\": 0,\n    \"changed\": []\n  }\n}\n"));
    tl_buf_release(&out);
}

/* Both sides with a compile-time ledger: every line's before, after and change in --json; the
 * lines that changed, largest change first, in the text. */
static void test_ledger(void **state)
{
    (void)state;
    struct tl_diff d;
    make_empty(&d);
    before.ledger =
        (struct tl_diff_ledger){.has = true, .span_s = 30, .compiling_s = 29, .unaccounted_s = 1};
    before.ledger.phases_s[TL_LP_COMPILE] = 22;
    before.ledger.phases_s[TL_LP_DYNAMO] = 7;
    after.ledger =
        (struct tl_diff_ledger){.has = true, .span_s = 2, .compiling_s = 1.5, .unaccounted_s = 0.5};
    after.ledger.phases_s[TL_LP_COMPILE] = 1.2;
    after.ledger.phases_s[TL_LP_DYNAMO] = 0.3;
    struct tl_buf out = TL_BUF_INIT;
    tl_diff_json(&out, &d);
    assert_non_null(strstr(out.buf, "    \"ledger\": {\n      \"span\": {\n"
                                    "        \"before_s\": 30.0,\n        \"after_s\": 2.0,\n"
                                    "        \"change_s\": -28.0\n      },\n"));
    assert_non_null(strstr(out.buf, "      \"compile_code\": {\n        \"before_s\": 22.0,\n"
                                    "        \"after_s\": 1.2,\n        \"change_s\": -20.8\n"));
    assert_non_null(strstr(out.buf, "      \"unaccounted\": {\n        \"before_s\": 1.0,\n"
                                    "        \"after_s\": 0.5,\n        \"change_s\": -0.5\n"
                                    "      }\n    }\n  },\n"));
    tl_buf_reset(&out);
    tl_diff_text(&out, &d, false);
    assert_non_null(strstr(out.buf, "Where the time went (largest changes):\n"
                                    "  the log's span: 30.00 s -> 2.00 s (-28.00 s)\n"
                                    "  compiling: 29.00 s -> 1.50 s (-27.50 s)\n"
                                    "  compiling the code: 22.00 s -> 1.20 s (-20.80 s)\n"
                                    "  Dynamo: 7.00 s -> 0.30 s (-6.70 s)\n"
                                    "  unaccounted: 1.00 s -> 0.50 s (-0.50 s)\n"));
    assert_null(strstr(out.buf, "Inductor:")); /* no change: not listed */
    tl_buf_release(&out);
    memset(&before.ledger, 0, sizeof(before.ledger));
    memset(&after.ledger, 0, sizeof(after.ledger));
}

/* ---- text ----------------------------------------------------------------------------------- */

static const char expected_text[] =
    "tlparse diff: runs/a (torch_trace) -> runs/b/log.txt (torch_logs)\n"
    "1 new failure, 1 new recompile, 1 recompile changed, 1 recompile fixed, 1 graph break "
    "fixed; compile time 40.50 s -> 12.25 s (-69.8%)\n"
    "\n"
    "Failures:\n"
    "  NEW      forward at /m.py:15: Unsupported: Unsupported <op> ?[31mred… (0 -> 1)\n"
    "\n"
    "Recompiles:\n"
    "  NEW      forward at /m.py:15: tensor 'L['x']' size mismatch at index 0 (0 -> 2)\n"
    "  CHANGED  g at a.py:9 (was a.py:7): ___check_obj_id(L['self'].mode, 140002) (3 -> 1)\n"
    "  FIXED    h at a.py:30: len(L['xs']) == 2 (1 -> 0)\n"
    "\n"
    "Graph breaks:\n"
    "  FIXED    f at a.py: call to builtin print (1 -> 0)\n"
    "\n"
    "Frames compiled more or fewer times:\n"
    "  forward at /m.py:15: 1 -> 3 compiles\n"
    "  h at /n.py:3: 0 -> 1 compiles\n"
    "  g (torch_dynamo_resume_in_g_at_9) at a.py:9: 3 -> 1 compiles\n"
    "  old: 1 -> 0 compiles\n"
    "\n"
    "Compile time per frame (largest changes):\n"
    "  forward at /m.py:15: 0.50 s -> 1.75 s (+1.25 s)\n"
    "  g (torch_dynamo_resume_in_g_at_9) at a.py:9: 2.00 s -> 1.00 s (-1.00 s)\n"
    "  h at /n.py:3: not compiled -> 0.25 s\n"
    "\n"
    "Cache: fx_graph hit 0 -> 3, miss 3 -> 0\n"
    "\n"
    "Graphs: 5 matched (3 by hash), 1 changed:\n"
    "  forward [0/0] -> [0/1]: 120 -> 98 nodes, code changed\n";

static void test_text(void **state)
{
    (void)state;
    struct tl_buf out = TL_BUF_INIT;
    tl_diff_text(&out, &diff, false);
    assert_string_equal(out.buf, expected_text);
    tl_buf_release(&out);
}

static void test_text_color(void **state)
{
    (void)state;
    struct tl_buf out = TL_BUF_INIT;
    tl_diff_text(&out, &diff, true);
    assert_non_null(strstr(out.buf, "\033[1mtlparse diff:\033[0m runs/a (torch_trace)"));
    assert_non_null(strstr(out.buf, "\033[1;31m1 new failure\033[0m, "));
    assert_non_null(strstr(out.buf, "\033[1;32m1 graph break fixed\033[0m; compile time"));
    assert_non_null(strstr(out.buf, "\n\033[1mFailures:\033[0m\n  \033[1;31mNEW\033[0m      "
                                    "forward at /m.py:15: "));
    assert_non_null(strstr(out.buf, "  \033[1;33mCHANGED\033[0m  g at a.py:9"));
    assert_non_null(strstr(out.buf, "  \033[1;32mFIXED\033[0m    h at a.py:30"));
    /* the only escapes are ours: the log's ESC is gone */
    assert_null(strstr(out.buf, "\033[31m"));
    tl_buf_release(&out);
}

static void test_text_empty(void **state)
{
    (void)state;
    struct tl_diff d;
    make_empty(&d);
    struct tl_buf out = TL_BUF_INIT;
    tl_diff_text(&out, &d, false);
    assert_string_equal(out.buf,
                        "tlparse diff: runs/a (torch_trace) -> runs/b/log.txt (torch_logs)\n"
                        "no change in graph breaks, recompiles, specializations or failures; "
                        "compile time 40.50 s -> 12.25 s (-69.8%)\n");
    after.has_time = false;
    before.has_time = false;
    tl_buf_reset(&out);
    tl_diff_text(&out, &d, false);
    assert_string_equal(out.buf,
                        "tlparse diff: runs/a (torch_trace) -> runs/b/log.txt (torch_logs)\n"
                        "no change in graph breaks, recompiles, specializations or failures\n");
    tl_buf_release(&out);
}

/* Long texts: the first line, 200 characters (not bytes), then "…"; cache counts of a side
 * without any are "?"; more than 10 frames with a change in compile time are cut. */
static void test_text_limits(void **state)
{
    (void)state;
    static char long_text[700];
    size_t n = 0;
    for (int i = 0; i < 250; i++) {
        memcpy(long_text + n, "\xc3\xa9", 2); /* é */
        n += 2;
    }
    long_text[n] = '\0';
    struct tl_diff_item it = {.text = long_text, .key = "x", .count = 1};
    struct tl_diff_pair p = {TL_DIFF_NEW, NULL, &it, 0};
    static struct tl_diff_frame fb[12], fa[12];
    static struct tl_diff_fpair fp[12];
    for (int i = 0; i < 12; i++) {
        fb[i] =
            (struct tl_diff_frame){.function = "f", .compiles = 1, .seconds = 1, .has_time = true};
        fa[i] = fb[i];
        fa[i].seconds = 2;
        fp[i] = (struct tl_diff_fpair){&fb[i], &fa[i]};
    }
    struct tl_diff d;
    make_empty(&d);
    before.has_cache = false;
    d.pairs[TL_DIFF_SPECS] = &p;
    d.npairs[TL_DIFF_SPECS] = 1;
    d.frames = fp;
    d.nframes = 12;
    struct tl_buf out = TL_BUF_INIT;
    tl_diff_text(&out, &d, false);
    struct tl_buf want = TL_BUF_INIT;
    tl_buf_adds(&want, "\nSpecializations:\n  NEW      ");
    for (int i = 0; i < 200; i++)
        tl_buf_adds(&want, "\xc3\xa9");
    tl_buf_adds(&want, "… (0 -> 1)\n\nCompile time per frame (largest changes):\n");
    assert_non_null(strstr(out.buf, want.buf));
    assert_non_null(strstr(out.buf, "  f: 1.00 s -> 2.00 s (+1.00 s)\n  ... 2 more\n"));
    assert_non_null(strstr(out.buf, "\nCache: fx_graph hit ? -> 0, miss ? -> 3, bypass ? -> 0; "
                                    "aotautograd hit ? -> 1, miss ? -> 2, bypass ? -> 0\n"));
    tl_buf_release(&want);
    tl_buf_release(&out);
}

/* ---- HTML ----------------------------------------------------------------------------------- */

static void test_page(void **state)
{
    (void)state;
    struct tl_diff_links links = {"before/", "../b dir/"};
    struct tl_runinfo info = {.version = "9.9.9", .input = "runs/<b>"};
    struct tl_buf out = TL_BUF_INIT;
    tl_diff_page(&out, &diff, &links, &info);
    const char *h = out.buf;
    assert_non_null(strstr(h, "<title>tlparse diff</title>"));
    assert_non_null(strstr(h, ".tldiff .badge")); /* diff.css */
    assert_non_null(strstr(h, "<h1>tlparse diff</h1>"));
    /* the sides, linked to their reports */
    assert_non_null(strstr(h, "<h2>Before</h2>\n<p class='path'><code>runs/a</code></p>\n"
                              "<p>torch_trace · 4 compile ids · 40.50 s compiling</p>\n"
                              "<p><a href=\"before/index.html\">Its report</a></p>"));
    assert_non_null(strstr(h, "<a href=\"../b dir/index.html\">Its report</a>"));
    /* the headline */
    assert_non_null(strstr(h, "<p class='summary'>1 new failure, 1 new recompile, 1 recompile "
                              "changed, 1 recompile fixed, 1 graph break fixed</p>"));
    assert_non_null(strstr(h, "<tr><th><a href='#recompiles'>Recompiles</a></th>"
                              "<td class='num worse'>1</td><td class='num worse'>1</td>"
                              "<td class='num better'>1</td><td class='num zero'>0</td></tr>"));
    assert_non_null(strstr(h, "<p class='time'>Compile time: 40.50 s → 12.25 s <span "
                              "class='better'>(-69.8%)</span></p>"));
    assert_null(strstr(h, "No differences"));
    /* the sections, in order */
    const char *f = strstr(h, "<section id='failures'>");
    const char *r = strstr(h, "<section id='recompiles'>");
    const char *b = strstr(h, "<section id='graph_breaks'>");
    const char *fr = strstr(h, "<section id='frames'>");
    const char *t = strstr(h, "<section id='compile_time'>");
    const char *c = strstr(h, "<section id='cache'>");
    const char *g = strstr(h, "<section id='graphs'>");
    assert_true(f && r && b && fr && t && c && g);
    assert_true(f < r && r < b && b < fr && fr < t && t < c && c < g);
    assert_null(strstr(h, "<section id='specializations'>"));
    /* a finding: its badge, escaped text, place, counts, compile ids linked into the after
     * side's log (a TORCH_LOGS side), the id escaped for the attribute */
    assert_non_null(strstr(h, "<li class='entry new'><span class='badge new'>NEW</span> "
                              "<span class='detail'>Unsupported</span> <span class='muted'>"
                              "unsupported &amp; more</span>\n<pre class='text'>Unsupported "
                              "&lt;op&gt; \x1b[31mred\nsecond line</pre>\n<p class='where'>in "
                              "<code>forward</code> at <code>/m.py:15</code> · seen 0 → 1 "
                              "times</p>\n<p class='cids'>Compile ids after: <a class='cid' "
                              "href=\"../b dir/log.html#[1/0]&quot;&#39;&lt;b&gt;\">"
                              "[1/0]\"'&lt;b&gt;</a></p>"));
    assert_null(strstr(h, "<op>"));
    assert_null(strstr(h, "<b>"));
    /* a moved finding; before's compile ids into before's index */
    assert_non_null(strstr(h, "at <code>a.py:9</code> (was <code>a.py:7</code>) · seen 3 → 1 "
                              "times</p>\n<p class='cids'>Compile ids before: <a class='cid' "
                              "href=\"before/index.html#[2/0]\">[2/0]</a>"));
    assert_non_null(strstr(h, " · after: <a class='cid' href=\"../b dir/log.html#[2/0]\">"));
    assert_non_null(strstr(h, "<p class='muted'>2 more on both sides, as often.</p>"));
    /* frames */
    assert_non_null(strstr(h, "<li class='entry more'><span class='badge more'>MORE</span> "
                              "<code>h</code> at <code>/n.py:3</code>: 0 → 1 compiles\n"
                              "<p class='muted'>called from <code>main.py:1 in &lt;module&gt;"
                              "</code> → <code>main.py:9 in run</code></p>"));
    assert_non_null(strstr(h, "<span class='badge fewer'>FEWER</span> <code>g</code> <span "
                              "class='muted'>(torch_dynamo_resume_in_g_at_9)</span>"));
    /* compile time: the frames whose time changed */
    assert_non_null(strstr(h, "<h2>Compile time per frame</h2>\n<ul class='times'>\n"
                              "<li><code>forward</code> at <code>/m.py:15</code>: 0.50 s → "
                              "1.75 s <span class='worse'>(+1.25 s)</span></li>\n<li><code>g"));
    assert_non_null(strstr(h, "<li><code>h</code> at <code>/n.py:3</code>: <span class='muted'>"
                              "not compiled</span> → 0.25 s</li>\n</ul>"));
    assert_null(strstr(h, "<code>k</code>"));
    /* cache and graphs */
    assert_non_null(strstr(h, "<tr><td>fx_graph hit</td><td class='num'>0</td>"
                              "<td class='num'>3</td></tr>"));
    assert_non_null(strstr(h, "<tr class='muted'><td>aotautograd hit</td>"));
    assert_non_null(strstr(h, "<p>5 matched (3 by hash), 1 changed:</p>"));
    assert_non_null(strstr(h, "<code>forward</code> at <code>/m.py:15</code>: <a class='cid' "
                              "href=\"before/index.html#[0/0]\">[0/0]</a> → <a class='cid' "
                              "href=\"../b dir/log.html#[0/1]\">[0/1]</a>: 120 → 98 nodes, "
                              "code changed</li>"));
    /* the footer, escaped; the page closed */
    assert_non_null(strstr(h, "input: <code>runs/&lt;b&gt;</code>"));
    assert_int_equal(tu_count(h, "<script"), 0);
    assert_non_null(strstr(h, "</div>\n<footer class='runinfo'>"));
    size_t len = strlen(h);
    assert_true(len > 16 && !strcmp(h + len - 16, "</body>\n</html>\n"));
    tl_buf_release(&out);
}

static void test_page_unlinked(void **state)
{
    (void)state;
    struct tl_diff d;
    make_empty(&d);
    before.path = "<img src=x onerror=alert(1)>";
    struct tl_buf out = TL_BUF_INIT;
    tl_diff_page(&out, &d, NULL, NULL);
    const char *h = out.buf;
    assert_non_null(strstr(h, "<p class='nodiff'>No differences in failures, recompiles, graph "
                              "breaks or specializations.</p>"));
    assert_non_null(strstr(h, "<code>&lt;img src=x onerror=alert(1)&gt;</code>"));
    assert_null(strstr(h, "<img"));
    assert_null(strstr(h, "Its report"));
    assert_null(strstr(h, "<section id="));
    assert_null(strstr(h, "<footer"));
    tl_buf_release(&out);

    /* compile ids of a side without a report: plain text */
    assert_int_equal(setup(NULL), 0);
    struct tl_diff_links links = {NULL, "javascript:alert(1)//"};
    tl_buf_init(&out, 0);
    tl_diff_page(&out, &diff, &links, NULL);
    h = out.buf;
    assert_non_null(strstr(h, "Compile ids before: <code>[2/0]</code> <code>[2/1]</code>"));
    assert_null(strstr(h, "href=\"javascript:"));
    assert_non_null(strstr(h, "href=\"#blocked:javascript:alert(1)//log.html#[2/0]\""));
    tl_buf_release(&out);
}

/* At most 30 frames with their compile time, then how many more. */
static void test_page_times(void **state)
{
    (void)state;
    static struct tl_diff_frame fb[32], fa[32];
    static struct tl_diff_fpair fp[32];
    for (int i = 0; i < 32; i++) {
        fb[i] =
            (struct tl_diff_frame){.function = "f", .compiles = 1, .seconds = 1, .has_time = true};
        fa[i] = fb[i];
        fa[i].seconds = 0.5;
        fp[i] = (struct tl_diff_fpair){&fb[i], &fa[i]};
    }
    struct tl_diff d;
    make_empty(&d);
    d.frames = fp;
    d.nframes = 32;
    struct tl_buf out = TL_BUF_INIT;
    tl_diff_page(&out, &d, NULL, NULL);
    assert_int_equal(tu_count(out.buf, "<li><code>f</code>: 1.00 s → 0.50 s <span class='better'>"
                                       "(-0.50 s)</span></li>"),
                     30);
    assert_non_null(strstr(out.buf, "<li class='muted'>2 more frames with a change in compile "
                                    "time</li>\n</ul>"));
    tl_buf_release(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_json, setup),
        cmocka_unit_test_setup(test_json_empty, setup),
        cmocka_unit_test_setup(test_ledger, setup),
        cmocka_unit_test_setup(test_text, setup),
        cmocka_unit_test_setup(test_text_color, setup),
        cmocka_unit_test_setup(test_text_empty, setup),
        cmocka_unit_test_setup(test_text_limits, setup),
        cmocka_unit_test_setup(test_page, setup),
        cmocka_unit_test_setup(test_page_unlinked, setup),
        cmocka_unit_test_setup(test_page_times, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
