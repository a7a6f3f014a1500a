/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The message a rank has open (tlog_slot.h): its fields copied into the rank's buffer within
 * the caps, and the fields that PyTorch's wording shares between kinds (a place "F:N in FN",
 * the user code after a symbol or guard, a guard, a note, a frame). Depends on base (str, buf,
 * xalloc) and pytext.
 */
#include "base/config.h"
#include "input/tlog_slot.h"

#include <string.h>

#include "base/xalloc.h"
#include "input/pytext.h"
#include "input/textview.h"

/* Copy t into the message's buffer, within the caps; a cut never splits a UTF-8 sequence. */
struct tl_tlog_span tl_tlog_keep(struct tl_tlog_slot *s, struct tl_str t)
{
    size_t n = t.n;
    size_t room = s->buf.len < TL_TLOG_MAX_BYTES ? TL_TLOG_MAX_BYTES - s->buf.len : 0;
    size_t cap = room < TL_TLOG_MAX_FIELD ? room : TL_TLOG_MAX_FIELD;
    if (n > cap) {
        n = cap;
        for (int k = 0; k < 3 && n > 0 && ((unsigned char)t.p[n] & 0xC0) == 0x80; k++)
            n--;
        s->st.truncated = true;
    }
    struct tl_tlog_span sp = {(uint32_t)s->buf.len + 1, (uint32_t)n};
    tl_buf_add(&s->buf, t.p, n);
    return sp;
}

/* Append "\n" and t to the field sp (moved to the end of the buffer first when other fields
 * were kept after it). */
void tl_tlog_extend(struct tl_tlog_slot *s, struct tl_tlog_span *sp, struct tl_str t)
{
    if (!sp->at) {
        *sp = tl_tlog_keep(s, t);
        return;
    }
    if (sp->at - 1 + sp->n != s->buf.len) {
        /* room first, so that the view copied stays where it is */
        tl_buf_grow(&s->buf, sp->n + 1);
        *sp = tl_tlog_keep(s, tl_tlog_view(s, *sp));
    }
    struct tl_tlog_span nl = tl_tlog_keep(s, TL_STR_LIT("\n"));
    struct tl_tlog_span more = tl_tlog_keep(s, t);
    sp->n += nl.n + more.n;
}

/* "FILE:LINE"; "..." or nothing is an unknown place; "x.py:N" (a placeholder) has line 0. */
void tl_tlog_file_line(struct tl_tlog_slot *s, struct tl_str t, struct tl_tlog_lsp *loc)
{
    t = trim(t);
    if (t.n == 0 || tl_str_eq_cstr(t, "..."))
        return;
    long c = rfind(t, ":");
    if (c > 0) {
        struct tl_str num = after(t, (size_t)c + 1);
        uint32_t v;
        if (to_u32(num, &v)) {
            loc->file = tl_tlog_keep(s, sub(t, 0, (size_t)c));
            loc->line = v;
            return;
        }
        bool word = num.n > 0 && num.n <= 8;
        for (size_t i = 0; word && i < num.n; i++)
            word = identc(num.p[i]);
        if (word) {
            loc->file = tl_tlog_keep(s, sub(t, 0, (size_t)c));
            return;
        }
    }
    loc->file = tl_tlog_keep(s, t);
}

/* "F:N in FN" */
static void file_line_in(struct tl_tlog_slot *s, struct tl_str w, struct tl_tlog_lsp *loc)
{
    size_t off = 0;
    for (;;) {
        long k = find(after(w, off), " in ");
        if (k < 0)
            break;
        size_t at = off + (size_t)k;
        size_t e = at;
        while (e > 0 && at - e < 10 && dig(w.p[e - 1]))
            e--;
        if (e < at && e >= 2 && w.p[e - 1] == ':') {
            loc->file = tl_tlog_keep(s, sub(w, 0, e - 1));
            to_u32(sub(w, e, at), &loc->line);
            loc->function = tl_tlog_keep(s, trim(after(w, at + 4)));
            return;
        }
        off = at + 1;
    }
    tl_tlog_file_line(s, w, loc);
}

/*
 * The user code after a symbol or a guard: " at F:N in FN (INTERNAL), for more info ..." or
 * " CODE  # F:N in FN (INTERNAL), for more info ...".
 */
void tl_tlog_user_loc(struct tl_tlog_slot *s, struct tl_str r, struct tl_tlog_lsp *loc)
{
    long k = find(r, ", for more info");
    if (k >= 0)
        r.n = (size_t)k;
    r = trim(r);
    if (r.n && r.p[r.n - 1] == ')') {
        size_t depth = 0;
        for (size_t i = r.n; i-- > 0;) {
            if (r.p[i] == ')')
                depth++;
            else if (r.p[i] == '(' && --depth == 0) {
                r = rtrim(sub(r, 0, i));
                break;
            }
        }
    }
    struct tl_str w;
    long h = rfind(r, "  # ");
    if (h >= 0) {
        struct tl_str code = trim(sub(r, 0, (size_t)h));
        if (code.n)
            loc->code = tl_tlog_keep(s, code);
        w = trim(after(r, (size_t)h + 4));
    } else if (starts(r, "at ")) {
        w = trim(SKIP(r, "at "));
    } else {
        return;
    }
    file_line_in(s, w, loc);
}

void tl_tlog_add_guard(struct tl_tlog_slot *s, struct tl_str text)
{
    struct tl_tlog_state *st = &s->st;
    struct tl_tlog_gsp g;
    memset(&g, 0, sizeof(g));
    text = tl_pytext_guard_code(text);
    size_t k = tl_pytext_cid(text.p, text.n, &g.cid);
    if (k && k < text.n && text.p[k] == ':' && (k + 1 == text.n || blankc(text.p[k + 1]))) {
        g.has_cid = true;
        text = trim(after(text, k + 1));
        if (st->in_block && !st->block_has_cid) {
            st->block_has_cid = true;
            st->block_cid = g.cid;
        }
    } else if (st->in_block && st->block_has_cid) {
        /* recompiles_verbose: the later failures of one cache entry carry no compile id */
        g.has_cid = true;
        g.cid = st->block_cid;
    } else {
        memset(&g.cid, 0, sizeof(g.cid));
    }
    st->guard_seen = true;
    st->complete = true;
    if (s->nguards >= TL_TLOG_MAX_GUARDS) {
        st->truncated = true;
        return;
    }
    g.text = tl_tlog_keep(s, trim(text));
    TL_GROW(s->guards, s->nguards + 1, s->aguards);
    s->guards[s->nguards++] = g;
}

void tl_tlog_add_note(struct tl_tlog_slot *s, struct tl_tlog_span **arr, size_t *n, size_t *alloc,
                      size_t *n2, struct tl_str text)
{
    if (s->st.nested)
        (*n2)++;
    if (*n >= TL_TLOG_MAX_NOTES) {
        s->st.truncated = true;
        if (s->st.nested)
            (*n2)--;
        return;
    }
    struct tl_tlog_span sp = tl_tlog_keep(s, text);
    TL_GROW(*arr, *n + 1, *alloc);
    (*arr)[(*n)++] = sp;
}

void tl_tlog_add_frame(struct tl_tlog_slot *s, const struct tl_pytext_frame *fr)
{
    if (s->nframes >= TL_TLOG_MAX_FRAMES) {
        s->st.truncated = true;
        s->st.code_pending = false;
        return;
    }
    struct tl_tlog_lsp f;
    memset(&f, 0, sizeof(f));
    f.file = tl_tlog_keep(s, fr->file);
    f.line = fr->line;
    f.function = tl_tlog_keep(s, fr->function);
    TL_GROW(s->frames, s->nframes + 1, s->aframes);
    s->frames[s->nframes++] = f;
    s->st.code_pending = true;
}
