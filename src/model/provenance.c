/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Provenance line mapping (spec modes.md §3.3-3.4): node names of the graph texts, the lines
 * of each kernel in the Python and C++ code, and the six tables. All kernel names are found
 * in one scan of each code text (an Aho-Corasick automaton over the names, which are all
 * prefixes of the kernel keys; run twice, to count then to fill), so a big file with
 * thousands of kernels stays linear where a search per kernel would be quadratic.
 * Memory comes from the caller's arena only. Depends on base/ (json, arena, map's hash).
 */
#include "base/config.h"
#include "model/provenance.h"
#include "base/map.h"
#include "base/sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- lines and whitespace ---- */

struct lines {
    struct tl_str *l; /* each line without its '\n' and trailing '\r' */
    size_t n;
};

/* Split on '\n' (spec §3.4): a trailing '\r' is dropped, a final newline starts no line. */
static struct lines split_lines(struct tl_arena *a, struct tl_str text)
{
    struct lines ls = {NULL, 0};
    if (!text.n)
        return ls;
    const char *p = text.p;
    const char *end = text.p + text.n;
    size_t count = 1;
    for (const char *q = p; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++)
        count++;
    if (end[-1] == '\n')
        count--;
    /* Line numbers are int32: a text of 2^31 lines is cut (it would not fit memory anyway). */
    if (count > INT32_MAX - 1)
        count = INT32_MAX - 1;
    ls.l = tl_arena_alloc(a, count * sizeof(*ls.l));
    while (ls.n < count) {
        const char *q = memchr(p, '\n', (size_t)(end - p));
        const char *e = q ? q : end;
        size_t len = (size_t)(e - p);
        if (len && p[len - 1] == '\r')
            len--;
        ls.l[ls.n++] = tl_str_make(p, len);
        p = q ? q + 1 : end;
    }
    return ls;
}

/* Drop the leading empty lines of a code text; *text becomes the slice that remains. */
static void drop_leading_empty(struct lines *ls, struct tl_str *text)
{
    size_t k = 0;
    while (k < ls->n && ls->l[k].n == 0)
        k++;
    if (k) {
        ls->l += k;
        ls->n -= k;
        const char *start = ls->n ? ls->l[0].p : text->p + text->n;
        text->n -= (size_t)(start - text->p);
        text->p = start;
    }
}

/* Length of the Unicode White_Space character at p (Rust's trim and regex \s), or 0. */
static size_t ws_fwd(const unsigned char *p, const unsigned char *e)
{
    if (p >= e)
        return 0;
    unsigned c = p[0];
    if (c == ' ' || (c >= '\t' && c <= '\r'))
        return 1;
    if (c < 0xC2)
        return 0;
    size_t left = (size_t)(e - p);
    if (c == 0xC2)
        return left >= 2 && (p[1] == 0x85 || p[1] == 0xA0) ? 2 : 0;
    if (left < 3)
        return 0;
    if (c == 0xE1)
        return p[1] == 0x9A && p[2] == 0x80 ? 3 : 0; /* U+1680 */
    if (c == 0xE2 && p[1] == 0x80)                   /* U+2000-200A, 2028, 2029, 202F */
        return (p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF ? 3
                                                                                              : 0;
    if (c == 0xE2 && p[1] == 0x81)
        return p[2] == 0x9F ? 3 : 0; /* U+205F */
    if (c == 0xE3)
        return p[1] == 0x80 && p[2] == 0x80 ? 3 : 0; /* U+3000 */
    return 0;
}

/* Length of the White_Space character that ends at e (b is the start of the text), or 0. */
static size_t ws_back(const unsigned char *b, const unsigned char *e)
{
    for (size_t k = 1; k <= 3; k++)
        if ((size_t)(e - b) >= k && ws_fwd(e - k, e) == k)
            return k;
    return 0;
}

static struct tl_str trim(struct tl_str s)
{
    const unsigned char *p = (const unsigned char *)s.p;
    const unsigned char *e = p + s.n;
    size_t k;
    while ((k = ws_fwd(p, e)) != 0)
        p += k;
    while ((k = ws_back(p, e)) != 0)
        e -= k;
    return tl_str_make((const char *)p, (size_t)(e - p));
}

static bool contains(struct tl_str hay, const char *needle)
{
    return tl_str_find(hay, needle) >= 0;
}

/* The index of the first line containing all of a, b and c (NULL: not needed), or 0. */
static size_t first_line_with(const struct lines *ls, const char *a, const char *b, const char *c)
{
    for (size_t i = 0; i < ls->n; i++)
        if (contains(ls->l[i], a) && (!b || contains(ls->l[i], b)) && (!c || contains(ls->l[i], c)))
            return i;
    return 0;
}

/* Rust regex \w, approximated: ASCII letters, digits, '_', and any non-ASCII byte that is not
 * part of a White_Space character (the caller checks that first). */
static bool is_word_byte(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
           c >= 0x80;
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* After "_xnumel" at p: (?:_\d+)?\s*= ; backtracking into the digits cannot help, as a digit
 * is neither \s nor '='. */
static bool xnumel_tail(const unsigned char *p, const unsigned char *e)
{
    const unsigned char *q = p;
    if (q + 1 < e && q[0] == '_' && is_digit(q[1])) {
        q++;
        while (q < e && is_digit(*q))
            q++;
        size_t k;
        while ((k = ws_fwd(q, e)) != 0)
            q += k;
        if (q < e && *q == '=')
            return true;
    }
    size_t k;
    while ((k = ws_fwd(p, e)) != 0)
        p += k;
    return p < e && *p == '=';
}

/*
 * The line matches ^\s*\w+\s+.*_xnumel(?:_\d+)?\s*= (a declaration such as
 * "int64_t triton_poi_xnumel_1 = ..."). \s* must take all the leading blanks and \w+ the whole
 * first word (otherwise \s+ would face a word character), so: blanks, a word, one blank, then
 * an "_xnumel" anywhere after it with the tail above.
 */
static bool xnumel_decl(struct tl_str line)
{
    const unsigned char *p = (const unsigned char *)line.p;
    const unsigned char *e = p + line.n;
    size_t k;
    while ((k = ws_fwd(p, e)) != 0)
        p += k;
    const unsigned char *w = p;
    while (p < e && !ws_fwd(p, e) && is_word_byte(*p))
        p++;
    if (p == w || (k = ws_fwd(p, e)) == 0)
        return false;
    p += k;
    static const char tag[] = "_xnumel";
    size_t tn = sizeof(tag) - 1;
    while ((size_t)(e - p) >= tn) {
        const unsigned char *m = memmem(p, (size_t)(e - p), tag, tn);
        if (!m)
            return false;
        if (xnumel_tail(m + tn, e))
            return true;
        p = m + 1;
    }
    return false;
}

/* ---- a string -> int32 map in the arena (node names, kernel names) ---- */

struct nm_slot {
    const char *p; /* NULL: empty slot */
    size_t n;
    int32_t v;
};

struct name_map {
    struct nm_slot *slots;
    size_t mask;
};

static void nm_init(struct name_map *m, struct tl_arena *a, size_t cap)
{
    size_t size = 16;
    while (size < cap * 2)
        size *= 2;
    m->slots = tl_arena_calloc(a, size, sizeof(*m->slots));
    m->mask = size - 1;
}

static struct nm_slot *nm_slot(const struct name_map *m, struct tl_str key)
{
    size_t i = (size_t)tl_hash(key.p, key.n) & m->mask;
    for (;; i = (i + 1) & m->mask) {
        struct nm_slot *s = &m->slots[i];
        if (!s->p || (s->n == key.n && (!key.n || memcmp(s->p, key.p, key.n) == 0)))
            return s;
    }
}

/* Store v under key, replacing an earlier value. The key is borrowed. */
static void nm_put(struct name_map *m, struct tl_str key, int32_t v)
{
    struct nm_slot *s = nm_slot(m, key);
    s->p = key.p ? key.p : "";
    s->n = key.n;
    s->v = v;
}

/* The value under key, or -1. */
static int32_t nm_get(const struct name_map *m, struct tl_str key)
{
    const struct nm_slot *s = nm_slot(m, key);
    return s->p ? s->v : -1;
}

/* Graph node lines (spec §3.4): node name -> 1-based line, a later line overwriting. */
static void node_lines(struct name_map *m, struct tl_arena *a, struct tl_str text)
{
    struct lines ls = split_lines(a, text);
    nm_init(m, a, ls.n);
    for (size_t i = 0; i < ls.n; i++) {
        struct tl_str t = trim(ls.l[i]);
        if (!t.n || t.p[0] == '#')
            continue;
        const char *eq = memchr(t.p, '=', t.n);
        if (eq)
            t.n = (size_t)(eq - t.p);
        const char *colon = memchr(t.p, ':', t.n);
        if (colon)
            t.n = (size_t)(colon - t.p);
        t = trim(t);
        if (t.n)
            nm_put(m, t, (int32_t)(i + 1));
    }
}

/* ---- JSON objects in ascending key order ---- */

struct member {
    struct tl_str key;
    const struct tl_json *v;
    size_t idx; /* document position, to keep the last of equal keys */
};

static int cmp_member(const void *x, const void *y)
{
    const struct member *a = x;
    const struct member *b = y;
    size_t n = a->key.n < b->key.n ? a->key.n : b->key.n;
    int c = n ? memcmp(a->key.p, b->key.p, n) : 0;
    if (c)
        return c;
    if (a->key.n != b->key.n)
        return a->key.n < b->key.n ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The members of obj (when it is an object) sorted by key bytes, a repeated key keeping its
 * last value, as serde_json's map does. */
static size_t sorted_members(struct tl_arena *a, const struct tl_json *obj, struct member **out)
{
    *out = NULL;
    if (!obj || obj->type != TL_JSON_OBJECT || !obj->u.obj.n)
        return 0;
    size_t n = obj->u.obj.n;
    struct member *m = tl_arena_calloc(a, n, sizeof(*m));
    for (size_t i = 0; i < n; i++) {
        m[i].key = obj->u.obj.items[i].key;
        m[i].v = &obj->u.obj.items[i].value;
        m[i].idx = i;
    }
    tl_sort(m, n, sizeof(*m), cmp_member);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && tl_str_eq(m[k - 1].key, m[i].key))
            k--;
        m[k++] = m[i];
    }
    *out = m;
    return k;
}

/* The lines (from map) of the string elements of arr that have one, in array order. */
static size_t lines_of_names(struct tl_arena *a, const struct tl_json *arr,
                             const struct name_map *map, const int32_t **out)
{
    *out = NULL;
    if (!arr || arr->type != TL_JSON_ARRAY || !arr->u.arr.n)
        return 0;
    int32_t *v = tl_arena_alloc(a, arr->u.arr.n * sizeof(*v));
    size_t n = 0;
    for (size_t i = 0; i < arr->u.arr.n; i++) {
        const struct tl_json *e = &arr->u.arr.items[i];
        if (e->type != TL_JSON_STRING)
            continue;
        int32_t line = nm_get(map, e->u.str);
        if (line > 0)
            v[n++] = line;
    }
    *out = v;
    return n;
}

/* ---- the kernel names, found with one Aho-Corasick automaton ---- */

/*
 * The needles are the kernel keys and their bases, all prefixes of the keys, so the trie is the
 * keys' trie (its size is counted from the sorted keys). Node 0 is the root; it is never a
 * terminal (the empty needle is answered without the automaton). Transitions live in a hash
 * table keyed by (node, byte).
 */
struct ac {
    uint32_t n, cap;
    uint32_t *fail, *dict; /* dict: nearest terminal proper suffix, 0 = none */
    uint32_t *first_child, *next_sib;
    unsigned char *byte;
    bool *term;
    uint64_t *hkey; /* (node << 8 | byte) + 1; 0 = empty */
    uint32_t *hval;
    size_t hmask;
    uint8_t root_has[32]; /* bytes with a transition from the root */
};

static size_t ac_hash(uint64_t key, size_t mask)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
}

static uint32_t ac_child(const struct ac *a, uint32_t s, unsigned char c)
{
    uint64_t key = ((uint64_t)s << 8 | c) + 1;
    for (size_t i = ac_hash(key, a->hmask);; i = (i + 1) & a->hmask) {
        if (a->hkey[i] == key)
            return a->hval[i];
        if (!a->hkey[i])
            return 0;
    }
}

/* An automaton for at most nodes nodes (root included). The arrays that every node sets when
 * it is created or linked are not zeroed: at 20 000 kernels zeroing was most of the time. */
static void ac_init(struct ac *a, struct tl_arena *ar, size_t nodes)
{
    memset(a, 0, sizeof(*a));
    size_t cap = nodes ? nodes : 1;
    a->cap = (uint32_t)cap;
    a->n = 1;
    a->fail = tl_arena_alloc(ar, cap * sizeof(*a->fail));
    a->dict = tl_arena_alloc(ar, cap * sizeof(*a->dict));
    a->first_child = tl_arena_calloc(ar, cap, sizeof(*a->first_child));
    a->next_sib = tl_arena_alloc(ar, cap * sizeof(*a->next_sib));
    a->byte = tl_arena_alloc(ar, cap * sizeof(*a->byte));
    a->term = tl_arena_calloc(ar, cap, sizeof(*a->term));
    a->fail[0] = a->dict[0] = a->next_sib[0] = 0;
    a->byte[0] = 0;
    size_t size = 16;
    while (size < cap * 2)
        size *= 2;
    a->hkey = tl_arena_calloc(ar, size, sizeof(*a->hkey));
    a->hval = tl_arena_alloc(ar, size * sizeof(*a->hval));
    a->hmask = size - 1;
}

/* Insert p[0..n) as a needle; its terminal node (0 for the empty needle, which stays
 * unmarked). */
static uint32_t ac_insert(struct ac *a, const char *p, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        uint32_t nx = ac_child(a, s, c);
        if (!nx) {
            if (a->n == a->cap)
                abort(); /* cannot happen: the caller counted the nodes */
            nx = a->n++;
            a->byte[nx] = c;
            a->next_sib[nx] = a->first_child[s];
            a->first_child[s] = nx;
            uint64_t key = ((uint64_t)s << 8 | c) + 1;
            size_t h = ac_hash(key, a->hmask);
            while (a->hkey[h])
                h = (h + 1) & a->hmask;
            a->hkey[h] = key;
            a->hval[h] = nx;
            if (!s)
                a->root_has[c >> 3] |= (uint8_t)(1u << (c & 7));
        }
        s = nx;
    }
    if (s)
        a->term[s] = true;
    return s;
}

/* Failure and dictionary links, breadth first. */
static void ac_link(struct ac *a, struct tl_arena *ar)
{
    uint32_t *queue = tl_arena_alloc(ar, (size_t)a->n * sizeof(*queue));
    size_t head = 0;
    size_t tail = 0;
    for (uint32_t v = a->first_child[0]; v; v = a->next_sib[v]) {
        a->fail[v] = a->dict[v] = 0;
        queue[tail++] = v;
    }
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t v = a->first_child[u]; v; v = a->next_sib[v]) {
            unsigned char c = a->byte[v];
            uint32_t f = a->fail[u];
            uint32_t w;
            while ((w = ac_child(a, f, c)) == 0 && f)
                f = a->fail[f];
            a->fail[v] = w;
            a->dict[v] = a->term[w] ? w : a->dict[w];
            queue[tail++] = v;
        }
    }
}

/* Matches kept per code text beyond which a list is cut (only hostile inputs get near). */
#define MAX_MATCHES ((size_t)1 << 24)

/* For every terminal, the ascending indices of the lines in [from, n) that contain it. */
struct hits {
    const uint32_t *off; /* the lines of node t are idx[off[t] .. off[t] + cnt[t]) */
    const uint32_t *cnt;
    const int32_t *idx;
    const int32_t *all; /* from .. n - 1, for the empty needle */
    size_t nall;
};

/* One pass over the lines: count (fill NULL) or fill the lists. A terminal is recorded once
 * per line: when the walk down the dictionary links meets one already recorded for this line,
 * everything below it was recorded with it. */
static void ac_scan(const struct ac *a, const struct lines *ls, size_t from, int32_t *last,
                    uint32_t *cnt, size_t *budget, const uint32_t *off, int32_t *fill)
{
    for (size_t i = from; i < ls->n; i++) {
        const unsigned char *p = (const unsigned char *)ls->l[i].p;
        const unsigned char *e = p + ls->l[i].n;
        uint32_t s = 0;
        for (; p < e; p++) {
            unsigned char c = *p;
            if (!s && !(a->root_has[c >> 3] & (1u << (c & 7))))
                continue;
            uint32_t nx;
            while ((nx = ac_child(a, s, c)) == 0 && s)
                s = a->fail[s];
            s = nx;
            for (uint32_t t = a->term[s] ? s : a->dict[s]; t && last[t] != (int32_t)i;
                 t = a->dict[t]) {
                last[t] = (int32_t)i;
                if (!fill) {
                    if (*budget) {
                        (*budget)--;
                        cnt[t]++;
                    }
                } else if (cnt[t] < off[t + 1] - off[t]) {
                    fill[off[t] + cnt[t]++] = (int32_t)i;
                }
            }
        }
    }
}

static struct hits ac_find(const struct ac *a, struct tl_arena *ar, const struct lines *ls,
                           size_t from)
{
    struct hits h;
    memset(&h, 0, sizeof(h));
    if (from >= ls->n)
        return h; /* no line to search (an empty text): every needle has no hit */
    int32_t *last = tl_arena_alloc(ar, (size_t)a->n * sizeof(*last));
    uint32_t *cnt = tl_arena_calloc(ar, (size_t)a->n, sizeof(*cnt));
    uint32_t *off = tl_arena_alloc(ar, ((size_t)a->n + 1) * sizeof(*off));
    size_t budget = MAX_MATCHES;
    memset(last, 0xff, (size_t)a->n * sizeof(*last));
    ac_scan(a, ls, from, last, cnt, &budget, NULL, NULL);
    size_t total = 0;
    for (uint32_t t = 0; t < a->n; t++) {
        off[t] = (uint32_t)total;
        total += cnt[t];
    }
    off[a->n] = (uint32_t)total;
    int32_t *idx = tl_arena_alloc(ar, (total ? total : 1) * sizeof(*idx));
    memset(last, 0xff, (size_t)a->n * sizeof(*last));
    memset(cnt, 0, (size_t)a->n * sizeof(*cnt));
    ac_scan(a, ls, from, last, cnt, &budget, off, idx);
    h.off = off;
    h.cnt = cnt;
    h.idx = idx;
    h.nall = ls->n > from ? ls->n - from : 0;
    int32_t *all = tl_arena_alloc(ar, (h.nall ? h.nall : 1) * sizeof(*all));
    for (size_t i = 0; i < h.nall; i++)
        all[i] = (int32_t)(from + i);
    h.all = all;
    return h;
}

struct span {
    const int32_t *v;
    size_t n;
};

static struct span hits_of(const struct hits *h, uint32_t node)
{
    struct span s;
    if (!h->nall) {
        s.v = NULL;
        s.n = 0;
    } else if (!node) {
        s.v = h->all;
        s.n = h->nall;
    } else {
        s.v = h->idx + h->off[node];
        s.n = h->cnt[node];
    }
    return s;
}

/* The first position in s whose line index is > i. */
static size_t after(struct span s, int32_t i)
{
    size_t lo = 0;
    size_t hi = s.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s.v[mid] <= i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A kernel's recorded lines in one code text, as line indices of that text (the number of
 * index i is i + add, add being 1 - A for Python, 1 for C++). A fallback's lines are all the
 * hits of the base, shared by every kernel with that base (node): a thousand kernels falling
 * back to one base that is on every line cost no copies. */
struct klines {
    const int32_t *idx;
    size_t n;
    bool all;      /* the fallback */
    uint32_t node; /* the base's node */
};

struct kernel {
    struct tl_str name;
    const struct tl_json *posts; /* its value in cppCodeToPost */
    bool colon;
    uint32_t node_k, node_py, node_cpp; /* the needles K, K up to its first / last ':' */
    const int32_t *post;                /* lines of its post nodes */
    size_t npost;
    struct klines py, cpp;
};

static void record_one(struct klines *kl, struct tl_arena *ar, int32_t idx)
{
    int32_t *v = tl_arena_alloc(ar, sizeof(*v));
    v[0] = idx;
    kl->idx = v;
    kl->n = 1;
}

/* The fallback: every line of the base from R, those with a number >= 1 (a suffix, as the
 * indices ascend). */
static void record_all(struct klines *kl, struct span base, int32_t add, uint32_t node)
{
    if (!base.n)
        return;
    size_t j = after(base, -add); /* idx + add >= 1 */
    kl->idx = base.v + j;
    kl->n = base.n - j;
    kl->all = true;
    kl->node = node;
}

/* Python (JIT) lines of k (spec §3.4): numbers are index + 1 - A (the "# AOT ID:" line is
 * line 1); a number <= 0 (a line above it) is never recorded. */
static void py_lines(struct kernel *k, struct tl_arena *ar, const struct hits *h, int32_t add)
{
    struct span base = hits_of(h, k->node_py);
    memset(&k->py, 0, sizeof(k->py));
    if (k->colon) {
        struct span full = hits_of(h, k->node_k);
        if (full.n) {
            size_t j = after(base, full.v[0]);
            if (j < base.n && base.v[j] + add > 0)
                record_one(&k->py, ar, base.v[j]);
        }
    }
    if (!k->py.n)
        record_all(&k->py, base, add, k->node_py);
}

static bool skipped_cpp_line(struct tl_str line)
{
    struct tl_str t = trim(line);
    return tl_str_has_prefix(t, "def") || tl_str_has_prefix(t, "static inline void");
}

/* C++ (AOT) lines of k (spec §3.4), plain 1-based numbers. For a key with ':' only the first
 * line that holds it (and is not a def / static inline void line) matters: when no later
 * line fits after it, none fits after a later one either. */
static void cpp_lines(struct kernel *k, struct tl_arena *ar, const struct hits *h,
                      const struct lines *ls)
{
    struct span base = hits_of(h, k->node_cpp);
    memset(&k->cpp, 0, sizeof(k->cpp));
    if (k->colon) {
        struct span full = hits_of(h, k->node_k);
        size_t f = 0;
        while (f < full.n && skipped_cpp_line(ls->l[full.v[f]]))
            f++;
        if (f < full.n) {
            for (size_t j = after(base, full.v[f]); j < base.n; j++) {
                struct tl_str line = ls->l[base.v[j]];
                if (!contains(line, "_xnumel = ") && !xnumel_decl(line)) {
                    record_one(&k->cpp, ar, base.v[j]);
                    break;
                }
            }
        }
    }
    if (!k->cpp.n)
        record_all(&k->cpp, base, 1, k->node_cpp);
}

/* ---- tables ---- */

/* Rows in the order of their line's decimal string: digits 0-9 as 1-10 in base 11, padded
 * with 0 to ten places, so that a prefix sorts first ("1060" < "8"). */
static uint64_t string_order(int32_t line)
{
    char d[16];
    size_t n = 0;
    uint32_t v = line > 0 ? (uint32_t)line : 0;
    do {
        d[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    uint64_t key = 0;
    for (size_t i = 0; i < 10; i++)
        key = key * 11 + (i < n ? (uint64_t)(d[n - 1 - i] - '0' + 1) : 0);
    return key;
}

struct keyed_row {
    uint64_t key;
    struct tl_prov_row row;
};

static int cmp_keyed(const void *x, const void *y)
{
    const struct keyed_row *a = x;
    const struct keyed_row *b = y;
    return a->key < b->key ? -1 : a->key > b->key;
}

struct table_builder {
    struct keyed_row *rows;
    size_t n, cap;
};

static void tb_init(struct table_builder *b, struct tl_arena *a, size_t cap)
{
    b->rows = tl_arena_alloc(a, (cap ? cap : 1) * sizeof(*b->rows));
    b->n = 0;
    b->cap = cap;
}

static void tb_add(struct table_builder *b, int32_t line, const int32_t *to, size_t n)
{
    if (!n || b->n >= b->cap)
        return;
    struct keyed_row *r = &b->rows[b->n++];
    r->key = string_order(line);
    r->row.line = line;
    r->row.to = to;
    r->row.n = n;
}

static void tb_finish(struct table_builder *b, struct tl_arena *a, struct tl_prov_table *t)
{
    tl_sort(b->rows, b->n, sizeof(*b->rows), cmp_keyed);
    struct tl_prov_row *rows = tl_arena_alloc(a, (b->n ? b->n : 1) * sizeof(*rows));
    for (size_t i = 0; i < b->n; i++)
        rows[i] = b->rows[i].row;
    t->rows = b->n ? rows : NULL;
    t->n = b->n;
}

/* preToPost / postToPre: source node -> the lines of its listed target nodes. */
static void graph_table(struct tl_arena *a, const struct tl_json *obj, const struct name_map *src,
                        const struct name_map *dst, struct tl_prov_table *out)
{
    struct member *m;
    size_t n = sorted_members(a, obj, &m);
    struct table_builder b;
    tb_init(&b, a, n);
    for (size_t i = 0; i < n; i++) {
        int32_t line = nm_get(src, m[i].key);
        if (line <= 0)
            continue;
        const int32_t *to;
        size_t nto = lines_of_names(a, m[i].v, dst, &to);
        tb_add(&b, line, to, nto);
    }
    tb_finish(&b, a, out);
}

/* pyCodeToPost / cppCodeToPost: each recorded line of each kernel -> the kernel's post lines,
 * a later kernel taking a line over (max_line bounds the line numbers). */
static void code_to_post(struct tl_arena *a, const struct kernel *ks, size_t nk, bool py,
                         int32_t add, size_t max_line, size_t nodes, struct tl_prov_table *out)
{
    /* Backwards, the first kernel to claim a line keeps it. Of the kernels sharing one
     * fallback, only the last can own any of its lines. */
    const struct kernel **owner = tl_arena_calloc(a, max_line + 1, sizeof(*owner));
    bool *done = tl_arena_calloc(a, nodes, sizeof(*done));
    size_t nrows = 0;
    for (size_t i = nk; i-- > 0;) {
        const struct klines *kl = py ? &ks[i].py : &ks[i].cpp;
        if (!ks[i].npost || !kl->n)
            continue;
        if (kl->all) {
            if (done[kl->node])
                continue;
            done[kl->node] = true;
        }
        for (size_t j = 0; j < kl->n; j++) {
            int64_t line = (int64_t)kl->idx[j] + add;
            if (line < 1 || line > (int64_t)max_line || owner[line])
                continue;
            owner[line] = &ks[i];
            nrows++;
        }
    }
    struct table_builder b;
    tb_init(&b, a, nrows);
    for (size_t line = 1; line <= max_line; line++)
        if (owner[line])
            tb_add(&b, (int32_t)line, owner[line]->post, owner[line]->npost);
    tb_finish(&b, a, out);
}

/* postToPyCode / postToCppCode: post node -> the recorded lines of each listed kernel, in list
 * order, duplicates kept. A table holds at most TL_PROV_MAX_TARGETS targets. */
static void post_to_code(struct tl_arena *a, const struct tl_json *obj, const struct name_map *post,
                         const struct name_map *kidx, const struct kernel *ks, bool py, int32_t add,
                         struct tl_prov_table *out)
{
    struct member *m;
    size_t n = sorted_members(a, obj, &m);
    struct table_builder b;
    tb_init(&b, a, n);
    size_t budget = TL_PROV_MAX_TARGETS;
    for (size_t i = 0; i < n && budget; i++) {
        int32_t line = nm_get(post, m[i].key);
        const struct tl_json *arr = m[i].v;
        if (line <= 0 || arr->type != TL_JSON_ARRAY)
            continue;
        size_t total = 0;
        for (size_t j = 0; j < arr->u.arr.n && total < budget; j++) {
            const struct tl_json *e = &arr->u.arr.items[j];
            int32_t k = e->type == TL_JSON_STRING ? nm_get(kidx, e->u.str) : -1;
            if (k >= 0)
                total += py ? ks[k].py.n : ks[k].cpp.n;
        }
        if (!total)
            continue;
        if (total > budget)
            total = budget;
        int32_t *to = tl_arena_alloc(a, total * sizeof(*to));
        size_t len = 0;
        for (size_t j = 0; j < arr->u.arr.n && len < total; j++) {
            const struct tl_json *e = &arr->u.arr.items[j];
            int32_t k = e->type == TL_JSON_STRING ? nm_get(kidx, e->u.str) : -1;
            if (k < 0)
                continue;
            const struct klines *kl = py ? &ks[k].py : &ks[k].cpp;
            for (size_t x = 0; x < kl->n && len < total; x++)
                to[len++] = kl->idx[x] + add;
        }
        budget -= len;
        tb_add(&b, line, to, len);
    }
    tb_finish(&b, a, out);
}

/* ---- the entry points ---- */

const char *tl_prov_table_name(enum tl_prov_table_id t)
{
    static const char *const names[TL_PROV__COUNT] = {
        [TL_PROV_PRE_TO_POST] = "preToPost",     [TL_PROV_POST_TO_PRE] = "postToPre",
        [TL_PROV_PY_TO_POST] = "pyCodeToPost",   [TL_PROV_POST_TO_PY] = "postToPyCode",
        [TL_PROV_CPP_TO_POST] = "cppCodeToPost", [TL_PROV_POST_TO_CPP] = "postToCppCode",
    };
    return (unsigned)t < TL_PROV__COUNT ? names[t] : NULL;
}

void tl_prov_compute(const struct tl_prov_input *in, struct tl_arena *arena,
                     struct tl_prov_result *out)
{
    memset(out, 0, sizeof(*out));
    struct tl_arena *a = arena;

    /* The code texts as numbered, needed even without mappings (the page shows them). */
    out->py_text = in->py_code;
    out->cpp_text = in->cpp_code;
    struct lines py = split_lines(a, in->py_code);
    struct lines cpp = split_lines(a, in->cpp_code);
    drop_leading_empty(&py, &out->py_text);
    drop_leading_empty(&cpp, &out->cpp_text);
    size_t py_r = first_line_with(&py, "def", "call", "(args)");
    size_t py_a = first_line_with(&py, "# AOT ID:", NULL, NULL);
    size_t cpp_r = first_line_with(&cpp, "::run_impl(", NULL, NULL);
    out->py_skip = (uint32_t)py_a;

    const struct tl_json *map = in->mappings;
    if (!map || map->type != TL_JSON_OBJECT)
        return;
    out->have_mappings = true;

    struct name_map pre;
    struct name_map post;
    node_lines(&pre, a, in->pre);
    node_lines(&post, a, in->post);

    graph_table(a, tl_json_get(map, "preToPost"), &pre, &post, &out->t[TL_PROV_PRE_TO_POST]);
    graph_table(a, tl_json_get(map, "postToPre"), &post, &pre, &out->t[TL_PROV_POST_TO_PRE]);

    /* Kernels: the keys of cppCodeToPost, ascending. */
    struct member *m;
    size_t nk = sorted_members(a, tl_json_get(map, "cppCodeToPost"), &m);
    struct kernel *ks = tl_arena_calloc(a, nk ? nk : 1, sizeof(*ks));
    struct name_map kidx;
    nm_init(&kidx, a, nk);
    /* Every needle is a prefix of a key, so the trie is the keys' trie: with the keys sorted,
     * each adds its length minus the prefix it shares with the one before. */
    size_t nodes = 1;
    for (size_t i = 0; i < nk; i++) {
        ks[i].name = m[i].key;
        ks[i].posts = m[i].v;
        nm_put(&kidx, m[i].key, (int32_t)i);
        size_t lcp = 0;
        if (i)
            while (lcp < m[i].key.n && lcp < m[i - 1].key.n &&
                   m[i].key.p[lcp] == m[i - 1].key.p[lcp])
                lcp++;
        nodes += m[i].key.n - lcp;
    }
    struct ac ac;
    ac_init(&ac, a, nodes);
    for (size_t i = 0; i < nk; i++) {
        struct kernel *k = &ks[i];
        const char *first = k->name.n ? memchr(k->name.p, ':', k->name.n) : NULL;
        const char *lastc = first ? memrchr(k->name.p, ':', k->name.n) : NULL;
        k->colon = first != NULL;
        k->node_py = ac_insert(&ac, k->name.p, first ? (size_t)(first - k->name.p) : k->name.n);
        k->node_cpp = ac_insert(&ac, k->name.p, lastc ? (size_t)(lastc - k->name.p) : k->name.n);
        k->node_k = k->colon ? ac_insert(&ac, k->name.p, k->name.n) : k->node_py;
        k->npost = lines_of_names(a, k->posts, &post, &k->post);
    }
    ac_link(&ac, a);
    struct hits py_hits = ac_find(&ac, a, &py, py_r);
    struct hits cpp_hits = ac_find(&ac, a, &cpp, cpp_r);
    int32_t py_add = 1 - (int32_t)py_a;
    for (size_t i = 0; i < nk; i++) {
        py_lines(&ks[i], a, &py_hits, py_add);
        cpp_lines(&ks[i], a, &cpp_hits, &cpp);
    }

    code_to_post(a, ks, nk, true, py_add, py.n, ac.n, &out->t[TL_PROV_PY_TO_POST]);
    code_to_post(a, ks, nk, false, 1, cpp.n, ac.n, &out->t[TL_PROV_CPP_TO_POST]);
    const struct tl_json *p2c = tl_json_get(map, "postToCppCode");
    post_to_code(a, p2c, &post, &kidx, ks, true, py_add, &out->t[TL_PROV_POST_TO_PY]);
    post_to_code(a, p2c, &post, &kidx, ks, false, 1, &out->t[TL_PROV_POST_TO_CPP]);
}
