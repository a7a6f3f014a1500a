/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The prefixes of one line of TORCH_LOGS text (tlog_prefix.h), read by one forward scan:
 * worker and rank, glog, bracket, path-only, "...", compile id, artifact tag, and the key that
 * tells the lines of one multi-line message. O(length) per line, no allocation. Depends on
 * base (str) and pytext (compile ids as PyTorch writes them).
 */
#include "base/config.h"
#include "input/tlog_prefix.h"

#include <string.h>

#include "input/pytext.h"
#include "input/textview.h"

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
    enum tl_tlog_pfx type;
    size_t pos, key0, key1, cid0, cid1;
};

/* The bracket prefix's key is its logger name (out->tag). */
static inline void bracket_key(const char *s, const struct tl_tlog_line *out, struct pmatch *m)
{
    m->type = TL_TLOG_PFX_BRACKET;
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
            m->type = TL_TLOG_PFX_GLOG;
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
        m->type = TL_TLOG_PFX_GLOG;
    } else if (i < n && s[i] == '[' && bracket_at(s, n, i, out, &m->cid0, &m->cid1, &m->pos)) {
        bracket_key(s, out, m);
    } else if (n - i >= 5 && memcmp(s + i, "... [", 5) == 0) {
        m->type = TL_TLOG_PFX_ELIDED;
        m->pos = i + 4;
    } else if (path_at(s, n, i, &m->pos)) {
        m->type = TL_TLOG_PFX_PATH;
        m->key0 = i;
        m->key1 = m->pos;
    } else if (n - i > 4 && level_tab[(unsigned char)s[i]] && s[i + 1] == ' ' &&
               path_at(s, n, i + 2, &m->pos)) {
        /* a glog prefix cut to its level and path ("W convert_frame.py:1676] ") */
        m->type = TL_TLOG_PFX_PATH;
        out->level = s[i];
        m->key0 = i;
        m->key1 = m->pos;
    } else {
        glued_prefix(s, n, i, &rb, &g, out, m);
    }
    if (m->type == TL_TLOG_PFX_GLOG) {
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
    if (m->type == TL_TLOG_PFX_NONE && (out->has_cid || out->tag.n))
        m->type = TL_TLOG_PFX_CID;
    if (m->type == TL_TLOG_PFX_ELIDED && !out->has_cid && !out->tag.n) {
        m->type = TL_TLOG_PFX_NONE;
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
enum tl_tlog_pfx tl_tlog_prefix(struct tl_str line, struct tl_tlog_line *out)
{
    const char *s = line.p ? line.p : "";
    size_t n = line.p ? line.n : 0;
    if (n && s[n - 1] == '\r')
        n--;
    memset(out, 0, sizeof(*out));
    out->rank = -1;

    size_t i = worker_prefixes(s, n, out);
    struct pmatch m = {TL_TLOG_PFX_NONE, i, 0, 0, 0, 0};
    match_prefix(s, n, i, out, &m);
    if (m.type != TL_TLOG_PFX_BRACKET)
        cid_and_tag(s, n, i, out, &m);
    out->body = tl_str_make(s + m.pos, n - m.pos);
    out->has_prefix = m.type != TL_TLOG_PFX_NONE;
    if (m.type != TL_TLOG_PFX_NONE)
        out->prefix_key = prefix_key(s, out, &m);
    return m.type;
}

void tl_tlog_split(struct tl_str line, struct tl_tlog_line *out)
{
    tl_tlog_prefix(line, out);
}
