/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compile ids: their display form ([0/0], [!1/2/3_4]), folder name (-_0_0_0) and the two
 * normalisations the reference keys its maps with.
 */
#include "base/config.h"
#include "input/compile_id.h"

#include <string.h>

static void part(struct tl_buf *out, const struct tl_compile_id *id, int bit, uint32_t v)
{
    if (id->has & bit)
        tl_buf_addu(out, v);
    else
        tl_buf_addch(out, '-');
}

void tl_cid_display(struct tl_buf *out, const struct tl_compile_id *id)
{
    tl_buf_addch(out, '[');
    if (id->has & TL_CID_CA) {
        tl_buf_addch(out, '!');
        tl_buf_addu(out, id->ca);
        tl_buf_addch(out, '/');
    }
    part(out, id, TL_CID_FRAME, id->frame);
    tl_buf_addch(out, '/');
    part(out, id, TL_CID_FCID, id->fcid);
    if ((id->has & TL_CID_ATTEMPT) && id->attempt != 0) {
        tl_buf_addch(out, '_');
        tl_buf_addu(out, id->attempt);
    }
    tl_buf_addch(out, ']');
}

void tl_cid_folder(struct tl_buf *out, const struct tl_compile_id *id)
{
    part(out, id, TL_CID_CA, id->ca);
    tl_buf_addch(out, '_');
    part(out, id, TL_CID_FRAME, id->frame);
    tl_buf_addch(out, '_');
    part(out, id, TL_CID_FCID, id->fcid);
    tl_buf_addch(out, '_');
    part(out, id, TL_CID_ATTEMPT, id->attempt);
}

struct tl_compile_id tl_cid_dir_key(struct tl_compile_id id)
{
    if ((id.has & TL_CID_FCID) && !(id.has & TL_CID_ATTEMPT)) {
        id.has |= TL_CID_ATTEMPT;
        id.attempt = 0;
    }
    return id;
}

struct tl_compile_id tl_cid_metrics_key(struct tl_compile_id id)
{
    if (id.has & TL_CID_FCID) {
        id.has |= TL_CID_ATTEMPT;
        id.attempt = 0;
    }
    return id;
}

bool tl_cid_eq(const struct tl_compile_id *a, const struct tl_compile_id *b)
{
    return a->has == b->has && a->ca == b->ca && a->frame == b->frame && a->fcid == b->fcid &&
           a->attempt == b->attempt;
}

void tl_cid_key(const struct tl_compile_id *id, char key[TL_CID_KEY_LEN])
{
    key[0] = (char)id->has;
    memcpy(key + 1, &id->ca, 4);
    memcpy(key + 5, &id->frame, 4);
    memcpy(key + 9, &id->fcid, 4);
    memcpy(key + 13, &id->attempt, 4);
}
