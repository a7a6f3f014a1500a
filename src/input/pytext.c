/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PyTorch's own wording (pytext.h): tracebacks, compile ids and guards, graph-break messages,
 * failures, restarts, resume functions and limits, read from views without copying. Used by
 * the TORCH_LOGS reader line by line and by the trace's diagnosis on whole payloads, so that
 * both read PyTorch's text alike. Depends on base (str, arena) and compile_id only.
 */
#include "base/config.h"
#include "input/pytext.h"

#include <stdlib.h>
#include <string.h>

#include "input/textview.h"

/* ---- tracebacks --------------------------------------------------------------------------- */

bool tl_pytext_frame_line(struct tl_str t, struct tl_pytext_frame *f)
{
    t = ltrim(t);
    struct tl_str r;
    if (starts(t, "File \""))
        r = SKIP(t, "File \"");
    else if (starts(t, "File \xe2\x80\x9c"))
        r = SKIP(t, "File \xe2\x80\x9c");
    else
        return false;
    size_t el = 8;
    long e = find(r, "\", line ");
    if (e < 0) {
        e = find(r, "\xe2\x80\x9d, line ");
        el = 10;
    }
    if (e < 0)
        return false;
    memset(f, 0, sizeof(*f));
    f->file = sub(r, 0, (size_t)e);
    r = after(r, (size_t)e + el);
    size_t i = 0;
    while (i < r.n && dig(r.p[i]))
        i++;
    to_u32(sub(r, 0, i), &f->line);
    r = after(r, i);
    f->function = starts(r, ", in ") ? trim(SKIP(r, ", in ")) : tl_str_make(r.p, 0);
    return true;
}

bool tl_pytext_carets(struct tl_str t)
{
    for (size_t i = 0; i < t.n; i++)
        if (t.p[i] != '^' && t.p[i] != '~' && !blankc(t.p[i]))
            return false;
    return true;
}

bool tl_pytext_exception_line(struct tl_str t)
{
    if (!t.n || !(alpha(t.p[0]) || t.p[0] == '_'))
        return false;
    size_t i = 0;
    bool dot = false;
    while (i < t.n && (identc(t.p[i]) || t.p[i] == '.')) {
        dot |= t.p[i] == '.';
        i++;
    }
    if (i < t.n && t.p[i] != ':')
        return false;
    if (dot)
        return true;
    struct tl_str name = sub(t, 0, i);
    static const char *const ends[] = {"Error",     "Exception", "Unsupported",
                                       "Interrupt", "Exit",      "Warning"};
    for (size_t k = 0; k < TL_ARRAY_LEN(ends); k++)
        if (tl_str_has_suffix(name, ends[k]))
            return true;
    return false;
}

struct tl_str tl_pytext_exception_type(struct tl_str reason)
{
    long colon = find(reason, ": ");
    struct tl_str head = tl_str_make(reason.p, colon >= 0 ? (size_t)colon : reason.n);
    if (head.n && memchr(head.p, ' ', head.n))
        return TL_STR_NULL;
    const char *dot = head.p + head.n;
    while (dot > head.p && dot[-1] != '.')
        dot--;
    return tl_str_make(dot, (size_t)(head.p + head.n - dot));
}

struct tl_str tl_pytext_exception_name(struct tl_str l)
{
    long colon = find(l, ": ");
    if (colon <= 0 || !alpha(l.p[0]))
        return TL_STR_NULL;
    struct tl_str last = tl_pytext_exception_type(l);
    if (!last.p)
        return TL_STR_NULL;
    if (tl_str_has_suffix(last, "Error") || tl_str_has_suffix(last, "Exception") ||
        find(sub(l, 0, (size_t)colon), ".exc.") >= 0)
        return last;
    return TL_STR_NULL;
}

/* ---- compile ids and guards --------------------------------------------------------------- */

size_t tl_pytext_cid(const char *p, size_t n, struct tl_compile_id *id)
{
    uint32_t v[3] = {0, 0, 0};
    int k = 0;
    size_t i = 0;
    bool ca = n > 0 && p[0] == '!';
    if (ca)
        i++;
    for (;;) {
        size_t d = i;
        uint32_t x = 0;
        while (i < n && i - d < 9 && dig(p[i]))
            x = x * 10 + (uint32_t)(p[i++] - '0');
        if (i == d || (i < n && dig(p[i])))
            return 0;
        v[k++] = x;
        if (k == 3 || i >= n || p[i] != '/')
            break;
        i++;
    }
    if (ca ? (k != 1 && k != 3) : k != 2)
        return 0;
    memset(id, 0, sizeof(*id));
    if (ca) {
        id->has = TL_CID_CA;
        id->ca = v[0];
        if (k == 3) {
            id->has |= TL_CID_FRAME | TL_CID_FCID;
            id->frame = v[1];
            id->fcid = v[2];
        }
    } else {
        id->has = TL_CID_FRAME | TL_CID_FCID;
        id->frame = v[0];
        id->fcid = v[1];
    }
    if (i + 1 < n && p[i] == '_' && dig(p[i + 1])) {
        size_t d = ++i;
        uint32_t x = 0;
        while (i < n && i - d < 9 && dig(p[i]))
            x = x * 10 + (uint32_t)(p[i++] - '0');
        if (i < n && dig(p[i]))
            return 0;
        id->has |= TL_CID_ATTEMPT;
        id->attempt = x;
    }
    return i;
}

struct tl_str tl_pytext_guard_code(struct tl_str t)
{
    char q = 0;
    for (size_t i = 0; i < t.n; i++) {
        char c = t.p[i];
        if (q) {
            if (c == '\\')
                i++;
            else if (c == q)
                q = 0;
        } else if (c == '\'' || c == '"') {
            q = c;
        } else if (c == ' ' && i + 3 < t.n && t.p[i + 1] == ' ' && t.p[i + 2] == '#' &&
                   t.p[i + 3] == ' ') {
            return rtrim(sub(t, 0, i));
        }
    }
    return t;
}

/* ---- graph breaks ------------------------------------------------------------------------- */

enum tl_pytext_gb_label tl_pytext_gb_label(struct tl_str t, struct tl_str *value)
{
    *value = tl_str_make(t.p, 0);
    if (!t.n)
        return TL_PYGB_NONE;
    switch (t.p[0]) {
    case 'G':
    case 'R':
        if (starts(t, "Graph Break Reason:") || starts(t, "Reason:")) {
            *value = trim(after(t, (size_t)find(t, ":") + 1));
            return TL_PYGB_REASON;
        }
        return TL_PYGB_NONE;
    case 'E':
        if (starts(t, "Explanation:")) {
            *value = trim(SKIP(t, "Explanation:"));
            return TL_PYGB_EXPLANATION;
        }
        return TL_PYGB_NONE;
    case 'H':
        if (starts(t, "Hint:")) {
            *value = trim(SKIP(t, "Hint:"));
            return TL_PYGB_HINT;
        }
        return TL_PYGB_NONE;
    case 'D':
        if (starts(t, "Developer debug context:")) {
            *value = trim(SKIP(t, "Developer debug context:"));
            return TL_PYGB_CONTEXT;
        }
        return TL_PYGB_NONE;
    case 'F':
        if (starts(t, "For more details about this graph break")) {
            long v = find(t, "visit:");
            *value = v >= 0 ? trim(SKIP(after(t, (size_t)v), "visit:")) : TL_STR_NULL;
            return TL_PYGB_MORE;
        }
        return TL_PYGB_NONE;
    case '*':
        return starts(t, "*** While handling this graph break") ? TL_PYGB_NESTED : TL_PYGB_NONE;
    case 'U':
        return starts(t, "User code traceback:") ? TL_PYGB_USER_TB : TL_PYGB_NONE;
    case 'T':
        return starts(t, "Traceback (most recent call last):") ? TL_PYGB_TRACEBACK : TL_PYGB_NONE;
    case 'S':
        return starts(t, "Stack variable source attribution:") ? TL_PYGB_ATTRIBUTION : TL_PYGB_NONE;
    default:
        return TL_PYGB_NONE;
    }
}

size_t tl_pytext_gb_id(struct tl_str url, char out[16])
{
    out[0] = '\0';
    long at = find(url, "/gb/gb");
    if (at < 0)
        return 0;
    const char *p = url.p + at + 6, *end = url.p + url.n;
    size_t n = 2;
    memcpy(out, "GB", 2);
    while (p < end && dig(*p) && n + 1 < 16)
        out[n++] = *p++;
    if (n == 2)
        n = 0;
    out[n] = '\0';
    return n;
}

/* a, "\n" and b, in arena (b alone when a is empty) */
static struct tl_str joined(struct tl_arena *arena, struct tl_str a, struct tl_str b)
{
    if (!a.n)
        return b;
    char *p = tl_arena_alloc(arena, a.n + 1 + b.n);
    memcpy(p, a.p, a.n);
    p[a.n] = '\n';
    memcpy(p + a.n + 1, b.p, b.n);
    return tl_str_make(p, a.n + 1 + b.n);
}

/* The next line of *rest (without its newline), and *rest moved past it. */
static struct tl_str next_line(struct tl_str *rest)
{
    const char *nl = memchr(rest->p, '\n', rest->n);
    size_t n = nl ? (size_t)(nl - rest->p) : rest->n;
    struct tl_str l = tl_str_make(rest->p, n);
    *rest = nl ? after(*rest, n + 1) : after(*rest, n);
    return l;
}

/*
 * The message's parts in the order PyTorch writes them: the head (up to the reason), the notes,
 * the attribution of stack variables, the user code traceback; the internal traceback after it
 * is not read. A labelled line is read at the start of a line (the reason) or after the
 * indentation (the notes); a blank line leaves a note open.
 */
void tl_pytext_graph_break(struct tl_str text, struct tl_arena *arena, struct tl_pytext_gb *out)
{
    memset(out, 0, sizeof(*out));
    struct tl_pytext_frame *tb = NULL;
    size_t ntb = 0;
    struct tl_pytext_gb_note *g = &out->notes[0];
    struct tl_str type_cand[2] = {TL_STR_NULL, TL_STR_NULL};
    size_t nnotes = 1;
    bool await_reason2 = false, labelled = false;
    enum { N_NONE, N_EXPL, N_HINT, N_CONTEXT } open = N_NONE;
    const char *reason_end = NULL;
    enum { HEAD, MSG, ATTRIBUTION, TB, DONE } state = HEAD;
    struct tl_str rest = text;
    while (rest.n && state != DONE) {
        struct tl_str l = next_line(&rest);
        struct tl_str t = trim(l);
        bool ind = l.n && blankc(l.p[0]);
        struct tl_str v;
        enum tl_pytext_gb_label label = tl_pytext_gb_label(t, &v);
        if (state < TB && !ind && label == TL_PYGB_REASON) {
            if (state == HEAD) {
                g->reason = v;
                type_cand[0] = v;
                reason_end = l.p + l.n;
                state = MSG;
            }
        } else if (!ind && label == TL_PYGB_USER_TB) {
            state = TB;
        } else if (state == MSG && !ind && label == TL_PYGB_ATTRIBUTION) {
            state = ATTRIBUTION;
        } else if (state == MSG && !t.n) {
            continue; /* a blank line leaves a note open */
        } else if (state == MSG && await_reason2) {
            g->reason = type_cand[1] = t;
            await_reason2 = false;
        } else if (state == MSG && label == TL_PYGB_EXPLANATION) {
            if (!g->type.n && !g->explanation.n)
                g->type = type_cand[nnotes - 1];
            if (!g->explanation.n)
                g->explanation = v;
            open = N_EXPL;
            labelled = true;
        } else if (state == MSG && label == TL_PYGB_HINT) {
            open = g->nhints < TL_PYTEXT_GB_HINTS ? N_HINT : N_NONE;
            if (open)
                g->hints[g->nhints++] = v;
            labelled = true;
        } else if (state == MSG && label == TL_PYGB_CONTEXT) {
            open = g->context.n || nnotes > 1 ? N_NONE : N_CONTEXT;
            if (open)
                g->context = v;
            labelled = true;
        } else if (state == MSG && label == TL_PYGB_MORE) {
            if (v.p && !g->url.n)
                g->url = v;
            open = N_NONE;
            labelled = true;
        } else if (state == MSG && label == TL_PYGB_NESTED) {
            /* a break while handling that one is told with it (as the text reader does) */
            await_reason2 = nnotes == 1;
            g = &out->notes[1];
            nnotes = 2;
            open = N_NONE;
            labelled = true;
        } else if (state == MSG && ind && open) {
            struct tl_str *f = open == N_EXPL   ? &g->explanation
                               : open == N_HINT ? &g->hints[g->nhints - 1]
                                                : &g->context;
            *f = joined(arena, *f, t);
        } else if (state == MSG) {
            open = N_NONE;
            if (!ind && !g->explanation.n)
                type_cand[nnotes - 1] = t;
            if (!labelled)
                reason_end = l.p + l.n; /* a reason of several lines */
        } else if (state == TB && starts(l, "  File \"")) {
            struct tl_pytext_frame fr;
            if (!tl_pytext_frame_line(l, &fr))
                continue;
            if (!tb)
                tb = tl_arena_alloc(arena, TL_PYTEXT_GB_FRAMES * sizeof(*tb));
            if (ntb == TL_PYTEXT_GB_FRAMES) {
                /* keep the innermost frames: the user's line is there, below a test runner's
                 * or a trainer's frames (pytest's alone are 40) */
                memmove(tb, tb + 1, (TL_PYTEXT_GB_FRAMES - 1) * sizeof(*tb));
                ntb--;
            }
            tb[ntb++] = fr;
        } else if (state == TB && starts(l, "    ") && ntb && !tb[ntb - 1].code.p) {
            tb[ntb - 1].code = l;
        } else if (state == TB && (!l.n || starts(l, "Traceback"))) {
            state = DONE;
        }
    }
    if (out->notes[0].reason.p && reason_end)
        out->notes[0].reason.n = (size_t)(reason_end - out->notes[0].reason.p);
    out->nnotes = nnotes == 2 && out->notes[1].reason.n ? 2 : 1;
    out->frames = tb;
    out->nframes = ntb;
}

/* ---- failures ----------------------------------------------------------------------------- */

void tl_pytext_wont_convert(struct tl_str text, struct tl_arena *arena,
                            struct tl_pytext_failure *out)
{
    memset(out, 0, sizeof(*out));
    struct tl_pytext_frame *frames = NULL;
    size_t alloc = 0;
    bool user = false;
    struct tl_str rest = text;
    while (rest.n) {
        struct tl_str l = next_line(&rest);
        struct tl_pytext_frame fr;
        if (starts(l, "Original traceback:") || starts(l, "from user code:")) {
            user = true;
        } else if (starts(l, "Traceback (most recent call last)")) {
            user = false;
        } else if (tl_pytext_frame_line(l, &fr)) {
            if (!user || !fr.file.n)
                continue;
            if (out->nframes == alloc) {
                size_t grown = alloc ? 2 * alloc : 8;
                struct tl_pytext_frame *f = tl_arena_alloc(arena, grown * sizeof(*f));
                if (alloc)
                    memcpy(f, frames, alloc * sizeof(*f));
                frames = f;
                alloc = grown;
            }
            frames[out->nframes++] = fr;
        } else {
            struct tl_str name = tl_pytext_exception_name(l);
            if (name.n) {
                out->type = name;
                out->reason = l;
            }
        }
    }
    out->frames = frames;
}

/* ---- restarts, resume functions, limits, guards on symbols -------------------------------- */

struct tl_str tl_pytext_restart_kind(struct tl_str reason)
{
    reason = trim(reason);
    if (!starts(reason, "<class '") || !tl_str_has_suffix(reason, "RestartAnalysis'>"))
        return tl_str_make("", 0);
    struct tl_str name = tl_str_make(reason.p + 8, reason.n - 10);
    for (size_t i = name.n; i > 0; i--)
        if (name.p[i - 1] == '.')
            return after(name, i);
    return name;
}

#define RESUME "torch_dynamo_resume_in_"

struct tl_str tl_pytext_resume_function(struct tl_str name)
{
    if (!starts(name, RESUME))
        return name;
    struct tl_str rest = SKIP(name, RESUME);
    for (size_t i = rest.n; i > 4; i--)
        if (!memcmp(rest.p + i - 4, "_at_", 4))
            return sub(rest, 0, i - 4);
    return rest;
}

uint32_t tl_pytext_resume_line(struct tl_str name)
{
    if (!starts(name, RESUME))
        return 0;
    size_t i = name.n;
    while (i > 0 && dig(name.p[i - 1]))
        i--;
    if (i == name.n || i < 4 || memcmp(name.p + i - 4, "_at_", 4) || name.n - i > 9)
        return 0;
    uint32_t v = 0;
    for (size_t k = i; k < name.n; k++)
        v = v * 10 + (uint32_t)(name.p[k] - '0');
    return v;
}

void tl_pytext_limit_reason(struct tl_str reason, struct tl_str *name, uint64_t *value)
{
    static const char *const names[] = {"recompile_limit", "cache_size_limit"};
    for (size_t i = 0; i < TL_ARRAY_LEN(names); i++)
        if (find(reason, names[i]) >= 0)
            *name = tl_str_cstr(names[i]);
    long at = find(reason, "Limit type: ");
    if (at >= 0) {
        struct tl_str r = SKIP(after(reason, (size_t)at), "Limit type: ");
        size_t e = 0;
        while (e < r.n && ((r.p[e] >= 'a' && r.p[e] <= 'z') || r.p[e] == '_'))
            e++;
        if (e)
            *name = sub(r, 0, e);
    }
    if ((at = find(reason, "(currently set to ")) >= 0) {
        struct tl_str r = SKIP(after(reason, (size_t)at), "(currently set to ");
        uint64_t v = 0;
        for (size_t i = 0; i < r.n && dig(r.p[i]) && v < UINT64_MAX / 10 - 9; i++)
            v = v * 10 + (uint64_t)(r.p[i] - '0');
        *value = v;
    }
}

/* A sympy symbol name: letters then digits ("s77", "u0", "zuf1"). */
static bool symbol_name(struct tl_str t)
{
    size_t i = 0;
    while (i < t.n && t.p[i] >= 'a' && t.p[i] <= 'z')
        i++;
    if (i == 0 || i == t.n)
        return false;
    for (; i < t.n; i++)
        if (!dig(t.p[i]))
            return false;
    return true;
}

static bool int_literal(struct tl_str t)
{
    size_t i = t.n && t.p[0] == '-';
    if (i == t.n)
        return false;
    for (; i < t.n; i++)
        if (!dig(t.p[i]))
            return false;
    return true;
}

bool tl_pytext_eq_constant(struct tl_str expr, struct tl_str *symbol, struct tl_str *value)
{
    if (!starts(expr, "Eq(") || !tl_str_has_suffix(expr, ")"))
        return false;
    struct tl_str in = sub(expr, 3, expr.n - 1);
    long c = find(in, ", ");
    if (c < 0)
        return false;
    struct tl_str a = sub(in, 0, (size_t)c), b = after(in, (size_t)c + 2);
    if (!symbol_name(a) && symbol_name(b)) {
        struct tl_str x = a;
        a = b;
        b = x;
    }
    if (!symbol_name(a) || !int_literal(b))
        return false;
    *symbol = a;
    *value = b;
    return true;
}
