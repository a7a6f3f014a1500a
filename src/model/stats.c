/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Stats line: the reference's counters in its order, then ours, non-zero ones only.
 */
#include "base/config.h"
#include "model/stats.h"

void tl_stats_format(struct tl_buf *out, const struct tl_stats *s)
{
    bool first = true;
    tl_buf_adds(out, "Stats {");
#define TL_X(name)                                                                                 \
    if (s->name) {                                                                                 \
        tl_buf_adds(out, first ? " " : ", ");                                                      \
        tl_buf_adds(out, #name ": ");                                                              \
        tl_buf_addu(out, s->name);                                                                 \
        first = false;                                                                             \
    }
    TL_STATS_FIELDS(TL_X)
#undef TL_X
    tl_buf_adds(out, " }");
}

uint64_t tl_stats_strict_failures(const struct tl_stats *s)
{
    return s->fail_glog + s->fail_json + s->fail_payload_md5 + s->other_rank +
           s->fail_dynamo_guards_json + s->fail_parser + s->fail_utf8 + s->fail_payload_truncated +
           s->fail_str_table + s->fail_missing_fail_reason + s->fail_line_too_long;
}
