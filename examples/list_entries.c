/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Read a trace entry by entry: one line per entry with its log line, compile id, kind, name
 * and payload size; then how many entries of each kind. No report is written.
 *
 *     list_entries TRACE
 *
 * Build against an installed libtlparse:  cc list_entries.c $(pkg-config --cflags --libs tlparse)
 */
#include <tlparse/tlparse.h>

#include <stdio.h>
#include <string.h>

#define MAX_KINDS 64

struct tally {
    char kind[MAX_KINDS][64];
    unsigned count[MAX_KINDS];
    size_t n;
};

static int print_entry(void *ctx, const struct tl_entry *e)
{
    struct tally *t = ctx;
    printf("%6llu  %-8s %-28s %-40.40s %zu\n", (unsigned long long)e->line,
           *e->compile_id ? e->compile_id : "-", e->kind, *e->name ? e->name : "-",
           e->payload_len);
    size_t i = 0;
    while (i < t->n && strcmp(t->kind[i], e->kind))
        i++;
    if (i == t->n && t->n < MAX_KINDS) {
        snprintf(t->kind[i], sizeof(t->kind[i]), "%s", e->kind);
        t->count[t->n++] = 0;
    }
    if (i < t->n)
        t->count[i]++;
    return 0; /* go on */
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s TRACE\n", argv[0]);
        return 2;
    }
    struct tl_options opt = {.path = argv[1]};
    struct tally t = {.n = 0};
    int rc = tl_each_entry(&opt, print_entry, &t);
    for (size_t i = 0; i < t.n; i++)
        printf("%s: %u\n", t.kind[i], t.count[i]);
    return rc;
}
