/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TORCH_LOGS text reader (torchlogs.h): one open message per rank, fed line by line. Each
 * line's prefixes are read by tlog_prefix.c; a line that starts a message opens it in the
 * rank's slot (tlog_open.c), the lines after it go on it while they belong (tlog_take.c, the
 * fields copied into the slot's buffer by tlog_slot.c), and a message is emitted here as soon
 * as it is complete; lines wrapped by a terminal are joined here first. PyTorch's own wording
 * (tracebacks, graph-break notes, guards) is read by pytext.c. No regex engine, no allocation
 * per line, O(length) per line and bounded memory whatever the input.
 * Depends on base (str, buf, xalloc) and compile_id only.
 */
#include "base/config.h"
#include "input/torchlogs.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/xalloc.h"
#include "input/textview.h"
#include "input/tlog_open.h"
#include "input/tlog_prefix.h"
#include "input/tlog_slot.h"
#include "input/tlog_take.h"

struct tl_tlog {
    void (*emit)(void *ctx, const struct tl_tlog_msg *m);
    void *ctx;
    struct tl_tlog_stats stats;
    struct tl_tlog_slot *slots[TL_TLOG_MAX_RANKS];
    /* views handed to emit, reused */
    struct tl_tlog_guard *gv;
    size_t agv;
    struct tl_tlog_loc *fv;
    size_t afv;
    struct tl_str *ev, *hv;
    size_t aev, ahv;
    struct tl_buf norm; /* a line's text rewritten (tuple_text) */
    /* Lines wrapped by a terminal: the longest line so far and how many had that length; a
     * log line of that length is held (held_no != 0) until the next line shows whether it
     * goes on there. */
    size_t maxlen, nmax;
    struct tl_buf held;
    uint64_t held_no;
    /* Said at a pause (tl_tlog_settle): the held line, fed before the next line showed whether
     * it went on; messages emitted while still open (slots marked early). diverged: a line
     * came that makes what was said then differ from what an input without the pause gives. */
    bool held_early;
    unsigned early;
    bool diverged;
};

/* ---- emitting --------------------------------------------------------------------------- */

static struct tl_tlog_loc loc_view(const struct tl_tlog_slot *s, const struct tl_tlog_lsp *l)
{
    struct tl_tlog_loc v;
    v.file = l->file.at ? tl_tlog_view(s, l->file) : TL_STR_NULL;
    v.line = l->line;
    v.function = tl_tlog_view(s, l->function);
    v.code = tl_tlog_view(s, l->code);
    return v;
}

static bool is_complete(const struct tl_tlog_state *st)
{
    switch (st->kind) {
    case TL_TLOG_RECOMPILE:
        return st->guard_seen;
    case TL_TLOG_GRAPH_BREAK:
        return st->reason_seen && st->tail_ok && !st->await_inner && !st->await_reason2;
    case TL_TLOG_GRAPH:
        return st->returned;
    case TL_TLOG_LIMIT:
    case TL_TLOG_FALLBACK:
    case TL_TLOG_GUARD_ERROR:
    case TL_TLOG_UNCAUGHT:
        return st->complete;
    default:
        return true;
    }
}

/* What every message has: kind, lines, rank, compile id, function and place. */
static void msg_head(struct tl_tlog_slot *s, struct tl_tlog_msg *m)
{
    const struct tl_tlog_state *st = &s->st;
    m->kind = st->kind;
    m->first_line = st->first;
    m->last_line = st->last;
    m->rank = st->rank;
    m->has_cid = st->has_cid;
    m->cid = st->cid;
    m->cut = !is_complete(st);
    m->truncated = st->truncated;
    m->function = tl_tlog_view(s, st->function);
    m->where = loc_view(s, &st->where);
    if (st->kind == TL_TLOG_RECOMPILE || st->kind == TL_TLOG_LIMIT || st->kind == TL_TLOG_START ||
        st->kind == TL_TLOG_FALLBACK)
        m->where.function = m->function;
}

/* The guards and the recompile limit; the views live in p's arrays until the next message. */
static void msg_guards(struct tl_tlog *p, struct tl_tlog_slot *s, struct tl_tlog_msg *m)
{
    const struct tl_tlog_state *st = &s->st;
    TL_GROW(p->gv, s->nguards, p->agv);
    for (size_t i = 0; i < s->nguards; i++) {
        p->gv[i].has_cid = s->guards[i].has_cid;
        p->gv[i].cid = s->guards[i].cid;
        p->gv[i].text = tl_tlog_view(s, s->guards[i].text);
    }
    m->guards = p->gv;
    m->nguards = s->nguards;
    m->limit_name = tl_tlog_view(s, st->limit_name);
    m->limit = st->limit;
}

/* Reasons, explanations, hints and the url of a graph break or failure. */
static void msg_notes(struct tl_tlog *p, struct tl_tlog_slot *s, struct tl_tlog_msg *m)
{
    const struct tl_tlog_state *st = &s->st;
    m->reason = tl_tlog_view(s, st->reason);
    m->reason2 = tl_tlog_view(s, st->reason2);
    TL_GROW(p->ev, s->nexpl, p->aev);
    for (size_t i = 0; i < s->nexpl; i++)
        p->ev[i] = tl_tlog_view(s, s->expl[i]);
    TL_GROW(p->hv, s->nhints, p->ahv);
    for (size_t i = 0; i < s->nhints; i++)
        p->hv[i] = tl_tlog_view(s, s->hints[i]);
    m->explanations = p->ev;
    m->nexplanations = s->nexpl;
    m->hints = p->hv;
    m->nhints = s->nhints;
    m->nexplanations2 = st->nexpl2;
    m->nhints2 = st->nhints2;
    m->url = tl_tlog_view(s, st->url);
    m->type = tl_tlog_view(s, st->type);
    m->debug_context = tl_tlog_view(s, st->context);
    m->url2 = tl_tlog_view(s, st->url2);
}

/* The user frames, and a graph break's place taken from the innermost of them. */
static void msg_frames(struct tl_tlog *p, struct tl_tlog_slot *s, struct tl_tlog_msg *m)
{
    const struct tl_tlog_state *st = &s->st;
    TL_GROW(p->fv, s->nframes, p->afv);
    for (size_t i = 0; i < s->nframes; i++)
        p->fv[i] = loc_view(s, &s->frames[i]);
    m->frames = p->fv;
    m->nframes = s->nframes;
    m->nested = st->nested;
    m->fallback = st->fallback;
    m->user_stack_suppressed = st->suppressed;
    m->warning = st->warning;
    if (st->kind == TL_TLOG_GRAPH_BREAK && s->nframes) {
        /* where: the innermost frame's function, and its code when it is that line */
        const struct tl_tlog_loc *in = &p->fv[s->nframes - 1];
        if (!m->where.file.p) {
            m->where = *in;
        } else {
            m->where.function = in->function;
            if (in->line == m->where.line)
                m->where.code = in->code;
        }
    }
}

/* Emit s's message as it is (the slot is left as it was). */
static void emit_msg(struct tl_tlog *p, struct tl_tlog_slot *s)
{
    const struct tl_tlog_state *st = &s->st;
    struct tl_tlog_msg m;
    memset(&m, 0, sizeof(m));
    msg_head(s, &m);
    msg_guards(p, s, &m);
    msg_notes(p, s, &m);
    msg_frames(p, s, &m);
    /* symbols and shapes; a graph's name and size */
    m.symbol = tl_tlog_view(s, st->symbol);
    m.value = tl_tlog_view(s, st->value);
    m.source = tl_tlog_view(s, st->source);
    m.range = tl_tlog_view(s, st->range);
    m.expr = tl_tlog_view(s, st->expr);
    m.graph_name = tl_tlog_view(s, st->graph_name);
    m.nodes = st->nodes;
    m.kernel = tl_tlog_view(s, st->kernel);

    p->stats.messages++;
    p->stats.in_messages += st->nlines;
    p->emit(p->ctx, &m);
}

static void close_msg(struct tl_tlog *p, struct tl_tlog_slot *s)
{
    if (s->early) { /* emitted at a pause, as it is now, or a line that went on it diverged */
        s->early = false;
        p->early--;
    } else {
        /* another rank's message said at a pause would have come after this one */
        p->diverged |= p->early != 0;
        emit_msg(p, s);
    }
    s->open = false;
    /* an idle rank keeps no large buffer */
    if (s->buf.alloc > 64 * 1024)
        tl_buf_release(&s->buf);
}

static struct tl_tlog_slot *slot_for(struct tl_tlog *p, int rank)
{
    size_t i = rank < 0 ? 0 : 1 + (size_t)rank % (TL_TLOG_MAX_RANKS - 1);
    if (!p->slots[i]) {
        struct tl_tlog_slot *s = tl_xcalloc(1, sizeof(*s));
        tl_buf_init(&s->buf, 0);
        p->slots[i] = s;
    }
    return p->slots[i];
}

static bool single_line(enum tl_tlog_kind k)
{
    return k == TL_TLOG_CREATE_SYMBOL || k == TL_TLOG_DUCK_SIZED || k == TL_TLOG_GUARD_ADDED ||
           k == TL_TLOG_START || k == TL_TLOG_RESTART;
}

static void open_msg(struct tl_tlog *p, struct tl_tlog_slot *s, const struct tl_tlog_line *L,
                     struct tl_str t, enum tl_tlog_kind k, uint64_t lineno)
{
    struct tl_tlog_state *st = &s->st;
    memset(st, 0, sizeof(*st));
    tl_buf_reset(&s->buf);
    s->nguards = s->nexpl = s->nhints = s->nframes = 0;
    s->open = true;
    st->kind = k;
    st->rank = L->rank;
    st->key = L->prefix_key;
    st->first = st->last = lineno;
    st->nlines = 1;
    st->has_cid = L->has_cid;
    st->cid = L->cid;
    tl_tlog_open_fields(s, k, t);
    if ((k == TL_TLOG_FALLBACK || k == TL_TLOG_UNCAUGHT) && !st->has_cid && s->lcid_has &&
        !s->lcid_done) {
        st->has_cid = true;
        st->cid = s->lcid;
        st->cid.has &= (uint8_t)~TL_CID_ATTEMPT;
        st->cid.attempt = 0;
    }
    if (single_line(k))
        close_msg(p, s);
}

/*
 * The logs of 2023 printed some messages as a tuple of strings, ('Recompiling function f in
 * F:N', "triggered by the following guard failure: G"): its strings joined by a space into out,
 * or t itself when it is no such tuple.
 */
static struct tl_str tuple_text(struct tl_buf *out, struct tl_str t)
{
    tl_buf_reset(out);
    size_t i = 1;
    for (;;) {
        if (i >= t.n || (t.p[i] != '\'' && t.p[i] != '"'))
            return t;
        char q = t.p[i++];
        if (out->len)
            tl_buf_addch(out, ' ');
        while (i < t.n && t.p[i] != q) {
            if (t.p[i] == '\\' && i + 1 < t.n)
                i++;
            tl_buf_addch(out, t.p[i++]);
        }
        if (i >= t.n)
            return t;
        i++;
        if (i + 1 == t.n && t.p[i] == ')')
            return tl_buf_str(out);
        if (i + 2 >= t.n || t.p[i] != ',' || t.p[i + 1] != ' ')
            return t;
        i += 2;
    }
}

/* ---- the public functions --------------------------------------------------------------- */

struct tl_tlog *tl_tlog_new(void (*emit)(void *ctx, const struct tl_tlog_msg *m), void *ctx)
{
    struct tl_tlog *p = tl_xcalloc(1, sizeof(*p));
    p->emit = emit;
    p->ctx = ctx;
    tl_buf_init(&p->norm, 0);
    tl_buf_init(&p->held, 0);
    return p;
}

void tl_tlog_free(struct tl_tlog *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < TL_TLOG_MAX_RANKS; i++) {
        struct tl_tlog_slot *s = p->slots[i];
        if (!s)
            continue;
        tl_buf_release(&s->buf);
        free(s->guards);
        free(s->expl);
        free(s->hints);
        free(s->frames);
        free(s);
    }
    free(p->gv);
    free(p->fv);
    free(p->ev);
    free(p->hv);
    tl_buf_release(&p->norm);
    tl_buf_release(&p->held);
    free(p);
}

static void feed_line(struct tl_tlog *p, uint64_t lineno, struct tl_str line)
{
    struct tl_tlog_line L;
    tl_tlog_prefix(line, &L);
    struct tl_str t = trim(L.body);
    if (t.n > 4 && t.p[0] == '(' && (t.p[1] == '\'' || t.p[1] == '"') && t.p[t.n - 1] == ')')
        t = tuple_text(&p->norm, t);
    bool blank = t.n == 0;
    bool elision = !L.has_prefix && t.n == 3 && memcmp(t.p, "...", 3) == 0;
    enum tl_tlog_kind k = TL_TLOG_RECOMPILE;
    bool start = !blank && tl_tlog_start_kind(t, &k);
    struct tl_tlog_slot *s = slot_for(p, L.rank);
    if (L.has_cid) {
        if (!s->lcid_has || !tl_cid_eq(&s->lcid, &L.cid)) {
            s->lcid_has = true;
            s->lcid_done = false;
            s->lcid = L.cid;
        }
        if (tl_str_eq_cstr(L.tag, "guards") || starts(t, "GUARDS:"))
            s->lcid_done = true;
    }
    /* A Python traceback at the start of a line of its own, outside any message of a
     * prefix-less log: the exception that ended the program (fullgraph=True with a graph
     * break). Inside a message without prefixes it is that message's. */
    /* A failure printed by a logger that prefixes its first line only: its error follows
     * without prefix ("due to:", the traceback), up to the next prefixed line. */
    bool loose = s->open && !L.has_prefix && s->st.key != 0 && s->st.rank == L.rank &&
                 (s->st.kind == TL_TLOG_FALLBACK || s->st.kind == TL_TLOG_GUARD_ERROR) &&
                 (!s->st.complete || s->st.loose);
    if (!start && !L.has_prefix && !loose && starts(t, "Traceback (most recent call last):") &&
        !(s->open && s->st.key == 0)) {
        start = true;
        k = TL_TLOG_UNCAUGHT;
    }
    /* the frames of the .item() warning follow a line that would start a graph break */
    if (start && s->open && s->st.warning && !s->st.in_user_tb && s->st.rank == L.rank &&
        s->st.key == L.prefix_key && starts(t, "Graph break: from user code at"))
        start = false;
    if (s->open) {
        struct tl_tlog_state *st = &s->st;
        if (!start && !elision && st->rank == L.rank && (st->key == L.prefix_key || loose)) {
            /* a blank line belongs to the message only if a line of it follows */
            if (blank) {
                st->pending++;
                return;
            }
            bool ind = L.body.n && blankc(L.body.p[0]);
            if (tl_tlog_take(s, t, ind, st->key != 0 && !loose)) {
                p->diverged |= s->early; /* it was said without this line */
                st->loose = st->loose || loose;
                st->nlines += st->pending + 1;
                st->pending = 0;
                st->last = lineno;
                return;
            }
        }
        close_msg(p, s);
    }
    if (start) {
        open_msg(p, s, &L, t, k, lineno);
        return;
    }
    if (!blank && !elision && !L.has_prefix)
        p->stats.unrecognized++;
}

/*
 * Whether line goes on the held one, which a terminal wrapped: the held line is a log line as
 * long as the longest so far, a length seen twice at least (the terminal's width) or line is
 * one word (the rest of a path or a number); line has no prefix, no indentation, and starts no
 * message.
 */
static bool wrapped(const struct tl_tlog *p, struct tl_str line)
{
    if (!line.n || blankc(line.p[0]) || p->held.len != p->maxlen)
        return false;
    if (p->nmax < 2 && (memchr(line.p, ' ', line.n) || memchr(line.p, '\t', line.n)))
        return false;
    struct tl_tlog_line L;
    tl_tlog_prefix(line, &L);
    enum tl_tlog_kind k;
    return !L.has_prefix && !tl_tlog_start_kind(trim(L.body), &k);
}

void tl_tlog_feed(struct tl_tlog *p, uint64_t lineno, struct tl_str line)
{
    p->stats.lines++;
    if (line.n && line.p[line.n - 1] == '\r')
        line.n--;
    if (p->held_early) { /* fed at a pause: this line would have gone on it */
        p->held_early = false;
        p->diverged |= wrapped(p, line);
    }
    if (p->held_no) {
        uint64_t no = p->held_no;
        p->held_no = 0;
        if (wrapped(p, line)) {
            tl_buf_add(&p->held, line.p, line.n);
            feed_line(p, no, tl_buf_str(&p->held));
            return;
        }
        feed_line(p, no, tl_buf_str(&p->held));
    }
    if (line.n >= 80 && line.n >= p->maxlen) {
        p->nmax = line.n == p->maxlen ? p->nmax + 1 : 1;
        p->maxlen = line.n;
        struct tl_tlog_line L;
        if (tl_tlog_prefix(line, &L) != TL_TLOG_PFX_NONE && L.has_prefix) {
            tl_buf_reset(&p->held);
            tl_buf_add(&p->held, line.p, line.n);
            p->held_no = lineno;
            return;
        }
    }
    feed_line(p, lineno, line);
}

/* The open message whose first line is first, among those not emitted at a pause yet when
 * not_early; NULL when none. */
static struct tl_tlog_slot *first_open(struct tl_tlog *p, bool not_early)
{
    struct tl_tlog_slot *first = NULL;
    for (size_t i = 0; i < TL_TLOG_MAX_RANKS; i++) {
        struct tl_tlog_slot *s = p->slots[i];
        if (s && s->open && !(not_early && s->early) && (!first || s->st.first < first->st.first))
            first = s;
    }
    return first;
}

bool tl_tlog_settle(struct tl_tlog *p)
{
    bool said = p->held_no != 0;
    if (p->held_no) {
        uint64_t no = p->held_no;
        p->held_no = 0;
        p->held_early = true;
        feed_line(p, no, tl_buf_str(&p->held));
    }
    for (struct tl_tlog_slot *s; (s = first_open(p, true));) {
        /* two said early: the order they close in, which sets the order of a run without the
         * pause, is not known yet */
        p->diverged |= p->early != 0;
        emit_msg(p, s);
        s->early = true;
        p->early++;
        said = true;
    }
    return said;
}

bool tl_tlog_diverged(const struct tl_tlog *p)
{
    return p->diverged;
}

bool tl_tlog_end(struct tl_tlog *p)
{
    bool ended = p->held_no != 0;
    if (p->held_no) {
        uint64_t no = p->held_no;
        p->held_no = 0;
        feed_line(p, no, tl_buf_str(&p->held));
    }
    p->held_early = false;
    for (struct tl_tlog_slot *s; (s = first_open(p, false));) {
        ended = true;
        close_msg(p, s);
    }
    return ended;
}

const struct tl_tlog_stats *tl_tlog_stats(const struct tl_tlog *p)
{
    return &p->stats;
}

bool tl_tlog_detect(const char *text, size_t n)
{
    bool seen = false;
    size_t i = 0;
    while (i < n) {
        const char *nl = memchr(text + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - text) : n;
        struct tl_tlog_line L;
        enum tl_tlog_pfx type = tl_tlog_prefix(tl_str_make(text + i, e - i), &L);
        if (type == TL_TLOG_PFX_GLOG && !L.has_cid && !L.tag.n && L.body.n >= 2 &&
            L.body.p[0] == '{' && L.body.p[1] == '"')
            return false;
        if (!seen) {
            struct tl_str t = ltrim(L.body);
            enum tl_tlog_kind k;
            seen = tl_tlog_start_kind(t, &k) || (L.has_prefix && (L.has_cid || L.tag.n)) ||
                   tl_tlog_marker_line(t);
        }
        i = e + 1;
    }
    return seen;
}
