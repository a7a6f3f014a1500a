/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"
#include "json.h"
#include "json_write.h"
#include "arena.h"
#include "buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void mismatch(const char *what, const struct tl_buf *a, const struct tl_buf *b)
{
    fprintf(stderr, "fuzz_json: %s\n--- first\n%s\n--- second\n%s\n", what, a->buf, b->buf);
    abort();
}

/* Parse the input; if it is valid JSON, write it compact and pretty, parse
 * both outputs again and check they re-serialise to the same compact text. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tl_arena a;
    struct tl_json v;
    struct tl_json_error err;
    tl_arena_init(&a, 4096);
    if (tl_json_parse(&a, (const char *)data, size, &v, &err) != 0) {
        if (!err.msg || err.offset > size)
            abort();
        tl_arena_release(&a);
        return 0;
    }

    struct tl_buf compact = TL_BUF_INIT;
    struct tl_buf pretty = TL_BUF_INIT;
    struct tl_buf again = TL_BUF_INIT;
    tl_json_write_compact(&compact, &v);
    tl_json_write_pretty(&pretty, &v, 0);

    struct tl_json w;
    if (tl_json_parse(&a, compact.buf, compact.len, &w, &err) != 0) {
        fprintf(stderr, "compact output does not parse: %s at %zu\n", err.msg, err.offset);
        mismatch("compact output invalid", &compact, &compact);
    }
    tl_json_write_compact(&again, &w);
    if (again.len != compact.len || memcmp(again.buf, compact.buf, compact.len) != 0)
        mismatch("compact round trip differs", &compact, &again);

    tl_buf_reset(&again);
    if (tl_json_parse(&a, pretty.buf, pretty.len, &w, &err) != 0) {
        fprintf(stderr, "pretty output does not parse: %s at %zu\n", err.msg, err.offset);
        mismatch("pretty output invalid", &pretty, &pretty);
    }
    tl_json_write_compact(&again, &w);
    if (again.len != compact.len || memcmp(again.buf, compact.buf, compact.len) != 0)
        mismatch("pretty round trip differs", &compact, &again);

    /* pretty of the re-parsed pretty text is stable too */
    tl_buf_reset(&again);
    tl_json_write_pretty(&again, &w, 0);
    if (again.len != pretty.len || memcmp(again.buf, pretty.buf, pretty.len) != 0)
        mismatch("pretty output not stable", &pretty, &again);

    tl_buf_release(&compact);
    tl_buf_release(&pretty);
    tl_buf_release(&again);
    tl_arena_release(&a);
    return 0;
}
