/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TORCH_LOGS text reader (torchlogs.h): the prefixes of each line (worker and rank, glog,
 * bracket, path-only, "...", compile id, artifact tag) read by one forward scan, and the lines
 * grouped into messages (recompiles, limits, graph breaks, symbols, guards added, graphs, ...)
 * with one open message per rank whose fields are copied into that rank's buffer. No regex
 * engine, no allocation per line, O(length) per line and bounded memory whatever the input.
 * Depends on base (str, buf, xalloc) and compile_id only.
 */
#include "base/config.h"
#include "input/torchlogs.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/xalloc.h"
#include "input/pytext.h"
#include "input/textview.h"

/* ---- compile ids and prefixes ----------------------------------------------------------- */

/* "[cid]" followed by a space or the end; returns its length without the space. */
static size_t bracket_cid(const char *p, size_t n, struct tl_compile_id *id)
{
    if (n < 3 || p[0] != '[')
        return 0;
    size_t k = tl_pytext_cid(p + 1, n - 1, id);
    if (k == 0 || 1 + k >= n || p[1 + k] != ']')
        return 0;
    if (2 + k < n && p[2 + k] != ' ')
        return 0;
    return 2 + k;
}

/* "[__name]" followed by a space or the end. */
static size_t bracket_tag(const char *p, size_t n, struct tl_str *tag)
{
    if (n < 5 || p[0] != '[' || p[1] != '_' || p[2] != '_')
        return 0;
    size_t i = 3;
    while (i < n && i < 80 && identc(p[i]))
        i++;
    if (i == 3 || i >= n || p[i] != ']')
        return 0;
    if (i + 1 < n && p[i + 1] != ' ')
        return 0;
    *tag = tl_str_make(p + 3, i - 3);
    return i + 1;
}

/* What kind of log prefix a line had (internal; the public struct has has_prefix). */
enum pfx { PFX_NONE, PFX_GLOG, PFX_BRACKET, PFX_PATH, PFX_ELIDED, PFX_CID };

static const unsigned char level_tab[256] = {
    ['V'] = 1, ['I'] = 1, ['W'] = 1, ['E'] = 1, ['C'] = 1, ['F'] = 1, ['D'] = 1,
};

/* Where a glog prefix matched: its level, the bytes that identify the logging call (thread,
 * path and line; the time is left out) and where its body starts. */
struct gmatch {
    char level;
    size_t key0, key1, body;
};

/*
 * The glog prefix "L MMDD HH:MM:SS.frac THREAD PATH:LINE] " at s[i], with 1 to 9 digits of
 * fraction (millisecond and microsecond logs), the path up to the first ']' after it. *rb
 * caches the position of that ']' (0 when unknown) so that trying every position of a line,
 * for a prefix glued after other output, stays O(length).
 */
static bool glog_at(const char *s, size_t n, size_t i, size_t *rb, struct gmatch *m)
{
    if (n - i < 22)
        return false;
    const char *p = s + i;
    if (!level_tab[(unsigned char)p[0]] || !dig(p[1]) || !dig(p[2]) || !dig(p[3]) || !dig(p[4]) ||
        p[5] != ' ' || !dig(p[6]) || !dig(p[7]) || p[8] != ':' || !dig(p[9]) || !dig(p[10]) ||
        p[11] != ':' || !dig(p[12]) || !dig(p[13]) || (p[14] != '.' && p[14] != ','))
        return false;
    size_t j = i + 15;
    size_t f = j;
    while (j < n && j - f < 9 && dig(s[j]))
        j++;
    if (j == f || j >= n || s[j] != ' ')
        return false;
    size_t t = ++j;
    while (j < n && j - t < 20 && dig(s[j]))
        j++;
    if (j == t || j >= n || s[j] != ' ')
        return false;
    size_t path = ++j;
    if (*rb < path) {
        const char *r = path < n ? memchr(s + path, ']', n - path) : NULL;
        *rb = r ? (size_t)(r - s) : n;
    }
    size_t b = *rb;
    if (b >= n)
        return false;
    size_t e = b;
    while (e > path && b - e < 10 && dig(s[e - 1]))
        e--;
    if (e == b || e < path + 2 || s[e - 1] != ':')
        return false;
    if (b + 1 < n && s[b + 1] != ' ')
        return false;
    m->level = p[0];
    m->key0 = t;
    m->key1 = b;
    m->body = b + 1 < n ? b + 2 : n;
    return true;
}

/*
 * The bracket format of 2023-2024 at s[i]: "[YYYY-MM-DD HH:MM:SS,mmm] " then an optional
 * "[cid] " then "logger.name: [LEVEL] ". Fills the logger as the tag.
 */
static bool bracket_at(const char *s, size_t n, size_t i, struct tl_tlog_line *out, size_t *cid0,
                       size_t *cid1, size_t *body)
{
    static const char shape[] = "[dddd-dd-dd dd:dd:dd,ddd] ";
    if (n - i < sizeof(shape) - 1)
        return false;
    for (size_t k = 0; k < sizeof(shape) - 1; k++) {
        char c = s[i + k];
        bool ok = shape[k] == 'd' ? dig(c) : (k == 20 ? (c == ',' || c == '.') : c == shape[k]);
        if (!ok)
            return false;
    }
    size_t j = i + sizeof(shape) - 1;
    size_t k = bracket_cid(s + j, n - j, &out->cid);
    *cid0 = *cid1 = j;
    if (k) {
        out->has_cid = true;
        *cid1 = j + k;
        j += k + (j + k < n);
    }
    *body = j;
    /* logger: a token ending with ':' then "[LEVEL]" */
    size_t l = j;
    while (l < n && l - j < 256 && !blankc(s[l]))
        l++;
    if (l - j < 2 || l + 2 >= n || s[l] != ' ' || s[l - 1] != ':' || s[l + 1] != '[')
        return true;
    size_t v = l + 2;
    while (v < n && v - (l + 2) < 10 && s[v] >= 'A' && s[v] <= 'Z')
        v++;
    if (v == l + 2 || v >= n || s[v] != ']' || (v + 1 < n && s[v + 1] != ' '))
        return true;
    out->tag = tl_str_make(s + j, l - 1 - j);
    out->level = s[l + 2];
    *body = v + 1 < n ? v + 2 : n;
    return true;
}

/* A path-only prefix "path/file.py:2045] " at s[i]: no space before the ']', a '.' in the
 * path, ":digits" before it. The scan stops after 4 KiB. */
static bool path_at(const char *s, size_t n, size_t i, size_t *body)
{
    size_t j = i;
    bool dot = false;
    while (j < n && j - i < 4096 && s[j] != ']' && !blankc(s[j])) {
        dot |= s[j] == '.';
        j++;
    }
    if (j >= n || s[j] != ']' || !dot)
        return false;
    size_t e = j;
    while (e > i && j - e < 10 && dig(s[e - 1]))
        e--;
    if (e == j || e < i + 2 || s[e - 1] != ':')
        return false;
    if (j + 1 < n && s[j + 1] != ' ')
        return false;
    *body = j + 1 < n ? j + 2 : n;
    return true;
}

/* "[rank3]:", "[default0]:", "[trainer12]:" at s[i]. */
static size_t worker_at(const char *s, size_t n, size_t i, int *num, bool *is_rank)
{
    if (i >= n || s[i] != '[')
        return 0;
    size_t a = i + 1;
    size_t j = a;
    while (j < n && j - a < 32 && (alpha(s[j]) || s[j] == '_'))
        j++;
    if (j == a || j >= n || !dig(s[j]))
        return 0;
    size_t d = j;
    int x = 0;
    while (j < n && j - d < 7 && dig(s[j]))
        x = x * 10 + (s[j++] - '0');
    if (j + 1 >= n || s[j] != ']' || s[j + 1] != ':')
        return 0;
    *num = x;
    *is_rank = d - a == 4 && memcmp(s + a, "rank", 4) == 0;
    return j + 2 - i;
}

static uint64_t mix(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, b, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
        b += 8;
        n -= 8;
    }
    uint64_t w = 0;
    if (n)
        memcpy(&w, b, n);
    h = (h ^ w ^ ((uint64_t)n << 56)) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

/* The worker prefixes: "N: " (srun -l) first, then "[defaultN]:" (torchrun --tee) and
 * "[rankN]:" (torch.distributed); a [rankN] wins over the others. Sets out->rank and returns
 * where the rest of the line starts. */
static inline size_t worker_prefixes(const char *s, size_t n, struct tl_tlog_line *out)
{
    size_t i = 0;
    int rank_tag = -1, worker = -1;
    {
        size_t j = 0;
        int x = 0;
        while (j < n && j < 6 && dig(s[j]))
            x = x * 10 + (s[j++] - '0');
        if (j > 0 && j + 1 < n && s[j] == ':' && s[j + 1] == ' ') {
            worker = x;
            i = j + 2;
        }
    }
    for (int k = 0; k < 4 && i < n && s[i] == '['; k++) {
        int num;
        bool is_rank;
        size_t w = worker_at(s, n, i, &num, &is_rank);
        if (!w)
            break;
        if (is_rank)
            rank_tag = num;
        else
            worker = num;
        i += w;
    }
    out->rank = rank_tag >= 0 ? rank_tag : worker;
    return i;
}

/* The log prefix found on a line: its type, where the body starts, and the bytes that identify
 * the logging call (key) and the compile id (cid), as offsets into the line. */
struct pmatch {
    enum pfx type;
    size_t pos, key0, key1, cid0, cid1;
};

/* The bracket prefix's key is its logger name (out->tag). */
static inline void bracket_key(const char *s, const struct tl_tlog_line *out, struct pmatch *m)
{
    m->type = PFX_BRACKET;
    m->key0 = (size_t)(out->tag.p ? out->tag.p - s : 0);
    m->key1 = m->key0 + out->tag.n;
}

/* A prefix glued after other output (a progress bar), glog or bracket: tried at every position
 * after i (glog_at's ']' cache keeps this linear). */
static void glued_prefix(const char *s, size_t n, size_t i, size_t *rb, struct gmatch *g,
                         struct tl_tlog_line *out, struct pmatch *m)
{
    for (size_t j = i + 1; j + 22 <= n; j++) {
        if (level_tab[(unsigned char)s[j]] && dig(s[j + 1]) && glog_at(s, n, j, rb, g)) {
            m->type = PFX_GLOG;
            return;
        }
        if (s[j] == '[' && dig(s[j + 1]) && bracket_at(s, n, j, out, &m->cid0, &m->cid1, &m->pos)) {
            bracket_key(s, out, m);
            return;
        }
    }
}

/* Which log prefix starts the line at s[i]: glog, bracket, elided, path, or glued. */
static inline void match_prefix(const char *s, size_t n, size_t i, struct tl_tlog_line *out,
                                struct pmatch *m)
{
    size_t rb = 0;
    struct gmatch g;
    if (glog_at(s, n, i, &rb, &g)) {
        m->type = PFX_GLOG;
    } else if (i < n && s[i] == '[' && bracket_at(s, n, i, out, &m->cid0, &m->cid1, &m->pos)) {
        bracket_key(s, out, m);
    } else if (n - i >= 5 && memcmp(s + i, "... [", 5) == 0) {
        m->type = PFX_ELIDED;
        m->pos = i + 4;
    } else if (path_at(s, n, i, &m->pos)) {
        m->type = PFX_PATH;
        m->key0 = i;
        m->key1 = m->pos;
    } else if (n - i > 4 && level_tab[(unsigned char)s[i]] && s[i + 1] == ' ' &&
               path_at(s, n, i + 2, &m->pos)) {
        /* a glog prefix cut to its level and path ("W convert_frame.py:1676] ") */
        m->type = PFX_PATH;
        out->level = s[i];
        m->key0 = i;
        m->key1 = m->pos;
    } else {
        glued_prefix(s, n, i, &rb, &g, out, m);
    }
    if (m->type == PFX_GLOG) {
        out->level = g.level;
        m->key0 = g.key0;
        m->key1 = g.key1;
        m->pos = g.body;
    }
}

/* After any prefix but the bracket one (which has its own): "[cid] " then "[__tag] ". Alone
 * they make a prefix; an elided prefix without them is none. */
static inline void cid_and_tag(const char *s, size_t n, size_t i, struct tl_tlog_line *out,
                               struct pmatch *m)
{
    size_t pos = m->pos;
    size_t k = bracket_cid(s + pos, n - pos, &out->cid);
    if (k) {
        out->has_cid = true;
        m->cid0 = pos;
        m->cid1 = pos + k;
        pos += k + (pos + k < n);
    }
    k = bracket_tag(s + pos, n - pos, &out->tag);
    if (k)
        pos += k + (pos + k < n);
    if (m->type == PFX_NONE && (out->has_cid || out->tag.n))
        m->type = PFX_CID;
    if (m->type == PFX_ELIDED && !out->has_cid && !out->tag.n) {
        m->type = PFX_NONE;
        pos = i;
    }
    m->pos = pos;
}

/* A hash of what identifies the logging call (never 0), to group a message's lines. */
static inline uint32_t prefix_key(const char *s, const struct tl_tlog_line *out,
                                  const struct pmatch *m)
{
    char head[2] = {(char)m->type, out->level};
    uint64_t h = mix(0x51ED27071F2A3B5DULL, head, 2);
    h = mix(h, s + m->key0, m->key1 - m->key0);
    h = mix(h, s + m->cid0, m->cid1 - m->cid0);
    h = mix(h, out->tag.p, out->tag.n);
    h = mix(h, &out->rank, sizeof(out->rank));
    uint32_t key = (uint32_t)(h ^ (h >> 32));
    return key ? key : 1;
}

/* tl_tlog_split, also telling which prefix it found. */
static enum pfx split_line(struct tl_str line, struct tl_tlog_line *out)
{
    const char *s = line.p ? line.p : "";
    size_t n = line.p ? line.n : 0;
    if (n && s[n - 1] == '\r')
        n--;
    memset(out, 0, sizeof(*out));
    out->rank = -1;

    size_t i = worker_prefixes(s, n, out);
    struct pmatch m = {PFX_NONE, i, 0, 0, 0, 0};
    match_prefix(s, n, i, out, &m);
    if (m.type != PFX_BRACKET)
        cid_and_tag(s, n, i, out, &m);
    out->body = tl_str_make(s + m.pos, n - m.pos);
    out->has_prefix = m.type != PFX_NONE;
    if (m.type != PFX_NONE)
        out->prefix_key = prefix_key(s, out, &m);
    return m.type;
}

void tl_tlog_split(struct tl_str line, struct tl_tlog_line *out)
{
    split_line(line, out);
}

/* ---- what starts a message -------------------------------------------------------------- */

/* t is the body without leading blanks. */
static bool start_kind(struct tl_str t, enum tl_tlog_kind *k)
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
static bool marker_line(struct tl_str t)
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

/* ---- messages being read ---------------------------------------------------------------- */

/* A field: at is its offset in the slot's buffer plus one (0: not set), n its length. */
struct span {
    uint32_t at, n;
};

struct lsp {
    struct span file, function, code;
    uint32_t line;
};

struct gsp {
    bool has_cid;
    struct tl_compile_id cid;
    struct span text;
};

/* Everything about the open message but its arrays and bytes; zeroed when a message opens. */
struct mstate {
    enum tl_tlog_kind kind;
    int rank;
    uint32_t key;
    uint64_t first, last, nlines, pending;
    bool has_cid, complete, truncated;
    struct tl_compile_id cid;

    /* reading state */
    bool guard_seen, in_block, block_has_cid;
    struct tl_compile_id block_cid;
    bool reason_seen, tail_ok, await_inner, await_reason2, in_user_tb, in_internal_tb;
    bool code_pending, await_error, name_seen, class_seen, returned, reason_open;
    bool guard_stack; /* in the "User stack trace:" a guard failure is followed by (2.13) */

    /* fields */
    struct span function, reason, reason2, url, limit_name, symbol, value, source, range, expr;
    struct span graph_name, kernel;
    /* GRAPH_BREAK: the type (the line before the first "Explanation:"), the candidate for it,
     * the developer debug context; which labelled note the indented lines that follow go on */
    struct span type, type_cand, context, url2;
    enum { NOTE_NONE, NOTE_EXPL, NOTE_HINT, NOTE_CONTEXT } open_note;
    struct lsp where;
    uint64_t limit;
    uint32_t nodes;
    bool nested, fallback, suppressed, warning;
    bool loose; /* lines without prefix went on it (a failure's error, see feed_line) */
    size_t nexpl2, nhints2;
};

/* One rank's open message. */
struct slot {
    bool open;
    struct mstate st;
    struct tl_buf buf;
    struct gsp *guards;
    size_t nguards, aguards;
    struct span *expl, *hints;
    size_t nexpl, aexpl, nhints, ahints;
    struct lsp *frames;
    size_t nframes, aframes;
    /* the compile id of the last line of this rank that had one, and whether its guards were
     * printed (its compilation succeeded) */
    bool lcid_has, lcid_done;
    struct tl_compile_id lcid;
};

struct tl_tlog {
    void (*emit)(void *ctx, const struct tl_tlog_msg *m);
    void *ctx;
    struct tl_tlog_stats stats;
    struct slot *slots[TL_TLOG_MAX_RANKS];
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
};

/* Copy t into the message's buffer, within the caps; a cut never splits a UTF-8 sequence. */
static struct span keep(struct slot *s, struct tl_str t)
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
    struct span sp = {(uint32_t)s->buf.len + 1, (uint32_t)n};
    tl_buf_add(&s->buf, t.p, n);
    return sp;
}

static const char empty[1] = "";

static struct tl_str view(const struct slot *s, struct span sp)
{
    if (!sp.at)
        return tl_str_make(empty, 0);
    return tl_str_make(s->buf.buf + sp.at - 1, sp.n);
}

/* Append "\n" and t to the field sp (moved to the end of the buffer first when other fields
 * were kept after it). */
static void extend(struct slot *s, struct span *sp, struct tl_str t)
{
    if (!sp->at) {
        *sp = keep(s, t);
        return;
    }
    if (sp->at - 1 + sp->n != s->buf.len) {
        /* room first, so that the view copied stays where it is */
        tl_buf_grow(&s->buf, sp->n + 1);
        *sp = keep(s, view(s, *sp));
    }
    struct span nl = keep(s, TL_STR_LIT("\n"));
    struct span more = keep(s, t);
    sp->n += nl.n + more.n;
}

/* "FILE:LINE"; "..." or nothing is an unknown place; "x.py:N" (a placeholder) has line 0. */
static void file_line(struct slot *s, struct tl_str t, struct lsp *loc)
{
    t = trim(t);
    if (t.n == 0 || tl_str_eq_cstr(t, "..."))
        return;
    long c = rfind(t, ":");
    if (c > 0) {
        struct tl_str num = after(t, (size_t)c + 1);
        uint32_t v;
        if (to_u32(num, &v)) {
            loc->file = keep(s, sub(t, 0, (size_t)c));
            loc->line = v;
            return;
        }
        bool word = num.n > 0 && num.n <= 8;
        for (size_t i = 0; word && i < num.n; i++)
            word = identc(num.p[i]);
        if (word) {
            loc->file = keep(s, sub(t, 0, (size_t)c));
            return;
        }
    }
    loc->file = keep(s, t);
}

/* "F:N in FN" */
static void file_line_in(struct slot *s, struct tl_str w, struct lsp *loc)
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
            loc->file = keep(s, sub(w, 0, e - 1));
            to_u32(sub(w, e, at), &loc->line);
            loc->function = keep(s, trim(after(w, at + 4)));
            return;
        }
        off = at + 1;
    }
    file_line(s, w, loc);
}

/*
 * The user code after a symbol or a guard: " at F:N in FN (INTERNAL), for more info ..." or
 * " CODE  # F:N in FN (INTERNAL), for more info ...".
 */
static void user_loc(struct slot *s, struct tl_str r, struct lsp *loc)
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
            loc->code = keep(s, code);
        w = trim(after(r, (size_t)h + 4));
    } else if (starts(r, "at ")) {
        w = trim(SKIP(r, "at "));
    } else {
        return;
    }
    file_line_in(s, w, loc);
}

static void add_guard(struct slot *s, struct tl_str text)
{
    struct mstate *st = &s->st;
    struct gsp g;
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
    g.text = keep(s, trim(text));
    TL_GROW(s->guards, s->nguards + 1, s->aguards);
    s->guards[s->nguards++] = g;
}

static void add_note(struct slot *s, struct span **arr, size_t *n, size_t *alloc, size_t *n2,
                     struct tl_str text)
{
    if (s->st.nested)
        (*n2)++;
    if (*n >= TL_TLOG_MAX_NOTES) {
        s->st.truncated = true;
        if (s->st.nested)
            (*n2)--;
        return;
    }
    struct span sp = keep(s, text);
    TL_GROW(*arr, *n + 1, *alloc);
    (*arr)[(*n)++] = sp;
}

static void add_frame(struct slot *s, const struct tl_pytext_frame *fr)
{
    if (s->nframes >= TL_TLOG_MAX_FRAMES) {
        s->st.truncated = true;
        s->st.code_pending = false;
        return;
    }
    struct lsp f;
    memset(&f, 0, sizeof(f));
    f.file = keep(s, fr->file);
    f.line = fr->line;
    f.function = keep(s, fr->function);
    TL_GROW(s->frames, s->nframes + 1, s->aframes);
    s->frames[s->nframes++] = f;
    s->st.code_pending = true;
}

/* ---- the first line of each kind -------------------------------------------------------- */

static void open_recompile(struct slot *s, struct tl_str t)
{
    struct tl_str r = SKIP(t, "Recompiling function ");
    long in = find(r, " in ");
    if (in < 0) {
        s->st.function = keep(s, sub(r, 0, token_len(r)));
        return;
    }
    s->st.function = keep(s, sub(r, 0, (size_t)in));
    struct tl_str loc = after(r, (size_t)in + 4);
    /* the one-line form of old versions: "... in F:N triggered by the following guard
     * failure: GUARD" */
    long tb = find(loc, " triggered by the following guard failure");
    if (tb >= 0) {
        struct tl_str rest = after(loc, (size_t)tb);
        loc.n = (size_t)tb;
        long c = find(rest, ":");
        if (c >= 0 && trim(after(rest, (size_t)c + 1)).n)
            add_guard(s, trim(after(rest, (size_t)c + 1)));
    }
    file_line(s, loc, &s->st.where);
}

static void open_limit(struct slot *s, struct tl_str t)
{
    struct tl_str r = SKIP(t, "torch._dynamo hit config.");
    size_t i = 0;
    while (i < r.n && (identc(r.p[i]) || r.p[i] == '.'))
        i++;
    s->st.limit_name = keep(s, sub(r, 0, i));
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

static void open_graph_break(struct slot *s, struct tl_str t)
{
    struct mstate *st = &s->st;
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
        st->reason = keep(s, r);
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
            st->reason = keep(s, trim(sub(t, sizeof("Graph break: ") - 1, (size_t)k)));
        st->reason_seen = true;
        st->in_user_tb = true;
        struct tl_str rest = ltrim(after(t, (size_t)k + sizeof(" from user code at") - 1));
        if (starts(rest, ":"))
            rest = ltrim(after(rest, 1));
        struct tl_pytext_frame fr;
        if (tl_pytext_frame_line(rest, &fr)) {
            add_frame(s, &fr);
            st->tail_ok = true;
        }
        return;
    }
    file_line(s, loc, &st->where);
}

static void open_symbol(struct slot *s, struct tl_str t)
{
    struct mstate *st = &s->st;
    struct tl_str r = SKIP(t, "create_symbol ");
    size_t i = token_len(r);
    st->symbol = keep(s, sub(r, 0, i));
    r = after(r, i);
    if (starts(r, " = ")) {
        r = SKIP(r, " = ");
        i = token_len(r);
        st->value = keep(s, sub(r, 0, i));
        r = after(r, i);
    }
    if (starts(r, " for ")) {
        r = SKIP(r, " for ");
        i = token_len(r);
        st->source = keep(s, sub(r, 0, i));
        r = after(r, i);
    }
    if (starts(r, " [")) {
        const char *e = memchr(r.p, ']', r.n);
        if (e) {
            size_t j = (size_t)(e - r.p) + 1;
            st->range = keep(s, sub(r, 1, j));
            r = after(r, j);
        }
    }
    user_loc(s, r, &st->where);
}

static void open_duck(struct slot *s, struct tl_str t)
{
    struct mstate *st = &s->st;
    struct tl_str r = SKIP(t, "create_symbol ");
    size_t i = token_len(r);
    st->symbol = keep(s, sub(r, 0, i));
    long k = find(r, " duck sized ");
    if (k < 0)
        return;
    r = SKIP(after(r, (size_t)k), " duck sized ");
    i = token_len(r);
    st->source = keep(s, sub(r, 0, i));
    user_loc(s, after(r, i), &st->where);
}

static void open_guard_added(struct slot *s, struct tl_str t)
{
    struct mstate *st = &s->st;
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
    st->expr = keep(s, expr);
    user_loc(s, SKIP(after(r, (size_t)k), " [guard added]"), &st->where);
    /* Eq(s77, 5): the symbol, and the value it is specialized to; a guard that pins no symbol
     * to a number (Eq(s1, s2), Ne(s0, 1), s0 < 5) has only its expression */
    struct tl_str sym, val;
    if (tl_pytext_eq_constant(expr, &sym, &val)) {
        st->symbol = keep(s, sym);
        st->value = keep(s, val);
    }
}

static void open_start(struct slot *s, struct tl_str t)
{
    struct tl_str r = SKIP(t, "Step 1: torchdynamo start tracing ");
    size_t i = token_len(r);
    s->st.function = keep(s, sub(r, 0, i));
    file_line(s, after(r, i), &s->st.where);
}

static void open_fallback(struct slot *s, struct tl_str t)
{
    struct mstate *st = &s->st;
    struct tl_str r = SKIP(t, "WON'T CONVERT ");
    size_t i = token_len(r);
    st->function = keep(s, sub(r, 0, i));
    r = after(r, i);
    long d = find(r, " due to:");
    if (d >= 0) {
        struct tl_str err = trim(SKIP(after(r, (size_t)d), " due to:"));
        r.n = (size_t)d;
        if (err.n) {
            st->reason = keep(s, err);
            st->complete = true;
        } else {
            st->await_error = true;
        }
    }
    r = trim(r);
    long ln = rfind(r, " line ");
    if (ln >= 0) {
        st->where.file = keep(s, trim(sub(r, 0, (size_t)ln)));
        to_u32(trim(SKIP(after(r, (size_t)ln), " line ")), &st->where.line);
    } else if (r.n) {
        st->where.file = keep(s, r);
    }
}

/* ---- the lines after the first ---------------------------------------------------------- */

/*
 * Each take_* reads one more line t (trimmed) of an open message and says whether it belongs
 * to it. ind: the line was indented. force: the line carries the message's own prefix, so it
 * belongs whatever it says (it is still read for fields).
 */
static bool take_recompile(struct slot *s, struct tl_str t, bool ind, bool force)
{
    struct mstate *st = &s->st;
    if (starts(t, "triggered by the following guard failure")) {
        long c = find(t, ":");
        if (c >= 0 && trim(after(t, (size_t)c + 1)).n)
            add_guard(s, trim(after(t, (size_t)c + 1)));
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
        add_guard(s, trim(raw));
        return true;
    }
    if (starts(t, "guard ") && tl_str_has_suffix(t, " failures:")) {
        st->in_block = true;
        st->block_has_cid = false;
        return true;
    }
    return ind || force;
}

static bool take_limit(struct slot *s, struct tl_str t, bool ind, bool force)
{
    struct mstate *st = &s->st;
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
            st->function = keep(s, sub(r, 0, (size_t)c));
            r = trim(after(r, (size_t)c + cl));
        } else {
            size_t i = token_len(r);
            st->function = keep(s, sub(r, 0, i));
            r = trim(after(r, i));
        }
        if (starts(r, "(") && tl_str_has_suffix(r, ")"))
            file_line(s, sub(r, 1, r.n - 1), &st->where);
        return true;
    }
    if (starts(t, "last reason:") || starts(t, "reasons:")) {
        long c = find(t, ":");
        add_guard(s, trim(after(t, (size_t)c + 1)));
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
static bool gb_awaited(struct slot *s, struct tl_str t, enum tl_pytext_gb_label label)
{
    struct mstate *st = &s->st;
    if (st->await_inner && label != TL_PYGB_EXPLANATION && label != TL_PYGB_HINT &&
        label != TL_PYGB_USER_TB && label != TL_PYGB_CONTEXT) {
        /* the graph break inside "Failed to handle graph break gracefully. ... Graph break
         * encountered:" is the one that tells why */
        st->await_inner = false;
        st->reason = keep(s, t);
        st->type_cand = st->reason;
        return true;
    }
    st->await_inner = false;
    if (st->await_reason2) {
        st->await_reason2 = false;
        st->reason2 = keep(s, t);
        st->tail_ok = true;
        return true;
    }
    return false;
}

/* The first "Reason:" line is the graph break's; later ones are taken and ignored. */
static void gb_reason(struct slot *s, struct tl_str r)
{
    struct mstate *st = &s->st;
    if (st->reason_seen)
        return;
    st->reason_seen = true;
    st->reason = keep(s, r);
    st->type_cand = st->reason;
    st->fallback = find(r, "falling back to eager") >= 0;
    st->await_inner = tl_str_has_suffix(r, "Graph break encountered:");
    st->tail_ok = st->suppressed || s->nframes > 0;
}

/* The labelled lines of a graph break (v: what follows the label): reason, explanation, hint,
 * url, a nested break. */
static bool gb_labelled(struct slot *s, enum tl_pytext_gb_label label, struct tl_str v)
{
    struct mstate *st = &s->st;
    switch (label) {
    case TL_PYGB_REASON:
        gb_reason(s, v);
        return true;
    case TL_PYGB_EXPLANATION:
        /* the line before it names the graph break's type (PyTorch 2.7 on) */
        if (!st->type.at && !st->nested && !s->nexpl)
            st->type = st->type_cand;
        add_note(s, &s->expl, &s->nexpl, &s->aexpl, &st->nexpl2, v);
        st->open_note = NOTE_EXPL;
        st->tail_ok = false;
        return true;
    case TL_PYGB_HINT:
        add_note(s, &s->hints, &s->nhints, &s->ahints, &st->nhints2, v);
        st->open_note = NOTE_HINT;
        return true;
    case TL_PYGB_CONTEXT:
        st->open_note = NOTE_NONE;
        if (!st->context.at && !st->nested) {
            st->context = keep(s, v);
            st->open_note = NOTE_CONTEXT;
        }
        st->tail_ok = true;
        return true;
    case TL_PYGB_MORE: {
        st->open_note = NOTE_NONE;
        struct span *url = st->nested ? &st->url2 : &st->url;
        if (v.p && !url->at)
            *url = keep(s, v);
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
static bool gb_traceback(struct slot *s, struct tl_str t, enum tl_pytext_gb_label label, bool ind,
                         bool force)
{
    struct mstate *st = &s->st;
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
            add_frame(s, &fr);
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
            s->frames[s->nframes - 1].code = keep(s, t);
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
static bool gb_note(struct slot *s, struct tl_str t, enum tl_pytext_gb_label label, bool ind)
{
    struct mstate *st = &s->st;
    struct tl_pytext_frame fr;
    bool frame = tl_pytext_frame_line(t, &fr);
    if (!ind || !st->open_note || frame) {
        if (!ind && !frame && st->reason_seen && !s->nexpl && !st->nested && !st->warning &&
            !st->in_user_tb && !st->in_internal_tb && label != TL_PYGB_USER_TB &&
            label != TL_PYGB_TRACEBACK && label != TL_PYGB_ATTRIBUTION)
            st->type_cand = keep(s, t);
        st->open_note = NOTE_NONE;
        return false;
    }
    if (st->open_note == NOTE_EXPL && s->nexpl)
        extend(s, &s->expl[s->nexpl - 1], t);
    else if (st->open_note == NOTE_HINT && s->nhints)
        extend(s, &s->hints[s->nhints - 1], t);
    else if (st->open_note == NOTE_CONTEXT)
        extend(s, &st->context, t);
    return true;
}

static bool take_graph_break(struct slot *s, struct tl_str t, bool ind, bool force)
{
    struct mstate *st = &s->st;
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
static void note_kernel(struct slot *s, struct tl_str t)
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
        s->st.kernel = keep(s, sub(t, (size_t)at, e));
        return;
    }
}

static bool take_fallback(struct slot *s, struct tl_str t, bool ind, bool force)
{
    struct mstate *st = &s->st;
    note_kernel(s, t);
    /* the line right after "due to:" is the error when it is no traceback */
    bool first = st->await_error;
    bool cont = st->reason_open;
    st->await_error = false;
    st->reason_open = false;
    if (starts(t, "due to:")) {
        struct tl_str err = trim(SKIP(t, "due to:"));
        if (err.n) {
            st->reason = keep(s, err);
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
        extend(s, &st->reason, t);
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
        add_frame(s, &fr);
        return true;
    }
    if (ind && st->code_pending && s->nframes && !tl_pytext_carets(t)) {
        s->frames[s->nframes - 1].code = keep(s, trim(t));
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
    bool wrapped_error = cont && tl_str_has_suffix(view(s, st->reason), ":") && t.n &&
                         (alpha(t.p[0]) || t.p[0] == '_') && find(t, ": ") > 0;
    for (size_t i = 0; wrapped_error && t.p[i] != ':'; i++)
        wrapped_error = identc(t.p[i]) || t.p[i] == '.';
    if (tl_pytext_exception_line(t) || first || wrapped_error) {
        /* the last line of a traceback says why (the outermost of chained exceptions); an
         * error whose message announces the one it wraps ("BackendCompilerFailed: backend='x'
         * raised:" then "RuntimeError: ...") keeps both lines */
        if (cont && tl_str_has_suffix(view(s, st->reason), ":"))
            extend(s, &st->reason, t);
        else
            st->reason = keep(s, t);
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

static bool take_graph(struct slot *s, struct tl_str t, bool ind, bool force)
{
    struct mstate *st = &s->st;
    if (!st->name_seen && starts(t, "=====")) {
        struct tl_str r = trim(SKIP(t, "====="));
        while (r.n && r.p[r.n - 1] == '=')
            r.n--;
        st->graph_name = keep(s, trim(r));
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

static bool take(struct slot *s, struct tl_str t, bool ind, bool force)
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

/* ---- emitting --------------------------------------------------------------------------- */

static struct tl_tlog_loc loc_view(const struct slot *s, const struct lsp *l)
{
    struct tl_tlog_loc v;
    v.file = l->file.at ? view(s, l->file) : TL_STR_NULL;
    v.line = l->line;
    v.function = view(s, l->function);
    v.code = view(s, l->code);
    return v;
}

static bool is_complete(const struct mstate *st)
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
static void msg_head(struct slot *s, struct tl_tlog_msg *m)
{
    const struct mstate *st = &s->st;
    m->kind = st->kind;
    m->first_line = st->first;
    m->last_line = st->last;
    m->rank = st->rank;
    m->has_cid = st->has_cid;
    m->cid = st->cid;
    m->cut = !is_complete(st);
    m->truncated = st->truncated;
    m->function = view(s, st->function);
    m->where = loc_view(s, &st->where);
    if (st->kind == TL_TLOG_RECOMPILE || st->kind == TL_TLOG_LIMIT || st->kind == TL_TLOG_START ||
        st->kind == TL_TLOG_FALLBACK)
        m->where.function = m->function;
}

/* The guards and the recompile limit; the views live in p's arrays until the next message. */
static void msg_guards(struct tl_tlog *p, struct slot *s, struct tl_tlog_msg *m)
{
    const struct mstate *st = &s->st;
    TL_GROW(p->gv, s->nguards, p->agv);
    for (size_t i = 0; i < s->nguards; i++) {
        p->gv[i].has_cid = s->guards[i].has_cid;
        p->gv[i].cid = s->guards[i].cid;
        p->gv[i].text = view(s, s->guards[i].text);
    }
    m->guards = p->gv;
    m->nguards = s->nguards;
    m->limit_name = view(s, st->limit_name);
    m->limit = st->limit;
}

/* Reasons, explanations, hints and the url of a graph break or failure. */
static void msg_notes(struct tl_tlog *p, struct slot *s, struct tl_tlog_msg *m)
{
    const struct mstate *st = &s->st;
    m->reason = view(s, st->reason);
    m->reason2 = view(s, st->reason2);
    TL_GROW(p->ev, s->nexpl, p->aev);
    for (size_t i = 0; i < s->nexpl; i++)
        p->ev[i] = view(s, s->expl[i]);
    TL_GROW(p->hv, s->nhints, p->ahv);
    for (size_t i = 0; i < s->nhints; i++)
        p->hv[i] = view(s, s->hints[i]);
    m->explanations = p->ev;
    m->nexplanations = s->nexpl;
    m->hints = p->hv;
    m->nhints = s->nhints;
    m->nexplanations2 = st->nexpl2;
    m->nhints2 = st->nhints2;
    m->url = view(s, st->url);
    m->type = view(s, st->type);
    m->debug_context = view(s, st->context);
    m->url2 = view(s, st->url2);
}

/* The user frames, and a graph break's place taken from the innermost of them. */
static void msg_frames(struct tl_tlog *p, struct slot *s, struct tl_tlog_msg *m)
{
    const struct mstate *st = &s->st;
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

static void close_msg(struct tl_tlog *p, struct slot *s)
{
    const struct mstate *st = &s->st;
    struct tl_tlog_msg m;
    memset(&m, 0, sizeof(m));
    msg_head(s, &m);
    msg_guards(p, s, &m);
    msg_notes(p, s, &m);
    msg_frames(p, s, &m);
    /* symbols and shapes; a graph's name and size */
    m.symbol = view(s, st->symbol);
    m.value = view(s, st->value);
    m.source = view(s, st->source);
    m.range = view(s, st->range);
    m.expr = view(s, st->expr);
    m.graph_name = view(s, st->graph_name);
    m.nodes = st->nodes;
    m.kernel = view(s, st->kernel);

    p->stats.messages++;
    p->stats.in_messages += st->nlines;
    s->open = false;
    p->emit(p->ctx, &m);
    /* an idle rank keeps no large buffer */
    if (s->buf.alloc > 64 * 1024)
        tl_buf_release(&s->buf);
}

static struct slot *slot_for(struct tl_tlog *p, int rank)
{
    size_t i = rank < 0 ? 0 : 1 + (size_t)rank % (TL_TLOG_MAX_RANKS - 1);
    if (!p->slots[i]) {
        struct slot *s = tl_xcalloc(1, sizeof(*s));
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

static void open_msg(struct tl_tlog *p, struct slot *s, const struct tl_tlog_line *L,
                     struct tl_str t, enum tl_tlog_kind k, uint64_t lineno)
{
    struct mstate *st = &s->st;
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
        st->reason = keep(s, trim(SKIP(t, "Restarting analysis due to ")));
        break;
    case TL_TLOG_FALLBACK:
    case TL_TLOG_UNCAUGHT:
        if (k == TL_TLOG_FALLBACK)
            open_fallback(s, t);
        if (!st->has_cid && s->lcid_has && !s->lcid_done) {
            st->has_cid = true;
            st->cid = s->lcid;
            st->cid.has &= (uint8_t)~TL_CID_ATTEMPT;
            st->cid.attempt = 0;
        }
        break;
    case TL_TLOG_GRAPH:
    case TL_TLOG_GUARD_ERROR:
        break;
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
        struct slot *s = p->slots[i];
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
    split_line(line, &L);
    struct tl_str t = trim(L.body);
    if (t.n > 4 && t.p[0] == '(' && (t.p[1] == '\'' || t.p[1] == '"') && t.p[t.n - 1] == ')')
        t = tuple_text(&p->norm, t);
    bool blank = t.n == 0;
    bool elision = !L.has_prefix && t.n == 3 && memcmp(t.p, "...", 3) == 0;
    enum tl_tlog_kind k = TL_TLOG_RECOMPILE;
    bool start = !blank && start_kind(t, &k);
    struct slot *s = slot_for(p, L.rank);
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
        struct mstate *st = &s->st;
        if (!start && !elision && st->rank == L.rank && (st->key == L.prefix_key || loose)) {
            /* a blank line belongs to the message only if a line of it follows */
            if (blank) {
                st->pending++;
                return;
            }
            bool ind = L.body.n && blankc(L.body.p[0]);
            if (take(s, t, ind, st->key != 0 && !loose)) {
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
    split_line(line, &L);
    enum tl_tlog_kind k;
    return !L.has_prefix && !start_kind(trim(L.body), &k);
}

void tl_tlog_feed(struct tl_tlog *p, uint64_t lineno, struct tl_str line)
{
    p->stats.lines++;
    if (line.n && line.p[line.n - 1] == '\r')
        line.n--;
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
        if (split_line(line, &L) != PFX_NONE && L.has_prefix) {
            tl_buf_reset(&p->held);
            tl_buf_add(&p->held, line.p, line.n);
            p->held_no = lineno;
            return;
        }
    }
    feed_line(p, lineno, line);
}

void tl_tlog_end(struct tl_tlog *p)
{
    if (p->held_no) {
        uint64_t no = p->held_no;
        p->held_no = 0;
        feed_line(p, no, tl_buf_str(&p->held));
    }
    for (;;) {
        struct slot *first = NULL;
        for (size_t i = 0; i < TL_TLOG_MAX_RANKS; i++) {
            struct slot *s = p->slots[i];
            if (s && s->open && (!first || s->st.first < first->st.first))
                first = s;
        }
        if (!first)
            break;
        close_msg(p, first);
    }
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
        enum pfx type = split_line(tl_str_make(text + i, e - i), &L);
        if (type == PFX_GLOG && !L.has_cid && !L.tag.n && L.body.n >= 2 && L.body.p[0] == '{' &&
            L.body.p[1] == '"')
            return false;
        if (!seen) {
            struct tl_str t = ltrim(L.body);
            enum tl_tlog_kind k;
            seen = start_kind(t, &k) || (L.has_prefix && (L.has_cid || L.tag.n)) || marker_line(t);
        }
        i = e + 1;
    }
    return seen;
}
