/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A custom parser: the report of a trace, plus for every graph Dynamo captured a file
 * graph_ops_N.txt in its compile folder that counts the operators the graph calls, listed
 * under its compile id on index.html like the built-in artifacts.
 *
 *     graph_ops TRACE OUT
 *
 * Build against an installed libtlparse:  cc graph_ops.c $(pkg-config --cflags --libs tlparse)
 */
#include <tlparse/tlparse.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPS 256

struct op {
    char name[128];
    unsigned count;
};

/* The operator a line of a graph's code calls: "torch._C._nn.linear" in
 * `linear: "f32[..]" = torch._C._nn.linear(x, w, b)`, or 0 when it calls none. */
static size_t op_of(const char *line, size_t n, const char **op)
{
    const char *eq = NULL;
    for (size_t i = 0; !eq && i + 3 <= n; i++)
        if (!memcmp(line + i, " = ", 3))
            eq = line + i;
    if (!eq)
        return 0;
    const char *p = eq + 3, *end = line + n;
    size_t len = 0;
    while (p + len < end && (p[len] == '_' || p[len] == '.' || (p[len] >= 'a' && p[len] <= 'z') ||
                             (p[len] >= 'A' && p[len] <= 'Z') || (p[len] >= '0' && p[len] <= '9')))
        len++;
    if (!len || p + len >= end || p[len] != '(')
        return 0;
    *op = p;
    return len;
}

static int by_count(const void *a, const void *b)
{
    const struct op *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The parser: called for each dynamo_output_graph entry. */
static int graph_ops(void *ctx, const struct tl_entry *e, struct tl_parser_output *out)
{
    unsigned *graphs = ctx;
    struct op ops[MAX_OPS];
    size_t nops = 0;
    for (const char *line = e->payload; *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        const char *op;
        size_t len = op_of(line, n, &op);
        if (len && len < sizeof(ops[0].name)) {
            size_t i = 0;
            while (i < nops && !(strlen(ops[i].name) == len && !memcmp(ops[i].name, op, len)))
                i++;
            if (i == nops && nops < MAX_OPS) {
                memcpy(ops[i].name, op, len);
                ops[i].name[len] = 0;
                ops[i].count = 0;
                nops++;
            }
            if (i < nops)
                ops[i].count++;
        }
        line += n + (nl != NULL);
    }
    qsort(ops, nops, sizeof(ops[0]), by_count);
    char text[MAX_OPS * 160];
    size_t len = (size_t)snprintf(text, sizeof(text), "Operators of the graph of %s (line %llu)\n",
                                  e->compile_id, (unsigned long long)e->line);
    for (size_t i = 0; i < nops && len < sizeof(text); i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, "%6u  %s\n", ops[i].count,
                                ops[i].name);
    if (len > sizeof(text))
        len = sizeof(text) - 1;
    (*graphs)++;
    return tl_parser_add_file(out, "graph_ops.txt", text, len);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s TRACE OUT\n", argv[0]);
        return 2;
    }
    static const char *const keys[] = {"dynamo_output_graph", NULL};
    unsigned graphs = 0;
    struct tl_parser parser = {.name = "graph_ops", .keys = keys, .parse = graph_ops, .ctx = &graphs};
    struct tl_options opt = {.path = argv[1], .out_dir = argv[2], .overwrite = true};
    opt.parsers = &parser;
    opt.nparsers = 1;
    struct tl_result res;
    int rc = tl_run(&opt, &res);
    if (rc == TL_EXIT_OK)
        printf("%u graphs; report in %s\n", graphs, res.index_path);
    tl_result_release(&res);
    return rc;
}
