/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * payloads/<md5>.txt (spec core.md §1.8): the payload of a record that no sink before
 * this one wrote as a file, named by the has_payload md5 the log gave it. The same payload
 * repeats in a log, so the file is written once. A name that repeats with other bytes (a
 * bad has_payload) keeps the bytes whose md5 it is, as the reference's file does when the
 * last of them is right (it keeps the last); the others get a variant. Chromium events never
 * get one. With --redact the name is the md5 of the redacted payload the file holds.
 */
#include "base/config.h"
#include "sinks/sinks.h"
#include "base/md5.h"

#include <string.h>

/* Whether the payload's md5 is its has_payload (asked when its name holds other bytes). */
static bool md5_is_name(const void *p, size_t n, void *ctx)
{
    const struct tl_str *want = ctx;
    char hex[33];
    tl_md5_hex(p, n, hex);
    return want->n == 32 && memcmp(hex, want->p, 32) == 0;
}

static void *payloads_create(struct tl_sink_ctx *ctx, const void *params)
{
    (void)ctx, (void)params;
    return (void *)&tl_sink_payloads; /* no state of its own */
}

static int payloads_record(void *self, struct tl_sink_ctx *ctx, struct tl_record *r,
                           struct tl_err *err)
{
    (void)self;
    if (!r->has_payload || !r->payload.n || r->payload_file.len ||
        tl_record_has(r, TL_K_CHROMIUM_EVENT))
        return 0;
    struct tl_str name = r->env->key[TL_K_HAS_PAYLOAD]->u.str;
    char hex[33];
    if (ctx->redacting) { /* the logged md5 is the model's payload's: it would confirm a guess */
        tl_md5_hex(r->payload.p, r->payload.n, hex);
        name = tl_str_make(hex, 32);
    }
    struct tl_buf path = TL_BUF_INIT;
    tl_buf_adds(&path, "payloads/");
    tl_path_safe(&path, name, false);
    tl_buf_adds(&path, ".txt");
    int rc = tl_outdir_write_rightful(ctx->out, path.buf, r->payload.p, r->payload.n, md5_is_name,
                                      &name, &r->payload_file, err);
    tl_buf_release(&path);
    return rc;
}

static void payloads_destroy(void *self)
{
    (void)self;
}

const struct tl_sink_ops tl_sink_payloads = {
    .name = "payloads",
    .create = payloads_create,
    .record = payloads_record,
    .destroy = payloads_destroy,
};
