/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The redaction of text, code, file names and JSON (see redact.h). Three allowlists decide
 * what is kept, and anything not on them is hashed: the words of PyTorch's messages (free
 * text), the names of Python and of the graphs' and guards' structure (code), and the keys of
 * PyTorch's structured log (JSON); they are in redact_words.c. An allowlist fails safe: a word
 * PyTorch adds later is hashed until it is listed, never shown because it was not foreseen.
 * How an entry's payload is redacted follows its kind (model/kind.h).
 */
#include "base/config.h"
#include "model/redact.h"
#include "base/json_write.h"
#include "base/xalloc.h"
#include "input/envelope.h"
#include "model/kind.h"
#include "model/redact_words.h"

#include <md5.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An all-caps name of a guard's structure (TREE_GUARD_MANAGER): one of the suffixes. */
static bool guard_kind(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= 'A' && p[i] <= 'Z') || p[i] == '_' || (i > 0 && p[i] >= '0' && p[i] <= '9')))
            return false;
    const struct tl_redact_words *sfx = &tl_redact_words_guard_suffixes;
    for (size_t i = 0; i < sfx->n; i++) {
        size_t m = strlen(sfx->s[i]);
        if (n > m && !memcmp(p + n - m, sfx->s[i], m))
            return true;
    }
    return false;
}

static bool in(const char *const *list, size_t n, const char *p, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(list[i]) == len && !memcmp(list[i], p, len))
            return true;
    return false;
}

/*
 * The lists of redact_words.c, looked up by hash. Every word of every message and every name of
 * every graph is checked against them, and a scan of the lists made --redact six times slower than
 * a plain run (200 MiB log: 7.4 s against 1.2 s). Each table is an open-addressed array of
 * indices into its list, built once, the first time one is needed (pthread_once: ranks are
 * redacted on several threads), and kept for the life of the process.
 */
struct wordset {
    const struct tl_redact_words *words;
    uint16_t *slot; /* index into the list + 1; 0: empty. A power of two, over twice its n. */
    size_t mask;
    size_t *len; /* of each word of the list */
};

#define WORDSET(list)                                                                              \
    {                                                                                              \
        &tl_redact_words_##list, NULL, 0, NULL                                                     \
    }
enum {
    SET_words,
    SET_code_names,
    SET_code_roots,
    SET_keys,
    SET_verbatim,
    SET_path_keys,
    SET_code_keys,
    SET_line_keys,
    NSETS
};
static struct wordset sets[NSETS] = {
    WORDSET(words),    WORDSET(code_names), WORDSET(code_roots), WORDSET(keys),
    WORDSET(verbatim), WORDSET(path_keys),  WORDSET(code_keys),  WORDSET(line_keys),
};
static pthread_once_t sets_once = PTHREAD_ONCE_INIT;

static uint32_t word_hash(const char *p, size_t n) /* FNV-1a */
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)p[i]) * 16777619u;
    return h;
}

static void build_sets(void)
{
    for (size_t i = 0; i < NSETS; i++) {
        struct wordset *w = &sets[i];
        size_t size = 16;
        while (size < 2 * w->words->n + 1)
            size *= 2;
        w->slot = tl_xcalloc(size, sizeof(*w->slot));
        w->mask = size - 1;
        w->len = tl_xcalloc(w->words->n, sizeof(*w->len));
        for (size_t k = 0; k < w->words->n; k++) {
            w->len[k] = strlen(w->words->s[k]);
            size_t j = word_hash(w->words->s[k], w->len[k]) & w->mask;
            while (w->slot[j])
                j = (j + 1) & w->mask;
            w->slot[j] = (uint16_t)(k + 1);
        }
    }
}

static bool set_has(struct wordset *w, const char *p, size_t n)
{
    pthread_once(&sets_once, build_sets);
    for (size_t j = word_hash(p, n) & w->mask; w->slot[j]; j = (j + 1) & w->mask) {
        size_t k = w->slot[j] - 1u;
        if (w->len[k] == n && !memcmp(w->words->s[k], p, n))
            return true;
    }
    return false;
}

#define IN(list, p, n) set_has(&sets[SET_##list], p, n)

void tl_redact_init(struct tl_redact *r, const uint8_t salt[16], bool paths)
{
    memcpy(r->salt, salt, sizeof(r->salt));
    r->paths = paths;
}

void tl_redact_hash(const struct tl_redact *r, struct tl_buf *out, struct tl_str s)
{
    MD5_CTX ctx;
    MD5Init(&ctx);
    MD5Update(&ctx, r->salt, sizeof(r->salt));
    MD5Update(&ctx, (const uint8_t *)s.p, s.n);
    uint8_t d[MD5_DIGEST_LENGTH];
    MD5Final(d, &ctx);
    static const char hex[] = "0123456789abcdef";
    char h[10] = {'h', '_'};
    for (int i = 0; i < 4; i++) {
        h[2 + 2 * i] = hex[d[i] >> 4];
        h[3 + 2 * i] = hex[d[i] & 15];
    }
    tl_buf_add(out, h, sizeof(h));
}

static bool alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool ident_char(char c)
{
    return alpha(c) || digit(c) || c == '_';
}

/* s0, u12: the symbols of symbolic shapes, PyTorch's names. */
static bool shape_symbol(const char *p, size_t n)
{
    if (n < 2 || (p[0] != 's' && p[0] != 'u'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!digit(p[i]))
            return false;
    return true;
}

/* A word of PyTorch's messages: letters only, on the list in lowercase ("Graph", "GitHub");
 * or snake_case of such words ("compile_inner"). */
static bool message_word(const char *p, size_t n)
{
    char low[64];
    size_t start = 0;
    if (n == 0 || n >= sizeof(low))
        return false;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && p[i] != '_') {
            if (!alpha(p[i]))
                return false;
            low[i - start] = (char)(p[i] | 0x20);
            continue;
        }
        if (i == start || !IN(words, low, i - start))
            return false;
        start = i + 1;
    }
    return true;
}

/* PyTorch's own class names in messages: UserDefinedObjectVariable, BackendCompilerFailed. */
static bool pytorch_class(const char *p, size_t n)
{
    static const char *const suffixes[] = {"Variable", "Error",   "Exception",
                                           "Failed",   "Warning", "Unsupported"};
    if (n < 5 || p[0] < 'A' || p[0] > 'Z')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!alpha(p[i]))
            return false;
    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        size_t m = strlen(suffixes[i]);
        if (n >= m && !memcmp(p + n - m, suffixes[i], m))
            return true;
    }
    return false;
}

/* A shape's dimension list: digits, symbols (s0, u1), spaces and arithmetic, nothing else. */
static bool dims(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if ((c == 's' || c == 'u') && i + 1 < n && digit(p[i + 1]) &&
            (i == 0 || !ident_char(p[i - 1])))
            continue;
        if (!(digit(c) || c == ',' || c == ' ' || c == '+' || c == '-' || c == '*' || c == '/' ||
              c == '(' || c == ')'))
            return false;
    }
    return true;
}

/* A tensor's type as PyTorch prints it, "f32[32, 64][64, 1]cuda:0" (dtype, sizes, strides,
 * device), or a symbolic size, "Sym(s0 + 1)": anything else in a string is the user's. */
static bool type_string(const char *p, size_t n)
{
    if (n >= 5 && !memcmp(p, "Sym(", 4) && p[n - 1] == ')')
        return dims(p + 4, n - 5);
    size_t i = 0;
    while (i < n && i < 4 && p[i] >= 'a' && p[i] <= 'z')
        i++;
    size_t d = i;
    while (i < n && i - d < 3 && digit(p[i]))
        i++;
    if (i == 0 || i >= n || p[i] != '[')
        return false;
    while (i < n && p[i] == '[') {
        const char *close = memchr(p + i, ']', n - i);
        if (!close || !dims(p + i + 1, (size_t)(close - p - i - 1)))
            return false;
        i = (size_t)(close - p) + 1;
    }
    /* the device: cuda:0, cpu, meta, xpu:1, mps */
    static const char *const devices[] = {"", "cpu", "meta", "mps", "cuda", "xpu", "hpu"};
    size_t k = i;
    while (k < n && p[k] >= 'a' && p[k] <= 'z')
        k++;
    if (!in(devices, sizeof(devices) / sizeof(devices[0]), p + i, k - i))
        return false;
    if (k < n && p[k] == ':') {
        k++;
        while (k < n && digit(p[k]))
            k++;
    }
    return k == n;
}

static bool number_token(const char *p, size_t n, bool *decimal)
{
    *decimal = false;
    if (n == 0 || !digit(p[0]))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '.' || p[i] == 'e' || p[i] == 'E')
            *decimal = true;
        else if (!(digit(p[i]) || p[i] == '_' || p[i] == 'x' || p[i] == 'X' ||
                   (p[i] >= 'a' && p[i] <= 'f') || (p[i] >= 'A' && p[i] <= 'F') ||
                   ((p[i] == '-' || p[i] == '+') && i > 0 && (p[i - 1] | 0x20) == 'e')))
            return false;
    }
    return true;
}

/* The length of a quoted string starting at p[0] (its quote), up to its closing quote or the
 * end of the line; with nested, quotes inside brackets do not close it (a message quotes a
 * source as 'L['x'].size()[0]'). */
static size_t quoted_len(const char *p, size_t n, bool nested)
{
    char q = p[0];
    size_t i = 1;
    int depth = 0;
    while (i < n && p[i] != '\n' && (p[i] != q || depth > 0)) {
        if (p[i] == '\\' && i + 1 < n)
            i++;
        else if (nested && (p[i] == '[' || p[i] == '('))
            depth++;
        else if (nested && (p[i] == ']' || p[i] == ')') && depth > 0)
            depth--;
        i++;
    }
    if (i < n && p[i] == q)
        return i + 1;
    return nested ? quoted_len(p, n, false) : i; /* unbalanced: the plain way */
}

/* A dotted name of code: kept when rooted in a PyTorch namespace; else each part by itself. */
static void code_name(const struct tl_redact *r, struct tl_buf *out, const char *p, size_t n)
{
    size_t first = 0;
    while (first < n && p[first] != '.')
        first++;
    if (IN(code_roots, p, first)) {
        tl_buf_add(out, p, n);
        return;
    }
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && p[i] != '.')
            continue;
        const char *w = p + start;
        size_t m = i - start;
        bool dunder = m > 4 && w[0] == '_' && w[1] == '_' && w[m - 1] == '_' && w[m - 2] == '_';
        bool guard_fn = m > 3 && !memcmp(w, "___", 3); /* ___check_type_id, guard helpers */
        if (m == 0 || IN(code_names, w, m) || shape_symbol(w, m) || dunder || guard_fn ||
            guard_kind(w, m))
            tl_buf_add(out, w, m);
        else
            tl_redact_hash(r, out, tl_str_make(w, m));
        if (i < n)
            tl_buf_addch(out, '.');
        start = i + 1;
    }
}

/*
 * "# File: /m/model.py:16 in forward, code: h = self.proj(x)", the comment a graph's node
 * carries: where it came from is kept (file, line, function, as the stack trie keeps them),
 * its code is not. False for any other comment.
 */
static bool file_comment(const struct tl_redact *r, struct tl_buf *out, struct tl_str c)
{
    static const char head[] = "# File: ";
    if (c.n < sizeof(head) || memcmp(c.p, head, sizeof(head) - 1))
        return false;
    struct tl_str rest = tl_str_make(c.p + sizeof(head) - 1, c.n - (sizeof(head) - 1));
    long in = tl_str_find(rest, " in ");
    if (in < 0)
        return false;
    struct tl_str where = tl_str_make(rest.p, (size_t)in);
    size_t colon = where.n;
    while (colon > 0 && digit(where.p[colon - 1]))
        colon--;
    if (colon == 0 || colon == where.n || where.p[colon - 1] != ':')
        return false;
    const char *fn = rest.p + in + 4, *fe = fn;
    while (fe < rest.p + rest.n && (ident_char(*fe) || *fe == '<' || *fe == '>'))
        fe++;
    tl_buf_adds(out, head);
    tl_redact_path(r, out, tl_str_make(where.p, colon - 1));
    tl_buf_add(out, where.p + colon - 1, where.n - colon + 1);
    tl_buf_adds(out, " in ");
    tl_buf_add(out, fn, (size_t)(fe - fn));
    return true;
}

void tl_redact_code(const struct tl_redact *r, struct tl_buf *out, struct tl_str s)
{
    const char *p = s.p, *end = s.p + s.n;
    while (p < end) {
        char c = *p;
        if (c == '#') { /* a comment, to the end of the line: dropped */
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (file_comment(r, out, tl_str_make(p, (size_t)((nl ? nl : end) - p)))) {
                p = nl ? nl : end;
                continue;
            }
            /* keep the line's indentation out too: trailing spaces before it */
            while (out->len && out->buf[out->len - 1] == ' ')
                out->len--;
            out->buf[out->len] = '\0';
            p = nl ? nl : end;
            continue;
        }
        if (c == '\'' || c == '"') {
            size_t n = quoted_len(p, (size_t)(end - p), false);
            size_t inner = n >= 2 && p[n - 1] == c ? n - 2 : n - 1;
            if (type_string(p + 1, inner) || IN(code_names, p + 1, inner) ||
                IN(code_roots, p + 1, inner)) { /* _parameters['weight'], G['torch'] */
                tl_buf_add(out, p, n);
            } else {
                tl_buf_addch(out, c);
                tl_redact_hash(r, out, tl_str_make(p + 1, inner));
                tl_buf_addch(out, c);
            }
            p += n;
            continue;
        }
        if (digit(c)) {
            const char *q = p;
            while (q < end && (ident_char(*q) || *q == '.' ||
                               ((*q == '-' || *q == '+') && (q[-1] | 0x20) == 'e')))
                q++;
            bool decimal;
            if (number_token(p, (size_t)(q - p), &decimal) && !decimal)
                tl_buf_add(out, p, (size_t)(q - p));
            else
                tl_redact_hash(r, out, tl_str_make(p, (size_t)(q - p)));
            p = q;
            continue;
        }
        if (alpha(c) || c == '_') {
            const char *q = p;
            while (q < end &&
                   (ident_char(*q) || (*q == '.' && q + 1 < end && (alpha(q[1]) || q[1] == '_'))))
                q++;
            code_name(r, out, p, (size_t)(q - p));
            p = q;
            continue;
        }
        if ((unsigned char)c >= 0x80) { /* a non-ASCII run: a name or text of the user's */
            const char *q = p;
            while (q < end && (unsigned char)*q >= 0x80)
                q++;
            tl_redact_hash(r, out, tl_str_make(p, (size_t)(q - p)));
            p = q;
            continue;
        }
        tl_buf_addch(out, c);
        p++;
    }
}

static void hash_path(const struct tl_redact *r, struct tl_buf *out, struct tl_str s);

/* A file path in a message ("skip function graph_break in file /data/u/torch/x.py"): a '/'
 * at the start of a word, then path characters; a full stop that ends the sentence is not
 * its own. */
static size_t path_len(const char *p, const char *start, const char *end)
{
    if (*p != '/' || (p > start && !strchr(" \t\n('\"`[<=:,", p[-1])) || p + 1 >= end ||
        !(ident_char(p[1]) || p[1] == '.' || p[1] == '~'))
        return 0;
    const char *q = p;
    while (q < end && (ident_char(*q) || strchr("/.-+~@%", *q)))
        q++;
    while (q > p + 1 && q[-1] == '.')
        q--;
    return (size_t)(q - p);
}

/* Free text; quoted is set inside quotes of a message, where a decimal is a constant of the
 * user's code, not a time or a size PyTorch reports. */
static bool word_char(char c)
{
    return ident_char(c) || (unsigned char)c >= 0x80;
}

static void redact_text(const struct tl_redact *r, struct tl_buf *out, struct tl_str s, bool quoted)
{
    const char *p = s.p, *end = s.p + s.n;
    while (p < end) {
        char c = *p;
        if (c == '\'' || c == '"' || c == '`') {
            size_t n = quoted_len(p, (size_t)(end - p), true);
            size_t inner = n >= 2 && p[n - 1] == c ? n - 2 : n - 1;
            tl_buf_addch(out, c);
            /* words with spaces between are a message quoted ('skip function f in file
             * x.py'), anything else a name or code (L['x'].size()[0], `num_stages`) */
            if (inner && memchr(p + 1, ' ', inner))
                redact_text(r, out, tl_str_make(p + 1, inner), true);
            else if (inner)
                tl_redact_code(r, out, tl_str_make(p + 1, inner));
            if (n >= 2 && p[n - 1] == c)
                tl_buf_addch(out, c);
            p += n;
            continue;
        }
        size_t path = path_len(p, s.p, end);
        if (path) { /* a Python file is kept as the stack trie keeps it; a data file is not */
            struct tl_str f = tl_str_make(p, path);
            if (path > 3 && !memcmp(p + path - 3, ".py", 3))
                tl_redact_path(r, out, f);
            else
                hash_path(r, out, f);
            p += path;
            continue;
        }
        if (word_char(c)) { /* a word; letters beyond ASCII are of it ("été" one hash) */
            const char *q = p;
            while (q < end && (word_char(*q) || (*q == '.' && q + 1 < end && word_char(q[1]))))
                q++;
            size_t n = (size_t)(q - p);
            bool decimal, dotted = memchr(p, '.', n) != NULL;
            if (number_token(p, n, &decimal) && !(quoted && decimal))
                tl_buf_add(out, p, n); /* numbers in messages: sizes, counts, lines */
            else if (number_token(p, n, &decimal))
                tl_redact_hash(r, out, tl_str_make(p, n));
            else if ((n == 3 && (!memcmp(p, "e.g", 3) || !memcmp(p, "i.e", 3))))
                tl_buf_add(out, p, n); /* "(e.g. _warnings.warn)" */
            else if (dotted)
                code_name(r, out, p, n); /* torch.nn.functional.relu kept, self.x hashed */
            else if (message_word(p, n) || pytorch_class(p, n) || shape_symbol(p, n) ||
                     IN(code_roots, p, n)) /* "aten::bad" */
                tl_buf_add(out, p, n);
            else
                tl_redact_hash(r, out, tl_str_make(p, n));
            p = q;
            continue;
        }
        tl_buf_addch(out, c);
        p++;
    }
}

void tl_redact_text(const struct tl_redact *r, struct tl_buf *out, struct tl_str s)
{
    redact_text(r, out, s, false);
}

void tl_redact_path(const struct tl_redact *r, struct tl_buf *out, struct tl_str s)
{
    if (!r->paths) {
        tl_buf_add(out, s.p, s.n);
        return;
    }
    hash_path(r, out, s);
}

static void hash_path(const struct tl_redact *r, struct tl_buf *out, struct tl_str s)
{
    /* the extension says what kind of file it was (.py), which tells nothing of the model */
    size_t dot = s.n;
    while (dot > 0 && s.p[dot - 1] != '.' && s.p[dot - 1] != '/')
        dot--;
    bool ext = dot > 0 && s.p[dot - 1] == '.' && s.n - dot <= 4;
    tl_redact_hash(r, out, s);
    if (ext)
        tl_buf_add(out, s.p + dot - 1, s.n - dot + 1);
}

/* A string value by the key it is under. */
static void redact_string(const struct tl_redact *r, struct tl_arena *a, struct tl_json *v,
                          const char *key, bool frame, bool dump)
{
    struct tl_str s = v->u.str;
    size_t kn = key ? strlen(key) : 0;
    struct tl_buf b = TL_BUF_INIT;
    if (key && (IN(verbatim, key, kn) || (frame && !strcmp(key, "name"))))
        return; /* kept as it is */
    if (key && (IN(path_keys, key, kn) || (dump && !strcmp(key, "name"))))
        tl_redact_path(r, &b, s);
    else if (key && IN(line_keys, key, kn))
        tl_redact_hash(r, &b, s);
    else if (key && !strcmp(key, "url")) { /* a link's: one that still parses, leads nowhere */
        tl_buf_adds(&b, "https://redacted.invalid/");
        tl_redact_hash(r, &b, s);
    } else if (key && IN(code_keys, key, kn))
        tl_redact_code(r, &b, s);
    else
        tl_redact_text(r, &b, s);
    tl_json_set_string(v, tl_arena_str(a, tl_buf_str(&b)));
    tl_buf_release(&b);
}

/* A key the envelope decoder knows (every kind of entry, dynamo_start to describe_tensor). */
static bool envelope_key(const char *p, size_t n)
{
    for (int k = 0; k < TL_K__COUNT; k++) {
        const char *name = tl_key_name((enum tl_key)k);
        if (strlen(name) == n && !memcmp(name, p, n))
            return true;
    }
    return false;
}

/* A stack frame: {"line", "name", "filename", ...}: its name is a function's, kept. */
static bool is_frame(const struct tl_json *v)
{
    return v->type == TL_JSON_OBJECT && tl_json_get(v, "line") &&
           (tl_json_get(v, "filename") || tl_json_get(v, "uninterned_filename"));
}

/* v, the value of the member key of an object that is itself the value of parent. */
static void redact_json(const struct tl_redact *r, struct tl_arena *a, struct tl_json *v,
                        const char *key, const char *parent)
{
    switch (v->type) {
    case TL_JSON_STRING:
        redact_string(r, a, v, key, false, parent && !strcmp(parent, "dump_file"));
        break;
    case TL_JSON_ARRAY:
        /* the string table: ["path", index] */
        for (size_t i = 0; i < v->u.arr.n; i++)
            redact_json(r, a, &v->u.arr.items[i], key, parent);
        break;
    case TL_JSON_OBJECT: {
        bool frame = is_frame(v);
        for (size_t i = 0; i < v->u.obj.n; i++) {
            struct tl_json_member *m = &v->u.obj.items[i];
            char k[64];
            bool known = m->key.n < sizeof(k) &&
                         (IN(keys, m->key.p, m->key.n) || envelope_key(m->key.p, m->key.n));
            if (known) {
                memcpy(k, m->key.p, m->key.n);
                k[m->key.n] = '\0';
            } else {
                struct tl_buf b = TL_BUF_INIT;
                tl_redact_hash(r, &b, m->key);
                m->key = tl_arena_str(a, tl_buf_str(&b));
                tl_buf_release(&b);
            }
            if (frame && known && m->value.type == TL_JSON_STRING)
                redact_string(r, a, &m->value, k, true, false);
            else
                redact_json(r, a, &m->value, known ? k : NULL, key);
        }
        break;
    }
    case TL_JSON_NUMBER:
        /* a decimal under a key of the user's is a constant of theirs (a learning rate);
         * under PyTorch's keys numbers are metrics, and whole numbers are sizes and counts */
        if (!key && v->u.num.kind == TL_JSON_FLOAT) {
            struct tl_buf b = TL_BUF_INIT;
            char lit[64];
            int n = snprintf(lit, sizeof(lit), "%.17g", v->u.num.d);
            tl_redact_hash(r, &b, tl_str_make(lit, n > 0 ? (size_t)n : 0));
            tl_json_set_string(v, tl_arena_str(a, tl_buf_str(&b)));
            tl_buf_release(&b);
        }
        break;
    default:
        break; /* booleans, null: kept */
    }
}

void tl_redact_json(const struct tl_redact *r, struct tl_arena *a, struct tl_json *v,
                    const char *key)
{
    redact_json(r, a, v, key, NULL);
}

enum tl_redact_payload tl_redact_kind(const struct tl_envelope *env)
{
    bool json = false;
    for (int k = 0; k < TL_K__COUNT; k++) {
        const struct tl_json *v = env->key[k];
        if (!v)
            continue;
        switch (tl_kind_of((enum tl_key)k)->payload) {
        case TL_KIND_GRAPH:
            return TL_REDACT_CODE;
        case TL_KIND_JSON:
            json = true;
            break;
        case TL_KIND_ENCODED:
            json |= tl_str_eq_cstr(tl_env_str(v, "encoding"), "json");
            break;
        default: /* generated code, dumped sources: dropped */
            break;
        }
    }
    return json ? TL_REDACT_JSON : TL_REDACT_DROP;
}

void tl_redact_payload(const struct tl_redact *r, struct tl_buf *out, struct tl_str payload,
                       enum tl_redact_payload kind)
{
    if (kind == TL_REDACT_CODE) {
        tl_redact_code(r, out, payload);
        return;
    }
    if (kind == TL_REDACT_JSON) {
        struct tl_arena a;
        tl_arena_init(&a, 16 * 1024);
        struct tl_json v;
        if (tl_json_parse(&a, payload.p, payload.n, &v, NULL) == 0) {
            tl_redact_json(r, &a, &v, NULL);
            tl_json_write_compact(out, &v);
            tl_arena_release(&a);
            return;
        }
        tl_arena_release(&a);
        /* not JSON after all: dropped like the rest */
    }
    size_t lines = payload.n ? 1 : 0;
    for (size_t i = 0; i < payload.n; i++)
        lines += payload.p[i] == '\n';
    tl_buf_addf(out, "(redacted by tlparse --redact: %zu line%s, %zu bytes, ", lines,
                lines == 1 ? "" : "s", payload.n);
    tl_redact_hash(r, out, payload);
    tl_buf_adds(out, ")");
}
