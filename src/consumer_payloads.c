/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * payloads/<md5>.txt (spec core.md §1.8): the payload of a record that no consumer before
 * this one wrote as a file, named by the has_payload md5 the log gave it. The same payload
 * repeats in a log, so the file is written once; a name that repeats with other bytes (a
 * bad has_payload) gets a variant (with --reference-compat, replaces it). Chromium events
 * never get one.
 */
#include "base/config.h"
#include "run.h"

static void *payloads_create(struct tl_log *log)
{
    (void)log;
    return (void *)&tl_consumer_payloads; /* no state of its own */
}

static int payloads_record(void *self, struct tl_log *log, struct tl_record *r, struct tl_err *err)
{
    (void)self;
    if (!r->has_payload || !r->payload.n || r->payload_file.len ||
        tl_record_has(r, TL_K_CHROMIUM_EVENT))
        return 0;
    struct tl_buf path = TL_BUF_INIT;
    tl_buf_adds(&path, "payloads/");
    tl_path_safe(&path, r->env->key[TL_K_HAS_PAYLOAD]->u.str, false);
    tl_buf_adds(&path, ".txt");
    /* --reference-compat: the last payload of a name wins, as the reference's files do. */
    int rc = log->opt->reference_compat ? tl_outdir_write(log->out, path.buf, r->payload.p,
                                                          r->payload.n, &r->payload_file, err)
                                        : tl_outdir_write_once(log->out, path.buf, r->payload.p,
                                                               r->payload.n, &r->payload_file, err);
    tl_buf_release(&path);
    return rc;
}

static void payloads_destroy(void *self)
{
    (void)self;
}

const struct tl_consumer_ops tl_consumer_payloads = {
    .name = "payloads",
    .create = payloads_create,
    .record = payloads_record,
    .destroy = payloads_destroy,
};
