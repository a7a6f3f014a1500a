/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What starts a message of the TORCH_LOGS text and what its first line says (tlog_open.h):
 * the wording that opens each kind ("Recompiling function", "Graph break in user code at",
 * "create_symbol", "WON'T CONVERT", ...) and the fields read from it into the rank's slot.
 * Depends on base (str) and the reader's slot and pytext.
 */
#include "base/config.h"
#include "input/tlog_open.h"

#include <string.h>

#include "input/pytext.h"
#include "input/textview.h"

/* ---- what starts a message -------------------------------------------------------------- */

/* t is the body without leading blanks. */
bool tl_tlog_start_kind(struct tl_str t, enum tl_tlog_kind *k)
{
    if (t.n < 12)
        return false;
    switch (t.p[0]) {
    case 'R':
        if (starts(t, "Recompiling function ")) {
            *k = TL_TLOG_RECOMPILE;
            return true;
        }
        if (starts(t, "Restarting analysis due to ")) {
            *k = TL_TLOG_RESTART;
            return true;
        }
        return false;
    case 't':
        if (starts(t, "torch._dynamo hit config.")) {
            *k = TL_TLOG_LIMIT;
            return true;
        }
        return false;
    case 'G':
        if (!starts(t, "Graph break"))
            return false;
        if (starts(t, "Graph break in user code at ") || starts(t, "Graph break from `") ||
            (starts(t, "Graph break (") && find(t, ") in user code at ") >= 0) ||
            (starts(t, "Graph break: ") && find(t, " from user code at") >= 0)) {
            *k = TL_TLOG_GRAPH_BREAK;
            return true;
        }
        return false;
    case 'c':
        if (!starts(t, "create_symbol "))
            return false;
        if (find(t, " duck sized ") >= 0) {
            *k = TL_TLOG_DUCK_SIZED;
            return true;
        }
        if (find(t, " = ") >= 0) {
            *k = TL_TLOG_CREATE_SYMBOL;
            return true;
        }
        return false;
    case 'e':
        if (starts(t, "eval ") && find(t, " [guard added]") >= 0) {
            *k = TL_TLOG_GUARD_ADDED;
            return true;
        }
        return false;
    case 'S':
        if (starts(t, "Step 1: torchdynamo start tracing ")) {
            *k = TL_TLOG_START;
            return true;
        }
        return false;
    case 'E':
        if (starts(t, "Error while creating guard:")) {
            *k = TL_TLOG_GUARD_ERROR;
            return true;
        }
        return false;
    case 'W':
        if (starts(t, "WON'T CONVERT ")) {
            *k = TL_TLOG_FALLBACK;
            return true;
        }
        return false;
    case 'T':
        if (starts(t, "TRACED GRAPH") && (t.n == 12 || blankc(t.p[12]))) {
            *k = TL_TLOG_GRAPH;
            return true;
        }
        return false;
    default:
        return false;
    }
}

/* Lines that only TORCH_LOGS prints, for tl_tlog_detect. */
bool tl_tlog_marker_line(struct tl_str t)
{
    static const char *const marks[] = {
        "GUARDS:",
        "TREE_GUARD_MANAGER:",
        "+- RootGuardManager",
        "create_env",
        "produce_guards",
        "TRACE starts_line ",
        "track_symint ",
        "create_graph_input ",
        "Step 1: torchdynamo",
        "Step 2: calling compiler function",
    };
    for (size_t i = 0; i < TL_ARRAY_LEN(marks); i++)
        if (starts(t, marks[i]))
            return true;
    return false;
}

/* ---- the first line of each kind -------------------------------------------------------- */

static void open_recompile(struct tl_tlog_slot *s, struct tl_str t)
{
    struct tl_str r = SKIP(t, "Recompiling function ");
    long in = find(r, " in ");
    if (in < 0) {
        s->st.function = tl_tlog_keep(s, sub(r, 0, token_len(r)));
        return;
    }
    s->st.function = tl_tlog_keep(s, sub(r, 0, (size_t)in));
    struct tl_str loc = after(r, (size_t)in + 4);
    /* the one-line form of old versions: "... in F:N triggered by the following guard
     * failure: GUARD" */
    long tb = find(loc, " triggered by the following guard failure");
    if (tb >= 0) {
        struct tl_str rest = after(loc, (size_t)tb);
        loc.n = (size_t)tb;
        long c = find(rest, ":");
        if (c >= 0 && trim(after(rest, (size_t)c + 1)).n)
            tl_tlog_add_guard(s, trim(after(rest, (size_t)c + 1)));
    }
    tl_tlog_file_line(s, loc, &s->st.where);
}

static void open_limit(struct tl_tlog_slot *s, struct tl_str t)
{
    struct tl_str r = SKIP(t, "torch._dynamo hit config.");
    size_t i = 0;
    while (i < r.n && (identc(r.p[i]) || r.p[i] == '.'))
        i++;
    s->st.limit_name = tl_tlog_keep(s, sub(r, 0, i));
    r = ltrim(after(r, i));
    if (starts(r, "(")) {
        size_t j = 1;
        uint64_t v = 0;
        while (j < r.n && j < 19 && dig(r.p[j]))
            v = v * 10 + (uint64_t)(r.p[j++] - '0');
        if (j > 1 && j < r.n && r.p[j] == ')')
            s->st.limit = v;
    }
}

static void open_graph_break(struct tl_tlog_slot *s, struct tl_str t)
{
    struct tl_tlog_state *st = &s->st;
    struct tl_str loc = {NULL, 0};
    long k;
    if (starts(t, "Graph break in user code at ")) {
        loc = SKIP(t, "Graph break in user code at ");
    } else if (starts(t, "Graph break from `")) {
        /* the warning block of .item(): the frames follow "Graph break: from user code at:" */
        struct tl_str r = trim(t);
        if (tl_str_has_suffix(r, "consider setting:"))
            r = trim(sub(r, 0, r.n - sizeof("consider setting:") + 1));
        if (tl_str_has_suffix(r, ","))
            r.n--;
        st->reason = tl_tlog_keep(s, r);
        st->reason_seen = true;
        st->warning = true;
        return;
    } else if (starts(t, "Graph break (") && (k = find(t, ") in user code at ")) >= 0) {
        /* "(user stack suppressed due to duplicate graph break)", "(details suppressed)" */
        st->suppressed = find(sub(t, 0, (size_t)k), "suppressed") >= 0;
        loc = after(t, (size_t)k + sizeof(") in user code at ") - 1);
    } else if (starts(t, "Graph break: ") && (k = find(t, " from user code at")) >= 0) {
        /* 2.1-2.2: "Graph break: R from user code at:" then the frames */
        if ((size_t)k >= sizeof("Graph break: ") - 1)
            st->reason = tl_tlog_keep(s, trim(sub(t, sizeof("Graph break: ") - 1, (size_t)k)));
        st->reason_seen = true;
        st->in_user_tb = true;
        struct tl_str rest = ltrim(after(t, (size_t)k + sizeof(" from user code at") - 1));
        if (starts(rest, ":"))
            rest = ltrim(after(rest, 1));
        struct tl_pytext_frame fr;
        if (tl_pytext_frame_line(rest, &fr)) {
            tl_tlog_add_frame(s, &fr);
            st->tail_ok = true;
        }
        return;
    }
    tl_tlog_file_line(s, loc, &st->where);
}

static void open_symbol(struct tl_tlog_slot *s, struct tl_str t)
{
    struct tl_tlog_state *st = &s->st;
    struct tl_str r = SKIP(t, "create_symbol ");
    size_t i = token_len(r);
    st->symbol = tl_tlog_keep(s, sub(r, 0, i));
    r = after(r, i);
    if (starts(r, " = ")) {
        r = SKIP(r, " = ");
        i = token_len(r);
        st->value = tl_tlog_keep(s, sub(r, 0, i));
        r = after(r, i);
    }
    if (starts(r, " for ")) {
        r = SKIP(r, " for ");
        i = token_len(r);
        st->source = tl_tlog_keep(s, sub(r, 0, i));
        r = after(r, i);
    }
    if (starts(r, " [")) {
        const char *e = memchr(r.p, ']', r.n);
        if (e) {
            size_t j = (size_t)(e - r.p) + 1;
            st->range = tl_tlog_keep(s, sub(r, 1, j));
            r = after(r, j);
        }
    }
    tl_tlog_user_loc(s, r, &st->where);
}

static void open_duck(struct tl_tlog_slot *s, struct tl_str t)
{
    struct tl_tlog_state *st = &s->st;
    struct tl_str r = SKIP(t, "create_symbol ");
    size_t i = token_len(r);
    st->symbol = tl_tlog_keep(s, sub(r, 0, i));
    long k = find(r, " duck sized ");
    if (k < 0)
        return;
    r = SKIP(after(r, (size_t)k), " duck sized ");
    i = token_len(r);
    st->source = tl_tlog_keep(s, sub(r, 0, i));
    tl_tlog_user_loc(s, after(r, i), &st->where);
}

static void open_guard_added(struct tl_tlog_slot *s, struct tl_str t)
{
    struct tl_tlog_state *st = &s->st;
    struct tl_str r = SKIP(t, "eval ");
    long k = find(r, " [guard added]");
    if (k < 0)
        return;
    struct tl_str expr = trim(sub(r, 0, (size_t)k));
    /* PyTorch 2.13 marks a guard evaluated while guards were suppressed (its own bookkeeping,
     * such as a view's bounds): the mark is not part of the expression, which the trace logs
     * without it. */
    if (starts(expr, "[guard suppressed] "))
        expr = trim(SKIP(expr, "[guard suppressed] "));
    st->expr = tl_tlog_keep(s, expr);
    tl_tlog_user_loc(s, SKIP(after(r, (size_t)k), " [guard added]"), &st->where);
    /* Eq(s77, 5): the symbol, and the value it is specialized to; a guard that pins no symbol
     * to a number (Eq(s1, s2), Ne(s0, 1), s0 < 5) has only its expression */
    struct tl_str sym, val;
    if (tl_pytext_eq_constant(expr, &sym, &val)) {
        st->symbol = tl_tlog_keep(s, sym);
        st->value = tl_tlog_keep(s, val);
    }
}

static void open_start(struct tl_tlog_slot *s, struct tl_str t)
{
    struct tl_str r = SKIP(t, "Step 1: torchdynamo start tracing ");
    size_t i = token_len(r);
    s->st.function = tl_tlog_keep(s, sub(r, 0, i));
    tl_tlog_file_line(s, after(r, i), &s->st.where);
}

static void open_fallback(struct tl_tlog_slot *s, struct tl_str t)
{
    struct tl_tlog_state *st = &s->st;
    struct tl_str r = SKIP(t, "WON'T CONVERT ");
    size_t i = token_len(r);
    st->function = tl_tlog_keep(s, sub(r, 0, i));
    r = after(r, i);
    long d = find(r, " due to:");
    if (d >= 0) {
        struct tl_str err = trim(SKIP(after(r, (size_t)d), " due to:"));
        r.n = (size_t)d;
        if (err.n) {
            st->reason = tl_tlog_keep(s, err);
            st->complete = true;
        } else {
            st->await_error = true;
        }
    }
    r = trim(r);
    long ln = rfind(r, " line ");
    if (ln >= 0) {
        st->where.file = tl_tlog_keep(s, trim(sub(r, 0, (size_t)ln)));
        to_u32(trim(SKIP(after(r, (size_t)ln), " line ")), &st->where.line);
    } else if (r.n) {
        st->where.file = tl_tlog_keep(s, r);
    }
}

void tl_tlog_open_fields(struct tl_tlog_slot *s, enum tl_tlog_kind k, struct tl_str t)
{
    switch (k) {
    case TL_TLOG_RECOMPILE:
        open_recompile(s, t);
        break;
    case TL_TLOG_LIMIT:
        open_limit(s, t);
        break;
    case TL_TLOG_GRAPH_BREAK:
        open_graph_break(s, t);
        break;
    case TL_TLOG_CREATE_SYMBOL:
        open_symbol(s, t);
        break;
    case TL_TLOG_DUCK_SIZED:
        open_duck(s, t);
        break;
    case TL_TLOG_GUARD_ADDED:
        open_guard_added(s, t);
        break;
    case TL_TLOG_START:
        open_start(s, t);
        break;
    case TL_TLOG_RESTART:
        s->st.reason = tl_tlog_keep(s, trim(SKIP(t, "Restarting analysis due to ")));
        break;
    case TL_TLOG_FALLBACK:
        open_fallback(s, t);
        break;
    case TL_TLOG_UNCAUGHT:
    case TL_TLOG_GRAPH:
    case TL_TLOG_GUARD_ERROR:
        break;
    }
}
