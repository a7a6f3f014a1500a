/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guards made comparable, and the differences between two cache entries (guard_diff.h). Lines
 * are scanned once with their brackets and quotes tracked, so that a '#' or a comma inside a
 * string or a call is not taken for a comment or a separator.
 */
#include "base/config.h"
#include "model/guard_diff.h"
#include "base/xalloc.h"
#include "base/sort.h"

#include <stdlib.h>
#include <string.h>

void tl_guard_set_init(struct tl_guard_set *s)
{
    memset(s, 0, sizeof(*s));
    tl_arena_init(&s->arena, 16 * 1024);
}

void tl_guard_set_release(struct tl_guard_set *s)
{
    free(s->g);
    tl_arena_release(&s->arena);
    memset(s, 0, sizeof(*s));
}

const char *tl_guard_change_name(enum tl_guard_change_kind k)
{
    return k == TL_GUARD_CHANGED ? "changed" : k == TL_GUARD_ADDED ? "added" : "removed";
}

/* ---- scanning ------------------------------------------------------------------------------ */

/* Walks a text keeping track of brackets and quoted strings: depth 0 and not quoted is the
 * top level. */
struct scan {
    int depth;
    char quote; /* the quote a string opened with, 0 outside strings */
    bool escaped;
};

/* What a character is to the scan: most are nothing (0). */
enum { C_QUOTE = 1, C_OPEN, C_CLOSE, C_ESCAPE };
static const unsigned char cls[256] = {
    ['\''] = C_QUOTE, ['"'] = C_QUOTE, ['('] = C_OPEN,  ['['] = C_OPEN,    ['{'] = C_OPEN,
    [')'] = C_CLOSE,  [']'] = C_CLOSE, ['}'] = C_CLOSE, ['\\'] = C_ESCAPE,
};

/* Take c into the state; true when c is at the top level (outside strings and brackets, the
 * brackets themselves not included). */
static inline bool step(struct scan *s, char c)
{
    unsigned k = cls[(unsigned char)c];
    if (s->quote) {
        if (s->escaped)
            s->escaped = false;
        else if (k == C_ESCAPE)
            s->escaped = true;
        else if (c == s->quote)
            s->quote = 0;
        return false;
    }
    if (!k)
        return s->depth == 0;
    if (k == C_QUOTE)
        s->quote = c;
    else if (k == C_OPEN)
        s->depth++;
    else if (k == C_CLOSE && s->depth > 0)
        s->depth--;
    return false;
}

/* The comparisons a guard's expression may be, at its top level. */
static const char *const ops[] = {" == ", " != ", " is not ", " is "};

/* One pass over s: where its top-level " against " is (-1: none), and its first top-level
 * comparison (*op: its index in ops, -1: none). */
static void top_level(struct tl_str s, long *against, long *op_at, int *op)
{
    *against = *op_at = -1;
    *op = -1;
    struct scan sc = {0, 0, false};
    for (size_t i = 0; i < s.n; i++) {
        char next = i + 1 < s.n ? s.p[i + 1] : 0;
        if (s.p[i] == ' ' && (next == 'a' || next == '=' || next == '!' || next == 'i') &&
            sc.depth == 0 && !sc.quote) {
            struct tl_str rest = tl_str_make(s.p + i, s.n - i);
            if (*against < 0 && tl_str_has_prefix(rest, " against "))
                *against = (long)i;
            for (int k = 0; *op < 0 && k < (int)TL_ARRAY_LEN(ops); k++)
                if (tl_str_has_prefix(rest, ops[k])) {
                    *op_at = (long)i;
                    *op = k;
                }
        }
        step(&sc, s.p[i]);
    }
}

static struct tl_str trim(struct tl_str s)
{
    while (s.n && (s.p[0] == ' ' || s.p[0] == '\t'))
        s.p++, s.n--;
    while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t' || s.p[s.n - 1] == '\r' ||
                   s.p[s.n - 1] == '\n'))
        s.n--;
    return s;
}

/* Split s at its top-level ", " (a call's arguments, a JSON object's members at ','). At most
 * max parts; the last one takes the rest. */
static size_t split_top(struct tl_str s, char sep, struct tl_str *parts, size_t max)
{
    size_t n = 0, start = 0;
    struct scan sc = {0, 0, false};
    for (size_t i = 0; i < s.n && n + 1 < max; i++) {
        if (step(&sc, s.p[i]) && s.p[i] == sep) {
            parts[n++] = trim(tl_str_make(s.p + start, i - start));
            start = i + 1;
        }
    }
    if (max)
        parts[n++] = trim(tl_str_make(s.p + start, s.n - start));
    return n;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_ident(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* ---- normalizing ------------------------------------------------------------------------- */

/*
 * The base form of a guard's expression: numbers that only name this compilation's globals
 * ("__builtins_dict___2", the ___N suffix Dynamo gives the globals it installs) become N, and
 * addresses ("0x7f3a12c0") become <addr>: neither says anything about what is guarded. A NUL
 * byte becomes U+FFFD (the guard is kept as a C string).
 */
static void base_form(struct tl_buf *out, struct tl_str s)
{
    size_t done = 0; /* s up to here is in out */
    for (size_t i = 0; i < s.n; i++) {
        char c = s.p[i];
        if (c != '_' && c != '0')
            continue;
        if (c == '_' && i + 3 < s.n && s.p[i + 1] == '_' && s.p[i + 2] == '_' &&
            is_digit(s.p[i + 3])) {
            size_t j = i + 3;
            while (j < s.n && is_digit(s.p[j]))
                j++;
            if (j == s.n || !is_ident(s.p[j])) {
                tl_buf_add_nonul(out, s.p + done, i - done);
                tl_buf_adds(out, "___N");
                done = j;
                i = j - 1;
            }
        } else if (c == '0' && i + 2 < s.n && s.p[i + 1] == 'x' &&
                   (i == 0 || !is_ident(s.p[i - 1]))) {
            size_t j = i + 2;
            while (j < s.n && is_hex(s.p[j]))
                j++;
            if (j - i - 2 >= 4 && (j == s.n || !is_ident(s.p[j]))) {
                tl_buf_add_nonul(out, s.p + done, i - done);
                tl_buf_adds(out, "<addr>");
                done = j;
                i = j - 1;
            }
        }
    }
    tl_buf_add_nonul(out, s.p + done, s.n - done);
}

/* s with the object ids of ___check_obj_id(x, 1402...) and ___check_type_id(x, 9490...) masked
 * as <id>: they differ from run to run while the source expression says what is guarded. */
static void masked(struct tl_buf *out, struct tl_str s)
{
    static const char *const calls[] = {"___check_obj_id(", "___check_type_id("};
    size_t i = 0;
    while (i < s.n) {
        size_t c = 0;
        while (c < 2 &&
               !(s.n - i >= strlen(calls[c]) && !memcmp(s.p + i, calls[c], strlen(calls[c]))))
            c++;
        if (c == 2) {
            tl_buf_addch(out, s.p[i++]);
            continue;
        }
        size_t open = i + strlen(calls[c]);
        /* the matching ')' */
        struct scan sc = {1, 0, false};
        size_t j = open;
        while (j < s.n && sc.depth > 0)
            step(&sc, s.p[j++]);
        if (sc.depth > 0) { /* cut short: as it is */
            tl_buf_add(out, s.p + i, s.n - i);
            return;
        }
        struct tl_str inside = tl_str_make(s.p + open, j - 1 - open);
        long comma = -1;
        struct scan in = {0, 0, false};
        for (size_t k = 0; k < inside.n; k++)
            if (step(&in, inside.p[k]) && inside.p[k] == ',')
                comma = (long)k;
        struct tl_str last =
            comma < 0 ? TL_STR_NULL
                      : trim(tl_str_make(inside.p + comma + 1, inside.n - (size_t)comma - 1));
        bool number = last.n > 0;
        for (size_t k = 0; k < last.n; k++)
            number = number && is_digit(last.p[k]);
        tl_buf_add(out, s.p + i, open - i);
        if (number) {
            tl_buf_add(out, inside.p, (size_t)comma);
            tl_buf_adds(out, ", <id>");
        } else {
            masked(out, inside);
        }
        tl_buf_addch(out, ')');
        i = j;
    }
}

static void masked_str(struct tl_buf *out, struct tl_str s)
{
    if (tl_str_find(s, "___check_") < 0)
        tl_buf_addstr(out, s); /* nothing to mask: most guards */
    else
        masked(out, s);
}

/* What is left of a tree line once the tree, the kind and the comment are gone; empty when
 * the line is no guard. */
static struct tl_str expression(struct tl_str line)
{
    long at = tl_str_find(line, "+- ");
    if (at < 0)
        return TL_STR_NULL;
    struct tl_str s = tl_str_make(line.p + at + 3, line.n - (size_t)at - 3);
    /* the user code PyTorch notes after the guard: "  # return x + k  # f.py:11 in f" */
    struct scan sc = {0, 0, false};
    for (size_t i = 0; i < s.n; i++) {
        if (s.p[i] == '#' && !sc.quote && i > 0 && s.p[i - 1] == ' ') {
            s.n = i;
            break;
        }
        step(&sc, s.p[i]);
    }
    s = trim(s);
    /* the tree's own nodes: RootGuardManager, GuardManager: source=..., DictGuardManager ... */
    size_t h = 0;
    while (h < s.n && s.p[h] != ' ' && s.p[h] != ':')
        h++;
    if (h >= 7 && !memcmp(s.p + h - 7, "Manager", 7))
        return TL_STR_NULL;
    /* the guard's kind: EQUALS_MATCH, TENSOR_MATCH, GLOBAL_STATE, LAMBDA_GUARD */
    size_t k = 0;
    while (k < s.n && ((s.p[k] >= 'A' && s.p[k] <= 'Z') || is_digit(s.p[k]) || s.p[k] == '_'))
        k++;
    if (k > 0 && k + 1 < s.n && s.p[k] == ':' && s.p[k + 1] == ' ')
        s = trim(tl_str_make(s.p + k + 2, s.n - k - 2));
    return s;
}

bool tl_guard_normalize(struct tl_str line, struct tl_buf *text, struct tl_buf *key,
                        struct tl_buf *value)
{
    tl_buf_reset(text);
    tl_buf_reset(key);
    tl_buf_reset(value);
    struct tl_str e = expression(line);
    if (!e.n)
        return false;
    struct tl_buf base = TL_BUF_INIT;
    base_form(&base, e);
    struct tl_str b = tl_buf_str(&base);
    masked_str(text, b);
    long against, at;
    int op;
    top_level(b, &against, &at, &op);
    if (against > 0) {
        masked_str(key, tl_str_make(b.p, (size_t)against));
        tl_buf_add(value, b.p + against + 9, b.n - (size_t)against - 9);
        tl_buf_release(&base);
        return true;
    }
    if (op >= 0 && at > 0) {
        masked_str(key, tl_str_make(b.p, (size_t)at));
        tl_buf_add(key, ops[op], strlen(ops[op]) - 1);
        size_t from = (size_t)at + strlen(ops[op]);
        tl_buf_add(value, b.p + from, b.n - from);
        tl_buf_release(&base);
        return true;
    }
    /* a call: f(first, rest...) guards first; rest is its value */
    size_t f = 0;
    while (f < b.n && (is_ident(b.p[f]) || b.p[f] == '.'))
        f++;
    if (f > 0 && f < b.n && b.p[f] == '(') {
        struct scan sc = {1, 0, false};
        size_t j = f + 1;
        while (j < b.n && sc.depth > 0)
            step(&sc, b.p[j++]);
        struct tl_str args = tl_str_make(b.p + f + 1, j - f - 2);
        struct tl_str parts[2];
        if (sc.depth == 0 && split_top(args, ',', parts, 2) == 2) {
            tl_buf_add(key, b.p, f + 1);
            masked_str(key, parts[0]);
            tl_buf_adds(key, ", ...)");
            masked_str(key, tl_str_make(b.p + j, b.n - j));
            tl_buf_addstr(value, parts[1]);
            tl_buf_release(&base);
            return true;
        }
    }
    tl_buf_addbuf(key, text);
    tl_buf_release(&base);
    return true;
}

static void add(struct tl_guard_set *s, const struct tl_buf *text, const struct tl_buf *key,
                const struct tl_buf *value)
{
    TL_GROW(s->g, s->n + 1, s->alloc);
    struct tl_guard *g = &s->g[s->n++];
    g->text = tl_arena_memdupz(&s->arena, text->buf, text->len);
    g->key = tl_buf_str(key).n == text->len && !memcmp(key->buf, text->buf, text->len)
                 ? g->text
                 : tl_arena_memdupz(&s->arena, key->buf, key->len);
    g->value = tl_arena_memdupz(&s->arena, value->buf, value->len);
}

void tl_guard_set_add_line(struct tl_guard_set *s, struct tl_str line)
{
    struct tl_buf text = TL_BUF_INIT, key = TL_BUF_INIT, value = TL_BUF_INIT;
    if (tl_guard_normalize(line, &text, &key, &value))
        add(s, &text, &key, &value);
    tl_buf_release(&text);
    tl_buf_release(&key);
    tl_buf_release(&value);
}

void tl_guard_set_add_tree(struct tl_guard_set *s, struct tl_str tree)
{
    const char *p = tree.p, *end = tree.p + tree.n;
    while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        tl_guard_set_add_line(s, tl_str_make(p, (size_t)((nl ? nl : end) - p)));
        p = nl ? nl + 1 : end;
    }
}

/* ---- differences ------------------------------------------------------------------------- */

struct ref {
    const struct tl_guard *g;
    uint32_t pos;
    bool side; /* false: a, true: b */
    bool used;
};

static int cmp_ref(const void *x, const void *y)
{
    const struct ref *a = x, *b = y;
    int c = strcmp(a->g->key, b->g->key);
    if (c)
        return c;
    if (a->side != b->side)
        return a->side ? 1 : -1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

struct found {
    enum tl_guard_change_kind kind;
    const struct tl_guard *a, *b;
    uint32_t pos;
};

static int cmp_found(const void *x, const void *y)
{
    const struct found *a = x, *b = y;
    if (a->kind != b->kind)
        return (int)a->kind - (int)b->kind;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* The parts of two values that differ: the arguments (or JSON members) not in both, when both
 * split into the same number of parts; else the whole values. */
static void differing(struct tl_arena *arena, const char *a, const char *b, const char **before,
                      const char **after)
{
    struct tl_str va = tl_str_cstr(a), vb = tl_str_cstr(b);
    bool json = va.n > 1 && vb.n > 1 && va.p[0] == '{' && vb.p[0] == '{' && va.p[va.n - 1] == '}' &&
                vb.p[vb.n - 1] == '}';
    if (json) {
        va = tl_str_make(va.p + 1, va.n - 2);
        vb = tl_str_make(vb.p + 1, vb.n - 2);
    }
    enum { MAXP = 64 };
    struct tl_str pa[MAXP], pb[MAXP];
    size_t na = split_top(va, ',', pa, MAXP), nb = split_top(vb, ',', pb, MAXP);
    if (na != nb || na < 2 || na == MAXP) {
        *before = tl_arena_memdupz(arena, a, strlen(a));
        *after = tl_arena_memdupz(arena, b, strlen(b));
        return;
    }
    struct tl_buf x = TL_BUF_INIT, y = TL_BUF_INIT;
    for (size_t i = 0; i < na; i++) {
        if (tl_str_eq(pa[i], pb[i]))
            continue;
        if (x.len)
            tl_buf_adds(&x, ", ");
        if (y.len)
            tl_buf_adds(&y, ", ");
        tl_buf_addstr(&x, pa[i]);
        tl_buf_addstr(&y, pb[i]);
    }
    *before = tl_arena_memdupz(arena, x.buf, x.len);
    *after = tl_arena_memdupz(arena, y.buf, y.len);
    tl_buf_release(&x);
    tl_buf_release(&y);
}

size_t tl_guard_diff(const struct tl_guard_set *a, const struct tl_guard_set *b,
                     struct tl_guard_change *out, size_t max, struct tl_arena *arena)
{
    size_t n = (size_t)a->n + b->n;
    if (!n)
        return 0;
    struct ref *refs = tl_xcalloc(n, sizeof(*refs));
    for (uint32_t i = 0; i < a->n; i++)
        refs[i] = (struct ref){&a->g[i], i, false, false};
    for (uint32_t i = 0; i < b->n; i++)
        refs[a->n + i] = (struct ref){&b->g[i], i, true, false};
    tl_sort(refs, n, sizeof(*refs), cmp_ref);
    struct found *found = tl_xcalloc(n, sizeof(*found));
    size_t nfound = 0;
    for (size_t lo = 0; lo < n;) {
        size_t hi = lo + 1;
        while (hi < n && !strcmp(refs[hi].g->key, refs[lo].g->key))
            hi++;
        size_t mid = lo;
        while (mid < hi && !refs[mid].side)
            mid++;
        /* the same guard in both: no difference */
        for (size_t i = lo; i < mid; i++)
            for (size_t j = mid; j < hi && !refs[i].used; j++)
                if (!refs[j].used && !strcmp(refs[i].g->value, refs[j].g->value))
                    refs[i].used = refs[j].used = true;
        /* what is left pairs up in order as changed; the rest was added or removed */
        size_t i = lo, j = mid;
        for (;;) {
            while (i < mid && refs[i].used)
                i++;
            while (j < hi && refs[j].used)
                j++;
            if (i == mid || j == hi)
                break;
            found[nfound++] = (struct found){TL_GUARD_CHANGED, refs[i].g, refs[j].g, refs[j].pos};
            refs[i].used = refs[j].used = true;
        }
        for (size_t k = lo; k < hi; k++)
            if (!refs[k].used)
                found[nfound++] = (struct found){refs[k].side ? TL_GUARD_ADDED : TL_GUARD_REMOVED,
                                                 refs[k].side ? NULL : refs[k].g,
                                                 refs[k].side ? refs[k].g : NULL, refs[k].pos};
        lo = hi;
    }
    tl_sort(found, nfound, sizeof(*found), cmp_found);
    for (size_t i = 0; i < nfound && i < max; i++) {
        const struct found *f = &found[i];
        struct tl_guard_change *c = &out[i];
        c->kind = f->kind;
        c->before = c->after = NULL;
        if (f->kind == TL_GUARD_CHANGED) {
            c->guard = tl_arena_memdupz(arena, f->b->key, strlen(f->b->key));
            differing(arena, f->a->value, f->b->value, &c->before, &c->after);
        } else {
            const struct tl_guard *g = f->a ? f->a : f->b;
            c->guard = tl_arena_memdupz(arena, g->text, strlen(g->text));
        }
    }
    free(refs);
    free(found);
    return nfound;
}
