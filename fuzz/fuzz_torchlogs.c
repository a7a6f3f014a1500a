/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target for the TORCH_LOGS text reader and the diagnosis behind it: the input is fed
 * line by line to input/torchlogs.c; every message it emits must hold views inside its own
 * memory (each byte is read, so ASan sees any stray pointer) and sane line numbers, and goes
 * into a diagnosis, whose findings are then written as JSON, text and HTML.
 */
#include "base/config.h"
#include "base/buf.h"
#include "input/torchlogs.h"
#include "model/diagnosis.h"
#include "report/summary.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz_torchlogs: check failed: %s (line %d)\n", #cond, __LINE__);      \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

static volatile unsigned sink;

static void touch(struct tl_str s)
{
    CHECK(s.p || s.n == 0);
    for (size_t i = 0; i < s.n; i++)
        sink += (unsigned char)s.p[i];
}

static void touch_loc(const struct tl_tlog_loc *l)
{
    touch(l->file);
    touch(l->function);
    touch(l->code);
}

struct state {
    struct tl_diag diag;
    uint64_t lines;
};

static void emit(void *ctx, const struct tl_tlog_msg *m)
{
    struct state *st = ctx;
    CHECK(m->first_line >= 1 && m->first_line <= m->last_line && m->last_line <= st->lines);
    touch(m->function);
    touch_loc(&m->where);
    for (size_t i = 0; i < m->nguards; i++)
        touch(m->guards[i].text);
    touch(m->limit_name);
    touch(m->reason);
    touch(m->reason2);
    for (size_t i = 0; i < m->nexplanations; i++)
        touch(m->explanations[i]);
    for (size_t i = 0; i < m->nhints; i++)
        touch(m->hints[i]);
    CHECK(m->nexplanations2 <= m->nexplanations && m->nhints2 <= m->nhints);
    touch(m->url);
    for (size_t i = 0; i < m->nframes; i++)
        touch_loc(&m->frames[i]);
    touch(m->symbol);
    touch(m->value);
    touch(m->source);
    touch(m->range);
    touch(m->expr);
    touch(m->graph_name);
    touch(m->kernel);
    /* the diagnosis of what it said, as the text mode makes it (modes/text.c), in short */
    struct tl_diag_fact_loc where = {m->where.file, m->function, m->where.code, m->where.line,
                                     true};
    const struct tl_compile_id *cid = m->has_cid ? &m->cid : NULL;
    switch (m->kind) {
    case TL_TLOG_RECOMPILE: {
        struct tl_str g[8];
        size_t n = m->nguards < 8 ? m->nguards : 8;
        for (size_t i = 0; i < n; i++)
            g[i] = m->guards[i].text;
        tl_diag_recompile(&st->diag, cid, &where, g, n);
        break;
    }
    case TL_TLOG_LIMIT:
        tl_diag_limit(&st->diag, cid, &where, m->limit_name, m->limit,
                      m->nguards ? m->guards[0].text : TL_STR_NULL);
        break;
    case TL_TLOG_GRAPH_BREAK: {
        struct tl_diag_fact_break b = {
            .reason = m->reason, .url = m->url, .where = where, .fell_back = m->fallback};
        tl_diag_graph_break(&st->diag, cid, &b);
        break;
    }
    case TL_TLOG_CREATE_SYMBOL:
        tl_diag_symbol(&st->diag, m->symbol, m->source);
        tl_diag_dynamic(&st->diag, cid, m->symbol, m->value, m->source, m->range, &where);
        break;
    case TL_TLOG_DUCK_SIZED:
    case TL_TLOG_GUARD_ADDED: {
        struct tl_diag_fact_spec s = {m->kind == TL_TLOG_DUCK_SIZED ? TL_SPEC_DUCK
                                                                    : TL_SPEC_SPECIALIZED,
                                      m->symbol,
                                      m->expr,
                                      m->source,
                                      m->value,
                                      m->range,
                                      where};
        tl_diag_spec(&st->diag, cid, &s);
        break;
    }
    case TL_TLOG_FALLBACK: {
        struct tl_diag_fact_failure f;
        memset(&f, 0, sizeof(f));
        f.type = m->reason;
        f.reason = m->reason;
        f.where = where;
        f.fell_back_to_eager = true;
        tl_diag_failure(&st->diag, cid, &f);
        break;
    }
    case TL_TLOG_GRAPH:
        tl_diag_graph(&st->diag, cid, m->graph_name, m->nodes);
        break;
    default:
        if (cid)
            tl_diag_compile(&st->diag, cid, &where);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    (void)tl_tlog_detect(p, size);
    struct state st;
    memset(&st, 0, sizeof(st));
    tl_diag_init(&st.diag);
    struct tl_tlog *t = tl_tlog_new(emit, &st);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        struct tl_str line = tl_str_make(p, (size_t)((nl ? nl : end) - p));
        struct tl_tlog_line l;
        tl_tlog_split(line, &l);
        CHECK(l.body.p >= line.p && l.body.p + l.body.n <= line.p + line.n);
        st.lines++;
        tl_tlog_feed(t, st.lines, line);
        p = nl ? nl + 1 : end;
    }
    tl_tlog_end(t);
    tl_tlog_free(t);
    tl_diag_finish(&st.diag);
    struct tl_buf b = TL_BUF_INIT;
    struct tl_summary_source src = {"fuzz", "torch_logs", NULL, NULL};
    tl_summary_json(&b, &st.diag, &src, true);
    tl_summary_text(&b, &st.diag, &src, true);
    tl_page_diagnosis(&b, &st.diag, "log.html#", "log.html#L");
    tl_buf_release(&b);
    tl_diag_release(&st.diag);
    return 0;
}
