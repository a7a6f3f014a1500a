/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for torchlogs.c, the TORCH_LOGS text reader: crafted lines for every prefix
 * variant (glog in micro- and milliseconds, bracket, path-only, "...", ranks, torchrun and
 * srun workers, glued after a progress bar, CRLF) and every message kind; the exact messages
 * of every log of ../shared/corpus/torch_logs; tl_tlog_detect on those and on the structured
 * logs; and hostile input (random bytes, a 2 MB line, a message that never ends).
 * Run with a file argument, it prints the messages of that file instead (for writing cases).
 */
#include "base/config.h"
#include "input/torchlogs.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <ftw.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "testutil.h"

/* ---- a canonical text form of messages, so that cases read as what a person expects ---- */

static const char *const kind_names[] = {
    "RECOMPILE", "LIMIT",   "GRAPH_BREAK", "CREATE_SYMBOL", "DUCK_SIZED",  "GUARD_ADDED",
    "START",     "RESTART", "FALLBACK",    "GRAPH",         "GUARD_ERROR", "UNCAUGHT",
};

static void add_view(struct tl_buf *b, const char *key, struct tl_str v)
{
    if (!v.n)
        return;
    tl_buf_addf(b, "  %s=", key);
    tl_buf_add(b, v.p, v.n);
    tl_buf_addch(b, '\n');
}

static void add_loc(struct tl_buf *b, const char *key, const struct tl_tlog_loc *l)
{
    if (!l->file.p && !l->line && !l->function.n && !l->code.n)
        return;
    tl_buf_addf(b, "  %s=", key);
    if (l->file.p)
        tl_buf_add(b, l->file.p, l->file.n);
    else
        tl_buf_addch(b, '?');
    tl_buf_addf(b, ":%u", (unsigned)l->line);
    if (l->function.n) {
        tl_buf_adds(b, " in ");
        tl_buf_add(b, l->function.p, l->function.n);
    }
    if (l->code.n) {
        tl_buf_adds(b, " | ");
        tl_buf_add(b, l->code.p, l->code.n);
    }
    tl_buf_addch(b, '\n');
}

static void dump_msg(struct tl_buf *b, const struct tl_tlog_msg *m)
{
    tl_buf_addf(b, "%s %llu-%llu", kind_names[m->kind], (unsigned long long)m->first_line,
                (unsigned long long)m->last_line);
    if (m->has_cid) {
        tl_buf_addch(b, ' ');
        tl_cid_display(b, &m->cid);
    }
    if (m->rank >= 0)
        tl_buf_addf(b, " rank=%d", m->rank);
    if (m->cut)
        tl_buf_adds(b, " cut");
    if (m->truncated)
        tl_buf_adds(b, " truncated");
    if (m->nested)
        tl_buf_adds(b, " nested");
    if (m->fallback)
        tl_buf_adds(b, " fallback");
    if (m->user_stack_suppressed)
        tl_buf_adds(b, " suppressed");
    if (m->warning)
        tl_buf_adds(b, " warning");
    tl_buf_addch(b, '\n');
    add_view(b, "function", m->function);
    add_loc(b, "where", &m->where);
    for (size_t i = 0; i < m->nguards; i++) {
        tl_buf_adds(b, "  guard=");
        if (m->guards[i].has_cid) {
            tl_cid_display(b, &m->guards[i].cid);
            tl_buf_addch(b, ' ');
        }
        tl_buf_add(b, m->guards[i].text.p, m->guards[i].text.n);
        tl_buf_addch(b, '\n');
    }
    if (m->limit_name.n || m->limit) {
        tl_buf_adds(b, "  limit=");
        tl_buf_add(b, m->limit_name.p, m->limit_name.n);
        tl_buf_addf(b, " %llu\n", (unsigned long long)m->limit);
    }
    add_view(b, "reason", m->reason);
    add_view(b, "reason2", m->reason2);
    for (size_t i = 0; i < m->nexplanations; i++)
        add_view(b, i < m->nexplanations - m->nexplanations2 ? "explanation" : "explanation2",
                 m->explanations[i]);
    for (size_t i = 0; i < m->nhints; i++)
        add_view(b, i < m->nhints - m->nhints2 ? "hint" : "hint2", m->hints[i]);
    add_view(b, "url", m->url);
    for (size_t i = 0; i < m->nframes; i++)
        add_loc(b, "frame", &m->frames[i]);
    add_view(b, "symbol", m->symbol);
    add_view(b, "value", m->value);
    add_view(b, "source", m->source);
    add_view(b, "range", m->range);
    add_view(b, "expr", m->expr);
    add_view(b, "kernel", m->kernel);
    if (m->kind == TL_TLOG_GRAPH) {
        tl_buf_adds(b, "  graph=");
        tl_buf_add(b, m->graph_name.p, m->graph_name.n);
        tl_buf_addf(b, " nodes=%u\n", (unsigned)m->nodes);
    }
}

static void on_msg(void *ctx, const struct tl_tlog_msg *m)
{
    dump_msg(ctx, m);
}

/* Feed text line by line (each line an exactly sized heap copy, so that ASan sees a read past
 * its end), end, and append the stats. */
static void feed_text(struct tl_tlog *p, const char *text, size_t n)
{
    size_t i = 0;
    uint64_t no = 0;
    while (i < n) {
        const char *nl = memchr(text + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - text) : n;
        char *copy = malloc(e - i ? e - i : 1);
        assert_non_null(copy);
        memcpy(copy, text + i, e - i);
        tl_tlog_feed(p, ++no, tl_str_make(copy, e - i));
        free(copy);
        i = e + 1;
    }
    tl_tlog_end(p);
}

/* The canonical dump of the messages of text, with the stats as a last line; caller frees. */
static char *messages_of(const char *text, size_t n)
{
    struct tl_buf b = TL_BUF_INIT;
    struct tl_tlog *p = tl_tlog_new(on_msg, &b);
    feed_text(p, text, n);
    const struct tl_tlog_stats *st = tl_tlog_stats(p);
    tl_buf_addf(&b, "stats lines=%llu messages=%llu in_messages=%llu unrecognized=%llu\n",
                (unsigned long long)st->lines, (unsigned long long)st->messages,
                (unsigned long long)st->in_messages, (unsigned long long)st->unrecognized);
    tl_tlog_free(p);
    return tl_buf_detach(&b, NULL);
}

static void expect_text(const char *got, const char *want, const char *what)
{
    if (strcmp(got, want) != 0) {
        print_error("%s: messages differ\n--- got:\n%s--- want:\n%s", what, got, want);
        fail();
    }
}

static void expect_messages(const char *text, const char *want)
{
    char *got = messages_of(text, strlen(text));
    expect_text(got, want, "crafted input");
    free(got);
}

/* ---- one line: tl_tlog_split ------------------------------------------------------------ */

struct split_case {
    const char *line;
    const char *body;
    bool has_prefix;
    int rank;
    const char *cid; /* display form, NULL when none */
    const char *tag;
    char level;
};

#define GLOG_GB                                                                                    \
    "V0120 22:19:48.783000 2343082 site-packages/torch/_dynamo/symbolic_convert.py:611] "

static const struct split_case split_cases[] = {
    /* glog, microseconds, compile id and artifact tag */
    {GLOG_GB "[1/0] [__graph_breaks] Graph break in user code at /x/a.py:62",
     "Graph break in user code at /x/a.py:62", true, -1, "[1/0]", "graph_breaks", 'V'},
    /* glog, milliseconds */
    {"I0721 11:10:00.950 845259 torch/fx/experimental/symbolic_shapes.py:3776] [0/0] create_env",
     "create_env", true, -1, "[0/0]", "", 'I'},
    /* torch.distributed's rank */
    {"[rank0]:V0120 22:19:48.783000 2343082 x.py:611] [1/0] [__recompiles] Recompiling function f "
     "in x.py:3",
     "Recompiling function f in x.py:3", true, 0, "[1/0]", "recompiles", 'V'},
    /* torchrun --tee before it: the rank wins */
    {"[default1]:[rank5]:W1031 00:31:42.775483 139927651080000 torch/_dynamo/convert_frame.py:762] "
     "[0/8] torch._dynamo hit config.cache_size_limit (8)",
     "torch._dynamo hit config.cache_size_limit (8)", true, 5, "[0/8]", "", 'W'},
    /* torchrun --tee alone, with and without a log prefix, and a custom role */
    {"[default3]:Recompiling function f in x.py:3", "Recompiling function f in x.py:3", false, 3,
     NULL, "", 0},
    {"[default2]:I0721 11:10:00.950 845259 a.py:1] [0/0] create_env", "create_env", true, 2,
     "[0/0]", "", 'I'},
    {"[trainer12]:I0721 11:10:00.950 845259 a.py:1] x", "x", true, 12, NULL, "", 'I'},
    /* srun -l */
    {"0: " GLOG_GB "[1/0] [__graph_breaks] Reason: x", "Reason: x", true, 0, "[1/0]",
     "graph_breaks", 'V'},
    {"12: Graph break in user code at x.py:1", "Graph break in user code at x.py:1", false, 12,
     NULL, "", 0},
    {"3: [rank7]:E0101 00:00:00.000001 1 a.py:9] boom", "boom", true, 7, NULL, "", 'E'},
    /* glued after a progress bar */
    {"100%|\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88| 3/3 [00:01<00:00,  2.00it/s]" GLOG_GB
     "[1/0] [__graph_breaks] Graph break in user code at x.py:62",
     "Graph break in user code at x.py:62", true, -1, "[1/0]", "graph_breaks", 'V'},
    /* compile ids with an attempt, compiled autograd */
    {"V0120 22:19:48.796000 2343082 output_graph.py:1983] [1/0_1] [__graph_code] TRACED GRAPH",
     "TRACED GRAPH", true, -1, "[1/0_1]", "graph_code", 'V'},
    {"I0120 22:19:48.796000 2343082 compiled_autograd.py:1] [!0/2/1] [__compiled_autograd] x", "x",
     true, -1, "[!0/2/1]", "compiled_autograd", 'I'},
    {"I0120 22:19:48.796000 2343082 a.py:1] [!3] hello", "hello", true, -1, "[!3/-/-]", "", 'I'},
    {"I0120 22:19:48.796000 2343082 a.py:1] [!0/2/1_4] x", "x", true, -1, "[!0/2/1_4]", "", 'I'},
    /* Windows line ending, Windows path */
    {"W1120 14:09:51.149000 1018497 site-packages/torch/_dynamo/convert_frame.py:844] [23/8]    "
     "last reason: 23/0: L['pred_idx'] == 2\r",
     "   last reason: 23/0: L['pred_idx'] == 2", true, -1, "[23/8]", "", 'W'},
    {"W1120 14:09:51.149000 1018497 C:\\Users\\me\\torch\\_dynamo\\convert_frame.py:844] [23/8] "
     "torch._dynamo hit config.cache_size_limit (8)",
     "torch._dynamo hit config.cache_size_limit (8)", true, -1, "[23/8]", "", 'W'},
    /* the bracket format, with and without a compile id, after a rank */
    {"[2024-03-06 15:35:13,994] torch._dynamo.guards.__recompiles: [DEBUG] Recompiling function "
     "predict in /h/model.py:281",
     "Recompiling function predict in /h/model.py:281", true, -1, NULL,
     "torch._dynamo.guards.__recompiles", 'D'},
    {"[2023-10-12 11:24:01,657] [12/0] torch.fx.experimental.symbolic_shapes: [INFO] create_env",
     "create_env", true, -1, "[12/0]", "torch.fx.experimental.symbolic_shapes", 'I'},
    {"[rank2]:[2023-09-28 14:50:06,548] torch._dynamo.convert_frame: [WARNING] torch._dynamo hit "
     "config.cache_size_limit (8)",
     "torch._dynamo hit config.cache_size_limit (8)", true, 2, NULL, "torch._dynamo.convert_frame",
     'W'},
    /* path-only, "..." and a bare compile id */
    {"torch/_inductor/graph.py:2045] [0/1] [__output_code]     compiled_module_main('None', "
     "benchmark_compiled_module)",
     "    compiled_module_main('None', benchmark_compiled_module)", true, -1, "[0/1]",
     "output_code", 0},
    {"torch/_inductor/graph.py:2045] [0/1] [__output_code]", "", true, -1, "[0/1]", "output_code",
     0},
    {"... [0/1] [__recompiles]     - 0/0: tensor 'a' size mismatch",
     "    - 0/0: tensor 'a' size mismatch", true, -1, "[0/1]", "recompiles", 0},
    {"...", "...", false, -1, NULL, "", 0},
    {"... and then it crashed", "... and then it crashed", false, -1, NULL, "", 0},
    {"[0/0] [__guards] GUARDS:", "GUARDS:", true, -1, "[0/0]", "guards", 0},
    /* no prefix, and near misses kept whole */
    {"    - 0/0: L['c'] == 1.5", "    - 0/0: L['c'] == 1.5", false, -1, NULL, "", 0},
    {"V0120 22:19:48 2343082 x.py:611] hi", "V0120 22:19:48 2343082 x.py:611] hi", false, -1, NULL,
     "", 0},
    {"V0120 22:19:48.783000 2343082 x.py:611]hi", "V0120 22:19:48.783000 2343082 x.py:611]hi",
     false, -1, NULL, "", 0},
    {"V0120 22:19:48.783000 2343082 x.py:611] [0/] x", "[0/] x", true, -1, NULL, "", 'V'},
    {"V0120 22:19:48.783000 2343082 x.py:611] [1/2/3] x", "[1/2/3] x", true, -1, NULL, "", 'V'},
    {"12:30 is lunch", "12:30 is lunch", false, -1, NULL, "", 0},
    {"", "", false, -1, NULL, "", 0},
};

static void expect_view(struct tl_str got, const char *want, const char *what, const char *line)
{
    if (got.n != strlen(want) || (got.n && memcmp(got.p, want, got.n) != 0)) {
        print_error("%s of \"%s\": got \"%.*s\", want \"%s\"\n", what, line, (int)got.n, got.p,
                    want);
        fail();
    }
}

static void split_exact(const char *text, struct tl_tlog_line *out, char **copy)
{
    size_t n = strlen(text);
    *copy = malloc(n ? n : 1);
    assert_non_null(*copy);
    memcpy(*copy, text, n);
    memset(out, 0x5A, sizeof(*out));
    tl_tlog_split(tl_str_make(*copy, n), out);
}

static void test_split_prefixes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(split_cases) / sizeof(split_cases[0]); i++) {
        const struct split_case *c = &split_cases[i];
        struct tl_tlog_line L;
        char *copy;
        split_exact(c->line, &L, &copy);
        expect_view(L.body, c->body, "body", c->line);
        expect_view(L.tag, c->tag, "tag", c->line);
        if (L.has_prefix != c->has_prefix || L.rank != c->rank || L.level != c->level ||
            L.has_cid != (c->cid != NULL) || (L.prefix_key != 0) != c->has_prefix) {
            print_error("\"%s\": has_prefix %d rank %d level %d has_cid %d key %u\n", c->line,
                        L.has_prefix, L.rank, L.level, L.has_cid, (unsigned)L.prefix_key);
            fail();
        }
        if (c->cid) {
            struct tl_buf b = TL_BUF_INIT;
            tl_cid_display(&b, &L.cid);
            if (strcmp(b.buf, c->cid) != 0) {
                print_error("\"%s\": cid %s, want %s\n", c->line, b.buf, c->cid);
                fail();
            }
            tl_buf_release(&b);
        }
        free(copy);
    }
}

static void test_split_compile_id_parts(void **state)
{
    (void)state;
    struct tl_tlog_line L;
    char *copy;
    split_exact("V0120 22:19:48.796000 1 a.py:1] [1/0_1] x", &L, &copy);
    assert_true(L.has_cid);
    assert_int_equal(L.cid.has, TL_CID_FRAME | TL_CID_FCID | TL_CID_ATTEMPT);
    assert_int_equal(L.cid.frame, 1);
    assert_int_equal(L.cid.fcid, 0);
    assert_int_equal(L.cid.attempt, 1);
    free(copy);
    split_exact("V0120 22:19:48.796000 1 a.py:1] [!0/2/1] x", &L, &copy);
    assert_int_equal(L.cid.has, TL_CID_CA | TL_CID_FRAME | TL_CID_FCID);
    assert_int_equal(L.cid.ca, 0);
    assert_int_equal(L.cid.frame, 2);
    assert_int_equal(L.cid.fcid, 1);
    free(copy);
    /* no attempt written: no attempt bit (a structured log's "attempt": 0 is another matter) */
    split_exact("V0120 22:19:48.796000 1 a.py:1] [3/4] x", &L, &copy);
    assert_int_equal(L.cid.has, TL_CID_FRAME | TL_CID_FCID);
    free(copy);
    /* 10 digits do not fit: not a compile id */
    split_exact("V0120 22:19:48.796000 1 a.py:1] [1234567890/0] x", &L, &copy);
    assert_false(L.has_cid);
    free(copy);
}

static uint32_t key_of(const char *text)
{
    struct tl_tlog_line L;
    char *copy;
    split_exact(text, &L, &copy);
    free(copy);
    return L.prefix_key;
}

static void test_split_prefix_keys(void **state)
{
    (void)state;
    uint32_t k = key_of(GLOG_GB "[1/0] [__graph_breaks] Graph break in user code at x.py:62");
    assert_int_not_equal(k, 0);
    /* the time and the body do not count */
    assert_int_equal(k, key_of("V0121 23:59:59.000001 2343082 "
                               "site-packages/torch/_dynamo/symbolic_convert.py:611] [1/0] "
                               "[__graph_breaks]   Hint: x"));
    /* nor output glued before it */
    assert_int_equal(k, key_of("100%|###| 3/3" GLOG_GB "[1/0] [__graph_breaks] Reason: y"));
    /* the level, thread, path, line, compile id, tag and rank do */
    assert_int_not_equal(k, key_of("I0120 22:19:48.783000 2343082 "
                                   "site-packages/torch/_dynamo/symbolic_convert.py:611] [1/0] "
                                   "[__graph_breaks] x"));
    assert_int_not_equal(k, key_of("V0120 22:19:48.783000 2343083 "
                                   "site-packages/torch/_dynamo/symbolic_convert.py:611] [1/0] "
                                   "[__graph_breaks] x"));
    assert_int_not_equal(k, key_of("V0120 22:19:48.783000 2343082 "
                                   "site-packages/torch/_dynamo/symbolic_convert.py:612] [1/0] "
                                   "[__graph_breaks] x"));
    assert_int_not_equal(k, key_of(GLOG_GB "[1/1] [__graph_breaks] x"));
    assert_int_not_equal(k, key_of(GLOG_GB "[1/0] [__recompiles] x"));
    assert_int_not_equal(k, key_of("[rank1]:" GLOG_GB "[1/0] [__graph_breaks] x"));
    /* the bracket format: logger, level and compile id */
    uint32_t b = key_of("[2024-03-06 15:35:13,994] torch._dynamo.guards.__recompiles: [DEBUG] a");
    assert_int_equal(
        b, key_of("[2024-03-07 01:00:00,001] torch._dynamo.guards.__recompiles: [DEBUG] b"));
    assert_int_not_equal(b, key_of("[2024-03-06 15:35:13,994] torch._dynamo.guards: [DEBUG] a"));
    assert_int_not_equal(
        b, key_of("[2024-03-06 15:35:13,994] torch._dynamo.guards.__recompiles: [INFO] a"));
    /* no prefix: 0, with or without a worker */
    assert_int_equal(key_of("Recompiling function fn in x.py:3"), 0);
    assert_int_equal(key_of("0: Recompiling function fn in x.py:3"), 0);
}

/* ---- messages from crafted lines -------------------------------------------------------- */

static void test_ranks_interleaved(void **state)
{
    (void)state;
    expect_messages(
        "[rank0]:V0120 22:19:48.783000 100 torch/_dynamo/guards.py:2800] [0/1] [__recompiles] "
        "Recompiling function fwd in m.py:10\n"
        "[rank1]:V0120 22:19:48.783100 101 torch/_dynamo/guards.py:2800] [0/1] [__recompiles] "
        "Recompiling function fwd in m.py:10\n"
        "[rank0]:V0120 22:19:48.783000 100 torch/_dynamo/guards.py:2800] [0/1] [__recompiles]     "
        "triggered by the following guard failure(s):\n"
        "[rank1]:V0120 22:19:48.783100 101 torch/_dynamo/guards.py:2800] [0/1] [__recompiles]     "
        "triggered by the following guard failure(s):\n"
        "[rank1]:V0120 22:19:48.783100 101 torch/_dynamo/guards.py:2800] [0/1] [__recompiles]     "
        "- 0/0: tensor 'L['x']' size mismatch at index 0. expected 4, actual 8\n"
        "[rank0]:V0120 22:19:48.783000 100 torch/_dynamo/guards.py:2800] [0/1] [__recompiles]     "
        "- 0/0: tensor 'L['x']' size mismatch at index 0. expected 2, actual 3\n"
        "[rank1]:W0120 22:19:49.000000 101 torch/_dynamo/convert_frame.py:844] [0/8] "
        "torch._dynamo hit config.recompile_limit (8)\n"
        "[rank0]:V0120 22:19:49.100000 100 torch/_dynamo/guards.py:2800] [0/2] [__recompiles] "
        "Recompiling function fwd in m.py:10\n",
        /* rank 1's recompile ends when rank 1 logs something else, rank 0's when rank 0 does;
         * at the end, the open ones in the order they began */
        "RECOMPILE 2-5 [0/1] rank=1\n"
        "  function=fwd\n"
        "  where=m.py:10 in fwd\n"
        "  guard=[0/0] tensor 'L['x']' size mismatch at index 0. expected 4, actual 8\n"
        "RECOMPILE 1-6 [0/1] rank=0\n"
        "  function=fwd\n"
        "  where=m.py:10 in fwd\n"
        "  guard=[0/0] tensor 'L['x']' size mismatch at index 0. expected 2, actual 3\n"
        "LIMIT 7-7 [0/8] rank=1 cut\n"
        "  limit=recompile_limit 8\n"
        "RECOMPILE 8-8 [0/2] rank=0 cut\n"
        "  function=fwd\n"
        "  where=m.py:10 in fwd\n"
        "stats lines=8 messages=4 in_messages=8 unrecognized=0\n");
}

static void test_workers_interleaved(void **state)
{
    (void)state;
    /* srun -l: no log prefix, continuation is per worker */
    expect_messages("0: Recompiling function fn in a.py:3\n"
                    "1: Graph break in user code at b.py:7\n"
                    "0:     triggered by the following guard failure(s):\n"
                    "1: Reason: Unsupported: Tensor.item\n"
                    "0:     - 0/0: L['c'] == 1.5\n"
                    "1: User code traceback:\n"
                    "1:   File \"b.py\", line 7, in g\n"
                    "1:     return x.item()\n"
                    "0: done\n",
                    "RECOMPILE 1-5 rank=0\n"
                    "  function=fn\n"
                    "  where=a.py:3 in fn\n"
                    "  guard=[0/0] L['c'] == 1.5\n"
                    "GRAPH_BREAK 2-8 rank=1\n"
                    "  where=b.py:7 in g | return x.item()\n"
                    "  reason=Unsupported: Tensor.item\n"
                    "  frame=b.py:7 in g | return x.item()\n"
                    "stats lines=9 messages=2 in_messages=8 unrecognized=1\n");
    /* torchrun --tee, in front of torch.distributed's own rank prefix, milliseconds */
    expect_messages(
        "[default0]:[rank0]:I0721 11:10:01.030 845259 "
        "torch/fx/experimental/symbolic_shapes.py:5117] [0/0] create_symbol s0 = 5 for "
        "L['x'].size()[0] [2, int_oo] at a.py:5 in fn (_dynamo/variables/builder.py:3466 in "
        "<lambda>)\n"
        "[default1]:[rank1]:I0721 11:10:01.031 845260 "
        "torch/fx/experimental/symbolic_shapes.py:7211] [0/0] eval Eq(s0, 5) [guard added] "
        "return x * y  # a.py:5 in fn (_subclasses/fake_impls.py:922 in infer_size)\n",
        "CREATE_SYMBOL 1-1 [0/0] rank=0\n"
        "  where=a.py:5 in fn\n"
        "  symbol=s0\n"
        "  value=5\n"
        "  source=L['x'].size()[0]\n"
        "  range=[2, int_oo]\n"
        "GUARD_ADDED 2-2 [0/0] rank=1\n"
        "  where=a.py:5 in fn | return x * y\n"
        "  symbol=s0\n"
        "  value=5\n"
        "  expr=Eq(s0, 5)\n"
        "stats lines=2 messages=2 in_messages=2 unrecognized=0\n");
}

static void test_glued_progress_bar(void **state)
{
    (void)state;
    expect_messages("100%|\xe2\x96\x88\xe2\x96\x88| 3/3 [00:01<00:00,  2.00it/s]" GLOG_GB
                    "[1/0] [__graph_breaks] Graph break in user code at /s/a.py:62\n" GLOG_GB
                    "[1/0] [__graph_breaks] Graph Break Reason: Unsupported Tensor.backward() "
                    "call\n" GLOG_GB "[1/0] [__graph_breaks] User code traceback:\n" GLOG_GB
                    "[1/0] [__graph_breaks]   File \"/s/a.py\", line 62, in train_step\n" GLOG_GB
                    "[1/0] [__graph_breaks]     loss.backward()\n" GLOG_GB
                    "[1/0] [__graph_breaks]\n",
                    "GRAPH_BREAK 1-5 [1/0]\n"
                    "  where=/s/a.py:62 in train_step | loss.backward()\n"
                    "  reason=Unsupported Tensor.backward() call\n"
                    "  frame=/s/a.py:62 in train_step | loss.backward()\n"
                    "stats lines=6 messages=1 in_messages=5 unrecognized=0\n");
}

static const char *const const_float_want = "RECOMPILE 1-4\n"
                                            "  function=fn\n"
                                            "  where=/p/playground.py:3 in fn\n"
                                            "  guard=[0/1] L['c'] == 2.5\n"
                                            "  guard=[0/0] L['c'] == 1.5\n"
                                            "stats lines=4 messages=1 in_messages=4 "
                                            "unrecognized=0\n";

static void test_crlf_and_unterminated(void **state)
{
    (void)state;
    expect_messages("Recompiling function fn in /p/playground.py:3\r\n"
                    "    triggered by the following guard failure(s):\r\n"
                    "    - 0/1: L['c'] == 2.5\r\n"
                    "    - 0/0: L['c'] == 1.5\r\n",
                    const_float_want);
    expect_messages("Recompiling function fn in /p/playground.py:3\n"
                    "    triggered by the following guard failure(s):\n"
                    "    - 0/1: L['c'] == 2.5\n"
                    "    - 0/0: L['c'] == 1.5",
                    const_float_want);
}

static void test_recompile_variants(void **state)
{
    (void)state;
    /* recompiles_verbose: one block per cache entry; later failures of an entry carry no
     * compile id and get the block's */
    expect_messages("Recompiling function fn in x.py:3\n"
                    "    triggered by the following guard failure(s):\n"
                    "    guard 0 failures:\n"
                    "    - 0/1: tensor 'x' size mismatch at index 0. expected 4, actual 5\n"
                    "    - tensor 'y' size mismatch at index 0. expected 4, actual 5\n"
                    "\n"
                    "    guard 1 failures:\n"
                    "    - 0/0: tensor 'x' size mismatch at index 0. expected 3, actual 5\n",
                    "RECOMPILE 1-8\n"
                    "  function=fn\n"
                    "  where=x.py:3 in fn\n"
                    "  guard=[0/1] tensor 'x' size mismatch at index 0. expected 4, actual 5\n"
                    "  guard=[0/1] tensor 'y' size mismatch at index 0. expected 4, actual 5\n"
                    "  guard=[0/0] tensor 'x' size mismatch at index 0. expected 3, actual 5\n"
                    "stats lines=8 messages=1 in_messages=8 unrecognized=0\n");
    /* the one-line form, and compiled autograd ids */
    expect_messages(
        "Recompiling function forward in /m.py:95 triggered by the following guard failure: "
        "___check_obj_id(L['self'], 140)\n"
        "V0120 22:19:48.796000 1 a.py:1] [!0/2/1] [__recompiles] Recompiling function f in a.py:3\n"
        "V0120 22:19:48.796000 1 a.py:1] [!0/2/1] [__recompiles]     triggered by the following "
        "guard failure(s):\n"
        "V0120 22:19:48.796000 1 a.py:1] [!0/2/1] [__recompiles]     - !0/2/0: L['x'] == 1\n",
        "RECOMPILE 1-1\n"
        "  function=forward\n"
        "  where=/m.py:95 in forward\n"
        "  guard=___check_obj_id(L['self'], 140)\n"
        "RECOMPILE 2-4 [!0/2/1]\n"
        "  function=f\n"
        "  where=a.py:3 in f\n"
        "  guard=[!0/2/0] L['x'] == 1\n"
        "stats lines=4 messages=2 in_messages=4 unrecognized=0\n");
}

static void test_what_ends_a_message(void **state)
{
    (void)state;
    expect_messages("Recompiling function fn in x.py:3\n"
                    "    triggered by the following guard failure(s):\n"
                    "    - 0/0: L['c'] == 1.5\n"
                    "tensor([1., 2.])\n"                   /* the user's own output */
                    "Graph break in user code at x.py:9\n" /* ended by the next message: cut */
                    "Recompiling function fn in x.py:3\n"  /* ended by an elision: cut */
                    "...\n"
                    "TRACED GRAPH\n"
                    " ===== __compiled_fn_3 =====\n"
                    " <eval_with_key>.0 class GraphModule(torch.nn.Module):\n"
                    "    def forward(self, L_x_: \"f32[3]\"):\n"
                    "        l_x_ = L_x_\n"
                    "\n"
                    "        sin: \"f32[3]\" = torch.sin(l_x_);  l_x_ = None\n"
                    "        return (sin,)\n"
                    "\n"
                    "\n"
                    "Step 1: torchdynamo start tracing fn x.py:3\n",
                    "RECOMPILE 1-3\n"
                    "  function=fn\n"
                    "  where=x.py:3 in fn\n"
                    "  guard=[0/0] L['c'] == 1.5\n"
                    "GRAPH_BREAK 5-5 cut\n"
                    "  where=x.py:9\n"
                    "RECOMPILE 6-6 cut\n"
                    "  function=fn\n"
                    "  where=x.py:3 in fn\n"
                    "GRAPH 8-15\n"
                    "  graph=__compiled_fn_3 nodes=2\n"
                    "START 18-18\n"
                    "  function=fn\n"
                    "  where=x.py:3 in fn\n"
                    "stats lines=18 messages=5 in_messages=14 unrecognized=1\n");
    /* a line of another logging call of the same rank ends a prefixed message */
    expect_messages("V0120 22:19:48.783000 1 torch/_dynamo/guards.py:2800] [0/1] [__recompiles] "
                    "Recompiling function fwd in m.py:10\n"
                    "V0120 22:19:48.783000 1 torch/_dynamo/output_graph.py:1983] [0/1] "
                    "[__graph_code] TRACED GRAPH\n",
                    "RECOMPILE 1-1 [0/1] cut\n"
                    "  function=fwd\n"
                    "  where=m.py:10 in fwd\n"
                    "GRAPH 2-2 [0/1] cut\n"
                    "  graph= nodes=0\n"
                    "stats lines=2 messages=2 in_messages=2 unrecognized=0\n");
}

static void test_graph_break_variants(void **state)
{
    (void)state;
    /* 2.2-2.4: "(details suppressed)"; 2.1: "Graph break: R from user code at:" */
    expect_messages("Graph break (details suppressed) in user code at /a/b.py:12\n"
                    "Reason: Unsupported: call_function BuiltinVariable(print) "
                    "[ConstantVariable(str)] {}\n"
                    "Graph break: Tensor.item from user code at:\n"
                    "  File \"/a/b.py\", line 7, in fn\n"
                    "    return x + y.item()\n"
                    "       ~~~~~~^^\n",
                    "GRAPH_BREAK 1-2 suppressed\n"
                    "  where=/a/b.py:12\n"
                    "  reason=Unsupported: call_function BuiltinVariable(print) "
                    "[ConstantVariable(str)] {}\n"
                    "GRAPH_BREAK 3-6\n"
                    "  where=/a/b.py:7 in fn | return x + y.item()\n"
                    "  reason=Tensor.item\n"
                    "  frame=/a/b.py:7 in fn | return x + y.item()\n"
                    "stats lines=6 messages=2 in_messages=6 unrecognized=0\n");
    /* a header alone is cut; so is a new-style message that stops after its hints */
    expect_messages("Graph break in user code at /a/b.py:12\n"
                    "\n"
                    "Graph break in user code at /a/b.py:13\n"
                    "Graph Break Reason: Data-dependent branching\n"
                    "  Explanation: Detected data-dependent branching (e.g. `if my_tensor.sum() > "
                    "0:`).\n"
                    "  Hint: Use `torch.cond` to express dynamic control flow.\n",
                    "GRAPH_BREAK 1-1 cut\n"
                    "  where=/a/b.py:12\n"
                    "GRAPH_BREAK 3-6 cut\n"
                    "  where=/a/b.py:13\n"
                    "  reason=Data-dependent branching\n"
                    "  explanation=Detected data-dependent branching (e.g. `if my_tensor.sum() > "
                    "0:`).\n"
                    "  hint=Use `torch.cond` to express dynamic control flow.\n"
                    "stats lines=6 messages=2 in_messages=5 unrecognized=0\n");
}

#define WC "W0613 10:33:48.178000 139 torch/_dynamo/convert_frame.py:824] "

static const char *const fallback_want =
    "FALLBACK 1-12\n"
    "  function=forward\n"
    "  where=/home/u/model.py:95 in forward\n"
    "  reason=torch._dynamo.exc.Unsupported: call_function BuiltinVariable(open) [] {}\n"
    "  frame=/home/u/model.py:97 in forward | with open(\"x\") as f:\n"
    "stats lines=12 messages=1 in_messages=12 unrecognized=0\n";

static void test_fallback(void **state)
{
    (void)state;
    expect_messages(
        WC "WON'T CONVERT forward /home/u/model.py line 95 \n" WC "due to: \n" WC
           "Traceback (most recent call last):\n" WC
           "  File \"/usr/lib/torch/_dynamo/convert_frame.py\", line 786, in _convert_frame\n" WC
           "    result = inner_convert(frame, cache_entry, hooks, frame_state)\n" WC
           "torch._dynamo.exc.Unsupported: call_function BuiltinVariable(open) [] {}\n" WC "\n" WC
           "from user code:\n" WC "   File \"/home/u/model.py\", line 97, in forward\n" WC
           "    with open(\"x\") as f:\n" WC "\n" WC
           "Set TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information\n",
        fallback_want);
    expect_messages("WON'T CONVERT forward /home/u/model.py line 95 \n"
                    "due to: \n"
                    "Traceback (most recent call last):\n"
                    "  File \"/usr/lib/torch/_dynamo/convert_frame.py\", line 786, in "
                    "_convert_frame\n"
                    "    result = inner_convert(frame, cache_entry, hooks, frame_state)\n"
                    "torch._dynamo.exc.Unsupported: call_function BuiltinVariable(open) [] {}\n"
                    "\n"
                    "from user code:\n"
                    "   File \"/home/u/model.py\", line 97, in forward\n"
                    "    with open(\"x\") as f:\n"
                    "\n"
                    "Set TORCH_LOGS=\"+dynamo\" and TORCHDYNAMO_VERBOSE=1 for more information\n",
                    fallback_want);
    /* an error without a traceback: the line after "due to:" */
    expect_messages("WON'T CONVERT fn x.py line 3 \n"
                    "due to: \n"
                    "Cannot compile this frame\n"
                    "create_env\n",
                    "FALLBACK 1-3\n"
                    "  function=fn\n"
                    "  where=x.py:3 in fn\n"
                    "  reason=Cannot compile this frame\n"
                    "stats lines=4 messages=1 in_messages=3 unrecognized=1\n");
    expect_messages("WON'T CONVERT fn x.py line 3 \n"
                    "due to: \n"
                    "Traceback (most recent call last):\n",
                    "FALLBACK 1-3 cut\n"
                    "  function=fn\n"
                    "  where=x.py:3 in fn\n"
                    "stats lines=3 messages=1 in_messages=3 unrecognized=0\n");
}

/* A backend's error: BackendCompilerFailed says "raised:" and the next line is the error it
 * wraps; WON'T CONVERT has no compile id, so it gets the one of the compilation in progress. */
/* An exception that reached the program: a traceback without prefix, outside any message (a
 * script that died of fullgraph=True); with the user's frames its error names, and the compile id
 * of the last line that had one. Inside a prefix-less message it stays that message's. */
static void test_uncaught(void **state)
{
    (void)state;
    expect_messages("I1127 10:00:00.000000 1 torch/fx/experimental/symbolic_shapes.py:3192] "
                    "[0/0] create_env\n"
                    "Traceback (most recent call last):\n"
                    "  File \"/w/m.py\", line 11, in <module>\n"
                    "    scale(torch.ones(4))\n"
                    "torch._dynamo.exc.Unsupported: Failed to trace builtin operator\n"
                    "  Explanation: Dynamo does not know how to trace builtin operator `print`\n"
                    "\n"
                    "from user code:\n"
                    "   File \"/w/m.py\", line 7, in scale\n"
                    "    print(\"scaling\")\n"
                    "\n"
                    "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace\n",
                    "UNCAUGHT 2-10 [0/0]\n"
                    "  reason=torch._dynamo.exc.Unsupported: Failed to trace builtin operator\n"
                    "Explanation: Dynamo does not know how to trace builtin operator `print`\n"
                    "  frame=/w/m.py:7 in scale | print(\"scaling\")\n"
                    "stats lines=12 messages=1 in_messages=9 unrecognized=1\n");
    /* a failure whose logger prefixed its first line only: the rest is its error; the error a
     * wrapper announces is the next line whatever its name; the kernel its traceback names */
    expect_messages(WC "WON'T CONVERT f /w/m.py line 3 \n"
                       "due to: \n"
                       "Traceback (most recent call last):\n"
                       "  File \"/tmp/torchinductor_u/ab/cab.py\", line 40, in <module>\n"
                       "    mm0 = triton_tem_fused_mm_0 = async_compile.triton('x')\n"
                       "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
                       "OutOfResources: out of resource: shared memory\n",
                    "FALLBACK 1-7\n"
                    "  function=f\n"
                    "  where=/w/m.py:3 in f\n"
                    "  reason=torch._dynamo.exc.BackendCompilerFailed: backend='inductor' "
                    "raised:\nOutOfResources: out of resource: shared memory\n"
                    "  kernel=triton_tem_fused_mm_0\n"
                    "stats lines=7 messages=1 in_messages=7 unrecognized=0\n");
}

static void test_fallback_backend(void **state)
{
    (void)state;
    const char *tb =
        WC "due to: \n" WC "Traceback (most recent call last):\n" WC
           "  File \"/w/b.py\", line 8, in broken\n" WC "    raise RuntimeError(\"no\")\n" WC
           "torch._dynamo.exc.BackendCompilerFailed: backend='broken' raised:\n" WC
           "RuntimeError: no\n" WC "\n" WC "Set TORCH_LOGS=\"+dynamo\" and "
           "TORCHDYNAMO_VERBOSE=1 for more information\n";
    struct tl_buf in = TL_BUF_INIT;
    tl_buf_addf(&in,
                "I1125 17:25:53.221000 1 torch/fx/experimental/symbolic_shapes.py:3192] [0/0] "
                "create_env\n" WC "WON'T CONVERT f /w/b.py line 11 \n%s",
                tb);
    expect_messages(in.buf, "FALLBACK 2-10 [0/0]\n"
                            "  function=f\n"
                            "  where=/w/b.py:11 in f\n"
                            "  reason=torch._dynamo.exc.BackendCompilerFailed: backend='broken' "
                            "raised:\nRuntimeError: no\n"
                            "stats lines=10 messages=1 in_messages=9 unrecognized=0\n");
    /* [0/0] compiled (its guards were printed): the failure is of another compilation */
    tl_buf_reset(&in);
    tl_buf_addf(
        &in,
        "V1125 17:25:53.221000 1 torch/_dynamo/guards.py:2364] [0/0] [__guards] GUARDS:\n" WC
        "WON'T CONVERT f /w/b.py line 11 \n%s",
        tb);
    expect_messages(in.buf, "FALLBACK 2-10\n"
                            "  function=f\n"
                            "  where=/w/b.py:11 in f\n"
                            "  reason=torch._dynamo.exc.BackendCompilerFailed: backend='broken' "
                            "raised:\nRuntimeError: no\n"
                            "stats lines=10 messages=1 in_messages=9 unrecognized=0\n");
    tl_buf_release(&in);
}

#define GE "E1125 17:26:54.080000 17135 torch/_guards.py:295] [0/0] "

static void test_guard_error(void **state)
{
    (void)state;
    expect_messages(
        GE "Error while creating guard:\n" GE "Name: ''\n" GE "    Source: shape_env\n" GE
           "    Create Function: SHAPE_ENV\n" GE "Traceback (most recent call last):\n" GE
           "  File \"/t/torch/_guards.py\", line 293, in create\n" GE
           "    return self.create_fn(builder, self)\n" GE
           "torch.fx.experimental.symbolic_shapes.ConstraintViolationError: Constraints violated "
           "(L['x'].size()[0])! For more information, run with TORCH_LOGS=\"+dynamic\".\n" GE
           "  - Not all values of RelaxedUnspecConstraint(L['x'].size()[0]) are valid because "
           "L['x'].size()[0] was inferred to be a constant (5).\n"
           "E1125 17:26:54.085000 17135 torch/_guards.py:297] [0/0] Created at:\n",
        "GUARD_ERROR 1-9 [0/0]\n"
        "  reason=torch.fx.experimental.symbolic_shapes.ConstraintViolationError: Constraints "
        "violated (L['x'].size()[0])! For more information, run with TORCH_LOGS=\"+dynamic\".\n"
        "- Not all values of RelaxedUnspecConstraint(L['x'].size()[0]) are valid because "
        "L['x'].size()[0] was inferred to be a constant (5).\n"
        "stats lines=10 messages=1 in_messages=9 unrecognized=0\n");
    /* pasted without prefixes */
    expect_messages("Error while creating guard:\n"
                    "Name: ''\n"
                    "    Source: shape_env\n"
                    "Traceback (most recent call last):\n"
                    "  File \"/t/torch/_guards.py\", line 293, in create\n"
                    "    return self.create_fn(builder, self)\n"
                    "ConstraintViolationError: Constraints violated (L['x'].size()[0])!\n"
                    "some other output\n",
                    "GUARD_ERROR 1-7\n"
                    "  reason=ConstraintViolationError: Constraints violated (L['x'].size()[0])!\n"
                    "stats lines=8 messages=1 in_messages=7 unrecognized=1\n");
}

/* What PyTorch appends to a guard it prints: padding to 60 columns and "  # CODE  # F:N in FN". */
static void test_guard_comments(void **state)
{
    (void)state;
    expect_messages(
        "Recompiling function bump in /w/limit.py:9\n"
        "    triggered by the following guard failure(s):\n"
        "    - 0/1: L['k'] == 1                                                   # return x + k  "
        "# w/limit.py:11 in bump\n"
        "    - 0/0: L['s'] == 'a  # b'                                            # f(s)  "
        "# w/limit.py:11 in bump\n"
        "    - 0/0: tensor 'L['x']' size mismatch at index 0. expected 2, actual 3\n"
        "torch._dynamo hit config.cache_size_limit (2)\n"
        "   function: 'bump' (/w/limit.py:9)\n"
        "   last reason: 0/0: L['k'] == 0                                        # return x + k  "
        "# w/limit.py:11 in bump\n",
        "RECOMPILE 1-5\n"
        "  function=bump\n"
        "  where=/w/limit.py:9 in bump\n"
        "  guard=[0/1] L['k'] == 1\n"
        "  guard=[0/0] L['s'] == 'a  # b'\n"
        "  guard=[0/0] tensor 'L['x']' size mismatch at index 0. expected 2, actual 3\n"
        "LIMIT 6-8\n"
        "  function=bump\n"
        "  where=/w/limit.py:9 in bump\n"
        "  guard=[0/0] L['k'] == 0\n"
        "  limit=cache_size_limit 2\n"
        "stats lines=8 messages=2 in_messages=8 unrecognized=0\n");
}

#define WI "W1125 17:27:32.402000 17856 torch/_dynamo/variables/tensor.py:869] [0/0] "
#define VI                                                                                         \
    "V1125 17:27:32.402000 17856 torch/_dynamo/symbolic_convert.py:435] [0/0] [__graph_breaks] "

/* The warning block of .item() is one message, marked warning; the record follows. */
static void test_item_warning(void **state)
{
    (void)state;
    static const char *const want = "GRAPH_BREAK 1-9 [0/0] warning\n"
                                    "  where=/w/item.py:8 in loss_scale | s = x.sum().item()\n"
                                    "  reason=Graph break from `Tensor.item()`\n"
                                    "  frame=/w/item.py:8 in loss_scale | s = x.sum().item()\n"
                                    "GRAPH_BREAK 11-15 [0/0]\n"
                                    "  where=/w/item.py:8 in loss_scale | s = x.sum().item()\n"
                                    "  reason=Unsupported: Tensor.item\n"
                                    "  frame=/w/item.py:8 in loss_scale | s = x.sum().item()\n";
    struct tl_buf w = TL_BUF_INIT;
    tl_buf_addf(&w, "%sstats lines=15 messages=2 in_messages=14 unrecognized=0\n", want);
    expect_messages(
        WI "Graph break from `Tensor.item()`, consider setting:\n" WI
           "    torch._dynamo.config.capture_scalar_outputs = True\n" WI "or:\n" WI
           "    env TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1\n" WI
           "to include these operations in the captured graph.\n" WI "\n" WI
           "Graph break: from user code at:\n" WI
           "  File \"/w/item.py\", line 8, in loss_scale\n" WI "    s = x.sum().item()\n" WI "\n" VI
           "Graph break in user code at /w/item.py:8\n" VI "Reason: Unsupported: Tensor.item\n" VI
           "User code traceback:\n" VI "  File \"/w/item.py\", line 8, in loss_scale\n" VI
           "    s = x.sum().item()\n",
        w.buf);
    /* the same pasted without prefixes */
    tl_buf_reset(&w);
    tl_buf_adds(&w, "GRAPH_BREAK 1-9 warning\n"
                    "  where=/w/item.py:8 in loss_scale | s = x.sum().item()\n"
                    "  reason=Graph break from `Tensor.item()`\n"
                    "  frame=/w/item.py:8 in loss_scale | s = x.sum().item()\n"
                    "stats lines=11 messages=1 in_messages=9 unrecognized=1\n");
    expect_messages("Graph break from `Tensor.item()`, consider setting:\n"
                    "    torch._dynamo.config.capture_scalar_outputs = True\n"
                    "or:\n"
                    "    env TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1\n"
                    "to include these operations in the captured graph.\n"
                    "\n"
                    "Graph break: from user code at:\n"
                    "  File \"/w/item.py\", line 8, in loss_scale\n"
                    "    s = x.sum().item()\n"
                    "\n"
                    "tensor([4.])\n",
                    w.buf);
    tl_buf_release(&w);
}

/* Damaged and old shapes: a glog prefix cut to level and path; a line wrapped by a terminal
 * (the longest line so far, a path or a number after it, or any text once the width was seen
 * twice); a 2023 bracket prefix glued after a progress bar with a message printed as a tuple. */
static void test_damaged_shapes(void **state)
{
    (void)state;
    expect_messages("W convert_frame.py:1676] [0/8] torch._dynamo hit config.recompile_limit (8)\n"
                    "W convert_frame.py:1676] [0/8]    function: 'f' (/w/a.py:5)\n",
                    "LIMIT 1-2 [0/8] cut\n"
                    "  function=f\n"
                    "  where=/w/a.py:5 in f\n"
                    "  limit=recompile_limit 8\n"
                    "stats lines=2 messages=1 in_messages=2 unrecognized=0\n");
    /* 110 columns: the first wrap is a word, the second is text */
    expect_messages(
        "V0402 08:00:01.000000 31 torch/_dynamo/guards.py:2791] [1/1] [__recompiles] "
        "Recompiling function f in /w/abc.p\n"
        "y:3\n"
        "V0402 08:00:01.000000 31 torch/_dynamo/guards.py:2791] [1/1] [__recompiles]     "
        "- 1/0: tensor 'L['x']' size mi\n"
        "smatch at index 0. expected 4, actual 5\n"
        "PASSED\n",
        "RECOMPILE 1-3 [1/1]\n"
        "  function=f\n"
        "  where=/w/abc.py:3 in f\n"
        "  guard=[1/0] tensor 'L['x']' size mismatch at index 0. expected 4, actual 5\n"
        "stats lines=5 messages=1 in_messages=2 unrecognized=1\n");
    /* a long line, then other output with spaces: not a wrap (its width was not seen twice) */
    expect_messages("V0402 08:00:01.000000 31 torch/_dynamo/guards.py:2791] [1/1] [__recompiles] "
                    "Recompiling function f in /w/a.py:3\n"
                    "PASSED tests/t.py::test_a\n",
                    "RECOMPILE 1-1 [1/1] cut\n"
                    "  function=f\n"
                    "  where=/w/a.py:3 in f\n"
                    "stats lines=2 messages=1 in_messages=1 unrecognized=1\n");
    expect_messages("  4/10 [00:01<00:02,  2.91it/s][2023-04-13 21:42:54,179] "
                    "torch._dynamo.convert_frame.__recompiles: [DEBUG] ('Recompiling function step "
                    "in /x/y.py', \"triggered by the following guard failure: L['t'] == 0\")\n",
                    "RECOMPILE 1-1\n"
                    "  function=step\n"
                    "  where=/x/y.py:0 in step\n"
                    "  guard=L['t'] == 0\n"
                    "stats lines=1 messages=1 in_messages=1 unrecognized=0\n");
}

static void test_limit_variants(void **state)
{
    (void)state;
    expect_messages("torch._dynamo hit config.accumulated_recompile_limit (256)\n"
                    "   function: \xe2\x80\x98"
                    "forward\xe2\x80\x99 (C:\\m\\model.py:12)\n"
                    "   last reason: 0/255: ___check_obj_id(L['self'], 1407)\n"
                    "To log all recompilation reasons, use TORCH_LOGS=\"recompiles\".\n"
                    "To diagnose recompilation issues, see "
                    "https://pytorch.org/docs/main/torch.compiler_troubleshooting.html.\n"
                    "torch._dynamo hit config.cache_size_limit (8)\n"
                    "   function: 'f' (a.py:1)\n",
                    "LIMIT 1-5\n"
                    "  function=forward\n"
                    "  where=C:\\m\\model.py:12 in forward\n"
                    "  guard=[0/255] ___check_obj_id(L['self'], 1407)\n"
                    "  limit=accumulated_recompile_limit 256\n"
                    "LIMIT 6-7 cut\n"
                    "  function=f\n"
                    "  where=a.py:1 in f\n"
                    "  limit=cache_size_limit 8\n"
                    "stats lines=7 messages=2 in_messages=7 unrecognized=0\n");
}

static void test_symbols_and_guards(void **state)
{
    (void)state;
    expect_messages("create_symbol s0 = 8 for L['x'].size()[0] [2, 16]\n"
                    "create_symbol s3 = 2 for L['my key'].size()[0] [2, int_oo] at a.py:5 in fn "
                    "(_dynamo/variables/builder.py:1 in <lambda>)\n"
                    "create_symbol s77 duck sized L['x'].size()[1]\n"
                    "eval Ne(s0, 1) [guard added] at a.py:9 in fn (x.py:1 in y)\n"
                    "eval Eq(3, s5) [guard added] (_meta_registrations.py:1891 in meta_mm)\n"
                    "eval False == False [statically known]\n"
                    "Restarting analysis due to _dynamo/symbolic_convert.py:223 in "
                    "fail_and_restart_analysis\n",
                    "CREATE_SYMBOL 1-1\n"
                    "  symbol=s0\n"
                    "  value=8\n"
                    "  source=L['x'].size()[0]\n"
                    "  range=[2, 16]\n"
                    "CREATE_SYMBOL 2-2\n"
                    "  where=a.py:5 in fn\n"
                    "  symbol=s3\n"
                    "  value=2\n"
                    "  source=L['my key'].size()[0]\n"
                    "  range=[2, int_oo]\n"
                    "DUCK_SIZED 3-3\n"
                    "  symbol=s77\n"
                    "  source=L['x'].size()[1]\n"
                    "GUARD_ADDED 4-4\n"
                    "  where=a.py:9 in fn\n"
                    "  expr=Ne(s0, 1)\n"
                    "GUARD_ADDED 5-5\n"
                    "  symbol=s5\n"
                    "  value=3\n"
                    "  expr=Eq(3, s5)\n"
                    "RESTART 7-7\n"
                    "  reason=_dynamo/symbolic_convert.py:223 in fail_and_restart_analysis\n"
                    "stats lines=7 messages=6 in_messages=6 unrecognized=1\n");
}

static void test_graphs(void **state)
{
    (void)state;
    expect_messages("TRACED GRAPH\n"
                    " ===== Forward graph 0 =====\n"
                    " <eval_with_key>.1 class GraphModule(torch.nn.Module):\n"
                    "    def forward(self, primals_1: \"f32[3]\"):\n"
                    "        # File: a.py:3 in fn, code: return x.sin()\n"
                    "        sin: \"f32[3]\" = torch.ops.aten.sin.default(primals_1)\n"
                    "        return (sin, primals_1)\n"
                    "Step 2: calling compiler function inductor\n",
                    "GRAPH 1-7\n"
                    "  graph=Forward graph 0 nodes=1\n"
                    "stats lines=8 messages=1 in_messages=7 unrecognized=1\n");
}

/* ---- a pause (tl_tlog_settle) ------------------------------------------------------------ */

/* Lines [from, to) of text (numbered 1.. as in the whole text), fed as feed_text feeds them. */
static void feed_range(struct tl_tlog *p, const char *text, size_t n, uint64_t from, uint64_t to)
{
    size_t i = 0;
    for (uint64_t no = 0; i < n && no < to; no++) {
        const char *nl = memchr(text + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - text) : n;
        if (no >= from) {
            char *copy = malloc(e - i ? e - i : 1);
            assert_non_null(copy);
            memcpy(copy, text + i, e - i);
            tl_tlog_feed(p, no + 1, tl_str_make(copy, e - i));
            free(copy);
        }
        i = e + 1;
    }
}

static void add_stats(struct tl_buf *b, const struct tl_tlog *p)
{
    const struct tl_tlog_stats *st = tl_tlog_stats(p);
    tl_buf_addf(b, "stats lines=%llu messages=%llu in_messages=%llu unrecognized=%llu\n",
                (unsigned long long)st->lines, (unsigned long long)st->messages,
                (unsigned long long)st->in_messages, (unsigned long long)st->unrecognized);
}

/*
 * text paused after each of its lines (settled twice, as a watch settles again while the log
 * stays quiet): wherever the parser says nothing diverged, the messages and counts are those
 * of the text read at once, each message once. *kept: the pauses that did not diverge; the
 * messages said at the pause are in *said_at_pause for the last such pause.
 */
static size_t pauses_kept(const char *text, size_t n, const char *name)
{
    uint64_t lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += text[i] == '\n';
    if (n && text[n - 1] != '\n')
        lines++;
    struct tl_buf want = TL_BUF_INIT;
    struct tl_tlog *p = tl_tlog_new(on_msg, &want);
    feed_range(p, text, n, 0, lines);
    tl_tlog_end(p);
    add_stats(&want, p);
    tl_tlog_free(p);
    size_t kept = 0;
    for (uint64_t k = 1; k < lines; k++) {
        struct tl_buf got = TL_BUF_INIT;
        p = tl_tlog_new(on_msg, &got);
        feed_range(p, text, n, 0, k);
        tl_tlog_settle(p);
        tl_tlog_settle(p);
        feed_range(p, text, n, k, lines);
        tl_tlog_end(p);
        add_stats(&got, p);
        if (!tl_tlog_diverged(p)) {
            char what[300];
            snprintf(what, sizeof(what), "%s paused after line %llu", name, (unsigned long long)k);
            expect_text(got.buf, want.buf, what);
            kept++;
        }
        tl_tlog_free(p);
        tl_buf_release(&got);
    }
    tl_buf_release(&want);
    return kept;
}

/* A pause says the open message as it is; the next line decides: a new message keeps what
 * was said, a line of the message (or a terminal's wrap of a held line) diverges. */
static void test_settle(void **state)
{
    (void)state;
    static const char text[] =
        "V1121 09:00:00.000000 7 torch/_dynamo/guards.py:2] [0/1] [__recompiles] Recompiling "
        "function fn in x.py:3\n"
        "V1121 09:00:00.000000 7 torch/_dynamo/guards.py:2] [0/1] [__recompiles]     triggered by "
        "the following guard failure(s):\n"
        "V1121 09:00:00.000000 7 torch/_dynamo/guards.py:2] [0/1] [__recompiles]     - 0/0: tensor "
        "'x' size mismatch at index 0. expected 4, actual 8\n"
        "V1121 09:00:01.000000 7 torch/_dynamo/guards.py:2] [1/1] [__recompiles] Recompiling "
        "function g in y.py:9\n"
        "V1121 09:00:01.000000 7 torch/_dynamo/guards.py:2] [1/1] [__recompiles]     triggered by "
        "the following guard failure(s):\n"
        "V1121 09:00:01.000000 7 torch/_dynamo/guards.py:2] [1/1] [__recompiles]     - 1/0: L['n'] "
        "== 3\n";
    size_t n = strlen(text);
    struct tl_buf b = TL_BUF_INIT;
    /* after line 3: the first recompile is said at the pause, complete; line 4 starts the next */
    struct tl_tlog *p = tl_tlog_new(on_msg, &b);
    feed_range(p, text, n, 0, 3);
    assert_true(tl_tlog_settle(p));
    assert_non_null(strstr(b.buf, "RECOMPILE 1-3"));
    size_t said = b.len;
    assert_false(tl_tlog_settle(p)); /* nothing more to say */
    assert_int_equal(b.len, said);
    feed_range(p, text, n, 3, 6);
    assert_int_equal(b.len, said); /* line 4 closed it: not said again */
    assert_false(tl_tlog_diverged(p));
    tl_tlog_end(p);
    assert_int_equal(tl_tlog_stats(p)->messages, 2);
    tl_tlog_free(p);
    tl_buf_reset(&b);
    /* after line 2: its guard came after the pause (a line of the longest length so far is
     * held for the next: the end feeds it) */
    p = tl_tlog_new(on_msg, &b);
    feed_range(p, text, n, 0, 2);
    assert_true(tl_tlog_settle(p));
    feed_range(p, text, n, 2, 3);
    tl_tlog_end(p);
    assert_true(tl_tlog_diverged(p));
    tl_tlog_free(p);
    tl_buf_release(&b);
    /* of the five pauses, the one between the messages is kept; the four inside diverge */
    assert_int_equal(pauses_kept(text, n, "crafted"), 1);
}

/* Every TORCH_LOGS text of the fixtures and the corpus, paused after each line: what is said
 * where nothing diverged is the text's messages read at once. */
static void test_settle_texts(void **state)
{
    (void)state;
    static const char *const dirs[] = {TL_SOURCE_DIR "/tests/fixtures/torch_logs",
                                       TL_SHARED_DIR "/corpus/torch_logs"};
    size_t texts = 0, kept = 0;
    for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
        DIR *dir = opendir(dirs[d]);
        if (!dir) {
            assert_true(d > 0); /* our fixtures are always there; the corpus may not be */
            continue;
        }
        for (struct dirent *e; (e = readdir(dir));) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".txt"))
                continue;
            size_t n;
            char *text = tu_slurp_in(dirs[d], e->d_name, &n);
            assert_non_null(text);
            kept += pauses_kept(text, n, e->d_name);
            texts++;
            free(text);
        }
        closedir(dir);
    }
    assert_true(texts >= 6);
    assert_true(kept > 0);
    printf("test_settle_texts: %zu texts, %zu pauses that kept what they said\n", texts, kept);
}

/* The parser may be fed again after tl_tlog_end; the views of a message stay readable during
 * emit even when the lines it came from are gone (feed_text frees each line after feeding it,
 * and ASan would see a read of them). */
static void test_end_then_more(void **state)
{
    (void)state;
    struct tl_buf b = TL_BUF_INIT;
    struct tl_tlog *p = tl_tlog_new(on_msg, &b);
    static const char one[] = "Recompiling function fn in x.py:3\n"
                              "    triggered by the following guard failure(s):\n";
    feed_text(p, one, strlen(one));
    feed_text(p, one, strlen(one));
    tl_tlog_end(p);
    expect_text(b.buf,
                "RECOMPILE 1-2 cut\n  function=fn\n  where=x.py:3 in fn\n"
                "RECOMPILE 1-2 cut\n  function=fn\n  where=x.py:3 in fn\n",
                "fed twice");
    assert_int_equal(tl_tlog_stats(p)->messages, 2);
    tl_tlog_free(p);
    tl_tlog_free(NULL);
    tl_buf_release(&b);
}

/* ---- every log of ../shared/corpus/torch_logs ------------------------------------------- */

/*
 * What a careful reader of each log expects, in the dump form above. Notes:
 * - blog_guards...: "Recompiling function f in ..." has its place elided: file unknown; the
 *   GUARDS lines are not messages (no kind for them) but carry a prefix, so are not counted
 *   unrecognized; nor are the "..." lines.
 * - cache_size_limit...: format (a) has no last reason; (b) a reason without compile id; the
 *   three "# (x)" comment lines are unrecognized.
 * - discuss_2024...: the curly quotes of the forum paste are kept as logged.
 * - export_tutorial...: Eq(s1, s2) pins no symbol to a value: only its expression.
 * - notebook_plus_dynamo...: the reason is the graph break's own ("Call to ..."), the stack
 *   was suppressed, the message ends at its debug context (the blank line after it is not
 *   part of it); TRACE lines are unrecognized.
 * - pytorch_test_error_messages...: "Failed to handle graph break gracefully. Skipping the
 *   function and falling back to eager. Graph break encountered:" gives fallback and the
 *   reason of the graph break it wraps; the nested one's explanation and hints are counted
 *   apart; the file stops in the middle of a hint: cut. "test_error_messages.py:N" is a
 *   file with an unknown line.
 * - yaoshiang...: the file starts in the middle of a graph (no message: its header is not
 *   there) and stops in the middle of the backward graph (cut); [1/0_1] keeps its attempt.
 */
struct corpus_case {
    const char *name;
    const char *want;
};

static const struct corpus_case corpus_cases[] = {
    {"blog_guards_recompiles_elided_prefix.txt",
     "RECOMPILE 6-8 [0/1]\n"
     "  function=f\n"
     "  where=?:0 in f\n"
     "  guard=[0/0] tensor 'a' size mismatch at index 0. expected 2, actual 8\n"
     "RECOMPILE 15-18 [0/2]\n"
     "  function=f\n"
     "  where=?:0 in f\n"
     "  guard=[0/1] tensor 'a' dtype mismatch. expected Float, actual Double\n"
     "  guard=[0/0] tensor 'a' dtype mismatch. expected Float, actual Double\n"
     "stats lines=18 messages=2 in_messages=7 unrecognized=0\n"},
    {"cache_size_limit_warning_three_formats.txt",
     "LIMIT 2-4\n"
     "  function=transform\n"
     "  where=perf_interp_bilinear_aa.py:5 in transform\n"
     "  limit=cache_size_limit 8\n"
     "LIMIT 6-10 [0/8]\n"
     "  function=forward\n"
     "  "
     "where=/usr/local/lib/python3.8/dist-packages/transformers/models/llama/"
     "modeling_llama.py:1126 in forward\n"
     "  guard=tensor 'L['input_ids']' stride mismatch at index 0. expected 19, actual 27\n"
     "  limit=cache_size_limit 8\n"
     "LIMIT 12-16 [23/8]\n"
     "  function=forward\n"
     "  where=/home/ryanguo99/pt/bark/bark/model_fine.py:107 in forward\n"
     "  guard=[23/0] L['pred_idx'] == 2\n"
     "  limit=cache_size_limit 8\n"
     "stats lines=16 messages=3 in_messages=13 unrecognized=3\n"},
    {"discuss_2024_recompiles_old_bracket_format_truncated.txt",
     "RECOMPILE 1-3\n"
     "  function=predict\n"
     "  where=/home/eborzone/Documentos/GraphEmbedderBoost/model.py:281 in predict\n"
     "  guard=tensor ‘L[‘x’]’ size mismatch at index 0. expected 200, actual 37\n"
     "RECOMPILE 4-6\n"
     "  function=forward\n"
     "  where=/home/eborzone/Documentos/GraphEmbedderBoost/model.py:95 in forward\n"
     "  guard=tensor ‘L[‘x’]’ size mismatch at index 0. expected 200, actual 37\n"
     "RECOMPILE 7-9\n"
     "  function=add_self_loops\n"
     "  "
     "where=/home/eborzone/anaconda3/envs/graph_env/lib/python3.11/site-packages/torch_geometric/"
     "utils/loop.py:382 in add_self_loops\n"
     "  guard=L[‘num_nodes’] == 200 # elif is\n"
     "stats lines=9 messages=3 in_messages=9 unrecognized=0\n"},
    {"export_tutorial_2023_dynamic_old_bracket_format.txt",
     "START 1-1 [12/0]\n"
     "  function=dynamic_shapes_example3\n"
     "  where=torch_export_nightly_tutorial.py:374 in dynamic_shapes_example3\n"
     "CREATE_SYMBOL 3-3 [12/0]\n"
     "  symbol=s0\n"
     "  value=8\n"
     "  source=L['x'].size()[0]\n"
     "  range=[2, 16]\n"
     "CREATE_SYMBOL 4-4 [12/0]\n"
     "  symbol=s1\n"
     "  value=16\n"
     "  source=L['x'].size()[1]\n"
     "  range=[2, 9223372036854775806]\n"
     "CREATE_SYMBOL 5-5 [12/0]\n"
     "  symbol=s2\n"
     "  value=16\n"
     "  source=L['y'].size()[0]\n"
     "  range=[2, 9223372036854775806]\n"
     "CREATE_SYMBOL 6-6 [12/0]\n"
     "  symbol=s3\n"
     "  value=32\n"
     "  source=L['y'].size()[1]\n"
     "  range=[17, 9223372036854775806]\n"
     "GUARD_ADDED 7-7 [12/0]\n"
     "  where=torch_export_nightly_tutorial.py:376 in dynamic_shapes_example3\n"
     "  expr=Eq(s1, s2)\n"
     "stats lines=9 messages=6 in_messages=6 unrecognized=0\n"},
    {"issue164119_guards_python_shape_guard_fn_truncated.txt",
     "stats lines=7 messages=0 in_messages=0 unrecognized=0\n"},
    {"notebook_dynamic_no_prefix_duck_sizing_track_symint.txt",
     "CREATE_SYMBOL 2-2\n"
     "  where=mp/ipykernel_231194/1458103805.py:3 in fn | return x + 1\n"
     "  symbol=s77\n"
     "  value=3\n"
     "  source=L['x'].size()[0]\n"
     "  range=[2, int_oo]\n"
     "DUCK_SIZED 3-3\n"
     "  symbol=s77\n"
     "  source=L['x'].size()[1]\n"
     "stats lines=13 messages=2 in_messages=2 unrecognized=11\n"},
    {"notebook_plus_dynamo_trace_graph_break_suppressed_restart_excerpt.txt",
     "GRAPH_BREAK 18-23 suppressed\n"
     "  where=/tmp/ipykernel_231646/617960493.py:7\n"
     "  reason=Call to `torch._dynamo.graph_break()`\n"
     "  explanation=User-inserted graph break. Message: None\n"
     "  hint=Remove the `torch._dynamo.graph_break()` call.\n"
     "RESTART 25-25\n"
     "  reason=_dynamo/symbolic_convert.py:223 in fail_and_restart_analysis\n"
     "START 26-26\n"
     "  function=inner\n"
     "  where=/tmp/ipykernel_231646/617960493.py:3 in inner\n"
     "stats lines=36 messages=3 in_messages=8 unrecognized=27\n"},
    {"output_code_tail_path_only_prefix.txt",
     "stats lines=11 messages=0 in_messages=0 unrecognized=0\n"},
    {"ptdocs_dynamic_shapes_debugging_s77_guard_added.txt",
     "CREATE_SYMBOL 3-3 [0/0]\n"
     "  where=tl.py:5 in fn | return x * y\n"
     "  symbol=s77\n"
     "  value=5\n"
     "  source=L['x'].size()[0]\n"
     "  range=[2, int_oo]\n"
     "GUARD_ADDED 4-4 [0/0]\n"
     "  where=tl.py:5 in fn | return x * y\n"
     "  symbol=s77\n"
     "  value=5\n"
     "  expr=Eq(s77, 5)\n"
     "stats lines=4 messages=2 in_messages=2 unrecognized=1\n"},
    {"ptdocs_troubleshooting_dynamic_create_symbol.txt",
     "CREATE_SYMBOL 2-2\n"
     "  where=playground.py:5 in fn\n"
     "  symbol=s0\n"
     "  value=3\n"
     "  source=L['x'].size()[0]\n"
     "  range=[2, int_oo]\n"
     "stats lines=4 messages=1 in_messages=1 unrecognized=3\n"},
    {"ptdocs_troubleshooting_graph_break_typeerror.txt",
     "GRAPH_BREAK 2-6\n"
     "  where=/data/users/williamwen/pytorch/playground.py:5 in fn | y = torch.sin(x, x)\n"
     "  reason=Unsupported: TypeError <built-in method sin of type object at 0x7fd6fd764600>: "
     "sin() takes 1 positional argument but 2 were given\n"
     "  frame=/data/users/williamwen/pytorch/playground.py:5 in fn | y = torch.sin(x, x)\n"
     "stats lines=7 messages=1 in_messages=5 unrecognized=1\n"},
    {"ptdocs_troubleshooting_graph_breaks_data_dependent.txt",
     "GRAPH_BREAK 2-6\n"
     "  where=/data/users/williamwen/pytorch/playground.py:6 in fn | if y > 0:\n"
     "  reason=Data-dependent jump\n"
     "  frame=/data/users/williamwen/pytorch/playground.py:6 in fn | if y > 0:\n"
     "GRAPH_BREAK 8-34\n"
     "  where=/data/users/williamwen/pytorch/playground.py:7 in torch_dynamo_resume_in_fn_at_6 | "
     "return x + y.item()\n"
     "  reason=Unsupported: Tensor.item\n"
     "  frame=/data/users/williamwen/pytorch/playground.py:7 in torch_dynamo_resume_in_fn_at_6 | "
     "return x + y.item()\n"
     "stats lines=34 messages=2 in_messages=32 unrecognized=1\n"},
    {"ptdocs_troubleshooting_graph_breaks_open.txt",
     "GRAPH_BREAK 2-26\n"
     "  where=/data/users/williamwen/pytorch/playground.py:7 in fn | with open(\"test.txt\", "
     "\"r\") as f:\n"
     "  reason=Unsupported: builtin: open [<class "
     "'torch._dynamo.variables.constant.ConstantVariable'>, <class "
     "'torch._dynamo.variables.constant.ConstantVariable'>] False\n"
     "  frame=/data/users/williamwen/pytorch/playground.py:7 in fn | with open(\"test.txt\", "
     "\"r\") as f:\n"
     "stats lines=26 messages=1 in_messages=25 unrecognized=1\n"},
    {"ptdocs_troubleshooting_guards_tree.txt",
     "stats lines=11 messages=0 in_messages=0 unrecognized=10\n"},
    {"ptdocs_troubleshooting_recompile_limit.txt",
     "LIMIT 2-4\n"
     "  function=fn\n"
     "  where=/data/users/williamwen/pytorch/playground.py:5 in fn\n"
     "  guard=[0/0] tensor 'L['x']' size mismatch at index 0. expected 1, actual 9\n"
     "  limit=recompile_limit 8\n"
     "stats lines=4 messages=1 in_messages=3 unrecognized=1\n"},
    {"ptdocs_troubleshooting_recompiles_const_float.txt",
     "RECOMPILE 2-11\n"
     "  function=fn\n"
     "  where=/data/users/williamwen/pytorch/playground.py:3 in fn\n"
     "  guard=[0/7] L['c'] == 8.5\n"
     "  guard=[0/6] L['c'] == 7.5\n"
     "  guard=[0/5] L['c'] == 6.5\n"
     "  guard=[0/4] L['c'] == 5.5\n"
     "  guard=[0/3] L['c'] == 4.5\n"
     "  guard=[0/2] L['c'] == 3.5\n"
     "  guard=[0/1] L['c'] == 2.5\n"
     "  guard=[0/0] L['c'] == 1.5\n"
     "LIMIT 12-14\n"
     "  function=fn\n"
     "  where=/data/users/williamwen/pytorch/playground.py:3 in fn\n"
     "  guard=[0/0] L['c'] == 1.5\n"
     "  limit=recompile_limit 8\n"
     "stats lines=14 messages=2 in_messages=13 unrecognized=1\n"},
    {"ptdocs_troubleshooting_recompiles_lr_scheduler.txt",
     "RECOMPILE 2-11\n"
     "  function=step\n"
     "  where=/data/users/williamwen/pytorch/torch/optim/adam.py:189 in step\n"
     "  guard=[3/7] L['self'].param_groups[0]['lr'] == 0.004782969000000002\n"
     "  guard=[3/6] L['self'].param_groups[0]['lr'] == 0.005314410000000002\n"
     "  guard=[3/5] L['self'].param_groups[0]['lr'] == 0.005904900000000002\n"
     "  guard=[3/4] L['self'].param_groups[0]['lr'] == 0.006561000000000002\n"
     "  guard=[3/3] L['self'].param_groups[0]['lr'] == 0.007290000000000001\n"
     "  guard=[3/2] L['self'].param_groups[0]['lr'] == 0.008100000000000001\n"
     "  guard=[3/1] L['self'].param_groups[0]['lr'] == 0.009000000000000001\n"
     "  guard=[3/0] L['self'].param_groups[0]['lr'] == 0.01\n"
     "LIMIT 12-14\n"
     "  function=step\n"
     "  where=/data/users/williamwen/pytorch/torch/optim/adam.py:189 in step\n"
     "  guard=[3/0] L['self'].param_groups[0]['lr'] == 0.01\n"
     "  limit=recompile_limit 8\n"
     "stats lines=14 messages=2 in_messages=13 unrecognized=1\n"},
    {"ptdocs_troubleshooting_recompiles_size.txt",
     "RECOMPILE 2-4\n"
     "  function=fn\n"
     "  where=/data/users/williamwen/pytorch/playground.py:3 in fn\n"
     "  guard=[0/0] tensor 'L['x']' size mismatch at index 0. expected 3, actual 4\n"
     "stats lines=4 messages=1 in_messages=3 unrecognized=1\n"},
    {"ptdocs_troubleshooting_trace_bytecode_graph_code.txt",
     "GRAPH 32-43\n"
     "  graph=__compiled_fn_1 nodes=3\n"
     "stats lines=43 messages=1 in_messages=12 unrecognized=31\n"},
    {"pytorch_test_error_messages_nested_graph_break_expected.txt",
     "GRAPH_BREAK 1-17 cut nested fallback suppressed\n"
     "  where=test_error_messages.py:0\n"
     "  reason=Call to `torch._dynamo.graph_break()`\n"
     "  reason2=Graph break under GenericContextWrappingVariable\n"
     "  explanation=User-inserted graph break. Message: None\n"
     "  explanation2=Attempted to graph break in an active context manager(s) that doesn't support "
     "graph breaking.\n"
     "  hint=Remove the `torch._dynamo.graph_break()` call.\n"
     "  hint2=Move the offending context manager(s) to outside the compiled region.\n"
     "  hint2=This graph b\n"
     "  url=https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0025.html\n"
     "stats lines=17 messages=1 in_messages=17 unrecognized=0\n"},
    {"yaoshiang_sandbox_graph_break_backward_graph_code_aot_graphs_excerpt.txt",
     "GRAPH_BREAK 12-26 [1/0]\n"
     "  "
     "where=/home/yho_google_com/Documents/GitHub/sandbox/scripts/example_compile_lowerings.py:62 "
     "in train_step | loss.backward()\n"
     "  reason=Unsupported Tensor.backward() call\n"
     "  explanation=Dynamo currently does not support tracing `Tensor.backward()`.\n"
     "  hint=This graph break is fundamental - it is unlikely that Dynamo will ever be able to "
     "trace through your code. Consider finding a workaround.\n"
     "  url=https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0123.html\n"
     "  "
     "frame=/home/yho_google_com/Documents/GitHub/sandbox/scripts/example_compile_lowerings.py:87 "
     "in <module> | sys.exit(main())\n"
     "  "
     "frame=/home/yho_google_com/Documents/GitHub/sandbox/scripts/example_compile_lowerings.py:68 "
     "in main | _ = train_step(model, data, optimizer)\n"
     "  "
     "frame=/home/yho_google_com/Documents/GitHub/sandbox/scripts/example_compile_lowerings.py:62 "
     "in train_step | loss.backward()\n"
     "GRAPH 28-42 [1/0_1]\n"
     "  graph=__compiled_fn_4_f6192802_158d_42a8_882f_57ab74cc6de5 nodes=6\n"
     "GRAPH 45-55 [1/0_1]\n"
     "  graph=Forward graph 1 nodes=3\n"
     "GRAPH 58-66 [1/0_1] cut\n"
     "  graph=Backward graph 1 nodes=2\n"
     "stats lines=66 messages=4 in_messages=50 unrecognized=1\n"},
};

static bool have_shared(void)
{
    FILE *f =
        fopen(TL_SHARED_DIR "/corpus/torch_logs/ptdocs_troubleshooting_recompiles_size.txt", "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

static void test_corpus_log(void **state)
{
    const struct corpus_case *c = *state;
    if (!have_shared())
        return; /* said once by main() */
    char path[512];
    snprintf(path, sizeof(path), "%s/corpus/torch_logs/%s", TL_SHARED_DIR, c->name);
    size_t n;
    char *text = tu_slurp(path, &n);
    if (!text) {
        print_error("cannot read %s\n", path);
        fail();
    }
    char *got = messages_of(text, n);
    expect_text(got, c->want, c->name);
    if (!tl_tlog_detect(text, n)) {
        print_error("%s: tl_tlog_detect is false\n", c->name);
        fail();
    }
    free(got);
    free(text);
}

/* Every file of the corpus has a case, so that a new one cannot be forgotten. */
static void test_corpus_complete(void **state)
{
    (void)state;
    if (!have_shared())
        return;
    DIR *d = opendir(TL_SHARED_DIR "/corpus/torch_logs");
    assert_non_null(d);
    struct dirent *e;
    size_t files = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        files++;
        bool found = false;
        for (size_t i = 0; i < sizeof(corpus_cases) / sizeof(corpus_cases[0]); i++)
            found |= strcmp(corpus_cases[i].name, e->d_name) == 0;
        if (!found) {
            print_error("corpus/torch_logs/%s has no case in test_torchlogs.c\n", e->d_name);
            fail();
        }
    }
    closedir(d);
    assert_int_equal(files, sizeof(corpus_cases) / sizeof(corpus_cases[0]));
}

/* ---- tl_tlog_detect --------------------------------------------------------------------- */

static size_t structured_checked, text_checked;

/* False on a structured log, read as the driver would: its first 256 KiB; true on our TORCH_LOGS
 * text fixtures (tests/fixtures/torch_logs/). */
static int check_structured(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (type != FTW_F)
        return 0;
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char head[256 * 1024];
    size_t n = fread(head, 1, sizeof(head), f);
    fclose(f);
    if (strstr(path, "/fixtures/torch_logs/")) {
        if (!tl_tlog_detect(head, n)) {
            print_error("tl_tlog_detect is false on the TORCH_LOGS text %s\n", path);
            fail();
        }
        text_checked++;
        return 0;
    }
    if (tl_tlog_detect(head, n)) {
        print_error("tl_tlog_detect is true on the structured log %s\n", path);
        fail();
    }
    structured_checked++;
    return 0;
}

static void test_detect_structured_logs(void **state)
{
    (void)state;
    structured_checked = text_checked = 0;
    assert_int_equal(nftw(TL_SOURCE_DIR "/tests/fixtures", check_structured, 8, FTW_PHYS), 0);
    assert_true(structured_checked >= 2);
    assert_true(text_checked >= 3);
    if (!have_shared())
        return;
    assert_int_equal(nftw(TL_SHARED_DIR "/corpus/logs", check_structured, 8, FTW_PHYS), 0);
    assert_true(structured_checked > 20);
}

static bool detect(const char *text)
{
    size_t n = strlen(text);
    char *copy = malloc(n ? n : 1);
    assert_non_null(copy);
    memcpy(copy, text, n);
    bool r = tl_tlog_detect(copy, n);
    free(copy);
    return r;
}

static void test_detect_crafted(void **state)
{
    (void)state;
    assert_true(detect("Recompiling function fn in x.py:3\n"));
    assert_true(detect("$ python a.py\nTREE_GUARD_MANAGER:\n"));
    assert_true(detect("torch/_inductor/graph.py:2045] [0/1] [__output_code] x\n"));
    assert_true(detect("[rank3]:" GLOG_GB "[0/0] create_env"));
    /* one structured envelope anywhere: not TORCH_LOGS text, even with messages around it */
    assert_false(detect("Recompiling function fn in x.py:3\n" GLOG_GB "{\"dynamo_start\": {}}\n"));
    assert_false(detect("V1206 15:18:15.925000 1500233 torch/_logging/structured.py:22] "
                        "{\"str\": [\"/a.py\", 0]}\n\t{\n"));
    /* nothing that TORCH_LOGS prints */
    assert_false(detect(""));
    assert_false(detect("hello\nworld\n"));
    assert_false(detect("I0721 11:10:00.950 845259 a.py:1] plain info line\n"));
    assert_false(detect("\xff\xfe\x00\x01garbage"));
}

/* ---- hostile input ---------------------------------------------------------------------- */

/* Emit callback that reads every view of a message (so that ASan checks them) and checks
 * the caps. */
static uint64_t touched;

static void touch(struct tl_str s)
{
    assert_true(s.n <= TL_TLOG_MAX_FIELD);
    assert_true(s.n == 0 || s.p != NULL);
    for (size_t i = 0; i < s.n; i++)
        touched += (unsigned char)s.p[i];
}

static void touch_loc(const struct tl_tlog_loc *l)
{
    touch(l->file);
    touch(l->function);
    touch(l->code);
}

static void on_hostile(void *ctx, const struct tl_tlog_msg *m)
{
    (void)ctx;
    assert_true(m->kind <= TL_TLOG_UNCAUGHT);
    assert_true(m->first_line <= m->last_line);
    assert_true(m->nguards <= TL_TLOG_MAX_GUARDS);
    assert_true(m->nframes <= TL_TLOG_MAX_FRAMES);
    assert_true(m->nexplanations <= TL_TLOG_MAX_NOTES && m->nhints <= TL_TLOG_MAX_NOTES);
    assert_true(m->nexplanations2 <= m->nexplanations && m->nhints2 <= m->nhints);
    touch(m->function);
    touch_loc(&m->where);
    for (size_t i = 0; i < m->nguards; i++)
        touch(m->guards[i].text);
    for (size_t i = 0; i < m->nexplanations; i++)
        touch(m->explanations[i]);
    for (size_t i = 0; i < m->nhints; i++)
        touch(m->hints[i]);
    for (size_t i = 0; i < m->nframes; i++)
        touch_loc(&m->frames[i]);
    struct tl_str more[] = {m->limit_name, m->reason, m->reason2, m->url,        m->symbol,
                            m->value,      m->source, m->range,   m->graph_name, m->expr};
    for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
        touch(more[i]);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_random_bytes(void **state)
{
    (void)state;
    size_t n = 4u << 20;
    char *text = malloc(n);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rnd();
        text[i] = (r & 0xff) < 4 ? '\n' : (char)(r >> 8);
    }
    struct tl_tlog *p = tl_tlog_new(on_hostile, NULL);
    feed_text(p, text, n);
    (void)tl_tlog_detect(text, n);
    tl_tlog_free(p);
    free(text);
}

/* Lines made of pieces of real lines, shuffled: far more of them reach the message readers
 * than random bytes do. */
static void test_random_pieces(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        "Recompiling function ",
        "fn",
        " in ",
        "x.py:3",
        "    triggered by the following guard failure(s):",
        "    - ",
        "0/0: ",
        "!0/2/1_3: ",
        "guard 1 failures:",
        "[0/1] ",
        "[1/0_1] ",
        "[__recompiles] ",
        "V0120 22:19:48.783000 1 a.py:1] ",
        "I0721 11:10:00.950 2 b.py:9] ",
        "[rank3]:",
        "[default1]:",
        "7: ",
        "[2024-03-06 15:35:13,994] t.x: [DEBUG] ",
        "... ",
        "torch/_inductor/graph.py:2045] ",
        "Graph break in user code at ",
        "Graph break (",
        ") in user code at ",
        "Graph break: ",
        " from user code at",
        "Graph Break Reason: ",
        "Reason: ",
        "  Explanation: ",
        "  Hint: ",
        "*** While handling this graph break",
        "User code traceback:",
        "  File \"",
        "\", line ",
        "7",
        ", in ",
        "Traceback (most recent call last):",
        "torch._dynamo.exc.Unsupported: x",
        "create_symbol ",
        "s0",
        " = ",
        " for ",
        "L['x']",
        " [2, int_oo]",
        " duck sized ",
        "eval ",
        "Eq(s0, 3)",
        " [guard added]",
        "  # ",
        " at ",
        "(",
        ")",
        "[",
        "]",
        ":",
        "'",
        "\xe2\x80\x98",
        "\xe2\x80\x99",
        "\xe2\x80",
        "\xff",
        "\r",
        "torch._dynamo hit config.",
        "recompile_limit (8)",
        "   function: ",
        "   last reason: ",
        "Step 1: torchdynamo start tracing ",
        "Restarting analysis due to ",
        "WON'T CONVERT ",
        " line ",
        "due to: ",
        "TRACED GRAPH",
        " ===== ",
        "=====",
        "class GraphModule:",
        "        x: \"f32\" = y",
        "        return (x,)",
        "",
        " ",
        "\t",
        "...",
    };
    struct tl_tlog *p = tl_tlog_new(on_hostile, NULL);
    char line[512];
    for (uint64_t no = 1; no <= 200000; no++) {
        size_t len = 0;
        int k = (int)(rnd() % 8);
        for (int i = 0; i < k; i++) {
            const char *piece = pieces[rnd() % (sizeof(pieces) / sizeof(pieces[0]))];
            size_t pl = strlen(piece);
            if (len + pl > sizeof(line))
                break;
            memcpy(line + len, piece, pl);
            len += pl;
        }
        char *copy = malloc(len ? len : 1);
        assert_non_null(copy);
        memcpy(copy, line, len);
        tl_tlog_feed(p, no, tl_str_make(copy, len));
        struct tl_tlog_line L;
        tl_tlog_split(tl_str_make(copy, len), &L);
        assert_true(L.body.p >= copy && L.body.p + L.body.n <= copy + len);
        free(copy);
    }
    tl_tlog_end(p);
    assert_int_equal(tl_tlog_stats(p)->lines, 200000);
    tl_tlog_free(p);
}

struct grab {
    size_t n;
    struct tl_tlog_msg last;
    size_t last_nguards, last_nhints, last_where_file, last_guard_len;
    unsigned char last_guard_end; /* the last byte of the last guard */
    bool last_truncated;
};

static void on_grab(void *ctx, const struct tl_tlog_msg *m)
{
    struct grab *g = ctx;
    on_hostile(NULL, m);
    g->n++;
    g->last = *m;
    g->last_nguards = m->nguards;
    g->last_nhints = m->nhints;
    g->last_where_file = m->where.file.n;
    g->last_truncated = m->truncated;
    if (m->nguards) {
        struct tl_str t = m->guards[m->nguards - 1].text;
        g->last_guard_len = t.n;
        g->last_guard_end = t.n ? (unsigned char)t.p[t.n - 1] : 0;
    }
}

static void test_huge_lines(void **state)
{
    (void)state;
    size_t big = 2u << 20;
    char *line = malloc(big + 64);
    assert_non_null(line);
    /* a 2 MB place: kept up to the field cap */
    memcpy(line, "Graph break in user code at ", 28);
    memset(line + 28, 'a', big);
    memcpy(line + 28 + big, ".py:5\r", 6);
    struct grab g;
    memset(&g, 0, sizeof(g));
    struct tl_tlog *p = tl_tlog_new(on_grab, &g);
    tl_tlog_feed(p, 1, tl_str_make(line, 28 + big + 6));
    tl_tlog_end(p);
    assert_int_equal(g.n, 1);
    assert_int_equal(g.last.kind, TL_TLOG_GRAPH_BREAK);
    assert_int_equal(g.last_where_file, TL_TLOG_MAX_FIELD);
    assert_int_equal(g.last.where.line, 5);
    assert_true(g.last_truncated);
    assert_true(g.last.cut);

    /* a field cut in the middle of a UTF-8 sequence backs off to its start */
    char *guard = malloc(big);
    assert_non_null(guard);
    memcpy(guard, "    - 0/0: x", 12);
    for (size_t i = 12; i + 1 < big; i += 2)
        memcpy(guard + i, "\xc3\xa9", 2);
    static const char head[] = "Recompiling function f in a.py:1";
    tl_tlog_feed(p, 2, tl_str_make(head, strlen(head)));
    tl_tlog_feed(p, 3, tl_str_make(guard, 12 + ((big - 12) & ~(size_t)1)));
    tl_tlog_end(p);
    assert_int_equal(g.n, 2);
    assert_int_equal(g.last_nguards, 1);
    assert_true(g.last_truncated);
    assert_int_equal(g.last_guard_len, TL_TLOG_MAX_FIELD - 1); /* "x" + whole "é"s */
    assert_int_equal(g.last_guard_end, 0xa9);

    /* lines that look like the start of a glog prefix again and again (the glued search) */
    static const char unit[] = "V0120 22:19:48.783 1 ";
    for (size_t i = 0; i + sizeof(unit) - 1 <= big; i += sizeof(unit) - 1)
        memcpy(line + i, unit, sizeof(unit) - 1);
    tl_tlog_feed(p, 4, tl_str_make(line, big));
    static const char unit2[] = "V0120 22:19:48.783 1 a:1]";
    for (size_t i = 0; i + sizeof(unit2) - 1 <= big; i += sizeof(unit2) - 1)
        memcpy(line + i, unit2, sizeof(unit2) - 1);
    tl_tlog_feed(p, 5, tl_str_make(line, big));
    /* brackets, digits, spaces */
    memset(line, '[', big);
    tl_tlog_feed(p, 6, tl_str_make(line, big));
    memset(line, '9', big);
    tl_tlog_feed(p, 7, tl_str_make(line, big));
    memset(line, ' ', big);
    tl_tlog_feed(p, 8, tl_str_make(line, big));
    /* inside a graph: counted, not kept */
    static const char tg[] = "TRACED GRAPH";
    tl_tlog_feed(p, 9, tl_str_make(tg, strlen(tg)));
    memset(line, ' ', 8);
    memset(line + 8, 'x', big - 8);
    memcpy(line + big / 2, " = ", 3);
    tl_tlog_feed(p, 10, tl_str_make(line, big));
    tl_tlog_end(p);
    assert_int_equal(g.last.kind, TL_TLOG_GRAPH);
    assert_int_equal(g.last.nodes, 1);
    assert_int_equal(tl_tlog_stats(p)->lines, 10);
    tl_tlog_free(p);
    free(guard);
    free(line);
}

static long max_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* 100 000 lines of one message that never ends: what it keeps is capped (and marked), what it
 * counts stays exact, and memory does not grow with the lines. */
static void test_endless_messages(void **state)
{
    (void)state;
    struct grab g;
    memset(&g, 0, sizeof(g));
    struct tl_tlog *p = tl_tlog_new(on_grab, &g);
    char line[300];
    long rss0 = max_rss_kb();
    uint64_t no = 0;

    int len = snprintf(line, sizeof(line), "Recompiling function fn in x.py:3");
    tl_tlog_feed(p, ++no, tl_str_make(line, (size_t)len));
    for (int i = 0; i < 100000; i++) {
        len = snprintf(line, sizeof(line),
                       "    - 0/%d: tensor 'L['x']' size mismatch at index 0. expected %d, actual "
                       "%d %0150d",
                       i, i, i + 1, i);
        tl_tlog_feed(p, ++no, tl_str_make(line, (size_t)len));
    }
    tl_tlog_end(p);
    assert_int_equal(g.n, 1);
    assert_int_equal(g.last_nguards, TL_TLOG_MAX_GUARDS);
    assert_true(g.last_truncated);
    assert_int_equal(g.last.last_line, 100001);

    len = snprintf(line, sizeof(line), "Graph break in user code at x.py:9");
    tl_tlog_feed(p, ++no, tl_str_make(line, (size_t)len));
    for (int i = 0; i < 100000; i++) {
        len = snprintf(line, sizeof(line), "  Hint: number %d %0200d", i, i);
        tl_tlog_feed(p, ++no, tl_str_make(line, (size_t)len));
    }
    tl_tlog_end(p);
    assert_int_equal(g.n, 2);
    assert_int_equal(g.last_nhints, TL_TLOG_MAX_NOTES);
    assert_true(g.last_truncated);

    /* a traceback that never ends */
    len = snprintf(line, sizeof(line), "WON'T CONVERT fn x.py line 3 due to:");
    tl_tlog_feed(p, ++no, tl_str_make(line, (size_t)len));
    for (int i = 0; i < 100000; i++) {
        len = snprintf(line, sizeof(line), "%s",
                       i % 2 ? "    x = f(y)" : "  File \"/a/b.py\", line 3, in f");
        tl_tlog_feed(p, ++no, tl_str_make(line, (size_t)len));
        if (i % 1000 == 999) {
            len = snprintf(line, sizeof(line), "torch._dynamo.exc.Unsupported: again %d", i);
            tl_tlog_feed(p, ++no, tl_str_make(line, (size_t)len));
        }
    }
    tl_tlog_end(p);
    assert_int_equal(g.n, 3);
    assert_int_equal(g.last.kind, TL_TLOG_FALLBACK);

    /* a graph of 100 000 nodes: counted exactly, nothing kept per line */
    len = snprintf(line, sizeof(line), "TRACED GRAPH");
    tl_tlog_feed(p, ++no, tl_str_make(line, (size_t)len));
    for (int i = 0; i < 100000; i++) {
        len = snprintf(line, sizeof(line), "        add_%d: \"f32[3]\" = torch.add(x, %d)", i, i);
        tl_tlog_feed(p, ++no, tl_str_make(line, (size_t)len));
    }
    tl_tlog_end(p);
    assert_int_equal(g.n, 4);
    assert_int_equal(g.last.nodes, 100000);
    assert_false(g.last_truncated);
    assert_true(g.last.cut);

    /* about 50 MB of lines went through; what stays is a few hundred KiB */
    long grown = max_rss_kb() - rss0;
    if (grown > 16 * 1024) {
        print_error("max RSS grew by %ld KiB over the endless messages\n", grown);
        fail();
    }
    tl_tlog_free(p);
}

struct rank_check {
    size_t n, guards;
};

/* Each rank's guard says its rank: a message holding another rank's guard would be mixed. */
static void on_rank(void *ctx, const struct tl_tlog_msg *m)
{
    struct rank_check *c = ctx;
    on_hostile(NULL, m);
    c->n++;
    for (size_t i = 0; i < m->nguards; i++) {
        char want[32];
        snprintf(want, sizeof(want), "L['r'] == %d", m->rank);
        expect_view(m->guards[i].text, want, "guard", "many ranks");
        c->guards++;
    }
}

static void test_many_ranks(void **state)
{
    (void)state;
    char line[200];
    uint64_t no = 0;
    for (int ranks = 1000; ranks <= 3000; ranks += 2000) {
        struct rank_check c = {0, 0};
        struct tl_tlog *p = tl_tlog_new(on_rank, &c);
        for (int r = 0; r < ranks; r++) {
            int len = snprintf(line, sizeof(line),
                               "[rank%d]:" GLOG_GB "[0/1] [__recompiles] Recompiling function f "
                               "in a.py:1",
                               r);
            tl_tlog_feed(p, ++no, tl_str_make(line, (size_t)len));
        }
        for (int r = 0; r < ranks; r++) {
            int len =
                snprintf(line, sizeof(line),
                         "[rank%d]:" GLOG_GB "[0/1] [__recompiles]     - 0/0: L['r'] == %d", r, r);
            tl_tlog_feed(p, ++no, tl_str_make(line, (size_t)len));
        }
        tl_tlog_end(p);
        assert_int_equal(c.n, ranks);
        if (ranks < TL_TLOG_MAX_RANKS) {
            /* one slot each: every guard reaches its rank's message */
            assert_int_equal(c.guards, ranks);
            assert_int_equal(tl_tlog_stats(p)->in_messages, 2 * ranks);
        } else {
            /* more ranks than slots: ranks sharing a slot close each other's messages (here
             * before their guards come); nothing mixes, nothing is lost */
            assert_int_equal(c.guards, 0);
            assert_int_equal(tl_tlog_stats(p)->in_messages, ranks);
        }
        tl_tlog_free(p);
    }
}

/* ---- main ------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    if (argc > 1) {
        /* test_torchlogs FILE...: print the messages of each file */
        for (int i = 1; i < argc; i++) {
            size_t n;
            char *text = tu_slurp(argv[i], &n);
            if (!text) {
                fprintf(stderr, "test_torchlogs: cannot read %s\n", argv[i]);
                return 1;
            }
            char *out = messages_of(text, n);
            printf("%s (detect: %s)\n%s", argv[i], tl_tlog_detect(text, n) ? "yes" : "no", out);
            free(out);
            free(text);
        }
        return 0;
    }
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_split_prefixes),
        cmocka_unit_test(test_split_compile_id_parts),
        cmocka_unit_test(test_split_prefix_keys),
        cmocka_unit_test(test_ranks_interleaved),
        cmocka_unit_test(test_workers_interleaved),
        cmocka_unit_test(test_glued_progress_bar),
        cmocka_unit_test(test_crlf_and_unterminated),
        cmocka_unit_test(test_recompile_variants),
        cmocka_unit_test(test_what_ends_a_message),
        cmocka_unit_test(test_graph_break_variants),
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_fallback_backend),
        cmocka_unit_test(test_uncaught),
        cmocka_unit_test(test_guard_error),
        cmocka_unit_test(test_guard_comments),
        cmocka_unit_test(test_item_warning),
        cmocka_unit_test(test_damaged_shapes),
        cmocka_unit_test(test_limit_variants),
        cmocka_unit_test(test_symbols_and_guards),
        cmocka_unit_test(test_graphs),
        cmocka_unit_test(test_end_then_more),
        cmocka_unit_test(test_settle),
        cmocka_unit_test(test_settle_texts),
        cmocka_unit_test(test_corpus_complete),
        cmocka_unit_test(test_detect_structured_logs),
        cmocka_unit_test(test_detect_crafted),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_random_pieces),
        cmocka_unit_test(test_huge_lines),
        cmocka_unit_test(test_endless_messages),
        cmocka_unit_test(test_many_ranks),
    };
    enum { NFIXED = sizeof(fixed) / sizeof(fixed[0]) };
    enum { NCORPUS = sizeof(corpus_cases) / sizeof(corpus_cases[0]) };
    static struct CMUnitTest tests[NFIXED + NCORPUS];
    memcpy(tests, fixed, sizeof(fixed));
    for (size_t i = 0; i < NCORPUS; i++) {
        tests[NFIXED + i] = (struct CMUnitTest)cmocka_unit_test_prestate(
            test_corpus_log, (void *)(uintptr_t)&corpus_cases[i]);
        tests[NFIXED + i].name = corpus_cases[i].name;
    }
    if (!have_shared())
        printf("test_torchlogs: %s/corpus not found: the %d corpus cases and the structured-log "
               "checks were not run\n",
               TL_SHARED_DIR, NCORPUS);
    return _cmocka_run_group_tests("test_torchlogs", tests, NFIXED + NCORPUS, NULL, NULL);
}
