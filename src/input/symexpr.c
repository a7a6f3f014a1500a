/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PyTorch's symbolic shape expressions, as its guards print them (symexpr.h).
 */
#include "base/config.h"
#include "input/symexpr.h"

#include <stdint.h>
#include <string.h>

bool tl_symexpr_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The symbol (s0, u3, zf1) that starts at p, its length; 0 when none starts there. */
size_t tl_symexpr_symbol_at(const char *expr, const char *p)
{
    if (p > expr && (tl_symexpr_ident_char(p[-1])))
        return 0;
    const char *e = p;
    if (*e == 's' || *e == 'u')
        e++;
    else if (e[0] == 'z' && e[1] == 'f')
        e += 2;
    else
        return 0;
    if (*e < '0' || *e > '9')
        return 0;
    while (*e >= '0' && *e <= '9')
        e++;
    return tl_symexpr_ident_char(*e) ? 0 : (size_t)(e - p);
}

/* "zf0": the symbol of a Python float */
bool tl_symexpr_float_symbol(const char *s)
{
    if (!s || s[0] != 'z' || s[1] != 'f' || !s[2])
        return false;
    for (s += 2; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/*
 * Whether a guard on one symbol holds for every size (0 to 1024): "8*((s77//2)) <= 4*s77",
 * which PyTorch 2.13 evaluates for a view's bounds (with guards suppressed: it constrains
 * nothing). The expression language's integers, + - * // (floor), Mod, parentheses, and one
 * comparison (<, <=, >, >=, ==, !=, Eq, Ne); anything else (another symbol, a float, a
 * function) cannot be told: false.
 */
struct calc {
    const char *p, *end;
    struct tl_str sym; /* the one symbol, once seen */
    int64_t at;        /* its value */
    bool ok;
};

static void calc_space(struct calc *c)
{
    while (c->p < c->end && *c->p == ' ')
        c->p++;
}

static bool calc_eat(struct calc *c, const char *lit)
{
    calc_space(c);
    size_t n = strlen(lit);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n))
        return false;
    c->p += n;
    return true;
}

static int64_t calc_expr(struct calc *c);

static int64_t calc_fail(struct calc *c)
{
    c->ok = false;
    return 0;
}

static int64_t floordiv(struct calc *c, int64_t a, int64_t b)
{
    if (!b)
        return calc_fail(c);
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t calc_atom(struct calc *c)
{
    calc_space(c);
    if (!c->ok || c->p >= c->end)
        return calc_fail(c);
    if (calc_eat(c, "-"))
        return -calc_atom(c);
    if (calc_eat(c, "(")) {
        int64_t v = calc_expr(c);
        if (!calc_eat(c, ")"))
            c->ok = false;
        return v;
    }
    if (calc_eat(c, "Mod(")) {
        int64_t a = calc_expr(c);
        int64_t b = calc_eat(c, ",") ? calc_expr(c) : calc_fail(c);
        if (!calc_eat(c, ")"))
            c->ok = false;
        return a - b * floordiv(c, a, b);
    }
    if (*c->p >= '0' && *c->p <= '9') {
        int64_t v = 0;
        while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && v < ((int64_t)1 << 40))
            v = v * 10 + (*c->p++ - '0');
        if (c->p < c->end && (tl_symexpr_ident_char(*c->p) || *c->p == '.'))
            c->ok = false;
        return v;
    }
    size_t n = tl_symexpr_symbol_at(c->p, c->p);
    if (!n || (size_t)(c->end - c->p) < n)
        return calc_fail(c);
    struct tl_str sym = tl_str_make(c->p, n);
    if (!c->sym.p)
        c->sym = sym;
    else if (!tl_str_eq(c->sym, sym))
        c->ok = false; /* a second symbol */
    c->p += n;
    return c->at;
}

static int64_t calc_term(struct calc *c)
{
    int64_t v = calc_atom(c);
    for (;;) {
        if (calc_eat(c, "//"))
            v = floordiv(c, v, calc_atom(c));
        else if (calc_eat(c, "*"))
            v *= calc_atom(c);
        else
            break;
        if (v > ((int64_t)1 << 40) || v < -((int64_t)1 << 40))
            c->ok = false;
        if (!c->ok)
            return 0;
    }
    return v;
}

static int64_t calc_expr(struct calc *c)
{
    int64_t v = calc_term(c);
    for (;;) {
        if (calc_eat(c, "+"))
            v += calc_term(c);
        else if (calc_eat(c, "-"))
            v -= calc_term(c);
        else
            break;
        if (!c->ok)
            return 0;
    }
    return v;
}

/* The guard's truth at one value of its symbol; c->ok false when it cannot be evaluated. */
static bool calc_cond(struct calc *c, const char *expr)
{
    c->p = expr;
    c->end = expr + strlen(expr);
    bool eq = calc_eat(c, "Eq(");
    bool ne = !eq && calc_eat(c, "Ne(");
    int64_t a = calc_expr(c);
    int64_t b;
    bool r = false;
    if (eq || ne) {
        b = calc_eat(c, ",") ? calc_expr(c) : calc_fail(c);
        if (!calc_eat(c, ")"))
            c->ok = false;
        r = eq ? a == b : a != b;
    } else {
        static const char *const ops[] = {"<=", ">=", "==", "!=", "<", ">"};
        size_t k = 0;
        while (k < TL_ARRAY_LEN(ops) && !calc_eat(c, ops[k]))
            k++;
        if (k == TL_ARRAY_LEN(ops))
            return calc_fail(c);
        b = calc_expr(c);
        r = k == 0   ? a <= b
            : k == 1 ? a >= b
            : k == 2 ? a == b
            : k == 3 ? a != b
            : k == 4 ? a < b
                     : a > b;
    }
    calc_space(c);
    if (c->p != c->end)
        c->ok = false;
    return r;
}

bool tl_symexpr_always_holds(const char *expr)
{
    if (!expr)
        return false;
    struct calc c;
    memset(&c, 0, sizeof(c));
    for (int64_t v = 0; v <= 1024; v++) {
        c.at = v;
        c.ok = true;
        c.sym = TL_STR_NULL;
        bool r = calc_cond(&c, expr);
        if (!c.ok || !c.sym.p || !r)
            return false;
    }
    return true;
}
