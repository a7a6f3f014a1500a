/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lines after the first of a message of the TORCH_LOGS text (tlog_take.h): whether each
 * belongs to the open message, and what it adds (a recompile's guards, a limit's function and
 * last reason, a graph break's notes and tracebacks, a failure's error and user frames, a
 * graph's name and nodes). Depends on base (str) and the reader's slot and pytext.
 */
#include "base/config.h"
#include "input/tlog_take.h"

#include <string.h>

#include "input/pytext.h"
#include "input/textview.h"

/* An assignment line of a printed graph: "name = ..." or "name: type = ...". */
static bool node_line(struct tl_str t)
{
    if (!t.n || !(alpha(t.p[0]) || t.p[0] == '_'))
        return false;
    size_t i = 0;
    while (i < t.n && identc(t.p[i]))
        i++;
    struct tl_str r = after(t, i);
    if (starts(r, " = "))
        return true;
    return starts(r, ": ") && find(r, " = ") >= 0;
}

/*
 * Each take_* reads one more line t (trimmed) of an open message and says whether it belongs
 * to it. ind: the line was indented. force: the line carries the message's own prefix, so it
 * belongs whatever it says (it is still read for fields).
 */
static bool take_recompile(struct tl_tlog_slot *s, struct tl_str t, bool ind, bool force)
{
    struct tl_tlog_state *st = &s->st;
    if (starts(t, "triggered by the following guard failure")) {
        long c = find(t, ":");
        if (c >= 0 && trim(after(t, (size_t)c + 1)).n)
            tl_tlog_add_guard(s, trim(after(t, (size_t)c + 1)));
        return true;
    }
    if (t.n && t.p[0] == '-' && (t.n == 1 || blankc(t.p[1]))) {
        /* PyTorch 2.13 follows a guard with where it was made, each line a "- " item of its
         * own: "- User stack trace:", "-   File ..., line 8, in f", "-     return x + n".
         * They are no guards. */
        struct tl_str raw = after(t, 1);
        if (starts(trim(raw), "User stack trace:")) {
            st->guard_stack = true;
            return true;
        }
        if (st->guard_stack && starts(raw, "   "))
            return true;
        st->guard_stack = false;
        tl_tlog_add_guard(s, trim(raw));
        return true;
    }
    if (starts(t, "guard ") && tl_str_has_suffix(t, " failures:")) {
        st->in_block = true;
        st->block_has_cid = false;
        return true;
    }
    return ind || force;
}

static bool take_limit(struct tl_tlog_slot *s, struct tl_str t, bool ind, bool force)
{
    struct tl_tlog_state *st = &s->st;
    if (starts(t, "function:")) {
        struct tl_str r = trim(SKIP(t, "function:"));
        size_t q = starts(r, "'") ? 1 : starts(r, "\xe2\x80\x98") ? 3 : 0;
        if (q) {
            r = after(r, q);
            long c1 = find(r, "'"), c2 = find(r, "\xe2\x80\x99");
            long c = c1 >= 0 && (c2 < 0 || c1 < c2) ? c1 : c2;
            size_t cl = c == c1 ? 1 : 3;
            if (c < 0) {
                c = (long)r.n;
                cl = 0;
            }
            st->function = tl_tlog_keep(s, sub(r, 0, (size_t)c));
            r = trim(after(r, (size_t)c + cl));
        } else {
            size_t i = token_len(r);
            st->function = tl_tlog_keep(s, sub(r, 0, i));
            r = trim(after(r, i));
        }
        if (starts(r, "(") && tl_str_has_suffix(r, ")"))
            tl_tlog_file_line(s, sub(r, 1, r.n - 1), &st->where);
        return true;
    }
    if (starts(t, "last reason:") || starts(t, "reasons:")) {
        long c = find(t, ":");
        tl_tlog_add_guard(s, trim(after(t, (size_t)c + 1)));
        return true;
    }
    if (starts(t, "To log all recompilation reasons") ||
        starts(t, "To diagnose recompilation issues") ||
        starts(t, "to diagnose recompilation issues")) {
        st->complete = true;
        return true;
    }
    return ind || force;
}

/* A line that a previous one announced: the inner graph break of "Failed to handle graph break
 * gracefully", or the reason of a nested one. */
static bool gb_awaited(struct tl_tlog_slot *s, struct tl_str t, enum tl_pytext_gb_label label)
{
    struct tl_tlog_state *st = &s->st;
    if (st->await_inner && label != TL_PYGB_EXPLANATION && label != TL_PYGB_HINT &&
        label != TL_PYGB_USER_TB && label != TL_PYGB_CONTEXT) {
        /* the graph break inside "Failed to handle graph break gracefully. ... Graph break
         * encountered:" is the one that tells why */
        st->await_inner = false;
        st->reason = tl_tlog_keep(s, t);
        st->type_cand = st->reason;
        return true;
    }
    st->await_inner = false;
    if (st->await_reason2) {
        st->await_reason2 = false;
        st->reason2 = tl_tlog_keep(s, t);
        st->tail_ok = true;
        return true;
    }
    return false;
}

/* The first "Reason:" line is the graph break's; later ones are taken and ignored. */
static void gb_reason(struct tl_tlog_slot *s, struct tl_str r)
{
    struct tl_tlog_state *st = &s->st;
    if (st->reason_seen)
        return;
    st->reason_seen = true;
    st->reason = tl_tlog_keep(s, r);
    st->type_cand = st->reason;
    st->fallback = find(r, "falling back to eager") >= 0;
    st->await_inner = tl_str_has_suffix(r, "Graph break encountered:");
    st->tail_ok = st->suppressed || s->nframes > 0;
}

/* The labelled lines of a graph break (v: what follows the label): reason, explanation, hint,
 * url, a nested break. */
static bool gb_labelled(struct tl_tlog_slot *s, enum tl_pytext_gb_label label, struct tl_str v)
{
    struct tl_tlog_state *st = &s->st;
    switch (label) {
    case TL_PYGB_REASON:
        gb_reason(s, v);
        return true;
    case TL_PYGB_EXPLANATION:
        /* the line before it names the graph break's type (PyTorch 2.7 on) */
        if (!st->type.at && !st->nested && !s->nexpl)
            st->type = st->type_cand;
        tl_tlog_add_note(s, &s->expl, &s->nexpl, &s->aexpl, &st->nexpl2, v);
        st->open_note = NOTE_EXPL;
        st->tail_ok = false;
        return true;
    case TL_PYGB_HINT:
        tl_tlog_add_note(s, &s->hints, &s->nhints, &s->ahints, &st->nhints2, v);
        st->open_note = NOTE_HINT;
        return true;
    case TL_PYGB_CONTEXT:
        st->open_note = NOTE_NONE;
        if (!st->context.at && !st->nested) {
            st->context = tl_tlog_keep(s, v);
            st->open_note = NOTE_CONTEXT;
        }
        st->tail_ok = true;
        return true;
    case TL_PYGB_MORE: {
        st->open_note = NOTE_NONE;
        struct tl_tlog_span *url = st->nested ? &st->url2 : &st->url;
        if (v.p && !url->at)
            *url = tl_tlog_keep(s, v);
        st->tail_ok = true;
        return true;
    }
    case TL_PYGB_NESTED:
        st->open_note = NOTE_NONE;
        /* a third break is told with the second: the second's reason stays */
        st->await_reason2 = !st->nested;
        st->nested = true;
        st->tail_ok = false;
        st->in_user_tb = st->in_internal_tb = st->code_pending = false;
        return true;
    default:
        return false;
    }
}

/* The tracebacks of a graph break: the user's frames are kept (with their code), the internal
 * traceback is skipped up to its exception line. */
static bool gb_traceback(struct tl_tlog_slot *s, struct tl_str t, enum tl_pytext_gb_label label,
                         bool ind, bool force)
{
    struct tl_tlog_state *st = &s->st;
    if (label == TL_PYGB_USER_TB) {
        st->in_user_tb = true;
        st->in_internal_tb = st->code_pending = false;
        return true;
    }
    if (label == TL_PYGB_TRACEBACK) {
        st->in_internal_tb = true;
        st->in_user_tb = st->code_pending = false;
        return true;
    }
    struct tl_pytext_frame fr;
    if (tl_pytext_frame_line(t, &fr)) {
        st->code_pending = false;
        if (st->in_user_tb) {
            tl_tlog_add_frame(s, &fr);
            st->tail_ok = true;
        }
        return true;
    }
    if (st->in_internal_tb && !ind && tl_pytext_exception_line(t)) {
        st->in_internal_tb = false;
        return true;
    }
    if (ind) {
        if (st->code_pending && !tl_pytext_carets(t)) {
            s->frames[s->nframes - 1].code = tl_tlog_keep(s, t);
            st->code_pending = false;
        }
        return true;
    }
    if (starts(t, "from user code:") || starts(t, "Set TORCH_LOGS") ||
        starts(t, "The above exception") || starts(t, "During handling of the above exception"))
        return true;
    return force;
}

/* PyTorch 2.7 on: the indented lines after "Explanation:", "Hint:" or "Developer debug
 * context:" go on with it (a data-dependent branch's explanation shows the graph's code); the
 * lines before the first "Explanation:" name the graph break's type, the last of them. */
static bool gb_note(struct tl_tlog_slot *s, struct tl_str t, enum tl_pytext_gb_label label,
                    bool ind)
{
    struct tl_tlog_state *st = &s->st;
    struct tl_pytext_frame fr;
    bool frame = tl_pytext_frame_line(t, &fr);
    if (!ind || !st->open_note || frame) {
        if (!ind && !frame && st->reason_seen && !s->nexpl && !st->nested && !st->warning &&
            !st->in_user_tb && !st->in_internal_tb && label != TL_PYGB_USER_TB &&
            label != TL_PYGB_TRACEBACK && label != TL_PYGB_ATTRIBUTION)
            st->type_cand = tl_tlog_keep(s, t);
        st->open_note = NOTE_NONE;
        return false;
    }
    if (st->open_note == NOTE_EXPL && s->nexpl)
        tl_tlog_extend(s, &s->expl[s->nexpl - 1], t);
    else if (st->open_note == NOTE_HINT && s->nhints)
        tl_tlog_extend(s, &s->hints[s->nhints - 1], t);
    else if (st->open_note == NOTE_CONTEXT)
        tl_tlog_extend(s, &st->context, t);
    return true;
}

static bool take_graph_break(struct tl_tlog_slot *s, struct tl_str t, bool ind, bool force)
{
    struct tl_tlog_state *st = &s->st;
    struct tl_str v;
    enum tl_pytext_gb_label label = tl_pytext_gb_label(t, &v);
    if (gb_awaited(s, t, label) || gb_labelled(s, label, v) || gb_note(s, t, label, ind))
        return true;
    if (st->warning && !st->in_user_tb) {
        /* the rest of the warning's advice, up to where its frames start */
        if (starts(t, "Graph break: from user code at")) {
            st->in_user_tb = true;
            return true;
        }
        return ind || force || starts(t, "or:") || starts(t, "to include these operations");
    }
    return gb_traceback(s, t, label, ind, force);
}

/* The first Triton kernel a traceback's line names ("triton_tem_fused_mm_0" of its generated
 * code's line), remembered in kernel. */
static void note_kernel(struct tl_tlog_slot *s, struct tl_str t)
{
    static const char *const kinds[] = {"triton_tem_", "triton_poi_", "triton_red_", "triton_per_"};
    if (s->st.kernel.at)
        return;
    for (size_t k = 0; k < TL_ARRAY_LEN(kinds); k++) {
        long at = find(t, kinds[k]);
        if (at < 0 || (at > 0 && identc(t.p[at - 1])))
            continue;
        size_t e = (size_t)at;
        while (e < t.n && identc(t.p[e]))
            e++;
        s->st.kernel = tl_tlog_keep(s, sub(t, (size_t)at, e));
        return;
    }
}

static bool take_fallback(struct tl_tlog_slot *s, struct tl_str t, bool ind, bool force)
{
    struct tl_tlog_state *st = &s->st;
    note_kernel(s, t);
    /* the line right after "due to:" is the error when it is no traceback */
    bool first = st->await_error;
    bool cont = st->reason_open;
    st->await_error = false;
    st->reason_open = false;
    if (starts(t, "due to:")) {
        struct tl_str err = trim(SKIP(t, "due to:"));
        if (err.n) {
            st->reason = tl_tlog_keep(s, err);
            st->complete = true;
        } else {
            st->await_error = true;
        }
        return true;
    }
    struct tl_pytext_frame fr;
    bool frame = tl_pytext_frame_line(t, &fr);
    if (cont && ind && !frame && st->reason.at) {
        /* the indented lines right after the exception line are the rest of its message */
        tl_tlog_extend(s, &st->reason, t);
        st->reason_open = true;
        return true;
    }
    /* the user's frames that led to the error: "from user code:" (an Unsupported), "Original
     * traceback:" (an error in a graph's node), each frame with its line of code */
    if (starts(t, "from user code:") || starts(t, "Original traceback:")) {
        st->in_user_tb = true;
        s->nframes = 0;
        return true;
    }
    if (frame && st->in_user_tb) {
        tl_tlog_add_frame(s, &fr);
        return true;
    }
    if (ind && st->code_pending && s->nframes && !tl_pytext_carets(t)) {
        s->frames[s->nframes - 1].code = tl_tlog_keep(s, trim(t));
        st->code_pending = false;
        return true;
    }
    st->code_pending = false;
    if (starts(t, "Traceback (most recent call last):")) {
        st->in_user_tb = false;
        return true;
    }
    if (frame || ind)
        return true;
    /* the error a wrapper announces ("...BackendCompilerFailed: backend='inductor' raised:")
     * is the next line, whatever its exception's name ("OutOfResources: out of resource") */
    bool wrapped_error = cont && tl_str_has_suffix(tl_tlog_view(s, st->reason), ":") && t.n &&
                         (alpha(t.p[0]) || t.p[0] == '_') && find(t, ": ") > 0;
    for (size_t i = 0; wrapped_error && t.p[i] != ':'; i++)
        wrapped_error = identc(t.p[i]) || t.p[i] == '.';
    if (tl_pytext_exception_line(t) || first || wrapped_error) {
        /* the last line of a traceback says why (the outermost of chained exceptions); an
         * error whose message announces the one it wraps ("BackendCompilerFailed: backend='x'
         * raised:" then "RuntimeError: ...") keeps both lines */
        if (cont && tl_str_has_suffix(tl_tlog_view(s, st->reason), ":"))
            tl_tlog_extend(s, &st->reason, t);
        else
            st->reason = tl_tlog_keep(s, t);
        st->reason_open = !first;
        st->complete = true;
        return true;
    }
    if (starts(t, "from user code:") || starts(t, "Set TORCH_LOGS") ||
        starts(t, "The above exception") || starts(t, "During handling of the above exception"))
        return true;
    /* the guard that could not be created: "Name: ''" then its indented fields */
    if (st->kind == TL_TLOG_GUARD_ERROR && starts(t, "Name:"))
        return true;
    return force;
}

static bool take_graph(struct tl_tlog_slot *s, struct tl_str t, bool ind, bool force)
{
    struct tl_tlog_state *st = &s->st;
    if (!st->name_seen && starts(t, "=====")) {
        struct tl_str r = trim(SKIP(t, "====="));
        while (r.n && r.p[r.n - 1] == '=')
            r.n--;
        st->graph_name = tl_tlog_keep(s, trim(r));
        st->name_seen = true;
        return true;
    }
    if (st->name_seen && !st->class_seen && !ind &&
        (starts(t, "class ") || find(t, " class ") >= 0)) {
        st->class_seen = true;
        return true;
    }
    if (!ind && !force)
        return false;
    if (node_line(t))
        st->nodes++;
    if (starts(t, "return") && (t.n == 6 || t.p[6] == ' ' || t.p[6] == '('))
        st->returned = true;
    return true;
}

bool tl_tlog_take(struct tl_tlog_slot *s, struct tl_str t, bool ind, bool force)
{
    switch (s->st.kind) {
    case TL_TLOG_RECOMPILE:
        return take_recompile(s, t, ind, force);
    case TL_TLOG_LIMIT:
        return take_limit(s, t, ind, force);
    case TL_TLOG_GRAPH_BREAK:
        return take_graph_break(s, t, ind, force);
    case TL_TLOG_FALLBACK:
    case TL_TLOG_GUARD_ERROR:
    case TL_TLOG_UNCAUGHT:
        return take_fallback(s, t, ind, force);
    case TL_TLOG_GRAPH:
        return take_graph(s, t, ind, force);
    default:
        return false;
    }
}
