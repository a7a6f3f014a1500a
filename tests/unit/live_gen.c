/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes what src/report/live.c makes, for the browser test of the live page
 * (tests/e2e/test_live.py), until `tlparse --watch` writes it itself:
 *
 *   live_gen page FILE [TITLE]           live.html (tl_live_page)
 *   live_gen status FILE [KEY=VALUE...]  live.js (tl_live_status)
 *
 * Keys of status: generation, updated, heartbeat, last_input (Unix ms), state (writing, idle,
 * finished, stopped), final (1: the report of a watch that ended), compile_ids, graph_breaks,
 * recompiles, failures, input, message, and rank=R:COMPILE_IDS:GRAPH_BREAKS:RECOMPILES:FAILURES
 * (once per rank). Each file is written to FILE.tmp and renamed into place, as the watcher will.
 * Exit 0, or 2 with a message.
 */
#include "base/config.h"
#include "base/buf.h"
#include "report/live.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS 64

static int usage(const char *why)
{
    fprintf(stderr,
            "live_gen: %s\nusage: live_gen page FILE [TITLE]\n"
            "       live_gen status FILE [KEY=VALUE...]\n",
            why);
    return 2;
}

static int write_file(const char *path, const struct tl_buf *b)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
        return usage("path too long");
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "live_gen: cannot create %s: %s\n", tmp, strerror(errno));
        return 2;
    }
    int bad = fwrite(b->buf, 1, b->len, f) != b->len;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        fprintf(stderr, "live_gen: cannot write %s: %s\n", path, strerror(errno));
        remove(tmp);
        return 2;
    }
    return 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *v = x;
    return 0;
}

static int parse_i64(const char *s, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *v = x;
    return 0;
}

static int parse_state(const char *s, enum tl_live_state *state)
{
    static const enum tl_live_state all[] = {TL_LIVE_WRITING, TL_LIVE_IDLE, TL_LIVE_FINISHED,
                                             TL_LIVE_STOPPED};
    for (size_t i = 0; i < TL_ARRAY_LEN(all); i++) {
        if (!strcmp(s, tl_live_state_name(all[i]))) {
            *state = all[i];
            return 0;
        }
    }
    return -1;
}

/* R:COMPILE_IDS:GRAPH_BREAKS:RECOMPILES:FAILURES */
static int parse_rank(const char *s, struct tl_live_rank *r)
{
    unsigned long rank;
    unsigned long long c[4];
    int used = 0;
    if (sscanf(s, "%lu:%llu:%llu:%llu:%llu%n", &rank, &c[0], &c[1], &c[2], &c[3], &used) != 5 ||
        s[used])
        return -1;
    r->rank = (uint32_t)rank;
    r->counts.compile_ids = c[0];
    r->counts.graph_breaks = c[1];
    r->counts.recompiles = c[2];
    r->counts.failures = c[3];
    return 0;
}

static int status(const char *path, int argc, char **argv)
{
    static struct tl_live_rank ranks[MAX_RANKS];
    struct tl_live_status s = {0};
    s.ranks = ranks;
    for (int i = 0; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq)
            return usage("expected KEY=VALUE");
        *eq = '\0';
        const char *k = argv[i];
        const char *v = eq + 1;
        int bad = 0;
        if (!strcmp(k, "generation"))
            bad = parse_u64(v, &s.generation);
        else if (!strcmp(k, "updated"))
            bad = parse_i64(v, &s.updated_ms);
        else if (!strcmp(k, "heartbeat"))
            bad = parse_i64(v, &s.heartbeat_ms);
        else if (!strcmp(k, "last_input"))
            bad = parse_i64(v, &s.last_input_ms);
        else if (!strcmp(k, "state"))
            bad = parse_state(v, &s.state);
        else if (!strcmp(k, "final"))
            s.final = !strcmp(v, "1");
        else if (!strcmp(k, "compile_ids"))
            bad = parse_u64(v, &s.total.compile_ids);
        else if (!strcmp(k, "graph_breaks"))
            bad = parse_u64(v, &s.total.graph_breaks);
        else if (!strcmp(k, "recompiles"))
            bad = parse_u64(v, &s.total.recompiles);
        else if (!strcmp(k, "failures"))
            bad = parse_u64(v, &s.total.failures);
        else if (!strcmp(k, "input"))
            s.input = v;
        else if (!strcmp(k, "message"))
            s.message = v;
        else if (!strcmp(k, "rank") && s.nranks < MAX_RANKS)
            bad = parse_rank(v, &ranks[s.nranks++]);
        else
            bad = -1;
        if (bad) {
            fprintf(stderr, "live_gen: bad %s=%s\n", k, v);
            return 2;
        }
    }
    struct tl_buf b = TL_BUF_INIT;
    tl_live_status(&b, &s);
    int rc = write_file(path, &b);
    tl_buf_release(&b);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage("too few arguments");
    if (!strcmp(argv[1], "page")) {
        if (argc > 4)
            return usage("too many arguments");
        struct tl_buf b = TL_BUF_INIT;
        tl_live_page(&b, argc == 4 ? argv[3] : NULL);
        int rc = write_file(argv[2], &b);
        tl_buf_release(&b);
        return rc;
    }
    if (!strcmp(argv[1], "status"))
        return status(argv[2], argc - 3, argv + 3);
    return usage("the first argument is page or status");
}
