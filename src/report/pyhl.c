/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Python highlighter (spec core.md §4.7): one pass over the bytes with a
 * character-class table, no regex, no backtracking, so time is linear in the
 * input. Tokens only pick a style; the text of a span is always a contiguous
 * slice of the input, handed to tl_html_attr in one call, so adjacent tokens
 * of one style (and the whitespace after them) cost nothing extra.
 * Depends on buf and html only.
 */
#include "base/config.h"
#include "report/pyhl.h"
#include "report/html.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* InspiredGitHub colours, as the reference writes them. */
enum style {
    ST_DEFAULT,
    ST_KEYWORD,
    ST_STRING,
    ST_NUMBER, /* numbers and True/False/None */
    ST_COMMENT,
    ST_BUILTIN, /* builtins and decorators */
    ST_DEFNAME, /* the name after def/class */
};

#define SPAN(css) "<span style=\"" css "\">"
#define OPEN(css) SPAN(css), sizeof(SPAN(css)) - 1
static const struct {
    const char *s;
    size_t n;
} span_open[] = {
    [ST_DEFAULT] = {OPEN("color:#323232;")},
    [ST_KEYWORD] = {OPEN("font-weight:bold;color:#a71d5d;")},
    [ST_STRING] = {OPEN("color:#183691;")},
    [ST_NUMBER] = {OPEN("color:#0086b3;")},
    [ST_COMMENT] = {OPEN("font-style:italic;color:#969896;")},
    [ST_BUILTIN] = {OPEN("color:#62a35c;")},
    [ST_DEFNAME] = {OPEN("font-weight:bold;color:#323232;")},
};

static const char pre_open[] = "<pre style=\"background-color:#ffffff;\">\n";
static const char pre_close[] = "</pre>\n";
static const char span_close[] = "</span>";

/* Byte classes for the dispatch in tl_pyhl_render. */
enum {
    K_OTHER, /* operators, punctuation, control bytes */
    K_SPACE,
    K_NL,
    K_IDENT, /* A-Z a-z _ and every byte >= 0x80 (Unicode identifiers) */
    K_DIGIT,
    K_QUOTE,
    K_HASH,
    K_AT,
    K_DOT,
};

#define R10(x) x, x, x, x, x, x, x, x, x, x
#define R26(x) R10(x), R10(x), x, x, x, x, x, x
#define R64(x) R10(x), R10(x), R10(x), R10(x), R10(x), R10(x), x, x, x, x
#define R128(x) R64(x), R64(x)

static const uint8_t cls[256] = {
    ['\t'] = K_SPACE,     ['\n'] = K_NL,   ['\v'] = K_SPACE,     ['\f'] = K_SPACE,
    ['\r'] = K_SPACE,     [' '] = K_SPACE, ['"'] = K_QUOTE,      ['\''] = K_QUOTE,
    ['#'] = K_HASH,       ['@'] = K_AT,    ['.'] = K_DOT,        ['0'] = R10(K_DIGIT),
    ['A'] = R26(K_IDENT), ['_'] = K_IDENT, ['a'] = R26(K_IDENT), [0x80] = R128(K_IDENT),
};

/* Identifier continuation bytes: K_IDENT plus digits. */
static const uint8_t ident_cont[256] = {
    ['0'] = R10(1), ['A'] = R26(1), ['_'] = 1, ['a'] = R26(1), [0x80] = R128(1),
};

static inline bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static inline bool is_hex_or_us(unsigned char c)
{
    return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') || c == '_';
}

/* r b f u rb br rf fr, any case. */
static bool is_string_prefix(const unsigned char *p, size_t n)
{
    unsigned a = p[0] | 0x20u;
    if (n == 1)
        return a == 'r' || a == 'b' || a == 'f' || a == 'u';
    if (n != 2)
        return false;
    unsigned b = p[1] | 0x20u;
    return (a == 'r' && (b == 'b' || b == 'f')) || (b == 'r' && (a == 'b' || a == 'f'));
}

/*
 * Style of a bare identifier. *is_def is set for def/class, whose next name
 * is highlighted as a definition. A switch on the first byte keeps this to
 * one or two short compares for the common case of a plain name.
 */
static enum style classify_word(const unsigned char *p, size_t n, bool *is_def)
{
#define W(word, st)                                                                                \
    if (n == sizeof(word) - 1 && memcmp(p, word, sizeof(word) - 1) == 0)                           \
    return st
#define K(word) W(word, ST_KEYWORD)
#define B(word) W(word, ST_BUILTIN)
    if (n < 2 || n > 19)
        return ST_DEFAULT;
    switch (p[0]) {
    case 'a':
        K("and");
        K("as");
        K("assert");
        K("async");
        K("await");
        B("abs");
        B("all");
        B("any");
        break;
    case 'b':
        K("break");
        B("bin");
        B("bool");
        B("bytearray");
        B("bytes");
        break;
    case 'c':
        if (n == 5 && memcmp(p, "class", 5) == 0) {
            *is_def = true;
            return ST_KEYWORD;
        }
        K("continue");
        B("callable");
        B("chr");
        B("classmethod");
        break;
    case 'd':
        if (n == 3 && memcmp(p, "def", 3) == 0) {
            *is_def = true;
            return ST_KEYWORD;
        }
        K("del");
        B("delattr");
        B("dict");
        B("dir");
        B("divmod");
        break;
    case 'e':
        K("elif");
        K("else");
        K("except");
        B("enumerate");
        B("eval");
        B("exec");
        break;
    case 'f':
        K("finally");
        K("for");
        K("from");
        B("filter");
        B("float");
        B("format");
        B("frozenset");
        break;
    case 'g':
        K("global");
        B("getattr");
        B("globals");
        break;
    case 'h':
        B("hasattr");
        B("hash");
        B("hex");
        break;
    case 'i':
        K("if");
        K("import");
        K("in");
        K("is");
        B("id");
        B("input");
        B("int");
        B("isinstance");
        B("issubclass");
        B("iter");
        break;
    case 'l':
        K("lambda");
        B("len");
        B("list");
        B("locals");
        break;
    case 'm':
        B("map");
        B("max");
        B("min");
        break;
    case 'n':
        K("nonlocal");
        K("not");
        B("next");
        break;
    case 'o':
        K("or");
        B("object");
        B("oct");
        B("open");
        B("ord");
        break;
    case 'p':
        K("pass");
        B("pow");
        B("print");
        B("property");
        break;
    case 'r':
        K("raise");
        K("return");
        B("range");
        B("repr");
        B("reversed");
        B("round");
        break;
    case 's':
        B("set");
        B("setattr");
        B("slice");
        B("sorted");
        B("staticmethod");
        B("str");
        B("sum");
        B("super");
        break;
    case 't':
        K("try");
        B("tuple");
        B("type");
        break;
    case 'v':
        B("vars");
        break;
    case 'w':
        K("while");
        K("with");
        break;
    case 'y':
        K("yield");
        break;
    case 'z':
        B("zip");
        break;
    case 'A':
        B("AssertionError");
        B("AttributeError");
        break;
    case 'B':
        B("BaseException");
        break;
    case 'E':
        B("Exception");
        break;
    case 'F':
        W("False", ST_NUMBER);
        break;
    case 'I':
        B("IndexError");
        break;
    case 'K':
        B("KeyError");
        break;
    case 'N':
        W("None", ST_NUMBER);
        B("NotImplementedError");
        break;
    case 'R':
        B("RuntimeError");
        break;
    case 'S':
        B("StopIteration");
        break;
    case 'T':
        W("True", ST_NUMBER);
        B("TypeError");
        break;
    case 'V':
        B("ValueError");
        break;
    default:
        break;
    }
    return ST_DEFAULT;
#undef W
#undef K
#undef B
}

/*
 * s points at the opening quote. Returns the end of the string literal:
 * after the closing quote, or at the newline ending an unterminated
 * single-quoted string, or at end for an unterminated triple-quoted one.
 * A backslash always protects the next byte (also in raw strings, where
 * r'\'' is still one literal).
 */
/* The first byte of s[0..end) that is a, b or c; end if none. 16 bytes a step with SSE2: the
 * generated code's triple-quoted strings (a kernel's source) run for kilobytes. */
static inline const unsigned char *find3(const unsigned char *s, const unsigned char *end,
                                         unsigned char a, unsigned char b, unsigned char c)
{
#if defined(__SSE2__)
    const __m128i va = _mm_set1_epi8((char)a), vb = _mm_set1_epi8((char)b),
                  vc = _mm_set1_epi8((char)c);
    for (; end - s >= 16; s += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb)), _mm_cmpeq_epi8(v, vc)));
        if (m)
            return s + __builtin_ctz(m);
    }
#endif
    while (s < end && *s != a && *s != b && *s != c)
        s++;
    return s;
}

static const unsigned char *scan_string(const unsigned char *s, const unsigned char *end)
{
    unsigned char q = *s;
    if (end - s >= 3 && s[1] == q && s[2] == q) {
        s += 3;
        for (;;) {
            s = find3(s, end, q, '\\', '\\');
            if (s == end)
                return end;
            if (*s == '\\') {
                if (end - s < 2)
                    return end;
                s += 2;
                continue;
            }
            if (end - s >= 3 && s[1] == q && s[2] == q)
                return s + 3;
            s++;
        }
    }
    s++;
    while (s < end) {
        s = find3(s, end, q, '\n', '\\');
        if (s == end)
            break;
        unsigned char c = *s;
        if (c == q)
            return s + 1;
        if (c == '\n')
            return s;
        if (c == '\\') {
            if (end - s < 2)
                return end;
            /* A line continuation may be \r\n. */
            s += (end - s >= 3 && s[1] == '\r' && s[2] == '\n') ? 3 : 2;
            continue;
        }
        s++;
    }
    return end;
}

/* s points at a digit, or at '.' followed by a digit. */
static const unsigned char *scan_number(const unsigned char *s, const unsigned char *end)
{
    if (*s == '0' && end - s >= 2) {
        unsigned x = s[1] | 0x20u;
        if (x == 'x' || x == 'o' || x == 'b') {
            s += 2;
            while (s < end && is_hex_or_us(*s))
                s++;
            return s;
        }
    }
    while (s < end && (is_digit(*s) || *s == '_'))
        s++;
    if (s < end && *s == '.') {
        s++;
        while (s < end && (is_digit(*s) || *s == '_'))
            s++;
    }
    if (s < end && (*s | 0x20) == 'e') {
        const unsigned char *t = s + 1;
        if (t < end && (*t == '+' || *t == '-'))
            t++;
        if (t < end && is_digit(*t)) {
            s = t;
            while (s < end && (is_digit(*s) || *s == '_'))
                s++;
        }
    }
    if (s < end && (*s | 0x20) == 'j')
        s++;
    return s;
}

/* The pending span: bytes [run, token start) all get style cur. */
struct emitter {
    struct tl_buf *out;
    enum style cur;
    const unsigned char *run;
};

static void flush(struct emitter *em, const unsigned char *to)
{
    if (to == em->run)
        return;
    tl_buf_add(em->out, span_open[em->cur].s, span_open[em->cur].n);
    tl_html_attr(em->out, (const char *)em->run, (size_t)(to - em->run));
    tl_buf_add(em->out, span_close, sizeof(span_close) - 1);
    em->run = to;
}

void tl_pyhl_render(struct tl_buf *out, const char *src, size_t n)
{
    const unsigned char *begin = (const unsigned char *)(src ? src : "");
    const unsigned char *s = begin;
    const unsigned char *end = begin + n;
    struct emitter em = {out, ST_DEFAULT, begin};
    bool bol = true;        /* only whitespace since the last newline */
    bool want_name = false; /* the previous token was def/class */

    tl_buf_add(out, pre_open, sizeof(pre_open) - 1);
    while (s < end) {
        const unsigned char *tok = s;
        enum style st = ST_DEFAULT;
        bool is_def = false;

        switch (cls[*s]) {
        case K_SPACE:
            /* Whitespace joins whatever span is open; it changes no state. */
            do
                s++;
            while (s < end && cls[*s] == K_SPACE);
            continue;
        case K_NL:
            s++;
            bol = true;
            continue;
        case K_IDENT:
            do
                s++;
            while (s < end && ident_cont[*s]);
            if (s < end && cls[*s] == K_QUOTE && is_string_prefix(tok, (size_t)(s - tok))) {
                s = scan_string(s, end);
                st = ST_STRING;
            } else if (want_name) {
                st = ST_DEFNAME;
            } else if (tok > begin && tok[-1] == '.') {
                st = ST_DEFAULT; /* attribute: x.type, tl.int1 */
            } else {
                st = classify_word(tok, (size_t)(s - tok), &is_def);
            }
            break;
        case K_DIGIT:
            s = scan_number(s, end);
            st = ST_NUMBER;
            break;
        case K_QUOTE:
            s = scan_string(s, end);
            st = ST_STRING;
            break;
        case K_HASH: {
            const unsigned char *nl = memchr(s, '\n', (size_t)(end - s));
            s = nl ? nl : end;
            st = ST_COMMENT;
            break;
        }
        case K_AT:
            s++;
            if (bol && s < end && cls[*s] == K_IDENT) {
                while (s < end && (ident_cont[*s] || *s == '.'))
                    s++;
                st = ST_BUILTIN;
            }
            break;
        case K_DOT:
            if (end - s >= 2 && is_digit(s[1])) {
                s = scan_number(s, end);
                st = ST_NUMBER;
            } else {
                s++;
            }
            break;
        default:
            do
                s++;
            while (s < end && cls[*s] == K_OTHER);
            break;
        }

        if (st != em.cur) {
            flush(&em, tok);
            em.cur = st;
        }
        bol = false;
        want_name = is_def;
    }
    flush(&em, end);
    tl_buf_add(out, pre_close, sizeof(pre_close) - 1);
}
